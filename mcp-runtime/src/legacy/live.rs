//! What a legacy session holds in this process: its streams (kept for resumption), the requests
//! it has running (for `notifications/cancelled`), and the server-to-client requests waiting
//! for the client's answer.

use super::stream::StreamLog;
use crate::context::Caller;
use crate::protocol::RequestId;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One session's state in this process.
#[derive(Debug)]
pub(crate) struct LiveSession {
    streams: Mutex<HashMap<u64, Arc<StreamLog>>>,
    running: Mutex<HashMap<RequestId, CancellationToken>>,
    waiting: Mutex<HashMap<String, oneshot::Sender<Value>>>,
    next_stream: AtomicU64,
    next_request: AtomicU64,
    /// Fires when the session ends: its requests stop, its streams close.
    pub(crate) ended: CancellationToken,
    last_used: Mutex<Instant>,
    /// Who used the session last (`None`: no authenticated caller), whose access decides which
    /// `notifications/resources/updated` its streams carry.
    caller: Mutex<Option<Arc<Caller>>>,
}

impl LiveSession {
    fn new() -> Self {
        LiveSession {
            streams: Mutex::new(HashMap::new()),
            running: Mutex::new(HashMap::new()),
            waiting: Mutex::new(HashMap::new()),
            next_stream: AtomicU64::new(1),
            next_request: AtomicU64::new(1),
            ended: CancellationToken::new(),
            last_used: Mutex::new(Instant::now()),
            caller: Mutex::new(None),
        }
    }

    /// A new stream; streams that ended longer than `keep` ago are forgotten.
    pub(crate) fn new_stream(&self, keep: Duration) -> Arc<StreamLog> {
        let id = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let log = Arc::new(StreamLog::new(id));
        let mut streams = lock(&self.streams);
        streams.retain(|_, s| s.finished_at().is_none_or(|at| at.elapsed() < keep));
        streams.insert(id, log.clone());
        log
    }

    /// The stream numbered `id`, while it is kept.
    pub(crate) fn stream(&self, id: u64) -> Option<Arc<StreamLog>> {
        lock(&self.streams).get(&id).cloned()
    }

    /// Forgets a stream whose last event was delivered.
    pub(crate) fn drop_stream(&self, id: u64) {
        lock(&self.streams).remove(&id);
    }

    /// Registers a running request; `false` when its id is in use by another.
    pub(crate) fn start(&self, id: &RequestId, token: CancellationToken) -> bool {
        let mut running = lock(&self.running);
        if running.contains_key(id) {
            return false;
        }
        running.insert(id.clone(), token);
        true
    }

    /// The request is done.
    pub(crate) fn done(&self, id: &RequestId) {
        lock(&self.running).remove(id);
    }

    /// `notifications/cancelled`: cancels the request, if it runs.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(token) = lock(&self.running).remove(id) {
            token.cancel();
        }
    }

    /// A fresh id for a server-to-client request, and where its answer will arrive.
    pub(crate) fn ask(&self) -> (String, oneshot::Receiver<Value>) {
        let n = self.next_request.fetch_add(1, Ordering::Relaxed);
        let id = format!("mcp-input-{n}");
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id.clone(), tx);
        (id, rx)
    }

    /// Stops waiting for an answer (the request gave up).
    pub(crate) fn forget(&self, id: &str) {
        lock(&self.waiting).remove(id);
    }

    /// The client's answer (a JSON-RPC response) to a server-to-client request; whether one was
    /// waiting for it.
    pub(crate) fn answered(&self, id: &str, response: Value) -> bool {
        match lock(&self.waiting).remove(id) {
            Some(tx) => tx.send(response).is_ok(),
            None => false,
        }
    }

    /// Records who is using the session now (every message names its caller again: a refreshed
    /// token with other scopes replaces the last one). Copies the caller only when it changed.
    pub(crate) fn used_by(&self, caller: Option<&Caller>) {
        let mut recorded = lock(&self.caller);
        if recorded.as_deref() != caller {
            *recorded = caller.map(|c| Arc::new(c.clone()));
        }
    }

    /// The caller that used the session last, if it was authenticated.
    pub(crate) fn caller(&self) -> Option<Arc<Caller>> {
        lock(&self.caller).clone()
    }

    fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_used).elapsed()
    }
}

/// The live sessions of this process, by id.
#[derive(Debug, Default)]
pub(crate) struct LiveSessions(Mutex<Sessions>);

#[derive(Debug, Default)]
struct Sessions {
    by_id: HashMap<String, Arc<LiveSession>>,
    /// When idle ones were last looked for.
    swept: Option<Instant>,
}

impl LiveSessions {
    /// The session's live state (made on first use in this process: a session created by
    /// another instance is served here too).
    pub(crate) fn get(&self, id: &str) -> Arc<LiveSession> {
        let map = &mut lock(&self.0).by_id;
        let live = match map.get(id) {
            Some(live) => live.clone(),
            None => map
                .entry(id.to_owned())
                .or_insert_with(|| Arc::new(LiveSession::new()))
                .clone(),
        };
        live.touch();
        live
    }

    /// The session's live state in this process, if it has one (neither made nor marked used).
    pub(crate) fn find(&self, id: &str) -> Option<Arc<LiveSession>> {
        lock(&self.0).by_id.get(id).cloned()
    }

    /// A new session's live state; sessions idle for longer than `idle` are dropped, looked for
    /// at most every eighth of `idle` and every second (looking at every live session, a lock
    /// and a clock read each, on every `initialize` made opening a session cost more the more
    /// sessions were open).
    pub(crate) fn create(&self, id: &str, idle: Duration) -> Arc<LiveSession> {
        let sessions = &mut *lock(&self.0);
        let (map, swept) = (&mut sessions.by_id, &mut sessions.swept);
        let every = (idle / 8).min(Duration::from_secs(1));
        if swept.is_none_or(|at| at.elapsed() >= every) {
            *swept = Some(Instant::now());
            map.retain(|_, s| {
                let keep = s.idle_for() <= idle && !s.ended.is_cancelled();
                if !keep {
                    s.ended.cancel();
                }
                keep
            });
        }
        let live = Arc::new(LiveSession::new());
        map.insert(id.to_owned(), live.clone());
        live
    }

    /// Ends the session here: its requests are cancelled and its streams close.
    pub(crate) fn end(&self, id: &str) {
        if let Some(live) = lock(&self.0).by_id.remove(id) {
            live.ended.cancel();
        }
    }
}
