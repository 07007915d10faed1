/**
 * Flow control through the wire, with a kernel that reads slowly: the TypeScript host and the real
 * go-plugin v1.8.0 host both pause after every event while the flood provider's child or handler
 * produces output as fast as it can. Short versions (128 MiB, far above the memory bound); the
 * ≥ 1 GiB ones run under `npm run soak` (soak/flow-control.soak.ts).
 */
import { describeSlowReader } from "./flow-control-scenarios.js";

for (const id of ["typescript", "go"] as const)
  describeSlowReader(id, { label: "flow control", blocks: 128, recvDelayMs: 1 });
