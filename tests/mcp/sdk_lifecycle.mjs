// The official MCP TypeScript SDK client drives sm-mcp's AWS tools against
// sm-emulator's control plane: the tools' annotations as a client sees them, a
// read-only call (get_endpoint_status), the tools that are not read-only
// refused without confirmation (saying what they would do) and run with it, a long one (deploy_endpoint)
// reporting progress, and a cancelled wait.
// Usage: node sdk_lifecycle.mjs SM_MCP VERSION EMULATOR_URL
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [server, , url] = process.argv.slice(2);
assert.ok(server && url, "usage: node sdk_lifecycle.mjs SM_MCP VERSION EMULATOR_URL");
const ROLE = "arn:aws:iam::123456789012:role/sm-mcp-test";

const transport = new StdioClientTransport({
  command: server,
  args: ["--region", "us-east-1", "--endpoint-url", url, "--time-scale", "1000"],
  env: { ...process.env },
  stderr: "pipe",
});
const client = new Client({ name: "sm-mcp-lifecycle-test", version: "1.0.0" });
await client.connect(transport);

// tools/list: the annotations a client sees.
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
for (const name of ["check_quotas", "delete_endpoint", "deploy_endpoint", "find_vllm_image",
  "get_deployment_config", "get_endpoint_logs", "get_endpoint_status", "get_help",
  "list_endpoints", "query_model", "verify_model_health", "run_benchmark", "compare_results"]) {
  assert.ok(byName[name], `${name} is listed`);
  assert.equal(byName[name].annotations.title, byName[name].title, `${name}'s title`);
}
assert.deepEqual(byName.delete_endpoint.annotations, {
  title: "Delete endpoint", readOnlyHint: false, destructiveHint: true, idempotentHint: true,
  openWorldHint: true,
});
assert.deepEqual(byName.get_endpoint_status.annotations, {
  title: "Endpoint status", readOnlyHint: true, destructiveHint: false, idempotentHint: true,
  openWorldHint: true,
});
assert.deepEqual(byName.deploy_endpoint.annotations, {
  title: "Deploy endpoint", readOnlyHint: false, destructiveHint: false, idempotentHint: false,
  openWorldHint: true,
});
assert.equal(byName.find_vllm_image.annotations.openWorldHint, false);
assert.deepEqual(byName.run_benchmark.annotations, {
  title: "Run the benchmark", readOnlyHint: false, destructiveHint: false, idempotentHint: false,
  openWorldHint: true,
});
// Every tool that is not read-only lists confirm and says it needs it.
for (const t of tools.filter((t) => !t.annotations.readOnlyHint)) {
  assert.equal(t.inputSchema.properties.confirm.type, "boolean", `${t.name} lists confirm`);
  assert.match(t.description, /Needs "confirm": true/, `${t.name} says it needs confirm`);
}
assert.deepEqual(tools.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name),
  ["deploy_endpoint", "delete_endpoint", "autoscale_set", "autoscale_remove", "run_benchmark"]);
assert.deepEqual(byName.delete_endpoint.inputSchema.required, ["endpoint_name"]);
assert.deepEqual(byName.deploy_endpoint.inputSchema.required, ["endpoint_name", "model_id", "role_arn"]);

// Without the confirmation, a deploy creates nothing and says what it would.
const unconfirmed = await client.callTool({ name: "deploy_endpoint", arguments: {
  endpoint_name: "e", model_id: "google/gemma-4-E2B-it", role_arn: ROLE, price_per_hour: 1.1267 } });
assert.equal(unconfirmed.isError, true);
assert.match(unconfirmed.content[0].text, /^deploy_endpoint was not run: it needs "confirm": true\. The call would create SageMaker endpoint e in us-east-1 serving google\/gemma-4-E2B-it .* bill USD 1\.1267 an hour/);
const none = await client.callTool({ name: "list_endpoints", arguments: {} });
assert.deepEqual(none.structuredContent.endpoints, [], "nothing was created");

// A long tool: deploy_endpoint reports progress while it waits.
const progress = [];
const deployed = await client.callTool(
  { name: "deploy_endpoint", arguments: { endpoint_name: "e", model_id: "google/gemma-4-E2B-it",
    role_arn: ROLE, price_per_hour: 1.1267, confirm: true } },
  undefined, { onprogress: (p) => progress.push(p) });
assert.ok(!deployed.isError, JSON.stringify(deployed.content));
assert.match(deployed.content[0].text, /^e is InService in us-east-1 after /);
assert.ok(progress.length >= 2, `progress notifications: ${progress.length}`);
assert.match(progress[0].message, /^deploying e \(google\/gemma-4-E2B-it\) in us-east-1 on ml\.g6\.xlarge: USD 1\.1267 an hour/);
assert.ok(progress.some((p) => / Creating, /.test(p.message)), "the status while Creating");
for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress);

// A read-only tool.
const status = await client.callTool({ name: "get_endpoint_status", arguments: { endpoint_name: "e" } });
assert.ok(!status.isError, JSON.stringify(status.content));
assert.equal(status.structuredContent.status, "InService");
assert.equal(status.structuredContent.model_id, "google/gemma-4-E2B-it");
const health = await client.callTool({ name: "verify_model_health", arguments: { endpoint_name: "e" } });
assert.equal(health.structuredContent.reply, "1512");

// Autoscaling: a preview without the confirmation, a change with it, read back.
const scalePreview = await client.callTool({ name: "autoscale_set", arguments: {
  endpoint_name: "e", min_instances: 1, max_instances: 2, target_invocations: 50 } });
assert.equal(scalePreview.isError, true);
assert.match(scalePreview.content[0].text, /^autoscale_set was not run: it needs "confirm": true\. The call would set the autoscaling of SageMaker endpoint e in us-east-1/);
const scaled = await client.callTool({ name: "autoscale_set", arguments: {
  endpoint_name: "e", min_instances: 1, max_instances: 2, target_invocations: 50, confirm: true } });
assert.ok(!scaled.isError, JSON.stringify(scaled.content));
const shown = await client.callTool({ name: "autoscale_show", arguments: { endpoint_name: "e" } });
assert.equal(shown.structuredContent.targets[0].MaxCapacity, 2);
assert.equal(shown.structuredContent.policies[0].PolicyName, "wrk-sagemaker-target-tracking");

// A destructive tool: refused without the confirmation, run with it.
const noConfirm = await client.callTool({ name: "delete_endpoint", arguments: { endpoint_name: "e" } });
assert.equal(noConfirm.isError, true);
assert.match(noConfirm.content[0].text, /^delete_endpoint was not run: it needs "confirm": true\. The call would delete SageMaker endpoint e in us-east-1/);
const refused = await client.callTool({ name: "delete_endpoint",
  arguments: { endpoint_name: "e", confirm: false } });
assert.equal(refused.isError, true);
assert.match(refused.content[0].text, /^delete_endpoint was not run: it needs "confirm": true/);
const still = await client.callTool({ name: "get_endpoint_status", arguments: { endpoint_name: "e" } });
assert.equal(still.structuredContent.status, "InService", "not deleted without confirmation");
const deleted = await client.callTool({ name: "delete_endpoint",
  arguments: { endpoint_name: "e", confirm: true } });
assert.ok(!deleted.isError, JSON.stringify(deleted.content));
assert.equal(deleted.structuredContent.results["endpoint e"], "deleted");
assert.equal(deleted.structuredContent.results["model e"], "deleted");
const after = await client.callTool({ name: "list_endpoints", arguments: {} });
assert.ok(after.structuredContent.endpoints.every((x) => x.status === "Deleting"));

// An AWS error comes back as a tool error the model can read.
const missing = await client.callTool({ name: "get_endpoint_status", arguments: { endpoint_name: "nope" } });
assert.equal(missing.isError, true);
assert.match(missing.content[0].text, /Could not find endpoint/);

// Cancelling a long wait: the request ends, the endpoint goes on being created.
const abort = new AbortController();
const slow = client.callTool(
  { name: "deploy_endpoint", arguments: { endpoint_name: "slow", model_id: "google/gemma-4-E2B-it",
    role_arn: ROLE, instance_types: ["ml.g6.4xlarge"], wait_timeout_s: 86400, confirm: true } },
  undefined, { signal: abort.signal, onprogress: (p) => { if (/Creating/.test(p.message)) abort.abort(); } });
await assert.rejects(slow);
const left = await client.callTool({ name: "get_endpoint_status", arguments: { endpoint_name: "slow" } });
assert.ok(!left.isError && left.structuredContent.status === "Creating", JSON.stringify(left.content));

await client.close();
console.log("sm-mcp's AWS tools passed the MCP TypeScript SDK client checks");
