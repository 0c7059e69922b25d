//! The answer to one request as a stream: request-scoped notifications, then exactly one
//! [`Response`] ([`Call`]).

use super::encode::Response;
use super::observe::Observation;
use super::slots::Slot;
use crate::context::{ContextInner, NotificationReceiver};
use crate::error::McpError;
use crate::protocol::RequestId;
use bytes::Bytes;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio_util::sync::CancellationToken;

/// One item of a [`Call`].
///
/// ```
/// # async fn demo(mut call: mcp_runtime::dispatch::Call) {
/// use mcp_runtime::dispatch::Outgoing;
/// while let Some(message) = call.next_message().await {
///     match message {
///         Outgoing::Notification(bytes) => println!("notification: {} bytes", bytes.len()),
///         Outgoing::Response(response) => println!("answer: {} bytes", response.body.len()),
///     }
/// }
/// # }
/// ```
#[derive(Debug)]
pub enum Outgoing {
    /// A serialized notification belonging to the request.
    Notification(Bytes),
    /// The final response; nothing follows it.
    Response(Response),
}

/// The handler's future, when it did not finish at dispatch.
pub(crate) type Pending = Pin<Box<dyn Future<Output = Response> + Send>>;

/// The stream of messages answering one request: notifications, then exactly one response.
///
/// Dropping a `Call` before its response cancels the handler (its
/// [`CancellationToken`] fires and its future is dropped).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use mcp_runtime::Server;
/// let server = Server::builder().build().unwrap();
/// let call = server.handle_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, None).unwrap();
/// let response = call.response().await;
/// assert_eq!(response.error_code(), Some(-32602)); // no `_meta`
/// # }
/// ```
pub struct Call {
    id: Option<RequestId>,
    rx: Option<NotificationReceiver>,
    fut: Option<Pending>,
    ready: Option<Response>,
    /// The request, to cancel when the call is dropped before its response.
    request: Option<Arc<ContextInner>>,
    /// Its span and metrics, finished with the response.
    observe: Option<Box<Observation>>,
    finished: bool,
    /// Counts the request against the server's concurrency limit until the call is dropped.
    permit: Option<Slot>,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl Call {
    /// A call whose handler is still running (`fut`) or already answered (`ready`).
    pub(crate) fn new(
        id: RequestId,
        rx: Option<NotificationReceiver>,
        fut: Option<Pending>,
        ready: Option<Response>,
        request: Arc<ContextInner>,
        observe: Option<Box<Observation>>,
    ) -> Call {
        Call {
            id: Some(id),
            rx,
            fut,
            ready,
            request: Some(request),
            observe,
            finished: false,
            permit: None,
        }
    }

    /// A call answered before any handler was started (`id` absent when it could not be read).
    pub(crate) fn ready(id: Option<RequestId>, response: Response) -> Call {
        Call {
            id,
            rx: None,
            fut: None,
            ready: Some(response),
            request: None,
            observe: None,
            finished: false,
            permit: None,
        }
    }

    /// The call, holding a permit of the concurrency limit while it is running (one answered
    /// at once gives it back at once).
    pub(crate) fn holding(mut self, slot: Slot) -> Call {
        self.permit = Some(slot);
        self
    }

    /// The id of the request it answers, when it could be read.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// Whether a handler is still running (the call was not answered when it was dispatched).
    pub fn is_running(&self) -> bool {
        self.fut.is_some()
    }

    /// The cancellation token of the handler (one that never fires when no handler started).
    pub fn cancellation(&self) -> CancellationToken {
        match &self.request {
            Some(request) => request.cancellation(),
            None => CancellationToken::new(),
        }
    }

    /// A future resolving when the handler asks for its stream's connection to be closed
    /// ([`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream)); never
    /// when no handler started.
    pub(crate) fn stream_cut(&self) -> impl Future<Output = ()> + Send + 'static {
        let request = self.request.clone();
        async move {
            match request {
                Some(request) => request.stream_cut.notified().await,
                None => std::future::pending().await,
            }
        }
    }

    /// Polls for the next message.
    pub fn poll_next_message(&mut self, cx: &mut Context<'_>) -> Poll<Option<Outgoing>> {
        if self.finished {
            return Poll::Ready(None);
        }
        if let Some(rx) = &mut self.rx
            && self.fut.is_some()
            && let Poll::Ready(Some(b)) = rx.poll_recv(cx)
        {
            return Poll::Ready(Some(Outgoing::Notification(b)));
        }
        if let Some(fut) = &mut self.fut {
            match fut.as_mut().poll(cx) {
                Poll::Ready(resp) => {
                    self.fut = None;
                    self.ready = Some(resp);
                }
                Poll::Pending => {
                    // What the handler queued during this poll goes out now, not after the
                    // wake-up the queue gave this same task (one poll of the task per
                    // notification instead of two: a change reaches 10,000 listen streams
                    // sooner).
                    if let Some(rx) = &mut self.rx
                        && let Poll::Ready(Some(b)) = rx.poll_recv(cx)
                    {
                        return Poll::Ready(Some(Outgoing::Notification(b)));
                    }
                    return Poll::Pending;
                }
            }
        }
        // The handler is done: flush what it sent before finishing, then the response.
        if let Some(rx) = &mut self.rx
            && let Some(b) = rx.try_recv()
        {
            return Poll::Ready(Some(Outgoing::Notification(b)));
        }
        self.rx = None;
        self.finished = true;
        let response = self.ready.take();
        if let (Some(observe), Some(response)) = (self.observe.take(), &response) {
            observe.finish(response, self.request.as_deref());
        }
        Poll::Ready(response.map(Outgoing::Response))
    }

    /// The next message, or `None` after the response.
    pub async fn next_message(&mut self) -> Option<Outgoing> {
        std::future::poll_fn(|cx| self.poll_next_message(cx)).await
    }

    /// Runs to completion, dropping notifications, and returns the response.
    pub async fn response(mut self) -> Response {
        loop {
            match self.next_message().await {
                Some(Outgoing::Response(r)) => return r,
                Some(Outgoing::Notification(_)) => continue,
                None => {
                    return Response::error(
                        None,
                        &McpError::internal("the request produced no response"),
                    );
                }
            }
        }
    }
}

impl futures_core::Stream for Call {
    type Item = Outgoing;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Outgoing>> {
        self.get_mut().poll_next_message(cx)
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.finished
            && let Some(request) = &self.request
        {
            request.abandon();
            if let Some(observe) = self.observe.take() {
                observe.cancelled(Some(request));
            }
        }
    }
}
