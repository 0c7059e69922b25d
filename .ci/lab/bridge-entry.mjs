// The MCP Apps host of bridge-test.mjs, bundled for the browser with esbuild when the test starts
// and loaded by bridge-host.html. It is built only from the official SDKs: the `Client` and its
// `StreamableHTTPClientTransport` of @modelcontextprotocol/client talk to the server, and the
// `AppBridge` of @modelcontextprotocol/ext-apps talks to each view over a `PostMessageTransport`.
//
// window.host.connect(url) connects the client (initialize, then tools/list);
// window.host.render(name, args) renders a tool's view the way a host does: reads the resource
// its `_meta.ui.resourceUri` names, puts the HTML in a sandboxed frame, connects an AppBridge
// (whose client forwards the view's tools/call and resources/read to the server), waits for the
// view's ui/notifications/initialized, then sends the tool's input and the result of calling the
// tool. Each view's size-changed notifications resize its frame. What happened is in
// window.host.events, for the test to read.

import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, buildAllowAttribute } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const HOST_INFO = { name: "bridge-test-host", version: "1.0.0" };
const FRAME_WIDTH = 720;
const INITIALIZE_TIMEOUT = 15_000;

let client = null;
const tools = new Map();
const events = [];
let views = 0;

function withTimeout(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function connect(url) {
  client = new Client(HOST_INFO, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  tools.clear();
  let cursor;
  for (let pages = 0; pages < 20; pages++) {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    for (const tool of page.tools) tools.set(tool.name, tool);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return {
    server: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    tools: [...tools.values()].map((t) => ({ name: t.name, resourceUri: t._meta?.ui?.resourceUri ?? null })),
  };
}

// An origin a view's csp may name: a scheme, a host (maybe a wildcard) and a port, nothing else.
const ORIGIN = /^(https?|wss?):\/\/[A-Za-z0-9*.-]+(:\d+)?$/;

// The view's content security policy, from its `_meta.ui.csp`: nothing from the network unless
// the server named the origins.
function policy(csp = {}) {
  const list = (domains) => (Array.isArray(domains) ? domains.filter((d) => typeof d === "string" && ORIGIN.test(d)) : []);
  const resources = list(csp.resourceDomains).join(" ");
  const connects = list(csp.connectDomains).join(" ") || "'none'";
  const frames = list(csp.frameDomains).join(" ") || "'none'";
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`,
    `style-src 'unsafe-inline' ${resources}`,
    `img-src data: blob: ${resources}`,
    `font-src data: ${resources}`,
    `media-src data: ${resources}`,
    `connect-src ${connects}`,
    `frame-src ${frames}`,
    "base-uri 'none'",
  ].join("; ");
}

function withPolicy(html, csp) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(csp).replace(/"/g, "&quot;")}">`;
  const head = html.match(/<head[^>]*>/i);
  return head ? html.replace(head[0], `${head[0]}${meta}`) : `${meta}${html}`;
}

function text(content) {
  if (typeof content.text === "string") return content.text;
  const bytes = Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

async function render(name, args = {}) {
  if (!client) throw new Error("not connected");
  const tool = tools.get(name);
  if (!tool) throw new Error(`the server lists no tool ${name}`);
  const uri = tool._meta?.ui?.resourceUri;
  if (typeof uri !== "string" || !uri.startsWith("ui://")) throw new Error(`${name} links to no view (_meta.ui.resourceUri)`);

  const read = await client.readResource({ uri });
  const content = read.contents.find((c) => c.uri === uri);
  if (!content) throw new Error(`resources/read ${uri} gave no content for that URI`);
  if (content.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`${uri} is ${content.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  const ui = content._meta?.ui ?? {};

  const n = ++views;
  const id = `view-${n}`;
  const log = (kind, detail) => events.push({ view: id, tool: name, kind, detail, at: Date.now() });
  const figure = document.createElement("figure");
  figure.dataset.tool = name;
  const caption = document.createElement("figcaption");
  caption.textContent = `${name} ${JSON.stringify(args)} → ${uri}`;
  const iframe = document.createElement("iframe");
  iframe.id = id;
  iframe.title = `${name}: ${uri}`;
  iframe.setAttribute("sandbox", "allow-scripts");
  const allow = buildAllowAttribute(ui.permissions);
  if (allow) iframe.setAttribute("allow", allow);
  iframe.style.width = `${FRAME_WIDTH}px`;
  iframe.style.height = "120px";
  iframe.style.border = ui.prefersBorder === false ? "0" : "1px solid #c9d0da";
  figure.append(caption, iframe);
  document.getElementById("views").append(figure);

  const bridge = new AppBridge(client, HOST_INFO, {
    serverTools: {},
    serverResources: {},
    openLinks: {},
    message: { text: {} },
    logging: {},
    sandbox: { csp: ui.csp ?? {} },
  }, {
    hostContext: {
      toolInfo: { tool },
      theme: "light",
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      containerDimensions: { width: FRAME_WIDTH, maxHeight: 2000 },
      platform: "web",
      locale: "en-US",
    },
  });
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = () => {
      log("initialized", bridge.getAppVersion() ?? null);
      resolve();
    };
  });
  bridge.onsizechange = ({ width, height }) => {
    log("size-changed", { width, height });
    if (typeof height === "number" && height > 0) iframe.style.height = `${Math.ceil(height)}px`;
  };
  bridge.onmessage = async (params) => {
    log("message", params);
    return {};
  };
  bridge.onopenlink = async (params) => {
    log("open-link", params);
    return {};
  };
  bridge.onloggingmessage = (params) => log("logging", params);

  // The bridge listens before the frame has its document, so the view's ui/initialize is heard.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = withPolicy(text(content), ui.csp);

  // The tool is called while the view starts; what it sends waits for the view's initialized.
  const called = client.callTool({ name, arguments: args });
  called.catch(() => {});
  await withTimeout(initialized, INITIALIZE_TIMEOUT, `${id} (${uri}): ui/notifications/initialized`);
  await bridge.sendToolInput({ arguments: args });
  log("tool-input", args);
  const result = await called;
  await bridge.sendToolResult(result);
  log("tool-result", { isError: result.isError ?? false });
  return { id, uri, result, app: bridge.getAppVersion() ?? null, appCapabilities: bridge.getAppCapabilities() ?? null };
}

// A tool called by the host itself (not through a view), to see the server's state.
async function call(name, args = {}) {
  return client.callTool({ name, arguments: args });
}

window.host = { connect, render, call, events };
document.body.dataset.ready = "";
