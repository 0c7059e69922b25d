//! Multi round-trip requests (MRTR): typed client input.
//!
//! A handler *declares* the input it needs (roots, a sampled message, an elicited form). A call
//! without the answers gets one `input_required` result asking for everything missing at once,
//! with a sealed `requestState`; the retry, possibly on another instance sharing the key, is
//! verified (authenticated encryption, expiry, bound to method, name, arguments and caller) and
//! the body runs once with typed answers. Nothing is kept in server memory between rounds.
//!
//! - [`answers`](FromAnswer): what the client answered, decoded ([`Roots`], [`Sampled`],
//!   [`Elicitation<T>`]);
//! - forms: [`ElicitForm`] and its [`FormField`]s;
//! - declared inputs: [`InputSet`] (what `#[tool]` generates for `#[roots]`, `#[sample]`,
//!   `#[elicit]` parameters);
//! - dynamic flows: [`Rounds`], [`Ask`], [`Step`];
//! - the keys that seal states: [`KeyRing`].
//!
//! Limits: a `requestState` expires after [`DEFAULT_STATE_TTL`] (configurable with
//! [`ServerBuilder::state_ttl`](crate::ServerBuilder::state_ttl)), is at most
//! [`MAX_STATE_BYTES`], and one request may take at most [`MAX_ROUNDS`] rounds.

mod answers;
mod declared;
mod form;
mod needs;
mod rounds;

pub use crate::seal::{DEFAULT_STATE_TTL, KeyRing, MAX_ROUNDS, MAX_STATE_BYTES};
pub use answers::{Elicitation, FromAnswer, Roots, Sampled};
pub use declared::{AskOnce, InputSet, InputSlot, sample_params};
pub use form::{ElicitForm, FormField};
pub use rounds::{Ask, Rounds, Step};
