/**
 * The supervisor program the tests run against: HARNESS_TOOL_SUPERVISOR_BINARY in the test run's
 * environment (the Go candidate in supervisor-go/) is handed to the providers the tests launch
 * supervised; unset, they get the Node supervisor (the default). Hosts that build the provider's
 * environment from scratch (the kernel's) need it passed as an operator extra.
 */
export function supervisorUnderTest(): { readonly [name: string]: string } {
  const binary = process.env.HARNESS_TOOL_SUPERVISOR_BINARY;
  return binary ? { HARNESS_TOOL_SUPERVISOR_BINARY: binary } : {};
}

/**
 * The transport the tests' providers serve on: HARNESS_TOOL_TRANSPORT in the test run's
 * environment (http2: gRPC on node:http2) is handed on; unset, grpc-js (the default). launch()
 * and go-plugin's hosts pass it on by themselves; the kernel's environment needs it as an extra.
 */
export function transportUnderTest(): { readonly [name: string]: string } {
  const transport = process.env.HARNESS_TOOL_TRANSPORT;
  return transport ? { HARNESS_TOOL_TRANSPORT: transport } : {};
}
