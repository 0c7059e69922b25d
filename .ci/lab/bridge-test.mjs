// MCP Apps views of the apps example in a real host built from the official SDK: the AppBridge
// of @modelcontextprotocol/ext-apps and the Client of @modelcontextprotocol/client, bundled for
// the browser with esbuild when the test starts (bridge-entry.mjs), on a page (bridge-host.html)
// served from a loopback port of its own, so the host's origin is not the server's and every
// request to the server crosses origins (its CORS). Debian's headless Chromium, driven by
// puppeteer-core, opens the page; the host connects its client to the server's /mcp, and each
// case renders a tool's view: the resource its _meta.ui.resourceUri names, read by the client,
// in a sandboxed frame (allow-scripts, a content security policy from the resource's csp), an
// AppBridge over a PostMessageTransport to it, the tool's input and result sent once the view
// says it is initialized, its frame resized by the view's size-changed notifications. What it
// checks:
//   1. show_board (its view uses the ext-apps App class): the columns todo, doing and done show
//      the cards of the tool's result; the view's size-changed notifications set the frame's
//      height; a card's move button makes the view call move_card through the bridge, the
//      host's client sends it (the server's audit log has it), and the view shows the card in
//      its new column, as the server now has it;
//   2. chart {"labels":["a","b","c"],"values":[3,1,2]} (a view speaking the raw protocol): three
//      bars, labelled and as long as their values say; inside its frame the origin is opaque,
//      the host page is out of reach and a fetch is refused by the host's policy (connect-src);
//   3. list_cards (a table of the cards), card_counts (a bar a
//   column), get_card (the card's labelled fields), search_notes {"query":"release"} (its hits;
//   one opens its note through read_note). A case is renderTool(name, args), which resolves
//   with the view's frame, and assertions on that frame's DOM (see LATER).
//   Throughout: the host page shows no error, and no view sends a request of its own.
// Screenshots of each view's frame go to OUT_DIR (bridge-*.png); with --update-docs they are
// also copied into docs/apps/.
//
// Usage: node bridge-test.mjs --apps PATH_TO_THE_APPS_EXAMPLE [--out DIR] [--update-docs]

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import puppeteer from "puppeteer-core";

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const APPS = flag("--apps");
const OUT = path.resolve(flag("--out") || "target/bridge-results");
const UPDATE_DOCS = args.includes("--update-docs");
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const DOCS = path.join(ROOT, "docs/apps");
const STEP_TIMEOUT = 20_000;
const TOTAL_TIMEOUT = 240_000;
if (!APPS) {
  console.error("usage: node bridge-test.mjs --apps PATH [--out DIR] [--update-docs]");
  process.exit(2);
}
fs.mkdirSync(OUT, { recursive: true });

function chromium() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  try {
    return execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  } catch {
    return "/usr/bin/chromium";
  }
}

// A promise that fails after `ms`, saying what it waited for.
function bounded(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// ------------------------------------------------------------------ cleanup

let server = null;
let site = null;
let browser = null;

function cleanup() {
  if (server && server.child.exitCode === null) server.child.kill("SIGTERM");
  if (site) site.close();
  // Chromium and its helpers: puppeteer starts it as the leader of a process group of its own.
  const chrome = browser && browser.process();
  if (chrome && chrome.exitCode === null) {
    try {
      process.kill(-chrome.pid, "SIGKILL");
    } catch {
      chrome.kill("SIGKILL");
    }
  }
}
process.on("exit", cleanup);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    console.log(`not ok - stopped by ${signal}`);
    process.exit(1);
  });
}
setTimeout(() => {
  console.log(`not ok - the test did not finish within ${TOTAL_TIMEOUT / 1000} s`);
  process.exit(1);
}, TOTAL_TIMEOUT).unref();

// ------------------------------------------------------------------ the checks

const results = [];
let failed = 0;
async function check(name, body) {
  const started = Date.now();
  try {
    await body();
    results.push(`ok - ${name} (${Date.now() - started} ms)`);
    console.log(`ok - ${name}`);
    return true;
  } catch (error) {
    failed++;
    results.push(`not ok - ${name}: ${error.message}`);
    console.log(`not ok - ${name}`);
    for (const line of String(error.stack || error).split("\n")) console.log(`#   ${line}`);
    return false;
  }
}

// ------------------------------------------------------------------ the server

// The example on a kernel-chosen loopback port, writing its audit log: resolves with its MCP
// URL once it prints it.
function startServer(exe) {
  const child = spawn(exe, ["--addr", "127.0.0.1:0", "--audit"], { stdio: ["ignore", "pipe", "pipe"] });
  const started = { child, stderr: "", mcp: null };
  child.stderr.on("data", (chunk) => {
    started.stderr += chunk.toString();
  });
  return bounded(new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`${exe} exited with ${code}: ${started.stderr}`)));
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      const found = line.match(/serving MCP on (http:\/\/\S+)/);
      if (found && !started.mcp) {
        started.mcp = found[1];
        resolve(started);
      }
    });
  }), 30_000, `${exe} printing its URL`).catch((error) => {
    child.kill("SIGTERM");
    throw error;
  });
}

// The server's audit lines (`audit: METHOD NAME OUTCOME`) since `mark`, a length of its stderr.
function auditSince(mark) {
  return server.stderr.slice(mark).split("\n").filter((l) => l.startsWith("audit: "));
}

// ------------------------------------------------------------------ the host

// The host's bundle: bridge-entry.mjs and the SDK classes it imports, for the browser.
async function bundleHost() {
  const outfile = path.join(OUT, "host", "host.js");
  await bounded(esbuild.build({
    entryPoints: [path.join(HERE, "bridge-entry.mjs")],
    absWorkingDir: HERE,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outfile,
    logLevel: "silent",
  }), 60_000, "esbuild");
  return outfile;
}

// The host page and its bundle, on a loopback port of their own.
function serveHost(bundle) {
  const files = {
    "/": { type: "text/html; charset=utf-8", body: fs.readFileSync(path.join(HERE, "bridge-host.html")) },
    "/host.js": { type: "text/javascript; charset=utf-8", body: fs.readFileSync(bundle) },
  };
  const httpServer = http.createServer((request, response) => {
    const file = files[new URL(request.url, "http://host").pathname];
    if (!file || request.method !== "GET") {
      response.writeHead(404, { "Content-Type": "text/plain" });
      response.end("not found");
      return;
    }
    response.writeHead(200, { "Content-Type": file.type, "Cache-Control": "no-store" });
    response.end(file.body);
  });
  return new Promise((resolve, reject) => {
    httpServer.on("error", reject);
    httpServer.listen(0, "127.0.0.1", () => resolve({
      url: `http://127.0.0.1:${httpServer.address().port}/`,
      close: () => httpServer.close(),
    }));
  });
}

let page = null;
const pageErrors = [];
const mcpRequests = []; // the JSON-RPC bodies the host page POSTed to the server
const viewRequests = []; // requests any view's frame made
const rendered = new WeakMap(); // frame → what the host said when it rendered it

async function openHost(url, mcp) {
  page = await browser.newPage();
  await page.setViewport({ width: 800, height: 1400 });
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("request", (request) => {
    const url = request.url();
    if (request.frame() !== page.mainFrame()) {
      // (A CORS preflight has no frame: the host's.)
      if (request.frame() && !/^(about|data|blob):/.test(url)) viewRequests.push(`${request.method()} ${url}`);
    } else if (url === mcp && request.method() === "POST") {
      try {
        mcpRequests.push(JSON.parse(request.postData() || "null"));
      } catch {
        mcpRequests.push(null);
      }
    }
  });
  await bounded(page.goto(url, { waitUntil: "load" }), STEP_TIMEOUT, "the host page loading");
  await page.waitForSelector("body[data-ready]", { timeout: STEP_TIMEOUT });
  return bounded(page.evaluate((endpoint) => window.host.connect(endpoint), mcp), STEP_TIMEOUT, "the host's client connecting");
}

// Renders a tool's view in the host (see bridge-entry.mjs) and resolves with its frame, once the
// view is initialized and has the tool's input and result. rendered.get(frame) is what the host
// said: { id, uri, result, app, appCapabilities, element }.
async function renderTool(name, toolArgs = {}) {
  const view = await bounded(page.evaluate((n, a) => window.host.render(n, a), name, toolArgs), STEP_TIMEOUT, `rendering ${name}`);
  const element = await page.$(`#${view.id}`);
  const frame = await element.contentFrame();
  assert.ok(frame, `the frame of ${name}'s view`);
  rendered.set(frame, { ...view, element });
  return frame;
}

// The host's record of a view's events (initialized, size-changed, tool-input, …).
async function viewEvents(frame) {
  const { id } = rendered.get(frame);
  return page.evaluate((view) => window.host.events.filter((e) => e.view === view), id);
}

// Waits until the view has reported its size and its frame is as high as it said.
async function settled(frame) {
  const { id } = rendered.get(frame);
  await page.waitForFunction((view) => {
    const sizes = window.host.events.filter((e) => e.view === view && e.kind === "size-changed" && e.detail.height > 0);
    if (sizes.length === 0) return false;
    const want = Math.ceil(sizes[sizes.length - 1].detail.height);
    return document.getElementById(view).clientHeight === want;
  }, { timeout: STEP_TIMEOUT, polling: 100 }, id);
}

// A screenshot of a view's frame (as drawn in the viewport: a frame of another origin is drawn
// only there), and its copy in docs/apps/ when asked and `docsName` is given.
async function shot(frame, name, docsName) {
  const { element } = rendered.get(frame);
  await element.evaluate((e) => e.scrollIntoView({ block: "start" }));
  const file = path.join(OUT, name);
  await bounded(element.screenshot({ path: file, captureBeyondViewport: false }), STEP_TIMEOUT, `screenshot ${name}`);
  if (UPDATE_DOCS && docsName) {
    fs.mkdirSync(DOCS, { recursive: true });
    fs.copyFileSync(file, path.join(DOCS, docsName));
  }
}

// ------------------------------------------------------------------ the board

const COLUMNS = ["todo", "doing", "done"];

// The columns as the view shows them: [{ column, heading, cards: ["#1 …", …] }].
function boardShown(frame) {
  return frame.$$eval("#columns section", (sections) => sections.map((s) => ({
    column: s.dataset.column,
    heading: s.querySelector("h2")?.textContent ?? null,
    cards: [...s.querySelectorAll(".card")].map((c) => c.firstElementChild.textContent),
  })));
}

// The columns a board result says the view shows.
function boardExpected(view) {
  return COLUMNS.map((column) => ({
    column,
    heading: column,
    cards: view.cards.filter((c) => c.column === column).map((c) => `#${c.id} ${c.title}`),
  }));
}

async function boardCase() {
  let frame;
  let result;
  const ok = await check("show_board: its view (ext-apps App) renders the columns todo, doing, done with the result's cards", async () => {
    frame = await renderTool("show_board");
    const view = rendered.get(frame);
    result = view.result;
    assert.equal(view.uri, "ui://board/board.html");
    assert.deepEqual(view.app, { name: "Board", version: "1.0.0" }, "the view's appInfo in ui/initialize");
    assert.ok(!result.isError, "show_board succeeded");
    assert.ok(result.structuredContent.cards.length >= 3, "the board has its cards");
    await frame.waitForSelector('#columns section[data-column="done"]', { timeout: STEP_TIMEOUT });
    assert.deepEqual(await boardShown(frame), boardExpected(result.structuredContent));
    const kinds = (await viewEvents(frame)).map((e) => e.kind);
    assert.ok(kinds.indexOf("initialized") < kinds.indexOf("tool-input"), "tool-input after initialized");
    assert.ok(kinds.indexOf("tool-input") < kinds.indexOf("tool-result"), "tool-result after tool-input");
  });
  if (!ok) return;

  await check("show_board: the view's size-changed notifications set its frame's height", async () => {
    await settled(frame);
    const sizes = (await viewEvents(frame)).filter((e) => e.kind === "size-changed");
    assert.ok(sizes.length > 0);
    const height = await rendered.get(frame).element.evaluate((e) => e.getBoundingClientRect().height);
    assert.ok(height > 120, `the frame grew past its first 120 px (it is ${height})`);
  });

  await check("show_board: a card's move button calls move_card through the bridge and the view shows the move", async () => {
    const card = result.structuredContent.cards.find((c) => c.column === "todo");
    assert.ok(card, "a card in todo");
    const mark = server.stderr.length;
    const sent = mcpRequests.length;
    await frame.click(`.card[data-id="${card.id}"] button[data-to="doing"]`);
    await frame.waitForSelector(`section[data-column="doing"] .card[data-id="${card.id}"]`, { timeout: STEP_TIMEOUT });
    const calls = mcpRequests.slice(sent).filter((m) => m && m.method === "tools/call");
    assert.deepEqual(calls.map((m) => [m.params.name, m.params.arguments]), [["move_card", { id: card.id, to: "doing" }]],
      "the host's client sent the view's one call");
    const audit = auditSince(mark).filter((l) => l.startsWith("audit: tools/call"));
    assert.equal(audit.length, 1, `one tools/call reached the server: ${audit.join(" | ")}`);
    assert.match(audit[0], /^audit: tools\/call move_card complete$/);
    const now = await bounded(page.evaluate(() => window.host.call("show_board")), STEP_TIMEOUT, "show_board from the host");
    assert.equal(now.structuredContent.cards.find((c) => c.id === card.id).column, "doing", "the server has the card in doing");
    assert.deepEqual(await boardShown(frame), boardExpected(now.structuredContent), "the view shows the server's board");
    assert.equal(await frame.$eval("#status", (s) => s.textContent), "", "the view shows no error");
    await settled(frame);
    await shot(frame, "bridge-board.png", "bridge-board.png");
  });
}

// ------------------------------------------------------------------ the chart

async function chartCase() {
  let frame;
  const ok = await check('chart {"labels":["a","b","c"],"values":[3,1,2]}: its raw-protocol view draws three bars', async () => {
    frame = await renderTool("chart", { labels: ["a", "b", "c"], values: [3, 1, 2] });
    const view = rendered.get(frame);
    assert.equal(view.uri, "ui://chart/chart.html");
    assert.deepEqual(view.app, { name: "Chart", version: "1.0.0" });
    assert.deepEqual(view.result.structuredContent, { labels: ["a", "b", "c"], values: [3, 1, 2] });
    await frame.waitForSelector("#chart .row .bar", { timeout: STEP_TIMEOUT });
    const rows = await frame.$$eval("#chart .row", (list) => list.map((r) => ({
      label: r.querySelector(".label").textContent,
      value: r.querySelector(".value").textContent,
      width: r.querySelector(".bar").getBoundingClientRect().width,
    })));
    assert.deepEqual(rows.map((r) => [r.label, r.value]), [["a", "3"], ["b", "1"], ["c", "2"]]);
    const top = rows[0].width;
    assert.ok(top > 50, `the longest bar is drawn (${top} px)`);
    assert.ok(Math.abs(rows[1].width - top / 3) < 2 && Math.abs(rows[2].width - (2 * top) / 3) < 2,
      `bars as long as their values: ${rows.map((r) => r.width.toFixed(1)).join(", ")} px`);
    await settled(frame);
    await shot(frame, "bridge-chart.png", "bridge-chart.png");
  });
  if (!ok) return;

  await check("chart: the view's frame is a sandbox: an opaque origin, the host's page out of reach, its fetch refused by the host's policy", async () => {
    const inside = await frame.evaluate(async (endpoint) => {
      const violated = [];
      document.addEventListener("securitypolicyviolation", (e) => violated.push(e.effectiveDirective));
      const attempt = async (body) => {
        try {
          await body();
          return "allowed";
        } catch (error) {
          return error.name;
        }
      };
      return {
        origin: window.origin,
        parent: await attempt(() => window.parent.document.title),
        fetch: await attempt(() => fetch(endpoint, { method: "POST", body: "{}" })),
        violated: await new Promise((resolve) => setTimeout(() => resolve(violated), 100)),
      };
    }, server.mcp);
    assert.deepEqual(inside, { origin: "null", parent: "SecurityError", fetch: "TypeError", violated: ["connect-src"] });
  });
}

// ------------------------------------------------------------------ the later tools

// Cases for tools the server may not list yet: each runs only when it does. Each checks the
// view against the result the host's client got for the call.
const LATER = {
  list_cards: {
    says: "a table, a row a card of the result",
    args: {},
    async check(frame, result) {
      const cards = result.structuredContent.cards;
      await frame.waitForSelector("table tbody tr", { timeout: STEP_TIMEOUT });
      const rows = await frame.$$eval("table tbody tr", (list) => list.map((r) => [...r.cells].map((c) => c.textContent)));
      assert.equal(rows.length, cards.length, "a row a card");
      cards.forEach((card, i) => {
        assert.ok(rows[i].includes(card.title) && rows[i].includes(card.column) && rows[i].includes(String(card.id)),
          `row ${i} is card #${card.id}: ${rows[i].join(" | ")}`);
      });
      const heads = await frame.$$eval("table thead th", (list) => list.length);
      assert.equal(heads, rows[0].length, "a heading a column");
    },
  },
  card_counts: {
    says: "a bar a column, as long as its count",
    args: {},
    async check(frame, result) {
      const columns = result.structuredContent.columns;
      await frame.waitForSelector(".row .bar", { timeout: STEP_TIMEOUT });
      const rows = await frame.$$eval(".row", (list) => list.map((r) => ({
        label: r.querySelector(".label").textContent,
        value: r.querySelector(".value").textContent,
        width: r.querySelector(".bar").getBoundingClientRect().width,
      })));
      assert.deepEqual(rows.map((r) => [r.label, r.value]), columns.map((c) => [c.column, String(c.cards)]), "a bar a column");
      const top = Math.max(...columns.map((c) => c.cards));
      const widest = Math.max(...rows.map((r) => r.width));
      rows.forEach((r, i) => assert.ok(Math.abs(r.width - (widest * columns[i].cards) / top) < 2, `bar ${r.label}: ${r.width} px`));
    },
  },
  get_card: {
    says: "the card's fields, each labelled",
    args: { id: 1 },
    async check(frame, result) {
      const card = result.structuredContent;
      await frame.waitForSelector("dl dt", { timeout: STEP_TIMEOUT });
      const fields = await frame.$$eval("dl dt", (list) => list.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]));
      const values = fields.map(([, value]) => value);
      assert.ok(fields.every(([label, value]) => label && value !== undefined), `labelled fields: ${JSON.stringify(fields)}`);
      for (const want of [String(card.id), card.title, card.column]) assert.ok(values.includes(want), `${want} among ${values.join(", ")}`);
    },
  },
  search_notes: {
    says: "a hit a note; a hit opens its note through read_note (bridge → client → server)",
    args: { query: "release" },
    async check(frame, result) {
      const hits = result.structuredContent.hits;
      assert.ok(hits.length > 0, "the query has hits");
      await frame.waitForSelector("#hits li", { timeout: STEP_TIMEOUT });
      const shown = await frame.$$eval("#hits li", (list) => list.map((li) => [li.dataset.id, li.querySelector("strong").textContent]));
      assert.deepEqual(shown, hits.map((h) => [String(h.id), h.title]), "a hit a note");
      assert.equal(await frame.$eval("#query", (q) => q.value), "release");
      // A hit opens its note: the view's read_note goes through the bridge to the server.
      const mark = server.stderr.length;
      await frame.click(`#hits li[data-id="${hits[0].id}"]`);
      await frame.waitForSelector("#note:not([hidden])", { timeout: STEP_TIMEOUT });
      assert.ok((await frame.$eval("#note", (n) => n.textContent)).length > 0, "the note's text");
      assert.deepEqual(auditSince(mark).filter((l) => l.startsWith("audit: tools/call")), ["audit: tools/call read_note complete"]);
    },
  },
};

async function laterCases(listed) {
  for (const [name, spec] of Object.entries(LATER)) {
    await check(`${name} ${JSON.stringify(spec.args)}: its view shows ${spec.says}`, async () => {
      const tool = listed.find((t) => t.name === name);
      assert.ok(tool, `the server lists ${name}`);
      assert.ok(tool.resourceUri, `${name} links to a view`);
      const frame = await renderTool(name, spec.args);
      assert.ok(!rendered.get(frame).result.isError, `${name} succeeded`);
      await spec.check(frame, rendered.get(frame).result);
      await settled(frame).catch(() => {}); // a view need not report its size
      const file = `bridge-${name.replace(/_/g, "-")}.png`;
      await shot(frame, file, file);
    });
  }
}

// ------------------------------------------------------------------ the run

const started = Date.now();
let listed = [];
try {
  let bundle;
  await check("the host's bundle (AppBridge, PostMessageTransport, Client, StreamableHTTPClientTransport) is built by esbuild", async () => {
    bundle = await bundleHost();
    const size = fs.statSync(bundle).size;
    assert.ok(size > 10_000, `${size} bytes`);
  });
  await check("the apps example serves MCP on a loopback port", async () => {
    server = await startServer(APPS);
    assert.match(server.mcp, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });
  if (bundle && server) {
    site = await serveHost(bundle);
    browser = await bounded(puppeteer.launch({
      executablePath: chromium(),
      headless: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"],
    }), 30_000, "Chromium starting");
    const connected = await check("the host page (another origin) connects the official Client to the server's /mcp and lists its tools", async () => {
      assert.notEqual(new URL(site.url).origin, new URL(server.mcp).origin, "the host is on another origin");
      const hello = await openHost(site.url, server.mcp);
      assert.equal(hello.server.name, "apps");
      assert.ok(hello.capabilities.tools && hello.capabilities.resources, "the server has tools and resources");
      listed = hello.tools;
      const links = Object.fromEntries(listed.map((t) => [t.name, t.resourceUri]));
      assert.equal(links.show_board, "ui://board/board.html");
      assert.equal(links.chart, "ui://chart/chart.html");
      console.log(`# tools: ${listed.map((t) => t.name).join(", ")}`);
    });
    if (connected) {
      await boardCase();
      await chartCase();
      await laterCases(listed);
      await check("the host page showed no error and no view sent a request of its own", async () => {
        assert.deepEqual(pageErrors, []);
        assert.deepEqual(viewRequests, []);
      });
    }
  }
} catch (error) {
  failed++;
  results.push(`not ok - ${error.message}`);
  console.log(`not ok - ${error.message}`);
  for (const line of String(error.stack).split("\n")) console.log(`#   ${line}`);
} finally {
  if (browser) await bounded(browser.close(), 10_000, "Chromium closing").catch(() => {});
  cleanup();
}

const summary = `# ${results.length - failed} passed, ${failed} failed, ${((Date.now() - started) / 1000).toFixed(1)} s`;
fs.writeFileSync(path.join(OUT, "results.txt"), `${results.join("\n")}\n${summary}\n`);
console.log(summary);
process.exit(failed > 0 || results.length === 0 ? 1 : 0);
