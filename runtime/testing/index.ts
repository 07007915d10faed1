/**
 * harness-tool/testing: the host side of go-plugin in TypeScript, for provider authors' tests and
 * the CLI. Owned by the transport work; being written now.
 */
export {};
