// The {{name}} provider's tools. The generated {{pascal}}Handlers interface types every input, output
// and context; `npx harness-tool sync src/handlers.ts` adds a handler when a tool is added to the proto.
{{imports}}import type { {{pascal}}Handlers } from "./gen/{{name}}/v1/{{name}}_tool.js";
{{declarations}}
/** The handlers, one per tool. */
export const handlers: {{pascal}}Handlers = {
{{handlers}}};
