// The lab page's browser test: Debian's headless Chromium, driven over the DevTools protocol by
// puppeteer-core, opens the /lab page of the acme-knowledge and study-server examples and plays
// the host. What it checks:
//   1. acme-knowledge, default choices: the page's transcript is the 14 envelopes of seed 002,
//      JSON-equal (ids, _meta, results), and the server's audit log saw the call, read and get;
//   2. the tool grant denied: discover, resources and prompts complete, and the server's audit log
//      shows no tools/call;
//   3. acme-knowledge declares no skills extension: the Skills card stays hidden and no skills
//      request is sent;
//   4. the resource path broken (an unknown URI): step 03 shows the -32602 envelope while steps 02
//      and 04 complete; arguments that break the tool's schema and a tool that fails (isError)
//      show on step 02 while the later steps go on;
//   5. acme-knowledge behind OAuth: without a token the page shows the 401 challenge; with a token
//      lacking docs:read, naming the unlisted search tool shows the 403 insufficient_scope
//      challenge while the other steps complete; with the scope, every step completes;
//   6. study-server: prepare_review answered through the page's roots, sampling and elicitation
//      forms completes, add with progress shows both progress notifications before its result,
//      and its refusal of subscriptions/listen (it advertises no list changes) is shown;
//   7. everything: a subscriptions/listen stream opened from the page shows the
//      tools/list_changed that a tool call granted on the same page causes;
//   8. everything: the Skills card lists both skills, shows pdf-processing's manifest (7 files,
//      digests of the files on disk), opens a text file and a binary one, browses its folders,
//      shows a -32602 for an unknown skill and goes on; every request is in the transcript,
//      answered, and carries the page's bearer token;
//   9. apps, the page as an MCP Apps host: show_board's view (the ext-apps App class) renders its
//      three columns and cards in the sandbox frame after the handshake (ui/initialize answered,
//      tool-input then tool-result only after initialized, the result as received); the view's
//      move_card waits for a host grant: approved, the card moves and the call and its answer
//      are in the transcript; denied, the view shows the refusal and no tools/call leaves the
//      page (a later show_board shows the board unchanged); ui/message and ui/open-link are
//      shown and answered {}; from inside the frame the page's DOM, the top window and the token
//      are out of reach, and the view's policy refuses every fetch; its form adds a card (through
//      a grant); replacing and closing the view send ui/resource-teardown, answered; the board's
//      read of board://guide (not a view) is shown with its URI and waits for a grant: denied,
//      the view shows the refusal and neither the page's requests nor the server's audit log
//      has the read; approved, it is read once and the view shows the guide;
//  10. apps, the page on localhost (its sandbox on 127.0.0.1): chart's raw-protocol view draws
//      its bars; the sandbox's policy is the view's csp with unsafe domains dropped; what the view
//      may not do (an unlisted tool, a tool whose visibility leaves out "app", an unknown method,
//      a javascript: link) is refused without asking; its resources/read of a view this server's
//      tools link to (its own, the board's) is sent without asking and is in the transcript; of
//      a ui:// URI no tool links to, denied, nothing is sent; of board://guide, approved, it is
//      answered; a call the server refuses reaches the view as tool-cancelled;
//  11. a server whose tools/list gives the same nextCursor again (answered by the test): the page
//      stops after the second page and shows why;
//  12. CORS: a page on another loopback origin calls the endpoint with fetch (a 2026-07-28
//      tools/list; a 2025-11-25 initialize whose Mcp-Session-Id it reads and sends back); a page
//      on http://evil.test (mapped to 127.0.0.1) fails: its preflight is refused.
// Screenshots go to OUT_DIR; with --update-docs they are also copied into docs/lab/.
//
// Usage: node lab-test.mjs --acme PATH --study PATH --everything PATH --apps PATH --seed PATH
//        [--out DIR] [--update-docs]

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import puppeteer from "puppeteer-core";

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const ACME = flag("--acme");
const STUDY = flag("--study");
const EVERYTHING = flag("--everything");
const APPS = flag("--apps");
const SEED = flag("--seed");
const OUT = flag("--out") || "target/lab-results";
const UPDATE_DOCS = args.includes("--update-docs");
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const DOCS = path.join(ROOT, "docs/lab");
const EVERYTHING_SKILLS = path.join(ROOT, "examples/everything/skills");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const STEP_TIMEOUT = 20_000;
if (!ACME || !STUDY || !EVERYTHING || !APPS || !SEED) {
  console.error("usage: node lab-test.mjs --acme PATH --study PATH --everything PATH --apps PATH --seed PATH [--out DIR] [--update-docs]");
  process.exit(2);
}
fs.mkdirSync(OUT, { recursive: true });

// ------------------------------------------------------------------ servers

const servers = [];

// Starts an example on a kernel-chosen loopback port; resolves once it prints its lab URL.
function startServer(exe, extra = []) {
  const child = spawn(exe, ["--addr", "127.0.0.1:0", ...extra], { stdio: ["ignore", "pipe", "pipe"] });
  servers.push(child);
  const server = { child, stderr: "", lab: null, mcp: null };
  child.stderr.on("data", (chunk) => {
    server.stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${exe} did not print its URLs within 30 s`)), 30_000);
    child.on("exit", (code) => reject(new Error(`${exe} exited with ${code}: ${server.stderr}`)));
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      const mcp = line.match(/serving MCP on (http:\S+)/);
      if (mcp) server.mcp = mcp[1];
      const lab = line.match(/^lab page: (http:\S+)/);
      if (lab) server.lab = lab[1];
      if (server.mcp && server.lab) {
        clearTimeout(timer);
        resolve(server);
      }
    });
  });
}

function stopServers() {
  for (const child of servers) if (child.exitCode === null) child.kill("SIGTERM");
}
process.on("exit", stopServers);

// The audit lines the server wrote since `mark` (a length of its stderr).
function auditSince(server, mark) {
  return server.stderr.slice(mark).split("\n").filter((l) => l.startsWith("audit: "));
}

// ------------------------------------------------------------------ the seed

function seedEnvelopes(file) {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const blocks = [];
  let current = null;
  for (const line of lines) {
    if (line === "{") current = [line];
    else if (current) {
      current.push(line);
      if (line === "}") {
        blocks.push(JSON.parse(current.join("\n")));
        current = null;
      }
    }
  }
  return blocks;
}

// ------------------------------------------------------------------ the page

async function openLab(browser, server, url = server.lab) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 1400 });
  page.on("pageerror", (error) => {
    throw new Error(`page error: ${error.message}`);
  });
  const external = [];
  const origin = new URL(url).origin;
  page.on("request", (request) => {
    if (new URL(request.url()).origin !== origin) external.push(request.url());
  });
  page.external = external;
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("body[data-ready]", { timeout: STEP_TIMEOUT });
  return page;
}

const stepSel = (name, status) => `.steps li[data-step="${name}"]${status ? `[data-status="${status}"]` : ""}`;
const cardSel = (kind) => `.primitive[data-kind="${kind}"]`;

async function waitStep(page, name, status) {
  try {
    await page.waitForSelector(stepSel(name, status), { timeout: STEP_TIMEOUT });
  } catch (error) {
    const now = await page.$eval(stepSel(name), (n) => `${n.dataset.status}: ${n.querySelector(".detail").textContent}`);
    throw new Error(`step ${name} did not reach ${status} (it is ${now})`);
  }
}

async function stepStatus(page, name) {
  return page.$eval(stepSel(name), (n) => n.dataset.status);
}

async function fill(page, selector, text) {
  await page.$eval(selector, (node) => {
    node.value = "";
  });
  await page.type(selector, text);
}

async function pick(page, kind, text) {
  const value = await page.$eval(`${cardSel(kind)} .pick`, (select, want) => {
    const option = [...select.options].find((o) => o.textContent === want);
    return option ? option.value : null;
  }, text);
  assert.ok(value !== null, `no ${kind} named ${text} in the picker`);
  await page.select(`${cardSel(kind)} .pick`, value);
}

async function grant(page, kind, choice) {
  await page.click(`${cardSel(kind)} [data-action="${choice}"]`);
}

async function transcript(page) {
  return page.$$eval("#transcript .envelope", (items) => items.map((item) => ({
    n: Number(item.dataset.n),
    direction: item.dataset.direction,
    label: item.dataset.label,
    via: item.dataset.via || null,
    json: item.querySelector("pre.json") ? JSON.parse(item.querySelector("pre.json").textContent) : null,
    challenge: item.querySelector(".challenge") ? item.querySelector(".challenge").textContent : null,
  })));
}

// A screenshot of the page or of one element (with `inViewport`, as it is in the viewport: a
// frame of another origin is drawn only there).
async function shot(page, name, element, { inViewport = false } = {}) {
  const file = path.join(OUT, name);
  if (element) await (await page.$(element)).screenshot({ path: file, captureBeyondViewport: !inViewport });
  else await page.screenshot({ path: file });
  if (UPDATE_DOCS) {
    fs.mkdirSync(DOCS, { recursive: true });
    fs.copyFileSync(file, path.join(DOCS, name));
  }
}

const paneSel = (name) => `${cardSel("skills")} .skill-pane[data-pane="${name}"]`;

// Clicks a control of the Skills card and waits for the answer in `pane`, which must end in
// `status`; resolves to the pane's note. (A pane counts its requests in `ticket`, so an answer
// already shown there is not mistaken for the new one.)
async function skillStep(page, selector, pane, status = "completed") {
  const sel = paneSel(pane);
  const before = await page.$eval(sel, (n) => n.ticket || 0);
  await page.click(selector);
  const answered = (s, b) => {
    const n = document.querySelector(s);
    return n.ticket > b && n.querySelector(".note").dataset.status !== "running";
  };
  try {
    await page.waitForFunction(answered, { timeout: STEP_TIMEOUT }, sel, before);
  } catch {
    throw new Error(`the ${pane} pane did not answer ${selector}`);
  }
  const note = await page.$eval(`${sel} .note`, (n) => ({ status: n.dataset.status, text: n.textContent }));
  assert.equal(note.status, status, `${pane}: ${note.text}`);
  return note.text;
}

function sha256(file) {
  return `sha256:${crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")}`;
}

// The seed's default run: search, the first resource, the prompt for support managers.
async function acmeRun(page, { tool = "approve", uri, other = false } = {}) {
  await page.click("#run");
  await waitStep(page, "discover", "completed");
  await waitStep(page, "tools", "waiting");
  if (other) {
    await page.select(`${cardSel("tools")} .pick`, "other");
    await fill(page, `${cardSel("tools")} [data-other="name"]`, "search_private_docs");
    await fill(page, `${cardSel("tools")} [data-other="arguments"]`, '{"query": "support retention policy", "limit": 3}');
  } else if (tool === "approve") {
    await fill(page, `${cardSel("tools")} [data-field="query"]`, "support retention policy");
    await fill(page, `${cardSel("tools")} [data-field="limit"]`, "3");
  }
  await grant(page, "tools", tool);
  await waitStep(page, "resources", "waiting");
  if (uri) await fill(page, `${cardSel("resources")} [data-field="uri"]`, uri);
  await grant(page, "resources", "approve");
  await waitStep(page, "prompts", "waiting");
  await fill(page, `${cardSel("prompts")} [data-field="audience"]`, "support managers");
  await grant(page, "prompts", "approve");
  await page.waitForSelector('#overall:not([data-status="running"])', { timeout: STEP_TIMEOUT });
}

// ------------------------------------------------------------------ OAuth test tokens

function base64url(data) {
  return Buffer.from(data).toString("base64url");
}

function issuer(dir) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = { ...publicKey.export({ format: "jwk" }), kid: "lab-test", alg: "ES256", use: "sig" };
  const jwks = path.join(dir, "jwks.json");
  fs.writeFileSync(jwks, JSON.stringify({ keys: [jwk] }));
  const token = (claims) => {
    const head = base64url(JSON.stringify({ alg: "ES256", typ: "JWT", kid: "lab-test" }));
    const body = base64url(JSON.stringify(claims));
    const signature = crypto.sign("sha256", Buffer.from(`${head}.${body}`), { key: privateKey, dsaEncoding: "ieee-p1363" });
    return `${head}.${body}.${base64url(signature)}`;
  };
  return { jwks, token };
}


// ------------------------------------------------------------------ the Apps card

// Lists the tools of the Apps card (the trace must have discovered the server).
async function listApps(page) {
  await page.waitForSelector(`${cardSel("apps")}:not([hidden])`, { timeout: STEP_TIMEOUT });
  await page.click(`${cardSel("apps")} [data-action="list-apps"]`);
  await page.waitForSelector(`${cardSel("apps")} > .note:is([data-status="completed"], [data-status="error"])`, { timeout: STEP_TIMEOUT });
  assert.equal(await page.$eval(`${cardSel("apps")} > .note`, (n) => n.dataset.status), "completed");
}

// Runs `tool` from the Apps card with `fields` typed into its form, approves the grant, and
// resolves to the view's frame (the sandbox's inner frame) once the view is initialized.
async function runApp(page, tool, fields = {}) {
  const value = await page.$eval(`${cardSel("apps")} .pick`, (select, want) => {
    const option = [...select.options].find((o) => o.textContent === want);
    return option ? option.value : null;
  }, tool);
  assert.ok(value !== null, `no ${tool} in the Apps card`);
  await page.select(`${cardSel("apps")} .pick`, value);
  for (const [field, text] of Object.entries(fields)) await fill(page, `${cardSel("apps")} [data-field="${field}"]`, text);
  const before = new Set(page.frames());
  await page.click(`${cardSel("apps")} [data-action="run-app"]`);
  await page.click(`${cardSel("apps")} > .actions [data-action="approve"]`);
  const frame = await page.waitForFrame((f) => f.url() === "about:srcdoc" && !before.has(f), { timeout: STEP_TIMEOUT });
  await page.waitForSelector(`${cardSel("apps")} .view[data-state="initialized"]`, { timeout: STEP_TIMEOUT });
  return frame;
}

// Waits for the frame to have taken the height of what its view shows now: a click while it
// still grows could land beside its target. (The frame is brought into sight first: Chromium
// runs no resize observer in a frame of another origin out of sight, so the view would not tell.)
async function fitted(page, frame) {
  const sel = `${cardSel("apps")} .app-frame`;
  await page.$eval(sel, (f) => f.scrollIntoView({ block: "nearest" }));
  const height = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  try {
    await page.waitForFunction((s, want) => document.querySelector(s).getBoundingClientRect().height >= want,
      { timeout: STEP_TIMEOUT }, sel, Math.min(height, 900) - 2);
  } catch {
    const now = await page.$eval(sel, (f) => f.getBoundingClientRect().height);
    const log = (await viewLog(page)).map((e) => `${e.direction} ${e.label}${e.json && e.json.params && e.json.params.height ? ` ${e.json.params.height}` : ""}`);
    throw new Error(`the frame is ${now} px high, its view ${height} px; its messages: ${log.join(", ")}`);
  }
}

// Waits for the board's cards in `frame`, and for the frame to fit them.
async function boardReady(page, frame) {
  await frame.waitForSelector('section[data-column="done"] .card', { timeout: STEP_TIMEOUT });
  await fitted(page, frame);
}

// The board's columns as its view shows them: each card's text, column by column.
async function boardOf(frame) {
  return frame.$$eval("section[data-column]", (sections) => Object.fromEntries(sections.map((s) => [
    s.dataset.column, [...s.querySelectorAll(".card")].map((c) => c.firstElementChild.textContent)])));
}

// The postMessage log of the latest view (or, with `all`, of every view since the page's reset).
async function viewLog(page, all = false) {
  const log = await page.$$eval(`${cardSel("apps")} .view-log .envelope`, (items) => items.map((item) => ({
    view: Number(item.dataset.view),
    direction: item.dataset.direction,
    label: item.dataset.label,
    json: item.querySelector("pre.json") ? JSON.parse(item.querySelector("pre.json").textContent) : null,
  })));
  const latest = Math.max(...log.map((e) => e.view));
  return all ? log : log.filter((e) => e.view === latest);
}

// Whether the log shows `view` asked to tear down and answering.
function tornDown(log, view) {
  const teardown = log.find((e) => e.view === view && e.direction === "host→view" && e.label === "ui/resource-teardown");
  return Boolean(teardown) && log.some((e) => e.view === view && e.direction === "view→host" && e.json && e.json.id === teardown.json.id);
}

// The selector of the view's ask (a request shown to the person) of `method` in `status`, once
// there is one.
async function waitAsk(page, status, method = "tools/call") {
  const sel = `${cardSel("apps")} .ask[data-method="${method}"][data-status="${status}"]`;
  try {
    await page.waitForSelector(sel, { timeout: STEP_TIMEOUT });
  } catch {
    const asks = await page.$$eval(`${cardSel("apps")} .ask`, (items) => items.map((i) => `${i.dataset.method} ${i.dataset.status}`));
    const log = (await viewLog(page)).map((e) => `${e.direction} ${e.label}`);
    throw new Error(`no ${status} ${method} from the view; asks: ${JSON.stringify(asks)}; its messages: ${log.join(", ")}`);
  }
  return sel;
}

// Sends `method` with `params` from inside `frame` as its view would, by hand; resolves to the
// host's answer (its error or result).
function askFromView(frame, id, method, params) {
  return frame.evaluate((id, method, params) => new Promise((resolve) => {
    const listen = (event) => {
      if (event.source === window.parent && event.data && event.data.id === id) {
        window.removeEventListener("message", listen);
        resolve(event.data.error || event.data.result);
      }
    };
    window.addEventListener("message", listen);
    window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  }), id, method, params);
}

// A GET to the server on 127.0.0.1 with the `Host` given: { status, headers }.
function get(port, host, pathname) {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, path: pathname, headers: { Host: host } }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode, headers: response.headers }));
    });
    request.on("error", reject);
    request.end();
  });
}

// ------------------------------------------------------------------ CORS

// A page of its own on a port of its own: another origin than the server's.
function serveSite() {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>another origin</title><p>A page of another origin.</p>");
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: server.address().port })));
}

// Run in a page: a 2026-07-28 tools/list, a 2025-11-25 initialize, and its notifications/initialized
// sent back with the session the initialize answered. Errors are the exceptions' names.
async function corsCalls(endpoint) {
  const post = async (headers, body) => {
    try {
      const response = await fetch(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, session: response.headers.get("mcp-session-id"), body: text ? JSON.parse(text) : null };
    } catch (error) {
      return { error: error.name };
    }
  };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "cors-page", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const list = await post({ "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" },
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } });
  const init = await post({}, {
    jsonrpc: "2.0", id: 2, method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "cors-page", version: "1.0.0" } },
  });
  const initialized = await post({ "MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": String(init.session) },
    { jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    list: list.error ? { error: list.error } : { status: list.status, body: list.body },
    init: init.error ? { error: init.error } : { status: init.status, body: init.body, session: init.session },
    initialized: initialized.error || initialized.status,
  };
}

// ------------------------------------------------------------------ the checks

const results = [];
async function check(name, body) {
  const started = Date.now();
  try {
    await body();
    results.push(`ok   ${name} (${Date.now() - started} ms)`);
    console.log(`ok   ${name}`);
  } catch (error) {
    results.push(`FAIL ${name}: ${error.message}`);
    console.log(`FAIL ${name}\n${error.stack}`);
  }
}

const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  // evil.test: a foreign origin for the CORS check, on this machine.
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
    "--host-resolver-rules=MAP evil.test 127.0.0.1"],
});

try {
  const seed = seedEnvelopes(SEED);
  assert.equal(seed.length, 14, "seed 002 holds 14 envelopes");
  const acme = await startServer(ACME, ["--audit"]);

  await check("acme-knowledge: the default choices produce seed 002's 14 envelopes", async () => {
    const mark = acme.stderr.length;
    const page = await openLab(browser, acme);
    await acmeRun(page);
    for (const name of ["discover", "tools", "resources", "prompts"]) assert.equal(await stepStatus(page, name), "completed", name);
    const shown = await transcript(page);
    assert.equal(shown.length, 14, "14 envelopes on the page");
    assert.equal(await page.$eval("#envelope-count", (n) => n.textContent), "14 exact envelopes");
    shown.forEach((envelope, i) => {
      assert.equal(envelope.n, i + 1);
      assert.deepEqual({ direction: envelope.direction, ...envelope.json }, seed[i], `envelope ${i + 1}`);
    });
    const audit = auditSince(acme, mark);
    assert.deepEqual(audit, [
      "audit: tools/call search_private_docs complete",
      "audit: resources/read acme-knowledge://policies/support-retention complete",
      "audit: prompts/get draft_policy_brief complete",
    ]);
    assert.deepEqual(page.external, [], "no request left the server's origin");
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, "acme-trace.png");
    await shot(page, "acme-transcript.png", "#transcript .envelope:nth-child(6)");
    await page.close();
  });

  await check("acme-knowledge: a denied tool grant sends no tools/call; the other steps complete", async () => {
    const mark = acme.stderr.length;
    const page = await openLab(browser, acme);
    await acmeRun(page, { tool: "deny" });
    assert.equal(await stepStatus(page, "discover"), "completed");
    assert.equal(await stepStatus(page, "tools"), "denied");
    assert.equal(await page.$eval(`${stepSel("tools")} .badge`, (n) => n.textContent), "denied by host");
    assert.equal(await stepStatus(page, "resources"), "completed");
    assert.equal(await stepStatus(page, "prompts"), "completed");
    const methods = (await transcript(page)).filter((e) => e.direction === "client→server").map((e) => e.json.method);
    assert.deepEqual(methods, ["server/discover", "tools/list", "resources/list", "resources/read", "prompts/list", "prompts/get"]);
    const audit = auditSince(acme, mark);
    assert.ok(!audit.some((l) => l.startsWith("audit: tools/call")), `the server saw a tools/call: ${audit}`);
    assert.deepEqual(audit, [
      "audit: resources/read acme-knowledge://policies/support-retention complete",
      "audit: prompts/get draft_policy_brief complete",
    ]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, "acme-denied-tool.png");
    await page.close();
  });

  await check("acme-knowledge: no skills extension, no Skills card and no skills request", async () => {
    const page = await openLab(browser, acme);
    const hidden = () => page.$eval(cardSel("skills"), (n) => n.hidden && getComputedStyle(n).display === "none");
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    assert.equal(await hidden(), true, "the Skills card is shown");
    await grant(page, "tools", "deny");
    await waitStep(page, "resources", "waiting");
    await grant(page, "resources", "deny");
    await waitStep(page, "prompts", "waiting");
    await grant(page, "prompts", "deny");
    await page.waitForSelector('#overall:not([data-status="running"])', { timeout: STEP_TIMEOUT });
    assert.equal(await hidden(), true, "the Skills card is shown");
    const methods = (await transcript(page)).filter((e) => e.direction === "client→server").map((e) => e.json.method);
    assert.deepEqual(methods, ["server/discover", "tools/list", "resources/list", "prompts/list"]);
    await page.close();
  });

  await check("acme-knowledge: a broken resource path shows -32602 on step 03 only", async () => {
    const page = await openLab(browser, acme);
    const missing = "acme-knowledge://policies/no-such-policy";
    await acmeRun(page, { uri: missing });
    assert.equal(await stepStatus(page, "tools"), "completed");
    assert.equal(await stepStatus(page, "resources"), "error");
    assert.equal(await stepStatus(page, "prompts"), "completed");
    const shown = await transcript(page);
    const read = shown.findIndex((e) => e.json && e.json.method === "resources/read");
    assert.ok(read >= 0);
    assert.equal(shown[read].json.params.uri, missing);
    const answer = shown[read + 1].json;
    assert.equal(answer.id, shown[read].json.id);
    assert.equal(answer.error.code, -32602, JSON.stringify(answer));
    const detail = await page.$eval(`${stepSel("resources")} .detail`, (n) => n.textContent);
    assert.match(detail, /error -32602/);
    await page.close();
  });

  await check("acme-knowledge: arguments that break the schema and a tool that fails show on step 02 only", async () => {
    const page = await openLab(browser, acme);
    // query is shorter than its minLength: the server's own answer is shown, whatever it is.
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    await fill(page, `${cardSel("tools")} [data-field="query"]`, "ab");
    await fill(page, `${cardSel("tools")} [data-field="limit"]`, "3");
    await grant(page, "tools", "approve");
    await waitStep(page, "resources", "waiting");
    let shown = await transcript(page);
    let answer = shown[shown.findIndex((e) => e.json && e.json.method === "tools/call") + 1].json;
    const expected = answer.error ? "error" : "failed";
    assert.ok(answer.error ? answer.error.code === -32602 : answer.result.isError === true, JSON.stringify(answer));
    assert.equal(await stepStatus(page, "tools"), expected);
    await grant(page, "resources", "deny");
    await waitStep(page, "prompts", "waiting");
    await grant(page, "prompts", "deny");
    await page.waitForSelector('#overall:not([data-status="running"])', { timeout: STEP_TIMEOUT });
    // get_document for an id it does not hold: the tool runs and answers isError.
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    await pick(page, "tools", "get_document");
    await fill(page, `${cardSel("tools")} [data-field="documentId"]`, "doc_missing");
    await grant(page, "tools", "approve");
    await waitStep(page, "resources", "waiting");
    assert.equal(await stepStatus(page, "tools"), "failed");
    assert.equal(await page.$eval(`${stepSel("tools")} .badge`, (n) => n.textContent), "tool error");
    shown = await transcript(page);
    answer = shown[shown.findIndex((e) => e.json && e.json.method === "tools/call") + 1].json;
    assert.equal(answer.result.isError, true);
    await grant(page, "resources", "approve");
    await waitStep(page, "prompts", "waiting");
    await fill(page, `${cardSel("prompts")} [data-field="audience"]`, "support managers");
    await grant(page, "prompts", "approve");
    await waitStep(page, "prompts", "completed");
    assert.equal(await stepStatus(page, "resources"), "completed");
    await page.close();
  });

  await check("acme-knowledge behind OAuth: 401 and 403 challenges on the page", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-lab-"));
    const keys = issuer(dir);
    const audience = "https://mcp.example.test/mcp";
    const iss = "https://auth.example.test";
    const secured = await startServer(ACME, ["--jwks", keys.jwks, "--audience", audience, "--issuer", iss]);
    const page = await openLab(browser, secured);
    await page.click("#run");
    await waitStep(page, "discover", "error");
    await page.waitForSelector('#overall:not([data-status="running"])', { timeout: STEP_TIMEOUT });
    let shown = await transcript(page);
    const refused = shown.find((e) => e.direction === "server→client");
    assert.ok(refused.challenge && /^WWW-Authenticate: Bearer /.test(refused.challenge), JSON.stringify(refused));
    assert.match(refused.challenge, /resource_metadata=/);
    const now = Math.floor(Date.now() / 1000);
    // Without docs:read, tools/list leaves search_private_docs out; naming it anyway gets 403.
    await fill(page, "#token", keys.token({ iss, aud: audience, sub: "lab-user", iat: now, exp: now + 600, scope: "profile" }));
    await acmeRun(page, { other: true });
    assert.equal(await page.$eval(`${cardSel("tools")} .count`, (n) => n.textContent), "1 discovered");
    assert.equal(await stepStatus(page, "discover"), "completed");
    assert.equal(await stepStatus(page, "tools"), "error");
    assert.equal(await stepStatus(page, "resources"), "completed");
    assert.equal(await stepStatus(page, "prompts"), "completed");
    shown = await transcript(page);
    const call = shown.findIndex((e) => e.json && e.json.method === "tools/call");
    assert.match(shown[call + 1].challenge || "", /insufficient_scope/);
    assert.match(await page.$eval(`${stepSel("tools")} .detail`, (n) => n.textContent), /insufficient_scope/);
    // With it, the whole trace completes.
    await fill(page, "#token", keys.token({ iss, aud: audience, sub: "lab-user", iat: now, exp: now + 600, scope: "docs:read" }));
    await acmeRun(page);
    for (const name of ["discover", "tools", "resources", "prompts"]) assert.equal(await stepStatus(page, name), "completed", name);
    await page.close();
  });

  const study = await startServer(STUDY);

  await check("study-server: prepare_review answered through the page's forms", async () => {
    const page = await openLab(browser, study);
    for (const id of ["#cap-roots", "#cap-sampling", "#cap-elicitation"]) await page.click(id);
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    await pick(page, "tools", "prepare_review");
    await fill(page, `${cardSel("tools")} [data-field="topic"]`, "release 2.0");
    await grant(page, "tools", "approve");
    await waitStep(page, "tools", "input");
    const asked = await page.$$eval(`${cardSel("tools")} .input-request`, (sets) => sets.map((s) => s.dataset.method).sort());
    assert.deepEqual(asked, ["elicitation/create", "roots/list", "sampling/createMessage"]);
    await fill(page, `${cardSel("tools")} [data-method="roots/list"] [data-answer="roots"]`, "file:///workspace/app");
    await fill(page, `${cardSel("tools")} [data-method="sampling/createMessage"] [data-answer="text"]`, "Check the rollback plan.");
    await fill(page, `${cardSel("tools")} [data-method="elicitation/create"] [data-field="goal"]`, "safety");
    await shot(page, "study-mrtr.png", cardSel("tools"));
    await page.click(`${cardSel("tools")} [data-action="send-inputs"]`);
    await waitStep(page, "tools", "completed");
    const outcome = JSON.parse(await page.$eval(`${cardSel("tools")} .outcome`, (n) => n.textContent.split("\n")[0]));
    assert.deepEqual(outcome, { goal: "safety", rootCount: 1, sample: "Check the rollback plan.", topic: "release 2.0" });
    const calls = (await transcript(page)).filter((e) => e.json && e.json.method === "tools/call");
    assert.equal(calls.length, 2, "round 1 and its retry");
    assert.ok(calls[1].json.params.requestState, "the retry echoes requestState");
    assert.deepEqual(Object.keys(calls[1].json.params.inputResponses).length, 3);
    await waitStep(page, "resources", "waiting");
    await grant(page, "resources", "approve");
    await waitStep(page, "prompts", "waiting");
    await grant(page, "prompts", "approve");
    await waitStep(page, "prompts", "completed");
    await page.close();
  });

  await check("study-server: add with progress streams both notifications before its result; a refused listen is shown", async () => {
    const page = await openLab(browser, study);
    await page.click("#ask-progress");
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    await pick(page, "tools", "add");
    await fill(page, `${cardSel("tools")} [data-field="a"]`, "2");
    await fill(page, `${cardSel("tools")} [data-field="b"]`, "40");
    await grant(page, "tools", "approve");
    await waitStep(page, "tools", "completed");
    const progress = await page.$$eval(`${stepSel("tools")} .live .progress`, (lines) => lines.map((l) => l.textContent));
    assert.deepEqual(progress, ["0/1 — starting", "1/1 — complete"]);
    const shown = await transcript(page);
    const call = shown.findIndex((e) => e.json && e.json.method === "tools/call");
    assert.equal(shown[call].json.params._meta.progressToken, "lab-tools");
    const after = shown.slice(call + 1, call + 4).map((e) => e.label);
    assert.deepEqual(after, ["notifications/progress", "notifications/progress", "result"]);
    assert.equal(shown[call + 3].json.result.content[0].text, "42");
    // study-server advertises no list changes: its refusal of the listen request is shown.
    await page.click("#listen-open");
    await page.waitForSelector("#listen-open:not([disabled])", { timeout: STEP_TIMEOUT });
    assert.match(await page.$eval("#listen-status", (n) => n.textContent), /^error -32601/);
    await page.close();
  });

  const everything = await startServer(EVERYTHING);

  await check("everything: a listen stream opened from the page shows the list change a tool call causes", async () => {
    const page = await openLab(browser, everything);
    await page.click("#listen-open");
    await page.waitForSelector('#listen-status[data-status="open"]', { timeout: STEP_TIMEOUT });
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    await pick(page, "tools", "test_trigger_tool_change");
    await grant(page, "tools", "approve");
    await waitStep(page, "tools", "completed");
    await page.waitForFunction(() => document.querySelectorAll("#listen-log .envelope").length >= 3, { timeout: STEP_TIMEOUT });
    const log = await page.$$eval("#listen-log .envelope", (items) => items.map((i) => i.dataset.label));
    assert.deepEqual(log.slice(0, 3), ["subscriptions/listen", "notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]);
    await shot(page, "everything-listen.png", ".listen");
    await page.click("#listen-close");
    await page.waitForSelector("#listen-open:not([disabled])", { timeout: STEP_TIMEOUT });
    assert.equal(await page.$eval("#listen-status", (n) => n.textContent), "closed");
    await page.close();
  });

  await check("everything: the Skills card lists, gets, reads and browses skills, each request in the transcript", async () => {
    const page = await openLab(browser, everything);
    const token = "lab-skills-token";
    const sent = [];
    page.on("request", (request) => {
      const method = request.headers()["mcp-method"];
      if (method) sent.push({ method, authorization: request.headers().authorization });
    });
    await fill(page, "#token", token);
    await page.click("#run");
    // The trace waits on the tool grant from here on: the card's requests are the only ones.
    await waitStep(page, "tools", "waiting");
    await page.waitForSelector(`${cardSel("skills")}:not([hidden])`, { timeout: STEP_TIMEOUT });
    const top = (action) => `${cardSel("skills")} > .actions [data-action="${action}"]`;

    await skillStep(page, top("list-skills"), "list");
    const listed = await page.$$eval(`${paneSel("list")} .skill`, (items) => items.map((i) => ({
      uri: i.dataset.uri,
      name: i.querySelector(".skill-name").textContent,
      description: i.querySelector(".skill-description").textContent,
    })));
    assert.deepEqual(listed, [
      { uri: "skill://acme/billing/refunds/SKILL.md", name: "refunds", description: "Process customer refund requests per company policy" },
      { uri: "skill://pdf-processing/SKILL.md", name: "pdf-processing", description: "Extract, fill, and assemble PDF documents" },
    ]);
    assert.equal(await page.$eval(`${cardSel("skills")} .count`, (n) => n.textContent), "2 listed");

    const pdf = `${paneSel("list")} .skill[data-uri="skill://pdf-processing/SKILL.md"]`;
    await skillStep(page, `${pdf} [data-action="get-skill"]`, "manifest");
    const manifest = await page.$$eval(`${paneSel("manifest")} tbody tr`, (rows) => rows.map((r) => ({
      uri: r.dataset.uri,
      size: Number(r.querySelector(".size").textContent),
      digest: r.querySelector(".digest").title,
      short: r.querySelector(".digest").textContent,
    })));
    const files = ["SKILL.md", "assets/logo.png", "references/FORMS.md", "scripts/extract.py", "templates/invoice.md",
      "templates/purchase-order.md", "templates/regional/eu-invoice.md"];
    assert.deepEqual(manifest.map((f) => f.uri), files.map((f) => `skill://pdf-processing/${f}`));
    manifest.forEach((entry, i) => {
      const disk = path.join(EVERYTHING_SKILLS, "pdf-processing", files[i]);
      assert.equal(entry.digest, sha256(disk), entry.uri);
      assert.equal(entry.size, fs.statSync(disk).size, entry.uri);
      assert.equal(entry.short, `${entry.digest.slice(0, 19)}…`, entry.uri);
    });

    const forms = "skill://pdf-processing/references/FORMS.md";
    await skillStep(page, `${paneSel("manifest")} tr[data-uri="${forms}"] [data-action="read-file"]`, "file");
    assert.equal(await page.$eval(`${paneSel("file")} .skill-file`, (n) => n.dataset.uri), forms);
    assert.equal(await page.$eval(`${paneSel("file")} .file-text`, (n) => n.textContent),
      fs.readFileSync(path.join(EVERYTHING_SKILLS, "pdf-processing/references/FORMS.md"), "utf8"));
    assert.equal(await page.$eval(`${cardSel("skills")} [data-field="skill-uri"]`, (n) => n.value), forms);

    await skillStep(page, `${pdf} [data-action="read-folder"]`, "folder");
    await skillStep(page, `${paneSel("folder")} .folder-entry[data-uri="skill://pdf-processing/templates"] [data-action="read-folder"]`, "folder");
    const entries = await page.$$eval(`${paneSel("folder")} .folder-entry`, (items) => items.map((i) => ({
      uri: i.dataset.uri, entry: i.dataset.entry, name: i.querySelector(".entry-name").textContent,
    })));
    assert.deepEqual(entries, [
      { uri: "skill://pdf-processing/templates/invoice.md", entry: "file", name: "invoice.md" },
      { uri: "skill://pdf-processing/templates/purchase-order.md", entry: "file", name: "purchase-order.md" },
      { uri: "skill://pdf-processing/templates/regional", entry: "folder", name: "regional/" },
    ]);
    await shot(page, "everything-skills.png", cardSel("skills"));

    const logo = "skill://pdf-processing/assets/logo.png";
    await skillStep(page, `${paneSel("manifest")} tr[data-uri="${logo}"] [data-action="read-file"]`, "file");
    const bytes = fs.statSync(path.join(EVERYTHING_SKILLS, "pdf-processing/assets/logo.png")).size;
    assert.equal(await page.$eval(`${paneSel("file")} .file-blob`, (n) => n.textContent), `binary, image/png, ${bytes} bytes (not shown)`);

    // An unknown skill: the server's -32602 shows in the manifest pane; the card goes on.
    const missing = "skill://no-such-skill/SKILL.md";
    await fill(page, `${cardSel("skills")} [data-field="skill-uri"]`, missing);
    assert.match(await skillStep(page, top("get-skill"), "manifest", "error"), /^skills\/get: error -32602/);
    assert.equal(await page.$$eval(`${paneSel("manifest")} tbody tr`, (rows) => rows.length), 0);
    await skillStep(page, `${paneSel("list")} .skill[data-uri="skill://acme/billing/refunds/SKILL.md"] [data-action="get-skill"]`, "manifest");
    assert.equal(await page.$$eval(`${paneSel("manifest")} tbody tr`, (rows) => rows.length), 2);
    assert.equal(await page.$$eval(`${paneSel("list")} .skill`, (items) => items.length), 2);

    // Every request of the card is in the transcript, answered by the envelope after it.
    const shown = await transcript(page);
    const asked = shown.map((e, i) => [e, i]).filter(([e]) => e.direction === "client→server"
      && /^(skills\/|resources\/read|resources\/directory\/read)/.test(e.json.method));
    assert.deepEqual([...new Set(asked.map(([e]) => e.json.method))].sort(),
      ["resources/directory/read", "resources/read", "skills/get", "skills/list"]);
    for (const [envelope, i] of asked) {
      const answer = shown[i + 1];
      assert.equal(answer.direction, "server→client", envelope.json.method);
      assert.equal(answer.json.id, envelope.json.id, envelope.json.method);
    }
    const refused = asked.find(([e]) => e.json.method === "skills/get" && e.json.params.uri === missing);
    assert.equal(shown[refused[1] + 1].json.error.code, -32602);
    const cardRequests = sent.filter((r) => r.method.startsWith("skills/") || r.method.startsWith("resources/"));
    assert.equal(cardRequests.length, asked.length);
    for (const r of cardRequests) assert.equal(r.authorization, `Bearer ${token}`, r.method);
    assert.equal(await stepStatus(page, "tools"), "waiting", "the trace is undisturbed");
    assert.deepEqual(page.external, [], "no request left the server's origin");
    await page.close();
  });

  const apps = await startServer(APPS, ["--audit"]);

  await check("apps: show_board renders the board in its sandbox; the view's move_card waits for a host grant, approved once, denied once", async () => {
    const page = await openLab(browser, apps);
    const token = "lab-apps-secret-token";
    const sent = [];
    page.on("request", (request) => {
      const headers = request.headers();
      if (headers["mcp-method"]) sent.push({ call: `${headers["mcp-method"]} ${headers["mcp-name"] || ""}`.trim(), authorization: headers.authorization });
    });
    await fill(page, "#token", token);
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    await listApps(page);
    assert.deepEqual(await page.$$eval(`${cardSel("apps")} .pick option`, (o) => o.map((x) => x.textContent)), ["add_card", "show_board", "chart"]);
    assert.match(await page.$eval(`${cardSel("apps")} > .note`, (n) => n.textContent), /Only views may call move_card/);

    let frame = await runApp(page, "show_board");
    await boardReady(page, frame);
    assert.deepEqual(await boardOf(frame), { todo: ["#1 Write the release notes"], doing: ["#2 Review the board view"], done: ["#3 Set up the chart"] });
    // The host's side of the handshake, in order: nothing is sent to the view before initialized.
    const log = await viewLog(page);
    const order = log.map((e) => `${e.direction} ${e.label}`);
    const at = (entry) => order.indexOf(entry);
    assert.deepEqual(order.slice(0, 3), ["view→host ui/notifications/sandbox-proxy-ready", "host→view ui/notifications/sandbox-resource-ready", "view→host ui/initialize"]);
    assert.ok(at("view→host ui/notifications/initialized") < at("host→view ui/notifications/tool-input"), order.join("\n"));
    assert.ok(at("host→view ui/notifications/tool-input") < at("host→view ui/notifications/tool-result"), order.join("\n"));
    const init = log[at("view→host ui/initialize") + 1].json.result;
    assert.equal(init.protocolVersion, "2026-01-26");
    assert.deepEqual(init.hostCapabilities, { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} });
    assert.equal(init.hostContext.displayMode, "inline");
    assert.equal(init.hostContext.theme, "light");
    assert.equal(init.hostContext.toolInfo.tool.name, "show_board");
    assert.ok(init.hostContext.containerDimensions.width > 0);
    const shownResult = log[at("host→view ui/notifications/tool-result")].json.params;
    let shown = await transcript(page);
    const hostCall = shown.find((e) => e.json && e.json.method === "tools/call" && e.json.params.name === "show_board");
    assert.deepEqual(shownResult, shown.find((e) => e.json && e.json.id === hostCall.json.id && e.direction === "server→client").json.result,
      "the view gets the CallToolResult as received");
    assert.ok(shown.some((e) => e.json && e.json.method === "resources/read" && e.json.params.uri === "ui://board/board.html"));
    assert.ok(log.some((e) => e.label === "ui/notifications/size-changed"), "the view reported its size");
    assert.notEqual(await page.$eval(`${cardSel("apps")} .app-frame`, (f) => f.style.height), "320px", "the frame took the view's height");

    // Approved: the card moves, and the view's tools/call is in the transcript with its answer.
    await frame.click('.card[data-id="1"] button[data-to="doing"]');
    let ask = await waitAsk(page, "waiting");
    assert.deepEqual(JSON.parse(await page.$eval(`${ask} .ask-detail`, (n) => n.textContent)), { id: 1, to: "doing" });
    await page.click(`${ask} [data-action="approve"]`);
    await frame.waitForSelector('section[data-column="doing"] .card[data-id="1"]', { timeout: STEP_TIMEOUT });
    await fitted(page, frame);
    assert.deepEqual(await boardOf(frame), { todo: [], doing: ["#1 Write the release notes", "#2 Review the board view"], done: ["#3 Set up the chart"] });
    shown = await transcript(page);
    let moves = shown.filter((e) => e.json && e.json.method === "tools/call" && e.json.params.name === "move_card");
    assert.equal(moves.length, 1);
    assert.equal(moves[0].via, "view");
    assert.deepEqual(moves[0].json.params.arguments, { id: 1, to: "doing" });
    const moved = shown.find((e) => e.direction === "server→client" && e.json && e.json.id === moves[0].json.id);
    assert.equal(moved.via, "view");
    assert.deepEqual(moved.json.result.structuredContent.cards.map((c) => [c.id, c.column]), [[1, "doing"], [2, "doing"], [3, "done"]]);

    // Denied: the view shows the refusal, and no tools/call leaves the page.
    await frame.click('.card[data-id="2"] button[data-to="done"]');
    ask = await waitAsk(page, "waiting");
    await page.click(`${ask} [data-action="deny"]`);
    // Polled by time: a frame out of sight (the ask scrolled into view) runs no animation frames.
    await frame.waitForFunction(() => document.getElementById("status").textContent !== "", { timeout: STEP_TIMEOUT, polling: 100 });
    assert.match(await frame.$eval("#status", (n) => n.textContent), /^refused: .*denied tools\/call move_card/);
    await fitted(page, frame);
    assert.equal(await page.$eval(`${cardSel("apps")} .ask[data-status="denied"] .ask-status`, (n) => n.textContent), "Host grant: denied · no tools/call sent");
    moves = (await transcript(page)).filter((e) => e.json && e.json.method === "tools/call" && e.json.params.name === "move_card");
    assert.equal(moves.length, 1, "the denied call is not in the transcript");
    assert.deepEqual(sent.filter((r) => r.call === "tools/call move_card").length, 1, "one move_card reached the server");

    // ui/message and ui/open-link are shown to the person, and answered {}.
    await frame.click("#share");
    await page.waitForSelector(`${cardSel("apps")} .ask[data-method="ui/message"]`, { timeout: STEP_TIMEOUT });
    assert.equal(await page.$eval(`${cardSel("apps")} .ask[data-method="ui/message"] .ask-detail`, (n) => n.textContent),
      "In progress on the board: Write the release notes, Review the board view");
    await frame.click("#help");
    await page.waitForSelector(`${cardSel("apps")} .ask[data-method="ui/open-link"] [data-action="open-link"]`, { timeout: STEP_TIMEOUT });
    assert.equal(await page.$eval(`${cardSel("apps")} .ask[data-method="ui/open-link"] .ask-detail`, (n) => n.textContent),
      "https://en.wikipedia.org/wiki/Kanban_board");
    const answers = (await viewLog(page)).filter((e) => e.direction === "host→view" && e.json && e.json.id !== undefined && !e.json.method);
    const replyTo = async (method) => {
      const all = await viewLog(page);
      const asked = all.filter((e) => e.direction === "view→host" && e.json && e.json.method === method);
      return all.find((e) => e.direction === "host→view" && e.json && e.json.id === asked[asked.length - 1].json.id && !e.json.method).json;
    };
    assert.ok(answers.length > 0);
    assert.deepEqual((await replyTo("ui/message")).result, {});
    assert.deepEqual((await replyTo("ui/open-link")).result, {});
    await frame.waitForFunction(() => true);

    await page.$eval(`${cardSel("apps")} .view`, (n) => n.scrollIntoView());
    await new Promise((resolve) => setTimeout(resolve, 300));
    await shot(page, "apps-board.png", `${cardSel("apps")} .view`, { inViewport: true });

    // The frame cannot reach the page, its DOM or its token; it cannot fetch anything either.
    const lab = new URL(apps.lab);
    const probe = await frame.evaluate(async (labUrl, mcpUrl, secret) => {
      const attempt = (f) => {
        try {
          f();
          return "allowed";
        } catch (error) {
          return error.name;
        }
      };
      const fetched = (url) => fetch(url, { method: "GET" }).then(() => "fetched", (e) => e.name);
      const violated = [];
      document.addEventListener("securitypolicyviolation", (e) => violated.push(e.effectiveDirective));
      const result = {
        origin: window.origin,
        parent: attempt(() => window.parent.document.body.innerHTML),
        top: attempt(() => window.top.document.body.innerHTML),
        token: attempt(() => window.top.document.getElementById("token").value),
        topLocation: attempt(() => window.top.location.href),
        storage: attempt(() => window.localStorage.length),
        inView: document.documentElement.outerHTML.includes(secret),
        lab: await fetched(labUrl),
        endpoint: await fetched(mcpUrl),
        elsewhere: await fetched("https://example.com/"),
      };
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { ...result, violated };
    }, apps.lab, apps.mcp, token);
    assert.deepEqual(probe, {
      origin: "null", parent: "SecurityError", top: "SecurityError", token: "SecurityError", topLocation: "SecurityError",
      storage: "SecurityError", inView: false, lab: "TypeError", endpoint: "TypeError", elsewhere: "TypeError",
      violated: ["connect-src", "connect-src", "connect-src"],
    }, "the view's policy refused each fetch");
    const sandbox = frame.parentFrame();
    assert.equal(new URL(sandbox.url()).origin, `http://localhost:${lab.port}`, "the sandbox is on the other loopback name");
    assert.equal(await sandbox.evaluate(() => {
      try {
        return window.parent.document.title;
      } catch (error) {
        return error.name;
      }
    }), "SecurityError");
    for (const r of sent) assert.equal(r.authorization, `Bearer ${token}`, r.call);
    assert.deepEqual(page.external.filter((url) => !url.startsWith(`http://localhost:${lab.port}/lab/sandbox`)), [],
      "nothing left the page's origin but its view sandbox");

    // The board later, through show_board: the denied move never happened. Replacing the view
    // tears the old one down first.
    frame = await runApp(page, "show_board");
    await boardReady(page, frame);
    assert.deepEqual(await boardOf(frame), { todo: [], doing: ["#1 Write the release notes", "#2 Review the board view"], done: ["#3 Set up the chart"] });
    assert.ok(tornDown(await viewLog(page, true), 1), "the replaced view was sent ui/resource-teardown, and answered");
    // The view's form (its submit handler runs; a form never navigates the sandbox).
    await frame.type("#title", "Ship it");
    await frame.click("#add button");
    ask = await waitAsk(page, "waiting");
    assert.deepEqual(JSON.parse(await page.$eval(`${ask} .ask-detail`, (n) => n.textContent)), { title: "Ship it" });
    await page.click(`${ask} [data-action="approve"]`);
    await frame.waitForSelector('section[data-column="todo"] .card[data-id="4"]', { timeout: STEP_TIMEOUT });
    assert.deepEqual((await boardOf(frame)).todo, ["#4 Ship it"]);
    await page.click(`${cardSel("apps")} [data-action="close-view"]`);
    await page.waitForSelector(`${cardSel("apps")} .view[data-state="closed"]`, { timeout: STEP_TIMEOUT });
    assert.ok(tornDown(await viewLog(page, true), 2), "the closed view was sent ui/resource-teardown, and answered");
    assert.equal(await page.$$eval(`${cardSel("apps")} .app-frame`, (f) => f.length), 0);
    assert.equal(await stepStatus(page, "tools"), "waiting", "the trace is undisturbed");
    await page.close();
  });

  await check("apps: the board's read of board://guide (not a view) waits for a grant: denied, nothing reaches the server and the view is refused; approved, it is read", async () => {
    const page = await openLab(browser, apps);
    const sent = [];
    page.on("request", (request) => {
      const headers = request.headers();
      if (headers["mcp-method"]) sent.push(`${headers["mcp-method"]} ${headers["mcp-name"] || ""}`.trim());
    });
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    await listApps(page);
    const frame = await runApp(page, "show_board");
    await boardReady(page, frame);
    const mark = apps.stderr.length;
    const guideReads = async () => (await transcript(page))
      .filter((e) => e.json && e.json.method === "resources/read" && e.json.params.uri === "board://guide");
    const serverReads = () => auditSince(apps, mark).filter((l) => l.startsWith("audit: resources/read "));

    // Denied: the person is shown the exact URI; nothing is sent; the view gets the refusal.
    await frame.click("#guide");
    let ask = await waitAsk(page, "waiting", "resources/read");
    assert.equal(await page.$eval(`${ask} .ask-detail`, (n) => n.textContent), "board://guide");
    assert.match(await page.$eval(`${ask} .ask-text`, (n) => n.textContent), /asks to read a resource that is not a view/);
    assert.deepEqual(await guideReads(), [], "nothing is sent before the grant");
    await page.click(`${ask} [data-action="deny"]`);
    // Polled by time: a frame out of sight (the ask scrolled into view) runs no animation frames.
    await frame.waitForFunction(() => document.getElementById("status").textContent !== "", { timeout: STEP_TIMEOUT, polling: 100 });
    assert.equal(await frame.$eval("#status", (n) => n.textContent), "refused: The host denied resources/read board://guide");
    assert.equal(await frame.$eval("#guide-text", (n) => n.hidden), true);
    const denied = `${cardSel("apps")} .ask[data-method="resources/read"][data-status="denied"]`;
    assert.equal(await page.$eval(`${denied} .ask-status`, (n) => n.textContent), "Host grant: denied · no resources/read sent");
    assert.equal(await page.$$eval(`${denied} [data-action]`, (b) => b.length), 0, "a decided grant has no buttons");
    assert.deepEqual(await guideReads(), [], "no resources/read in the transcript");
    assert.ok(!sent.includes("resources/read board://guide"), "no resources/read left the page");
    assert.deepEqual(serverReads(), [], "the server received no read");

    // Approved: read once, its answer to the view, which shows the guide.
    await frame.click("#guide");
    ask = await waitAsk(page, "waiting", "resources/read");
    await page.click(`${ask} [data-action="approve"]`);
    try {
      await frame.waitForFunction(() => !document.getElementById("guide-text").hidden || document.getElementById("status").textContent !== "",
        { timeout: STEP_TIMEOUT, polling: 100 });
    } catch {
      const asks = await page.$$eval(`${cardSel("apps")} .ask`, (items) => items.map((i) => `${i.dataset.method} ${i.dataset.status}: ${i.querySelector(".ask-status").textContent}`));
      const log = (await viewLog(page)).map((e) => `${e.direction} ${e.label}`);
      throw new Error(`the view showed neither the guide nor a refusal; asks: ${JSON.stringify(asks)}; its messages: ${log.join(", ")}`);
    }
    assert.equal(await frame.$eval("#status", (n) => n.textContent), "");
    assert.match(await frame.$eval("#guide-text", (n) => n.textContent), /^# The board\n\nCards go from todo to doing to done/);
    await waitAsk(page, "completed", "resources/read");
    const reads = await guideReads();
    assert.deepEqual(reads.map((e) => [e.direction, e.via]), [["client→server", "view"]], "one read, the view's");
    const answered = (await transcript(page)).find((e) => e.direction === "server→client" && e.json && e.json.id === reads[0].json.id);
    assert.equal(answered.json.result.contents[0].uri, "board://guide", "its answer is in the transcript");
    assert.equal(sent.filter((c) => c === "resources/read board://guide").length, 1);
    assert.deepEqual(serverReads(), ["audit: resources/read board://guide complete"], "the server received the approved read only");
    await page.close();
  });

  await check("apps: chart's raw-protocol view draws its bars (the page on localhost, its sandbox on 127.0.0.1); a failed call is tool-cancelled; what the view may not do is refused", async () => {
    const port = new URL(apps.lab).port;
    const page = await openLab(browser, apps, `http://localhost:${port}/lab`);
    assert.equal(await page.$eval('meta[name="mcp-sandbox"]', (m) => m.content), `http://127.0.0.1:${port}`);
    await page.click("#run");
    await waitStep(page, "tools", "waiting");
    await listApps(page);
    let frame = await runApp(page, "chart", { labels: '["north", "south", "east"]', values: "[30, 10, 20]" });
    await frame.waitForSelector(".row", { timeout: STEP_TIMEOUT });
    assert.equal(new URL(frame.parentFrame().url()).origin, `http://127.0.0.1:${port}`);
    const bars = await frame.$$eval(".row", (rows) => rows.map((r) => [r.querySelector(".label").textContent,
      r.querySelector(".value").textContent, r.querySelector(".bar").style.width]));
    assert.deepEqual(bars, [["north", "30", "100%"], ["south", "10", "33.3333%"], ["east", "20", "66.6667%"]]);
    const log = await viewLog(page);
    assert.deepEqual(log.find((e) => e.label === "ui/notifications/tool-input").json.params, { arguments: { labels: ["north", "south", "east"], values: [30, 10, 20] } });
    // chart's view declares an empty csp: the policy is the restrictive one all the same.
    assert.match(await page.$eval(`${cardSel("apps")} .view-csp`, (n) => n.textContent), /csp, which the sandbox's policy enforces: \{\}/);
    // The sandbox's policy is the view's csp, each domain that could break it dropped.
    const csp = { connectDomains: ["https://api.example.com", "https://x.example.com; script-src *", "'unsafe-eval'"],
      resourceDomains: ["https://cdn.example.com", "https://a.example.com https://b.example.com"] };
    const served = await get(port, `localhost:${port}`, `/lab/sandbox?csp=${encodeURIComponent(JSON.stringify(csp))}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers["content-security-policy"], "default-src 'none'; "
      + "script-src 'unsafe-inline' https://cdn.example.com; style-src 'unsafe-inline' https://cdn.example.com; "
      + "img-src data: https://cdn.example.com; media-src data: https://cdn.example.com; font-src https://cdn.example.com; "
      + "connect-src https://api.example.com; frame-src 'none'; object-src 'none'; base-uri 'self'; form-action 'none'; "
      + `frame-ancestors http://127.0.0.1:${port}`);
    assert.equal((await get(port, `[::1]:${port}`, "/lab/sandbox")).status, 400, "no sandbox for a page on [::1]");

    // Requests the view may not make, sent by hand from inside the frame.
    const asked = await frame.evaluate(async () => {
      const ask = (id, method, params) => new Promise((resolve) => {
        const listen = (event) => {
          if (event.source === window.parent && event.data && event.data.id === id) {
            window.removeEventListener("message", listen);
            resolve(event.data.error || event.data.result);
          }
        };
        window.addEventListener("message", listen);
        window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
      });
      return {
        unlisted: await ask("t1", "tools/call", { name: "no_such_tool", arguments: {} }),
        unknown: await ask("t2", "ui/no-such-method", {}),
        script: await ask("t3", "ui/open-link", { url: "javascript:alert(1)" }),
        ping: await ask("t4", "ping", {}),
        mode: await ask("t5", "ui/request-display-mode", { mode: "fullscreen" }),
        read: await ask("t6", "resources/read", { uri: "ui://chart/chart.html" }),
      };
    });
    assert.equal(asked.unlisted.code, -32000);
    assert.match(asked.unlisted.message, /no_such_tool/);
    assert.equal(asked.unknown.code, -32601);
    assert.equal(asked.script.code, -32000);
    assert.deepEqual(asked.ping, {});
    assert.deepEqual(asked.mode, { mode: "inline" });
    assert.equal(asked.read.contents[0].uri, "ui://chart/chart.html");
    const refused = await page.$$eval(`${cardSel("apps")} .ask[data-status="refused"]`, (items) => items.map((i) => i.dataset.method));
    assert.deepEqual(refused, ["tools/call", "ui/open-link"], "refused without asking");
    const shown = await transcript(page);
    assert.ok(!shown.some((e) => e.json && e.json.params && e.json.params.name === "no_such_tool"), "nothing sent for a refused call");
    const read = shown.find((e) => e.via === "view" && e.json && e.json.method === "resources/read");
    assert.equal(read.json.params.uri, "ui://chart/chart.html", "the view's read is in the transcript");
    // A tool whose visibility leaves out "app" (as if the server had listed chart so) is refused
    // to the view without asking.
    await page.evaluate(() => {
      apps.tools.find((t) => t.name === "chart")._meta.ui.visibility = ["model"];
    });
    const modelOnly = await frame.evaluate(() => new Promise((resolve) => {
      window.addEventListener("message", (event) => {
        if (event.source === window.parent && event.data && event.data.id === "t7") resolve(event.data.error);
      });
      window.parent.postMessage({ jsonrpc: "2.0", id: "t7", method: "tools/call", params: { name: "chart", arguments: { labels: ["a"], values: [1] } } }, "*");
    }));
    assert.equal(modelOnly.code, -32000);
    assert.match(modelOnly.message, /visibility is \["model"\]/);
    assert.equal(await page.$$eval(`${cardSel("apps")} .ask [data-action="approve"]`, (b) => b.length), 0, "no grant was asked");
    assert.equal((await transcript(page)).filter((e) => e.json && e.json.method === "tools/call" && e.json.params.name === "chart").length, 1,
      "only the page's own call of chart");
    // Its own read (t6) went without asking, and so does a read of the board's view, another
    // view this server's tools link to.
    const viewReads = `${cardSel("apps")} .ask[data-method="resources/read"]`;
    assert.deepEqual(await page.$$eval(viewReads, (items) => items.map((i) => i.dataset.status)), ["completed"]);
    const board = await askFromView(frame, "t8", "resources/read", { uri: "ui://board/board.html" });
    assert.equal(board.contents[0].uri, "ui://board/board.html");
    assert.equal(await page.$$eval(`${cardSel("apps")} .ask [data-action="approve"]`, (b) => b.length), 0, "no grant was asked");
    // A ui:// URI no tool links to is not one of its views: it waits for the grant; denied,
    // nothing is sent.
    const server = () => apps.stderr.length;
    let mark = server();
    let answer = askFromView(frame, "t9", "resources/read", { uri: "ui://chart/unlinked.html" });
    let ask = await waitAsk(page, "waiting", "resources/read");
    assert.equal(await page.$eval(`${ask} .ask-detail`, (n) => n.textContent), "ui://chart/unlinked.html");
    await page.click(`${ask} [data-action="deny"]`);
    assert.deepEqual(await answer, { code: -32000, message: "The host denied resources/read ui://chart/unlinked.html" });
    assert.ok(!(await transcript(page)).some((e) => e.json && e.json.params && e.json.params.uri === "ui://chart/unlinked.html"), "nothing sent");
    assert.deepEqual(auditSince(apps, mark).filter((l) => l.includes("resources/read")), []);
    // A resource that is not a view, approved: read, and answered as the server answered.
    mark = server();
    answer = askFromView(frame, "t10", "resources/read", { uri: "board://guide" });
    ask = await waitAsk(page, "waiting", "resources/read");
    await page.click(`${ask} [data-action="approve"]`);
    assert.equal((await answer).contents[0].mimeType, "text/markdown");
    assert.deepEqual(auditSince(apps, mark).filter((l) => l.includes("resources/read")), ["audit: resources/read board://guide complete"]);

    // A call the server refuses: the view is told tool-cancelled, with the reason.
    frame = await runApp(page, "chart", { labels: '["one"]', values: "[1, 2]" });
    await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].some((e) => e.dataset.label === "ui/notifications/tool-cancelled"),
      { timeout: STEP_TIMEOUT }, `${cardSel("apps")} .view-log .envelope`);
    const cancelled = (await viewLog(page)).find((e) => e.label === "ui/notifications/tool-cancelled");
    assert.match(cancelled.json.params.reason, /^error -32602: give 1 to 50 labels/);
    assert.equal(await page.$eval(`${cardSel("apps")} .view-call`, (n) => n.dataset.status), "error");
    await page.close();
  });

  await check("a server that gives the same nextCursor again: the page stops listing and says so", async () => {
    const page = await openLab(browser, apps);
    await page.setRequestInterception(true);
    let pages = 0;
    page.on("request", (request) => {
      if (request.headers()["mcp-method"] !== "tools/list") {
        request.continue();
        return;
      }
      pages += 1;
      const { id } = JSON.parse(request.postData());
      const result = { resultType: "complete", tools: [{ name: `tool_${pages}`, inputSchema: { type: "object" } }], nextCursor: "page-2" };
      request.respond({ status: 200, contentType: "application/json", body: JSON.stringify({ jsonrpc: "2.0", id, result }) });
    });
    await page.click("#run");
    await waitStep(page, "tools", "error");
    assert.equal(pages, 2, "the first page, then the page of its cursor, whose cursor is the same");
    assert.equal(await page.$eval(`${stepSel("tools")} .detail`, (n) => n.textContent),
      'tools/list: the server gave the cursor "page-2" a second time (after 2 pages): stopped');
    await waitStep(page, "resources", "waiting");
    await page.close();
  });

  await check("CORS: a page on another loopback origin calls the endpoint; one on a foreign origin is refused", async () => {
    const site = await serveSite();
    try {
      const page = await browser.newPage();
      page.on("pageerror", (error) => {
        throw new Error(`page error: ${error.message}`);
      });
      await page.goto(`http://127.0.0.1:${site.port}/`, { waitUntil: "load" });
      const allowed = await page.evaluate(corsCalls, apps.mcp);
      assert.equal(allowed.list.status, 200);
      assert.deepEqual(allowed.list.body.result.tools.map((t) => t.name).sort(), ["add_card", "chart", "move_card", "show_board"]);
      assert.equal(allowed.init.status, 200);
      assert.equal(allowed.init.body.result.protocolVersion, "2025-11-25");
      assert.match(allowed.init.session || "", /^\S+$/, "the page reads Mcp-Session-Id");
      assert.equal(allowed.initialized, 202, "and sends it back");
      await page.goto(`http://evil.test:${site.port}/`, { waitUntil: "load" });
      const foreign = await page.evaluate(corsCalls, apps.mcp);
      assert.deepEqual(foreign, { list: { error: "TypeError" }, init: { error: "TypeError" }, initialized: "TypeError" });
      const refused = await fetch(apps.mcp, {
        method: "OPTIONS",
        headers: { Origin: `http://evil.test:${site.port}`, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
      });
      assert.equal(refused.status, 403, "the preflight itself is refused");
      await page.close();
    } finally {
      site.server.close();
    }
  });
} finally {
  await browser.close();
  stopServers();
}

fs.writeFileSync(path.join(OUT, "results.txt"), `${results.join("\n")}\n`);
console.log(`\n${results.join("\n")}`);
process.exit(results.some((r) => r.startsWith("FAIL")) ? 1 : 0);
