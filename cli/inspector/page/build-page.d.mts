/** The built page files by name (inspector.js, inspector.css). */
export declare const pageDist: string;
/** Builds the page in memory. */
export declare function buildPage(): Promise<Record<string, string>>;
/** The committed page files (undefined where one is missing). */
export declare function committedPage(): Record<string, string | undefined>;
