// Drives the gateway example (examples/gateway) with the official TypeScript clients, for
// .ci/gateway-interop.sh, in either era:
//
// - `modern`: @modelcontextprotocol/client (v2) pinned to 2026-07-28 (server/discover first, never
//   initialize); an elicitation asked by a backend reaches it as an `input_required` round, and
//   its retry goes back through the gateway (2+ POSTs of tools/call).
// - `legacy`: @modelcontextprotocol/sdk 1.x, the 2025-11-25 session (initialize, Mcp-Session-Id,
//   DELETE at the end); the gateway asks the elicitation as a real elicitation/create request on
//   the tool call's SSE stream, answered by the client's handler (one POST of tools/call).
//
// For each mount named (all of gateway-cases.json's `mounts` unless some are named) it checks that
// the gateway lists its tool, resource and prompt (names under the mount's prefix), calls its
// tool, reads its resource, gets its prompt and calls its tool that asks the user, answering with
// the case's goal (or, where the case has `elicitError`: a 2025-only backend asking mid-call,
// checks that the call fails with that text).
//
// Usage: node ts-gateway-client.mjs <modern|legacy> <http://127.0.0.1:PORT/mcp> [mount...]
// Exits non-zero, with the reason on stderr, on any error or unexpected result.
import { readFileSync } from 'node:fs';

const cases = JSON.parse(readFileSync(new URL('./gateway-cases.json', import.meta.url), 'utf8'));
const [era, url, ...named] = process.argv.slice(2);
const mounts = named.length ? named : Object.keys(cases.mounts);
if (!['modern', 'legacy'].includes(era) || !url || mounts.some((m) => !cases.mounts[m])) {
  console.error('usage: node ts-gateway-client.mjs <modern|legacy> <url> [mount...]');
  process.exit(2);
}
const legacy = era === 'legacy';
const VERSION = legacy ? cases.legacyProtocolVersion : cases.protocolVersion;
const tag = `[${legacy ? 'ts-v1-client' : 'ts-client'} ${era} ${mounts.join('+')}]`;

function fail(message) {
  throw new Error(message);
}
function expect(what, ok, detail) {
  if (!ok) fail(`${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
}
function expectText(what, text, needle) {
  expect(what, text.includes(needle), `expected ${JSON.stringify(needle)} in ${JSON.stringify(text)}`);
}
function textOf(blocks) {
  return (blocks ?? []).map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
}
// The expectations for one mount: its server's, with names and URIs as the gateway shows them.
function caseOf(mount) {
  const m = cases.mounts[mount];
  const c = structuredClone(cases.servers[m.server]);
  for (const key of ['call', 'elicit', 'get']) c[key].name = `${mount}_${c[key].name}`;
  if (m.uris === 'prefix') {
    const [scheme, rest] = c.read.uri.split('://');
    c.read.uri = `${scheme}://${mount}/${rest}`;
  }
  return c;
}

// The wire log: one entry per HTTP request (a POST per JSON-RPC message it carries), with the
// headers it went with, what came back and, for a request answered with SSE, the messages on it.
const wire = [];
const streamReads = [];
const inFlight = [];
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
        kind: typeof m.method === 'string' ? m.method : 'response',
        error: m.error,
        metaVersion: m.params?._meta?.['io.modelcontextprotocol/protocolVersion'],
      });
    }
  } else {
    entries.push({ http: method, kind: method });
  }
  // Logged when sent (an answer's 202 may come after the call it unblocked has finished).
  for (const e of entries) {
    Object.assign(e, {
      sessionSent: headers.get('mcp-session-id'),
      versionSent: headers.get('mcp-protocol-version'),
      methodSent: headers.get('mcp-method'),
    });
    wire.push(e);
  }
  const sent = fetch(input, init);
  inFlight.push(sent.catch(() => {}));
  const response = await sent;
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim();
  for (const e of entries) {
    Object.assign(e, { status: response.status, contentType, sessionGot: response.headers.get('mcp-session-id') });
  }
  if (method === 'POST' && entries.length === 1 && entries[0].kind !== 'response' && contentType === 'text/event-stream') {
    const entry = entries[0];
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
              // a priming event: not a message
            }
          }
        })
        .catch(() => {}),
    );
  }
  return response;
};

const asked = [];
const elicited = (message) => {
  asked.push(message);
  return { action: 'accept', content: { goal: cases.goal } };
};

let client;
let transport;
if (legacy) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  client = new Client(
    { name: 'mcp-gateway-interop-ts-v1-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => elicited(request.params.message));
  transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });
} else {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  client = new Client(
    { name: 'mcp-gateway-interop-ts-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: VERSION } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => elicited(request.params.message));
  transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });
}

async function main() {
  await client.connect(transport);
  const version = legacy ? transport.protocolVersion : client.getNegotiatedProtocolVersion();
  expect('negotiated protocol version', version === VERSION, version);
  const sessionId = legacy ? transport.sessionId : undefined;
  if (legacy) expect('initialize', !!sessionId, 'the gateway handed out no Mcp-Session-Id');
  const info = client.getServerVersion();
  console.log(`${tag} connected: version ${version}, server ${info?.name} ${info?.version}`);

  const tools = (await client.listTools()).tools.map((t) => t.name);
  const resources = (await client.listResources()).resources.map((r) => r.uri);
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  console.log(`${tag} tools ${JSON.stringify(tools)}, resources ${JSON.stringify(resources)}, prompts ${JSON.stringify(prompts)}`);
  for (const mount of mounts) {
    const c = caseOf(mount);
    for (const [what, got, want] of [
      ['tools/list', tools, [c.call.name, c.elicit.name]],
      ['resources/list', resources, [c.read.uri]],
      ['prompts/list', prompts, [c.get.name]],
    ]) {
      const missing = want.filter((w) => !got.includes(w));
      expect(what, !missing.length, `missing ${JSON.stringify(missing)} in ${JSON.stringify(got)}`);
    }
  }

  for (const mount of mounts) {
    const c = caseOf(mount);
    const called = await client.callTool({ name: c.call.name, arguments: c.call.arguments });
    expect(`tools/call ${c.call.name}`, !called.isError, textOf(called.content));
    expectText(`tools/call ${c.call.name}`, textOf(called.content), c.call.text);
    console.log(`${tag} called ${c.call.name}: ${JSON.stringify(textOf(called.content))}`);

    const read = await client.readResource({ uri: c.read.uri });
    expectText(`resources/read ${c.read.uri}`, textOf(read.contents), c.read.text);
    console.log(`${tag} read ${c.read.uri}: ${JSON.stringify(textOf(read.contents))}`);

    const got = await client.getPrompt({ name: c.get.name, arguments: c.get.arguments });
    const promptText = got.messages.map((m) => textOf([m.content])).join('\n');
    expectText(`prompts/get ${c.get.name}`, promptText, c.get.text);
    console.log(`${tag} got prompt ${c.get.name}: ${JSON.stringify(promptText)}`);

    const el = c.elicit;
    const before = wire.length;
    const askedBefore = asked.length;
    if (el.elicitError) {
      let outcome;
      try {
        const res = await client.callTool({ name: el.name, arguments: el.arguments });
        expect(`tools/call ${el.name}`, res.isError, `succeeded: ${JSON.stringify(textOf(res.content))}`);
        outcome = textOf(res.content);
      } catch (err) {
        if (err?.message?.startsWith(`tools/call ${el.name}: succeeded`)) throw err;
        outcome = String(err?.message ?? err);
      }
      expectText(`tools/call ${el.name} (refused)`, outcome, el.elicitError);
      console.log(`${tag} ${el.name} refused as expected: ${JSON.stringify(outcome)}`);
      continue;
    }
    const res = await client.callTool({ name: el.name, arguments: el.arguments });
    expect(`tools/call ${el.name}`, !res.isError, textOf(res.content));
    expectText(`tools/call ${el.name}`, textOf(res.content), el.text);
    expect(`tools/call ${el.name}`, JSON.stringify(asked.slice(askedBefore)) === JSON.stringify([el.message]), `asked ${JSON.stringify(asked.slice(askedBefore))}`);
    const posts = wire.slice(before).filter((w) => w.kind === 'tools/call');
    let how;
    if (legacy) {
      await Promise.all([...streamReads, ...inFlight]);
      expect(`tools/call ${el.name}`, posts.length === 1, `${posts.length} POSTs; the 2025 bridge needs one`);
      const streamed = posts[0].streamed ?? [];
      expect(`tools/call ${el.name}`, streamed.includes('elicitation/create'), `its SSE stream carried ${JSON.stringify(streamed)}`);
      const answers = wire.slice(before).filter((w) => w.kind === 'response');
      expect("the client's answer", answers.length === 1 && answers[0].status === 202 && !answers[0].error, answers);
      how = `elicitation/create on its SSE stream (${streamed.join(', ')})`;
    } else {
      expect(`tools/call ${el.name}`, posts.length >= 2, `${posts.length} round(s); expected an MRTR retry`);
      how = `MRTR in ${posts.length} rounds`;
    }
    console.log(`${tag} called ${el.name} through ${how}: ${JSON.stringify(textOf(res.content))}`);
  }

  if (legacy) await transport.terminateSession();
  await client.close();

  const posts = wire.filter((w) => w.http === 'POST');
  if (legacy) {
    expect('the first POST', posts[0]?.kind === 'initialize', posts[0]?.kind);
    expect('server/discover', !posts.some((w) => w.kind === 'server/discover'), 'sent in legacy mode');
    for (const w of wire.filter((e) => e.kind !== 'initialize')) {
      expect(w.kind, w.sessionSent === sessionId, `went with Mcp-Session-Id ${w.sessionSent}`);
      expect(w.kind, w.versionSent === VERSION, `went with MCP-Protocol-Version ${w.versionSent}`);
    }
    const deleted = wire.find((w) => w.http === 'DELETE');
    expect('DELETE', deleted && deleted.status >= 200 && deleted.status <= 299, deleted);
  } else {
    const methods = posts.map((w) => w.kind);
    expect('the requests', !methods.includes('initialize'), `the client sent initialize: ${methods}`);
    expect('the first request', methods[0] === 'server/discover', methods[0]);
    for (const w of posts.filter((e) => e.kind !== 'response')) {
      expect(w.kind, w.versionSent === VERSION, `went with MCP-Protocol-Version ${w.versionSent}`);
      expect(w.kind, w.methodSent === w.kind, `went with Mcp-Method ${w.methodSent}`);
      if (!w.kind.startsWith('notifications/')) {
        expect(w.kind, w.metaVersion === VERSION, `went with _meta protocolVersion ${w.metaVersion}`);
      }
    }
  }
  console.log(`${tag} wire: ${wire.map((w) => `${w.http === 'POST' ? w.kind : w.http} ${w.status}`).join(', ')}`);
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
