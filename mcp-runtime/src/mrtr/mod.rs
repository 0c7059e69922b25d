//! Multi round-trip requests (MRTR): typed client input and the sealed `requestState`.
//!
//! A handler *declares* the input it needs (roots, a sampled message, an elicited form). A call
//! without the answers gets one `input_required` result asking for everything missing at once,
//! with a sealed `requestState`; the retry, possibly on another instance sharing the key, is
//! verified (authenticated encryption, expiry, bound to method, name, arguments and caller) and
//! the body runs once with typed answers. Nothing is kept in server memory between rounds.
//!
//! Limits: a `requestState` expires after [`DEFAULT_STATE_TTL`] (configurable with
//! [`ServerBuilder::state_ttl`](crate::ServerBuilder::state_ttl)), is at most
//! [`MAX_STATE_BYTES`], and one request may take at most [`MAX_ROUNDS`] rounds.

mod input;
mod seal;

pub use input::*;
pub(crate) use seal::{Binding, Sealer};
pub use seal::{DEFAULT_STATE_TTL, KeyRing, MAX_ROUNDS, MAX_STATE_BYTES};
