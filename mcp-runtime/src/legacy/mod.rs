//! Serving 2025-11-25 clients from the same handlers: sessions opened by `initialize`, the
//! methods only that revision has (`ping`, `logging/setLevel`, `resources/subscribe`), and every
//! other request turned into the 2026-07-28 request it stands for, run through the same pipeline,
//! and its answer written back in the older shape. A handler that needs client input
//! (`input_required`) is answered through the *bridge*: each input request goes to the client as
//! a real server-to-client request on the request's stream, and once the client has answered
//! them all the request goes on with those answers, as a 2026 client's retry would.
//!
//! Which revision a message belongs to is decided per message by the transport (HTTP:
//! `transport::http::era`; stdio: the first message), never by its method name.
//!
//! Sessions' metadata lives in a [`SessionStore`] (in memory by default; shared by instances
//! behind a load balancer); what cannot leave the process (open streams, requests waiting for
//! the client's answers) is in `live`.

mod codec;
mod exchange;
mod live;
mod session;
mod stream;

pub use codec::LEGACY_VERSIONS;
pub(crate) use codec::{Incoming, Params, error as error_body, is_legacy_version, parse};
pub(crate) use live::LiveSession;
pub use session::{MemorySessionStore, SessionChange, SessionRecord, SessionStore};
pub(crate) use stream::{Next, StreamLog};

use crate::context::Caller;
use crate::dispatch::Dispatcher;
use crate::error::McpError;
use crate::protocol::RequestId;
use bytes::Bytes;
use live::LiveSessions;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How legacy sessions are kept and bridged.
#[derive(Debug, Clone)]
pub(crate) struct LegacyOptions {
    /// A session unused for this long is forgotten.
    pub(crate) idle: Duration,
    /// Sessions at once.
    pub(crate) max_sessions: usize,
    /// Sessions of one caller at once.
    pub(crate) sessions_per_caller: usize,
    /// How long a request waits for the client's answers to its input requests.
    pub(crate) input_timeout: Duration,
    /// How long a finished stream is kept for a client to resume.
    pub(crate) keep_streams: Duration,
}

impl Default for LegacyOptions {
    fn default() -> Self {
        LegacyOptions {
            idle: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            sessions_per_caller: 64,
            input_timeout: Duration::from_secs(300),
            keep_streams: Duration::from_secs(300),
        }
    }
}

/// The legacy side of a server: its sessions and how they are served.
pub(crate) struct Legacy {
    pub(crate) dispatcher: Arc<Dispatcher>,
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) live: LiveSessions,
    pub(crate) options: LegacyOptions,
}

/// Why a session cannot be used.
#[derive(Debug)]
pub(crate) enum Unusable {
    /// Unknown, ended or expired: HTTP 404.
    Gone,
    /// The store failed.
    Store(String),
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

/// One request on a legacy session, as its transport received it.
pub(crate) struct Request {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) params: Params,
    /// Who sent it, when the transport authenticated the sender.
    pub(crate) caller: Option<Arc<Caller>>,
    /// The client's address, when the transport knows it (an anonymous caller's share).
    pub(crate) client: Option<std::net::IpAddr>,
    /// Whether its response can carry requests to the client (an SSE stream).
    pub(crate) back_channel: bool,
    /// The transport it came over.
    pub(crate) transport: crate::dispatch::Transport,
}

/// What a session-opening `initialize` comes to.
pub(crate) struct Opened {
    pub(crate) session: SessionRecord,
    pub(crate) response: Bytes,
}

impl Legacy {
    pub(crate) fn new(
        dispatcher: Arc<Dispatcher>,
        store: Arc<dyn SessionStore>,
        options: LegacyOptions,
    ) -> Self {
        Legacy {
            dispatcher,
            store,
            live: LiveSessions::default(),
            options,
        }
    }

    /// `initialize`: a new session and its result, or the error response to send.
    pub(crate) async fn initialize(
        &self,
        id: &RequestId,
        params: &Params,
        caller: Option<&Caller>,
        client: Option<std::net::IpAddr>,
    ) -> Result<Opened, Bytes> {
        let params = params.map();
        let requested = params.get("protocolVersion").and_then(Value::as_str);
        let version = codec::negotiate(requested);
        let capabilities = match params.get("capabilities") {
            Some(Value::Object(c)) => Value::Object(c.clone()),
            _ => Value::Object(Map::new()),
        };
        let Some(session_id) = new_session_id() else {
            return Err(codec::error(
                Some(id),
                -32603,
                "Internal error: no randomness for a session id",
            ));
        };
        let mut session = SessionRecord::new(
            session_id,
            version,
            capabilities,
            params.get("clientInfo").cloned(),
        );
        session.owner = caller.map(|c| c.binding_key().to_string());
        session.share = crate::context::ShareKey::of(caller, client).map(|k| k.to_string());
        if let Err(e) = self.store.create(session.clone()).await {
            return Err(codec::error(Some(id), e.code(), e.message()));
        }
        self.live.create(&session.id, self.options.idle);
        let d = &self.dispatcher;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": d.config.info.as_ref(),
        });
        if let Some(instructions) = &d.config.instructions {
            result["instructions"] = Value::String(instructions.clone());
        }
        Ok(Opened {
            session,
            response: codec::result(id, result),
        })
    }

    /// The capabilities a legacy session is told of: the server's, without 2026-only ones.
    fn capabilities(&self) -> Value {
        let mut caps = serde_json::to_value(self.dispatcher.capabilities()).unwrap_or_default();
        if let Value::Object(map) = &mut caps {
            map.remove("extensions");
        }
        caps
    }

    /// The session `id`, for `caller`.
    pub(crate) async fn session(
        &self,
        id: &str,
        caller: Option<&Caller>,
    ) -> Result<(Arc<SessionRecord>, Arc<LiveSession>), Unusable> {
        let session = match self.store.get(id).await {
            Ok(Some(session)) => session,
            Ok(None) => {
                self.live.end(id);
                return Err(Unusable::Gone);
            }
            Err(e) => return Err(Unusable::Store(e.message().to_owned())),
        };
        // Another caller's session is as good as unknown to this one.
        // The caller's issuer and subject (two issuers may hand out the same subject).
        if let Some(owner) = &session.owner
            && caller.is_none_or(|c| *c.binding_key() != **owner)
        {
            return Err(Unusable::Gone);
        }
        let live = self.live.get(id);
        live.used_by(caller);
        Ok((session, live))
    }

    /// Ends a session (DELETE); whether it was live.
    pub(crate) async fn end(&self, id: &str) -> Result<bool, Unusable> {
        self.live.end(id);
        self.store
            .end(id)
            .await
            .map_err(|e| Unusable::Store(e.message().to_owned()))
    }

    /// A notification on a session.
    pub(crate) async fn notified(
        &self,
        session: &SessionRecord,
        live: &LiveSession,
        method: &str,
        params: &Params,
    ) {
        match method {
            "notifications/initialized" if !session.initialized => {
                let _ = self
                    .store
                    .update(&session.id, &|s| s.initialized = true)
                    .await;
            }
            "notifications/cancelled" => {
                if let Some(id) = params
                    .map()
                    .get("requestId")
                    .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
                {
                    live.cancel(&id);
                }
            }
            _ => {}
        }
    }

    /// A request on a session.
    pub(crate) async fn request(
        self: &Arc<Self>,
        session: Arc<SessionRecord>,
        live: Arc<LiveSession>,
        request: Request,
    ) -> Reply {
        let d = &self.dispatcher;
        let Request {
            id,
            method,
            params,
            caller,
            ..
        } = &request;
        match method.as_str() {
            "ping" => Reply::Now(codec::result(id, json!({}))),
            "initialize" => Reply::Now(codec::error(
                Some(id),
                -32600,
                "Invalid Request: this session is already initialized",
            )),
            "logging/setLevel" => Reply::Now(self.set_level(&session, id, params).await),
            "resources/subscribe" | "resources/unsubscribe" if d.config.resource_subscribe => {
                self.subscribe(&session, id, method, params, caller.as_deref())
                    .await
            }
            "server/discover"
            | "subscriptions/listen"
            | "tasks/get"
            | "tasks/update"
            | "tasks/cancel"
            | "tasks/result"
            | "tasks/list" => Reply::Now(codec::error(
                Some(id),
                -32601,
                &format!(
                    "Method not found: `{method}` is not part of protocol {}, which this session speaks",
                    session.protocol_version
                ),
            )),
            _ => exchange::start(self, session, live, request).await,
        }
    }

    async fn set_level(&self, session: &SessionRecord, id: &RequestId, params: &Params) -> Bytes {
        let params = params.map();
        if !self.dispatcher.config.logging {
            return codec::error(
                Some(id),
                -32601,
                "Method not found: this server does not advertise logging",
            );
        }
        let Some(level) = params
            .get("level")
            .and_then(Value::as_str)
            .filter(|l| codec::LOG_LEVELS.contains(l))
        else {
            return codec::error(
                Some(id),
                -32602,
                "Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency",
            );
        };
        let level = level.to_owned();
        match self
            .store
            .update(&session.id, &|s| s.log_level = Some(level.clone()))
            .await
        {
            Ok(_) => codec::result(id, json!({})),
            Err(e) => codec::error(Some(id), e.code(), e.message()),
        }
    }

    /// `resources/subscribe` and `resources/unsubscribe`. A subscription is refused, as
    /// `resources/read` of its URI would be, when the caller may not read the resource; its URI
    /// is at most `Limits::string_bytes` long, and a session holds at most as many
    /// subscriptions, and as many bytes of their URIs, as a listen stream
    /// (`Limits::subscriptions`: they are kept for the session's whole life, in its
    /// [`SessionRecord`], and checked against every resource update; subscribing again to a
    /// URI counts once).
    async fn subscribe(
        &self,
        session: &SessionRecord,
        id: &RequestId,
        method: &str,
        params: &Params,
        caller: Option<&Caller>,
    ) -> Reply {
        let refuse =
            |error: McpError| Reply::Now(crate::dispatch::Response::error(Some(id), &error).body);
        let params = params.map();
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return refuse(McpError::invalid_params(
                "Invalid params: `uri` must be a string",
            ));
        };
        let limits = &self.dispatcher.config.limits;
        let max = limits.string_bytes;
        if uri.len() > max {
            return refuse(McpError::invalid_params(format!(
                "Invalid params: the resource URI is {} bytes long, more than the {max} this server takes",
                uri.len()
            )));
        }
        let on = method == "resources/subscribe";
        if on {
            if let Err(refusal) = self.dispatcher.read_refusal(uri, caller) {
                return Reply::Refused(crate::dispatch::Response::error(Some(id), &refusal));
            }
            if !session.subscriptions.contains(uri) && !room_for(session, uri, limits) {
                return refuse(too_many_subscriptions(limits));
            }
        }
        let uri = uri.to_owned();
        let changed = self
            .store
            .update(&session.id, &|s| {
                if !on {
                    s.subscriptions.remove(&uri);
                } else if s.subscriptions.contains(&uri) || room_for(s, &uri, limits) {
                    s.subscriptions.insert(uri.clone());
                }
            })
            .await;
        match changed {
            // Another request of the session filled it since it was read.
            Ok(Some(s)) if on && !s.subscriptions.contains(&uri) => {
                refuse(too_many_subscriptions(limits))
            }
            Ok(_) => Reply::Now(codec::result(id, json!({}))),
            Err(e) => refuse(e),
        }
    }

    /// The client's answer to a server-to-client request.
    pub(crate) fn answered(&self, live: &LiveSession, id: &str, message: Value) {
        if !live.answered(id, message) {
            tracing::debug!(
                target: "mcp_runtime::legacy",
                id,
                "an answer to no request waiting on this session"
            );
        }
    }

    /// The notification a legacy session gets for `change`, if it wants it.
    pub(crate) fn change_notification(
        &self,
        change: &crate::bus::Change,
        session: &SessionRecord,
    ) -> Option<Bytes> {
        let d = &self.dispatcher;
        let method = match change {
            crate::bus::Change::ToolsListChanged if d.config.list_changed => {
                "notifications/tools/list_changed"
            }
            crate::bus::Change::PromptsListChanged if d.config.list_changed => {
                "notifications/prompts/list_changed"
            }
            crate::bus::Change::ResourcesListChanged if d.config.list_changed => {
                "notifications/resources/list_changed"
            }
            crate::bus::Change::ResourceUpdated(uri)
                if session.subscriptions.contains(uri) && self.may_read(session, uri) =>
            {
                let n = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}});
                return Some(Bytes::from(n.to_string()));
            }
            _ => return None,
        };
        Some(Bytes::from(
            json!({"jsonrpc": "2.0", "method": method}).to_string(),
        ))
    }

    /// Whether the caller that uses `session` may read `uri` (updates of a resource it may
    /// not read are not sent, as on `subscriptions/listen` streams).
    fn may_read(&self, session: &SessionRecord, uri: &str) -> bool {
        let caller = self.live.find(&session.id).and_then(|live| live.caller());
        self.dispatcher.may_read(uri, caller.as_deref())
    }
}

/// Whether `session` may subscribe to one more URI, `uri`.
fn room_for(session: &SessionRecord, uri: &str, limits: &crate::Limits) -> bool {
    let bytes: usize = session.subscriptions.iter().map(String::len).sum();
    session.subscriptions.len() < limits.listen_subscriptions
        && bytes + uri.len() <= limits.listen_subscription_bytes
}

/// `-32602`: the session holds as many subscriptions as it may.
fn too_many_subscriptions(limits: &crate::Limits) -> McpError {
    McpError::invalid_params(format!(
        "Invalid params: this session already has as many resource subscriptions as it may ({} URIs, {} bytes of them together); unsubscribe from one first",
        limits.listen_subscriptions, limits.listen_subscription_bytes
    ))
}

/// A session id: 128 random bits in hex (visible ASCII, as the transport requires).
fn new_session_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
