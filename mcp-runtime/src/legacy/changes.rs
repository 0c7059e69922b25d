//! A session's change stream: the `list_changed` notifications the server advertises, and
//! `notifications/resources/updated` for the resources the session subscribed to and its caller
//! may read, as messages for the transport to frame (HTTP: SSE events on the session's GET
//! stream; stdio: lines).
//!
//! The stream reads the server's change bus. When it falls behind the bus (the bus dropped
//! changes this stream had not read yet) it cannot know what it missed, so it *resyncs*: every
//! `list_changed` the server advertises, and an update of every subscribed resource the caller
//! may read, so that the client fetches all of them again. The same as a 2026 listen stream.

use super::live::LiveSession;
use super::session::SessionRecord;
use super::state::Legacy;
use crate::bus::Change;
use bytes::Bytes;
use serde_json::json;
use std::sync::Arc;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::mpsc;

impl Legacy {
    /// The change notifications of session `session_id`, sent to `out` by the future this
    /// returns (for the transport to spawn) until the session ends, the server shuts down, the
    /// bus closes or `out`'s receiver is dropped. The bus is subscribed to at once, so that no
    /// change made before the future first runs is missed.
    pub(crate) fn changes(
        self: Arc<Self>,
        session_id: String,
        live: Arc<LiveSession>,
        out: mpsc::Sender<Bytes>,
    ) -> impl Future<Output = ()> + Send + 'static {
        let bus = self.dispatcher.changes.subscribe();
        self.send_changes(bus, session_id, live, out)
    }

    async fn send_changes(
        self: Arc<Self>,
        mut bus: broadcast::Receiver<Change>,
        session_id: String,
        live: Arc<LiveSession>,
        out: mpsc::Sender<Bytes>,
    ) {
        let shutdown = self.dispatcher.shutdown.clone();
        loop {
            let change = tokio::select! {
                change = bus.recv() => change,
                () = live.ended.cancelled() => return,
                () = shutdown.cancelled() => return,
                () = out.closed() => return,
            };
            let change = match change {
                Ok(change) => Some(change),
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(
                        target: "mcp_runtime::legacy",
                        missed,
                        "a session's change stream lagged behind the change bus"
                    );
                    None
                }
                Err(RecvError::Closed) => return,
            };
            // The session as it is now: its subscriptions may have changed since the stream
            // opened.
            let Ok(Some(session)) = self.store.get(&session_id).await else {
                return;
            };
            let notifications = match &change {
                Some(change) => self.notification(change, &session).into_iter().collect(),
                None => self.resync(&session),
            };
            for n in notifications {
                if out.send(n).await.is_err() {
                    return;
                }
            }
        }
    }

    /// The notification `session` gets for `change`, if it wants it.
    fn notification(&self, change: &Change, session: &SessionRecord) -> Option<Bytes> {
        let list_changed = self.dispatcher.config.list_changed;
        let method = match change {
            Change::ToolsListChanged if list_changed => "notifications/tools/list_changed",
            Change::PromptsListChanged if list_changed => "notifications/prompts/list_changed",
            Change::ResourcesListChanged if list_changed => "notifications/resources/list_changed",
            Change::ResourceUpdated(uri)
                if session.subscriptions.contains(uri) && self.may_read(session, uri) =>
            {
                return Some(resource_updated(uri));
            }
            _ => return None,
        };
        Some(list_changed_notification(method))
    }

    /// What a session that missed changes gets: each `list_changed` the server advertises now,
    /// then an update of each resource it subscribed to that its caller may read.
    fn resync(&self, session: &SessionRecord) -> Vec<Bytes> {
        let caps = self.dispatcher.capabilities();
        let advertised = |list: Option<bool>| list == Some(true);
        let lists = [
            (
                advertised(caps.tools.and_then(|c| c.list_changed)),
                "notifications/tools/list_changed",
            ),
            (
                advertised(caps.prompts.and_then(|c| c.list_changed)),
                "notifications/prompts/list_changed",
            ),
            (
                advertised(caps.resources.and_then(|c| c.list_changed)),
                "notifications/resources/list_changed",
            ),
        ];
        let mut out: Vec<Bytes> = lists
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, method)| list_changed_notification(method))
            .collect();
        for uri in &session.subscriptions {
            if self.may_read(session, uri) {
                out.push(resource_updated(uri));
            }
        }
        out
    }
}

fn list_changed_notification(method: &str) -> Bytes {
    Bytes::from(json!({"jsonrpc": "2.0", "method": method}).to_string())
}

fn resource_updated(uri: &str) -> Bytes {
    let n = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}});
    Bytes::from(n.to_string())
}
