/**
 * The reference docs of a provider as files (`README.md`, the index, and `tools/<tool>.md`, a page
 * per tool), from what it declares and the templates; and how committed docs differ from them.
 * The output depends on nothing else: tools sorted by name, no dates, no paths of this machine.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { DocsInput } from "./docs-input.js";
import {
  configAttributes,
  configBlock,
  exampleCall,
  hookPointsList,
  inputFields,
  outputFields,
  previewSection,
  schemaJson,
  slashCommands,
  toolFacts,
  toolPagePath,
  toolsTable,
} from "./docs-sections.js";
import { type DocsTemplates, fillPage, type indexPlaceholders, type PageValues } from "./docs-templates.js";
import { paragraph } from "./markdown-text.js";

/** The index page's file. */
export const indexFile = "README.md";

/** The page ending in exactly one newline. */
function tidy(text: string): string {
  return `${text.trimEnd()}\n`;
}

/** Every file of the docs, by path relative to the docs folder, sorted. */
export function renderDocs(input: DocsInput, templates: DocsTemplates): Map<string, string> {
  const provider: PageValues<typeof indexPlaceholders> = {
    provider_name: input.producer.name,
    provider_version: input.producer.version,
    provider_source: input.producer.source,
    tools_table: toolsTable(input),
    hook_points: hookPointsList(input),
    config_attributes: configAttributes(input),
    config_hcl: configBlock(input),
    slash_commands: slashCommands(input),
  };
  const files = new Map<string, string>([[indexFile, tidy(fillPage(templates.index, provider, "index.md"))]]);
  for (const tool of [...input.schema.tools].sort((a, b) => a.name.localeCompare(b.name))) {
    const own = templates.tools.get(tool.name);
    const values = {
      ...provider,
      tool_name: tool.name,
      tool_description: paragraph(tool.description),
      tool_facts: toolFacts(tool),
      input_fields: inputFields(tool),
      output_fields: outputFields(tool),
      input_schema: schemaJson(tool.inputSchema),
      output_schema: schemaJson(tool.outputSchema),
      example_call: exampleCall(tool, input),
      preview: previewSection(tool, input),
      tools_link: `../${indexFile}#tools`,
    };
    files.set(
      toolPagePath(tool.name),
      tidy(fillPage(own ?? templates.tool, values, own ? `tools/${tool.name}.md` : "tool.md")),
    );
  }
  return files;
}

/** The `.md` files under `folder`'s tools/ now (relative paths). */
function committedToolPages(folder: string): string[] {
  const tools = path.join(folder, "tools");
  if (!existsSync(tools)) return [];
  return readdirSync(tools)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `tools/${name}`);
}

/** How the docs in `folder` differ from `files`: one line per file, sorted; empty when they agree. */
export function docsDifferences(folder: string, files: ReadonlyMap<string, string>): string[] {
  const lines: string[] = [];
  for (const [file, text] of files) {
    const full = path.join(folder, file);
    if (!existsSync(full)) lines.push(`${path.join(folder, file)}: missing`);
    else if (readFileSync(full, "utf8") !== text) lines.push(`${path.join(folder, file)}: differs`);
  }
  for (const file of committedToolPages(folder))
    if (!files.has(file)) lines.push(`${path.join(folder, file)}: no such tool any more`);
  return lines.sort();
}

/** Writes `files` into `folder`, removing tool pages of tools that are gone. */
export function writeDocs(folder: string, files: ReadonlyMap<string, string>): void {
  for (const file of committedToolPages(folder)) if (!files.has(file)) rmSync(path.join(folder, file));
  for (const [file, text] of files) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), text);
  }
}
