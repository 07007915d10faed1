/**
 * go-plugin's own services beside ToolService (docs/transport.md#what-the-provider-does-in-order,
 * step 6): health (the plugin and the ToolService are SERVING until a stop begins), the broker
 * stream (where the host announces the kernel's callback server; its end means the host is gone),
 * the controller (Shutdown) and stdio (kept open, nothing forwarded: console output reaches the
 * host as stderr log lines).
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type {
  sendUnaryData,
  ServerDuplexStream,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { GrpcCode } from "../errors/rpc-status-error.js";
import { ToolService } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import type { BrokerConnections } from "./broker-connections.js";
import { goPluginServices } from "./grpc-service-definition.js";
import { pluginHealthServiceName } from "./health-check.js";
import { hostLog } from "./host-log.js";
import type { ProviderLife } from "./provider-life.js";

/**
 * go-plugin's and gRPC health's messages, imported on the host's first call (and warmed up once the
 * handshake line is out) rather than at start-up: their descriptors are booted after the line.
 */
let hostMessages: Promise<typeof import("./go-plugin-messages.js")> | undefined;
export const loadHostMessages = () => (hostMessages ??= import("./go-plugin-messages.js"));

/** gRPC's ALREADY_EXISTS (status.proto), which GrpcCode does not list. */
const alreadyExists = 6;

/** What the services are added to: grpc-js's Server, or the node:http2 one (node-grpc/). */
export interface ServiceHost {
  addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void;
}

type Unary = ServerUnaryCall<Uint8Array, Uint8Array>;
/** plugin.Empty (and any message with no field set) in the wire format: no bytes. */
const emptyMessage = new Uint8Array(0);
type Reply = sendUnaryData<Uint8Array>;

/** Adds health, broker, controller and stdio to `server`, each ending through `life`. */
export function addGoPluginServices(server: ServiceHost, life: ProviderLife, broker: BrokerConnections): void {
  server.addService(goPluginServices.health, {
    check: (call: Unary, callback: Reply) => {
      void loadHostMessages()
        .then(
          ({
            HealthCheckRequestSchema,
            HealthCheckResponseSchema,
            HealthCheckResponse_ServingStatus: ServingStatus,
          }) => {
            const { service } = fromBinary(HealthCheckRequestSchema, call.request);
            if (service !== "" && service !== pluginHealthServiceName && service !== ToolService.typeName) {
              callback({ code: GrpcCode.NOT_FOUND, details: `unknown service ${service}` });
              return;
            }
            const status = life.stopping ? ServingStatus.NOT_SERVING : ServingStatus.SERVING;
            callback(null, toBinary(HealthCheckResponseSchema, create(HealthCheckResponseSchema, { status })));
          },
        )
        .catch((error: unknown) =>
          callback({
            code: GrpcCode.INVALID_ARGUMENT,
            details: `undecodable HealthCheckRequest: ${error instanceof Error ? error.message : String(error)}`,
          }),
        );
    },
  });
  server.addService(goPluginServices.broker, { startStream: brokerStream(life, broker) });
  server.addService(goPluginServices.controller, {
    // The reply (an Empty, zero bytes) and the stop start in the same turn: go-plugin ignores the
    // reply and waits for the exit, and a reply awaited first held every Kill() for a loop turn.
    shutdown: (_call: Unary, callback: Reply) => {
      callback(null, emptyMessage);
      void life.stop("shutdown-rpc");
    },
  });
  server.addService(goPluginServices.stdio, {
    // The stream stays open (go-plugin v1.8.0 reads it until EOF) and ends on shutdown.
    streamStdio: (call: ServerWritableStream<Uint8Array, Uint8Array>) => {
      const stream = { end: () => call.end() };
      life.openStreams.add(stream);
      call.on("cancelled", () => life.openStreams.delete(stream));
    },
  });
}

/** The broker's StartStream handler: the host's one stream recorded, any other refused. */
function brokerStream(
  life: ProviderLife,
  broker: BrokerConnections,
): (call: ServerDuplexStream<Uint8Array, Uint8Array>) => void {
  let opened = false;
  return (call) => {
    // go-plugin opens one broker stream per process, first thing. Another one is not the host's
    // broker: what it announces must not replace where the kernel's callbacks go, nor its end
    // end the provider.
    if (opened) {
      hostLog(
        "warn",
        "refused a second broker stream: the host's is open (go-plugin opens one per process); nothing it sends is recorded",
      );
      call.emit("error", {
        code: alreadyExists,
        details: "the host's broker stream is already open; go-plugin opens one per process",
      });
      return;
    }
    opened = true;
    // Kept open for the life of the process; its end means the host's broker is gone.
    const stream = { end: () => call.end() };
    life.openStreams.add(stream);
    // Recorded in the order they came, once the messages are loaded.
    let recorded = Promise.resolve();
    call.on("data", (bytes: Uint8Array) => {
      recorded = recorded.then(async () => {
        const { ConnInfoSchema } = await loadHostMessages();
        try {
          broker.record(fromBinary(ConnInfoSchema, bytes));
        } catch (error) {
          hostLog("warn", "undecodable broker ConnInfo", {
            error: error instanceof Error ? error.message : String(error),
          });
        }
      });
    });
    const closed = () => {
      life.openStreams.delete(stream);
      void life.stop("broker-closed");
    };
    call.on("end", closed);
    call.on("cancelled", closed);
    call.on("error", closed);
  };
}
