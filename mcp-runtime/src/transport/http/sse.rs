//! Answers as Server-Sent Events: each message of a [`Call`] is one `message` event; a stream
//! that waits gets keep-alive comments. Dropping the body (the client went away) drops the call,
//! which cancels the handler.

use crate::dispatch::{Call, Outgoing};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::HeaderValue;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// An SSE answer: `first`, then what the rest of `call` sends.
pub(super) fn response(first: Bytes, call: Option<Call>, keepalive: Duration) -> Response {
    let events = Events {
        first: Some(first),
        call,
    };
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(keepalive))
        .into_response();
    // Tells nginx not to buffer the stream.
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The messages of a call, as events.
struct Events {
    first: Option<Bytes>,
    call: Option<Call>,
}

fn event(message: &[u8]) -> Event {
    // Messages are serde_json's output: UTF-8, and without raw line breaks.
    Event::default()
        .event("message")
        .data(std::str::from_utf8(message).unwrap_or_default())
}

impl futures_core::Stream for Events {
    type Item = Result<Event, Infallible>;

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
            Poll::Pending => Poll::Pending,
        }
    }
}
