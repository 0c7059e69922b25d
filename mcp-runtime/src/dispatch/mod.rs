//! Transport-agnostic dispatch: one message in; nothing (a notification), or a [`Call`] out: the
//! request's notifications, then exactly one [`Response`].
//!
//! The files are the stages, in the order a request goes through them:
//!
//! 1. `decode`: bytes → [`ClientRequest`] (one typed request, `-32700`/`-32600` otherwise),
//!    the message's nesting depth checked first and its strings' lengths after (`limits`);
//! 2. `validate`: required `_meta` (`-32602`), the transport's own checks (HTTP headers,
//!    `-32020`), protocol version (`-32022`), method known and advertised (`-32601`); then a
//!    permit of the server's concurrency limit (`-32603` busy otherwise);
//! 3. `route`: the request context, then the method's family: `lists` (discover and pages),
//!    `tools` (a task tool's call for a client that declares the extension: `task_run`),
//!    `resources`, `prompts`, `complete`, `listen`, `tasks` (`tasks/*`); client input of
//!    multi-round requests is opened and sealed by `input`. Each family finds its primitive and
//!    `authorize`s the caller for it: scopes at once, custom checks before the handler runs
//!    (a refusal is `-32602` with `data.requiredScopes`; lists leave out what the caller may
//!    not use);
//! 4. `encode`: the JSON-RPC envelope of the result or error, as a [`Response`] that says
//!    which stage answered (so a transport can frame it: HTTP picks the status).
//!
//! A [`Call`] carries the handler's notifications and its response; dropping it cancels the
//! handler (`call`, `panic`).
//!
//! Around the handler of stage 3 run the [`Layer`]s a server was built with (`layer`); the
//! request's `tracing` spans (`trace`) and its [`metrics`] are finished with its answer
//! (`observe`).

mod authorize;
mod call;
mod complete;
mod decode;
mod encode;
mod input;
mod layer;
mod limits;
mod listen;
mod lists;
pub mod metrics;
mod observe;
mod panic;
mod prompts;
mod resources;
mod route;
mod slots;
mod task_lease;
mod task_run;
mod tasks;
mod tools;
mod trace;
mod validate;
mod work;

pub use call::{Call, Outgoing};
pub(crate) use decode::{decode_general, decode_tool_call};
pub use encode::Response;
pub(crate) use layer::Layers;
pub use layer::{Layer, LayerFn, LayerResult, McpRequest, Next, layer_fn};

use crate::bus::ChangeBus;
use crate::config::Config;
use crate::context::{Caller, ShareKey, StateMap};
use crate::error::McpError;
use crate::protocol::meta::InfoJson;
use crate::protocol::{
    ClientMessage, ClientNotification, ClientRequest, ListCapability, Method, ResourcesCapability,
    ResultMeta, ServerCapabilities, TASKS_EXTENSION,
};
use crate::registry::{AccessCheck, Catalog, ParamHeader, Registry};
use crate::seal::Sealer;
use crate::tasks::TaskStore;
use encode::Rejection;
use serde_json::{Map, Value};
pub(crate) use slots::{Slot, Slots};
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// A running server as the pipeline sees it: configuration, what is registered, application
/// state, the change bus and the `requestState` sealer. Shared by every transport and request.
pub(crate) struct Dispatcher {
    pub(crate) config: Config,
    pub(crate) catalog: Catalog,
    pub(crate) state: Arc<StateMap>,
    pub(crate) changes: Arc<dyn ChangeBus>,
    /// Where tasks are kept (the tasks extension).
    pub(crate) tasks: Arc<dyn TaskStore>,
    /// Fires on shutdown: every `subscriptions/listen` stream ends with its final result.
    pub(crate) shutdown: CancellationToken,
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
}

/// What a message came to.
#[derive(Debug)]
pub(crate) enum Handled {
    /// A notification: nothing to answer.
    Notification(ClientNotification),
    /// A request, answered by this call.
    Call(Call),
}

/// What a transport knows of a message beyond its bytes.
#[derive(Default)]
pub(crate) struct Ingress<'a> {
    /// Who sent it, when the transport authenticated the sender.
    pub(crate) caller: Option<Arc<Caller>>,
    /// The transport's own checks (HTTP: the headers that mirror the body).
    pub(crate) checks: Option<&'a dyn TransportChecks>,
    /// `network.transport` of the semantic conventions: `tcp` (HTTP), `pipe` (stdio).
    pub(crate) transport: Option<&'static str>,
    /// The address of the client that sent it, when the transport knows it: an anonymous
    /// caller's share of the server's pools is counted by it.
    pub(crate) client: Option<std::net::IpAddr>,
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
    /// The whole pipeline for one message.
    pub(crate) fn handle(self: &Arc<Self>, body: &[u8], ingress: Ingress<'_>) -> Handled {
        let read_at = self.config.metrics.then(Instant::now);
        let limits = &self.config.limits;
        if let Err(error) = limits::check_depth(body, limits.depth) {
            // Only `params` nests in a request: when its envelope can be read, they are the
            // invalid part (`-32602`); otherwise the message is no request (`-32600`).
            let id = limits::readable_id(body);
            let error = match id {
                Some(_) => McpError::invalid_params(
                    error.message().replace("Invalid Request", "Invalid params"),
                ),
                None => error,
            };
            let rejection = Rejection::new(id.clone(), error);
            self.rejected(None, &rejection, ingress.transport, read_at);
            return Handled::Call(Call::ready(id, rejection.into_response()));
        }
        let request = match decode::decode(body) {
            Err(rejection) => {
                self.rejected(None, &rejection, ingress.transport, read_at);
                let id = rejection.id.clone();
                return Handled::Call(Call::ready(id, rejection.into_response()));
            }
            Ok(ClientMessage::Notification(n)) => return Handled::Notification(n),
            Ok(ClientMessage::Request(request)) => request,
        };
        // One snapshot of the registry serves the whole request.
        let registry = self.registry();
        let validated = limits::check_strings(&request, limits)
            .and_then(|()| validate::validate(self, &registry, &request, ingress.checks));
        match validated {
            Ok(method) => {
                // The share key is made only when it is needed: when the pool is busy.
                let key = || ShareKey::of(ingress.caller.as_deref(), ingress.client);
                let counted = match self.requests.try_take(key) {
                    Ok(counted) => counted,
                    Err((full, key)) => {
                        let error = self.requests.busy(full, key.as_ref());
                        let response = Response::error(Some(&request.id), &error);
                        return Handled::Call(Call::ready(Some(request.id), response));
                    }
                };
                let call = self.route(request, method, &registry, ingress, read_at);
                // A call answered at once gives its slot back at once; a running one holds it.
                Handled::Call(match call.is_running() {
                    true => call.holding(self.requests.hold(counted)),
                    false => {
                        self.requests.give_back(counted.as_ref());
                        call
                    }
                })
            }
            Err(error) => {
                let rejection = Rejection::new(Some(request.id.clone()), error);
                self.rejected(Some(&request), &rejection, ingress.transport, read_at);
                let id = rejection.id.clone();
                Handled::Call(Call::ready(id, rejection.into_response()))
            }
        }
    }

    /// A request refused before its method ran: a `debug` event with the reason (the
    /// envelope's, never the arguments'), and the metrics.
    fn rejected(
        &self,
        request: Option<&ClientRequest<'_>>,
        rejection: &Rejection,
        transport: Option<&'static str>,
        read_at: Option<Instant>,
    ) {
        let method = request.and_then(|r| r.method().ok());
        let code = rejection.error.code();
        tracing::debug!(
            target: "mcp_runtime::request",
            reason = rejection.error.message(),
            mcp.method.name = request.map(ClientRequest::method_name),
            jsonrpc.request.id = rejection.id.as_ref().map(|id| tracing::field::display(trace::IdText(id))),
            rpc.response.status_code = code,
            "request rejected"
        );
        if let Some(read_at) = read_at {
            let seconds = read_at.elapsed().as_secs_f64();
            metrics::record_rejection(method.map(Method::name), code, transport, seconds);
        }
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
        let mut caps = ServerCapabilities {
            tools: list(!reg.tools.is_empty()),
            prompts: list(!reg.prompts.is_empty()),
            resources: (!reg.resources.is_empty() || !reg.templates.is_empty()).then(|| {
                ResourcesCapability {
                    subscribe: cfg.resource_subscribe.then_some(true),
                    list_changed: cfg.list_changed.then_some(true),
                }
            }),
            completions: reg.has_completions().then(Map::new),
            logging: cfg.logging.then(Map::new),
            ..ServerCapabilities::default()
        };
        if !cfg.extensions.is_empty() {
            caps.extensions = Some(cfg.extensions.clone());
        }
        if reg.has_tasks() {
            caps.extensions
                .get_or_insert_with(Map::new)
                .insert(TASKS_EXTENSION.into(), Value::Object(Map::new()));
        }
        caps
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
}
