//! Answers as Server-Sent Events: each message of a [`Call`] is one `message` event; a stream
//! that waits gets keep-alive comments. Dropping the body (the client went away) drops the call,
//! which cancels the handler.
//!
//! A 2025-11-25 session's streams ([`session_stream`]) are framed here too: their events carry
//! ids (`{stream}-{n}`) for `Last-Event-ID`, each request's stream may start with a priming
//! event (an id, `retry`, empty data), and a GET stream's change notifications carry none.
//!
//! Framed by hand rather than with axum's `Sse`: its `Event` re-scans each message for line
//! breaks, and its keep-alive timer is reset after every event (BENCHMARKS.md, "SSE framing").

use crate::dispatch::{Call, Outgoing, Slot};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderValue, header};
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

/// How soon a 2025-11-25 client whose stream was cut should reconnect.
const RETRY_MS: u64 = 1_000;

/// An SSE answer: `first`, then what the rest of `call` sends.
/// `headers`: a map to reuse for the response (emptied first; the request's, as for JSON).
pub(super) fn response(
    first: Bytes,
    call: Option<Call>,
    keepalive: Duration,
    headers: http::HeaderMap,
) -> Response {
    let body = Body::from_stream(SseBody::new(first, call, keepalive));
    stream_response_in(headers, body)
}

/// A `text/event-stream` response carrying `body`, uncached and unbuffered by proxies.
fn stream_response(body: Body) -> Response {
    stream_response_in(http::HeaderMap::new(), body)
}

/// [`stream_response`] with `headers` (emptied) as its header map.
fn stream_response_in(mut h: http::HeaderMap, body: Body) -> Response {
    h.clear();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Tells nginx not to buffer the stream.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    let mut resp = Response::new(body);
    *resp.headers_mut() = h;
    resp
}

/// The SSE body: the first message, then the rest of the call, with keep-alive comments while
/// it waits.
struct SseBody {
    first: Option<Bytes>,
    call: Option<Call>,
    keepalive: KeepAlive,
}

impl SseBody {
    fn new(first: Bytes, call: Option<Call>, every: Duration) -> Self {
        SseBody {
            first: Some(first),
            call,
            keepalive: KeepAlive::new(every),
        }
    }
}

/// When the next keep-alive comment of an SSE stream (this module's, and a 2025-11-25
/// session's) is due. The stream is polled again after every message it sends; the timer is
/// polled only when it is due or the stream's waker changed (polling it each time cost more
/// than the message; BENCHMARKS.md, "SSE framing").
struct KeepAlive {
    /// Made the first time the stream waits: a stream whose messages are all ready (a tool that
    /// reports progress and answers without waiting) never needs a timer, and a boxed `Sleep`
    /// is a cache-line-aligned allocation, among the dearest of such a call.
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    /// When the first comment is due: `every` after the stream began.
    first: tokio::time::Instant,
    every: Duration,
    /// The waker the timer holds, once it has been polled and found pending.
    armed: Option<std::task::Waker>,
}

impl KeepAlive {
    fn new(every: Duration) -> Self {
        KeepAlive {
            sleep: None,
            first: tokio::time::Instant::now() + every,
            every,
            armed: None,
        }
    }

    /// Ready when a comment is due (then the next one is due `every` later).
    fn poll_due(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if let (Some(waker), Some(sleep)) = (&self.armed, &self.sleep)
            && waker.will_wake(cx.waker())
            && tokio::time::Instant::now() < sleep.deadline()
        {
            return Poll::Pending;
        }
        let first = self.first;
        let sleep = self
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(first)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => {
                let next = tokio::time::Instant::now() + self.every;
                sleep.as_mut().reset(next);
                self.armed = None;
                Poll::Ready(())
            }
            Poll::Pending => {
                self.armed = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// One `message` event. Messages are serde_json's output: no raw line breaks to split on.
// Sized exactly: `Bytes` takes a full vector as it is, and one with room to spare costs it an
// allocation of its own (`bytes`'s `From<Vec<u8>>`).
fn event(data: &[u8]) -> Bytes {
    const HEAD: &[u8] = b"event: message\ndata: ";
    let mut out = Vec::with_capacity(HEAD.len() + data.len() + 2);
    out.extend_from_slice(HEAD);
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    debug_assert_eq!(out.len(), out.capacity());
    Bytes::from(out)
}

/// One `message` event with the id `{stream}-{seq}` (sized exactly, as [`event`] is).
fn event_with_id(stream: u64, seq: u64, data: &[u8]) -> Bytes {
    use std::io::Write as _;
    const HEAD: &[u8] = b"event: message\ndata: ";
    let digits = |n: u64| n.checked_ilog10().map_or(1, |d| d as usize + 1);
    let id_len = "id: ".len() + digits(stream) + 1 + digits(seq) + 1;
    let mut out = Vec::with_capacity(id_len + HEAD.len() + data.len() + 2);
    // Writing into a vector cannot fail.
    let _ = writeln!(out, "id: {stream}-{seq}");
    out.extend_from_slice(HEAD);
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    debug_assert_eq!(out.len(), out.capacity());
    Bytes::from(out)
}

/// One event of a 2025-11-25 session's stream, before it is framed.
pub(super) enum Frame {
    /// A message without an event id (a change notification, or an answer sent at once).
    Message(Bytes),
    /// Event `seq` of the request stream `stream`: resumable from it with `Last-Event-ID`.
    Event { stream: u64, seq: u64, data: Bytes },
    /// The event a request stream starts with: its id and the reconnection delay, no data.
    Priming { stream: u64, seq: u64 },
}

impl Frame {
    fn framed(self) -> Bytes {
        match self {
            Frame::Message(data) => event(&data),
            Frame::Event { stream, seq, data } => event_with_id(stream, seq, &data),
            Frame::Priming { stream, seq } => {
                Bytes::from(format!("id: {stream}-{seq}\nretry: {RETRY_MS}\ndata: \n\n"))
            }
        }
    }
}

/// A 2025-11-25 session's SSE response: the frames fed to `frames` (by a task that ends when
/// the client goes away, as its sends then fail), with keep-alive comments while they wait.
/// `slot`, a listen stream's place in its pool, is held until the body is dropped.
pub(super) fn session_stream(
    frames: mpsc::Receiver<Frame>,
    keepalive: Duration,
    slot: Option<Slot>,
) -> Response {
    frame_response(Source::Frames(frames), keepalive, slot)
}

/// [`session_stream`] of messages that carry no event id (a session's change notifications).
pub(super) fn message_stream(
    messages: mpsc::Receiver<Bytes>,
    keepalive: Duration,
    slot: Option<Slot>,
) -> Response {
    frame_response(Source::Messages(messages), keepalive, slot)
}

fn frame_response(source: Source, keepalive: Duration, slot: Option<Slot>) -> Response {
    let body = FrameBody {
        source,
        keepalive: KeepAlive::new(keepalive),
        _slot: slot,
    };
    stream_response(Body::from_stream(body))
}

/// What a session stream's body reads its events from.
enum Source {
    Frames(mpsc::Receiver<Frame>),
    Messages(mpsc::Receiver<Bytes>),
}

impl Source {
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        match self {
            Source::Frames(rx) => rx.poll_recv(cx).map(|f| f.map(Frame::framed)),
            Source::Messages(rx) => rx.poll_recv(cx).map(|m| m.map(|m| event(&m))),
        }
    }
}

struct FrameBody {
    source: Source,
    keepalive: KeepAlive,
    _slot: Option<Slot>,
}

impl futures_core::Stream for FrameBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        match this.source.poll_next(cx) {
            Poll::Ready(Some(frame)) => Poll::Ready(Some(Ok(frame))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match this.keepalive.poll_due(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n")))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
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
            Poll::Pending => match this.keepalive.poll_due(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n")))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed_in_buffers_of_their_exact_size() {
        // The sizes are checked by the functions' `debug_assert`s; the text here.
        assert_eq!(&event(b"{}")[..], b"event: message\ndata: {}\n\n");
        for (stream, seq) in [(0, 0), (9, 10), (10, 99), (123, 4567), (u64::MAX, u64::MAX)] {
            assert_eq!(
                event_with_id(stream, seq, b"{}"),
                Bytes::from(format!(
                    "id: {stream}-{seq}\nevent: message\ndata: {{}}\n\n"
                ))
            );
        }
    }
}
