//! The methods only a legacy session has: `initialize`, `ping`'s siblings `logging/setLevel`
//! and `resources/subscribe`/`unsubscribe`, and the notifications and client answers a session
//! takes.

use super::codec::{self, Params};
use super::live::LiveSession;
use super::outcome::{Opened, Reply};
use super::session::SessionRecord;
use super::state::Legacy;
use crate::context::Caller;
use crate::error::McpError;
use crate::protocol::{RequestId, codes};
use bytes::Bytes;
use serde_json::{Value, json};
use std::sync::Arc;

impl Legacy {
    /// `initialize`: a new session and its result, or the error response to send.
    pub(super) async fn initialize(
        &self,
        id: &RequestId,
        params: &Params,
        caller: Option<&Caller>,
        client: Option<crate::net::ClientNet>,
    ) -> Result<Opened, Bytes> {
        let params = params.initialize();
        let version = codec::negotiate(params.version.as_deref());
        let Some(session_id) = new_session_id() else {
            return Err(codec::error(
                Some(id),
                codes::INTERNAL_ERROR,
                "Internal error: no randomness for a session id",
            ));
        };
        let mut session =
            SessionRecord::new(session_id, version, params.capabilities, params.client_info);
        session.owner = caller.map(|c| c.binding_key().to_string());
        session.share = crate::context::ShareKey::of(caller, client).map(|k| k.to_string());
        if let Err(e) = self.store.create(session.clone()).await {
            return Err(codec::error(Some(id), e.code(), e.message()));
        }
        let live = self.live.create(&session.id, self.options.idle);
        let response = codec::result_text(id, &self.initialize_result(version));
        Ok(Opened {
            session,
            live,
            response,
        })
    }

    /// A notification on the session `session`, whose record said `initialized` (the record
    /// itself is not held: a change to a record held elsewhere copies it first).
    pub(super) async fn notified(
        &self,
        session: &str,
        initialized: bool,
        live: &LiveSession,
        method: &str,
        params: &Params,
    ) {
        match method {
            "notifications/initialized" if !initialized => {
                let _ = self.store.update(session, &|s| s.initialized = true).await;
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

    /// The client's answer to a server-to-client request.
    pub(super) fn answered(&self, live: &LiveSession, id: &str, message: Value) {
        if !live.answered(id, message) {
            tracing::debug!(
                target: "mcp_runtime::legacy",
                id,
                "an answer to no request waiting on this session"
            );
        }
    }

    /// `logging/setLevel`.
    pub(super) async fn set_level(
        &self,
        session: &SessionRecord,
        id: &RequestId,
        params: &Params,
    ) -> Bytes {
        let params = params.map();
        if !self.dispatcher.config.logging {
            return codec::error(
                Some(id),
                codes::METHOD_NOT_FOUND,
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
                codes::INVALID_PARAMS,
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
    pub(super) async fn subscribe(
        &self,
        session: &SessionRecord,
        id: &RequestId,
        method: &str,
        params: &Params,
        caller: Option<&Arc<Caller>>,
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
            // The scopes and custom checks `resources/read` of it asks: an update tells of what
            // the resource holds.
            if let Err(refusal) = self.dispatcher.follow_refusal(uri, caller).await {
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
}

/// Whether `session` may subscribe to one more URI, `uri`.
fn room_for(session: &SessionRecord, uri: &str, limits: &crate::config::Limits) -> bool {
    let bytes: usize = session.subscriptions.iter().map(String::len).sum();
    session.subscriptions.len() < limits.listen_subscriptions
        && bytes + uri.len() <= limits.listen_subscription_bytes
}

/// `-32602`: the session holds as many subscriptions as it may.
fn too_many_subscriptions(limits: &crate::config::Limits) -> McpError {
    McpError::invalid_params(format!(
        "Invalid params: this session already has as many resource subscriptions as it may ({} URIs, {} bytes of them together); unsubscribe from one first",
        limits.listen_subscriptions, limits.listen_subscription_bytes
    ))
}

/// A session id: 128 random bits in hex (visible ASCII, as the transport requires), written
/// digit by digit from a table rather than a `format!` per byte (BENCHMARKS.md, "The legacy
/// codec").
fn new_session_id() -> Option<String> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).ok()?;
    let mut id = String::with_capacity(32);
    for b in bytes {
        id.push(char::from(HEX[usize::from(b >> 4)]));
        id.push(char::from(HEX[usize::from(b & 15)]));
    }
    Some(id)
}

#[cfg(test)]
mod tests {
    #[test]
    fn session_ids_are_32_lowercase_hex_digits() {
        let id = super::new_session_id().unwrap();
        assert_eq!(id.len(), 32);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        );
        assert_ne!(super::new_session_id().unwrap(), id);
    }
}
