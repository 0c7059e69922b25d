// An OAuth 2.0 authorization server for tests/oauth_mounts/: oidc-provider (pinned in
// package-lock.json), on 127.0.0.1:PORT (0: any free port), issuing JWT access tokens (RFC 9068)
// whose audience is the resource asked for (RFC 8707 resource indicators).
//
//   node as.mjs PORT [EXCHANGED_AUDIENCE]
//
// Two clients, both authenticating with client_secret_basic:
// - `gateway` (secret GATEWAY_SECRET): client credentials (RFC 6749 §4.4) and token exchange
//   (RFC 8693), which oidc-provider has no handler for: the one registered below takes a subject
//   token this server issued, as a JWT access token for EXCHANGED_AUDIENCE (the gateway's own URL),
//   and issues an access token for the resource asked for that keeps the subject's `sub`, names
//   the gateway in `client_id` and in `act` (RFC 8693 §4.1);
// - `app` (secret APP_SECRET): client credentials only; its tokens stand for a caller.
// Resources: any `http://127.0.0.1:PORT/mcp` or `http://localhost:PORT/mcp` (scope `notes:read`).
//
// When it listens it prints one JSON line: {"issuer", "token_endpoint", "jwks_uri"}; then one
// JSON line for every answer of the token endpoint: {"event": "grant.success" | "grant.error",
// "grant_type", "client_id", "error"?}.

import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import * as jose from 'jose';
import Provider, { errors } from 'oidc-provider';
import { isResource } from './resources.mjs';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
// Characters client_secret_basic must form-encode (RFC 6749 §2.3.1): a client has to get it right.
const GATEWAY_SECRET = 'gateway: s3cret/+&=';
const APP_SECRET = 'app-secret';
const SCOPE = 'notes:read';
const TTL = 600;

const port = Number(process.argv[2]);
const exchangedAudience = process.argv[3];
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: node as.mjs PORT [EXCHANGED_AUDIENCE]');
  process.exit(2);
}

// The signing key, fresh on every start.
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'as-1', alg: 'RS256', use: 'sig' };

function resourceServerInfo(identifier) {
  if (!isResource(identifier)) {
    throw new errors.InvalidTarget(`${identifier} is not a resource of this server`);
  }
  return {
    audience: identifier,
    scope: SCOPE,
    accessTokenFormat: 'jwt',
    accessTokenTTL: TTL,
  };
}

const server = createServer();
server.listen(port, '127.0.0.1');
await once(server, 'listening');
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'gateway',
      client_secret: GATEWAY_SECRET,
      grant_types: ['client_credentials', TOKEN_EXCHANGE],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: SCOPE,
    },
    {
      client_id: 'app',
      client_secret: APP_SECRET,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: SCOPE,
    },
  ],
  jwks: { keys: [jwk] },
  scopes: [SCOPE],
  ttl: {
    AccessToken: (ctx, token) => token.resourceServer?.accessTokenTTL ?? TTL,
    ClientCredentials: (ctx, token) => token.resourceServer?.accessTokenTTL ?? TTL,
  },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => false,
      getResourceServerInfo: (ctx, identifier) => resourceServerInfo(identifier),
    },
  },
  // An exchanged token names who acts for its subject (RFC 8693 §4.1).
  extraTokenClaims: (ctx, token) => (token.gty === TOKEN_EXCHANGE
    ? { act: { sub: token.clientId } }
    : undefined),
});

// RFC 8693: a subject token this server issued for the gateway's audience, for one resource.
async function tokenExchange(ctx) {
  const { params, client } = ctx.oidc;
  if (!params.subject_token) {
    throw new errors.InvalidRequest('missing required parameter subject_token');
  }
  if (params.subject_token_type !== ACCESS_TOKEN_TYPE) {
    throw new errors.InvalidRequest('subject_token_type must be an access token');
  }
  if (params.requested_token_type && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
    throw new errors.InvalidRequest('only access tokens are issued');
  }
  if (params.actor_token) {
    throw new errors.InvalidRequest('actor tokens are not supported');
  }
  if (!exchangedAudience) {
    throw new errors.UnauthorizedClient('this server exchanges no tokens (no audience configured)');
  }
  let subject;
  try {
    ({ payload: subject } = await jose.jwtVerify(params.subject_token, publicKey, {
      issuer,
      audience: exchangedAudience,
      typ: 'at+jwt',
      algorithms: ['RS256'],
    }));
  } catch (e) {
    throw new errors.InvalidGrant(`subject_token is invalid (${e.code ?? e.message})`);
  }
  const resources = [params.resource ?? params.audience].flat().filter(Boolean);
  if (resources.length !== 1) {
    throw new errors.InvalidTarget('exactly one resource (or audience) is required');
  }
  const resourceServer = new provider.ResourceServer(
    resources[0],
    resourceServerInfo(resources[0]),
  );
  const asked = new Set((params.scope ?? SCOPE).split(' '));
  const granted = [...asked].filter((s) => resourceServer.scopes.has(s)
    && (client.scope ?? '').split(' ').includes(s));

  const token = new provider.AccessToken({
    accountId: subject.sub,
    client,
    gty: TOKEN_EXCHANGE,
    scope: granted.join(' ') || undefined,
  });
  token.resourceServer = resourceServer;
  ctx.oidc.entity('AccessToken', token);
  const value = await token.save();
  ctx.body = {
    access_token: value,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: token.tokenType,
    expires_in: token.expiration,
    ...(token.scope ? { scope: token.scope } : {}),
  };
}

provider.registerGrantType(
  TOKEN_EXCHANGE,
  tokenExchange,
  [
    'audience',
    'resource',
    'scope',
    'requested_token_type',
    'subject_token',
    'subject_token_type',
    'actor_token',
    'actor_token_type',
  ],
  ['audience', 'resource'],
);

const log = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
provider.on('grant.success', (ctx) => log({
  event: 'grant.success',
  grant_type: ctx.oidc.params.grant_type,
  client_id: ctx.oidc.client?.clientId,
}));
provider.on('grant.error', (ctx, error) => log({
  event: 'grant.error',
  grant_type: ctx.oidc.params?.grant_type,
  client_id: ctx.oidc.client?.clientId,
  error: error.error,
}));
provider.on('server_error', (ctx, error) => console.error(error));

server.on('request', provider.callback());
log({
  issuer,
  token_endpoint: provider.urlFor('token'),
  jwks_uri: provider.urlFor('jwks'),
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(0));
}
