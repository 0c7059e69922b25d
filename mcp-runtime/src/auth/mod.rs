//! Authorization, in two stages.
//!
//! **Authentication** (HTTP only): with [`HttpOptions::auth`](crate::HttpOptions::auth), this
//! server is an OAuth 2.1 resource server ([`ResourceServer`]). Every request's
//! `Authorization: Bearer` token is checked by a [`TokenVerifier`] (the built-in
//! `jwt::JwtVerifier` with the `jwt` feature), and becomes the request's
//! [`Caller`](crate::Caller). A missing or invalid token gets 401 with a `WWW-Authenticate`
//! challenge; the protected resource metadata (RFC 9728, [`ProtectedResourceMetadata`]) is served
//! at the well-known URIs.
//!
//! **Authorization** (every transport): each tool, resource, template and prompt may require
//! scopes (`#[tool(scopes = ["docs:read"])]`, `Tool::scopes`) and a custom asynchronous check
//! ([`AccessCheck`]: `Tool::authorize`, or one for the whole server with
//! [`ServerBuilder::authorize`](crate::ServerBuilder::authorize)). A caller lists only what it
//! may use (such lists are `cacheScope: "private"`), and a refused primitive never runs: the
//! request is answered `-32602` with `data.requiredScopes`, which HTTP sends as 401 (no token) or
//! 403 `insufficient_scope` with a challenge. Other primitives keep working for the same caller.
//!
//! ```
//! use mcp_runtime::{NoArguments, Server, Tool};
//! let server = Server::builder()
//!     .tool(Tool::new("search_private_docs")
//!         .scopes(["docs:read"])
//!         .handler(|_: NoArguments, _cx| async { "found" }))
//!     .build()
//!     .unwrap();
//! ```

mod challenge;
#[cfg(feature = "jwt")]
pub mod dpop;
#[cfg(feature = "jwt")]
pub mod introspect;
#[cfg(feature = "jwt")]
pub mod jwt;
mod metadata;
mod resource_server;
mod verifier;

pub use crate::registry::{AccessCheck, AccessRequest, Denied, Purpose};
pub(crate) use challenge::Challenge;
pub use metadata::ProtectedResourceMetadata;
pub(crate) use metadata::WELL_KNOWN;
pub use resource_server::ResourceServer;
pub use verifier::{TokenError, TokenVerifier, verifier_fn};
