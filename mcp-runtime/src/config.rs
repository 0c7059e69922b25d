//! What a server is configured with: caching hints, list page size, capabilities to advertise,
//! limits. Built by [`ServerBuilder`](crate::ServerBuilder), read by dispatch.

use crate::protocol::{CacheScope, Implementation, LATEST_PROTOCOL_VERSION};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// A caching hint: `ttlMs` and `cacheScope`.
///
/// ```
/// use mcp_runtime::{CacheHint, protocol::CacheScope};
/// let hint = CacheHint::new(300_000, CacheScope::Public);
/// assert_eq!(hint.ttl_ms, 300_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long a client may reuse the result, in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it: every caller (`Public`) or only this one (`Private`).
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint of `ttl_ms` milliseconds for `scope`.
    pub const fn new(ttl_ms: u64, scope: CacheScope) -> Self {
        CacheHint { ttl_ms, scope }
    }
}

/// Which kind of result a caching hint applies to.
///
/// ```
/// use mcp_runtime::{CacheTarget, Server, protocol::CacheScope};
/// let builder = Server::builder().cache(CacheTarget::ToolsList, 60_000, CacheScope::Public);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheTarget {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    TemplatesList,
    /// `prompts/list`.
    PromptsList,
    /// `resources/read` (default for resources that set no hint of their own).
    ResourceRead,
}

/// The settings of one server.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) info: Arc<Implementation>,
    pub(crate) instructions: Option<String>,
    pub(crate) supported_versions: Vec<String>,
    pub(crate) discover_cache: CacheHint,
    pub(crate) tools_cache: CacheHint,
    pub(crate) resources_cache: CacheHint,
    pub(crate) templates_cache: CacheHint,
    pub(crate) prompts_cache: CacheHint,
    pub(crate) read_cache: CacheHint,
    pub(crate) page_size: usize,
    pub(crate) server_info_in_results: bool,
    pub(crate) explicit_is_error: bool,
    pub(crate) logging: bool,
    pub(crate) list_changed: bool,
    pub(crate) resource_subscribe: bool,
    pub(crate) extensions: Map<String, Value>,
    pub(crate) request_timeout: Option<Duration>,
    /// Record the metrics of `dispatch::metrics` through the `metrics` facade.
    pub(crate) metrics: bool,
    /// Record tool arguments and results on spans.
    pub(crate) trace_payloads: bool,
}

impl Config {
    /// The hint of one kind of result, to be changed.
    pub(crate) fn cache_mut(&mut self, target: CacheTarget) -> &mut CacheHint {
        match target {
            CacheTarget::Discover => &mut self.discover_cache,
            CacheTarget::ToolsList => &mut self.tools_cache,
            CacheTarget::ResourcesList => &mut self.resources_cache,
            CacheTarget::TemplatesList => &mut self.templates_cache,
            CacheTarget::PromptsList => &mut self.prompts_cache,
            CacheTarget::ResourceRead => &mut self.read_cache,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            info: Arc::new(Implementation::new(
                "mcp-runtime-server",
                env!("CARGO_PKG_VERSION"),
            )),
            instructions: None,
            supported_versions: vec![LATEST_PROTOCOL_VERSION.to_owned()],
            discover_cache: CacheHint::new(3_600_000, CacheScope::Public),
            tools_cache: CacheHint::new(300_000, CacheScope::Public),
            resources_cache: CacheHint::new(300_000, CacheScope::Public),
            templates_cache: CacheHint::new(300_000, CacheScope::Public),
            prompts_cache: CacheHint::new(300_000, CacheScope::Public),
            read_cache: CacheHint::new(60_000, CacheScope::Private),
            page_size: 100,
            server_info_in_results: true,
            explicit_is_error: true,
            logging: false,
            list_changed: false,
            resource_subscribe: false,
            extensions: Map::new(),
            request_timeout: None,
            metrics: false,
            trace_payloads: false,
        }
    }
}
