//! MCP Apps (the `io.modelcontextprotocol/ui` extension): views a host renders beside a tool's
//! result. [`UiResource`] is an app's HTML document at a `ui://` URI with what its host must
//! allow it ([`Csp`], [`AppPermissions`]); [`AppSdk`] the official SDK put before its first
//! script (`app_sdk!`); [`ResultView`] a view generated from a tool's result type, with no HTML
//! to write; [`Visibility`] who may call a tool linked to a view.
//!
//! ```
//! use mcp_runtime::apps::{Csp, UiResource, Visibility};
//! use mcp_runtime::{NoArguments, Tool};
//! let view = UiResource::new("ui://board/view.html", "board")
//!     .html("<p>the board</p>")
//!     .csp(Csp::new().connect_domains(["https://api.example.com"]));
//! let tool = Tool::new("show_board")
//!     .handler(|_: NoArguments, _cx| async { "shown" })
//!     .ui("ui://board/view.html")
//!     .visibility([Visibility::Model, Visibility::App]);
//! ```

pub use crate::registry::{AppPermissions, AppSdk, Csp, ResultView, UiResource, Visibility};
