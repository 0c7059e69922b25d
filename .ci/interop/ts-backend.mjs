// A backend written with the official TypeScript SDK v2 server (@modelcontextprotocol/server,
// pinned in package-lock.json) for .ci/gateway-interop.sh: an McpServer with a tool with
// arguments (`multiply`), a tool that asks the user (`confirm`: an `input_required` result with an
// elicitation and an HMAC-sealed requestState, the 2026-07-28 multi-round-trip flow), a resource
// (`ts://motd`) and a prompt (`greet`), served by the SDK's own entries: createMcpHandler (a fresh
// server per request, 2026-07-28 plus the SDK's stateless 2025 fallback) under node:http, or
// serveStdio.
//
// Usage: node ts-backend.mjs --http PORT   (127.0.0.1:PORT/mcp; 0 picks a port; the URL is logged)
//        node ts-backend.mjs --stdio
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
} from '@modelcontextprotocol/server';

// One process serves every round, so a per-process key is enough.
const codec = createRequestStateCodec({ key: randomBytes(32) });

function factory() {
  const server = new McpServer(
    { name: 'ts-backend', version: '1.0.0' },
    { requestState: { verify: codec.verify } },
  );
  server.registerTool(
    'multiply',
    {
      description: 'Multiplies two numbers.',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      }),
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: `ts product ${a * b}` }] }),
  );
  server.registerTool(
    'confirm',
    {
      description: 'Deletes an item once the user says why.',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { item: { type: 'string' } },
        required: ['item'],
      }),
    },
    async ({ item }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'goal');
      const state = ctx.mcpReq.requestState();
      if (typeof answer?.goal !== 'string' || state?.item !== item) {
        return inputRequired({
          inputRequests: {
            goal: inputRequired.elicit({
              message: `Why delete ${item}?`,
              requestedSchema: {
                type: 'object',
                properties: { goal: { type: 'string' } },
                required: ['goal'],
              },
            }),
          },
          requestState: await codec.mint({ item }),
        });
      }
      return { content: [{ type: 'text', text: `ts deleted ${item}: ${answer.goal}` }] };
    },
  );
  server.registerResource(
    'motd',
    'ts://motd',
    { mimeType: 'text/plain', description: 'The message of the day.' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'ts motd: hello from the TypeScript SDK' }] }),
  );
  server.registerPrompt(
    'greet',
    {
      description: 'A greeting.',
      argsSchema: fromJsonSchema({
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      }),
    },
    async ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `ts greets ${name}` } }],
    }),
  );
  return server;
}

// node:http in front of the SDK's fetch-shaped handler (what @modelcontextprotocol/node's
// toNodeHandler does), loopback only.
async function serveHttp(port) {
  const handler = createMcpHandler(factory);
  const http = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
        else if (v !== undefined) headers.set(k, v);
      }
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        for await (const chunk of response.body) res.write(chunk);
      }
      res.end();
    } catch (err) {
      console.error(`ts-backend: ${err?.stack ?? err}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  http.listen(port, '127.0.0.1', () => {
    console.error(`ts-backend at http://127.0.0.1:${http.address().port}/mcp`);
  });
}

const [mode, port] = process.argv.slice(2);
if (mode === '--http' && port !== undefined) {
  await serveHttp(Number(port));
} else if (mode === '--stdio') {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(factory);
} else {
  console.error('usage: node ts-backend.mjs --http PORT | --stdio');
  process.exit(2);
}
