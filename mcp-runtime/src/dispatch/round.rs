//! The MRTR round of one request: this round's `inputResponses` and the opened `requestState`
//! go into the context before the handler runs ([`open`]); an `input_required` answer goes out
//! with a fresh state ([`input_required`]). Shared by the families whose handlers may ask the
//! client for input (tools, resources, prompts, tasks). (The handler's side of a round, the
//! questions it asks and the answers it reads, is `crate::mrtr`.)

use super::dispatcher::Dispatcher;
use super::encode::Response;
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::RawInputResponses;
use crate::protocol::{InputRequest, InputRequiredResult, Method, RequestId, ResultType};
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

/// Decodes `inputResponses` and opens `requestState` (bound to this request) for handlers;
/// inside the round's span when the request brings either and is traced.
pub(super) fn open(d: &Dispatcher, cx: &RequestContext, round: Round<'_>) -> Result<(), McpError> {
    let carries_input = round.responses.is_some() || round.state.is_some();
    let round_span = match carries_input {
        true => cx.inner.round_span(),
        false => None,
    };
    let Some(span) = round_span else {
        return open_input(d, cx, round);
    };
    let opened = span.in_scope(|| open_input(d, cx, round));
    if let Some(input) = cx.inner.input.get() {
        span.record("mcp.mrtr.answers", input.responses.len());
        span.record("mcp.mrtr.round", input.round());
    }
    opened
}

#[inline(always)]
fn open_input(d: &Dispatcher, cx: &RequestContext, round: Round<'_>) -> Result<(), McpError> {
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
            let mut binding =
                Binding::as_sent(method, round.name.clone(), &round.arguments, caller);
            let previous = d
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
        sealer: d.sealer.clone(),
    });
    Ok(())
}

/// An `input_required` answer.
pub(super) fn input_required(
    d: &Dispatcher,
    id: &RequestId,
    mut r: InputRequiredResult,
) -> Response {
    r.result_type = ResultType::InputRequired;
    if r.meta.is_none() {
        r.meta = d.result_meta();
    }
    // Input requests and a sealed state: usually most of a kilobyte.
    Response::result_written(id, 1000, |buf| write_input_required(buf, &r)).marked_input_required()
}

/// `r`'s JSON, the bytes its derived `Serialize` writes (a test compares them), with the keys
/// written as constants and prepared requests copied rather than through a map serializer
/// (BENCHMARKS.md, "The input_required result").
fn write_input_required(buf: &mut Vec<u8>, r: &InputRequiredResult) -> serde_json::Result<()> {
    match &r.result_type {
        ResultType::InputRequired => buf.extend_from_slice(br#"{"resultType":"input_required""#),
        other => {
            buf.extend_from_slice(br#"{"resultType":"#);
            serde_json::to_writer(&mut *buf, other)?;
        }
    }
    if let Some(asks) = &r.input_requests {
        buf.extend_from_slice(br#","inputRequests":{"#);
        for (i, (key, ask)) in asks.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            serde_json::to_writer(&mut *buf, key)?;
            buf.push(b':');
            match ask {
                InputRequest::Prepared(p) => buf.extend_from_slice(p.json().get().as_bytes()),
                other => serde_json::to_writer(&mut *buf, other)?,
            }
        }
        buf.push(b'}');
    }
    if let Some(state) = &r.request_state {
        buf.extend_from_slice(br#","requestState":"#);
        serde_json::to_writer(&mut *buf, state)?;
    }
    if let Some(meta) = &r.meta {
        buf.extend_from_slice(br#","_meta":"#);
        serde_json::to_writer(&mut *buf, meta)?;
    }
    buf.push(b'}');
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::write_input_required;
    use crate::protocol::{
        CreateMessageRequestParams, InputRequest, InputRequests, InputRequiredResult,
        ListRootsParams, PreparedRequest, ResultMeta, ResultType,
    };
    use std::sync::Arc;

    #[test]
    fn the_written_result_is_the_serialized_one() {
        let prepared = |r| InputRequest::Prepared(Arc::new(PreparedRequest::new(r).unwrap()));
        let mut asks = InputRequests::new();
        asks.insert("scope", prepared(InputRequest::ListRoots(None)));
        asks.insert(
            "a \"quoted\" key",
            InputRequest::ListRoots(Some(ListRootsParams::default())),
        );
        let sample = CreateMessageRequestParams::prompt("Say \"hi\".", 10);
        asks.insert("draft", InputRequest::Sample(sample.clone()));
        asks.insert("draft2", prepared(InputRequest::Sample(sample)));
        let full = InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: Some(asks),
            request_state: Some("v2.abc_-".into()),
            meta: Some(ResultMeta::default()),
        };
        let bare = InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: Some(InputRequests::new()),
            request_state: None,
            meta: None,
        };
        let complete = InputRequiredResult {
            result_type: ResultType::Complete,
            ..bare.clone()
        };
        for r in [full, bare, complete] {
            let mut buf = Vec::new();
            write_input_required(&mut buf, &r).unwrap();
            assert_eq!(
                String::from_utf8(buf).unwrap(),
                serde_json::to_string(&r).unwrap()
            );
        }
    }
}
