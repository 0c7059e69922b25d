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
//! ended and the client went quiet) is closed. Only idle connections, and connections whose
//! request body has stopped coming ([`SLOW_BODY_MS`] without a byte), make room at the cap.
//!
//! Each client address (an IPv6 one by its network) has a share of the cap: a client at its
//! share makes room by closing its own longest-idle connection, or is refused, so that one
//! client cannot hold every connection. Trusted proxies carry everyone's connections and have
//! no share.
//!
//! Why not hyper's `header_read_timeout`: it arms a tokio timer for every request head
//! (BENCHMARKS.md, "Connection hygiene"). Here a request costs a few atomic operations; the
//! sweeper is a thread of its own (a timer in the runtime's wheel would be looked at on every
//! park of a worker), waking a few times per idle time.

use crate::net::{ClientNet, Network};
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
/// How long a request body may bring nothing before its connection may be closed to make room
/// at the cap, as an idle one may.
pub(crate) const SLOW_BODY_MS: u64 = 1_000;

/// What the accept loop enforces.
#[derive(Debug, Clone)]
pub(crate) struct Hygiene {
    /// How long a connection may stay idle (and so how long a request head may take).
    pub(crate) idle: Option<Duration>,
    /// How long a streamed response may make no write progress.
    pub(crate) stall: Duration,
    /// Most connections open at once.
    pub(crate) max_connections: usize,
    /// Most connections open at once from one client address.
    pub(crate) per_address: usize,
    /// Peers with no share (trusted proxies).
    pub(crate) exempt: Vec<Network>,
    /// The bits of an IPv6 address that tell clients apart.
    pub(crate) ipv6_prefix: u8,
}

impl Hygiene {
    /// Whose share a connection from `peer` counts against: none for a trusted proxy.
    pub(crate) fn share_of(&self, peer: std::net::IpAddr) -> Option<ClientNet> {
        (!self.exempt.iter().any(|n| n.contains(peer)))
            .then(|| ClientNet::new(peer, self.ipv6_prefix))
    }
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
    /// Whether a request's body is still coming.
    receiving: AtomicBool,
    /// When the body last brought bytes (or its request began).
    read_at: AtomicU64,
    /// The client address whose share it counts against (none: a trusted proxy's).
    share: Option<ClientNet>,
    /// Set when the server drains: each answer from then on closes the connection.
    draining: AtomicBool,
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

    /// When it may be closed to make room, if it may: idle (since it became so), or waiting
    /// for a request body that has brought nothing for [`SLOW_BODY_MS`] (since its last byte).
    fn evictable_since(&self, now: u64) -> Option<u64> {
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

    fn close(&self) {
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
    /// Connections open per client address (those with a share).
    per_address: HashMap<ClientNet, usize, fnv::FnvBuildHasher>,
}

impl Open {
    /// Takes a connection out of the table (and out of its address's count).
    fn remove(&mut self, id: u64) -> Option<Arc<ConnState>> {
        let conn = self.by_id.remove(&id)?;
        if let Some(share) = &conn.share
            && let Some(n) = self.per_address.get_mut(share)
        {
            *n -= 1;
            if *n == 0 {
                self.per_address.remove(share);
            }
        }
        Some(conn)
    }
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

    /// Registers a new connection from `share` (see [`Hygiene::share_of`]). A client at its
    /// share first closes its own connection idle the longest, or whose body stopped the
    /// longest ago (or is refused when it has none); at the cap, the longest-idle connections
    /// make room (see [`Table::make_room`]).
    pub(crate) fn admit(self: &Arc<Self>, share: Option<ClientNet>) -> Admitted {
        let mut open = self.open();
        let now = self.clock.now();
        let mut made_room = 0;
        if let Some(share) = &share
            && open.per_address.get(share).copied().unwrap_or(0) >= self.rules.per_address
        {
            let own = open
                .by_id
                .iter()
                .filter(|(_, c)| c.share.as_ref() == Some(share))
                .filter_map(|(id, c)| c.evictable_since(now).map(|since| (since, *id)))
                .min();
            let Some((_, id)) = own else {
                tracing::debug!(
                    target: "mcp_runtime::http",
                    client = %share,
                    "a client at its share of connections, all of them busy: refused"
                );
                return Admitted::Refuse;
            };
            if let Some(c) = open.remove(id) {
                c.close();
            }
            made_room += 1;
        }
        if open.by_id.len() >= self.rules.max_connections {
            let evicted = Self::evict(&mut open, now);
            if evicted == 0 {
                return Admitted::Refuse;
            }
            made_room += evicted;
        }
        let id = open.next;
        open.next += 1;
        let state = Arc::new(ConnState {
            clock: self.clock.clone(),
            open: AtomicU32::new(0),
            wrote: AtomicBool::new(false),
            streaming: AtomicBool::new(false),
            last: AtomicU64::new(now),
            receiving: AtomicBool::new(false),
            read_at: AtomicU64::new(now),
            share,
            draining: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            waker: atomic_waker::AtomicWaker::new(),
        });
        open.by_id.insert(id, state.clone());
        if let Some(share) = share {
            *open.per_address.entry(share).or_insert(0) += 1;
        }
        Admitted::Serve(Registered {
            table: self.clone(),
            id,
            state,
            made_room,
        })
    }

    /// Closes the longest-idle connections (and those whose body stopped coming longest ago),
    /// a sixty-fourth of the table at once (so that a run of new connections does not walk the
    /// table each time), when the process ran out of file descriptors before the cap:
    /// connections closed a moment ago may still hold theirs. Returns how many it closed.
    pub(crate) fn make_room(&self) -> usize {
        let now = self.clock.now();
        Self::evict(&mut self.open(), now)
    }

    fn evict(open: &mut Open, now: u64) -> usize {
        let mut idle: Vec<(u64, u64)> = open
            .by_id
            .iter()
            .filter_map(|(id, c)| c.evictable_since(now).map(|since| (since, *id)))
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
            if let Some(c) = open.remove(*id) {
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
            let expired: Vec<u64> = open
                .by_id
                .iter()
                .filter(|(_, c)| {
                    let since = now.saturating_sub(c.last.load(Ordering::Relaxed));
                    if c.idle() {
                        since > idle_ms
                    } else {
                        let wrote =
                            c.wrote.load(Ordering::Relaxed) || c.streaming.load(Ordering::Relaxed);
                        wrote && since > stall_ms
                    }
                })
                .map(|(id, _)| *id)
                .collect();
            for id in expired {
                if let Some(c) = open.remove(id) {
                    c.close();
                }
            }
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
        self.table.open().remove(self.id);
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
        let mut polled = super::peer::with_peer(*this.peer, || future.poll(cx));
        if let Poll::Ready(Ok(response)) = &mut polled
            && let Some(in_flight) = this.in_flight.take()
        {
            if response.body().size_hint().exact().is_none() {
                // A stream: written for as long as it lasts, with write progress to show for it.
                in_flight.0.streaming.store(true, Ordering::Relaxed);
            }
            if in_flight.0.draining.load(Ordering::Relaxed) {
                response.headers_mut().insert(
                    http::header::CONNECTION,
                    http::HeaderValue::from_static("close"),
                );
            }
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(idle: Option<Duration>, max_connections: usize, per_address: usize) -> Hygiene {
        Hygiene {
            idle,
            stall: Duration::from_secs(60),
            max_connections,
            per_address,
            exempt: crate::net::Network::LOOPBACK.to_vec(),
            ipv6_prefix: 64,
        }
    }

    fn from(rules: &Hygiene, ip: &str) -> Option<ClientNet> {
        rules.share_of(ip.parse().unwrap())
    }

    #[test]
    fn one_address_gets_its_share_and_makes_room_from_its_own() {
        let rules = rules(Some(Duration::from_secs(30)), 100, 2);
        let table = Table::new(rules.clone());
        let attacker = from(&rules, "192.0.2.1");
        let Admitted::Serve(a) = table.admit(attacker) else {
            panic!()
        };
        table.clock.0.store(10, Ordering::Relaxed);
        let Admitted::Serve(b) = table.admit(attacker) else {
            panic!()
        };
        let _busy = b.state.request_started();
        // At its share: its own idle connection makes room.
        let Admitted::Serve(c) = table.admit(attacker) else {
            panic!()
        };
        assert!(a.state.closing.load(Ordering::Acquire));
        assert_eq!(c.made_room, 1);
        // Both busy now: refused, while another address is served.
        let _also = c.state.request_started();
        assert!(matches!(table.admit(attacker), Admitted::Refuse));
        assert!(matches!(
            table.admit(from(&rules, "192.0.2.2")),
            Admitted::Serve(_)
        ));
        // One IPv6 network is one client.
        let v6 = from(&rules, "2001:db8::1");
        let _x = table.admit(v6);
        let Admitted::Serve(y) = table.admit(from(&rules, "2001:db8::ffff")) else {
            panic!()
        };
        let _y = y.state.request_started();
        let Admitted::Serve(z) = table.admit(from(&rules, "2001:db8::2")) else {
            panic!()
        };
        assert_eq!(z.made_room, 1);
        // A trusted proxy has no share.
        assert_eq!(from(&rules, "127.0.0.1"), None);
        let proxied: Vec<_> = (0..10).map(|_| table.admit(None)).collect();
        assert!(proxied.iter().all(|p| matches!(p, Admitted::Serve(_))));
        drop(proxied);
        drop((b, c));
        assert_eq!(
            table.open().per_address.get(&attacker.unwrap()),
            None,
            "counts go with their connections"
        );
    }

    #[test]
    fn a_body_that_stopped_coming_makes_room_at_the_cap() {
        let table = Table::new(rules(Some(Duration::from_secs(30)), 2, 100));
        let Admitted::Serve(slow) = table.admit(None) else {
            panic!()
        };
        let Admitted::Serve(working) = table.admit(None) else {
            panic!()
        };
        let _slow = slow.state.request_started();
        slow.state.receiving.store(true, Ordering::Release);
        let _working = working.state.request_started();
        // Its body brought a byte a moment ago: not yet.
        assert!(matches!(table.admit(None), Admitted::Refuse));
        table.clock.0.store(SLOW_BODY_MS + 5, Ordering::Relaxed);
        let Admitted::Serve(new) = table.admit(None) else {
            panic!()
        };
        assert_eq!(new.made_room, 1);
        assert!(slow.state.closing.load(Ordering::Acquire));
        assert!(
            !working.state.closing.load(Ordering::Acquire),
            "a handler at work is never closed"
        );
    }

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
        let table = Table::new(rules(Some(Duration::from_secs(30)), 3, 100));
        let Admitted::Serve(old) = table.admit(None) else {
            panic!()
        };
        table.clock.0.store(10, Ordering::Relaxed);
        let Admitted::Serve(busy) = table.admit(None) else {
            panic!()
        };
        let _in_flight = busy.state.request_started();
        let Admitted::Serve(young) = table.admit(None) else {
            panic!()
        };
        assert_eq!(table.len(), 3);
        // Full: the oldest idle one goes, the busy one stays.
        let Admitted::Serve(new) = table.admit(None) else {
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
        assert!(matches!(table.admit(None), Admitted::Refuse));
        assert_eq!(
            table.make_room(),
            0,
            "busy connections are never closed for room"
        );
    }

    /// Out of descriptors below the cap: the longest-idle connection is closed all the same.
    #[test]
    fn room_is_made_below_the_cap_when_asked() {
        let table = Table::new(rules(None, 100, 100));
        let Admitted::Serve(old) = table.admit(None) else {
            panic!()
        };
        table.clock.0.store(10, Ordering::Relaxed);
        let Admitted::Serve(young) = table.admit(None) else {
            panic!()
        };
        assert_eq!(table.make_room(), 1);
        assert!(old.state.closing.load(Ordering::Acquire));
        assert!(!young.state.closing.load(Ordering::Acquire));
        assert_eq!(table.len(), 1);
    }
}
