//! Transports: Streamable HTTP (axum) and stdio. Both read one message, hand it to dispatch with
//! what they know beside it (the caller; HTTP's headers), and write the call's messages back.
//! A 2025-11-25 message goes to `crate::legacy` instead, which serves the session; transports
//! only frame what it answers.
//!
//! `connection` is the core of a transport that carries whole messages over one connection
//! (stdio's lines, a WebSocket's messages): the revision it speaks, its requests in flight, its
//! legacy session. `stdio` is line framing over it.

mod connection;
pub mod http;
pub mod stdio;
