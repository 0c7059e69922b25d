//! Client input of multi-round requests, per request: this round's `inputResponses` and the
//! opened `requestState` go into the context before the handler runs; an `input_required`
//! answer goes out with a fresh state.

use super::Dispatcher;
use super::encode::Response;
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::RawInputResponses;
use crate::protocol::{InputRequiredResult, Method, RequestId, ResultType};
use crate::seal::{Binding, InputData, LazyBinding, Responses};
use std::sync::Arc;

/// What a request brings to its round: the primitive it names and its arguments (bound into any
/// state sealed for it), its answers and the state it echoes.
pub(super) struct Round<'a> {
    pub(super) method: Method,
    pub(super) name: Arc<str>,
    /// The arguments' JSON text as sent (`null` when the method has none).
    pub(super) arguments: Arc<str>,
    pub(super) responses: Option<RawInputResponses<'a>>,
    pub(super) state: Option<String>,
}

impl Dispatcher {
    /// Decodes `inputResponses` and opens `requestState` (bound to this request) for handlers;
    /// inside the round's span when the request brings either and is traced.
    pub(super) fn prepare_input(
        &self,
        cx: &RequestContext,
        round: Round<'_>,
    ) -> Result<(), McpError> {
        let carries_input = round.responses.is_some() || round.state.is_some();
        let round_span = match carries_input {
            true => cx.inner.round_span(),
            false => None,
        };
        let Some(span) = round_span else {
            return self.open_input(cx, round);
        };
        let opened = span.in_scope(|| self.open_input(cx, round));
        if let Some(input) = cx.inner.input.get() {
            span.record("mcp.mrtr.answers", input.responses.len());
            span.record("mcp.mrtr.round", input.round());
        }
        opened
    }

    #[inline(always)]
    fn open_input(&self, cx: &RequestContext, round: Round<'_>) -> Result<(), McpError> {
        let responses = Responses::read(round.responses);
        let method = round.method.name();
        let caller = cx.caller().map(|c| c.binding_key());
        let (binding, previous) = match round.state {
            None => (
                LazyBinding::later(method, round.name, round.arguments, caller),
                None,
            ),
            Some(token) => {
                let caller = caller.as_deref();
                let mut binding = Binding::as_sent(method, &round.name, &round.arguments, caller);
                let previous = self
                    .sealer
                    .open(&token, &mut binding, &round.arguments)
                    .inspect_err(refused)?;
                (LazyBinding::ready(binding), Some(previous))
            }
        };
        let _ = cx.inner.input.set(InputData {
            responses,
            previous,
            binding,
            sealer: self.sealer.clone(),
        });
        Ok(())
    }

    /// An `input_required` answer.
    pub(super) fn input_required(&self, id: &RequestId, mut r: InputRequiredResult) -> Response {
        r.result_type = ResultType::InputRequired;
        if r.meta.is_none() {
            r.meta = self.result_meta();
        }
        // Input requests and a sealed state: usually most of a kilobyte.
        Response::result_with_capacity(id, &r, 1000).marked_input_required()
    }
}

/// A `requestState` that does not open: a `debug` event with the reason.
#[cold]
fn refused(e: &McpError) {
    tracing::debug!(
        target: "mcp_runtime::mrtr",
        reason = e.message(),
        rpc.response.status_code = e.code(),
        "requestState refused"
    );
}
