// Drives one example server with the TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.x,
// pinned in package-lock.json), which speaks the 2025-11-25 revision: `initialize`, an
// Mcp-Session-Id on every later request, the GET stream, and DELETE at the end. It lists
// tools/resources/prompts, calls a tool, reads a resource, gets a prompt and, where cases.json has
// one, calls the tool that needs client input: the server asks roots/list, sampling/createMessage
// and elicitation/create as real server-to-client requests on the POST's SSE stream, and the
// client's own handlers answer them (POSTed back as JSON-RPC responses).
//
// Usage: node ts-v1-client.mjs <case name in cases.json> <http://127.0.0.1:PORT/mcp>
// Exits non-zero, with the reason on stderr, on any error or unexpected result. Every HTTP
// request the client makes is recorded, so the run also proves on the wire that it spoke
// 2025-11-25: its first POST was initialize, every later request carried the session id the
// server handed out and MCP-Protocol-Version 2025-11-25, and its answers to the server's
// requests were accepted with 202.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const [caseName, url] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(new URL('./cases.json', import.meta.url), 'utf8'));
const expected = cases.servers[caseName];
if (!expected || !url) {
  console.error('usage: node ts-v1-client.mjs <study-server|acme-knowledge> <url>');
  process.exit(2);
}
const VERSION = cases.legacyProtocolVersion;
const tag = `[ts-v1-client ${caseName}]`;

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

// The wire log: one entry per HTTP request (POSTs split into their JSON-RPC messages), with the
// session and version headers it went with and the status and session id it got back.
const wire = [];
const recordingFetch = async (input, init) => {
  const method = (init?.method ?? 'GET').toUpperCase();
  const headers = new Headers(init?.headers);
  const entries = [];
  if (method === 'POST' && typeof init.body === 'string') {
    let body;
    try {
      body = JSON.parse(init.body);
    } catch {
      body = undefined;
    }
    for (const m of Array.isArray(body) ? body : [body]) {
      if (!m || typeof m !== 'object') continue;
      entries.push({
        http: 'POST',
        // A request or notification by its method; the client's answer to a server request as
        // `response` (with the id it answers).
        kind: typeof m.method === 'string' ? m.method : 'response',
        id: m.id,
        error: m.error,
      });
    }
  } else {
    entries.push({ http: method, kind: method });
  }
  const response = await fetch(input, init);
  const contentType = response.headers.get('content-type') ?? '';
  for (const e of entries) {
    e.sessionSent = headers.get('mcp-session-id');
    e.versionSent = headers.get('mcp-protocol-version');
    e.status = response.status;
    e.contentType = contentType.split(';')[0].trim();
    e.sessionGot = response.headers.get('mcp-session-id');
    wire.push(e);
  }
  if (method === 'POST' && e0(entries)?.id !== undefined && contentType.startsWith('text/event-stream')) {
    // Read a copy of the POST's SSE stream to see which server-to-client requests it carried.
    const entry = e0(entries);
    entry.streamed = [];
    streamReads.push(
      response
        .clone()
        .text()
        .then((text) => {
          for (const line of text.split(/\r?\n/)) {
            if (!line.startsWith('data:')) continue;
            try {
              const m = JSON.parse(line.slice(5));
              entry.streamed.push(typeof m.method === 'string' ? m.method : 'response');
            } catch {
              // a priming event or a partial line: not a message
            }
          }
        })
        .catch(() => {}),
    );
  }
  return response;
};
function e0(entries) {
  return entries.length === 1 && entries[0].kind !== 'response' ? entries[0] : undefined;
}
const streamReads = [];

const mrtr = expected.mrtr;
// The server-to-client requests the client answered, in order.
const answered = [];
const client = new Client(
  { name: 'mcp-interop-ts-v1-client', version: '1.0.0' },
  { capabilities: mrtr ? { roots: { listChanged: false }, sampling: {}, elicitation: { form: {} } } : {} },
);
if (mrtr) {
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    answered.push('roots/list');
    return { roots: [{ uri: 'file:///work/interop', name: 'interop' }] };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    answered.push('sampling/createMessage');
    return { model: 'interop-stub', role: 'assistant', content: { type: 'text', text: mrtr.sample } };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    answered.push('elicitation/create');
    return { action: 'accept', content: { goal: mrtr.goal } };
  });
}

const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });

async function main() {
  await client.connect(transport);
  const version = transport.protocolVersion;
  const sessionId = transport.sessionId;
  if (version !== VERSION) fail(`negotiated protocol version ${version}, not ${VERSION}`);
  if (!sessionId) fail('the server handed out no Mcp-Session-Id on initialize');
  const info = client.getServerVersion();
  console.log(`${tag} connected: version ${version}, session ${sessionId}, server ${info?.name} ${info?.version}`);

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
    for (const want of ['roots/list', 'sampling/createMessage', 'elicitation/create']) {
      if (!answered.includes(want)) fail(`tools/call ${mrtr.name}: the server never asked ${want} (asked: ${answered})`);
    }
    const calls = wire.slice(before).filter((w) => w.kind === 'tools/call').length;
    if (calls !== 1) fail(`tools/call ${mrtr.name} went out ${calls} times; the 2025-11-25 bridge needs exactly one`);
    const answers = wire.slice(before).filter((w) => w.kind === 'response');
    if (answers.length !== answered.length) {
      fail(`answered ${answered.length} server requests but POSTed ${answers.length} responses`);
    }
    await Promise.all(streamReads);
    const post = wire.slice(before).find((w) => w.kind === 'tools/call');
    if (post.contentType !== 'text/event-stream') fail(`tools/call ${mrtr.name} was answered with ${post.contentType}`);
    for (const want of ['roots/list', 'sampling/createMessage', 'elicitation/create']) {
      if (!post.streamed.includes(want)) {
        fail(`${want} did not come on the tools/call POST's SSE stream (it carried ${post.streamed})`);
      }
    }
    for (const a of answers) {
      if (a.error) fail(`the client answered a server request with an error: ${JSON.stringify(a.error)}`);
      if (a.status !== 202) fail(`the client's response to server request ${a.id} got HTTP ${a.status}, not 202`);
    }
    console.log(`${tag} called ${mrtr.name}; its SSE stream carried ${post.streamed.join(', ')}: ${textOf(res.content)}`);
  }

  // End the session (DELETE), then close the transport.
  await transport.terminateSession();
  await client.close();

  // What went over the wire.
  const posts = wire.filter((w) => w.http === 'POST');
  if (posts[0]?.kind !== 'initialize') fail(`the first POST was ${posts[0]?.kind}, not initialize`);
  if (posts[0].sessionSent) fail(`initialize went with Mcp-Session-Id ${posts[0].sessionSent}`);
  if (posts[0].sessionGot !== sessionId) fail(`initialize answered with Mcp-Session-Id ${posts[0].sessionGot}`);
  if (posts.some((w) => w.kind === 'server/discover')) fail('the client sent server/discover');
  for (const w of wire.filter((e) => e.kind !== 'initialize')) {
    if (w.sessionSent !== sessionId) fail(`${w.kind} went with Mcp-Session-Id ${w.sessionSent}, not ${sessionId}`);
    if (w.versionSent !== VERSION) fail(`${w.kind} went with MCP-Protocol-Version ${w.versionSent}`);
  }
  const initialized = posts.find((w) => w.kind === 'notifications/initialized');
  if (!initialized || initialized.status !== 202) fail(`notifications/initialized got HTTP ${initialized?.status}`);
  const deleted = wire.find((w) => w.http === 'DELETE');
  if (!deleted || deleted.status < 200 || deleted.status > 299) fail(`DELETE of the session got HTTP ${deleted?.status}`);
  console.log(
    `${tag} wire: ${wire.map((w) => `${w.http === 'POST' ? w.kind : w.http} ${w.status}`).join(', ')}`,
  );
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
