//! The entry point of a 2025-11-25 session, [`Legacy::handle`]: one parsed legacy message, with
//! what its transport knows of it, to what to send back. `initialize` opens a session; any other
//! message goes to the session it names: notifications and the client's answers are taken, and
//! requests are routed to the methods only sessions have (`methods`) or bridged to the modern
//! pipeline (`exchange`).

use super::codec::{self, Incoming};
use super::exchange;
use super::live::LiveSession;
use super::outcome::{Inbound, Outcome, Reply, Request, Unserved};
use super::session::SessionRecord;
use super::state::{Legacy, Unusable};
use crate::dispatch::Transport;
use crate::protocol::{Method, codes};
use crate::registry::BoxFuture;
use bytes::Bytes;
use serde_json::json;
use std::sync::Arc;

impl Legacy {
    /// Serves one message of a legacy client, as [`Outcome`] says.
    ///
    /// Polled through one box made here: otherwise the state machine is compiled again into
    /// every codegen unit that awaits it (four copies of about 27 KiB in a release binary).
    #[inline(never)]
    pub(crate) fn handle<'a>(
        self: &'a Arc<Self>,
        message: Incoming,
        from: Inbound<'a>,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(self.serve(message, from))
    }

    /// A plain function returning an `async move` block that uses its captures in place: an
    /// `async fn` keeps each argument beside the local it is moved into, which put this box
    /// above glibc's per-thread cache size (BENCHMARKS.md, "The request's future under the
    /// allocator's cache").
    #[allow(clippy::manual_async_fn)]
    fn serve<'a>(
        self: &'a Arc<Self>,
        message: Incoming,
        from: Inbound<'a>,
    ) -> impl Future<Output = Outcome> + Send + 'a {
        async move {
            let Some(sid) = from.session else {
                return self.unopened(message, from).await;
            };
            let (session, live) = match self.session(sid, from.caller.as_deref()).await {
                Ok(found) => found,
                Err(why) => {
                    let (why, body) = why.answer();
                    return Outcome::Unserved { why, body };
                }
            };
            match message {
                Incoming::Notification { method, params } => {
                    let initialized = session.initialized;
                    drop(session);
                    self.notified(sid, initialized, &live, &method, &params)
                        .await;
                    Outcome::Nothing
                }
                Incoming::Response { id, message } => {
                    self.answered(&live, &id, message);
                    Outcome::Nothing
                }
                Incoming::Request { id, method, params } => {
                    let request = Request {
                        id,
                        method,
                        params,
                        caller: from.caller,
                        client: from.client,
                        back_channel: from.back_channel,
                        transport: from.transport,
                    };
                    let reply = self.request(session.clone(), live.clone(), request).await;
                    Outcome::Reply {
                        reply,
                        session,
                        live,
                    }
                }
            }
        }
    }

    /// A message naming no session: only `initialize` is served.
    async fn unopened(&self, message: Incoming, from: Inbound<'_>) -> Outcome {
        let id = match message {
            Incoming::Request { id, method, params } if method == "initialize" => {
                let caller = from.caller.as_deref();
                return match self.initialize(&id, &params, caller, from.client).await {
                    Ok(opened) => Outcome::Opened(opened),
                    Err(body) => Outcome::Unserved {
                        why: Unserved::Unavailable,
                        body,
                    },
                };
            }
            Incoming::Request { id, .. } => Some(id),
            _ => None,
        };
        let message = match from.transport {
            Transport::Http => {
                "Bad Request: no Mcp-Session-Id. A 2025-11-25 client opens a session with initialize; a 2026-07-28 client sends `_meta` (and the MCP-Protocol-Version header) on every request"
            }
            Transport::Stdio => "Invalid Request: send initialize first",
        };
        Outcome::Unserved {
            why: Unserved::NotOpened {
                request: id.is_some(),
            },
            body: codec::error(id.as_ref(), codes::INVALID_REQUEST, message),
        }
    }

    /// A request on a session (a plain function returning an `async move` block, as
    /// [`serve`](Self::serve) is).
    #[allow(clippy::manual_async_fn)]
    fn request(
        self: &Arc<Self>,
        session: Arc<SessionRecord>,
        live: Arc<LiveSession>,
        request: Request,
    ) -> impl Future<Output = Reply> + Send + '_ {
        async move {
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
                    codes::INVALID_REQUEST,
                    "Invalid Request: this session is already initialized",
                )),
                "logging/setLevel" => Reply::Now(self.set_level(&session, id, params).await),
                "resources/subscribe" | "resources/unsubscribe" if d.config.resource_subscribe => {
                    self.subscribe(&session, id, method, params, caller.as_ref())
                        .await
                }
                // The 2026 methods this session's protocol lacks (from the method table), and the
                // older revision's task methods, which this server does not serve.
                name if Method::parse(name).is_some_and(|m| !m.on_2025_11_25_sessions())
                    || matches!(name, "tasks/result" | "tasks/list") =>
                {
                    Reply::Now(codec::error(
                        Some(id),
                        codes::METHOD_NOT_FOUND,
                        &format!(
                            "Method not found: `{method}` is not part of protocol {}, which this session speaks",
                            session.protocol_version
                        ),
                    ))
                }
                _ => exchange::start(self, session, live, request).await,
            }
        }
    }
}

impl Unusable {
    /// Why no session serves, and the error to send (it answers no request in particular).
    pub(crate) fn answer(self) -> (Unserved, Bytes) {
        match self {
            Unusable::Gone => (
                Unserved::Gone,
                codec::error(
                    None,
                    codes::INVALID_REQUEST,
                    "Session not found: it ended or expired; initialize a new one",
                ),
            ),
            Unusable::Store(why) => (
                Unserved::Unavailable,
                codec::error(
                    None,
                    codes::INTERNAL_ERROR,
                    &format!("Internal error: the session store failed: {why}"),
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of what `f` returns, without calling it.
    fn output_size<'a, F, R>(_: F) -> usize
    where
        F: FnOnce(&'a Arc<Legacy>, Incoming, Inbound<'a>) -> R,
    {
        std::mem::size_of::<R>()
    }

    #[test]
    fn a_messages_box_fits_the_allocators_cache() {
        // `handle` boxes this future for every legacy message; glibc serves boxes up to 1,032
        // bytes from its per-thread cache (BENCHMARKS.md, "The request's future under the
        // allocator's cache").
        let size = output_size(Legacy::serve);
        assert!(size <= 1032, "a legacy message's future is {size} bytes");
    }
}
