//! What goes into the legacy side and what comes out of it: a message's context as its
//! transport knows it ([`Inbound`]), and what to send back ([`Outcome`]), which each transport
//! frames in its own way.

use super::codec::Params;
use super::live::LiveSession;
use super::session::SessionRecord;
use super::stream::StreamLog;
use crate::context::Caller;
use crate::dispatch::Transport;
use crate::protocol::RequestId;
use bytes::Bytes;
use std::sync::Arc;

/// What a transport knows of a legacy message beyond the message itself.
pub(crate) struct Inbound<'a> {
    /// The session the message names: HTTP's `Mcp-Session-Id`, the session a stdio process
    /// opened; `None` before one is opened.
    pub(crate) session: Option<&'a str>,
    /// Who sent it, when the transport authenticated the sender.
    pub(crate) caller: Option<Arc<Caller>>,
    /// The client's address, when the transport knows it (an anonymous caller's share).
    pub(crate) client: Option<crate::net::ClientNet>,
    /// The transport it came over.
    pub(crate) transport: Transport,
    /// Whether a request's response can carry requests to the client (HTTP: the client takes
    /// an SSE stream; stdio: always).
    pub(crate) back_channel: bool,
}

/// What a legacy message comes to.
pub(crate) enum Outcome {
    /// Nothing to send: a notification, or the client's answer to a server-to-client request
    /// (HTTP: 202).
    Nothing,
    /// `initialize` opened a session.
    Opened(Opened),
    /// A request on a session, answered by `reply`.
    Reply {
        reply: Reply,
        session: Arc<SessionRecord>,
        live: Arc<LiveSession>,
    },
    /// No session could serve the message; `body` is the JSON-RPC error to send.
    Unserved { why: Unserved, body: Bytes },
}

/// Why no session served a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unserved {
    /// It named no session, and is no `initialize` that opens one (HTTP: 400). `request`:
    /// whether it was a request (an error for anything else answers nothing in particular).
    NotOpened { request: bool },
    /// The session it names is unknown, ended, expired, or another caller's (HTTP: 404).
    Gone,
    /// The session store failed, or holds as many sessions as it may (HTTP: 503).
    Unavailable,
}

/// How a legacy request is answered.
pub(crate) enum Reply {
    /// At once.
    Now(Bytes),
    /// At once, by the pipeline, refusing the caller or for want of capacity: the transport
    /// answers it as it answers a 2026 one (HTTP: 401/403 with a challenge, 503); error bodies
    /// are the same in both revisions.
    Refused(crate::dispatch::Response),
    /// On this stream (notifications, requests to the client, then the response), fed by the
    /// request as it runs.
    Later(Arc<StreamLog>),
}

/// One request on a legacy session.
pub(super) struct Request {
    pub(super) id: RequestId,
    pub(super) method: String,
    pub(super) params: Params,
    /// Who sent it, when the transport authenticated the sender.
    pub(super) caller: Option<Arc<Caller>>,
    /// The client's address, when the transport knows it (an anonymous caller's share).
    pub(super) client: Option<crate::net::ClientNet>,
    /// Whether its response can carry requests to the client.
    pub(super) back_channel: bool,
    /// The transport it came over.
    pub(super) transport: Transport,
}

/// A session `initialize` opened: its record, its live state and the response to send.
pub(crate) struct Opened {
    pub(crate) session: SessionRecord,
    pub(crate) live: Arc<LiveSession>,
    pub(crate) response: Bytes,
}
