#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The modules by layer, lowest first, one group a layer: a module imports from its own group
// and the groups above it, never from one below (ARCHITECTURE.md draws them).
mod bus;
mod error_path;
mod gcra;
mod json;
mod net;
pub mod protocol;
pub mod schema;
mod uri_template;

mod error;

#[cfg(feature = "otel")]
pub mod otel;
mod seal;

mod config;
mod context;

mod registry;

pub mod apps;
pub mod handler;

pub mod auth;
pub mod mrtr;
#[cfg(feature = "tasks")]
pub mod tasks;

pub mod dispatch;

pub mod layers;
pub mod legacy;

#[cfg(feature = "redis")]
pub mod redis;
pub mod transport;

pub mod client;
#[cfg(feature = "mounts")]
pub mod proxy;

mod server;

mod run;
mod server_json;
pub mod testing;

pub mod guide;
pub mod prelude;

// The root README's quick start, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod root_readme {}

#[doc(hidden)]
pub mod __private;

pub use bus::{Change, ChangeBus, LocalBus};
pub use config::{CacheHint, CacheTarget, Limits};
pub use context::{
    Caller, CancellationToken, FromContext, Logger, Progress, RequestContext, State, StateNeed,
};
pub use error::{BuildError, Error, McpError, SourceLocation};
pub use mcp_runtime_macros::{ElicitForm, app_sdk, handlers, prompt, resource, skills, tool};
pub use mrtr::{Ask, ElicitForm, Elicitation, KeyRing, Roots, Rounds, Sampled, Step};
#[cfg(feature = "skills")]
pub use registry::Skills;
pub use registry::{
    Completer, Json, NoArguments, PrimitiveKind, Prompt, Resource, ResourceTemplate, Structured,
    TaskSupport, Text, Tool,
};
pub use run::RunMode;
#[cfg(feature = "tasks")]
pub use server::TaskOptions;
pub use server::{LegacyOptions, Server, ServerBuilder};
pub use server_json::{SERVER_JSON_SCHEMA, ServerJson, ServerJsonError};
pub use transport::http::HttpOptions;
#[cfg(feature = "lambda")]
#[doc(inline)]
pub use transport::http::lambda;
#[cfg(feature = "server-card")]
pub use transport::http::{SERVER_CARD_SCHEMA, ServerCard};
pub use uri_template::UriTemplate;

/// The `schemars` this crate derives schemas with (1.x), for `#[schemars(crate =
/// "mcp_runtime::schemars")]` when it is not a dependency of your own.
pub use schemars;
/// The `serde_json` this crate reads and writes JSON with.
pub use serde_json;

/// The macros' reference examples (`mcp-runtime-macros/doc/*.md`, the docs of [`tool`] and the rest),
/// run as doctests of this crate, which re-exports the macros. The `skills!` one is a
/// `standalone_crate`: its folder is relative to the file it is written in, which a merged
/// doctest moves.
#[cfg(doctest)]
mod macro_reference {
    #[doc = include_str!("../../mcp-runtime-macros/doc/tool.md")]
    struct Tool;
    #[doc = include_str!("../../mcp-runtime-macros/doc/resource.md")]
    struct Resource;
    #[doc = include_str!("../../mcp-runtime-macros/doc/prompt.md")]
    struct Prompt;
    #[doc = include_str!("../../mcp-runtime-macros/doc/handlers.md")]
    struct Handlers;
    #[doc = include_str!("../../mcp-runtime-macros/doc/elicit_form.md")]
    struct ElicitForm;
    #[cfg(feature = "skills")]
    #[doc = include_str!("../../mcp-runtime-macros/doc/skills.md")]
    struct Skills;
    #[doc = include_str!("../../mcp-runtime-macros/doc/app_sdk.md")]
    struct AppSdk;
}
