//! A connection's socket, shared by hyper's I/O and the watch for a client that goes away while
//! its request is answered.
//!
//! hyper serves each connection in half-close mode (`accept.rs`): it does not read while a
//! request is in flight. Otherwise it would, to see the client's EOF, and before each read it
//! makes room in its read buffer, which the request's headers still share then: a new 8 KiB
//! buffer for every request (BENCHMARKS.md, "hyper's read buffer"). So an answer still being
//! made, and a streamed answer waiting for its next event, look at the socket themselves: a
//! client that closed the connection, or a connection the sweeper closed, ends the answer with
//! an error, hyper closes the connection and drops the handler's future, which is how the
//! handler learns it was cancelled.

use super::conn::ConnState;
use axum::body::{Body, HttpBody};
use bytes::Bytes;
use std::io;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// One connection's socket: hyper's I/O reads and writes it, the watch peeks at it. Both run on
/// the connection's task, so the lock is never contended; it is there because tokio reads a
/// socket only through `&mut`.
#[derive(Debug, Clone)]
pub(crate) struct Socket(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    stream: Mutex<TcpStream>,
    state: Arc<ConnState>,
}

/// Why an answer ended early: its client went away (or the server closed its connection).
#[derive(Debug)]
pub(crate) struct ClientGone;

impl std::fmt::Display for ClientGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client closed the connection before the answer was complete")
    }
}

impl std::error::Error for ClientGone {}

impl Socket {
    pub(crate) fn new(stream: TcpStream, state: Arc<ConnState>) -> Self {
        Self(Arc::new(Shared {
            stream: Mutex::new(stream),
            state,
        }))
    }

    fn stream(&self) -> MutexGuard<'_, TcpStream> {
        // Nothing panics while holding it; a poisoned lock still guards a usable socket.
        self.0.stream.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the client has gone: `Ready(true)` at its EOF, on a socket error, or once the
    /// sweeper closed the connection; `Ready(false)` when it sent more (a pipelined request,
    /// which hyper reads after this answer: a watch that kept finding it would spin, so it
    /// stops); `Pending` until one of these, the task then woken, or while the request's body
    /// is still being read.
    pub(crate) fn poll_gone(&self, cx: &mut Context<'_>) -> Poll<bool> {
        let state = &self.0.state;
        if state.closing.load(Ordering::Acquire) {
            return Poll::Ready(true);
        }
        if state.receiving.load(Ordering::Acquire) {
            // The request's body is still coming: the socket's bytes are the body's, and
            // hyper, reading them, sees an EOF itself.
            return Poll::Pending;
        }
        let mut byte = [0u8; 1];
        let mut peeked = ReadBuf::new(&mut byte);
        let polled = self.stream().poll_peek(cx, &mut peeked);
        match polled {
            Poll::Ready(Ok(0) | Err(_)) => Poll::Ready(true),
            Poll::Ready(Ok(_)) => Poll::Ready(false),
            Poll::Pending => {
                // The sweeper wakes the task to see `closing`.
                state.waker.register(cx.waker());
                Poll::Pending
            }
        }
    }
}

/// For an answer that waits: whether the client behind `watch` has gone. A watch that finds the
/// client sent more is dropped ([`Socket::poll_gone`]); none left, nothing is looked at.
pub(crate) fn gone(watch: &mut Option<Socket>, cx: &mut Context<'_>) -> bool {
    match watch.as_ref().map(|socket| socket.poll_gone(cx)) {
        Some(Poll::Ready(true)) => true,
        Some(Poll::Ready(false)) => {
            *watch = None;
            false
        }
        Some(Poll::Pending) | None => false,
    }
}

impl AsyncRead for Socket {
    #[inline]
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.stream()).poll_read(cx, buf)
    }
}

impl AsyncWrite for Socket {
    #[inline]
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.stream()).poll_write(cx, buf)
    }

    #[inline]
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.stream()).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.stream()).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.stream()).poll_shutdown(cx)
    }
}

pin_project_lite::pin_project! {
    /// A streamed answer (SSE) that ends with an error once its client has gone, looked for
    /// whenever it waits for its next event.
    pub(crate) struct Watched {
        #[pin]
        body: Body,
        socket: Option<Socket>,
    }
}

impl Watched {
    pub(crate) fn new(body: Body, socket: Socket) -> Self {
        Self {
            body,
            socket: Some(socket),
        }
    }
}

impl HttpBody for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        let this = self.project();
        let polled = this.body.poll_frame(cx);
        if polled.is_pending() && gone(this.socket, cx) {
            return Poll::Ready(Some(Err(axum::Error::new(ClientGone))));
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::{Admitted, Hygiene, Registered, Table};
    use super::*;
    use std::future::poll_fn;
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

    /// A connected pair: the server's side as a [`Socket`] with its table entry, and the client.
    async fn pair() -> (Socket, Arc<ConnState>, TcpStream, Registered) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let table = Table::new(Hygiene {
            idle: None,
            stall: Duration::from_secs(60),
            max_connections: 8,
            per_address: 8,
            exempt: crate::net::Network::LOOPBACK.to_vec(),
            ipv6_prefix: 64,
        });
        let Admitted::Serve(registered) = table.admit(None) else {
            panic!("an empty table admits");
        };
        let state = registered.state.clone();
        (
            Socket::new(server, state.clone()),
            state,
            client,
            registered,
        )
    }

    #[tokio::test]
    async fn the_watch_tells_a_gone_client_from_a_quiet_one_and_from_one_that_sent_more() {
        // Quiet: nothing to see yet.
        let (socket, _state, mut client, _entry) = pair().await;
        let quiet = poll_fn(|cx| Poll::Ready(socket.poll_gone(cx))).await;
        assert!(quiet.is_pending());
        // More bytes (a pipelined request): not gone, and the watch can stop.
        client.write_all(b"POST").await.unwrap();
        let sent = tokio::time::timeout(Duration::from_secs(5), poll_fn(|cx| socket.poll_gone(cx)));
        assert!(!sent.await.unwrap(), "bytes to read are no EOF");
        // The client closes: gone.
        let (socket, _state, client, _entry) = pair().await;
        drop(client);
        let gone = tokio::time::timeout(Duration::from_secs(5), poll_fn(|cx| socket.poll_gone(cx)));
        assert!(gone.await.unwrap(), "the client's EOF");
        // The sweeper closed the connection: gone, without the client doing anything.
        let (socket, state, _client, _entry) = pair().await;
        state.close();
        assert!(poll_fn(|cx| Poll::Ready(socket.poll_gone(cx))).await == Poll::Ready(true));
        // While a request's body is still coming, the socket's bytes are the body's.
        let (socket, state, mut client, _entry) = pair().await;
        state.receiving.store(true, Ordering::Release);
        client.write_all(b"{\"jsonrpc\"").await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            poll_fn(|cx| Poll::Ready(socket.poll_gone(cx)))
                .await
                .is_pending()
        );
    }
}
