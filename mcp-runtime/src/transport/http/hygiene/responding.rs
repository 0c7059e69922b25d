//! The response future of each request: it keeps its request in flight until the response is
//! ready, marks a streamed response, says `Connection: close` once the server drains, and ends
//! with an error when the client goes away while it waits (`socket.rs`).

use super::conn::InFlight;
use super::socket::{ClientGone, Socket, Watched, gone};
use axum::body::{Body, HttpBody};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

pin_project_lite::pin_project! {
    /// A response future that keeps its request in flight until the response is ready, and
    /// ends with [`ClientGone`] if the client goes away before (`socket`).
    pub(crate) struct Responding<F> {
        #[pin]
        pub(crate) future: F,
        pub(crate) in_flight: Option<InFlight>,
        // The client's address, which the request's handler reads while it is polled.
        pub(crate) peer: std::net::SocketAddr,
        // Watched while the answer waits; `None` once the client sent more.
        pub(crate) socket: Option<Socket>,
    }
}

impl<F> Future for Responding<F>
where
    F: Future<Output = Result<http::Response<Body>, Infallible>>,
{
    type Output = Result<http::Response<Body>, ClientGone>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let future = this.future;
        let polled = crate::transport::http::peer::with_peer(*this.peer, || future.poll(cx));
        let mut response = match polled {
            Poll::Ready(Ok(response)) => response,
            Poll::Ready(Err(never)) => match never {},
            Poll::Pending if gone(this.socket, cx) => return Poll::Ready(Err(ClientGone)),
            Poll::Pending => return Poll::Pending,
        };
        if let Some(in_flight) = this.in_flight.take() {
            if response.body().size_hint().exact().is_none() {
                // A stream: written for as long as it lasts, with write progress to show for
                // it, and watched for its client's going while it waits for what to write.
                in_flight.0.streaming.store(true, Ordering::Relaxed);
                if let Some(socket) = this.socket.take() {
                    let body = std::mem::take(response.body_mut());
                    *response.body_mut() = Body::new(Watched::new(body, socket));
                }
            }
            if in_flight.0.draining.load(Ordering::Relaxed) {
                response.headers_mut().insert(
                    http::header::CONNECTION,
                    http::HeaderValue::from_static("close"),
                );
            }
        }
        Poll::Ready(Ok(response))
    }
}
