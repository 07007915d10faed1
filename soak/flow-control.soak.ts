/**
 * Soak: flow control with ≥ 1 GiB through the wire (FLOW_BLOCKS blocks of 1 MiB + 7 bytes, default
 * 1024), read slowly (FLOW_RECV_DELAY_MS after every event, default 1) by the TypeScript host and by
 * go-plugin v1.8.0 with and without AutoMTLS, from a child and from a handler: every byte in order,
 * then exit_status and the result, and the provider's peak RSS within the bound the CI version
 * (test/runtime/interop/flow-control.test.ts) checks.
 */
import { hostIds } from "../test/runtime/interop/host-matrix.js";
import { describeSlowReader } from "../test/runtime/interop/flow-control-scenarios.js";

const blocks = Number(process.env["FLOW_BLOCKS"] ?? "1024");
const recvDelayMs = Number(process.env["FLOW_RECV_DELAY_MS"] ?? "1");

for (const id of hostIds) describeSlowReader(id, { label: "flow control soak", blocks, recvDelayMs });
