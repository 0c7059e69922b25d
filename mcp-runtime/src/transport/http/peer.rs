//! The client's address of the request being polled: handed from a connection to its
//! request's handler without a map insert per request.

use std::net::SocketAddr;

std::thread_local! {
    /// The client's address, while a request of its connection is polled on this thread (set
    /// by the connection's `Responding`, reset when its poll returns): cheaper than inserting it into every
    /// request's extensions (an allocation and a map) or tokio's `task_local` scope
    /// (BENCHMARKS.md, "Connection hygiene").
    static PEER: std::cell::Cell<Option<SocketAddr>> = const { std::cell::Cell::new(None) };
}

/// Runs `poll` with `peer` as the address [`peer_of`] reads, and resets it after (also when
/// `poll` panics).
#[inline]
pub(super) fn with_peer<T>(peer: SocketAddr, poll: impl FnOnce() -> T) -> T {
    struct Reset<'a>(&'a std::cell::Cell<Option<SocketAddr>>, Option<SocketAddr>);
    impl Drop for Reset<'_> {
        fn drop(&mut self) {
            self.0.set(self.1);
        }
    }
    PEER.with(|cell| {
        let _reset = Reset(cell, cell.replace(Some(peer)));
        poll()
    })
}

/// The address of the client of a request: the connection's (when this accept loop serves it),
/// else the `ConnectInfo` a router served by other means was given.
pub(super) fn peer_of(extensions: &http::Extensions) -> Option<SocketAddr> {
    PEER.with(std::cell::Cell::get).or_else(|| {
        extensions
            .get::<axum::extract::ConnectInfo<SocketAddr>>()
            .map(|info| info.0)
    })
}
