// The latency benchmark's virtual users (k6; `mcp-bench-latency run` writes this file out and
// runs it). Environment: MCP_URL, MCP_ERA (2026-07-28: one stateless tools/call per
// iteration; 2024-11-05 or 2025-11-25: initialize, notifications/initialized, the call, DELETE),
// VUS, DURATION, SUMMARY (where the summary goes, as JSON).
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';

const URL = __ENV.MCP_URL;
const ERA = __ENV.MCP_ERA;
const ACCEPT = 'application/json, text/event-stream';

// The tools/call alone, whatever else an iteration sends.
const callMs = new Trend('call_ms', true);
// Answers that were not what the step expects (status or body).
const wrong = new Counter('wrong');
// tools/call answers framed as SSE rather than one JSON body.
const sse = new Counter('sse_answers');

export const options = {
  vus: Number(__ENV.VUS || 50),
  duration: __ENV.DURATION || '30s',
  summaryTrendStats: ['med', 'p(99)', 'avg', 'max', 'count'],
};

function callBody(id, meta) {
  const params = { name: 'lookup', arguments: { key: `user${__VU}` } };
  if (meta) {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': ERA,
      'io.modelcontextprotocol/clientInfo': { name: 'k6', version: '1.1.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
  }
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
}

function call(body, headers) {
  const res = http.post(URL, body, { headers });
  callMs.add(res.timings.duration);
  const type = res.headers['Content-Type'] || '';
  if (type.startsWith('text/event-stream')) {
    sse.add(1);
  }
  if (res.status !== 200 || !res.body || !res.body.includes(`user${__VU}: rate`)) {
    wrong.add(1);
  }
}

function expect(res, status) {
  if (res.status !== status) {
    wrong.add(1);
    return false;
  }
  return true;
}

export default function () {
  const json = { 'Content-Type': 'application/json', Accept: ACCEPT };
  if (ERA === '2026-07-28') {
    call(callBody(1, true), Object.assign({
      'MCP-Protocol-Version': ERA, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'lookup',
    }, json));
    return;
  }
  const init = http.post(URL, JSON.stringify({
    jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: ERA, capabilities: {}, clientInfo: { name: 'k6', version: '1.1.0' } },
  }), { headers: json });
  const sid = init.headers['Mcp-Session-Id'];
  if (!expect(init, 200) || !sid) {
    return;
  }
  // 2024-11-05 clients send no MCP-Protocol-Version header (it came with 2025-06-18).
  const session = Object.assign({ 'Mcp-Session-Id': sid }, json);
  if (ERA !== '2024-11-05') {
    session['MCP-Protocol-Version'] = ERA;
  }
  expect(http.post(URL, '{"jsonrpc":"2.0","method":"notifications/initialized"}', { headers: session }), 202);
  call(callBody(1, false), session);
  expect(http.del(URL, null, { headers: session }), 200);
}

export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data) };
}
