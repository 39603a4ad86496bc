// Drive the connector with the TypeScript SDK v1 (MCP 2025-11-25): list, call, failing call.
// usage: node client_v1.mjs <server command> [args...]   (prints one JSON summary line)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'ghostlight-edge-test', version: '0.0.1' });
await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' }));
const tools = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : undefined);
  page.tools.forEach((t) => tools.push(t.name));
  cursor = page.nextCursor;
} while (cursor !== undefined);
const ok = await client.callTool({ name: 'update_plan', arguments: { domains: ['example.com'], approach: ['read'] } });
const bad = await client.callTool({ name: 'update_plan', arguments: { domains: 'x' } });
// A request over the connector's line ceiling still gets its own answer (the SDK writes the id last).
let oversized = 'answered as a success';
try {
  await client.callTool({ name: 'update_plan', arguments: { domains: ['x'.repeat(5_000_000)], approach: [] } }, undefined, { timeout: 20000 });
} catch (err) {
  oversized = String(err && err.message ? err.message : err);
}
const text = (r) => r.content.map((b) => b.text ?? '').join('\n');
console.log(JSON.stringify({
  tools, okError: Boolean(ok.isError), okText: text(ok), badError: Boolean(bad.isError), badText: text(bad), oversized,
}));
await client.close();
