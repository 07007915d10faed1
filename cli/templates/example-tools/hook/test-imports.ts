import { HookDecision } from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
