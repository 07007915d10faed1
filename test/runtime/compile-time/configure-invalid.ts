// The configure hook's config parameter is typed: hand-written, from defineConfig; generated, from
// the proto's config message. Each `@ts-expect-error` sits on the line the compiler must reject; an
// error that moves or disappears fails the type-check under TS 5.9 and TS 7 (test/typecheck.test.ts).
// builder-diagnostics.test.ts asserts the codes and messages.
import { configError, defineConfig, defineProvider } from "../../../runtime/index.js";
import { createMappingProvider, type MappingHandlers } from "../../plugin/golden/mapping_tool.js";

const notesConfig = defineConfig<{ db_path: string; limit?: number }>([
  { name: "db_path", type: "string", required: true },
  { name: "limit", type: "number" },
]);

export const handWritten = defineProvider(
  {
    name: "notes",
    version: "1.0.0",
    source: "github.com/acme/notes",
    tools: {},
    config: notesConfig,
    configure: (config) => {
      if (config.db_path === "") throw configError("db_path", "must name a file");
      // @ts-expect-error a hand-written hook's config has the declared attributes only
      return config.db_pth;
    },
  },
  {},
);

export const handWrittenTypes = defineProvider(
  {
    name: "notes",
    version: "1.0.0",
    source: "github.com/acme/notes",
    tools: {},
    config: notesConfig,
    configure: async (config) => {
      // @ts-expect-error a hand-written hook's attribute has its declared type
      const limit: string | undefined = config.limit;
      void limit;
    },
  },
  {},
);

export function generated(handlers: MappingHandlers) {
  return createMappingProvider(handlers, {
    configure: async (config, { signal }) => {
      signal.throwIfAborted();
      // @ts-expect-error a generated hook's config is the proto's config message
      const url: number = config.endpoint.url;
      void url;
    },
  });
}
