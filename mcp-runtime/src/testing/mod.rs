//! An in-process client for testing a server: typed calls through the whole pipeline (the same
//! entry the transports use, minus HTTP), no sockets.
//!
//! The client answers the server's requests for client input itself (elicitation, sampling,
//! roots) with the answers you configure, collects progress and log notifications, and can
//! honour caching hints (`ttlMs`) like a real client, to show what a client would be served.
//! With the `jwt` feature, `TestIssuer` mints access tokens for tests of a protected server.
//! [`assert_portable_schemas`] fails a test when a tool's listed `inputSchema` is one hosts'
//! converters would misread.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use mcp_runtime::testing::TestClient;
//! use mcp_runtime::{NoArguments, Server, Tool};
//! use serde_json::json;
//!
//! let server = Server::builder()
//!     .tool(Tool::new("hello").handler(|_: NoArguments, _cx| async { "Hello!" }))
//!     .build()
//!     .unwrap();
//! let client = TestClient::new(server);
//! let result = client.call_tool("hello", json!({})).await.unwrap();
//! assert_eq!(result.text(), "Hello!");
//! assert_eq!(client.list_tools().await.unwrap()[0].name, "hello");
//! # }
//! ```

mod apps;
mod client;
#[cfg(feature = "jwt")]
mod issuer;
mod portable;

pub use crate::client::{ClientError, Elicited, Listening};
pub use apps::AppView;
pub use client::TestClient;
#[cfg(feature = "jwt")]
pub use issuer::TestIssuer;
pub use portable::{NonPortableSchema, assert_portable_schemas, non_portable_schemas};
