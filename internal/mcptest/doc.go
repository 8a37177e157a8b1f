// Package mcptest runs an MCP client that the project did not write — the
// official TypeScript SDK's Client (npm @modelcontextprotocol/sdk) — against
// situate's MCP server, over stdio or Streamable HTTP, so tests check the
// server against another implementation of the protocol.
//
// Run needs node and the SDK installed by scripts/fetch-mcp-sdk.sh into
// $HOME/.cache/situate/mcp-sdk-node (or the directory SITUATE_MCP_SDK
// names). Without them the test is skipped with a message saying how to
// install them, unless SITUATE_REQUIRE_NODE is set (CI), which makes it a
// failure.
//
// It imports only the standard library.
package mcptest
