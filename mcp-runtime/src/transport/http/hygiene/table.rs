//! The table of open connections: what the accept loop enforces ([`Hygiene`]), the cap derived
//! from the file-descriptor limit, each address's share, the eviction that makes room, and the
//! sweeper thread that closes connections idle or stalled too long.

use super::conn::{Clock, ConnState};
use crate::net::{ClientNet, Network};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// File descriptors kept out of the connection cap: the listener, the runtime's own, log files,
/// outgoing connections (Redis, a JWKS fetch).
const RESERVED_FDS: usize = 64;
/// The cap when the file-descriptor limit cannot be read, and the most it is ever derived to
/// (about 11 KiB of memory per open connection: ≈ 1 GiB).
const MAX_DERIVED: usize = 100_000;

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

#[cfg(test)]
mod tests {
    use super::super::conn::SLOW_BODY_MS;
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
