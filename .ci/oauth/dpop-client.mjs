// A DPoP client made with oauth4webapi (pinned in package-lock.json), for tests/dpop: it shows
// that a widely used client library's DPoP-bound token and proofs (RFC 9449) are taken by an MCP
// server, and that the same token sent as Bearer is not.
//
//   node dpop-client.mjs ISSUER CLIENT_ID CLIENT_SECRET MCP_URL
//
// It discovers the authorization server ISSUER (OpenID Connect discovery), makes an ES256 key
// pair, gets a DPoP-bound access token by client credentials (client_secret_basic) for the
// resource MCP_URL with scope `notes:read`, then POSTs a 2026-07-28 `tools/call` of `whoami` to
// MCP_URL with that token and a proof of the key (the library adds `ath`; on a `use_dpop_nonce`
// challenge it keeps the server's `DPoP-Nonce`, and the request is sent once more), and at last
// the same call with the token as `Authorization: Bearer`, without proof. It prints one JSON
// line: {"token_type" (as the authorization server spelt it), "key_jkt" (the library's thumbprint
// of the key), "token_jkt" (the token's `cnf.jkt`), "as_nonce_retry", "dpop_status", "dpop_body"
// (the JSON-RPC answer), "dpop_challenges", "nonce_retry", "bearer_status", "bearer_challenge"
// (the WWW-Authenticate header), "bearer_challenges" (parsed by the library)}, and exits 0 (the
// caller judges the outcome); 1 if it could not run (the reason on stderr), 2 on a wrong usage.
// Every request is bounded by a timeout of 5 s, the whole run by 30 s.

import * as oauth from 'oauth4webapi';

const [issuerArg, clientId, clientSecret, mcpArg] = process.argv.slice(2);
if (!issuerArg || !clientId || clientSecret === undefined || !mcpArg) {
  console.error('usage: node dpop-client.mjs ISSUER CLIENT_ID CLIENT_SECRET MCP_URL');
  process.exit(2);
}
const issuer = new URL(issuerArg);
const mcpUrl = new URL(mcpArg);
const VERSION = '2026-07-28';
const REQUEST_TIMEOUT_MS = 5_000;
// The tests run against loopback servers over plain HTTP.
const http = {
  [oauth.allowInsecureRequests]: true,
  signal: () => AbortSignal.timeout(REQUEST_TIMEOUT_MS),
};
// Whatever happens, the process ends.
setTimeout(() => {
  console.error('dpop-client.mjs: gave up after 30 s');
  process.exit(1);
}, 30_000).unref();

// Retries `send` once when it fails for want of the server's DPoP nonce (which the DPoP handle
// has kept from the failed answer); `retried` says whether it had to.
async function withNonceRetry(send) {
  try {
    return { value: await send(), retried: false };
  } catch (err) {
    if (!oauth.isDPoPNonceError(err)) throw err;
    return { value: await send(), retried: true };
  }
}

// The parsed body of `response`: its JSON, the last JSON-RPC message of an event stream, the
// text, or null when empty.
async function bodyOf(response) {
  const text = await response.text();
  if (text === '') return null;
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const messages = text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .filter((data) => data !== '')
      .map((data) => JSON.parse(data));
    return messages.at(-1) ?? null;
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// A 2026-07-28 `tools/call` of `whoami` sent with `token` (with proofs of `dpop` if given):
// {status, body, challenge, challenges, retried}. A challenge in the answer is an outcome here,
// not an error.
async function callWhoami(token, dpop) {
  const message = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'whoami',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'oauth4webapi-dpop-client', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const send = () => oauth.protectedResourceRequest(
    token,
    'POST',
    mcpUrl,
    new Headers({
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': VERSION,
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'whoami',
    }),
    JSON.stringify(message),
    { ...http, ...(dpop ? { DPoP: dpop } : {}) },
  );
  // The answer, or the one a challenge error carries (with the challenges, parsed).
  const attempt = async () => {
    try {
      return { response: await send(), challenges: [], error: undefined };
    } catch (err) {
      if (!(err instanceof oauth.WWWAuthenticateChallengeError)) throw err;
      const challenges = err.cause.map(({ scheme, parameters }) => ({
        scheme,
        parameters: { ...parameters },
      }));
      return { response: err.response, challenges, error: err };
    }
  };
  let { response, challenges, error } = await attempt();
  let retried = false;
  // The DPoP handle kept the server's `DPoP-Nonce` from that answer: the next proof carries it.
  if (dpop && oauth.isDPoPNonceError(error)) {
    await response.body?.cancel();
    retried = true;
    ({ response, challenges } = await attempt());
  }
  return {
    status: response.status,
    body: await bodyOf(response),
    challenge: response.headers.get('www-authenticate'),
    challenges,
    retried,
  };
}

// The payload of a JWT (the access token is one: RFC 9068), or null.
function jwtClaims(token) {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

try {
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, http));
  const client = { client_id: clientId };
  const auth = oauth.ClientSecretBasic(clientSecret);
  const keyPair = await oauth.generateKeyPair('ES256');
  const dpop = oauth.DPoP(client, keyPair);

  // The token, bound to the key (retried once if the authorization server wants a nonce).
  let tokenType;
  const { value: grant, retried: asNonceRetry } = await withNonceRetry(async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      auth,
      { scope: 'notes:read', resource: mcpUrl.href },
      { ...http, DPoP: dpop },
    );
    // The library lowercases `token_type`: keep the authorization server's own spelling.
    tokenType = (await response.clone().json().catch(() => ({}))).token_type;
    return oauth.processClientCredentialsResponse(as, client, response);
  });
  const token = grant.access_token;

  const bound = await callWhoami(token, dpop);
  const bearer = await callWhoami(token, undefined);
  process.stdout.write(`${JSON.stringify({
    token_type: tokenType,
    key_jkt: await dpop.calculateThumbprint(),
    token_jkt: jwtClaims(token)?.cnf?.jkt ?? null,
    as_nonce_retry: asNonceRetry,
    dpop_status: bound.status,
    dpop_body: bound.body,
    dpop_challenges: bound.challenges,
    nonce_retry: bound.retried,
    bearer_status: bearer.status,
    bearer_challenge: bearer.challenge,
    bearer_challenges: bearer.challenges,
  })}\n`);
  process.exit(0);
} catch (err) {
  console.error('dpop-client.mjs failed:', err);
  // A refusal of the authorization server (ResponseBodyError) carries its error body.
  if (err instanceof oauth.ResponseBodyError) console.error('body:', JSON.stringify(err.cause));
  process.exit(1);
}
