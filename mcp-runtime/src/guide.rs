//! # The guide: from `cargo new` to a deployed server
//!
//! Each section is a small, compiled example. `examples/notes` is a whole server written this
//! way, with its tests in `tests/suite/notes.rs`. Read the chapters in order:
//!
//! 1. [Writing a server](writing): setup, a tool and serving it, arguments, results and
//!    errors, resources and prompts, skills, apps (sections 1–4).
//! 2. [Inside a handler](handlers): shared state, progress, logs and cancellation, asking the
//!    client (multi round-trip requests), tasks, caching, testing (sections 5–9).
//! 3. [Serving](serving): HTTP and stdio, publishing to the MCP Registry, deploying to AWS
//!    Lambda (section 10).
//! 4. [Protecting a server](protecting): tokens, scopes, local callers (section 11).
//! 5. [How a host uses your server](hosts): what a host sees of each tool, resource, prompt
//!    and task, and how the official SDKs get a task's result (section 12).
//! 6. [Composing and fronting servers](composing): other servers mounted in yours, in process
//!    or remote, and a gateway (section 13; feature `mounts`).

#[doc = include_str!("guide/writing.md")]
pub mod writing {}

#[doc = include_str!("guide/handlers.md")]
pub mod handlers {}

#[doc = include_str!("guide/serving.md")]
pub mod serving {}

#[doc = include_str!("guide/protecting.md")]
pub mod protecting {}

#[doc = include_str!("guide/hosts.md")]
pub mod hosts {}

#[cfg_attr(feature = "mounts", doc = include_str!("guide/composing.md"))]
#[cfg_attr(
    not(feature = "mounts"),
    doc = "## 13. Composing and fronting servers\n\nMounting other servers needs the `mounts` \
           feature: `mcp-runtime = { version = \"…\", features = [\"mounts\"] }` (and `client` \
           for remote ones). This chapter is in the documentation built with it."
)]
pub mod composing {}
