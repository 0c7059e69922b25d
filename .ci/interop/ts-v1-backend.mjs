// A 2025-only backend written with the TypeScript SDK v1 (@modelcontextprotocol/sdk 1.x, pinned in
// package-lock.json) for .ci/gateway-interop.sh: its low-level Server behind the SDK's stateful
// StreamableHTTPServerTransport (initialize, Mcp-Session-Id; it knows nothing of 2026-07-28 and
// server/discover), with a tool with arguments (`concat`), a tool that asks the user (`confirm`:
// elicitation/create sent mid-call, the only way a 2025 server can ask), a resource (`v1://motd`)
// and a prompt (`greet`).
//
// Usage: node ts-v1-backend.mjs PORT   (127.0.0.1:PORT/mcp; 0 picks a port; the URL is logged)
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';

function newServer() {
  const server = new Server(
    { name: 'ts-v1-backend', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'concat',
        description: 'Joins two strings.',
        inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a', 'b'] },
      },
      {
        name: 'confirm',
        description: 'Deletes an item once the user says why.',
        inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === 'concat') {
      return { content: [{ type: 'text', text: `v1 joined ${args.a}${args.b}` }] };
    }
    if (request.params.name === 'confirm') {
      const answer = await server.elicitInput({
        message: `Why delete ${args.item}?`,
        requestedSchema: { type: 'object', properties: { goal: { type: 'string' } }, required: ['goal'] },
      });
      if (answer.action !== 'accept') return { isError: true, content: [{ type: 'text', text: `not deleted (${answer.action})` }] };
      return { content: [{ type: 'text', text: `v1 deleted ${args.item}: ${answer.content.goal}` }] };
    }
    throw new Error(`unknown tool ${request.params.name}`);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: 'v1://motd', name: 'motd', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== 'v1://motd') throw new Error(`unknown resource ${request.params.uri}`);
    return { contents: [{ uri: 'v1://motd', mimeType: 'text/plain', text: 'v1 motd: hello from the TypeScript SDK v1' }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [{ name: 'greet', description: 'A greeting.', arguments: [{ name: 'name', required: true }] }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `v1 greets ${request.params.arguments?.name}` } }],
  }));
  return server;
}

// One transport (and server) per session, as the SDK's own examples do.
const sessions = new Map();
const http = createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    let body;
    if (chunks.length) {
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined || req.method !== 'POST' || !isInitializeRequest(body)) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no valid session ID' }, id: null }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (err) {
    console.error(`ts-v1-backend: ${err?.stack ?? err}`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});
const port = Number(process.argv[2] ?? 0);
http.listen(port, '127.0.0.1', () => {
  console.error(`ts-v1-backend at http://127.0.0.1:${http.address().port}/mcp`);
});
