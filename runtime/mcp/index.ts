/**
 * `harness-tool/mcp`: what a provider made by `harness-tool mcp import` runs on (the proxy to its
 * MCP server, the drift check of Configure) and what the import itself maps with. It needs the
 * optional peer dependency `@modelcontextprotocol/sdk`, which an imported provider installs.
 */
export { mcpProxy, type McpProxy, type McpProxyConfig } from "./mcp-proxy.js";
export {
  compareSurface,
  type ImportedServer,
  type ImportedTool,
  type LiveTool,
  type McpToolHints,
  type SurfaceDrift,
} from "./imported-surface.js";
export { contentResultSchema, mapMcpSchema, type SchemaMapping } from "./schema-mapping.js";
