//! DPoP (RFC 9449) over real HTTP: a resource server taking DPoP-bound access tokens, in both
//! eras (2026-07-28 requests and 2025-11-25 sessions on the same endpoint).
//!
//! The cases of the conformance suite's DPoP server scenario (`auth/dpop-server-validation`):
//! a valid proof accepted; a tampered signature, no `jti`, a wrong `typ`, `htu` or `htm`, a
//! private key in `jwk`, a wrong or absent `ath`, no `htm`, `htu`, `iat` or `jwk`, two `DPoP`
//! headers, a proof that is no JWT, a `cnf.jkt` of another key, `iat` 303 s ahead or behind,
//! `alg: none`, HS256, a token for another audience: each a 401 with a `DPoP` challenge. A
//! bound token sent as Bearer is refused. The server nonce (`use_dpop_nonce`, `DPoP-Nonce`),
//! the replay cache, `Dpop::required`, and the metadata fields. Proofs are signed with EC P-256
//! keys made by ring (and RSA and Ed25519 ones); thumbprints are computed by `jsonwebtoken`,
//! not by the server's code. `authority`: a token bound by oidc-provider, a certified
//! authorization server; `library`: that token and its proofs made by oauth4webapi, a client
//! library (both need `npm ci --prefix .ci/oauth`; `MCP_SKIP_OAUTH=1` skips them).
//!
//! One module a concern: `support` (keys, proofs, the server, the checks of a refusal),
//! `eras`, `proofs` (the refusals), `settings`, `authority`, `library`.

use crate::common;
mod authority;
mod eras;
mod library;
mod proofs;
mod settings;
mod support;
