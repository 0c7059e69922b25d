//! The lists of a mount that passes its callers' tokens on (token exchange, or the caller's own
//! token): what it serves depends on who asks. Each caller's view of it is fetched with that
//! caller's token and kept while the mount's lists stay fresh (at most 1,000 views, 4 per
//! subject, one fetch in flight per view); this server serves the union of the views it holds
//! (and of the fetch made without a token), each item checked against the asking caller's own
//! view, in lists as on use. An item that collides with another origin is found, and reported
//! naming both, when a view first brings it: at list time.

use crate::auth::{AccessCheck, AccessRequest, Denied};
use crate::context::Caller;
use crate::proxy::{Key, SharedBackend, fetch_as, key};
use crate::registry::Primitive;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Views kept per mount, and per subject among them.
const MAX_VIEWS: usize = 1_000;
const VIEWS_PER_SUBJECT: usize = 4;
/// How long one caller's fetch may take; after it fails, how long before it is tried again.
const FETCH_WITHIN: Duration = Duration::from_secs(10);
const RETRY: Duration = Duration::from_secs(2);

/// Where a caller's view stands.
pub(crate) enum Standing {
    /// Held and fresh, or being fetched: nothing to do.
    Fresh,
    /// Held, past its freshness: served while it is fetched again.
    Stale,
    /// Not held: fetched before the caller's request is served (for a moment at most).
    Missing,
}

/// One view's key: a digest of the caller's subject and token (a new token is a new view).
type ViewKey = [u8; 32];

/// The views of one mount that passes its callers' tokens on.
pub(crate) struct Views {
    backend: SharedBackend,
    state: Mutex<State>,
    /// A lock per view being fetched: one fetch in flight per view.
    fetching: Mutex<HashMap<ViewKey, Arc<tokio::sync::Mutex<()>>>>,
}

#[derive(Default)]
struct State {
    /// Every item a view holds, as last fetched, numbered in the order first seen (lists keep
    /// the mounted server's order).
    defs: HashMap<Key, (u64, Primitive)>,
    seen: u64,
    /// What the fetch without a token brought (the callers without one see that).
    anonymous: Arc<HashSet<Key>>,
    held: HashMap<ViewKey, Held>,
    /// How long a view stays fresh (the mount's lists' `ttlMs`, clamped).
    fresh_for: Duration,
}

struct Held {
    keys: Arc<HashSet<Key>>,
    subject: String,
    fetched_at: Instant,
    until: Instant,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The view key of a caller that has a token to pass on.
fn view_key(caller: &Caller) -> Option<ViewKey> {
    use sha2::Digest;
    let token = caller.token()?;
    let mut hash = sha2::Sha256::new();
    hash.update(caller.binding_key().as_bytes());
    hash.update([0]);
    hash.update(token.as_bytes());
    Some(hash.finalize().into())
}

impl Views {
    pub(crate) fn new(backend: SharedBackend, fresh_for: Duration) -> Views {
        Views {
            backend,
            state: Mutex::new(State {
                fresh_for,
                ..State::default()
            }),
            fetching: Mutex::new(HashMap::new()),
        }
    }

    /// Takes what the fetch without a token brought.
    pub(crate) fn record_anonymous(&self, items: Vec<Primitive>, fresh_for: Duration) {
        let mut state = lock(&self.state);
        let keys: HashSet<Key> = items.iter().map(key).collect();
        for item in items {
            state.define(item);
        }
        state.anonymous = Arc::new(keys);
        state.fresh_for = fresh_for;
    }

    /// Where the caller's view stands (a caller without a token has the fetch made without one,
    /// always fresh).
    pub(crate) fn standing(&self, caller: &Caller) -> Standing {
        let Some(view) = view_key(caller) else {
            return Standing::Fresh;
        };
        let held = lock(&self.state).held.get(&view).map(|h| h.until);
        if held.is_some_and(|until| until > Instant::now()) {
            return Standing::Fresh;
        }
        // Being fetched already: the first request waited (a moment), the others do not.
        if lock(&self.fetching).contains_key(&view) {
            return Standing::Fresh;
        }
        match held {
            None => Standing::Missing,
            Some(_) => Standing::Stale,
        }
    }

    /// What the caller may see: its view, even stale; none held yet, what a caller without a
    /// token sees (a check never waits for a fetch).
    fn seen_by(&self, caller: Option<&Caller>) -> Arc<HashSet<Key>> {
        let state = lock(&self.state);
        match caller.and_then(view_key).and_then(|v| state.held.get(&v)) {
            Some(held) => held.keys.clone(),
            None => state.anonymous.clone(),
        }
    }

    /// The caller's view when it is held and fresh (a caller without a token: the fetch made
    /// without one).
    fn fresh(&self, caller: Option<&Caller>) -> Option<Arc<HashSet<Key>>> {
        let state = lock(&self.state);
        let Some(view) = caller.and_then(view_key) else {
            return Some(state.anonymous.clone());
        };
        let held = state.held.get(&view)?;
        (held.until > Instant::now()).then(|| held.keys.clone())
    }

    /// The caller's view, fetched with its token unless a fresh one is held; `true` with it
    /// when a fetch was made.
    pub(crate) async fn view_of(&self, caller: &Caller) -> (Arc<HashSet<Key>>, bool) {
        if let Some(keys) = self.fresh(Some(caller)) {
            return (keys, false);
        }
        let Some(view) = view_key(caller) else {
            return (lock(&self.state).anonymous.clone(), false);
        };
        let gate = lock(&self.fetching).entry(view).or_default().clone();
        let fetched = {
            let _one = gate.lock().await;
            match self.fresh(Some(caller)) {
                // Fetched by the request that held the lock before.
                Some(keys) => (keys, false),
                None => (self.fetch_view(caller, view).await, true),
            }
        };
        let mut fetching = lock(&self.fetching);
        if Arc::strong_count(&gate) <= 2 {
            fetching.remove(&view);
        }
        fetched
    }

    async fn fetch_view(&self, caller: &Caller, view: ViewKey) -> Arc<HashSet<Key>> {
        let result =
            tokio::time::timeout(FETCH_WITHIN, fetch_as(&self.backend, Some(caller))).await;
        let now = Instant::now();
        let mut state = lock(&self.state);
        let (keys, until) = match result {
            Ok(Ok(fetched)) => {
                for problem in &fetched.problems {
                    tracing::warn!(target: "mcp_runtime::proxy", mount = %self.backend.name, "{problem}");
                }
                let keys: HashSet<Key> = fetched.items.iter().map(key).collect();
                for item in fetched.items {
                    state.define(item);
                }
                (Arc::new(keys), now + state.fresh_for)
            }
            failed => {
                let why = match failed {
                    Ok(Err(e)) => e.to_string(),
                    _ => format!("no answer within {FETCH_WITHIN:?}"),
                };
                tracing::warn!(
                    target: "mcp_runtime::proxy",
                    mount = %self.backend.name,
                    subject = %caller.subject,
                    error = %why,
                    "a caller's view of a mounted server could not be fetched"
                );
                // The last view held stays a little longer; with none, the caller sees what
                // one without a token sees, and its requests fail as the mounted server (or
                // its credentials) fails them, saying why.
                let kept = state.held.get(&view).map(|h| h.keys.clone());
                (kept.unwrap_or_else(|| state.anonymous.clone()), now + RETRY)
            }
        };
        state.make_room(&view, &caller.subject);
        state.held.insert(
            view,
            Held {
                keys: keys.clone(),
                subject: caller.subject.clone(),
                fetched_at: now,
                until,
            },
        );
        keys
    }

    /// The keys of every item some view holds.
    pub(crate) fn union(&self) -> HashSet<Key> {
        let state = lock(&self.state);
        let mut all: HashSet<Key> = state.anonymous.iter().cloned().collect();
        for held in state.held.values() {
            all.extend(held.keys.iter().cloned());
        }
        all
    }

    /// The items of the union, each checked against the asking caller's view; definitions no
    /// view holds any more are dropped.
    pub(crate) fn items(self: &Arc<Self>) -> Vec<Primitive> {
        let union = self.union();
        let mut state = lock(&self.state);
        state.defs.retain(|k, _| union.contains(k));
        let mut defs: Vec<_> = state.defs.iter().collect();
        defs.sort_by_key(|(_, (n, _))| *n);
        let mut out = Vec::with_capacity(defs.len());
        for (k, (_, item)) in defs {
            let mut item = item.clone();
            let check = Some(self.check(k.clone()));
            match &mut item {
                Primitive::Tool(t) => t.access.check = check,
                Primitive::Resource(r) => r.access.check = check,
                Primitive::ResourceTemplate(t) => t.access.check = check,
                Primitive::Prompt(p) => p.access.check = check,
            }
            out.push(item);
        }
        out
    }

    /// Allows an item to the callers whose view holds it.
    fn check(self: &Arc<Self>, item: Key) -> AccessCheck {
        let views = Arc::downgrade(self);
        let item = Arc::new(item);
        AccessCheck::new(move |request: AccessRequest| {
            let (views, item) = (views.upgrade(), item.clone());
            async move {
                let Some(views) = views else {
                    return Err(Denied::new("the mount is gone"));
                };
                let keys = views.seen_by(request.caller());
                match keys.contains(&*item) {
                    true => Ok(()),
                    false => Err(Denied::new(format!(
                        "the mounted server `{}` does not offer `{}` to this caller",
                        views.backend.name, item.1
                    ))),
                }
            }
        })
    }
}

impl State {
    /// Keeps `item`'s definition (its place in the order kept when it was seen before).
    fn define(&mut self, item: Primitive) {
        let k = key(&item);
        let n = match self.defs.get(&k) {
            Some((n, _)) => *n,
            None => {
                self.seen += 1;
                self.seen
            }
        };
        self.defs.insert(k, (n, item));
    }

    /// Room for one more view: the subject's oldest goes when it holds its share, the oldest
    /// of all when the whole is full.
    fn make_room(&mut self, view: &ViewKey, subject: &str) {
        if self.held.contains_key(view) {
            return;
        }
        let oldest = |held: &HashMap<ViewKey, Held>, of: Option<&str>| {
            held.iter()
                .filter(|(_, h)| of.is_none_or(|s| h.subject == s))
                .min_by_key(|(_, h)| h.fetched_at)
                .map(|(k, _)| *k)
        };
        let own = self.held.values().filter(|h| h.subject == subject).count();
        if own >= VIEWS_PER_SUBJECT
            && let Some(k) = oldest(&self.held, Some(subject))
        {
            self.held.remove(&k);
        }
        if self.held.len() >= MAX_VIEWS
            && let Some(k) = oldest(&self.held, None)
        {
            self.held.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold(state: &mut State, n: u32, subject: &str) {
        let mut view = [0u8; 32];
        view[..4].copy_from_slice(&n.to_be_bytes());
        state.make_room(&view, subject);
        let now = Instant::now() + Duration::from_millis(u64::from(n));
        state.held.insert(
            view,
            Held {
                keys: Arc::default(),
                subject: subject.to_owned(),
                fetched_at: now,
                until: now,
            },
        );
    }

    #[test]
    fn a_subject_holds_its_share_and_the_whole_is_bounded() {
        let mut state = State::default();
        for n in 0..10 {
            hold(&mut state, n, "ada");
        }
        assert_eq!(state.held.len(), VIEWS_PER_SUBJECT);
        // Ada's newest views are the ones kept.
        let newest = state.held.keys().map(|k| k[3]).min().unwrap();
        assert_eq!(usize::from(newest), 10 - VIEWS_PER_SUBJECT);
        for n in 0..(MAX_VIEWS as u32 + 50) {
            hold(&mut state, 100 + n, &format!("caller-{n}"));
        }
        assert_eq!(state.held.len(), MAX_VIEWS);
    }
}
