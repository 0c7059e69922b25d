//! The legacy side of a server: its options, its session store and the sessions' live state,
//! and finding the session a message names.

use super::live::{LiveSession, LiveSessions};
use super::session::{MemorySessionStore, SessionRecord, SessionStore};
use crate::context::Caller;
use crate::dispatch::Dispatcher;
use serde_json::Value;
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
    /// Unknown, ended or expired.
    Gone,
    /// The store failed.
    Store(String),
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

    /// The legacy side of one connection that is one session for as long as it lasts (a
    /// stdio process): a store of its own, holding that one session, which never idles out.
    pub(crate) fn for_connection(dispatcher: Arc<Dispatcher>, options: LegacyOptions) -> Self {
        let store = MemorySessionStore::new(1, Duration::from_secs(u64::MAX / 4_000));
        Legacy::new(dispatcher, Arc::new(store), options)
    }

    /// The capabilities a legacy session is told of: the server's, without the tasks extension
    /// (a legacy session runs every call to its end). Other extensions (skills) serve both eras.
    pub(super) fn capabilities(&self) -> Value {
        let mut caps = serde_json::to_value(self.dispatcher.capabilities()).unwrap_or_default();
        if let Some(Value::Object(map)) = caps.get_mut("extensions") {
            map.remove(crate::protocol::TASKS_EXTENSION);
        }
        if let Value::Object(map) = &mut caps
            && map
                .get("extensions")
                .is_some_and(|e| e.as_object().is_some_and(|e| e.is_empty()))
        {
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

    /// Ends a session (HTTP DELETE); whether it was live.
    pub(crate) async fn end(&self, id: &str) -> Result<bool, Unusable> {
        self.live.end(id);
        self.store
            .end(id)
            .await
            .map_err(|e| Unusable::Store(e.message().to_owned()))
    }

    /// Whether the caller that uses `session` may read `uri` (updates of a resource it may
    /// not read are not sent, as on `subscriptions/listen` streams).
    pub(super) fn may_read(&self, session: &SessionRecord, uri: &str) -> bool {
        let caller = self.live.find(&session.id).and_then(|live| live.caller());
        self.dispatcher.may_read(uri, caller.as_deref())
    }
}
