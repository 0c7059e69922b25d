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
//      answered, and carries the page's bearer token.
// Screenshots go to OUT_DIR; with --update-docs they are also copied into docs/lab/.
//
// Usage: node lab-test.mjs --acme PATH --study PATH --everything PATH --seed PATH [--out DIR]
//        [--update-docs]

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
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
const SEED = flag("--seed");
const OUT = flag("--out") || "target/lab-results";
const UPDATE_DOCS = args.includes("--update-docs");
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const DOCS = path.join(ROOT, "docs/lab");
const EVERYTHING_SKILLS = path.join(ROOT, "examples/everything/skills");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const STEP_TIMEOUT = 20_000;
if (!ACME || !STUDY || !EVERYTHING || !SEED) {
  console.error("usage: node lab-test.mjs --acme PATH --study PATH --everything PATH --seed PATH [--out DIR] [--update-docs]");
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

async function openLab(browser, server) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 1400 });
  page.on("pageerror", (error) => {
    throw new Error(`page error: ${error.message}`);
  });
  const external = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.origin !== new URL(server.lab).origin) external.push(request.url());
  });
  page.external = external;
  await page.goto(server.lab, { waitUntil: "load" });
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
    json: item.querySelector("pre.json") ? JSON.parse(item.querySelector("pre.json").textContent) : null,
    challenge: item.querySelector(".challenge") ? item.querySelector(".challenge").textContent : null,
  })));
}

async function shot(page, name, element) {
  const file = path.join(OUT, name);
  if (element) await (await page.$(element)).screenshot({ path: file });
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
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"],
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
} finally {
  await browser.close();
  stopServers();
}

fs.writeFileSync(path.join(OUT, "results.txt"), `${results.join("\n")}\n`);
console.log(`\n${results.join("\n")}`);
process.exit(results.some((r) => r.startsWith("FAIL")) ? 1 : 0);
