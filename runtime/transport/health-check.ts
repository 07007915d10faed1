/**
 * grpc.health.v1.Health/Check, which the host's Ping calls with service "plugin":
 * HealthCheckRequest { string service = 1; }, HealthCheckResponse { ServingStatus status = 1; }.
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** HealthCheckResponse.ServingStatus. */
export const ServingStatus = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;

/** go-plugin's GRPCServiceName: the service its Ping asks about. */
export const pluginHealthServiceName = "plugin";

/** Decodes HealthCheckRequest.service. */
export function decodeHealthCheckRequest(bytes: Uint8Array): string {
  const r = new BinaryReader(bytes);
  let service = "";
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) service = r.string();
    else r.skip(wireType);
  }
  return service;
}

/** Encodes a HealthCheckRequest. */
export function encodeHealthCheckRequest(service: string): Uint8Array {
  const w = new BinaryWriter();
  if (service !== "") w.tag(1, WireType.LengthDelimited).string(service);
  return w.finish();
}

/** Encodes a HealthCheckResponse. */
export function encodeHealthCheckResponse(status: number): Uint8Array {
  const w = new BinaryWriter();
  if (status !== 0) w.tag(1, WireType.Varint).int32(status);
  return w.finish();
}

/** Decodes HealthCheckResponse.status. */
export function decodeHealthCheckResponse(bytes: Uint8Array): number {
  const r = new BinaryReader(bytes);
  let status = 0;
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === WireType.Varint) status = r.int32();
    else r.skip(wireType);
  }
  return status;
}
