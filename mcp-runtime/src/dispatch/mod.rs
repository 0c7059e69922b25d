//! Transport-agnostic dispatch: one message in; nothing (a notification), or a [`Call`] out: the
//! request's notifications, then exactly one [`Response`].
//!
//! **Stages**, in the order a request goes through them:
//!
//! 1. `decode`: bytes → [`ClientRequest`] (one typed request, `-32700`/`-32600` otherwise),
//!    the message's nesting depth checked first and its strings' lengths after (`limits`);
//! 2. `validate`: required `_meta` (`-32602`), the transport's own checks (HTTP headers,
//!    `-32020`), protocol version (`-32022`), method known and advertised (`-32601`): a
//!    `Validated` request, which only `validate` makes; then (here, in `Dispatcher::handle`)
//!    a permit of the server's concurrency limit (`-32603` busy otherwise);
//! 3. `route`: the request context, then the method's family, named at the call site: the
//!    family prepares the request (`Prepared`, in `work`), the [`Layer`]s run, the family
//!    starts its handler (`Work`);
//! 4. a **family** (the folder `families/`, one module of free functions per family): `lists`,
//!    `tools`, `resources`, `prompts`, `complete`, `listen`, and `tasks` (a folder: the
//!    `tasks/*` methods, and the tasks that tool calls start). Each finds its primitive and
//!    `authorize`s the caller for it: scopes at once, custom checks before the handler runs (a
//!    refusal is `-32602` with `data.requiredScopes`; lists leave out what the caller may not
//!    use);
//! 5. `encode`: the JSON-RPC envelope of the result or error, as a [`Response`] that says
//!    which stage answered (so a transport can frame it: HTTP picks the status).
//!
//! **Below the stages and families**, imported by them and importing none of them:
//! `dispatcher` (the `Dispatcher` and what a transport brings: the types every file shares),
//! `work` (`Prepared` → `Work`), `authorize`, `round` (a request's MRTR round: its client input
//! opened, an `input_required` answer sealed), `tool_result` (a tool's outcome as answered, by
//! `tools` and `tasks` alike), `layer`, `call` and `panic` (a [`Call`] carries the handler's
//! notifications and its response; dropping it cancels the handler), `slots` (the pools of
//! requests, listen streams and running tasks), and `trace`, [`metrics`] and `observe` (the
//! request's `tracing` spans and its metrics, finished with its answer).
//!
//! Imports go one way: this module imports its children; a child imports siblings below it,
//! never this module nor `route`.

mod authorize;
mod call;
mod caller_views;
mod decode;
mod dispatcher;
mod encode;
mod families;
mod layer;
mod limits;
pub mod metrics;
mod observe;
mod panic;
mod round;
mod route;
mod slots;
mod tool_result;
mod trace;
mod validate;
mod work;

pub use call::{Call, Outgoing};
pub(crate) use caller_views::CallerViews;
pub(crate) use decode::{decode_general, decode_tool_call};
pub(crate) use dispatcher::{Dispatcher, Ingress, Transport, TransportChecks};
pub use encode::Response;
pub(crate) use families::tasks::RelayedTasks;
pub use layer::{Layer, LayerFn, LayerResult, McpRequest, Next, layer_fn};
pub(crate) use slots::{Slot, Slots};

use crate::context::ShareKey;
use crate::error::McpError;
use crate::protocol::{ClientMessage, ClientNotification, ClientRequest, Method};
use encode::Rejection;
use std::sync::Arc;
use std::time::Instant;

/// What a message came to.
#[derive(Debug)]
pub(crate) enum Handled {
    /// A notification: nothing to answer.
    Notification(ClientNotification),
    /// A request, answered by this call.
    Call(Call),
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
            self.rejected(
                None,
                &rejection,
                ingress.transport.map(Transport::network_transport),
                read_at,
            );
            return Handled::Call(Call::ready(id, rejection.into_response()));
        }
        let request = match decode::decode(body) {
            Err(rejection) => {
                self.rejected(
                    None,
                    &rejection,
                    ingress.transport.map(Transport::network_transport),
                    read_at,
                );
                let id = rejection.id.clone();
                return Handled::Call(Call::ready(id, rejection.into_response()));
            }
            Ok(ClientMessage::Notification(n)) => return Handled::Notification(n),
            Ok(ClientMessage::Request(request)) => request,
        };
        // One snapshot of the registry serves the whole request.
        let registry = self.registry();
        let validated = limits::check_strings(&request, limits)
            .and_then(|()| validate::validate(&self.config, &registry, &request, ingress.checks));
        match validated {
            // A listen stream is counted in its own pool (`listens`, taken when it opens) and
            // nowhere else: streams held for hours must not fill the requests at once.
            Ok(validated) if validated.method() == Method::Listen => Handled::Call(route::route(
                self, request, validated, &registry, ingress, read_at,
            )),
            Ok(validated) => {
                // The share key is made only when it is needed: when the pool is busy.
                let key = || ShareKey::of(ingress.caller.as_deref(), ingress.client);
                let taken = match self.requests.try_take(key) {
                    Ok(taken) => taken,
                    Err((full, key)) => {
                        let error = self.requests.busy(full, key.as_ref());
                        let response = Response::error(Some(&request.id), &error);
                        return Handled::Call(Call::ready(Some(request.id), response));
                    }
                };
                let call = route::route(self, request, validated, &registry, ingress, read_at);
                // A call answered at once gives its slot back at once; a running one holds it.
                Handled::Call(match call.is_running() {
                    true => call.holding(self.requests.hold(taken)),
                    false => {
                        self.requests.give_back(&taken);
                        call
                    }
                })
            }
            Err(error) => {
                let rejection = Rejection::new(Some(request.id.clone()), error);
                self.rejected(
                    Some(&request),
                    &rejection,
                    ingress.transport.map(Transport::network_transport),
                    read_at,
                );
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
}
