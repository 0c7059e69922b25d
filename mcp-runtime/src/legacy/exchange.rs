//! One request on a legacy session, from the modern pipeline's first answer to the legacy
//! response: notifications pass through as they come, and each `input_required` round is
//! answered through the bridge (the input requests go to the client as server-to-client
//! requests; once it has answered them all, the request is served again with the answers and
//! its `requestState`, as a 2026 client's retry would be).

use super::answer::{self, Answer};
use super::codec::{self, Params, Retry};
use super::live::LiveSession;
use super::outcome::{Reply, Request};
use super::session::SessionRecord;
use super::state::Legacy;
use super::stream::StreamLog;
use crate::context::Caller;
use crate::dispatch::{Call, Handled, Ingress, Outgoing, Transport};
use crate::protocol::{RequestId, codes};
use bytes::Bytes;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One legacy request, on its way.
struct Exchange {
    legacy: Arc<Legacy>,
    session: Arc<SessionRecord>,
    live: Arc<LiveSession>,
    id: RequestId,
    method: String,
    params: Params,
    caller: Option<Arc<Caller>>,
    client: Option<crate::net::ClientNet>,
    transport: Transport,
}

/// Serves the request: at once when the pipeline answers at once, otherwise on a stream fed by
/// a task of its own (which runs on if the client disconnects; `notifications/cancelled` or the
/// session's end stops it). A request answered at once whose handler sent notifications first
/// (progress) is answered on a stream too, when its response can be one: those notifications,
/// in order, then the response, as a 2026 client gets them.
///
/// The pipeline is entered here, before the future is made; the future uses what it keeps in
/// place (an `async fn` would also keep the request it was given, moved into `exchange`): a
/// legacy message's box stays under glibc's per-thread cache size (BENCHMARKS.md, "The
/// request's future under the allocator's cache").
pub(super) fn start(
    legacy: &Arc<Legacy>,
    session: Arc<SessionRecord>,
    live: Arc<LiveSession>,
    request: Request,
) -> impl Future<Output = Reply> + Send + use<> {
    let back_channel = request.back_channel;
    let exchange = Exchange {
        legacy: legacy.clone(),
        session,
        live,
        id: request.id,
        method: request.method,
        params: request.params,
        caller: request.caller,
        client: request.client,
        transport: request.transport,
    };
    let call = exchange.dispatch();
    async move {
        if !call.is_running() {
            let (queued, response) = answered(call).await;
            if response.is_refusal() || response.is_busy() {
                return Reply::Refused(response);
            }
            match exchange.answer(&response.body) {
                // Without a stream, request-scoped notifications cannot be delivered (as on 2026).
                Answer::Final(body) if queued.is_empty() || !back_channel => {
                    return Reply::Now(body);
                }
                Answer::Final(body) => {
                    let log = exchange.open_stream();
                    for notification in queued {
                        log.push(notification);
                    }
                    log.finish(Some(body));
                    return Reply::Later(log);
                }
                Answer::InputRequired { requests, state } if back_channel => {
                    let log = exchange.open_stream();
                    let Some(token) = exchange.register() else {
                        return Reply::Now(exchange.id_in_use());
                    };
                    for notification in queued {
                        log.push(notification);
                    }
                    let stream = log.clone();
                    tokio::spawn(async move {
                        let done = exchange.bridge(&stream, &token, requests, state, 1).await;
                        exchange.finish(&stream, done);
                    });
                    return Reply::Later(log);
                }
                Answer::InputRequired { .. } => return Reply::Now(exchange.no_back_channel()),
            }
        }
        let log = exchange.open_stream();
        let Some(token) = exchange.register() else {
            return Reply::Now(exchange.id_in_use());
        };
        let stream = log.clone();
        tokio::spawn(async move {
            let done = exchange.run(&stream, &token, call, back_channel).await;
            exchange.finish(&stream, done);
        });
        Reply::Later(log)
    }
}

impl Exchange {
    /// The modern request, through the pipeline.
    fn dispatch(&self) -> Call {
        self.dispatch_with(None)
    }

    fn dispatch_with(&self, retry: Option<Retry<'_>>) -> Call {
        let d = &self.legacy.dispatcher;
        let version = d
            .config
            .supported_versions
            .first()
            .map(String::as_str)
            .unwrap_or(crate::protocol::LATEST_PROTOCOL_VERSION);
        let body = codec::modern_request(
            &self.id,
            &self.method,
            &self.params,
            &self.session,
            version,
            retry,
        );
        let ingress = Ingress {
            caller: self.caller.clone(),
            checks: None,
            transport: Some(self.transport),
            client: self.client,
        };
        match d.handle(&body, ingress) {
            Handled::Call(call) => call,
            // A request in, a request through: never a notification.
            Handled::Notification(_) => Call::ready(
                Some(self.id.clone()),
                crate::dispatch::Response::error(
                    Some(&self.id),
                    &crate::error::McpError::internal("the request was read as a notification"),
                ),
            ),
        }
    }

    /// The modern answer, for this session.
    fn answer(&self, body: &[u8]) -> Answer {
        let info = self.legacy.dispatcher.info_json.as_ref().map(|i| i.text());
        answer::legacy_answer(body, &self.method, info)
    }

    fn open_stream(&self) -> Arc<StreamLog> {
        self.live.new_stream(self.legacy.options.keep_streams)
    }

    /// Registers the request as running (for `notifications/cancelled`); `None` when its id is
    /// taken by another running request of the session.
    fn register(&self) -> Option<CancellationToken> {
        let token = self.live.ended.child_token();
        self.live.start(&self.id, token.clone()).then_some(token)
    }

    fn id_in_use(&self) -> Bytes {
        codec::error(
            Some(&self.id),
            codes::INVALID_REQUEST,
            &format!(
                "Invalid Request: id {} is in use by a request in progress",
                self.id
            ),
        )
    }

    fn no_back_channel(&self) -> Bytes {
        codec::error(
            Some(&self.id),
            codes::INTERNAL_ERROR,
            "Internal error: this request needs input from the client, and its response cannot carry requests to the client (accept text/event-stream)",
        )
    }

    fn finish(&self, log: &StreamLog, response: Option<Bytes>) {
        self.live.done(&self.id);
        log.finish(response);
    }

    /// The first round's call to its end, then the bridge if it asks for input. `None` when
    /// the request was cancelled (no response is sent).
    async fn run(
        &self,
        log: &StreamLog,
        token: &CancellationToken,
        call: Call,
        back_channel: bool,
    ) -> Option<Bytes> {
        let body = forward(call, log, token).await?;
        match self.answer(&body) {
            Answer::Final(body) => Some(body),
            Answer::InputRequired { requests, state } if back_channel => {
                self.bridge(log, token, requests, state, 1).await
            }
            Answer::InputRequired { .. } => Some(self.no_back_channel()),
        }
    }

    /// Rounds of client input: asks, waits for every answer, serves the request again.
    async fn bridge(
        &self,
        log: &StreamLog,
        token: &CancellationToken,
        mut requests: Map<String, Value>,
        mut state: Option<Value>,
        mut round: u32,
    ) -> Option<Bytes> {
        loop {
            // The pipeline refuses to seal a round past the limit; this also stops a handler
            // that asks again without sealed state.
            let max = self.legacy.dispatcher.config.limits.rounds;
            if round > max {
                return Some(codec::error(
                    Some(&self.id),
                    codes::INTERNAL_ERROR,
                    &format!(
                        "Internal error: the request asked the client for input more than {max} times"
                    ),
                ));
            }
            let answers = match self.ask(log, token, &requests).await {
                Ok(answers) => answers,
                Err(Failed::Cancelled) => return None,
                Err(Failed::Error(body)) => return Some(body),
            };
            let call = self.dispatch_with(Some(Retry {
                answers: &answers,
                state: state.as_ref(),
            }));
            let body = forward(call, log, token).await?;
            match self.answer(&body) {
                Answer::Final(body) => return Some(body),
                Answer::InputRequired {
                    requests: more,
                    state: next,
                } => {
                    requests = more;
                    state = next;
                    round += 1;
                }
            }
        }
    }

    /// Sends one round's input requests to the client and waits for all its answers.
    async fn ask(
        &self,
        log: &StreamLog,
        token: &CancellationToken,
        requests: &Map<String, Value>,
    ) -> Result<Map<String, Value>, Failed> {
        let mut waiting = Vec::with_capacity(requests.len());
        for (key, asked) in requests {
            let (id, rx) = self.live.ask();
            let version = &self.session.protocol_version;
            let Some(request) = codec::client_request(&id, asked, version) else {
                self.live.forget(&id);
                return Err(Failed::Error(codec::error(
                    Some(&self.id),
                    codes::INTERNAL_ERROR,
                    &format!(
                        "Internal error: input request `{key}` is not one a client can be asked"
                    ),
                )));
            };
            log.push(request);
            waiting.push((key.clone(), id, asked_method(asked), rx));
        }
        let timeout = self.legacy.options.input_timeout;
        let mut answers = Map::new();
        let mut outcome = Ok(());
        for (key, id, method, rx) in &mut waiting {
            let answer = tokio::select! {
                _ = token.cancelled() => { outcome = Err(Failed::Cancelled); break; }
                answer = tokio::time::timeout(timeout, rx) => answer,
            };
            let message = match answer {
                Ok(Ok(message)) => message,
                Ok(Err(_)) => {
                    outcome = Err(Failed::Cancelled);
                    break;
                }
                Err(_) => {
                    outcome = Err(self.failed(&format!(
                        "the client did not answer {method} within {} s",
                        timeout.as_secs()
                    )));
                    break;
                }
            };
            match message {
                Value::Object(mut m) if m.contains_key("result") => {
                    answers.insert(key.clone(), m.remove("result").unwrap_or_default());
                }
                Value::Object(m) => {
                    let code = m.get("error").and_then(|e| e.get("code")).cloned();
                    let text = m
                        .get("error")
                        .and_then(|e| e.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                        .to_owned();
                    outcome = Err(self.failed(&format!(
                        "the client answered {method} with error {}: {text}",
                        code.unwrap_or(Value::Null)
                    )));
                    break;
                }
                _ => {
                    outcome = Err(self.failed(&format!(
                        "the client's answer to {method} is not a response"
                    )));
                    break;
                }
            }
            let _ = id;
        }
        if outcome.is_err() {
            for (_, id, _, _) in &waiting {
                self.live.forget(id);
            }
        }
        outcome.map(|()| answers)
    }

    fn failed(&self, why: &str) -> Failed {
        Failed::Error(codec::error(
            Some(&self.id),
            codes::INTERNAL_ERROR,
            &format!("Internal error: {why}"),
        ))
    }
}

enum Failed {
    Cancelled,
    Error(Bytes),
}

fn asked_method(asked: &Value) -> String {
    asked
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or("an input request")
        .to_owned()
}

/// A call answered at dispatch: the notifications its handler queued before answering, in
/// order, and its response.
// A plain function returning an `async move` block: the call is used where it was captured (an
// `async fn` would keep a second slot for it).
#[allow(clippy::manual_async_fn)]
fn answered(
    mut call: Call,
) -> impl Future<Output = (Vec<Bytes>, crate::dispatch::Response)> + Send {
    async move {
        let mut queued = Vec::new();
        loop {
            match call.next_message().await {
                Some(Outgoing::Notification(n)) => queued.push(n),
                Some(Outgoing::Response(r)) => return (queued, r),
                // Boxed: rare, and its state would double this future's size.
                None => return (queued, Box::pin(Call::response(call)).await),
            }
        }
    }
}

/// Passes a call's notifications to the stream; its response's body, or `None` when the
/// request was cancelled first (dropping the call cancels its handler).
async fn forward(mut call: Call, log: &StreamLog, token: &CancellationToken) -> Option<Bytes> {
    let mut cut = Box::pin(call.stream_cut());
    loop {
        let message = tokio::select! {
            biased;
            _ = token.cancelled() => return None,
            () = &mut cut => {
                log.cut();
                cut = Box::pin(call.stream_cut());
                continue;
            }
            message = call.next_message() => message,
        };
        match message? {
            Outgoing::Notification(n) => log.push(n),
            Outgoing::Response(r) => return Some(r.body),
        }
    }
}
