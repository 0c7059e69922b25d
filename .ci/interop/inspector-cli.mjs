// Drives one example server with the MCP Inspector's CLI mode (@modelcontextprotocol/inspector,
// pinned in package-lock.json) in one protocol era: `modern` (the default; `--protocol-era
// modern`, which pins the 2026-07-28 revision) or `legacy` (`--protocol-era legacy`, the
// 2025-11-25 `initialize` handshake and an Mcp-Session-Id per CLI run): tools/list,
// resources/list, prompts/list, tools/call, resources/read and prompts/get, one CLI process each,
// with `--format json`. (The CLI cannot answer server-to-client requests, so no tool that needs
// client input is called.)
//
// Usage: node inspector-cli.mjs <case name in cases.json> <http://127.0.0.1:PORT/mcp> [modern|legacy]
// Needs Node >= 22.19 (the Inspector's engines field); .ci/interop.sh runs it with the pinned
// Node 22. The CLI is pointed at a small recording proxy on 127.0.0.1 in this process, so the run
// also proves the era on the wire: in modern, that no CLI invocation fell back to the 2025
// `initialize` handshake and that each POST carried the 2026-07-28 headers and `_meta`; in legacy,
// that each CLI run's first POST was initialize, that no run sent server/discover, and that every
// later request of a run carried the session id its initialize got and MCP-Protocol-Version
// 2025-11-25. Exits non-zero on any error.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [caseName, upstreamUrl, era = 'modern'] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(new URL('./cases.json', import.meta.url), 'utf8'));
const expected = cases.servers[caseName];
if (!expected || !upstreamUrl || !['modern', 'legacy'].includes(era)) {
  console.error('usage: node inspector-cli.mjs <study-server|acme-knowledge> <url> [modern|legacy]');
  process.exit(2);
}
const LEGACY = era === 'legacy';
const VERSION = LEGACY ? cases.legacyProtocolVersion : cases.protocolVersion;
const tag = LEGACY ? `[inspector-cli legacy ${caseName}]` : `[inspector-cli ${caseName}]`;
const CLI = fileURLToPath(
  new URL('./node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js', import.meta.url),
);
const PER_COMMAND_TIMEOUT_MS = 60_000;

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

// A pass-through proxy that records every POSTed JSON-RPC message (method, headers, _meta version)
// and, in legacy, every other request (GET, DELETE) too, each with the CLI run it belongs to, the
// session id it carried and the status and session id it got back.
const wire = [];
let cliRun = 0;
const upstream = new URL(upstreamUrl);
const proxy = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const entries = [];
    if (req.method === 'POST') {
      let parsed;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
        if (m && typeof m.method === 'string') {
          const entry = {
            method: m.method,
            headerVersion: req.headers['mcp-protocol-version'],
            headerMethod: req.headers['mcp-method'],
            metaVersion: m.params?._meta?.['io.modelcontextprotocol/protocolVersion'],
          };
          if (LEGACY) Object.assign(entry, { http: 'POST', run: cliRun, sessionSent: req.headers['mcp-session-id'] });
          wire.push(entry);
          entries.push(entry);
        }
      }
    } else if (LEGACY) {
      const entry = {
        method: req.method,
        http: req.method,
        run: cliRun,
        headerVersion: req.headers['mcp-protocol-version'],
        sessionSent: req.headers['mcp-session-id'],
      };
      wire.push(entry);
      entries.push(entry);
    }
    const headers = { ...req.headers, host: upstream.host };
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      (up) => {
        for (const e of entries) {
          if (!LEGACY) break;
          e.status = up.statusCode;
          e.sessionGot = up.headers['mcp-session-id'];
        }
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    // A CLI run that ends while a stream (e.g. subscriptions/listen) is open: end it upstream too.
    res.on('close', () => out.destroy());
    out.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy error: ${err.message}`);
    });
    out.end(body);
  });
});

function runCli(url, home, args) {
  cliRun += 1;
  const argv = [CLI, '--cli', url, '--protocol-era', era, '--format', 'json', ...args];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      argv,
      {
        timeout: PER_COMMAND_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
        // A throwaway HOME: the Inspector keeps its catalog and client config under ~/.mcp-inspector.
        env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json'), NO_COLOR: '1' },
      },
      (err, stdout, stderr) => {
        const shown = `inspector ${args.join(' ')}`;
        if (err) {
          reject(new Error(`${shown} failed (${err.code ?? err.signal}): ${stderr.trim() || stdout.trim()}`));
          return;
        }
        if (stderr.trim()) console.log(`${tag} (stderr of ${shown}: ${stderr.trim()})`);
        let out;
        try {
          out = JSON.parse(stdout);
        } catch {
          reject(new Error(`${shown} printed no JSON: ${stdout.slice(0, 500)}`));
          return;
        }
        if (out.error) {
          reject(new Error(`${shown} reported an error: ${JSON.stringify(out.error)}`));
          return;
        }
        resolve(out.result ?? out);
      },
    );
  });
}

async function main() {
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${proxy.address().port}${upstream.pathname}`;
  const home = mkdtempSync(join(tmpdir(), 'mcp-inspector-home-'));
  try {
    const { tools } = await runCli(url, home, ['--method', 'tools/list']);
    expectSet('tools/list', tools.map((t) => t.name), expected.tools);
    const { resources } = await runCli(url, home, ['--method', 'resources/list']);
    expectSet('resources/list', resources.map((r) => r.uri), expected.resources);
    const { prompts } = await runCli(url, home, ['--method', 'prompts/list']);
    expectSet('prompts/list', prompts.map((p) => p.name), expected.prompts);
    console.log(`${tag} listed ${tools.length} tools, ${resources.length} resources, ${prompts.length} prompts`);

    const call = expected.call;
    const called = await runCli(url, home, [
      '--method', 'tools/call', '--tool-name', call.name, '--tool-args-json', JSON.stringify(call.arguments),
    ]);
    if (called.isError) fail(`tools/call ${call.name} returned isError: ${textOf(called.content)}`);
    expectText(`tools/call ${call.name}`, textOf(called.content), call.text);
    console.log(`${tag} called ${call.name}: ${JSON.stringify(textOf(called.content))}`);

    const read = await runCli(url, home, ['--method', 'resources/read', '--uri', expected.read.uri]);
    expectText(`resources/read ${expected.read.uri}`, textOf(read.contents), expected.read.text);
    console.log(`${tag} read ${expected.read.uri} (${read.contents.length} content item(s))`);

    const promptArgs = Object.entries(expected.get.arguments).map(([k, v]) => `${k}=${v}`);
    const got = await runCli(url, home, [
      '--method', 'prompts/get', '--prompt-name', expected.get.name,
      ...(promptArgs.length ? ['--prompt-args', ...promptArgs] : []),
    ]);
    const promptText = got.messages.map((m) => textOf([m.content])).join('\n');
    expectText(`prompts/get ${expected.get.name}`, promptText, expected.get.text);
    console.log(`${tag} got prompt ${expected.get.name} (${got.messages.length} message(s))`);
  } finally {
    proxy.closeAllConnections();
    proxy.close();
    rmSync(home, { recursive: true, force: true });
  }

  const methods = wire.map((w) => w.method);
  if (LEGACY) {
    checkLegacyWire(methods);
  } else {
    if (methods.includes('initialize')) fail(`the Inspector sent initialize: ${methods.join(', ')}`);
    if (methods.filter((m) => m === 'server/discover').length < 6) {
      fail(`expected a server/discover probe per CLI run: ${methods.join(', ')}`);
    }
    for (const w of wire) {
      if (w.headerVersion !== VERSION) fail(`${w.method} went with MCP-Protocol-Version ${w.headerVersion}`);
      if (w.headerMethod !== w.method) fail(`${w.method} went with Mcp-Method ${w.headerMethod}`);
      if (!w.method.startsWith('notifications/') && w.metaVersion !== VERSION) {
        fail(`${w.method} went with _meta protocolVersion ${w.metaVersion}`);
      }
    }
  }
  console.log(`${tag} wire: ${methods.join(', ')}`);
  console.log(`${tag} OK`);
  process.exit(0);
}

// Legacy: one 2025-11-25 session per CLI run, opened by initialize (no server/discover anywhere).
function checkLegacyWire(methods) {
  if (methods.includes('server/discover')) fail(`the Inspector sent server/discover: ${methods.join(', ')}`);
  for (let run = 1; run <= cliRun; run++) {
    const mine = wire.filter((w) => w.run === run);
    const posts = mine.filter((w) => w.http === 'POST');
    if (posts[0]?.method !== 'initialize') fail(`CLI run ${run}: the first POST was ${posts[0]?.method}, not initialize`);
    if (posts[0].sessionSent) fail(`CLI run ${run}: initialize went with Mcp-Session-Id ${posts[0].sessionSent}`);
    const session = posts[0].sessionGot;
    if (!session) fail(`CLI run ${run}: the server handed out no Mcp-Session-Id on initialize`);
    if (posts.length < 3) fail(`CLI run ${run}: only ${posts.map((w) => w.method)} went out`);
    for (const w of mine.slice(mine.indexOf(posts[0]) + 1)) {
      if (w.sessionSent !== session) fail(`CLI run ${run}: ${w.method} went with Mcp-Session-Id ${w.sessionSent}, not ${session}`);
      if (w.headerVersion !== VERSION) fail(`CLI run ${run}: ${w.method} went with MCP-Protocol-Version ${w.headerVersion}`);
    }
    const initialized = posts.find((w) => w.method === 'notifications/initialized');
    if (initialized?.status !== 202) fail(`CLI run ${run}: notifications/initialized got HTTP ${initialized?.status}`);
  }
}

main().catch((err) => {
  console.error(`${tag} FAILED: ${err?.stack ?? err}`);
  console.error(`${tag} wire so far: ${JSON.stringify(wire)}`);
  proxy.close();
  process.exit(1);
});
