/** The platforms a package is published for: npm's os/cpu names, Go's GOOS/GOARCH. */
export declare const supervisorPlatforms: {
  readonly [platform: string]: { readonly goos: string; readonly goarch: string };
};
/** Where a platform's package keeps its binary. */
export declare function packagedBinary(platform: string): string;
/** Builds one platform's binary to `out` (atomically); throws with Go's output when the build fails. */
export declare function buildSupervisor(platform: string, out?: string): string;
