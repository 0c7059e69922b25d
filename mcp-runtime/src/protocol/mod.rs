//! Serde types for every message a 2026-07-28 server receives or sends.
//!
//! This module does no I/O. Field names follow the wire (`camelCase`, `_meta`); optional fields are
//! left out of the wire form when `None`.
//!
//! ```
//! use mcp_runtime::protocol::{CallToolRequestParams, RequestMeta};
//! let p: CallToolRequestParams = serde_json::from_value(serde_json::json!({
//!     "name": "add", "arguments": {"a": 1, "b": 2},
//!     "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
//!               "io.modelcontextprotocol/clientCapabilities": {}}
//! })).unwrap();
//! assert_eq!(p.name, "add");
//! ```

mod content;
mod elicitation;
mod jsonrpc;
mod messages;
pub(crate) mod meta;
mod mrtr;

pub use content::*;
pub use elicitation::*;
pub use jsonrpc::*;
pub use messages::*;
pub use meta::*;
pub use mrtr::*;
