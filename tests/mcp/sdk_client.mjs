// Drives sm-mcp with the official MCP TypeScript SDK client (the version
// pinned in package.json) over stdio, and checks what a real client sees.
// Usage: node sdk_client.mjs SM_MCP VERSION
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const [server, version] = process.argv.slice(2);
assert.ok(server && version, "usage: node sdk_client.mjs SM_MCP VERSION");

const transport = new StdioClientTransport({ command: server, args: [], stderr: "pipe" });
let negotiated = null;
transport.setProtocolVersion = (v) => { negotiated = v; };
const client = new Client({ name: "sm-mcp-sdk-test", version: "1.0.0" });
await client.connect(transport);

// initialize: the SDK's latest version is spoken back; who the server is.
assert.equal(negotiated, LATEST_PROTOCOL_VERSION);
assert.equal(negotiated, "2025-11-25");
assert.deepEqual(client.getServerVersion(), { name: "sm-mcp", title: "wrk-sagemaker", version });
assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: false } });
assert.match(client.getInstructions(), /Call get_help first/);

await client.ping();

// tools/list: get_help with its title, annotations and schemas.
const { tools } = await client.listTools();
const help = tools.find((t) => t.name === "get_help");
assert.ok(help, "get_help is listed");
assert.equal(help.title, "Help: workflow and tools");
assert.deepEqual(help.annotations, {
  title: "Help: workflow and tools",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});
assert.equal(help.inputSchema.type, "object");
assert.equal(help.inputSchema.additionalProperties, false);
assert.deepEqual(Object.keys(help.inputSchema.properties), ["tool"]);
assert.equal(help.outputSchema.type, "object");

// tools/call: the SDK validates structuredContent against the outputSchema
// it just listed, so a mismatch would throw here.
const all = await client.callTool({ name: "get_help", arguments: {} });
assert.ok(!all.isError);
assert.equal(all.content.length, 1);
assert.equal(all.content[0].type, "text");
assert.match(all.content[0].text, /^sm-mcp .*\(MCP 2025-11-25\)/);
assert.match(all.content[0].text, /Workflow of a benchmark:/);
assert.match(all.content[0].text, /get_help \(read-only\)/);
assert.equal(all.structuredContent.server, "sm-mcp");
assert.equal(all.structuredContent.version, version);
assert.deepEqual(all.structuredContent.tools.map((t) => t.name), tools.map((t) => t.name));
assert.equal(tools.length, 16);
assert.ok(all.structuredContent.workflow.some((s) => s.tool === "delete_endpoint"));

const one = await client.callTool({ name: "get_help", arguments: { tool: "get_help" } });
assert.ok(!one.isError);
assert.match(one.content[0].text, /Arguments \(JSON Schema\): \{"type":"object"/);
assert.equal(one.structuredContent.workflow, undefined);

// Tool errors come back as results the model can read...
const missing = await client.callTool({ name: "get_help", arguments: { tool: "nope" } });
assert.equal(missing.isError, true);
assert.match(missing.content[0].text, /no tool named "nope"/);
const extra = await client.callTool({ name: "get_help", arguments: { bogus: 1 } });
assert.equal(extra.isError, true);
assert.equal(extra.content[0].text, 'Invalid arguments for tool get_help: unknown argument "bogus"');

// ...protocol errors as JSON-RPC errors.
await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (e) => {
  assert.ok(e instanceof McpError);
  assert.equal(e.code, -32602);
  assert.match(e.message, /Unknown tool: no_such_tool/);
  return true;
});

await client.close();
console.log("sm-mcp passed the MCP TypeScript SDK client checks");
