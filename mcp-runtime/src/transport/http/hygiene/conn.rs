//! One open connection as its I/O and its requests see it: the state they stamp (requests in
//! flight, write and read progress, a body still coming, the drain), the socket wrapper that
//! stamps writes and fails once the table closed it, the request body that stamps reads, and
//! the mark of a request in flight (the response future that holds it is `responding.rs`).

use crate::net::ClientNet;
use axum::body::HttpBody;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How long a request body may bring nothing before its connection may be closed to make room
/// at the cap, as an idle one may.
pub(crate) const SLOW_BODY_MS: u64 = 1_000;

/// Milliseconds since the table was made, advanced by the sweeper: what a connection stamps
/// its activity with (a load, where reading the clock would be a system call).
#[derive(Debug, Default)]
pub(super) struct Clock(pub(super) AtomicU64);

impl Clock {
    pub(super) fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// One open connection, as the table and its I/O see it.
#[derive(Debug)]
pub(crate) struct ConnState {
    pub(super) clock: Arc<Clock>,
    /// Requests whose response is not yet written to its end.
    pub(super) open: AtomicU32,
    /// Whether the response in flight wrote anything yet.
    pub(super) wrote: AtomicBool,
    /// Whether the last response is a stream (its length unknown) that may still be written.
    pub(super) streaming: AtomicBool,
    /// When the connection last became idle or made write progress.
    pub(super) last: AtomicU64,
    /// Whether a request's body is still coming.
    pub(super) receiving: AtomicBool,
    /// When the body last brought bytes (or its request began).
    pub(super) read_at: AtomicU64,
    /// The client address whose share it counts against (none: a trusted proxy's).
    pub(super) share: Option<ClientNet>,
    /// Set when the server drains: each answer from then on closes the connection.
    pub(super) draining: AtomicBool,
    /// Set by the sweeper: the connection's I/O fails from now on, so hyper closes it.
    pub(super) closing: AtomicBool,
    /// The task serving the connection, woken to see `closing`.
    pub(super) waker: atomic_waker::AtomicWaker,
}

impl ConnState {
    /// No request in flight and no stream being written: waiting for a request head.
    pub(super) fn idle(&self) -> bool {
        self.open.load(Ordering::Acquire) == 0 && !self.streaming.load(Ordering::Relaxed)
    }

    /// When it may be closed to make room, if it may: idle (since it became so), or waiting
    /// for a request body that has brought nothing for [`SLOW_BODY_MS`] (since its last byte).
    pub(super) fn evictable_since(&self, now: u64) -> Option<u64> {
        if self.closing.load(Ordering::Acquire) {
            return None;
        }
        if self.idle() {
            return Some(self.last.load(Ordering::Relaxed));
        }
        let read_at = self.read_at.load(Ordering::Relaxed);
        (self.receiving.load(Ordering::Acquire) && now.saturating_sub(read_at) >= SLOW_BODY_MS)
            .then_some(read_at)
    }

    pub(super) fn close(&self) {
        self.closing.store(true, Ordering::Release);
        self.waker.wake();
    }

    fn closed_error() -> io::Error {
        io::Error::new(io::ErrorKind::TimedOut, "connection closed by the server")
    }

    /// The server drains: each answer from now on carries `Connection: close`, so that its
    /// client (a proxy) does not send another request on the connection.
    pub(crate) fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// A request's head was read: the connection is busy until its response is written.
    pub(crate) fn request_started(self: &Arc<Self>) -> InFlight {
        self.open.fetch_add(1, Ordering::AcqRel);
        self.wrote.store(false, Ordering::Relaxed);
        self.streaming.store(false, Ordering::Relaxed);
        InFlight(self.clone())
    }

    /// A request whose body is still to come: `body`, watched (its bytes stamp the connection's
    /// read progress; its end, or its drop, ends the wait).
    pub(crate) fn receiving(self: &Arc<Self>, body: hyper::body::Incoming) -> Receiving {
        self.read_at.store(self.clock.now(), Ordering::Relaxed);
        self.receiving.store(true, Ordering::Release);
        Receiving {
            body,
            state: Some(self.clone()),
        }
    }
}

pin_project_lite::pin_project! {
    /// A request body on its way, stamping its connection's read progress.
    pub(crate) struct Receiving {
        #[pin]
        body: hyper::body::Incoming,
        state: Option<Arc<ConnState>>,
    }

    impl PinnedDrop for Receiving {
        fn drop(this: Pin<&mut Self>) {
            if let Some(state) = this.project().state.take() {
                state.receiving.store(false, Ordering::Release);
            }
        }
    }
}

impl HttpBody for Receiving {
    type Data = bytes::Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let this = self.project();
        let polled = this.body.poll_frame(cx);
        if let Some(state) = this.state.as_ref() {
            match &polled {
                Poll::Ready(Some(Ok(_))) => {
                    state.read_at.store(state.clock.now(), Ordering::Relaxed);
                }
                Poll::Ready(_) => {
                    state.receiving.store(false, Ordering::Release);
                    *this.state = None;
                }
                Poll::Pending => {}
            }
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

/// A request in flight on a connection, until its response is handed to it.
#[derive(Debug)]
pub(crate) struct InFlight(pub(super) Arc<ConnState>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let state = &self.0;
        state.last.store(state.clock.now(), Ordering::Relaxed);
        state.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A connection's socket, stamping write progress and failing once the sweeper closed it.
#[derive(Debug)]
pub(crate) struct Tracked<T> {
    pub(crate) io: T,
    pub(crate) state: Arc<ConnState>,
}

impl<T> Tracked<T> {
    fn closed(&self) -> io::Result<()> {
        match self.state.closing.load(Ordering::Acquire) {
            true => Err(ConnState::closed_error()),
            false => Ok(()),
        }
    }

    /// Waiting for the client: the sweeper may close the connection meanwhile, and wakes the
    /// task to see it.
    fn waiting(&self, cx: &Context<'_>) {
        self.state.waker.register(cx.waker());
    }

    fn wrote(&self, n: usize) {
        if n > 0 {
            let s = &self.state;
            s.last.store(s.clock.now(), Ordering::Relaxed);
            s.wrote.store(true, Ordering::Relaxed);
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Tracked<T> {
    #[inline]
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.closed()?;
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if polled.is_pending() {
            self.waiting(cx);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Tracked<T> {
    #[inline]
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.closed()?;
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        match &polled {
            Poll::Ready(Ok(n)) => self.wrote(*n),
            Poll::Pending => self.waiting(cx),
            Poll::Ready(Err(_)) => {}
        }
        polled
    }

    #[inline]
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.closed()?;
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        match &polled {
            Poll::Ready(Ok(n)) => self.wrote(*n),
            Poll::Pending => self.waiting(cx),
            Poll::Ready(Err(_)) => {}
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
