/** True when `candidate` (relative to `root`, or absolute) is `root` or inside it. */
function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, path.resolve(root, candidate));
  return !relative.startsWith("..") && !path.isAbsolute(relative);
}
