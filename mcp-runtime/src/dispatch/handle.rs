//! The entry point of the pipeline, [`Dispatcher::handle`]: one message through the stages in
//! order (depth, decode, string lengths, validate, a permit of the server's concurrency limit,
//! route), and what a request refused before its method ran leaves in the log and the metrics.

use super::call::Call;
use super::dispatcher::{Dispatcher, Ingress, Transport};
use super::encode::{Rejection, Response};
#[cfg(feature = "metrics")]
use super::metrics;
use super::{decode, limits, route, trace, validate};
use crate::context::ShareKey;
use crate::error::McpError;
use crate::protocol::{ClientMessage, ClientNotification, ClientRequest, Method};
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
        let validated = match limits::check_strings(&request, limits) {
            Ok(()) => validate::validate(&self.config, &registry, request, ingress.checks),
            Err(error) => Err(Box::new((request, error))),
        };
        match validated {
            // A listen stream is counted in its own pool (`listens`, taken when it opens) and
            // nowhere else: streams held for hours must not fill the requests at once.
            Ok(validated) if validated.method == Method::Listen => {
                Handled::Call(route::route(self, validated, &registry, ingress, read_at))
            }
            Ok(validated) => {
                // The share key is made only when it is needed: when the pool is busy.
                let key = || ShareKey::of(ingress.caller.as_deref(), ingress.client);
                let taken = match self.requests.try_take(key) {
                    Ok(taken) => taken,
                    Err((full, key)) => {
                        let error = self.requests.busy(full, key.as_ref());
                        let response = Response::error(Some(&validated.id), &error);
                        return Handled::Call(Call::ready(Some(validated.id), response));
                    }
                };
                let call = route::route(self, validated, &registry, ingress, read_at);
                // A call answered at once gives its slot back at once; a running one holds it.
                Handled::Call(match call.is_running() {
                    true => call.holding(self.requests.hold(taken)),
                    false => {
                        self.requests.give_back(&taken);
                        call
                    }
                })
            }
            Err(refused) => {
                let (request, error) = *refused;
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
        let code = rejection.error.code();
        tracing::debug!(
            target: "mcp_runtime::request",
            reason = rejection.error.message(),
            mcp.method.name = request.map(ClientRequest::method_name),
            jsonrpc.request.id = rejection.id.as_ref().map(|id| tracing::field::display(trace::IdText(id))),
            rpc.response.status_code = code,
            "request rejected"
        );
        #[cfg(feature = "metrics")]
        if let Some(read_at) = read_at {
            let method = request.and_then(|r| r.method().ok());
            let seconds = read_at.elapsed().as_secs_f64();
            metrics::record_rejection(method.map(Method::name), code, transport, seconds);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = (transport, read_at);
    }
}
