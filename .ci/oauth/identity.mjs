// An authorization server for tests/suite/identity.rs: oidc-provider (pinned in package-lock.json), on
// 127.0.0.1:PORT (0: any free port), issuing opaque or JWT access tokens (RFC 9068) whose
// audience is the resource asked for (RFC 8707 resource indicators), with token introspection
// (RFC 7662) and revocation (RFC 7009).
//
//   node identity.mjs PORT
//
// Clients:
// - `app` (secret APP_SECRET, client_secret_basic): client credentials; JWT access tokens;
// - `opaque-app` (secret APP_SECRET, client_secret_basic): client credentials; opaque access
//   tokens, which it may revoke;
// - `rs` (secret RS_SECRET, client_secret_basic) and `rs-post` (secret RS_SECRET,
//   client_secret_post): the resource server's own credentials, for introspection only.
// Resources: any `http://127.0.0.1:PORT/mcp` or `http://localhost:PORT/mcp` (scope `notes:read`).
//
// Keys can be rotated while it runs: `POST /_rotate` publishes a new signing key beside the old
// one and signs with the new one from then on; `POST /_retire` removes every key but the newest;
// `POST /_rekey` replaces the newest key by a new one under the same `kid` (a server that reuses
// key ids). Each answers the `kid`s now published.
//
// When it listens it prints one JSON line: {"issuer", "token_endpoint", "jwks_uri",
// "introspection_endpoint", "revocation_endpoint"}; then one JSON line per introspection
// request, before it is answered: {"event": "introspection"}.

import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import Provider, { errors } from 'oidc-provider';
import { isResource } from './resources.mjs';

const APP_SECRET = 'app-secret';
// Characters both client authentication methods must form-encode (RFC 6749 §2.3.1).
const RS_SECRET = 'rs: s3cret/+&=';
const SCOPE = 'notes:read';
const TTL = 600;

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: node identity.mjs PORT');
  process.exit(2);
}

let generation = 0;
function newKey(kid) {
  if (!kid) generation += 1;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: kid ?? `key-${generation}`, alg: 'RS256', use: 'sig' };
}

const server = createServer();
server.listen(port, '127.0.0.1');
await once(server, 'listening');
const issuer = `http://127.0.0.1:${server.address().port}`;

const log = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const clientCredentials = (id, format) => ({
  client_id: id,
  client_secret: APP_SECRET,
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: SCOPE,
  'urn:test:format': format,
});
const resourceServerClient = (id, method) => ({
  client_id: id,
  client_secret: RS_SECRET,
  grant_types: [],
  response_types: [],
  redirect_uris: [],
  token_endpoint_auth_method: method,
});

// A provider signing with the newest of `keys` (the first), publishing them all.
function provider(keys) {
  const p = new Provider(issuer, {
    clients: [
      clientCredentials('app', 'jwt'),
      clientCredentials('opaque-app', 'opaque'),
      resourceServerClient('rs', 'client_secret_basic'),
      resourceServerClient('rs-post', 'client_secret_post'),
    ],
    extraClientMetadata: { properties: ['urn:test:format'] },
    jwks: { keys },
    scopes: [SCOPE],
    ttl: { ClientCredentials: TTL },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // The resource server's clients introspect any token; the others none.
        allowedPolicy: (ctx, client) => ['rs', 'rs-post'].includes(client.clientId),
      },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => false,
        getResourceServerInfo: (ctx, identifier, client) => {
          if (!isResource(identifier)) {
            throw new errors.InvalidTarget(`${identifier} is not a resource of this server`);
          }
          return {
            audience: identifier,
            scope: SCOPE,
            accessTokenFormat: client['urn:test:format'] ?? 'jwt',
            accessTokenTTL: TTL,
            jwt: { sign: { alg: 'RS256', kid: keys[0].kid } },
          };
        },
      },
    },
  });
  p.on('server_error', (ctx, error) => console.error(error));
  return p;
}

let keys = [newKey()];
let current = provider(keys);
let handler = current.callback();

server.on('request', (req, res) => {
  const change = {
    '/_rotate': () => [newKey(), ...keys],
    '/_retire': () => keys.slice(0, 1),
    '/_rekey': () => [newKey(keys[0].kid), ...keys.slice(1)],
  }[req.url];
  if (req.method === 'POST' && change) {
    keys = change();
    current = provider(keys);
    handler = current.callback();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ kids: keys.map((k) => k.kid) }));
    return;
  }
  if (req.method === 'POST' && req.url === '/token/introspection') log({ event: 'introspection' });
  handler(req, res);
});

log({
  issuer,
  token_endpoint: current.urlFor('token'),
  jwks_uri: current.urlFor('jwks'),
  introspection_endpoint: current.urlFor('introspection'),
  revocation_endpoint: current.urlFor('revocation'),
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(0));
}
