//! Serde types for every message a 2026-07-28 server receives or sends.
//!
//! This module does no I/O. Field names follow the wire (`camelCase`, `_meta`); optional fields are
//! left out of the wire form when `None`.
//!
//! ```
//! use mcp_runtime::protocol::CallToolRequestParams;
//! let text = r#"{"name": "add", "arguments": {"a": 1, "b": 2},
//!     "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
//!               "io.modelcontextprotocol/clientCapabilities": {}}}"#;
//! let p: CallToolRequestParams<'_> = serde_json::from_str(text).unwrap();
//! assert_eq!(p.name, "add");
//! assert_eq!(p.meta.unwrap().protocol_version.as_deref(), Some("2026-07-28"));
//! ```

mod apps;
mod capabilities;
mod content;
mod elicitation;
mod input_responses;
mod jsonrpc;
mod key;
mod messages;
pub(crate) mod meta;
mod method;
mod mrtr;
mod object;
mod ordered_map;
mod prompts;
mod readers;
mod request;
mod resources;
mod sampling;
mod skills;
mod tasks;
mod tools;
mod trace;

pub use apps::*;
pub use capabilities::*;
pub use content::*;
pub use elicitation::*;
pub use input_responses::RawInputResponses;
pub use jsonrpc::*;
pub use messages::*;
pub use meta::*;
pub(crate) use method::Offer;
pub(crate) use method::for_each_method;
pub use method::{Method, Named};
pub use mrtr::*;
pub use ordered_map::OrderedMap;
pub use prompts::*;
pub(crate) use request::KnownParams;
pub use request::{ClientMessage, ClientNotification, ClientParams, ClientRequest};
pub use resources::*;
pub use sampling::*;
pub use skills::*;
pub use tasks::*;
pub use tools::*;
pub use trace::{TRACEPARENT_KEY, TRACESTATE_KEY, TraceContext};
