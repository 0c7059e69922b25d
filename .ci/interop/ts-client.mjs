// Drives one example server with the official TypeScript client (@modelcontextprotocol/client,
// pinned in package-lock.json), pinned to the 2026-07-28 revision: connect (server/discover),
// list tools/resources/prompts, call a tool, read a resource, get a prompt and, where cases.json
// has one, a multi-round-trip (MRTR) tool call fulfilled by the client's own handlers.
//
// Usage: node ts-client.mjs <case name in cases.json> <http://127.0.0.1:PORT/mcp>
// Exits non-zero, with the reason on stderr, on any error or unexpected result. Every HTTP
// request the client makes is recorded, so the run also proves that nothing fell back to the
// 2025 `initialize` handshake and that each POST carried the 2026-07-28 headers and `_meta`.
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [caseName, url] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(new URL('./cases.json', import.meta.url), 'utf8'));
const expected = cases.servers[caseName];
if (!expected || !url) {
  console.error('usage: node ts-client.mjs <study-server|acme-knowledge> <url>');
  process.exit(2);
}
const VERSION = cases.protocolVersion;
const tag = `[ts-client ${caseName}]`;

function fail(message) {
  throw new Error(message);
}
function textOf(blocks) {
  return (blocks ?? []).map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
}
function expectSet(what, got, want) {
  const missing = want.filter((w) => !got.includes(w));
  if (missing.length) fail(`${what}: missing ${JSON.stringify(missing)} in ${JSON.stringify(got)}`);
}
function expectText(what, text, needle) {
  if (!text.includes(needle)) fail(`${what}: expected ${JSON.stringify(needle)} in ${JSON.stringify(text)}`);
}

// The wire log: one entry per POSTed JSON-RPC message.
const wire = [];
const recordingFetch = async (input, init) => {
  if ((init?.method ?? 'GET').toUpperCase() === 'POST' && typeof init.body === 'string') {
    const headers = new Headers(init.headers);
    let body;
    try {
      body = JSON.parse(init.body);
    } catch {
      body = undefined;
    }
    for (const m of Array.isArray(body) ? body : [body]) {
      if (m && typeof m.method === 'string') {
        wire.push({
          method: m.method,
          headerVersion: headers.get('mcp-protocol-version'),
          headerMethod: headers.get('mcp-method'),
          metaVersion: m.params?._meta?.['io.modelcontextprotocol/protocolVersion'],
        });
      }
    }
  }
  return fetch(input, init);
};

const client = new Client(
  { name: 'mcp-interop-ts-client', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
    versionNegotiation: { mode: { pin: VERSION } },
  },
);
const mrtr = expected.mrtr;
if (mrtr) {
  // Handlers the client runs when the server answers with input_required (MRTR).
  client.setRequestHandler('roots/list', async () => ({
    roots: [{ uri: 'file:///work/interop', name: 'interop' }],
  }));
  client.setRequestHandler('sampling/createMessage', async () => ({
    model: 'interop-stub',
    role: 'assistant',
    content: { type: 'text', text: mrtr.sample },
  }));
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { goal: mrtr.goal },
  }));
}

const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });

async function main() {
  await client.connect(transport);
  const era = client.getProtocolEra();
  const version = client.getNegotiatedProtocolVersion();
  if (era !== 'modern' || version !== VERSION) fail(`connected as era ${era}, version ${version}`);
  const info = client.getServerVersion();
  console.log(`${tag} connected: era ${era}, version ${version}, server ${info?.name} ${info?.version}`);

  const { tools } = await client.listTools();
  expectSet('tools/list', tools.map((t) => t.name), expected.tools);
  const { resources } = await client.listResources();
  expectSet('resources/list', resources.map((r) => r.uri), expected.resources);
  const { prompts } = await client.listPrompts();
  expectSet('prompts/list', prompts.map((p) => p.name), expected.prompts);
  console.log(`${tag} listed ${tools.length} tools, ${resources.length} resources, ${prompts.length} prompts`);

  const called = await client.callTool({ name: expected.call.name, arguments: expected.call.arguments });
  if (called.isError) fail(`tools/call ${expected.call.name} returned isError: ${textOf(called.content)}`);
  expectText(`tools/call ${expected.call.name}`, textOf(called.content), expected.call.text);
  console.log(`${tag} called ${expected.call.name}: ${JSON.stringify(textOf(called.content))}`);

  const read = await client.readResource({ uri: expected.read.uri });
  expectText(`resources/read ${expected.read.uri}`, textOf(read.contents), expected.read.text);
  console.log(`${tag} read ${expected.read.uri} (${read.contents.length} content item(s))`);

  const got = await client.getPrompt({ name: expected.get.name, arguments: expected.get.arguments });
  const promptText = got.messages.map((m) => textOf([m.content])).join('\n');
  expectText(`prompts/get ${expected.get.name}`, promptText, expected.get.text);
  console.log(`${tag} got prompt ${expected.get.name} (${got.messages.length} message(s))`);

  if (mrtr) {
    const before = wire.length;
    const res = await client.callTool({ name: mrtr.name, arguments: mrtr.arguments });
    if (res.isError) fail(`tools/call ${mrtr.name} returned isError: ${textOf(res.content)}`);
    expectText(`tools/call ${mrtr.name}`, textOf(res.content), mrtr.text);
    const rounds = wire.slice(before).filter((w) => w.method === 'tools/call').length;
    if (rounds < 2) fail(`tools/call ${mrtr.name} finished in ${rounds} round(s); expected an MRTR retry`);
    console.log(`${tag} called ${mrtr.name} through MRTR in ${rounds} rounds: ${textOf(res.content)}`);
  }

  await client.close();

  // What went over the wire.
  const methods = wire.map((w) => w.method);
  if (methods.includes('initialize')) fail(`the client sent initialize: ${methods.join(', ')}`);
  if (methods[0] !== 'server/discover') fail(`the first request was ${methods[0]}, not server/discover`);
  for (const w of wire) {
    if (w.headerVersion !== VERSION) fail(`${w.method} went with MCP-Protocol-Version ${w.headerVersion}`);
    if (w.headerMethod !== w.method) fail(`${w.method} went with Mcp-Method ${w.headerMethod}`);
    if (!w.method.startsWith('notifications/') && w.metaVersion !== VERSION) {
      fail(`${w.method} went with _meta protocolVersion ${w.metaVersion}`);
    }
  }
  console.log(`${tag} wire: ${methods.join(', ')}`);
  console.log(`${tag} OK`);
}

main().catch(async (err) => {
  console.error(`${tag} FAILED: ${err?.stack ?? err}`);
  console.error(`${tag} wire so far: ${JSON.stringify(wire)}`);
  try {
    await client.close();
  } catch {
    // already closed
  }
  process.exit(1);
});
