// The MCP laboratory: a 2026-07-28 client in the page. It speaks to the server's own endpoint
// only (same origin; the page's Content-Security-Policy allows nothing else), shows each envelope
// as sent and received, and asks the user, as the host, to grant each primitive separately.
"use strict";

const ENDPOINT = document.querySelector('meta[name="mcp-endpoint"]').content;
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
  trace("client→server", message, { label: method, http: `POST ${ENDPOINT} · ${shown}` });
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
          trace("server→client", null, { label: "unparsable event", raw: data, http });
          continue;
        }
        if (incoming && incoming.id !== undefined && ("result" in incoming || "error" in incoming)) {
          trace("server→client", incoming, { http: `${http} · text/event-stream` });
          return { message: incoming, status: response.status };
        }
        trace("server→client", incoming, { http: "text/event-stream" });
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
      trace("server→client", incoming, { http, challenge });
      return { message: incoming, status: response.status, challenge };
    }
    trace("server→client", null, { label: http, raw: text, http, challenge });
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

// One request with the page's `_meta` after `params`: { result } when it completes, otherwise
// { failure, challenge } (a result other than `complete` is a failure here: the callers answer no
// client input).
async function requestResult(method, params) {
  const answer = await request(method, { ...params, _meta: requestMeta() });
  if (answer.failure) return { failure: answer.failure, challenge: answer.challenge };
  if (answer.message.error) return { failure: errorText(answer.message), challenge: answer.challenge };
  const result = answer.message.result || {};
  if (result.resultType !== undefined && result.resultType !== "complete") {
    return { failure: `resultType ${result.resultType}, which this request does not expect` };
  }
  return { result };
}

// Every page of a list (its items in the result's `key`), following nextCursor: { items }, or the
// failure of the first page that fails.
async function listPages(method, key, params = {}) {
  const items = [];
  let cursor;
  do {
    const answer = await requestResult(method, cursor === undefined ? params : { ...params, cursor });
    if (answer.failure) return answer;
    if (!lab.discovered) showServer(answer.result);
    items.push(...(answer.result[key] || []));
    cursor = answer.result.nextCursor;
  } while (cursor !== undefined && cursor !== null);
  return { items };
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
  document.body.dataset.ready = "true";
});
