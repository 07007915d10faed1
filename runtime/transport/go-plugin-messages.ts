/**
 * The messages of go-plugin's own services and of gRPC health that the provider decodes and answers
 * (docs/transport.md#what-the-provider-does-in-order, step 6), generated from vendor-proto/
 * (go-plugin v1.8.0's internal/plugin/*.proto, grpc/health/v1/health.proto). serve-go-plugin.ts
 * imports this module on the host's first call rather than at start-up: nothing before the
 * handshake line needs these descriptors (docs/transport.md, start-up).
 */
export { ConnInfoSchema, type ConnInfo } from "../generated/plugin/grpc_broker_pb.js";
export { EmptySchema } from "../generated/plugin/grpc_controller_pb.js";
export {
  HealthCheckRequestSchema,
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
} from "../generated/grpc/health/v1/health_pb.js";
