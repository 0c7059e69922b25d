//! A client of MCP servers: [`Client`], one API over every way of reaching a server.
//!
//! - **In process** (`Client::new(server)`): a [`Server`](crate::Server) of this crate through
//!   the whole pipeline minus HTTP, as [`TestClient`](crate::testing::TestClient) (the same
//!   type) does in tests.
//! - **Streamable HTTP** (`Client::http(url)`, feature `client`): the 2026-07-28 revision when
//!   the server answers `server/discover`, else a 2025-11-25 (or 2025-06-18) session; pooled
//!   keep-alive connections; a bearer token or any headers per client.
//! - **stdio** (`Client::stdio(command, args)`, feature `client`): a child process, its
//!   requests told apart by id, progress token and subscription id.
//!
//! Requests for client input are *driven* by the typed calls (answered with the callbacks you
//! configure and retried) or *relayed* by [`Client::request`] (handed back untouched). Every
//! remote request is bounded: a timeout (60 s unless set), a largest message (16 MiB), and
//! errors that say which server failed and how ([`ClientError`]).
//!
//! What only a client runs is `#[inline]` (its calls are `async`, compiled where they are
//! awaited): the in-process client is compiled by the programs that use one (tests, servers
//! that mount others), not into every server (BENCHMARKS.md, "Metrics, result views and
//! patterns behind features").
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use mcp_runtime::client::Client;
//! use mcp_runtime::{NoArguments, Server, Tool};
//! use serde_json::json;
//!
//! let server = Server::builder()
//!     .tool(Tool::new("hello").handler(|_: NoArguments, _cx| async { "Hello!" }))
//!     .build()
//!     .unwrap();
//! let client = Client::new(server);
//! let result = client.call_tool("hello", json!({})).await.unwrap();
//! assert_eq!(result.text(), "Hello!");
//! # }
//! ```

#[cfg(feature = "client")]
mod abandon;
mod answers;
mod api;
#[cfg(feature = "client")]
mod credentials;
mod error;
mod headers;
#[cfg(feature = "client")]
mod http;
mod link;
mod listening;
#[cfg(feature = "client")]
mod remote;
#[cfg(feature = "client")]
mod resume;
mod rounds;
#[cfg(feature = "client")]
mod session;
#[cfg(feature = "client")]
mod settings;
#[cfg(feature = "client")]
mod sse;
#[cfg(feature = "client")]
mod stdio;
mod tasks;

pub use answers::Elicited;
pub use api::Client;
#[cfg(feature = "client")]
pub use credentials::{Credentials, OAuthClient};
pub use error::ClientError;
pub(crate) use link::{Exchange, Link, Outbound};
pub use listening::Listening;
#[cfg(feature = "client")]
pub use remote::Remote;
#[cfg(feature = "client")]
pub use settings::Revision;
