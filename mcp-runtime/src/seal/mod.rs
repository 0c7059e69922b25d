//! The sealed `requestState` of multi round-trip requests: keys, what a state is bound to, the
//! record it carries, and what one request brings into its round.
//!
//! A state is AES-256-GCM-SIV over a compact binary record (`record`), bound to the method,
//! the name, the canonical arguments and the caller (`binding`), sealed with the first key of a
//! ring and opened with any (`keyring`). Nothing in it is readable or changeable by the client,
//! and nothing of it is kept in server memory between rounds. The typed API handlers use sits
//! above, in [`mrtr`](crate::mrtr).

mod binding;
mod bounds;
mod input_data;
mod keyring;
mod record;
mod responses;

pub(crate) use binding::Binding;
pub use bounds::{DEFAULT_STATE_TTL, MAX_ROUNDS, MAX_STATE_BYTES};
pub(crate) use input_data::{InputData, LazyBinding};
pub use keyring::KeyRing;
pub(crate) use record::{Answers, Sealer};
pub(crate) use responses::Responses;
