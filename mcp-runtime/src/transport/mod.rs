//! Transports: Streamable HTTP (axum) and stdio. Both read one message, hand it to dispatch with
//! what they know beside it (the caller; HTTP's headers), and write the call's messages back.

pub mod http;
pub mod stdio;
