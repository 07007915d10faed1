/**
 * The substitution step of the templates: `{{key}}` in a template file's text and path becomes the
 * value of `key`. Nothing else is interpreted (no conditions, no loops), so a template reads as the
 * file it becomes; the choices init makes (which example tools) are made in scaffold-files.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The values of a template's placeholders, by key. */
export type TemplateValues = { readonly [key: string]: string };

const placeholder = /\{\{(\w+)\}\}/g;

/**
 * `text` with every `{{key}}` replaced by its value; in a `.json` or `.hcl` file the value is
 * escaped as a string's contents (the template puts the quotes; HCL takes JSON's escapes, and `$${`
 * and `%%{` for a literal `${` and `%{`). A placeholder without a value is a bug in the template or
 * the caller: it throws, naming `where`.
 */
export function fillTemplate(text: string, values: TemplateValues, where: string): string {
  const json = where.endsWith(".json");
  const hcl = where.endsWith(".hcl");
  return text.replace(placeholder, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`${where}: the template names {{${key}}}, which has no value`);
    if (hcl)
      return JSON.stringify(value)
        .slice(1, -1)
        .replace(/([$%])\{/g, "$1$1{");
    return json ? JSON.stringify(value).slice(1, -1) : value;
  });
}

/**
 * The files under `folder`, by path relative to it (`/`-separated, sorted). npm leaves `.gitignore`
 * out of a package, so a template stores it as `_gitignore` (as create-vite does); it comes back
 * here under its real name.
 */
export function templateFiles(folder: string): Map<string, string> {
  const files = new Map<string, string>();
  const entries = readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    .sort();
  for (const relative of entries) {
    const written = relative.replace(/(^|\/)_gitignore$/, "$1.gitignore");
    files.set(written, readFileSync(path.join(folder, relative), "utf8"));
  }
  return files;
}
