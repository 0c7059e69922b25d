// What the test authorization servers (as.mjs, identity.mjs) share.

// A resource they issue tokens for: an MCP endpoint on a loopback host.
export function isResource(identifier) {
  const url = URL.parse(identifier);
  return url !== null
    && url.protocol === 'http:'
    && ['127.0.0.1', 'localhost'].includes(url.hostname)
    && url.pathname === '/mcp'
    && !url.search && !url.hash;
}
