//! What a handler takes and returns, for servers that write handlers by hand rather than with
//! `#[tool]`, `#[resource]` and `#[prompt]`: the request each kind of handler is handed, the
//! outcome it answers with (complete, or a round of client input), and the `Into*`
//! conversions from plain return types that the macros and the builders use.
//!
//! ```
//! use mcp_runtime::handler::{ToolCall, ToolOutcome};
//! use mcp_runtime::protocol::{CallToolResult, Content};
//! use mcp_runtime::{McpError, Server, Tool};
//!
//! async fn shout(call: ToolCall) -> Result<ToolOutcome, McpError> {
//!     let text = call.arguments.get("text").and_then(|t| t.as_str()).unwrap_or_default();
//!     let text = text.to_uppercase();
//!     Ok(ToolOutcome::Complete(CallToolResult::new(vec![Content::text(text)])))
//! }
//!
//! let server = Server::builder().tool(Tool::new("shout").raw_handler(shout)).build();
//! assert!(server.is_ok());
//! ```

pub use crate::registry::{
    Arguments, BoxFuture, CompletionRequest, Handlers, IntoPrimitive, IntoPrompt, IntoPromptResult,
    IntoResource, IntoResourceResult, IntoResourceTemplate, IntoTool, IntoToolResult, Primitive,
    PromptGet, PromptOutcome, ResourceOutcome, ResourceRead, ToolCall, ToolOutcome,
};
