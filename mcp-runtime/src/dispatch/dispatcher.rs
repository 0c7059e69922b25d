//! The types every stage and family shares: the [`Dispatcher`] (a running server as the pipeline
//! sees it), what a transport brings with a message ([`Ingress`], [`TransportChecks`]), and the
//! few things asked of the server as a whole: its registry snapshot, its capabilities, the
//! `_meta` of its results, a request's context, and whether a caller may read a resource.
//!
//! Stages and families import this module; it imports none of them (only `authorize`,
//! `decode`, `layer`, `mounted` and `slots`, which import nothing of dispatch but each other's
//! types).

use super::authorize;
use super::decode;
use super::layer::Layers;
use super::mounted::CallerViews;
#[cfg(feature = "mounts")]
use super::mounted::RelayedTasks;
use super::slots::Slots;
use crate::bus::ChangeBus;
use crate::config::Config;
use crate::context::{Caller, ContextInner, Notifier, StateMap};
use crate::error::McpError;
use crate::protocol::meta::InfoJson;
use crate::protocol::{
    ClientMessage, ClientRequest, DiscoverResult, ListCapability, Method, Offer, RequestId,
    RequestMeta, ResourcesCapability, ResultMeta, ResultType, SKILLS_EXTENSION, ServerCapabilities,
    TASKS_EXTENSION, UI_EXTENSION,
};
use crate::registry::{AccessCheck, Catalog, ParamHeader, Registry};
use crate::seal::Sealer;
#[cfg(feature = "tasks")]
use crate::tasks::TaskStore;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A running server as the pipeline sees it: configuration, what is registered, application
/// state, the change bus and the `requestState` sealer. Shared by every transport and request.
pub(crate) struct Dispatcher {
    pub(crate) config: Config,
    pub(crate) catalog: Catalog,
    pub(crate) state: Arc<StateMap>,
    pub(crate) changes: Arc<dyn ChangeBus>,
    /// Where tasks are kept (the tasks extension).
    #[cfg(feature = "tasks")]
    pub(crate) tasks: Arc<dyn TaskStore>,
    /// Fires when the server is told to stop: every `subscriptions/listen` stream (and
    /// 2025-11-25 session stream) ends with its final result, and readiness turns to 503.
    pub(crate) shutdown: CancellationToken,
    /// Fires once requests and tasks had their time to finish (the shutdown grace): the tasks
    /// still running are marked failed and their handlers dropped.
    pub(crate) halt: CancellationToken,
    pub(crate) sealer: Arc<Sealer>,
    /// The server-wide authorization check, asked after each primitive's own.
    pub(crate) policy: Option<AccessCheck>,
    /// Requests served at once ([`Limits::concurrent_requests`](crate::Limits)).
    pub(crate) requests: Arc<Slots>,
    /// Listen streams open at once.
    pub(crate) listens: Arc<Slots>,
    /// Tasks running at once (a finished task holds none).
    pub(crate) running_tasks: Arc<Slots>,
    /// `serverInfo` serialized once (it goes into every result).
    pub(crate) info_json: Option<InfoJson>,
    /// The layers around every call, outermost first.
    pub(crate) layers: Layers,
    /// What answers for the tasks of servers this one relays (set once, by mounts).
    #[cfg(feature = "mounts")]
    pub(crate) relayed_tasks: std::sync::OnceLock<Arc<dyn RelayedTasks>>,
    /// What fetches the views of a caller of mounts that pass its token on (set once, by
    /// mounts).
    pub(crate) caller_views: std::sync::OnceLock<Arc<dyn CallerViews>>,
}

/// What a transport knows of a message beyond its bytes.
#[derive(Default)]
pub(crate) struct Ingress<'a> {
    /// Who sent it, when the transport authenticated the sender.
    pub(crate) caller: Option<Arc<Caller>>,
    /// The transport's own checks (HTTP: the headers that mirror the body).
    pub(crate) checks: Option<&'a dyn TransportChecks>,
    /// The transport it came over (`None`: in process, through no transport).
    pub(crate) transport: Option<Transport>,
    /// The address of the client that sent it, when the transport knows it: an anonymous
    /// caller's share of the server's pools is counted by it.
    pub(crate) client: Option<crate::net::ClientNet>,
}

/// The transport a message came over, as spans and metrics name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    /// Streamable HTTP (both revisions).
    Http,
    /// Newline-delimited JSON-RPC on a process's stdin and stdout.
    Stdio,
}

impl Transport {
    /// Its `network.transport` in the OpenTelemetry semantic conventions: HTTP runs over a TCP
    /// connection, stdio over the process's pipes.
    pub(crate) const fn network_transport(self) -> &'static str {
        match self {
            Transport::Http => "tcp",
            Transport::Stdio => "pipe",
        }
    }
}

/// Checks of what a transport carries beside the message: the HTTP headers that mirror the body.
/// Each runs at its place in the pipeline.
pub(crate) trait TransportChecks {
    /// Once `_meta` is known to be there, before the version and the method are checked.
    fn check_request(&self, request: &ClientRequest<'_>) -> Result<(), McpError>;
    /// For a `tools/call` of a tool that mirrors arguments into headers, once the tool is found
    /// and its arguments are an object, before they are validated.
    fn check_arguments(
        &self,
        declared: &[ParamHeader],
        arguments: &Map<String, Value>,
    ) -> Result<(), McpError>;
}

impl Dispatcher {
    /// What to wait for before `caller`'s request is handled ([`CallerViews::ready`]).
    pub(crate) fn views_ready(
        &self,
        caller: Option<&Arc<Caller>>,
    ) -> Option<crate::registry::BoxFuture<'static, ()>> {
        self.caller_views.get()?.ready(caller)
    }

    /// The registry snapshot requests are served from now.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        self.catalog.snapshot()
    }

    /// The capabilities advertised right now (derived from what is registered).
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        let reg = self.registry();
        let cfg = &self.config;
        let list = |present: bool| {
            present.then(|| ListCapability {
                list_changed: cfg.list_changed.then_some(true),
            })
        };
        let offers = |offer| offers(cfg, &reg, offer);
        let mut caps = ServerCapabilities {
            tools: list(offers(Offer::Tools)),
            prompts: list(offers(Offer::Prompts)),
            resources: offers(Offer::Resources).then(|| ResourcesCapability {
                subscribe: cfg.resource_subscribe.then_some(true),
                list_changed: cfg.list_changed.then_some(true),
            }),
            completions: offers(Offer::Completions).then(Map::new),
            logging: cfg.logging.then(Map::new),
            ..ServerCapabilities::default()
        };
        if !cfg.extensions.is_empty() {
            caps.extensions = Some(cfg.extensions.clone());
        }
        if reg.has_apps() {
            caps.extensions
                .get_or_insert_with(Map::new)
                .insert(UI_EXTENSION.into(), Value::Object(Map::new()));
        }
        if offers(Offer::Skills) {
            let settings = serde_json::json!({ "directoryRead": true });
            caps.extensions
                .get_or_insert_with(Map::new)
                .insert(SKILLS_EXTENSION.into(), settings);
        }
        if offers(Offer::Tasks) {
            caps.extensions
                .get_or_insert_with(Map::new)
                .insert(TASKS_EXTENSION.into(), Value::Object(Map::new()));
        }
        caps
    }

    /// The `server/discover` result as currently advertised.
    pub(crate) fn discover_result(&self) -> DiscoverResult {
        let cfg = &self.config;
        DiscoverResult {
            result_type: ResultType::Complete,
            supported_versions: cfg.supported_versions.clone(),
            capabilities: self.capabilities(),
            instructions: cfg.instructions.clone(),
            ttl_ms: cfg.discover_cache.ttl_ms,
            cache_scope: cfg.discover_cache.scope,
            meta: self.result_meta(),
        }
    }

    /// The `_meta` of every result: `serverInfo`, unless turned off.
    pub(crate) fn result_meta(&self) -> Option<ResultMeta> {
        self.config
            .server_info_in_results
            .then(|| match &self.info_json {
                Some(cached) => ResultMeta::server_cached(cached),
                None => ResultMeta::server(self.config.info.clone()),
            })
    }

    /// The context of one request (what a handler may ask of it), before its input is opened;
    /// no log level and no spans unless the caller sets them.
    #[inline(always)]
    pub(crate) fn context(
        &self,
        id: RequestId,
        method: Method,
        meta: Box<RequestMeta>,
        caller: Option<Arc<Caller>>,
        client: Option<crate::net::ClientNet>,
        notifier: Notifier,
    ) -> ContextInner {
        ContextInner {
            id,
            method: method.name(),
            meta,
            log_level: None,
            notifier,
            cancel: std::sync::OnceLock::new(),
            abandoned: std::sync::atomic::AtomicBool::new(false),
            state: self.state.clone(),
            caller,
            client,
            server_info: self.config.info.clone(),
            logging_enabled: self.config.logging,
            input: std::sync::OnceLock::new(),
            progress_last: std::sync::atomic::AtomicU64::new(f64::NEG_INFINITY.to_bits()),
            trace: None,
            task_status: std::sync::OnceLock::new(),
            inputs_asked: std::sync::atomic::AtomicBool::new(false),
            stream_cut: tokio::sync::Notify::new(),
            over_stdio: false,
        }
    }

    /// The scopes the request in `body` needs (for the challenge of a request that came without
    /// a token): those of the tool, resource, template or prompt it names; none when it names
    /// none, or cannot be read.
    pub(crate) fn scopes_needed(&self, body: &[u8]) -> Vec<String> {
        let Ok(ClientMessage::Request(request)) = decode::decode(body) else {
            return Vec::new();
        };
        authorize::scopes_needed(&self.registry(), &request)
    }

    /// Whether `caller` has the scopes to read `uri` (the resource or template `resources/read`
    /// of it reaches): what a 2025-11-25 session's updates are sent for at each change (its
    /// custom checks were asked when it subscribed, [`follow_refusal`](Self::follow_refusal)).
    pub(crate) fn may_read(&self, uri: &str, caller: Option<&Caller>) -> bool {
        authorize::may_read(&self.registry(), uri, caller)
    }

    /// Whether `caller` may be told of `uri`'s updates (a 2025-11-25 `resources/subscribe`):
    /// the scopes and the custom checks `resources/read` of it asks, and the refusal it
    /// answers when not (`authorize::follow`).
    pub(crate) async fn follow_refusal(
        &self,
        uri: &str,
        caller: Option<&Arc<Caller>>,
    ) -> Result<(), McpError> {
        let asking = match authorize::follow(&self.registry(), self.policy.as_ref(), uri, caller) {
            authorize::Follow::Yes => return Ok(()),
            authorize::Follow::No => {
                return authorize::read_refusal(&self.registry(), uri, caller.map(|c| &**c));
            }
            authorize::Follow::Ask(asking) => asking,
        };
        asking.await
    }
}

/// `-32601` for a method whose capability this server does not advertise.
pub(super) fn not_advertised(method: Method) -> McpError {
    McpError::new(
        crate::protocol::codes::METHOD_NOT_FOUND,
        format!(
            "Method not found: `{method}` belongs to a capability this server does not advertise"
        ),
    )
}

/// Whether the server offers `offer`: the one answer both validation (without building the
/// capabilities: no allocation on the request path) and [`Dispatcher::capabilities`] read.
#[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
pub(super) fn offers(cfg: &Config, reg: &Registry, offer: Offer) -> bool {
    match offer {
        Offer::Always => true,
        Offer::Tools => !reg.tools.is_empty(),
        Offer::Resources => !reg.resources.is_empty() || !reg.templates.is_empty(),
        Offer::Prompts => !reg.prompts.is_empty(),
        Offer::Completions => reg.has_completions(),
        Offer::Listen => cfg.list_changed || cfg.resource_subscribe || reg.has_tasks(),
        Offer::Tasks => reg.has_tasks(),
        Offer::Skills => reg.has_skills(),
    }
}
