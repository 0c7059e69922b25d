//! The legacy side of a server: its options, its session store and the sessions' live state,
//! and finding the session a message names.

use super::codec::LEGACY_VERSIONS;
use super::live::{LiveSession, LiveSessions};
use super::session::{MemorySessionStore, SessionRecord, SessionStore};
use crate::context::Caller;
use crate::dispatch::Dispatcher;
use crate::registry::Registry;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// How legacy sessions are kept and bridged.
#[derive(Debug, Clone)]
pub(crate) struct SessionSettings {
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

impl Default for SessionSettings {
    fn default() -> Self {
        SessionSettings {
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
    pub(crate) options: SessionSettings,
    /// `initialize`'s results as written, while what is registered stays the same.
    initialize_results: Mutex<InitializeResults>,
}

/// `initialize`'s result, written once per negotiated version for the registry snapshot it was
/// written from (the capabilities follow what is registered; the rest is the server's
/// settings), against a tree of `Value`s built and serialized for every session (BENCHMARKS.md,
/// "The legacy codec"). The snapshot is held weakly: its allocation, not the registry, stays
/// while it is named here, so another snapshot is never taken for it.
#[derive(Default)]
struct InitializeResults {
    snapshot: Weak<Registry>,
    by_version: [Option<Arc<str>>; LEGACY_VERSIONS.len()],
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
        options: SessionSettings,
    ) -> Self {
        Legacy {
            dispatcher,
            store,
            live: LiveSessions::default(),
            options,
            initialize_results: Mutex::default(),
        }
    }

    /// The legacy side of one connection that is one session for as long as it lasts (a
    /// stdio process): a store of its own, holding that one session, which never idles out.
    pub(crate) fn for_connection(dispatcher: Arc<Dispatcher>, options: SessionSettings) -> Self {
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

    /// `initialize`'s result for `version` (one of [`LEGACY_VERSIONS`]), as JSON.
    pub(super) fn initialize_result(&self, version: &str) -> Arc<str> {
        let registry = self.dispatcher.registry();
        let mut cache = self
            .initialize_results
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if !std::ptr::eq(cache.snapshot.as_ptr(), Arc::as_ptr(&registry)) {
            *cache = InitializeResults {
                snapshot: Arc::downgrade(&registry),
                by_version: Default::default(),
            };
        }
        let at = LEGACY_VERSIONS
            .iter()
            .position(|v| *v == version)
            .unwrap_or(0);
        if let Some(written) = &cache.by_version[at] {
            return written.clone();
        }
        let d = &self.dispatcher;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": d.config.info.as_ref(),
        });
        if let Some(instructions) = &d.config.instructions {
            result["instructions"] = Value::String(instructions.clone());
        }
        let written: Arc<str> = result.to_string().into();
        cache.by_version[at] = Some(written.clone());
        written
    }

    /// The session `id`, for `caller`.
    pub(crate) async fn session(
        &self,
        id: &str,
        caller: Option<&Caller>,
    ) -> Result<(Arc<SessionRecord>, Arc<LiveSession>), Unusable> {
        let session = self.record(id, caller).await?;
        let live = self.live.get(id);
        live.used_by(caller);
        Ok((session, live))
    }

    /// The session `id`'s record, when `caller` may use it.
    async fn record(
        &self,
        id: &str,
        caller: Option<&Caller>,
    ) -> Result<Arc<SessionRecord>, Unusable> {
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
        Ok(session)
    }

    /// Ends a session (HTTP DELETE); whether it was live.
    pub(crate) async fn end(&self, id: &str) -> Result<bool, Unusable> {
        self.live.end(id);
        self.store
            .end(id)
            .await
            .map_err(|e| Unusable::Store(e.message().to_owned()))
    }

    /// Ends the session `id` when `caller` may use it (HTTP DELETE): what [`session`]
    /// then [`end`] do, without making its live state only to end it.
    ///
    /// [`session`]: Self::session
    /// [`end`]: Self::end
    pub(crate) async fn end_for(
        &self,
        id: &str,
        caller: Option<&Caller>,
    ) -> Result<bool, Unusable> {
        self.record(id, caller).await?;
        self.end(id).await
    }

    /// Whether the caller that uses `session` may read `uri` (updates of a resource it may
    /// not read are not sent, as on `subscriptions/listen` streams).
    pub(super) fn may_read(&self, session: &SessionRecord, uri: &str) -> bool {
        let caller = self.live.find(&session.id).and_then(|live| live.caller());
        self.dispatcher.may_read(uri, caller.as_deref())
    }
}
