/**
 * grpc.health.v1.Health/Check, which the host's Ping calls with service "plugin"; its messages are
 * generated from vendor-proto/grpc/health/v1/health.proto (go-plugin-messages.ts).
 */

/** go-plugin's GRPCServiceName: the service its Ping asks about. */
export const pluginHealthServiceName = "plugin";
