//! Serving 2025-11-25 clients from the same handlers: sessions opened by `initialize`, the
//! methods only that revision has (`ping`, `logging/setLevel`, `resources/subscribe`), and every
//! other request turned into the 2026-07-28 request it stands for, run through the same pipeline,
//! and its answer written back in the older shape. A handler that needs client input
//! (`input_required`) is answered through the *bridge*: each input request goes to the client as
//! a real server-to-client request on the request's stream, and once the client has answered
//! them all the request goes on with those answers, as a 2026 client's retry would.
//!
//! Which revision a message belongs to is decided per message by the transport (HTTP:
//! `transport::http::era`; stdio: the first message), never by its method name. Everything
//! after that is here, whatever the transport: a transport parses the message
//! (`parse`), hands it to `Legacy::handle` (the entry point) with what it knows of its sender
//! (`Inbound`), and frames the `Outcome`; a session's change notifications come from
//! `Legacy::changes`. HTTP frames them as SSE events and statuses, stdio as lines.
//!
//! Sessions' metadata lives in a [`SessionStore`] (in memory by default; shared by instances
//! behind a load balancer); what cannot leave the process (open streams, requests waiting for
//! the client's answers) is in `live`.
//!
//! The files, lowest first (each imports only those above it; this module only declares and
//! re-exports): `codec` (the wire shapes of both revisions), `session` (the store), `stream`
//! and `live` (what a session holds in this process), `state` (the `Legacy` side and its
//! sessions), `outcome` (what goes in and out of it), `methods` (the methods only sessions
//! have), `exchange` (a bridged request), `changes` (the change stream) and `handle` (the
//! session dispatcher, which routes to `methods` and `exchange`).

mod answer;
mod changes;
mod codec;
mod exchange;
mod handle;
mod live;
mod methods;
mod outcome;
mod session;
mod state;
mod stream;

pub use codec::LEGACY_VERSIONS;
pub(crate) use codec::{is_legacy_version, parse};
pub(crate) use live::LiveSession;
pub(crate) use outcome::{Inbound, Outcome, Reply, Unserved};
pub use session::{MemorySessionStore, SessionChange, SessionRecord, SessionStore};
pub(crate) use state::{Legacy, SessionSettings, Unusable};
pub(crate) use stream::{Next, Reader, StreamLog};
