//! The registry of tools, resources, resource templates and prompts: their definitions
//! (builder API, handlers, results), what registers them, and the validated snapshot requests
//! are served from.

mod access;
mod app;
mod app_sdk;
mod arguments;
mod catalog;
mod complete;
mod future;
mod headers;
mod kind;
mod output;
mod primitive;
mod prompt;
mod resource;
mod result_layout;
pub(crate) mod result_view;
mod skills;
mod snapshot;
mod tool;

pub(crate) use access::Requirement;
pub use access::{AccessCheck, AccessRequest, Denied, Purpose};
pub use app::{AppPermissions, Csp, UiResource, Visibility};
pub use app_sdk::AppSdk;
pub use arguments::Arguments;
pub(crate) use catalog::Catalog;
pub use complete::{Completer, CompletionRequest};
pub use future::BoxFuture;
pub(crate) use headers::collect as collect_param_headers;
pub(crate) use headers::{HeaderKind, ParamHeader};
pub(crate) use kind::NameIndex;
pub use kind::PrimitiveKind;
pub use output::*;
pub(crate) use primitive::Items;
pub use primitive::{
    Build, Handlers, IntoPrimitive, IntoPrompt, IntoResource, IntoResourceTemplate, IntoTool,
    Primitive, Registration,
};
#[doc(hidden)]
pub use prompt::generated_prompt_handler;
pub use prompt::{Prompt, PromptGet};
pub(crate) use resource::ResourceFn;
#[doc(hidden)]
pub use resource::{GeneratedResourceFn, generated_resource_handler, generated_template_handler};
pub use resource::{Resource, ResourceRead, ResourceTemplate};
pub use result_layout::ResultView;
#[cfg(any(feature = "skills", feature = "mounts"))]
pub(crate) use skills::SkillSet;
#[cfg(feature = "skills")]
pub use skills::Skills;
#[cfg(all(feature = "mounts", feature = "skills"))]
pub(crate) use skills::Source as SkillSource;
#[cfg(feature = "skills")]
pub(crate) use skills::{DirChild, SkillEntry};
#[cfg(feature = "skills")]
#[doc(hidden)]
pub use skills::{EmbeddedFile, EmbeddedSkill};
#[cfg(all(feature = "mounts", feature = "skills"))]
pub(crate) use skills::{FileInput, SkillData, rules};
pub(crate) use snapshot::{PromptEntry, Registry, ToolEntry};
pub(crate) use tool::ToolHandler;
#[doc(hidden)]
pub use tool::{HandlerFn, ToolSpec, generated_tool, parse_arguments};
pub use tool::{NoArguments, TaskSupport, Tool, ToolCall};
