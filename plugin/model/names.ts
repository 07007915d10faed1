/**
 * How proto names become generated names: wire names in snake_case, handler methods in
 * lowerCamelCase, types in PascalCase. One place, so the docs, the model and the emitters agree.
 */

/** `ReadFile` -> `read_file`, `HTTPGet` -> `http_get`, `FilesystemV2` -> `filesystem_v2`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();
}

/** `ReadFile` -> `readFile`, `HTTPGet` -> `httpGet`, `read_file` -> `readFile`. */
export function lowerCamelCase(name: string): string {
  return snakeCase(name).replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `read_file` -> `ReadFile`, `readFile` -> `ReadFile`. */
export function pascalCase(name: string): string {
  const camel = lowerCamelCase(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

/**
 * The prefix of a provider's generated names: the service name without a trailing `Service` or
 * `Provider` (`FilesystemService` -> `Filesystem`), or the whole name when nothing would be left.
 */
export function providerBaseName(serviceName: string): string {
  const stripped = serviceName.replace(/(Service|Provider)$/, "");
  return stripped === "" ? serviceName : stripped;
}

/**
 * Hands out TypeScript identifiers that are unique within one generated file: the first caller
 * gets the name it asks for, later ones a numbered variant (`Entry`, `Entry2`). Linear: one set.
 */
export class IdentifierAllocator {
  private readonly taken = new Set<string>();

  /** Every name allocated so far. */
  names(): string[] {
    return [...this.taken];
  }

  /** `wanted`, or `wanted2`, `wanted3`, ... whichever is free first. */
  allocate(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.taken.has(name); n++) name = `${wanted}${n}`;
    this.taken.add(name);
    return name;
  }
}
