// The MCP laboratory: a 2026-07-28 client in the page. It speaks to the server's own endpoint
// only (same origin; the page's Content-Security-Policy allows nothing else), shows each envelope
// as sent and received, and asks the user, as the host, to grant each primitive separately. As
// an MCP Apps host it renders a tool's view in the view sandbox, a frame on another origin.
"use strict";

const ENDPOINT = document.querySelector('meta[name="mcp-endpoint"]').content;
const LAB_PATH = document.querySelector('meta[name="mcp-lab"]').content;
// The view sandbox's origin (this server on its other loopback name), or "" when there is none.
const SANDBOX = document.querySelector('meta[name="mcp-sandbox"]').content;
const KINDS = {
  tools: { list: "tools/list", items: "tools", call: "tools/call", noun: "tool", verb: "call" },
  resources: { list: "resources/list", items: "resources", call: "resources/read", noun: "resource", verb: "read" },
  prompts: { list: "prompts/list", items: "prompts", call: "prompts/get", noun: "prompt", verb: "get" },
};
const CAPABILITY = { tools: "tools", resources: "resources", prompts: "prompts" };

const lab = {
  nextId: 0,
  count: 0,
  running: false,
  listen: null,
  discovered: null,
};

// ---------------------------------------------------------------- small DOM helpers

function $(selector, root = document) {
  return root.querySelector(selector);
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function pretty(value) {
  return JSON.stringify(value, null, 2);
}

function setStatus(node, status, text) {
  node.dataset.status = status;
  const badge = node.classList.contains("badge") ? node : $(".badge", node);
  badge.textContent = text ?? status;
  if (!node.classList.contains("badge")) badge.dataset.status = status;
}

function step(name) {
  return $(`.steps li[data-step="${name}"]`);
}

function card(kind) {
  return $(`.primitive[data-kind="${kind}"]`);
}

// ---------------------------------------------------------------- the request's _meta and headers

function requestMeta(extra = {}) {
  const capabilities = {};
  if ($("#cap-roots").checked) capabilities.roots = {};
  if ($("#cap-sampling").checked) capabilities.sampling = {};
  if ($("#cap-elicitation").checked) capabilities.elicitation = { form: {} };
  if (extra.apps) capabilities.extensions = { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": $("#protocol-version").value.trim(),
    "io.modelcontextprotocol/clientInfo": {
      name: $("#client-name").value,
      version: $("#client-version").value,
    },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
  const level = $("#log-level").value;
  if (level && extra.streams) meta["io.modelcontextprotocol/logLevel"] = level;
  if (extra.progressToken !== undefined) meta.progressToken = extra.progressToken;
  return meta;
}

// The `_meta` of a call, read or get: with a progress token and a log level when asked for (one
// call of each kind runs at a time, so the kind's name keeps the token unique).
function callMeta(kind) {
  return requestMeta({ progressToken: $("#ask-progress").checked ? `lab-${kind}` : undefined, streams: true });
}

// A header value as the transport wants it: plain when it is safe visible ASCII, otherwise the
// Base64 sentinel form.
function headerValue(value) {
  const text = typeof value === "string" ? value : String(value);
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !/^=\?base64\?.*\?=$/i.test(text);
  if (plain) return text;
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `=?base64?${btoa(binary)}?=`;
}

// Tool arguments mirrored into Mcp-Param-* headers (properties annotated with x-mcp-header).
function paramHeaders(schema, args, headers) {
  const walk = (properties, values) => {
    if (!properties || !values || typeof values !== "object") return;
    for (const [key, sub] of Object.entries(properties)) {
      if (!sub || typeof sub !== "object") continue;
      const value = values[key];
      if (typeof sub["x-mcp-header"] === "string" && value !== undefined && value !== null
          && ["string", "number", "boolean"].includes(typeof value)) {
        headers[`Mcp-Param-${sub["x-mcp-header"]}`] = headerValue(value);
      }
      if (sub.properties) walk(sub.properties, value);
    }
  };
  walk(schema && schema.properties, args);
}

function requestHeaders(message, toolSchema) {
  const headers = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": message.params._meta["io.modelcontextprotocol/protocolVersion"],
    "Mcp-Method": message.method,
  };
  const p = message.params;
  if (message.method === "tools/call" || message.method === "prompts/get") headers["Mcp-Name"] = headerValue(p.name);
  if (message.method === "resources/read") headers["Mcp-Name"] = headerValue(p.uri);
  if (message.method === "tools/call" && toolSchema) paramHeaders(toolSchema, p.arguments, headers);
  const token = $("#token").value.trim();
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

// ---------------------------------------------------------------- the transcript

function record(list, direction, message, info = {}) {
  const n = ++info.counter.value;
  const label = info.label ?? (message && (message.method ?? (message.error ? "error" : "result")));
  const head = el("div", { class: "envelope-head" },
    el("span", { class: "n", text: String(n).padStart(2, "0") }),
    el("span", { class: "direction", text: direction }),
    el("span", { class: "label", text: label }));
  const item = el("li", { class: "envelope", "data-n": n, "data-direction": direction, "data-label": label }, head);
  if (info.via) {
    item.dataset.via = info.via;
    head.append(el("span", { class: "via", text: `for the ${info.via}` }));
  }
  if (info.http) item.append(el("p", { class: "http", text: info.http }));
  if (info.challenge) item.append(el("p", { class: "challenge", text: `WWW-Authenticate: ${info.challenge}` }));
  if (message) item.append(el("pre", { class: "json", text: pretty(message) }));
  else item.append(el("pre", { class: "raw", text: info.raw ?? "" }));
  list.append(item);
  return item;
}

const transcript = { value: 0 };
const listenCounter = { value: 0 };

function trace(direction, message, info = {}) {
  const item = record($("#transcript"), direction, message, { ...info, counter: transcript });
  const count = transcript.value;
  $("#envelope-count").textContent = `${count} exact envelope${count === 1 ? "" : "s"}`;
  item.scrollIntoView({ block: "nearest" });
  return item;
}

// ---------------------------------------------------------------- SSE

async function* sseEvents(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.search(/\r\n|\n|\r(?=[^\n])/)) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (line === "") {
        if (data.length) yield data.join("\n");
        data = [];
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
      }
    }
  }
  if (data.length) yield data.join("\n");
}

// ---------------------------------------------------------------- one request

// Sends one request to the endpoint and records both directions. Notifications on an SSE answer
// go to `onNotification` as they arrive. Resolves to { message } with the JSON-RPC response, or
// { failure } when the HTTP exchange produced none.
async function request(method, params, options = {}) {
  const id = ++lab.nextId;
  const message = { jsonrpc: "2.0", id, method, params };
  const headers = requestHeaders(message, options.toolSchema);
  const shown = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== "authorization")
    .map(([name, value]) => `${name}: ${value}`).join(" · ");
  const via = options.via;
  trace("client→server", message, { label: method, http: `POST ${ENDPOINT} · ${shown}`, via });
  let response;
  try {
    response = await fetch(ENDPOINT, {
      method: "POST", headers, body: JSON.stringify(message), signal: options.signal, cache: "no-store",
    });
  } catch (error) {
    const why = options.signal && options.signal.aborted ? "cancelled by the host" : `network error: ${error.message}`;
    return { failure: why, cancelled: options.signal && options.signal.aborted };
  }
  const http = `HTTP ${response.status} ${response.statusText}`.trim();
  const challenge = response.headers.get("www-authenticate");
  const type = response.headers.get("content-type") || "";
  try {
    if (type.startsWith("text/event-stream")) {
      for await (const data of sseEvents(response.body)) {
        let incoming;
        try {
          incoming = JSON.parse(data);
        } catch {
          trace("server→client", null, { label: "unparsable event", raw: data, http, via });
          continue;
        }
        if (incoming && incoming.id !== undefined && ("result" in incoming || "error" in incoming)) {
          trace("server→client", incoming, { http: `${http} · text/event-stream`, via });
          return { message: incoming, status: response.status };
        }
        trace("server→client", incoming, { http: "text/event-stream", via });
        if (options.onNotification) options.onNotification(incoming);
      }
      return { failure: "the event stream ended without a response" };
    }
    const text = await response.text();
    let incoming = null;
    try {
      incoming = JSON.parse(text);
    } catch {
      incoming = null;
    }
    if (incoming && typeof incoming === "object" && !Array.isArray(incoming)) {
      trace("server→client", incoming, { http, challenge, via });
      return { message: incoming, status: response.status, challenge };
    }
    trace("server→client", null, { label: http, raw: text, http, challenge, via });
    return { failure: `${http}${text ? `: ${text}` : ""}`, status: response.status, challenge };
  } catch (error) {
    const cancelled = options.signal && options.signal.aborted;
    return { failure: cancelled ? "cancelled by the host" : `stream error: ${error.message}`, cancelled };
  }
}

function errorText(message) {
  const e = message.error;
  return `error ${e.code}: ${e.message}`;
}

// ---------------------------------------------------------------- forms from JSON Schema

// One input per property of an object schema (a tool's inputSchema or an elicitation's
// requestedSchema). Nothing is refused here: a value that breaks the schema is sent as typed, so
// that the server's own error can be seen.
function schemaForm(container, schema, onChange) {
  container.replaceChildren();
  const properties = (schema && schema.properties) || {};
  const required = new Set((schema && schema.required) || []);
  const readers = [];
  // Required fields first, in the schema's `required` order; then the others.
  const names = [...required].filter((n) => n in properties)
    .concat(Object.keys(properties).filter((n) => !required.has(n)));
  for (const name of names) {
    const sub = properties[name];
    const spec = sub && typeof sub === "object" ? sub : {};
    const title = spec.title || name;
    const hints = [];
    if (required.has(name)) hints.push("required");
    if (spec.type) hints.push(Array.isArray(spec.type) ? spec.type.join("|") : spec.type);
    for (const key of ["minLength", "maxLength", "minimum", "maximum", "pattern", "format"]) {
      if (spec[key] !== undefined) hints.push(`${key} ${spec[key]}`);
    }
    const label = el("label", { class: "field" },
      el("span", { class: "field-name", text: `${title}${required.has(name) ? " *" : ""}` }));
    let input;
    let read;
    const options = choices(spec);
    const type = Array.isArray(spec.type) ? spec.type.find((t) => t !== "null") : spec.type;
    if (type === "array" && choices(spec.items || {})) {
      input = el("select", { multiple: true, "data-field": name });
      for (const [value, text] of choices(spec.items)) input.append(el("option", { value, text }));
      if (Array.isArray(spec.default)) for (const o of input.options) o.selected = spec.default.includes(o.value);
      read = () => [...input.selectedOptions].map((o) => o.value);
    } else if (options) {
      input = el("select", { "data-field": name });
      input.append(el("option", { value: "", text: required.has(name) ? "(choose)" : "(leave out)" }));
      for (const [value, text] of options) input.append(el("option", { value, text }));
      if (spec.default !== undefined) input.value = String(spec.default);
      read = () => (input.value === "" ? undefined : input.value);
    } else if (type === "boolean") {
      input = el("select", { "data-field": name });
      input.append(el("option", { value: "", text: "(leave out)" }), el("option", { value: "true", text: "true" }),
        el("option", { value: "false", text: "false" }));
      if (spec.default !== undefined) input.value = String(spec.default);
      read = () => (input.value === "" ? undefined : input.value === "true");
    } else if (type === "integer" || type === "number") {
      input = el("input", { "data-field": name, inputmode: "decimal", autocomplete: "off" });
      if (spec.default !== undefined) input.value = String(spec.default);
      read = () => {
        const text = input.value.trim();
        if (text === "") return undefined;
        const n = Number(text);
        return Number.isFinite(n) ? n : text;
      };
    } else if (type === "string" || type === undefined && !spec.properties) {
      input = el("input", { "data-field": name, autocomplete: "off" });
      if (typeof spec.default === "string") input.value = spec.default;
      read = () => (input.value === "" ? undefined : input.value);
    } else {
      input = el("textarea", { "data-field": name, rows: 3, placeholder: "JSON" });
      if (spec.default !== undefined) input.value = pretty(spec.default);
      read = () => {
        const text = input.value.trim();
        if (text === "") return undefined;
        try {
          return JSON.parse(text);
        } catch {
          return text;
        }
      };
    }
    input.addEventListener("input", onChange);
    input.addEventListener("change", onChange);
    label.append(input, el("span", { class: "hint", text: [spec.description, hints.join(", ")].filter(Boolean).join(" — ") }));
    container.append(label);
    readers.push([name, read]);
  }
  if (!readers.length) container.append(el("p", { class: "hint", text: "No arguments." }));
  return () => {
    const out = {};
    for (const [name, read] of readers) {
      const value = read();
      if (value !== undefined) out[name] = value;
    }
    return out;
  };
}

// The values a string schema allows, as [value, label] pairs, or null.
function choices(spec) {
  if (Array.isArray(spec.enum)) {
    const names = Array.isArray(spec.enumNames) ? spec.enumNames : [];
    return spec.enum.map((v, i) => [String(v), names[i] ? `${names[i]} (${v})` : String(v)]);
  }
  const alternatives = spec.oneOf || spec.anyOf;
  if (Array.isArray(alternatives) && alternatives.length && alternatives.every((a) => a && "const" in a)) {
    return alternatives.map((a) => [String(a.const), a.title ? `${a.title} (${a.const})` : String(a.const)]);
  }
  return null;
}

// A prompt's arguments: one text field each.
function promptForm(container, args, onChange) {
  const properties = {};
  const required = [];
  for (const a of args || []) {
    properties[a.name] = { type: "string", title: a.title || a.name, description: a.description };
    if (a.required) required.push(a.name);
  }
  return schemaForm(container, { type: "object", properties, required }, onChange);
}

// ---------------------------------------------------------------- host grants

function waitForGrant(kind) {
  const box = card(kind);
  const approve = $('[data-action="approve"]', box);
  const deny = $('[data-action="deny"]', box);
  approve.disabled = false;
  deny.disabled = false;
  return new Promise((resolve) => {
    const done = (choice) => {
      approve.disabled = true;
      deny.disabled = true;
      approve.removeEventListener("click", onApprove);
      deny.removeEventListener("click", onDeny);
      resolve(choice);
    };
    const onApprove = () => done("approved");
    const onDeny = () => done("denied");
    approve.addEventListener("click", onApprove);
    deny.addEventListener("click", onDeny);
  });
}

// The params of the kind's call for the chosen item, without `_meta`.
function callParams(kind, box) {
  const chosen = box.chosen;
  if (!chosen) return {};
  if (kind === "resources") return { uri: $('[data-field="uri"]', box).value };
  if (chosen.other) return { name: $('[data-other="name"]', box).value, arguments: box.readArguments() };
  return { name: chosen.name, arguments: box.readArguments() };
}

function showPayload(kind) {
  const box = card(kind);
  const params = callParams(kind, box);
  $(".payload", box).textContent = pretty({ method: KINDS[kind].call, params: { ...params, _meta: callMeta(kind) } });
}

function choose(kind, item) {
  const box = card(kind);
  box.chosen = item;
  $(".description", box).textContent = item ? [item.title, item.description].filter(Boolean).join(" — ") : "";
  const form = $(".form", box);
  const update = () => showPayload(kind);
  if (!item) {
    form.replaceChildren();
    box.readArguments = () => ({});
  } else if (item.other) {
    // A name the server did not list: to see how it answers a tool or prompt it hides or lacks.
    const name = el("input", { "data-other": "name", autocomplete: "off" });
    const args = el("textarea", { "data-other": "arguments", rows: 4 });
    args.value = "{}";
    name.addEventListener("input", update);
    args.addEventListener("input", update);
    form.replaceChildren(
      el("label", { class: "field" }, el("span", { class: "field-name", text: "name *" }), name,
        el("span", { class: "hint", text: `a ${KINDS[kind].noun} name the list did not show` })),
      el("label", { class: "field" }, el("span", { class: "field-name", text: "arguments" }), args,
        el("span", { class: "hint", text: "JSON; sent as typed when it does not parse" })));
    box.readArguments = () => {
      try {
        return JSON.parse(args.value);
      } catch {
        return args.value;
      }
    };
  } else if (kind === "tools") {
    box.readArguments = schemaForm(form, item.inputSchema, update);
  } else if (kind === "prompts") {
    box.readArguments = promptForm(form, item.arguments, update);
  } else {
    const uri = el("input", { "data-field": "uri", value: item.uri, autocomplete: "off" });
    uri.addEventListener("input", update);
    form.replaceChildren(el("label", { class: "field" }, el("span", { class: "field-name", text: "URI *" }), uri,
      el("span", { class: "hint", text: item.mimeType ? `mimeType ${item.mimeType}` : "" })));
    box.readArguments = () => ({});
  }
  update();
}

function fillPicker(kind, items) {
  const box = card(kind);
  const pick = $(".pick", box);
  pick.replaceChildren();
  items.forEach((item, i) => pick.append(el("option", { value: String(i), text: kind === "resources" ? item.uri : item.name })));
  if (kind !== "resources") pick.append(el("option", { value: "other", text: "(another name…)" }));
  pick.disabled = false;
  pick.onchange = () => choose(kind, pick.value === "other" ? { other: true } : items[Number(pick.value)]);
  $(".count", box).textContent = `${items.length} discovered`;
  choose(kind, items.length || kind === "resources" ? items[0] : { other: true });
}

// ---------------------------------------------------------------- client input (MRTR)

// Shows each input request of an input_required result with a form for its answer and resolves
// to the inputResponses once the user sends them (or null when they abandon the request).
function answerInputs(kind, inputRequests) {
  const box = card(kind);
  const area = $(".inputs", box);
  area.replaceChildren(el("h4", { text: "The server asks the client for input" }));
  const readers = {};
  for (const [key, asked] of Object.entries(inputRequests || {})) {
    const fieldset = el("fieldset", { class: "input-request", "data-key": key, "data-method": asked.method });
    fieldset.append(el("legend", { text: `${key}: ${asked.method}` }));
    const params = asked.params || {};
    if (asked.method === "elicitation/create") {
      fieldset.append(el("p", { class: "message", text: params.message || "" }));
      const action = el("select", { "data-answer": "action" },
        el("option", { value: "accept", text: "accept" }), el("option", { value: "decline", text: "decline" }),
        el("option", { value: "cancel", text: "cancel" }));
      fieldset.append(el("label", { class: "field" }, el("span", { class: "field-name", text: "Action" }), action));
      if (params.mode === "url") {
        fieldset.append(el("p", { class: "hint", text: `The server asks the user to open ${params.url} (not opened by the lab).` }));
        readers[key] = () => ({ action: action.value });
      } else {
        const form = el("div", { class: "form" });
        fieldset.append(form);
        const read = schemaForm(form, params.requestedSchema, () => {});
        readers[key] = () => (action.value === "accept" ? { action: "accept", content: read() } : { action: action.value });
      }
    } else if (asked.method === "sampling/createMessage") {
      const said = (params.messages || []).map((m) => {
        const blocks = Array.isArray(m.content) ? m.content : [m.content];
        return `${m.role}: ${blocks.map((b) => (b && b.type === "text" ? b.text : `[${b && b.type}]`)).join(" ")}`;
      });
      if (params.systemPrompt) said.unshift(`system: ${params.systemPrompt}`);
      fieldset.append(el("pre", { class: "message", text: `${said.join("\n")}\n(maxTokens ${params.maxTokens})` }));
      const reply = el("textarea", { "data-answer": "text", rows: 3, placeholder: "The model's reply: you stand in for it" });
      const model = el("input", { "data-answer": "model", value: "lab-host", autocomplete: "off" });
      fieldset.append(el("label", { class: "field" }, el("span", { class: "field-name", text: "Reply" }), reply),
        el("label", { class: "field" }, el("span", { class: "field-name", text: "Model" }), model));
      readers[key] = () => ({
        role: "assistant", content: { type: "text", text: reply.value }, model: model.value, stopReason: "endTurn",
      });
    } else if (asked.method === "roots/list") {
      const roots = el("textarea", { "data-answer": "roots", rows: 3, placeholder: "file:///home/me/project — one URI per line" });
      fieldset.append(el("label", { class: "field" }, el("span", { class: "field-name", text: "Roots" }), roots));
      readers[key] = () => ({
        roots: roots.value.split("\n").map((l) => l.trim()).filter(Boolean).map((uri) => {
          const name = uri.replace(/\/+$/, "").split("/").pop();
          return name ? { uri, name } : { uri };
        }),
      });
    } else {
      fieldset.append(el("p", { class: "hint", text: "An input request this client does not know: answered with an empty object." }));
      readers[key] = () => ({});
    }
    area.append(fieldset);
  }
  return new Promise((resolve) => {
    const send = el("button", { type: "button", "data-action": "send-inputs", text: "Send answers and retry" });
    const abandon = el("button", { type: "button", "data-action": "abandon", text: "Abandon" });
    send.addEventListener("click", () => {
      const responses = {};
      for (const [key, read] of Object.entries(readers)) responses[key] = read();
      area.replaceChildren();
      resolve(responses);
    });
    abandon.addEventListener("click", () => {
      area.replaceChildren();
      resolve(null);
    });
    area.append(el("div", { class: "actions" }, send, abandon));
    send.scrollIntoView({ block: "nearest" });
  });
}

// ---------------------------------------------------------------- live notifications on a step

function showNotification(stepNode, message) {
  const live = $(".live", stepNode);
  const p = message.params || {};
  if (message.method === "notifications/progress") {
    const line = el("div", { class: "progress", "data-progress": String(p.progress) });
    const bar = el("progress", { value: String(p.progress) });
    if (typeof p.total === "number") bar.max = p.total;
    line.append(bar, el("span", { text: `${p.progress}${p.total !== undefined ? `/${p.total}` : ""}${p.message ? ` — ${p.message}` : ""}` }));
    live.append(line);
  } else if (message.method === "notifications/message") {
    const data = typeof p.data === "string" ? p.data : JSON.stringify(p.data);
    live.append(el("div", { class: "log", text: `${p.level}${p.logger ? ` ${p.logger}` : ""}: ${data}` }));
  } else {
    live.append(el("div", { class: "log", text: message.method || "message" }));
  }
}

// ---------------------------------------------------------------- the steps

function describeResult(kind, result) {
  if (kind === "tools") {
    const parts = (result.content || []).map((b) => (b.type === "text" ? b.text : `[${b.type}]`));
    if (result.structuredContent !== undefined) parts.push(pretty(result.structuredContent));
    return parts.join("\n");
  }
  if (kind === "resources") {
    return (result.contents || []).map((c) => `${c.uri}${c.mimeType ? ` (${c.mimeType})` : ""}\n${c.text ?? `[${(c.blob || "").length} base64 characters]`}`).join("\n\n");
  }
  const lines = (result.messages || []).map((m) => `${m.role}: ${m.content && m.content.type === "text" ? m.content.text : `[${m.content && m.content.type}]`}`);
  if (result.description) lines.unshift(result.description);
  return lines.join("\n");
}

async function discover() {
  const node = step("discover");
  setStatus(node, "running");
  const answer = await request("server/discover", { _meta: requestMeta() });
  if (answer.failure) {
    setStatus(node, "error");
    $(".detail", node).textContent = answer.failure;
    return null;
  }
  const message = answer.message;
  if (message.error) {
    setStatus(node, "error");
    $(".detail", node).textContent = `${errorText(message)} — the steps go on without discovery.`;
    return null;
  }
  const result = message.result || {};
  showServer(result);
  setStatus(node, "completed");
  const offered = Object.keys(result.capabilities || {}).filter((k) => ["tools", "resources", "prompts"].includes(k));
  const extensions = Object.keys((result.capabilities && result.capabilities.extensions) || {});
  $(".detail", node).textContent = `Supported versions ${(result.supportedVersions || []).join(", ")}; the server advertises ${offered.length ? offered.join(", ") : "no primitives"}${extensions.length ? `; extensions ${extensions.join(", ")}` : ""}.`;
  return result;
}

function showServer(result) {
  const info = result._meta && result._meta["io.modelcontextprotocol/serverInfo"];
  if (info) $("#server-name").textContent = `${info.title || info.name} ${info.version}`;
  if (result.instructions) {
    $("#instructions").hidden = false;
    $("#instructions").textContent = result.instructions;
  }
}

// One request with the page's `_meta` after `params` (`meta` adds to it: requestMeta's options):
// { result } when it completes, otherwise { failure, challenge } (a result other than `complete`
// is a failure here: the callers answer no client input).
async function requestResult(method, params, meta = {}) {
  const answer = await request(method, { ...params, _meta: requestMeta(meta) });
  if (answer.failure) return { failure: answer.failure, challenge: answer.challenge };
  if (answer.message.error) return { failure: errorText(answer.message), challenge: answer.challenge };
  const result = answer.message.result || {};
  if (result.resultType !== undefined && result.resultType !== "complete") {
    return { failure: `resultType ${result.resultType}, which this request does not expect` };
  }
  return { result };
}

// The most pages one list is read in: a server that hands out new cursors for ever is stopped.
const MAX_PAGES = 1000;

// Every page of a list (its items in the result's `key`), following nextCursor: { items }, or the
// failure of the first page that fails. A cursor the server already gave (it would loop) or a
// list longer than MAX_PAGES pages is a failure too.
async function listPages(method, key, params = {}, meta = {}) {
  const items = [];
  const seen = new Set();
  let cursor;
  for (let pages = 1; ; pages += 1) {
    const answer = await requestResult(method, cursor === undefined ? params : { ...params, cursor }, meta);
    if (answer.failure) return answer;
    if (!lab.discovered) showServer(answer.result);
    items.push(...(answer.result[key] || []));
    cursor = answer.result.nextCursor;
    if (cursor === undefined || cursor === null) return { items };
    const seenKey = JSON.stringify(cursor);
    if (seen.has(seenKey)) {
      return { failure: `the server gave the cursor ${seenKey} a second time (after ${pages} pages): stopped` };
    }
    if (pages >= MAX_PAGES) return { failure: `more than ${MAX_PAGES} pages: stopped` };
    seen.add(seenKey);
  }
}

async function listAll(kind) {
  const spec = KINDS[kind];
  return listPages(spec.list, spec.items);
}

async function primitive(kind) {
  const spec = KINDS[kind];
  const node = step(kind);
  const box = card(kind);
  const grant = $(".grant", box);
  const outcome = $(".outcome", box);
  if (lab.discovered && lab.discovered.capabilities && !lab.discovered.capabilities[CAPABILITY[kind]]) {
    setStatus(node, "skipped", "not offered");
    $(".detail", node).textContent = `The server does not advertise ${kind}: nothing was sent.`;
    $(".count", box).textContent = "not offered";
    return;
  }
  setStatus(node, "running");
  const listed = await listAll(kind);
  if (listed.failure) {
    setStatus(node, "error");
    $(".detail", node).textContent = `${spec.list}: ${listed.failure}${listed.challenge ? ` — ${listed.challenge}` : ""}`;
    return;
  }
  fillPicker(kind, listed.items);
  if (!listed.items.length && kind === "resources") {
    setStatus(node, "completed");
    $(".detail", node).textContent = "The server lists no resources: nothing to grant.";
    return;
  }
  setStatus(node, "waiting", "waiting for host grant");
  $(".detail", node).textContent = `Listed ${listed.items.length} ${kind}. Choose one, fill its payload, then approve or deny it.`;
  grant.textContent = "Host grant: waiting for your decision";
  const decision = await waitForGrant(kind);
  $(".pick", box).disabled = true;
  if (decision === "denied") {
    setStatus(node, "denied", "denied by host");
    grant.textContent = `Host grant: denied · no ${spec.call} sent`;
    $(".detail", node).textContent = `The host denied the ${spec.noun}: nothing was sent for it.`;
    return;
  }
  grant.textContent = `Host grant: approved · ${spec.call} sent`;
  const base = callParams(kind, box);
  const schema = kind === "tools" && !box.chosen.other ? box.chosen.inputSchema : undefined;
  let extra = {};
  for (let round = 1; ; round += 1) {
    setStatus(node, "running", round === 1 ? "running" : `running (round ${round})`);
    const controller = new AbortController();
    const cancel = $('[data-action="cancel"]', box);
    cancel.disabled = false;
    cancel.onclick = () => controller.abort();
    const params = { ...base, ...extra, _meta: callMeta(kind) };
    const answer = await request(spec.call, params, {
      signal: controller.signal, toolSchema: schema, onNotification: (m) => showNotification(node, m),
    });
    cancel.disabled = true;
    if (answer.failure) {
      setStatus(node, answer.cancelled ? "cancelled" : "error", answer.cancelled ? "cancelled by host" : "error");
      $(".detail", node).textContent = `${spec.call}: ${answer.failure}${answer.challenge ? ` — WWW-Authenticate: ${answer.challenge}` : ""}`;
      grant.textContent = `Host grant: approved · ${spec.call} ${answer.cancelled ? "cancelled" : "failed"}`;
      return;
    }
    const message = answer.message;
    if (message.error) {
      setStatus(node, "error");
      $(".detail", node).textContent = `${spec.call}: ${errorText(message)}${answer.challenge ? ` — WWW-Authenticate: ${answer.challenge}` : ""}`;
      grant.textContent = `Host grant: approved · ${spec.call} returned an error`;
      return;
    }
    const result = message.result || {};
    if (result.resultType === "input_required") {
      setStatus(node, "input", "input required");
      $(".detail", node).textContent = `The server needs client input (${Object.keys(result.inputRequests || {}).join(", ") || "none"}) before it can answer.`;
      const responses = await answerInputs(kind, result.inputRequests);
      if (responses === null) {
        setStatus(node, "abandoned", "abandoned by host");
        grant.textContent = `Host grant: approved · ${spec.call} abandoned`;
        return;
      }
      extra = { inputResponses: responses };
      if (result.requestState !== undefined) extra.requestState = result.requestState;
      continue;
    }
    outcome.hidden = false;
    outcome.textContent = describeResult(kind, result);
    if (kind === "tools" && result.isError) {
      setStatus(node, "failed", "tool error");
      $(".detail", node).textContent = "The tool ran and reported an error (isError: true).";
      grant.textContent = "Host grant: approved · tools/call returned isError";
      return;
    }
    setStatus(node, "completed");
    $(".detail", node).textContent = `The host approved one exact payload and ${spec.call} returned${round > 1 ? ` after ${round} rounds` : ""}.`;
    grant.textContent = `Host grant: approved · ${spec.call} returned`;
    return;
  }
}

// ---------------------------------------------------------------- the skills extension

const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
const DIRECTORY_MIME_TYPE = "inode/directory";

// The skills extension's settings in a discover result, or null when the server does not declare it.
function skillsExtension(discovered) {
  const extensions = discovered && discovered.capabilities && discovered.capabilities.extensions;
  const declared = extensions && extensions[SKILLS_EXTENSION];
  return declared && typeof declared === "object" ? declared : null;
}

// Shows the Skills card when discovery declared the extension; folders are read only when it
// declares `directoryRead` too.
function offerSkills(discovered) {
  const box = card("skills");
  const declared = skillsExtension(discovered);
  box.hidden = !declared;
  box.directoryRead = Boolean(declared && declared.directoryRead === true);
  $(':scope > .actions [data-action="read-folder"]', box).disabled = !box.directoryRead;
}

function skillPane(name) {
  return $(`.skill-pane[data-pane="${name}"]`, card("skills"));
}

function setNote(pane, status, text) {
  const note = $(".note", pane);
  note.dataset.status = status;
  note.textContent = text;
}

// Shows a pane's request as running and returns whether its answer still belongs there when it
// comes (a later request in the same pane, or a reset, takes the pane over).
function startPane(name, text) {
  const pane = skillPane(name);
  const ticket = (pane.ticket || 0) + 1;
  pane.ticket = ticket;
  pane.hidden = false;
  setNote(pane, "running", text);
  $(".skill-body", pane).replaceChildren();
  return () => pane.ticket === ticket;
}

function finishPane(name, status, text, ...children) {
  const pane = skillPane(name);
  setNote(pane, status, text);
  $(".skill-body", pane).replaceChildren(...children);
  // The transcript took the view while the request ran: bring the answer back into it.
  pane.scrollIntoView({ block: "nearest" });
}

function failureText(answer) {
  return `${answer.failure}${answer.challenge ? ` — WWW-Authenticate: ${answer.challenge}` : ""}`;
}

// A value of the server's as plain text (frontmatter values may be any JSON).
function plain(value) {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

// `sha256:` and the first 12 hex digits; the whole digest goes in the title.
function shortDigest(digest) {
  const text = plain(digest);
  const keep = text.indexOf(":") + 13;
  return text.length > keep ? `${text.slice(0, keep)}…` : text;
}

// The decoded length of base64 text, without decoding it.
function base64Length(text) {
  const clean = text.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.floor((clean.length * 3) / 4) - padding;
}

// The folder of a skill: its SKILL.md URI without `/SKILL.md`.
function skillFolder(uri) {
  return uri.replace(/\/SKILL\.md$/, "");
}

// The folder above `uri`, or null at the top (`skill://name`).
function parentFolder(uri) {
  const start = uri.indexOf("://");
  const slash = uri.lastIndexOf("/");
  return start >= 0 && slash > start + 2 ? uri.slice(0, slash) : null;
}

function skillButton(action, text, uri, disabled = false) {
  return el("button", { type: "button", "data-action": action, text, disabled, onclick: () => skillAction(action, uri) });
}

async function listSkills() {
  const box = card("skills");
  const current = startPane("list", "skills/list …");
  const listed = await listPages("skills/list", "skills");
  if (!current()) return;
  if (listed.failure) {
    $(".count", box).textContent = "not listed";
    finishPane("list", "error", `skills/list: ${failureText(listed)}`);
    return;
  }
  const n = listed.items.length;
  $(".count", box).textContent = `${n} listed`;
  finishPane("list", "completed", n ? `${n} skill${n === 1 ? "" : "s"}.` : "The server lists no skills.",
    el("ol", { class: "skill-items" }, ...listed.items.map(skillItem)));
}

function skillItem(skill) {
  const frontmatter = skill.frontmatter || {};
  const uri = plain(skill.uri);
  return el("li", { class: "skill", "data-uri": uri },
    el("span", { class: "skill-name", text: plain(frontmatter.name) || "(no name)" }),
    el("code", { class: "skill-uri", text: uri }),
    el("p", { class: "skill-description", text: plain(frontmatter.description) }),
    el("div", { class: "actions" },
      skillButton("get-skill", "Get", uri),
      skillButton("read-folder", "Browse folder", skillFolder(uri), !card("skills").directoryRead)));
}

async function getSkill(uri) {
  const current = startPane("manifest", `skills/get ${uri} …`);
  const answer = await requestResult("skills/get", { uri });
  if (!current()) return;
  if (answer.failure) {
    finishPane("manifest", "error", `skills/get: ${failureText(answer)}`);
    return;
  }
  const skill = answer.result.skill || {};
  const files = Array.isArray(skill.resources) ? skill.resources : null;
  const summary = files
    ? `${plain(skill.uri)}: ${files.length} file${files.length === 1 ? "" : "s"}.`
    : `${plain(skill.uri)}: resources ${plain(skill.resources)} (generated content, no manifest).`;
  finishPane("manifest", "completed", summary,
    el("pre", { class: "frontmatter", text: pretty(skill.frontmatter || {}) }),
    files ? manifestTable(files) : null);
}

function manifestTable(files) {
  const head = el("tr", {}, ...["URI", "bytes", "digest", ""].map((text) => el("th", { text })));
  const rows = files.map((file) => {
    const uri = plain(file.uri);
    return el("tr", { "data-uri": uri },
      el("td", {}, el("code", { text: uri })),
      el("td", { class: "size", text: plain(file.size) }),
      el("td", {}, el("code", { class: "digest", title: plain(file.digest), text: shortDigest(file.digest) })),
      el("td", {}, skillButton("read-file", "Open", uri)));
  });
  return el("table", { class: "manifest" }, el("thead", {}, head), el("tbody", {}, ...rows));
}

async function readSkillFile(uri) {
  const current = startPane("file", `resources/read ${uri} …`);
  const answer = await requestResult("resources/read", { uri });
  if (!current()) return;
  if (answer.failure) {
    finishPane("file", "error", `resources/read: ${failureText(answer)}`);
    return;
  }
  const contents = answer.result.contents || [];
  finishPane("file", "completed", `${uri}: ${contents.length} content${contents.length === 1 ? "" : "s"}.`,
    ...contents.map(fileContent));
}

// One content of a read: text shown as text, a blob as its MIME type and length only.
function fileContent(content) {
  const uri = plain(content.uri);
  const head = el("p", { class: "hint", text: `${uri}${content.mimeType ? ` · ${plain(content.mimeType)}` : ""}` });
  let body;
  if (typeof content.text === "string") {
    body = el("pre", { class: "file-text", text: content.text });
  } else if (typeof content.blob === "string") {
    const type = content.mimeType ? plain(content.mimeType) : "no MIME type";
    body = el("p", { class: "file-blob", text: `binary, ${type}, ${base64Length(content.blob)} bytes (not shown)` });
  } else {
    body = el("pre", { class: "file-text", text: pretty(content) });
  }
  return el("div", { class: "skill-file", "data-uri": uri }, head, body);
}

async function readSkillFolder(uri) {
  const current = startPane("folder", `resources/directory/read ${uri} …`);
  const listed = await listPages("resources/directory/read", "resources", { uri });
  if (!current()) return;
  if (listed.failure) {
    finishPane("folder", "error", `resources/directory/read: ${failureText(listed)}`);
    return;
  }
  const parent = parentFolder(uri);
  const n = listed.items.length;
  finishPane("folder", "completed", `${uri}: ${n} entr${n === 1 ? "y" : "ies"}.`,
    parent ? el("div", { class: "actions" }, skillButton("read-folder", `Up to ${parent}`, parent)) : null,
    el("ol", { class: "folder-entries" }, ...listed.items.map(folderEntry)));
}

function folderEntry(entry) {
  const uri = plain(entry.uri);
  const folder = entry.mimeType === DIRECTORY_MIME_TYPE;
  const about = folder ? "folder" : [plain(entry.mimeType) || "no MIME type", entry.size !== undefined ? `${plain(entry.size)} bytes` : ""]
    .filter(Boolean).join(" · ");
  return el("li", { class: "folder-entry", "data-uri": uri, "data-entry": folder ? "folder" : "file" },
    el("span", { class: "entry-name", title: uri, text: `${plain(entry.name)}${folder ? "/" : ""}` }),
    el("span", { class: "hint", text: about }),
    folder ? skillButton("read-folder", "Open folder", uri) : skillButton("read-file", "Open", uri));
}

const SKILL_ACTIONS = {
  "list-skills": listSkills,
  "get-skill": getSkill,
  "read-file": readSkillFile,
  "read-folder": readSkillFolder,
};

// Runs one of the card's actions on the URI field, after setting it to `uri` when one is given,
// so that the field always shows what was last asked for.
function skillAction(action, uri) {
  const field = $('[data-field="skill-uri"]', card("skills"));
  if (uri !== undefined && action !== "list-skills") field.value = uri;
  return SKILL_ACTIONS[action](field.value);
}

function resetSkills() {
  const box = card("skills");
  box.hidden = true;
  $(".count", box).textContent = "not listed";
  $('[data-field="skill-uri"]', box).value = "";
  for (const pane of box.querySelectorAll(".skill-pane")) {
    pane.ticket = (pane.ticket || 0) + 1;
    pane.hidden = pane.dataset.pane !== "list";
    setNote(pane, "idle", pane.dataset.pane === "list" ? "not listed yet" : "");
    $(".skill-body", pane).replaceChildren();
  }
}

// ---------------------------------------------------------------- MCP Apps: tools with a view

const UI_EXTENSION = "io.modelcontextprotocol/ui";
const APP_MIME_TYPE = "text/html;profile=mcp-app";
const APPS_PROTOCOL_VERSION = "2026-01-26";
const HOST_INFO = { name: "mcp-lab", version: "1.0.0" };
// The frame's height in pixels: at first, and the bounds of what the view may ask for.
const VIEW_HEIGHT = { initial: 320, min: 60, max: 900 };
// How long a closing view has to answer ui/resource-teardown, in milliseconds.
const TEARDOWN_MS = 2000;
const VIEW_LOG_LIMIT = 300;
const VIEW_ASKS_LIMIT = 50;
// The JSON-RPC error code of a request of the view that the host refuses: the person denied it,
// or the view may not make it.
const HOST_REFUSED = -32000;

// `resets` counts the card's resets: an answer that comes after one belongs to no one.
const apps = { tools: [], runnable: [], chosen: null, view: null, views: 0, runGrant: null, resets: 0 };
const viewCounter = { value: 0 };

function appsCard() {
  return card("apps");
}

function appsButton(action) {
  return $(`:scope > .actions [data-action="${action}"]`, appsCard());
}

function appsNote(status, text) {
  const note = $(":scope > .note", appsCard());
  note.dataset.status = status;
  note.textContent = text;
}

// Shows the Apps card when discovery declared the extension.
function offerApps(discovered) {
  const extensions = discovered && discovered.capabilities && discovered.capabilities.extensions;
  appsCard().hidden = !(extensions && extensions[UI_EXTENSION]);
  if (!SANDBOX) {
    appsNote("error", "Views are rendered only when this page is opened on 127.0.0.1 or localhost: "
      + "their sandbox is this server on the other name.");
  }
}

// The `ui://` view a tool links to (`_meta.ui.resourceUri`, else the older flat
// `_meta["ui/resourceUri"]`), or null.
function viewOf(tool) {
  const meta = tool && tool._meta;
  if (!meta || typeof meta !== "object") return null;
  const ui = meta.ui && typeof meta.ui === "object" ? meta.ui : {};
  const uri = typeof ui.resourceUri === "string" ? ui.resourceUri : meta["ui/resourceUri"];
  return typeof uri === "string" && uri.startsWith("ui://") ? uri : null;
}

// Who may call a tool: `_meta.ui.visibility`, by default the model and the app.
function visibilityOf(tool) {
  const ui = tool && tool._meta && tool._meta.ui;
  return ui && Array.isArray(ui.visibility) ? ui.visibility : ["model", "app"];
}

async function listAppTools() {
  const box = appsCard();
  appsButton("list-apps").disabled = true;
  appsNote("running", "tools/list …");
  const resets = apps.resets;
  const listed = await listPages("tools/list", "tools", {}, { apps: true });
  appsButton("list-apps").disabled = false;
  if (apps.resets !== resets) return;
  if (listed.failure) {
    appsNote("error", `tools/list: ${failureText(listed)}`);
    return;
  }
  apps.tools = listed.items;
  apps.runnable = listed.items.filter((t) => viewOf(t) && visibilityOf(t).includes("model"));
  const appOnly = listed.items.filter((t) => viewOf(t) && !visibilityOf(t).includes("model")).map((t) => t.name);
  $(":scope > h3 .count", box).textContent = `${apps.runnable.length} with a view`;
  const pick = $(".pick", box);
  pick.replaceChildren(...apps.runnable.map((t, i) => el("option", { value: String(i), text: t.name })));
  pick.disabled = !apps.runnable.length;
  pick.onchange = () => chooseAppTool(apps.runnable[Number(pick.value)]);
  chooseAppTool(apps.runnable[0] || null);
  const n = listed.items.length;
  appsNote("completed", `${n} tool${n === 1 ? "" : "s"} listed, ${apps.runnable.length} with a view to run.`
    + (appOnly.length ? ` Only views may call ${appOnly.join(", ")} (visibility ["app"]).` : "")
    + (SANDBOX ? "" : " Views are not rendered on this host name: open the page on 127.0.0.1 or localhost."));
}

function chooseAppTool(tool) {
  const box = appsCard();
  apps.chosen = tool;
  $(".tool-description", box).textContent = tool
    ? [tool.title, tool.description, `view ${viewOf(tool)}`].filter(Boolean).join(" — ") : "";
  const form = $(".form", box);
  if (tool) {
    box.readArguments = schemaForm(form, tool.inputSchema, showAppPayload);
  } else {
    form.replaceChildren();
    box.readArguments = () => ({});
  }
  showAppPayload();
  refreshRun();
}

function appCallParams() {
  return { name: apps.chosen.name, arguments: appsCard().readArguments() };
}

function showAppPayload() {
  $(".payload", appsCard()).textContent = apps.chosen
    ? pretty({ method: "tools/call", params: { ...appCallParams(), _meta: requestMeta({ apps: true }) } }) : "";
}

function refreshRun() {
  appsButton("run-app").disabled = !apps.chosen || Boolean(apps.runGrant) || !SANDBOX;
}

// Approve and Deny buttons as one decision: { promise, settle } (settle decides from elsewhere).
function decide(approve, deny) {
  let settle;
  const promise = new Promise((resolve) => {
    settle = (choice) => {
      approve.disabled = true;
      deny.disabled = true;
      approve.onclick = null;
      deny.onclick = null;
      resolve(choice);
    };
  });
  approve.onclick = () => settle("approved");
  deny.onclick = () => settle("denied");
  approve.disabled = false;
  deny.disabled = false;
  return { promise, settle };
}

// Run: the host grant of the call, then the call and its view.
async function runApp() {
  const box = appsCard();
  const tool = apps.chosen;
  if (!tool || apps.runGrant) return;
  const grant = $(":scope > .grant", box);
  grant.textContent = `Host grant: waiting for your decision on tools/call ${tool.name}`;
  apps.runGrant = decide(appsButton("approve"), appsButton("deny"));
  $(".pick", box).disabled = true;
  refreshRun();
  const resets = apps.resets;
  const choice = await apps.runGrant.promise;
  if (apps.resets !== resets) return;
  apps.runGrant = null;
  $(".pick", box).disabled = !apps.runnable.length;
  refreshRun();
  if (choice !== "approved") {
    grant.textContent = "Host grant: denied · no tools/call sent";
    return;
  }
  grant.textContent = `Host grant: approved · tools/call ${tool.name} sent`;
  await openView(tool, appCallParams().arguments);
}

// The call's outcome as the view is told it: { result } (a CallToolResult as received, isError
// or not), or { cancelled } with why there is none.
function callOutcome(answer) {
  if (answer.failure) return { cancelled: answer.failure };
  if (answer.message.error) return { cancelled: errorText(answer.message) };
  const result = answer.message.result || {};
  if (result.resultType !== undefined && result.resultType !== "complete") {
    return { cancelled: `resultType ${result.resultType}: the Apps card answers no client input` };
  }
  return { result };
}

// The one content of a view's read: { html, csp, prefersBorder }, or { failure }.
function viewContent(result, uri) {
  const contents = Array.isArray(result.contents) ? result.contents : [];
  if (contents.length !== 1) return { failure: `resources/read ${uri}: ${contents.length} contents, where a view is one` };
  const content = contents[0] || {};
  if (content.mimeType !== APP_MIME_TYPE) {
    return { failure: `resources/read ${uri}: mimeType ${plain(content.mimeType) || "(none)"}, not ${APP_MIME_TYPE}` };
  }
  let html;
  if (typeof content.text === "string") {
    html = content.text;
  } else if (typeof content.blob === "string") {
    try {
      html = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0)));
    } catch {
      return { failure: `resources/read ${uri}: its blob is not base64 UTF-8 text` };
    }
  } else {
    return { failure: `resources/read ${uri}: no text and no blob` };
  }
  const ui = content._meta && typeof content._meta.ui === "object" && content._meta.ui ? content._meta.ui : {};
  const csp = ui.csp && typeof ui.csp === "object" && !Array.isArray(ui.csp) ? ui.csp : undefined;
  return { html, csp, prefersBorder: ui.prefersBorder === true };
}

// The sandbox document for a view: its policy is built by the server from the view's csp.
function sandboxUrl(csp) {
  const query = csp ? `?csp=${encodeURIComponent(JSON.stringify(csp))}` : "";
  return `${SANDBOX}${LAB_PATH}/sandbox${query}`;
}

function setViewState(view, state, text) {
  if (apps.view !== view) return;
  const area = $(".view", appsCard());
  area.dataset.state = state;
  $(".view-head", area).textContent = `${view.uri} · ${text}`;
}

// Calls the tool and reads its view at once (the view boots while the tool runs), then renders
// the view in the sandbox; the call's outcome waits for the view's `initialized`.
async function openView(tool, args) {
  await closeView("replaced by another view");
  const box = appsCard();
  const uri = viewOf(tool);
  const view = {
    number: ++apps.views, tool, args, uri, frame: null, html: null, csp: undefined,
    resourceSent: false, initialized: false, inputSent: false, outcome: null, outcomeSent: false,
    pending: new Map(), nextId: 0, closing: null,
  };
  apps.view = view;
  const area = $(".view", box);
  area.hidden = false;
  for (const part of [".view-asks", ".frame-box"]) $(part, area).replaceChildren();
  $(".view-csp", area).textContent = "";
  $(".view-call", area).textContent = `tools/call ${tool.name} …`;
  $(".view-call", area).dataset.status = "running";
  appsButton("close-view").disabled = false;
  setViewState(view, "loading", "reading the view …");
  const called = request("tools/call", { name: tool.name, arguments: args, _meta: requestMeta({ apps: true }) },
    { toolSchema: tool.inputSchema });
  const read = requestResult("resources/read", { uri }, { apps: true });
  called.then((answer) => {
    if (apps.view !== view || view.closing) return;
    view.outcome = callOutcome(answer);
    showCallOutcome(view);
    flushView(view);
  });
  const answer = await read;
  if (apps.view !== view || view.closing) return;
  if (answer.failure) {
    setViewState(view, "error", `resources/read: ${failureText(answer)}`);
    return;
  }
  const content = viewContent(answer.result, uri);
  if (content.failure) {
    setViewState(view, "error", content.failure);
    return;
  }
  view.html = content.html;
  view.csp = content.csp;
  $(".view-csp", area).textContent = content.csp
    ? `Its _meta.ui.csp, which the sandbox's policy enforces: ${JSON.stringify(content.csp)}`
    : "It declares no _meta.ui.csp: the sandbox's restrictive default policy (no connection, nothing loaded from elsewhere).";
  const frame = el("iframe", {
    class: "app-frame",
    title: `The view ${uri}`,
    sandbox: "allow-scripts allow-same-origin allow-forms",
    referrerpolicy: "no-referrer",
    src: sandboxUrl(content.csp),
  });
  frame.style.height = `${VIEW_HEIGHT.initial}px`;
  view.frame = frame;
  $(".frame-box", area).dataset.border = String(content.prefersBorder);
  $(".frame-box", area).append(frame);
  // Browsers hold back frames out of sight (no rendering, no resize observers): bring it in.
  frame.scrollIntoView({ block: "nearest" });
  setViewState(view, "loading", `sandbox ${SANDBOX} · waiting for the view's ui/initialize`);
}

function showCallOutcome(view) {
  const line = $(".view-call", appsCard());
  const outcome = view.outcome;
  if (outcome.result) {
    const text = (outcome.result.content || []).map((b) => (b && b.type === "text" ? b.text : `[${b && b.type}]`)).join(" ");
    line.dataset.status = outcome.result.isError ? "failed" : "completed";
    line.textContent = `tools/call ${view.tool.name} returned${outcome.result.isError ? " isError" : ""}: ${text}`;
  } else {
    line.dataset.status = "error";
    line.textContent = `tools/call ${view.tool.name} failed (the view is sent tool-cancelled): ${outcome.cancelled}`;
  }
}

function current(view) {
  return apps.view === view && !view.closing;
}

function logView(view, direction, message, raw) {
  const area = $(".view", appsCard());
  const list = $(".view-log", area);
  let shown = message;
  if (message && message.method === "ui/notifications/sandbox-resource-ready") {
    shown = { ...message, params: { ...message.params, html: `[${message.params.html.length} characters of HTML]` } };
  }
  const item = record(list, direction, shown, { counter: viewCounter, raw, label: message ? undefined : "ignored" });
  item.dataset.view = String(view.number);
  $(".envelope-head", item).append(el("span", { class: "via", text: `view ${view.number}` }));
  while (list.children.length > VIEW_LOG_LIMIT) list.firstElementChild.remove();
  $(".view-log-box .count", area).textContent = `${viewCounter.value} message${viewCounter.value === 1 ? "" : "s"}`;
}

function sendToView(view, message) {
  if (!view.frame || !view.frame.contentWindow) return;
  logView(view, "host→view", message);
  view.frame.contentWindow.postMessage(message, SANDBOX);
}

function replyToView(view, id, body) {
  if (current(view)) sendToView(view, { jsonrpc: "2.0", id, ...body });
}

// Whether `m` is a JSON-RPC 2.0 request, notification or response.
function jsonRpc(m) {
  if (!m || typeof m !== "object" || Array.isArray(m) || m.jsonrpc !== "2.0") return false;
  const idOk = m.id === undefined || typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id));
  if (!idOk) return false;
  if (typeof m.method === "string") return m.params === undefined || (typeof m.params === "object" && m.params !== null);
  return m.id !== undefined && ("result" in m || "error" in m);
}

// Every message from the view's frame: only from the current view's sandbox window and origin.
function onViewMessage(event) {
  const view = apps.view;
  if (!view || !view.frame || event.source !== view.frame.contentWindow || event.origin !== SANDBOX) return;
  const message = event.data;
  if (!jsonRpc(message)) {
    logView(view, "view→host", null, "not a JSON-RPC 2.0 message: ignored");
    return;
  }
  logView(view, "view→host", message);
  if (message.method === "ui/notifications/sandbox-proxy-ready") {
    if (!view.resourceSent && view.html !== null && current(view)) {
      view.resourceSent = true;
      const params = { html: view.html };
      if (view.csp) params.csp = view.csp;
      view.html = null;
      sendToView(view, { jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params });
    }
    return;
  }
  if (!view.resourceSent) return;
  if (typeof message.method !== "string") {
    const waiting = view.pending.get(message.id);
    view.pending.delete(message.id);
    if (waiting) waiting(message);
  } else if (message.id !== undefined) {
    if (current(view)) viewRequest(view, message);
  } else if (current(view)) {
    viewNotification(view, message);
  }
}

function viewRequest(view, message) {
  const params = message.params || {};
  const reply = (body) => replyToView(view, message.id, body);
  switch (message.method) {
    case "ui/initialize":
      reply({ result: initializeResult(view) });
      setViewState(view, "initializing", `sandbox ${SANDBOX} · answered ui/initialize, waiting for initialized`);
      return;
    case "ping":
      reply({ result: {} });
      return;
    case "tools/call":
      viewToolCall(view, params, reply);
      return;
    case "resources/read":
      viewRead(view, params, reply);
      return;
    case "ui/open-link":
      viewOpenLink(view, params, reply);
      return;
    case "ui/message": {
      const blocks = Array.isArray(params.content) ? params.content : params.content ? [params.content] : [];
      addAsk(view, {
        method: "ui/message", status: "completed",
        text: `The view sends a message as the ${plain(params.role) || "user"} (this page has no conversation: it is shown here)`,
        detail: blocks.map((b) => (b && b.type === "text" ? plain(b.text) : `[${plain(b && b.type)}]`)).join("\n"),
      });
      reply({ result: {} });
      return;
    }
    case "ui/update-model-context":
      addAsk(view, {
        method: "ui/update-model-context", status: "completed",
        text: "The view updates the model's context (shown here: this page has no model)",
        detail: pretty({ content: params.content, structuredContent: params.structuredContent }),
      });
      reply({ result: {} });
      return;
    case "ui/request-display-mode":
      reply({ result: { mode: "inline" } });
      return;
    default:
      reply({ error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
}

function viewNotification(view, message) {
  const params = message.params || {};
  if (message.method === "ui/notifications/initialized") {
    if (view.initialized) return;
    view.initialized = true;
    setViewState(view, "initialized", `sandbox ${SANDBOX} · initialized`);
    flushView(view);
  } else if (message.method === "ui/notifications/size-changed") {
    if (typeof params.height === "number" && Number.isFinite(params.height)) {
      const height = Math.min(VIEW_HEIGHT.max, Math.max(VIEW_HEIGHT.min, Math.ceil(params.height)));
      view.frame.style.height = `${height}px`;
    }
  } else if (message.method === "ui/notifications/request-teardown") {
    closeView("the view asked to be closed");
  }
  // Anything else (notifications/message, …) is in the message log and needs nothing more.
}

// After `initialized`, the call's arguments, then its outcome once it is there: each once.
function flushView(view) {
  if (!view.initialized || !current(view)) return;
  if (!view.inputSent) {
    view.inputSent = true;
    sendToView(view, { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: view.args } });
  }
  if (view.outcome && !view.outcomeSent) {
    view.outcomeSent = true;
    if (view.outcome.result) {
      sendToView(view, { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: view.outcome.result });
    } else {
      sendToView(view, { jsonrpc: "2.0", method: "ui/notifications/tool-cancelled", params: { reason: view.outcome.cancelled } });
    }
  }
}

function initializeResult(view) {
  return {
    protocolVersion: APPS_PROTOCOL_VERSION,
    hostInfo: HOST_INFO,
    hostCapabilities: { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    hostContext: {
      toolInfo: { tool: view.tool },
      theme: "light",
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      containerDimensions: { width: Math.floor(view.frame.getBoundingClientRect().width), maxHeight: VIEW_HEIGHT.max },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: "web",
      userAgent: `${HOST_INFO.name}/${HOST_INFO.version}`,
    },
  };
}

// One thing the view asked for, shown in the card: with Approve and Deny when it needs a grant
// (its `decision` then resolves to "approved", "denied" or "closed").
function addAsk(view, { method, status, text, detail, grant = false, buttons = [] }) {
  const list = $(".view-asks", appsCard());
  const item = el("li", { class: "ask", "data-method": method, "data-status": status },
    el("p", { class: "ask-text", text }),
    detail ? el("pre", { class: "ask-detail", text: detail }) : null);
  const line = el("p", { class: "ask-status" });
  if (grant) {
    const approve = el("button", { type: "button", "data-action": "approve", text: "Approve" });
    const deny = el("button", { type: "button", "data-action": "deny", text: "Deny" });
    item.append(el("div", { class: "actions grant-actions" }, approve, deny));
    const decision = decide(approve, deny);
    item.decision = decision.promise;
    item.settle = decision.settle;
    line.textContent = "Host grant: waiting for your decision";
  }
  if (buttons.length) item.append(el("div", { class: "actions" }, ...buttons));
  item.append(line);
  list.append(item);
  while (list.children.length > VIEW_ASKS_LIMIT) {
    const first = list.firstElementChild;
    if (first.settle) first.settle("denied");
    first.remove();
  }
  item.scrollIntoView({ block: "nearest" });
  return item;
}

// A decided ask: its status, and no more buttons of a grant.
function setAsk(item, status, text) {
  item.dataset.status = status;
  $(".ask-status", item).textContent = text;
  if (item.settle) $(".grant-actions", item)?.remove();
}

// The view's tools/call: a tool of this server's list whose visibility includes "app", after the
// person's grant; then the server's answer, as it is, to the view.
async function viewToolCall(view, params, reply) {
  const name = params.name;
  if (typeof name !== "string") {
    reply({ error: { code: -32602, message: "tools/call names its tool in params.name" } });
    return;
  }
  const tool = apps.tools.find((t) => t.name === name);
  if (!tool || !visibilityOf(tool).includes("app")) {
    const why = tool ? `its visibility is ${JSON.stringify(visibilityOf(tool))}, without "app"` : "this server listed no such tool";
    addAsk(view, { method: "tools/call", status: "refused", text: `The view asked to call ${name}: refused without asking you (${why})` });
    reply({ error: { code: HOST_REFUSED, message: `The host refuses tools/call ${name}: ${why}` } });
    return;
  }
  const args = params.arguments === undefined ? {} : params.arguments;
  const ask = addAsk(view, { method: "tools/call", status: "waiting", text: `The view asks to call ${name}`, detail: pretty(args), grant: true });
  ask.dataset.tool = name;
  const choice = await ask.decision;
  if (!current(view)) return;
  if (choice !== "approved") {
    setAsk(ask, "denied", "Host grant: denied · no tools/call sent");
    reply({ error: { code: HOST_REFUSED, message: `The host denied tools/call ${name}` } });
    return;
  }
  setAsk(ask, "running", "Host grant: approved · tools/call sent");
  const token = params._meta && params._meta.progressToken;
  const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
  const answer = await request("tools/call", { name, arguments: args, _meta: requestMeta({ apps: true, progressToken }) }, {
    toolSchema: tool.inputSchema,
    via: "view",
    onNotification: (m) => {
      if (progressToken !== undefined && m.method === "notifications/progress" && current(view)) sendToView(view, m);
    },
  });
  if (!current(view)) return;
  if (answer.failure) {
    setAsk(ask, "error", `Host grant: approved · tools/call failed: ${failureText(answer)}`);
    reply({ error: { code: -32603, message: `tools/call ${name}: ${answer.failure}` } });
  } else if (answer.message.error) {
    setAsk(ask, "error", `Host grant: approved · tools/call answered ${errorText(answer.message)}`);
    reply({ error: answer.message.error });
  } else {
    const outcome = callOutcome(answer);
    if (outcome.cancelled) {
      setAsk(ask, "error", `Host grant: approved · ${outcome.cancelled}`);
      reply({ error: { code: -32603, message: outcome.cancelled } });
    } else {
      setAsk(ask, "completed", `Host grant: approved · tools/call returned${outcome.result.isError ? " isError" : ""}`);
      reply({ result: outcome.result });
    }
  }
}

// The ui:// views this server's tools link to: the templates this page reads itself to render.
function linkedViews() {
  return new Set(apps.tools.map(viewOf).filter(Boolean));
}

// The view's resources/read, to this server (the only one this page speaks to), shown with its URI.
async function viewRead(view, params, reply) {
  const uri = params.uri;
  if (typeof uri !== "string") {
    reply({ error: { code: -32602, message: "resources/read names its resource in params.uri" } });
    return;
  }
  let ask;
  let granted = "";
  // Grant-free only for the server's linked ui:// views (this page reads them itself); any other URI waits for your grant, which the Apps spec lets a host ask.
  if (linkedViews().has(uri)) {
    ask = addAsk(view, { method: "resources/read", status: "running", text: "The view reads a ui:// view of this server (no grant: this page reads the views itself)", detail: uri });
  } else {
    ask = addAsk(view, { method: "resources/read", status: "waiting", text: "The view asks to read a resource that is not a view of this server", detail: uri, grant: true });
    const choice = await ask.decision;
    if (!current(view)) return;
    if (choice !== "approved") {
      setAsk(ask, "denied", "Host grant: denied · no resources/read sent");
      reply({ error: { code: HOST_REFUSED, message: `The host denied resources/read ${uri}` } });
      return;
    }
    granted = "Host grant: approved · ";
    setAsk(ask, "running", `${granted}resources/read sent`);
  }
  const answer = await request("resources/read", { uri, _meta: requestMeta({ apps: true }) }, { via: "view" });
  if (!current(view)) return;
  if (answer.failure) {
    setAsk(ask, "error", `${granted}resources/read failed: ${failureText(answer)}`);
    reply({ error: { code: -32603, message: `resources/read ${uri}: ${answer.failure}` } });
  } else if (answer.message.error) {
    setAsk(ask, "error", `${granted}resources/read answered ${errorText(answer.message)}`);
    reply({ error: answer.message.error });
  } else {
    setAsk(ask, "completed", `${granted}resources/read returned`);
    reply({ result: answer.message.result || {} });
  }
}

// ui/open-link: shown with a button; the link opens only when the person clicks it (http and
// https only, without opener or referrer).
function viewOpenLink(view, params, reply) {
  let url = null;
  try {
    url = new URL(String(params.url));
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    addAsk(view, { method: "ui/open-link", status: "refused", text: "The view asked to open a link that is not http or https: refused", detail: plain(params.url) });
    reply({ error: { code: HOST_REFUSED, message: "The host opens http and https links only" } });
    return;
  }
  const href = url.href;
  const open = el("button", {
    type: "button", "data-action": "open-link", text: "Open in a new tab",
    onclick: () => window.open(href, "_blank", "noopener,noreferrer"),
  });
  addAsk(view, { method: "ui/open-link", status: "completed", text: "The view asks to open a link (it opens only if you click)", detail: href, buttons: [open] });
  reply({ result: {} });
}

// Closes the view: ui/resource-teardown first when it is initialized (its answer awaited at most
// TEARDOWN_MS), then the frame is removed. Grants it still waits for are closed unanswered.
function closeView(reason) {
  const view = apps.view;
  if (!view) return Promise.resolve();
  if (view.closing) return view.closing;
  view.closing = (async () => {
    for (const item of appsCard().querySelectorAll(".view-asks .ask")) {
      if (item.settle && item.dataset.status === "waiting") {
        item.settle("closed");
        setAsk(item, "closed", "Host grant: not given · the view was closed");
      }
    }
    setViewState(view, "closing", `closing (${reason})`);
    if (view.initialized && view.frame) {
      const id = `lab-teardown-${++view.nextId}`;
      const answered = new Promise((resolve) => view.pending.set(id, resolve));
      sendToView(view, { jsonrpc: "2.0", id, method: "ui/resource-teardown", params: {} });
      await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, TEARDOWN_MS))]);
    }
    if (view.frame) view.frame.remove();
    view.frame = null;
    setViewState(view, "closed", `closed (${reason})`);
    if (apps.view === view) apps.view = null;
    appsButton("close-view").disabled = true;
  })();
  return view.closing;
}

function resetApps() {
  const box = appsCard();
  apps.resets += 1;
  if (apps.runGrant) apps.runGrant.settle("denied");
  apps.runGrant = null;
  closeView("the page was reset").then(() => {
    if (apps.view) return;
    $(".view", box).hidden = true;
    $(".view-log", box).replaceChildren();
    $(".view-log-box .count", box).textContent = "";
    viewCounter.value = 0;
  });
  box.hidden = true;
  apps.tools = [];
  apps.runnable = [];
  apps.chosen = null;
  $(":scope > h3 .count", box).textContent = "not listed";
  $(".pick", box).replaceChildren();
  $(".pick", box).disabled = true;
  $(".form", box).replaceChildren();
  $(".payload", box).textContent = "";
  $(".tool-description", box).textContent = "";
  $(":scope > .grant", box).textContent = "Host grant: not asked yet";
  appsNote("idle", "not listed yet");
  refreshRun();
}

function wireApps() {
  appsButton("list-apps").addEventListener("click", listAppTools);
  appsButton("run-app").addEventListener("click", runApp);
  appsButton("close-view").addEventListener("click", () => closeView("closed by you"));
  for (const id of ["#cap-roots", "#cap-sampling", "#cap-elicitation", "#client-name", "#client-version", "#protocol-version"]) {
    $(id).addEventListener("input", showAppPayload);
  }
  window.addEventListener("message", onViewMessage);
  refreshRun();
}

function reset() {
  lab.nextId = 0;
  transcript.value = 0;
  lab.discovered = null;
  $("#transcript").replaceChildren();
  $("#envelope-count").textContent = "0 exact envelopes";
  for (const name of ["discover", ...Object.keys(KINDS)]) {
    const node = step(name);
    setStatus(node, "idle");
    $(".live", node).replaceChildren();
  }
  for (const kind of Object.keys(KINDS)) {
    const box = card(kind);
    $(".pick", box).replaceChildren();
    $(".pick", box).disabled = true;
    $(".form", box).replaceChildren();
    $(".inputs", box).replaceChildren();
    $(".payload", box).textContent = "";
    $(".description", box).textContent = "";
    $(".count", box).textContent = "not listed";
    $(".grant", box).textContent = "Host grant: not asked yet";
    $(".outcome", box).hidden = true;
    box.chosen = null;
  }
  resetSkills();
  resetApps();
  setStatus($("#overall"), "idle");
}

async function run() {
  if (lab.running) return;
  lab.running = true;
  $("#run").disabled = true;
  $("#reset").disabled = true;
  reset();
  setStatus($("#overall"), "running");
  try {
    lab.discovered = await discover();
    offerSkills(lab.discovered);
    offerApps(lab.discovered);
    for (const kind of Object.keys(KINDS)) await primitive(kind);
    const states = [...document.querySelectorAll(".steps li")].map((n) => n.dataset.status);
    setStatus($("#overall"), states.every((s) => s === "completed") ? "completed" : "finished");
  } catch (error) {
    setStatus($("#overall"), "error", `error: ${error.message}`);
  } finally {
    lab.running = false;
    $("#run").disabled = false;
    $("#reset").disabled = false;
  }
}

// ---------------------------------------------------------------- subscriptions/listen

async function openListen() {
  if (lab.listen) return;
  const notifications = {};
  if ($("#listen-tools").checked) notifications.toolsListChanged = true;
  if ($("#listen-resources").checked) notifications.resourcesListChanged = true;
  if ($("#listen-prompts").checked) notifications.promptsListChanged = true;
  const uris = $("#listen-uris").value.split("\n").map((l) => l.trim()).filter(Boolean);
  if (uris.length) notifications.resourceSubscriptions = uris;
  const controller = new AbortController();
  lab.listen = controller;
  const status = $("#listen-status");
  $("#listen-open").disabled = true;
  $("#listen-close").disabled = false;
  setStatus(status, "running", "opening");
  const log = $("#listen-log");
  lab.listens = (lab.listens || 0) + 1;
  const id = `listen-${lab.listens}`;
  const message = {
    jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications, _meta: requestMeta() },
  };
  const headers = requestHeaders(message);
  record(log, "client→server", message, { counter: listenCounter, label: message.method, http: `POST ${ENDPOINT}` });
  let ended = "closed";
  try {
    const response = await fetch(ENDPOINT, { method: "POST", headers, body: JSON.stringify(message), signal: controller.signal, cache: "no-store" });
    const http = `HTTP ${response.status} ${response.statusText}`.trim();
    if (!(response.headers.get("content-type") || "").startsWith("text/event-stream")) {
      const text = await response.text();
      let parsed = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
      record(log, "server→client", parsed, { counter: listenCounter, raw: text, http, challenge: response.headers.get("www-authenticate") });
      ended = parsed && parsed.error ? errorText(parsed) : http;
    } else {
      for await (const data of sseEvents(response.body)) {
        let incoming = null;
        try {
          incoming = JSON.parse(data);
        } catch {
          incoming = null;
        }
        record(log, "server→client", incoming, { counter: listenCounter, raw: data, http: "text/event-stream" });
        if (incoming && incoming.method === "notifications/subscriptions/acknowledged") setStatus(status, "open", "open");
        if (incoming && incoming.id !== undefined) ended = incoming.error ? errorText(incoming) : "ended by the server";
      }
    }
  } catch (error) {
    ended = controller.signal.aborted ? "closed" : `error: ${error.message}`;
  } finally {
    lab.listen = null;
    $("#listen-open").disabled = false;
    $("#listen-close").disabled = true;
    setStatus(status, "idle", ended);
  }
}

function closeListen() {
  if (lab.listen) lab.listen.abort();
}

// ---------------------------------------------------------------- wiring

document.addEventListener("DOMContentLoaded", () => {
  $("#endpoint").textContent = new URL(ENDPOINT, location.href).href;
  $("#protocol-version").addEventListener("input", () => {
    $("#wire-version").textContent = $("#protocol-version").value;
  });
  for (const id of ["#cap-roots", "#cap-sampling", "#cap-elicitation", "#client-name", "#client-version",
    "#protocol-version", "#ask-progress", "#log-level"]) {
    $(id).addEventListener("input", () => Object.keys(KINDS).forEach((k) => card(k).chosen && showPayload(k)));
  }
  $("#run").addEventListener("click", run);
  $("#reset").addEventListener("click", () => !lab.running && reset());
  $("#listen-open").addEventListener("click", openListen);
  $("#listen-close").addEventListener("click", closeListen);
  for (const button of document.querySelectorAll('.skills > .actions [data-action]')) {
    button.addEventListener("click", () => skillAction(button.dataset.action));
  }
  wireApps();
  document.body.dataset.ready = "true";
});
