// An MCP client the project did not write: the official TypeScript SDK's
// Client (npm @modelcontextprotocol/sdk). internal/mcptest runs it with one
// JSON argument:
//   {"transport": "stdio", "command": "...", "args": [...], "env": {...},
//    "url": "http://...", "headers": {...},          (transport "http")
//    "calls": [{"tool": "search", "arguments": {...}}], "pipelined": false,
//    "closeStdin": false}  (stdio, pipelined: end stdin after the last call)
// and reads one JSON object from stdout:
//   {"server": {...}, "tools": [{name, inputSchema, outputSchema}],
//    "results": [{isError, text, structured}], "error": "...", "status": 401}
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const spec = JSON.parse(process.argv[2]);
const out = { tools: [], results: [] };
let transport;
if (spec.transport === "stdio") {
  transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args ?? [],
    env: { ...process.env, ...(spec.env ?? {}) },
    stderr: "inherit",
  });
} else if (spec.transport === "http") {
  transport = new StreamableHTTPClientTransport(new URL(spec.url), {
    requestInit: { headers: spec.headers ?? {} },
  });
} else {
  throw new Error(`unknown transport ${spec.transport}`);
}
const client = new Client({ name: "situate-mcptest", version: "1.0.0" });
try {
  await client.connect(transport);
  out.server = client.getServerVersion();
  const listed = await client.listTools();
  out.tools = listed.tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema, outputSchema: t.outputSchema }));
  // callTool validates structuredContent against the tool's outputSchema.
  const call = (c) => client.callTool({ name: c.tool, arguments: c.arguments ?? {} });
  const results = [];
  if (spec.pipelined) {
    const pending = (spec.calls ?? []).map(call);
    // The SDK keeps the child process private; end its stdin the way a
    // shell pipe ends, with every request already written.
    if (spec.closeStdin) transport._process.stdin.end();
    results.push(...(await Promise.all(pending)));
  } else {
    for (const c of spec.calls ?? []) results.push(await call(c));
  }
  for (const r of results) {
    out.results.push({
      isError: !!r.isError,
      text: (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
      structured: r.structuredContent ?? null,
    });
  }
} catch (e) {
  out.error = String(e?.message ?? e);
  if (e instanceof StreamableHTTPError) out.status = e.code;
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + "\n");
