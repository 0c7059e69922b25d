//! What a server written with the framework usually needs, in one import.
//!
//! ```
//! use mcp_runtime::prelude::*;
//!
//! /// Add two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let server: Result<Server, BuildError> = Server::builder().tool(add {}).build();
//! assert!(server.is_ok());
//! ```

pub use crate::{
    BuildError, Caller, CancellationToken, ElicitForm, Elicitation, Error, HttpOptions, Json,
    Limits, Logger, McpError, Progress, Prompt, RequestContext, Resource, ResourceTemplate, Roots,
    Sampled, Server, Skills, State, Structured, Tool, handlers, prompt, resource, skills, tool,
};
