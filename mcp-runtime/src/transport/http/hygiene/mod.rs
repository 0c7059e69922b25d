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
//! request body has stopped coming ([`SLOW_BODY_MS`](conn::SLOW_BODY_MS) without a byte), make room at the cap.
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

mod conn;
mod responding;
mod socket;
mod table;

pub(crate) use conn::{ConnState, Tracked};
pub(crate) use responding::Responding;
pub(crate) use socket::{ClientGone, Socket};
pub(crate) use table::{Admitted, Hygiene, Table, default_max_connections};
