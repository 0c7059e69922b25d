//! Streamable HTTP for 2025-11-25 sessions: `initialize` opens a session (`Mcp-Session-Id`),
//! later POSTs name it, GET opens its stream of change notifications (or, with
//! `Last-Event-ID`, resumes a request's stream that was cut), DELETE ends it; an unknown or
//! ended session gets 404.
//!
//! A request's SSE events carry ids (`{stream}-{n}`); on 2025-11-25 sessions each stream starts
//! with a priming event (an id, `retry`, empty data), so that a client whose connection drops
//! reconnects with `Last-Event-ID` and reads on. A request keeps running when its client
//! disconnects: only `notifications/cancelled` cancels it.

use super::negotiate::AcceptSet;
use super::sse::KeepAlive;
use super::{Endpoint, json_response, plain_status};
use crate::context::Caller;
use crate::dispatch::Slot;
use crate::legacy::{Incoming, Legacy, LiveSession, Next, Reply, Request, StreamLog, Unusable};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How soon a client whose stream was cut should reconnect.
const RETRY_MS: u64 = 1_000;

fn session_id(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// A JSON-RPC error answering no request in particular (no `id`).
fn error_response(status: StatusCode, code: i32, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "error": {"code": code, "message": message}
    });
    json_response(status, Bytes::from(body.to_string()))
}

fn unusable(why: Unusable) -> Response {
    match why {
        Unusable::Gone => error_response(
            StatusCode::NOT_FOUND,
            -32600,
            "Session not found: it ended or expired; initialize a new one",
        ),
        Unusable::Store(why) => error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            -32603,
            &format!("Internal error: the session store failed: {why}"),
        ),
    }
}

/// A legacy POST.
pub(super) async fn post(
    endpoint: &Endpoint,
    legacy: &Arc<Legacy>,
    headers: &HeaderMap,
    body: &[u8],
    caller: Option<Arc<Caller>>,
    client: Option<std::net::IpAddr>,
    accept: &AcceptSet,
) -> Response {
    let message = match crate::legacy::parse(body) {
        Ok(message) => message,
        Err(error) => return json_response(StatusCode::BAD_REQUEST, error),
    };
    let Some(sid) = session_id(headers) else {
        return match message {
            Incoming::Request { id, method, params } if method == "initialize" => {
                match legacy
                    .initialize(&id, &params, caller.as_deref(), client)
                    .await
                {
                    Ok(opened) => {
                        let mut resp = json_response(StatusCode::OK, opened.response);
                        if let Ok(value) = HeaderValue::from_str(&opened.session.id) {
                            resp.headers_mut().insert("mcp-session-id", value);
                        }
                        resp
                    }
                    Err(error) => json_response(StatusCode::SERVICE_UNAVAILABLE, error),
                }
            }
            other => {
                let message = "Bad Request: no Mcp-Session-Id. A 2025-11-25 client opens a session with initialize; a 2026-07-28 client sends `_meta` (and the MCP-Protocol-Version header) on every request";
                match other {
                    Incoming::Request { id, .. } => json_response(
                        StatusCode::BAD_REQUEST,
                        crate::legacy::error_body(Some(&id), -32600, message),
                    ),
                    _ => error_response(StatusCode::BAD_REQUEST, -32600, message),
                }
            }
        };
    };
    let (session, live) = match legacy.session(sid, caller.as_deref()).await {
        Ok(found) => found,
        Err(why) => return unusable(why),
    };
    match message {
        Incoming::Notification { method, params } => {
            legacy.notified(&session, &live, &method, &params).await;
            accepted()
        }
        Incoming::Response { id, message } => {
            legacy.answered(&live, &id, message);
            accepted()
        }
        Incoming::Request { id, method, params } => {
            let priming = session.protocol_version.as_str() >= "2025-11-25";
            let request = Request {
                id,
                method,
                params,
                caller,
                client,
                back_channel: accept.sse,
                transport: crate::dispatch::Transport::Http,
            };
            let reply = legacy.request(session, live.clone(), request).await;
            match reply {
                Reply::Refused(response) => {
                    super::answer(&endpoint.options, response, Default::default())
                }
                Reply::Now(body) if accept.json => json_response(StatusCode::OK, body),
                Reply::Now(body) => stream(single(body), endpoint.options.keepalive),
                Reply::Later(log) if accept.sse => {
                    let first = priming.then(|| priming_event(&log, 0));
                    stream(
                        follow(log, live, 0, first, None),
                        endpoint.options.keepalive,
                    )
                }
                Reply::Later(log) => last_message(log, &live).await,
            }
        }
    }
}

/// A legacy GET: the session's change notifications, or with `Last-Event-ID` the rest of a
/// request's stream.
pub(super) async fn get(
    endpoint: &Endpoint,
    legacy: &Arc<Legacy>,
    headers: &HeaderMap,
    caller: Option<Arc<Caller>>,
    client: Option<std::net::IpAddr>,
    accept: &AcceptSet,
) -> Response {
    let Some(sid) = session_id(headers) else {
        return super::method_not_allowed().await;
    };
    let (session, live) = match legacy.session(sid, caller.as_deref()).await {
        Ok(found) => found,
        Err(why) => return unusable(why),
    };
    if !accept.sse {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            -32600,
            "Not Acceptable: the session's stream is text/event-stream",
        );
    }
    // A session's stream is a listen stream of the older revision: it holds a slot of the same
    // pool, within the caller's share, for as long as it is open.
    let key = crate::context::ShareKey::of(caller.as_deref(), client);
    let slot = match legacy.dispatcher.listens.take(key) {
        Ok(slot) => slot,
        Err(busy) => {
            return error_response(StatusCode::SERVICE_UNAVAILABLE, busy.code(), busy.message());
        }
    };
    let keepalive = endpoint.options.keepalive;
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().split_once('-'))
        .and_then(|(s, n)| Some((s.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
    if let Some((stream_id, after)) = resume
        && let Some(log) = live.stream(stream_id)
    {
        return stream(follow(log, live, after, None, Some(slot)), keepalive);
    }
    stream(
        changes(legacy.clone(), session.id.clone(), live, slot),
        keepalive,
    )
}

/// A legacy DELETE: ends the session.
pub(super) async fn delete(
    legacy: &Arc<Legacy>,
    headers: &HeaderMap,
    caller: Option<Arc<Caller>>,
) -> Response {
    let Some(sid) = session_id(headers) else {
        return super::method_not_allowed().await;
    };
    if let Err(why) = legacy.session(sid, caller.as_deref()).await {
        return unusable(why);
    }
    match legacy.end(sid).await {
        Ok(true) => plain_status(StatusCode::OK, ""),
        Ok(false) => unusable(Unusable::Gone),
        Err(why) => unusable(why),
    }
}

fn accepted() -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::ACCEPTED;
    resp
}

/// The response of a request whose client takes JSON only: the stream's last message once it
/// ends (202 and nothing when the request was cancelled).
async fn last_message(log: Arc<StreamLog>, live: &LiveSession) -> Response {
    let mut reader = log.reader(0);
    let mut last = None;
    loop {
        match reader.next(&log).await {
            Next::Events(events) => last = events.last().map(|(_, e)| e.clone()),
            Next::End => break,
            Next::Cut => {}
        }
    }
    live.drop_stream(log.id);
    match last {
        Some(body) if log_finished_with_response(&body) => json_response(StatusCode::OK, body),
        _ => accepted(),
    }
}

fn log_finished_with_response(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|m| {
        m.get("method").is_none() && (m.get("result").is_some() || m.get("error").is_some())
    })
}

fn priming_event(log: &StreamLog, seq: u64) -> Bytes {
    Bytes::from(format!(
        "id: {}-{seq}\nretry: {RETRY_MS}\ndata: \n\n",
        log.id
    ))
}

fn event(id: Option<(u64, u64)>, data: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 48);
    if let Some((stream, seq)) = id {
        out.extend_from_slice(format!("id: {stream}-{seq}\n").as_bytes());
    }
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// Frames fed by a task of their own: the response body ends when the task does, and the task
/// ends when the client goes away (its sends fail).
type Frames = mpsc::Receiver<Bytes>;

fn single(body: Bytes) -> Frames {
    let (tx, rx) = mpsc::channel(1);
    let _ = tx.try_send(event(None, &body));
    rx
}

/// A request's stream, from event `after` on: its events as they come, until its last one (then
/// the stream is forgotten: nothing is left to resume) or until the server cuts it.
fn follow(
    log: Arc<StreamLog>,
    live: Arc<LiveSession>,
    after: u64,
    first: Option<Bytes>,
    slot: Option<Slot>,
) -> Frames {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        let _slot = slot;
        if let Some(first) = first
            && tx.send(first).await.is_err()
        {
            return;
        }
        let mut reader = log.reader(after);
        loop {
            let next = tokio::select! {
                next = reader.next(&log) => next,
                () = tx.closed() => return,
            };
            match next {
                Next::Events(events) => {
                    for (seq, data) in events {
                        if tx.send(event(Some((log.id, seq)), &data)).await.is_err() {
                            return;
                        }
                    }
                }
                Next::End => {
                    live.drop_stream(log.id);
                    return;
                }
                Next::Cut => return,
            }
        }
    });
    rx
}

/// The session's stream of change notifications: list changes, and updates of the resources it
/// subscribed to, until the session or the server ends.
fn changes(legacy: Arc<Legacy>, session_id: String, live: Arc<LiveSession>, slot: Slot) -> Frames {
    let (tx, rx) = mpsc::channel(16);
    let mut bus = legacy.dispatcher.changes.subscribe();
    let shutdown = legacy.dispatcher.shutdown.clone();
    tokio::spawn(async move {
        let _slot = slot;
        loop {
            let change = tokio::select! {
                change = bus.recv() => change,
                () = live.ended.cancelled() => return,
                () = shutdown.cancelled() => return,
                () = tx.closed() => return,
            };
            let changes = match change {
                Ok(change) => vec![change],
                // Missed some: every list may have changed.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => vec![
                    crate::bus::Change::ToolsListChanged,
                    crate::bus::Change::PromptsListChanged,
                    crate::bus::Change::ResourcesListChanged,
                ],
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            };
            // The session as it is now: its subscriptions may have changed since the stream opened.
            let Ok(Some(session)) = legacy.store.get(&session_id).await else {
                return;
            };
            for change in &changes {
                if let Some(n) = legacy.change_notification(change, &session)
                    && tx.send(event(None, &n)).await.is_err()
                {
                    return;
                }
            }
        }
    });
    rx
}

/// An SSE response carrying `frames`, with keep-alive comments while they wait.
fn stream(frames: Frames, keepalive: Duration) -> Response {
    let body = FrameBody {
        frames,
        keepalive: KeepAlive::new(keepalive),
    };
    super::sse::stream_response(Body::from_stream(body))
}

struct FrameBody {
    frames: Frames,
    keepalive: KeepAlive,
}

impl futures_core::Stream for FrameBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let this = self.get_mut();
        match this.frames.poll_recv(cx) {
            Poll::Ready(Some(frame)) => Poll::Ready(Some(Ok(frame))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match this.keepalive.poll_due(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n")))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}
