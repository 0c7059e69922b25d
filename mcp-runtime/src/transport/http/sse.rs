//! Answers as Server-Sent Events: each message of a [`Call`] is one `message` event; a stream
//! that waits gets keep-alive comments. Dropping the body (the client went away) drops the call,
//! which cancels the handler.
//!
//! Framed by hand rather than with axum's `Sse`: that costs about 10k instructions more per SSE
//! request (its `Event` re-scans each message for line breaks, and its keep-alive timer is reset
//! after every event): 69,983 against 60,043 per call with two progress notifications
//! (`mcp-bench --callgrind --only sse`).

use crate::dispatch::{Call, Outgoing};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderValue, header};
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// An SSE answer: `first`, then what the rest of `call` sends.
pub(super) fn response(first: Bytes, call: Option<Call>, keepalive: Duration) -> Response {
    stream_response(Body::from_stream(SseBody::new(first, call, keepalive)))
}

/// A `text/event-stream` response carrying `body`, uncached and unbuffered by proxies.
pub(super) fn stream_response(body: Body) -> Response {
    let mut resp = Response::new(body);
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Tells nginx not to buffer the stream.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}

/// The SSE body: the first message, then the rest of the call, with keep-alive comments while
/// it waits.
struct SseBody {
    first: Option<Bytes>,
    call: Option<Call>,
    keepalive: tokio::time::Interval,
}

impl SseBody {
    fn new(first: Bytes, call: Option<Call>, every: Duration) -> Self {
        let mut keepalive = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        keepalive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        SseBody {
            first: Some(first),
            call,
            keepalive,
        }
    }
}

/// One `message` event. Messages are serde_json's output: no raw line breaks to split on.
fn event(data: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

impl futures_core::Stream for SseBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(first) = this.first.take() {
            return Poll::Ready(Some(Ok(event(&first))));
        }
        let Some(call) = &mut this.call else {
            return Poll::Ready(None);
        };
        match call.poll_next_message(cx) {
            Poll::Ready(Some(Outgoing::Notification(n))) => Poll::Ready(Some(Ok(event(&n)))),
            Poll::Ready(Some(Outgoing::Response(r))) => {
                this.call = None;
                Poll::Ready(Some(Ok(event(&r.body))))
            }
            Poll::Ready(None) => {
                this.call = None;
                Poll::Ready(None)
            }
            Poll::Pending => match this.keepalive.poll_tick(cx) {
                Poll::Ready(_) => Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n")))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}
