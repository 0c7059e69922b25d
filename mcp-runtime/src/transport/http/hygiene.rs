//! Connection hygiene of the accept loop: every open connection in one table, a sweeper that
//! closes those idle too long, and a cap on open connections (derived from the process's
//! file-descriptor limit) that makes room by closing the longest-idle ones rather than leaving
//! new clients unanswered.
//!
//! A connection is *idle* while no request is in flight on it: after it is accepted, and once
//! each response of a known length is handed to it. An idle connection that does not bring a
//! whole request head within the idle time is closed: that is the head timeout too, so a client
//! that connects and sends nothing, or a byte at a time, cannot hold it. A request is in flight
//! from its head to its response; a streamed response (a body of unknown length: SSE) keeps the
//! connection *streaming* until the next request, and a streaming connection that makes no
//! write progress for longer than the stall time (its client stopped reading, or the stream
//! ended and the client went quiet) is closed. Only idle connections make room at the cap.
//!
//! Why not hyper's `header_read_timeout`: it arms a tokio timer for every request head
//! (BENCHMARKS.md, "Connection hygiene"). Here a request costs a few atomic operations; the
//! sweeper is a thread of its own (a timer in the runtime's wheel would be looked at on every
//! park of a worker), waking a few times per idle time.

use axum::body::{Body, HttpBody};
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// File descriptors kept out of the connection cap: the listener, the runtime's own, log files,
/// outgoing connections (Redis, a JWKS fetch).
const RESERVED_FDS: usize = 64;
/// The cap when the file-descriptor limit cannot be read, and the most it is ever derived to
/// (about 11 KiB of memory per open connection: ≈ 1 GiB).
const MAX_DERIVED: usize = 100_000;

/// What the accept loop enforces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hygiene {
    /// How long a connection may stay idle (and so how long a request head may take).
    pub(crate) idle: Option<Duration>,
    /// How long a streamed response may make no write progress.
    pub(crate) stall: Duration,
    /// Most connections open at once.
    pub(crate) max_connections: usize,
}

/// The cap of open connections when none is set: the soft file-descriptor limit less a
/// reserve, read from `/proc/self/limits` (Linux); [`MAX_DERIVED`] elsewhere.
pub(crate) fn default_max_connections() -> usize {
    let derived = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| soft_fd_limit(&text));
    match derived {
        Some(limit) => limit.saturating_sub(RESERVED_FDS).clamp(1, MAX_DERIVED),
        None => MAX_DERIVED,
    }
}

/// The soft limit of `Max open files` in the text of `/proc/self/limits`.
fn soft_fd_limit(limits: &str) -> Option<usize> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line["Max open files".len()..].split_whitespace().next()?;
    match soft {
        "unlimited" => Some(usize::MAX),
        n => n.parse().ok(),
    }
}

/// Milliseconds since the table was made, advanced by the sweeper: what a connection stamps
/// its activity with (a load, where reading the clock would be a system call).
#[derive(Debug, Default)]
struct Clock(AtomicU64);

impl Clock {
    fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// One open connection, as the table and its I/O see it.
#[derive(Debug)]
pub(crate) struct ConnState {
    clock: Arc<Clock>,
    /// Requests whose response is not yet written to its end.
    open: AtomicU32,
    /// Whether the response in flight wrote anything yet.
    wrote: AtomicBool,
    /// Whether the last response is a stream (its length unknown) that may still be written.
    streaming: AtomicBool,
    /// When the connection last became idle or made write progress.
    last: AtomicU64,
    /// Set by the sweeper: the connection's I/O fails from now on, so hyper closes it.
    closing: AtomicBool,
    /// The task serving the connection, woken to see `closing`.
    waker: atomic_waker::AtomicWaker,
}

impl ConnState {
    /// No request in flight and no stream being written: waiting for a request head.
    fn idle(&self) -> bool {
        self.open.load(Ordering::Acquire) == 0 && !self.streaming.load(Ordering::Relaxed)
    }

    fn close(&self) {
        self.closing.store(true, Ordering::Release);
        self.waker.wake();
    }

    fn closed_error() -> io::Error {
        io::Error::new(io::ErrorKind::TimedOut, "connection closed by the server")
    }

    /// A request's head was read: the connection is busy until its response is written.
    pub(crate) fn request_started(self: &Arc<Self>) -> InFlight {
        self.open.fetch_add(1, Ordering::AcqRel);
        self.wrote.store(false, Ordering::Relaxed);
        self.streaming.store(false, Ordering::Relaxed);
        InFlight(self.clone())
    }
}

/// A request in flight on a connection, until its response is handed to it.
#[derive(Debug)]
pub(crate) struct InFlight(Arc<ConnState>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let state = &self.0;
        state.last.store(state.clock.now(), Ordering::Relaxed);
        state.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The table of open connections.
#[derive(Debug)]
pub(crate) struct Table {
    clock: Arc<Clock>,
    rules: Hygiene,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    next: u64,
    by_id: HashMap<u64, Arc<ConnState>, fnv::FnvBuildHasher>,
}

/// What the accept loop does with a connection it accepted.
pub(crate) enum Admitted {
    /// Serve it; the registration ends when the guard is dropped.
    Serve(Registered),
    /// Every connection is busy: answer 503 and close.
    Refuse,
}

impl Table {
    pub(crate) fn new(rules: Hygiene) -> Arc<Table> {
        Arc::new(Table {
            clock: Arc::default(),
            rules,
            open: Mutex::new(Open::default()),
        })
    }

    fn open(&self) -> MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a new connection; at the cap, first closes the longest-idle ones to make room
    /// (see [`Table::make_room`]).
    pub(crate) fn admit(self: &Arc<Self>) -> Admitted {
        let mut open = self.open();
        let made_room = if open.by_id.len() >= self.rules.max_connections {
            let evicted = Self::evict(&mut open);
            if evicted == 0 {
                return Admitted::Refuse;
            }
            evicted
        } else {
            0
        };
        let id = open.next;
        open.next += 1;
        let now = self.clock.now();
        let state = Arc::new(ConnState {
            clock: self.clock.clone(),
            open: AtomicU32::new(0),
            wrote: AtomicBool::new(false),
            streaming: AtomicBool::new(false),
            last: AtomicU64::new(now),
            closing: AtomicBool::new(false),
            waker: atomic_waker::AtomicWaker::new(),
        });
        open.by_id.insert(id, state.clone());
        Admitted::Serve(Registered {
            table: self.clone(),
            id,
            state,
            made_room,
        })
    }

    /// Closes the longest-idle connections, a sixty-fourth of the table at once (so that a run
    /// of new connections does not walk the table each time), when the process ran out of file
    /// descriptors before the cap: connections closed a moment ago may still hold theirs.
    /// Returns how many it closed.
    pub(crate) fn make_room(&self) -> usize {
        Self::evict(&mut self.open())
    }

    fn evict(open: &mut Open) -> usize {
        let mut idle: Vec<(u64, u64)> = open
            .by_id
            .iter()
            .filter(|(_, c)| c.idle() && !c.closing.load(Ordering::Acquire))
            .map(|(id, c)| (c.last.load(Ordering::Relaxed), *id))
            .collect();
        if idle.is_empty() {
            return 0;
        }
        let evict = (open.by_id.len() / 64).clamp(1, idle.len());
        if evict < idle.len() {
            idle.select_nth_unstable(evict - 1);
        }
        for (_, id) in &idle[..evict] {
            // Closed, and out of the table at once: it no longer counts.
            if let Some(c) = open.by_id.remove(id) {
                c.close();
            }
        }
        tracing::debug!(
            target: "mcp_runtime::http",
            evicted = evict,
            "connection cap reached: closed the longest-idle connections"
        );
        evict
    }

    /// Starts the sweeper: a thread that advances the clock and closes the connections idle or
    /// stalled too long, a few times per idle time, until the table is dropped by everyone
    /// else. Without an idle time, it only keeps the clock (which orders connections for the
    /// cap).
    pub(crate) fn start_sweeper(self: &Arc<Self>) {
        let table = self.clone();
        let spawned = std::thread::Builder::new()
            .name("mcp-connection-sweeper".into())
            .spawn(move || table.sweep());
        if let Err(e) = spawned {
            tracing::error!(error = %e, "no thread for the connection sweeper: idle connections stay open");
        }
    }

    fn sweep(self: Arc<Self>) {
        let idle = self.rules.idle;
        let shortest = idle.map_or(Duration::from_secs(4), |i| i.min(self.rules.stall));
        let tick = (shortest / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        let as_ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let idle_ms = idle.map(as_ms);
        let stall_ms = as_ms(self.rules.stall);
        let started = std::time::Instant::now();
        while Arc::strong_count(&self) > 1 {
            std::thread::sleep(tick);
            let now = as_ms(started.elapsed());
            self.clock.0.store(now, Ordering::Relaxed);
            let Some(idle_ms) = idle_ms else { continue };
            let mut open = self.open();
            open.by_id.retain(|_, c| {
                let since = now.saturating_sub(c.last.load(Ordering::Relaxed));
                let expired = if c.idle() {
                    since > idle_ms
                } else {
                    let wrote =
                        c.wrote.load(Ordering::Relaxed) || c.streaming.load(Ordering::Relaxed);
                    wrote && since > stall_ms
                };
                if expired {
                    c.close();
                }
                !expired
            });
        }
    }

    /// Connections open now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.open().by_id.len()
    }
}

/// A connection's place in the table, given up when it is dropped.
#[derive(Debug)]
pub(crate) struct Registered {
    table: Arc<Table>,
    id: u64,
    pub(crate) state: Arc<ConnState>,
    /// How many idle connections were closed to make room for this one.
    pub(crate) made_room: usize,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.table.open().by_id.remove(&self.id);
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

pin_project_lite::pin_project! {
    /// A response future that keeps its request in flight until the response is ready.
    pub(crate) struct Responding<F> {
        #[pin]
        pub(crate) future: F,
        pub(crate) in_flight: Option<InFlight>,
        // The client's address, which the request's handler reads while it is polled.
        pub(crate) peer: std::net::SocketAddr,
    }
}

impl<F, E> Future for Responding<F>
where
    F: Future<Output = Result<http::Response<Body>, E>>,
{
    type Output = Result<http::Response<Body>, E>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let future = this.future;
        let polled = super::peer::with_peer(*this.peer, || future.poll(cx));
        if let Poll::Ready(Ok(response)) = &polled
            && let Some(in_flight) = this.in_flight.take()
            && response.body().size_hint().exact().is_none()
        {
            // A stream: written for as long as it lasts, with write progress to show for it.
            in_flight.0.streaming.store(true, Ordering::Relaxed);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fd_limit_is_read_from_proc() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max open files            1024                 524288               files     \n";
        assert_eq!(soft_fd_limit(text), Some(1024));
        assert_eq!(
            soft_fd_limit(
                "Max open files            unlimited            unlimited            files"
            ),
            Some(usize::MAX)
        );
        assert_eq!(soft_fd_limit("nothing here"), None);
        assert!(default_max_connections() >= 1);
    }

    #[test]
    fn at_the_cap_the_longest_idle_connections_make_room() {
        let table = Table::new(Hygiene {
            idle: Some(Duration::from_secs(30)),
            stall: Duration::from_secs(60),
            max_connections: 3,
        });
        let Admitted::Serve(old) = table.admit() else {
            panic!()
        };
        table.clock.0.store(10, Ordering::Relaxed);
        let Admitted::Serve(busy) = table.admit() else {
            panic!()
        };
        let _in_flight = busy.state.request_started();
        let Admitted::Serve(young) = table.admit() else {
            panic!()
        };
        assert_eq!(table.len(), 3);
        // Full: the oldest idle one goes, the busy one stays.
        let Admitted::Serve(new) = table.admit() else {
            panic!()
        };
        assert!(old.state.closing.load(Ordering::Acquire));
        assert!(!busy.state.closing.load(Ordering::Acquire));
        assert_eq!((young.made_room, new.made_room), (0, 1));
        assert_eq!(table.len(), 3);
        drop(old);
        assert_eq!(
            table.len(),
            3,
            "an evicted connection left the table already"
        );
        // Only busy connections: the next one is refused.
        let _a = young.state.request_started();
        let _b = new.state.request_started();
        assert!(matches!(table.admit(), Admitted::Refuse));
        assert_eq!(
            table.make_room(),
            0,
            "busy connections are never closed for room"
        );
    }

    /// Out of descriptors below the cap: the longest-idle connection is closed all the same.
    #[test]
    fn room_is_made_below_the_cap_when_asked() {
        let table = Table::new(Hygiene {
            idle: None,
            stall: Duration::from_secs(60),
            max_connections: 100,
        });
        let Admitted::Serve(old) = table.admit() else {
            panic!()
        };
        table.clock.0.store(10, Ordering::Relaxed);
        let Admitted::Serve(young) = table.admit() else {
            panic!()
        };
        assert_eq!(table.make_room(), 1);
        assert!(old.state.closing.load(Ordering::Acquire));
        assert!(!young.state.closing.load(Ordering::Acquire));
        assert_eq!(table.len(), 1);
    }
}
