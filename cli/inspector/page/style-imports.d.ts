// The page imports its style sheet for esbuild to bundle; to the type checker it is an empty module.
declare module "*.css";
