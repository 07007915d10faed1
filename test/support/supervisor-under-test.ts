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
