/** This platform's package folder in the checkout's node_modules. */
export declare const installedSupervisorPackage: string;
/** The binary the runtime finds there. */
export declare const installedSupervisorBinary: string;
/** The installed binary and the build's seconds, or why there is none. */
export type SupervisorInstall =
  | { readonly binary: string; readonly seconds: number; readonly reason?: undefined }
  | { readonly reason: string; readonly binary?: undefined; readonly seconds?: undefined };
/** Builds and installs the package (always with `force`, else only when stale). */
export declare function installSupervisorPackage(options?: { readonly force?: boolean }): SupervisorInstall;
