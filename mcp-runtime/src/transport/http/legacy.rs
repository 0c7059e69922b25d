//! Streamable HTTP for 2025-11-25 sessions: `initialize` opens a session (`Mcp-Session-Id`),
//! later POSTs name it, GET opens its stream of change notifications (or, with
//! `Last-Event-ID`, resumes a request's stream that was cut), DELETE ends it; an unknown or
//! ended session gets 404.
//!
//! The sessions themselves are served by [`Legacy`]; this module only frames what it answers:
//! statuses, the session header, and SSE streams (`sse`). A request keeps running when its
//! client disconnects: only `notifications/cancelled` cancels it.

use super::answer::answer;
use super::endpoint::Endpoint;
use super::negotiate::AcceptSet;
use super::respond::{json_response, method_not_allowed, plain_status};
use super::sse::{self, Frame};
use crate::context::Caller;
use crate::dispatch::{Slot, Transport};
use crate::legacy::{
    Inbound, Legacy, LiveSession, Next, Outcome, Reader, Reply, StreamLog, Unserved, Unusable,
};
use crate::protocol::codes;
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use std::sync::Arc;
use tokio::sync::mpsc;

/// `Mcp-Session-Id`, named as a constant (a name given as a `&str` is parsed at every use).
const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

fn session_id(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(SESSION_ID)
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

/// A message no session served, with its status.
fn unserved(why: Unserved, body: Bytes) -> Response {
    let status = match why {
        Unserved::NotOpened { .. } => StatusCode::BAD_REQUEST,
        Unserved::Gone => StatusCode::NOT_FOUND,
        Unserved::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
    };
    json_response(status, body)
}

/// A legacy POST.
pub(super) async fn post(
    endpoint: &Endpoint,
    legacy: &Arc<Legacy>,
    headers: &HeaderMap,
    body: &[u8],
    caller: Option<Arc<Caller>>,
    client: Option<crate::net::ClientNet>,
    accept: &AcceptSet,
) -> Response {
    let message = match crate::legacy::parse(body) {
        Ok(message) => message,
        Err(error) => return json_response(StatusCode::BAD_REQUEST, error),
    };
    let from = Inbound {
        session: session_id(headers),
        caller,
        client,
        transport: Transport::Http,
        back_channel: accept.sse,
    };
    let (reply, session, live) = match legacy.handle(message, from).await {
        Outcome::Nothing => return accepted(),
        Outcome::Opened(opened) => {
            let mut resp = json_response(StatusCode::OK, opened.response);
            if let Ok(value) = HeaderValue::from_str(&opened.session.id) {
                resp.headers_mut().insert(SESSION_ID, value);
            }
            return resp;
        }
        Outcome::Unserved { why, body } => return unserved(why, body),
        Outcome::Reply {
            reply,
            session,
            live,
        } => (reply, session, live),
    };
    let keepalive = endpoint.options.keepalive;
    match reply {
        Reply::Refused(response) => answer(&endpoint.options, response, Default::default()),
        Reply::Now(body) if accept.json => json_response(StatusCode::OK, body),
        Reply::Now(body) => sse::session_stream(single(body), keepalive, None),
        Reply::Later(log) if accept.sse => {
            // Read from the start, whatever happens while the first message is awaited (a cut
            // the handler asks for is seen).
            let reader = log.reader(0);
            // Nothing streamed before the response: one JSON body, written at once, when the
            // client takes JSON (an SSE stream is several writes and more bytes).
            if accept.json
                && let Some(only) = log.only_message().await
            {
                live.drop_stream(log.id);
                return json_response(StatusCode::OK, only);
            }
            let priming = session.protocol_version.as_str() >= "2025-11-25";
            let first = priming.then_some(Frame::Priming {
                stream: log.id,
                seq: 0,
            });
            sse::session_stream(follow(log, live, reader, first), keepalive, None)
        }
        Reply::Later(log) => last_message(log, &live).await,
    }
}

/// A legacy GET: the session's change notifications, or with `Last-Event-ID` the rest of a
/// request's stream.
pub(super) async fn get(
    endpoint: &Endpoint,
    legacy: &Arc<Legacy>,
    headers: &HeaderMap,
    caller: Option<Arc<Caller>>,
    client: Option<crate::net::ClientNet>,
    accept: &AcceptSet,
) -> Response {
    let Some(sid) = session_id(headers) else {
        return method_not_allowed().await;
    };
    let (session, live) = match legacy.session(sid, caller.as_deref()).await {
        Ok(found) => found,
        Err(why) => {
            let (why, body) = why.answer();
            return unserved(why, body);
        }
    };
    if !accept.sse {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: the session's stream is text/event-stream",
        );
    }
    // A session's stream is a listen stream of the older revision: it holds a slot of the same
    // pool, within the caller's share, for as long as it is open.
    let key = crate::context::ShareKey::of(caller.as_deref(), client);
    let slot: Slot = match legacy.dispatcher.listens.take(key) {
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
        let reader = log.reader(after);
        return sse::session_stream(follow(log, live, reader, None), keepalive, Some(slot));
    }
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(legacy.clone().changes(session.id.clone(), live, tx));
    sse::message_stream(rx, keepalive, Some(slot))
}

/// A legacy DELETE: ends the session.
pub(super) async fn delete(
    legacy: &Arc<Legacy>,
    headers: &HeaderMap,
    caller: Option<Arc<Caller>>,
) -> Response {
    let Some(sid) = session_id(headers) else {
        return method_not_allowed().await;
    };
    let why = match legacy.end_for(sid, caller.as_deref()).await {
        Ok(true) => return plain_status(StatusCode::OK, ""),
        Ok(false) => Unusable::Gone,
        Err(why) => why,
    };
    let (why, body) = why.answer();
    unserved(why, body)
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
    crate::json::from_bytes::<serde_json::Value>(body).is_ok_and(|m| {
        m.get("method").is_none() && (m.get("result").is_some() || m.get("error").is_some())
    })
}

/// Frames fed by a task of their own: the response body ends when the task does, and the task
/// ends when the client goes away (its sends fail).
type Frames = mpsc::Receiver<Frame>;

fn single(body: Bytes) -> Frames {
    let (tx, rx) = mpsc::channel(1);
    let _ = tx.try_send(Frame::Message(body));
    rx
}

/// A request's stream, read by `reader`: its events as they come, until its last one (then the
/// stream is forgotten: nothing is left to resume) or until the server cuts it.
fn follow(
    log: Arc<StreamLog>,
    live: Arc<LiveSession>,
    mut reader: Reader,
    first: Option<Frame>,
) -> Frames {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        if let Some(first) = first
            && tx.send(first).await.is_err()
        {
            return;
        }
        loop {
            let next = tokio::select! {
                next = reader.next(&log) => next,
                () = tx.closed() => return,
            };
            match next {
                Next::Events(events) => {
                    for (seq, data) in events {
                        let frame = Frame::Event {
                            stream: log.id,
                            seq,
                            data,
                        };
                        if tx.send(frame).await.is_err() {
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
