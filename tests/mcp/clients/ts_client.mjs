// The TypeScript MCP SDK's client against `memboard mcp` (tests/mcp/test_real_clients.py): connect over stdio, list
// the tools, compile every input and output schema with ajv (strict), call one tool and check its structured content
// against its outputSchema. Prints one JSON object: the tool names, the schemas compiled, the call's result.
// Usage: node ts_client.mjs CLIENTS_DIR COMMAND ARGS... (CLIENTS_DIR: where npm installed the packages).
import { createRequire } from "node:module";
import path from "node:path";

const [clients, command, ...args] = process.argv.slice(2);
const require = createRequire(path.join(clients, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const Ajv = require("ajv").default;

const client = new Client({ name: "memboard-ci", version: "0" });
await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: "ignore" }));
const { tools } = await client.listTools();
const ajv = new Ajv({ strict: true, allErrors: true });
const validators = {};
let compiled = 0;
for (const tool of tools) {
  ajv.compile(tool.inputSchema);
  compiled += 1;
  if (tool.outputSchema) {
    validators[tool.name] = ajv.compile(tool.outputSchema);
    compiled += 1;
  }
}
const result = await client.callTool({ name: "session_register", arguments: { agent: "ts-agent", topic: "From TS" } });
const valid = validators.session_register ? validators.session_register(result.structuredContent) : null;
const refused = await client.callTool({ name: "session_register", arguments: { agent: "x", topic: "y", dry_rnu: true } });
console.log(JSON.stringify({
  server: client.getServerVersion(),
  tools: tools.map((t) => t.name),
  compiled,
  isError: result.isError ?? false,
  structured: result.structuredContent,
  valid,
  refused: { isError: refused.isError ?? false, text: refused.content?.[0]?.text },
}));
await client.close();
