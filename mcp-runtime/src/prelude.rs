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
//!
//! // What the guide's own patterns name: a builder kept in a variable, an Apps view with its
//! // content policy, the command line's run mode.
//! let builder: ServerBuilder = Server::builder();
//! let view = UiResource::new("ui://board/view.html", "board")
//!     .html("<p>board</p>")
//!     .csp(Csp::new().connect_domains(["https://api.example.com"]));
//! let server = builder.resource(view).build().unwrap();
//! assert_eq!(RunMode::parse(["--stdio".to_owned()]).unwrap(), RunMode::Stdio);
//! # let _ = server;
//! ```

#[cfg(feature = "skills")]
pub use crate::Skills;
pub use crate::apps::{AppSdk, Csp, UiResource};
pub use crate::{
    BuildError, Caller, CancellationToken, ElicitForm, Elicitation, Error, HttpOptions, Json,
    Limits, Logger, McpError, Progress, Prompt, RequestContext, Resource, ResourceTemplate, Roots,
    RunMode, Sampled, Server, ServerBuilder, State, Structured, Tool, app_sdk, handlers, prompt,
    resource, skills, tool,
};
