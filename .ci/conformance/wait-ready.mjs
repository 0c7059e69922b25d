// Waits until an MCP server answers `server/discover` at the URL given, or fails after a timeout.
// Usage: node wait-ready.mjs <url> [timeout-seconds]

const [url, timeoutSeconds = '60'] = process.argv.slice(2);
const deadline = Date.now() + Number(timeoutSeconds) * 1000;
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

for (;;) {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'server/discover',
      },
      body,
      signal: AbortSignal.timeout(2000),
    });
    const text = await res.text();
    if (res.ok && text.includes('supportedVersions')) {
      console.log(`server ready at ${url}`);
      process.exit(0);
    }
  } catch {
    // Not listening yet.
  }
  if (Date.now() > deadline) {
    console.error(`the server at ${url} did not answer server/discover within ${timeoutSeconds} s`);
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}
