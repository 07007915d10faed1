/**
 * `harness-tool/errors`: the error vocabulary below `ToolError` (which the main entry exports):
 * gRPC status codes and the status error a unary call fails with, and the tables of the kernel's
 * ToolError categories (their wire names, as the protocol spells them).
 */
export { GrpcCode, RpcStatusError, type GrpcCodeValue } from "./rpc-status-error.js";
export {
  ToolError,
  isToolError,
  toolErrorCategories,
  toolErrorCategoryNames,
  type ToolErrorCategoryName,
  type ToolErrorOptions,
} from "./tool-error.js";
export { configError } from "./config-error.js";
