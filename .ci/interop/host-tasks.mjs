// How a host gets a task's result from the notes example (examples/notes), with the official
// TypeScript client (@modelcontextprotocol/client) and the official tasks extension package
// (@modelcontextprotocol/ext-tasks), both pinned in package-lock.json. It connects over 2026-07-28,
// declares the tasks extension, creates three notes, calls `reindex` (which the server runs as a
// task), waits for the task through `tasks/get` (30 s at most) and checks its result.
// Cancelling (`tasks/cancel`, `execution.cancel()` here) is not shown: notes has no task slow
// enough to cancel before it ends.
//
// Usage: node host-tasks.mjs <http://127.0.0.1:PORT/mcp>
// Exits non-zero, with the reason on stderr, on any error or unexpected result.
// The part between the `guide:` markers is shown in the guide (mcp-runtime/src/guide/hosts.md,
// section 12); tests/suite/guide_hosts.rs checks that it is shown as it is here.

// guide: start
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';

const url = process.argv[2]; // the server's endpoint, like http://127.0.0.1:8000/mcp

// Declare the tasks extension: every request of this client then carries it.
const clientInfo = { name: 'notes-host', version: '1.0.0' };
const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const client = new Client(clientInfo, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);

// The Client rejects a tools/call answered with `resultType: "task"`, so ext-tasks sends task
// traffic through a raw dispatch the host provides: here, the client's own transport (which
// sets MCP-Protocol-Version, Mcp-Method and Mcp-Name from the body), its answers taken before
// the Client sees them.
const waiting = new Map();
let lastId = 0;
const sdkOnMessage = transport.onmessage;
transport.onmessage = (message, extra) => {
  const answer = waiting.get(message.id);
  if (answer && !('method' in message)) answer(message);
  else sdkOnMessage?.(message, extra);
};
async function rawDispatch(request, { signal } = {}) {
  const id = `tasks-${++lastId}`;
  const reply = new Promise((resolve, reject) => {
    waiting.set(id, resolve);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  try {
    await transport.send({ jsonrpc: '2.0', id, ...request }, { requestSignal: signal });
    const message = await reply;
    return 'error' in message ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result };
  } finally {
    waiting.delete(id);
  }
}
const tasks = createTaskSessionFromClient(client, {
  endpointId: url,
  rawDispatch,
  v2RequestFraming: { protocolVersion: client.getNegotiatedProtocolVersion(), clientInfo, clientCapabilities: capabilities },
});

// Ordinary calls go through the Client as before.
for (const text of ['Buy milk', 'Call Ada', 'Water the plants']) {
  await client.callTool({ name: 'create_note', arguments: { text } });
}

// A call the server may run as a task: an execution of kind "task" holds its handle, and
// settle() polls tasks/get (at the task's pollIntervalMs) until it is completed, failed or
// cancelled (an "immediate" one is settled already). Stop waiting after 30 s.
const execution = await tasks.callTool('reindex', {});
if (execution.kind === 'task') console.log(`task ${execution.handle.taskId}`);
const { outcome } = await execution.settle({
  signal: AbortSignal.timeout(30_000),
  onEvent: (event) => {
    if (event.type === 'task') console.log(`${event.task.status}: ${event.task.statusMessage ?? ''}`);
  },
});
const result = resultFromTaskOutcome(outcome); // the CallToolResult; throws if failed or cancelled
const text = result.content.map((block) => block.text).join('\n');
console.log(`result: ${text}`);
// guide: end

if (execution.kind !== 'task') throw new Error('reindex did not run as a task');
const reindexed = /^Reindexed (\d+) notes\.$/.exec(text);
if (!reindexed || Number(reindexed[1]) < 3) throw new Error(`unexpected reindex result: ${JSON.stringify(text)}`);
await tasks.close();
await client.close();
console.log('[host-tasks.mjs] OK');
