//! The mounts of a server: those in process taken into its items at build (a name or URI
//! already taken is a build error naming both origins), and the remote ones fetched when serving
//! starts, then again whenever their lists go stale, each fetch swapping in what the mount
//! serves now (a name taken by another origin is skipped with an error naming both).

use super::views::{Standing, Views};
use crate::context::Caller;
use crate::dispatch::{CallerViews, Dispatcher};
use crate::error::BuildError;
use crate::proxy::{Fetched, Key, Mount, SharedBackend, fetch, key, local_items};
use crate::registry::{BoxFuture, Items, PrimitiveKind};
use crate::server::Server;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// A remote mount and the items it added last.
pub(crate) struct RemoteMount {
    backend: SharedBackend,
    owned: Mutex<Vec<Key>>,
    /// Its listen stream is open and reports its list changes: the lists are fetched on each,
    /// and only seldom besides.
    listening: AtomicBool,
    /// Each caller's view, when it passes its callers' tokens on (`views.rs`).
    views: Option<Arc<Views>>,
}

/// The remote mounts of a server.
#[derive(Default)]
pub(crate) struct Mounts {
    remote: Vec<RemoteMount>,
    /// Every mount, in process or remote (their tasks are relayed by name).
    pub(crate) all: Vec<SharedBackend>,
    started: AtomicBool,
}

/// How long serving waits for the first fetch of the remote mounts before it starts anyway.
const FIRST_FETCH: Duration = Duration::from_secs(10);
/// Bounds of the interval between fetches of one mount (its lists' `ttlMs`, clamped; a `ttlMs`
/// of 0 asks for no caching, not for a fetch every moment).
const FRESH_MIN: Duration = Duration::from_secs(5);
const FRESH_MAX: Duration = Duration::from_secs(300);
/// After a failed fetch.
const RETRY: Duration = Duration::from_secs(2);

fn kind_word(kind: PrimitiveKind) -> &'static str {
    match kind {
        PrimitiveKind::Tool => "tool",
        PrimitiveKind::Resource => "resource",
        PrimitiveKind::ResourceTemplate => "resource template",
        PrimitiveKind::Prompt => "prompt",
        PrimitiveKind::Skill => "skill",
    }
}

/// The keys of every item, each with where it came from.
fn origins(items: &Items) -> Vec<((PrimitiveKind, String), String)> {
    let here = "registered on this server".to_owned();
    let mut out = Vec::new();
    for t in &items.tools {
        out.push(((PrimitiveKind::Tool, t.info.name.clone()), here.clone()));
    }
    for r in &items.resources {
        out.push(((PrimitiveKind::Resource, r.info.uri.clone()), here.clone()));
    }
    for t in &items.templates {
        out.push((
            (PrimitiveKind::ResourceTemplate, t.info.uri_template.clone()),
            here.clone(),
        ));
    }
    for p in &items.prompts {
        out.push(((PrimitiveKind::Prompt, p.info.name.clone()), here.clone()));
    }
    out
}

/// Takes the items of the mounts in process into `items`; returns the remote mounts.
pub(crate) fn take(items: &mut Items, mounts: Vec<(String, Mount)>) -> Result<Mounts, BuildError> {
    let mut remote = Vec::new();
    let mut all = Vec::new();
    let mut taken = origins(items);
    for (prefix, mount) in mounts {
        crate::proxy::Naming::check_prefix(&prefix)
            .map_err(|reason| BuildError::setting("mount", reason))?;
        let (backend, local) = mount.into_backend(&prefix);
        if all.iter().any(|b: &SharedBackend| b.name == backend.name) {
            return Err(BuildError::setting(
                "mount",
                format!(
                    "two mounts are named `{}`: name one with `Mount::name`",
                    backend.name
                ),
            ));
        }
        all.push(backend.clone());
        let Some(local_items_of) = local else {
            let views = backend
                .client
                .needs_caller_token()
                .then(|| Arc::new(Views::new(backend.clone(), FRESH_MIN)));
            remote.push(RemoteMount {
                backend,
                owned: Mutex::new(Vec::new()),
                listening: AtomicBool::new(false),
                views,
            });
            continue;
        };
        let origin = format!("mounted from `{}`", backend.name);
        let (made, skills) = local_items(&backend, &local_items_of)
            .map_err(|reason| BuildError::setting("mount", reason))?;
        items.skills.extend(skills);
        for item in made {
            let k = key(&item);
            if let Some((_, other)) = taken.iter().find(|(t, _)| *t == k) {
                return Err(BuildError::setting(
                    "mount",
                    format!(
                        "the {} `{}` is both {other} and {origin}: mount one of them under a prefix (or with `Uris::Prefix`)",
                        kind_word(k.0),
                        k.1
                    ),
                ));
            }
            taken.push((k, origin.clone()));
            items.push(item);
        }
    }
    Ok(Mounts {
        remote,
        all,
        started: AtomicBool::new(false),
    })
}

impl RemoteMount {
    /// The listen filter's names of the lists it serves here.
    fn lists(&self) -> Vec<&'static str> {
        let owned = self.owned.lock().unwrap_or_else(|p| p.into_inner());
        let mut lists = Vec::new();
        for (kind, _) in owned.iter() {
            let list = match kind {
                PrimitiveKind::Tool => "toolsListChanged",
                PrimitiveKind::Prompt => "promptsListChanged",
                _ => "resourcesListChanged",
            };
            if !lists.contains(&list) {
                lists.push(list);
            }
        }
        lists
    }
}

impl Mounts {
    pub(crate) fn any_remote(&self) -> bool {
        !self.remote.is_empty()
    }
}

impl Server {
    /// Fetches the lists of every remote mount now and swaps in what each serves (a mount that
    /// does not answer keeps what it had, and its requests fail with an error naming it).
    /// Serving does this on start and whenever a mount's lists go stale; call it yourself when
    /// you serve through [`handle_message`](Server::handle_message) alone.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let server = mcp_runtime::Server::builder().build().unwrap();
    /// server.refresh_mounts().await; // no mounts: nothing to do
    /// # }
    /// ```
    pub async fn refresh_mounts(&self) {
        let mut fetches = tokio::task::JoinSet::new();
        for index in 0..self.mounts.remote.len() {
            let server = self.clone();
            fetches.spawn(async move { server.refresh_one(&server.mounts.remote[index]).await });
        }
        while fetches.join_next().await.is_some() {}
    }

    async fn refresh_one(&self, mount: &RemoteMount) -> Option<Duration> {
        match fetch(&mount.backend).await {
            Ok(mut fetched) => {
                let fresh = fetched.fresh_for;
                let fresh = fresh.unwrap_or(FRESH_MAX).clamp(FRESH_MIN, FRESH_MAX);
                if let Some(views) = &mount.views {
                    views.record_anonymous(std::mem::take(&mut fetched.items), fresh);
                }
                swap_in(&self.dispatcher, &self.mounts, mount, fetched, false);
                Some(fresh)
            }
            Err(e) => {
                tracing::warn!(
                    target: "mcp_runtime::proxy",
                    mount = %mount.backend.name,
                    server = mount.backend.client.server(),
                    error = %e,
                    "a mounted server's lists could not be fetched"
                );
                None
            }
        }
    }

    /// The first fetch of the remote mounts (waited for up to 10 s) and the task that keeps
    /// them fresh; once per server.
    pub(crate) async fn start_mounts(&self) {
        if !self.mounts.any_remote() || self.mounts.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let _ = tokio::time::timeout(FIRST_FETCH, self.refresh_mounts()).await;
        for index in 0..self.mounts.remote.len() {
            let listener = self.clone();
            let halt = self.dispatcher.shutdown.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = listener.follow_changes(index) => {}
                    () = halt.cancelled() => {}
                }
            });
            let server = self.clone();
            let halt = self.dispatcher.shutdown.clone();
            tokio::spawn(async move {
                let mut wait = RETRY;
                loop {
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = halt.cancelled() => return,
                    }
                    let mount = &server.mounts.remote[index];
                    wait = match server.refresh_one(mount).await {
                        // Its listen stream says when the lists change.
                        Some(_) if mount.listening.load(Ordering::Relaxed) => FRESH_MAX,
                        Some(fresh) => fresh,
                        None => RETRY,
                    };
                }
            });
        }
    }
}

/// Serves what `fetched` holds of `mount` in place of what it served (with the union of the
/// views of a mount that passes its callers' tokens on; its skills kept when `keep_skills`).
fn swap_in(
    d: &Dispatcher,
    mounts: &Mounts,
    mount: &RemoteMount,
    fetched: Fetched,
    keep_skills: bool,
) {
    for problem in &fetched.problems {
        tracing::warn!(target: "mcp_runtime::proxy", mount = %mount.backend.name, "{problem}");
    }
    let mut owned = mount.owned.lock().unwrap_or_else(|p| p.into_inner());
    // Made under the lock: two swaps of one mount cannot cross.
    let mut fetched = fetched;
    if let Some(views) = &mount.views {
        fetched.items = views.items();
    }
    let previous: HashSet<(PrimitiveKind, String)> = owned.iter().cloned().collect();
    let mut now = Vec::new();
    let origin = format!("mounted from `{}`", mount.backend.name);
    let relays_tasks = mounts.remote.iter().any(|m| {
        m.backend
            .offers_tasks
            .load(std::sync::atomic::Ordering::Relaxed)
    });
    let skills = fetched.skills;
    let skills_origin = format!("the skills of the mounted server `{}`", mount.backend.name);
    let changed = d.catalog.change(|items| {
        items.relays_tasks = relays_tasks;
        if !keep_skills {
            items
                .skills
                .retain(|set| set.declared.origin() != skills_origin);
            if let Some(set) = skills {
                items.skills.push(set);
            }
        }
        for (kind, key) in &previous {
            items.remove(*kind, key);
        }
        let taken = origins(items);
        for item in fetched.items {
            let k = key(&item);
            if let Some((_, other)) = taken.iter().find(|(t, _)| *t == k) {
                tracing::error!(
                    target: "mcp_runtime::proxy",
                    "the {} `{}` is both {other} and {origin}: the mounted one is not served",
                    kind_word(k.0),
                    k.1
                );
                continue;
            }
            now.push(k);
            items.push(item);
        }
        true
    });
    match changed {
        Ok(_) => {
            let before: HashSet<_> = previous;
            let after: HashSet<_> = now.iter().cloned().collect();
            *owned = now;
            if before != after {
                d.changes.publish(crate::bus::Change::ToolsListChanged);
                d.changes.publish(crate::bus::Change::ResourcesListChanged);
                d.changes.publish(crate::bus::Change::PromptsListChanged);
            }
        }
        Err(e) => tracing::error!(
            target: "mcp_runtime::proxy",
            mount = %mount.backend.name,
            "a mounted server's lists do not build: {e}"
        ),
    }
}

impl Server {
    /// Listens to a remote mount's changes (`subscriptions/listen`): its lists fetched again on
    /// each list change, and the updates of its fixed resources (when it serves subscriptions)
    /// published as this server's. The stream is opened again when it ends (after a pause) or
    /// when the mount's resources changed; a server that serves no listen streams is left to
    /// its lists' `ttlMs`.
    async fn follow_changes(&self, index: usize) {
        let mount = &self.mounts.remote[index];
        loop {
            let uris = self.subscribable(mount);
            let mut filter = serde_json::json!({
                "toolsListChanged": true,
                "promptsListChanged": true,
                "resourcesListChanged": true,
            });
            if !uris.is_empty() {
                filter["resourceSubscriptions"] = serde_json::json!(uris);
            }
            let mut reopen = false;
            match mount.backend.client.listen(filter).await {
                Ok(mut stream) => {
                    while let Some(note) = stream.next().await {
                        match note["method"].as_str().unwrap_or_default() {
                            "notifications/subscriptions/acknowledged" => {
                                let honoured = &note["params"]["notifications"];
                                let all = mount.lists().iter().all(|l| honoured[*l] == true);
                                mount.listening.store(all, Ordering::Relaxed);
                            }
                            "notifications/resources/updated" => {
                                if let Some(uri) = note["params"]["uri"].as_str() {
                                    self.notify_resource_updated(mount.backend.naming.uri(uri));
                                }
                            }
                            _ => {
                                self.refresh_one(mount).await;
                                if self.subscribable(mount) != uris {
                                    reopen = true;
                                    break;
                                }
                            }
                        }
                    }
                }
                Err(e) if e.code() == Some(-32601) => return,
                Err(_) => {}
            }
            mount.listening.store(false, Ordering::Relaxed);
            if !reopen {
                tokio::time::sleep(RETRY).await;
            }
        }
    }

    /// The mounted server's URIs of the fixed resources it serves here, when it serves
    /// subscriptions.
    fn subscribable(&self, mount: &RemoteMount) -> Vec<String> {
        if !mount
            .backend
            .offers_subscribe
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return Vec::new();
        }
        let owned = mount.owned.lock().unwrap_or_else(|p| p.into_inner());
        let mut uris: Vec<String> = owned
            .iter()
            .filter(|(kind, _)| *kind == PrimitiveKind::Resource)
            .map(|(_, uri)| mount.backend.naming.backend_uri(uri))
            .collect();
        uris.sort();
        uris
    }
}

impl From<Server> for Mount {
    /// A server of this crate, mounted in process: its items as registered now.
    fn from(server: Server) -> Mount {
        let items = server.read_items(|items| Box::new(items.clone()));
        Mount::local(
            Box::new(crate::client::Client::new(server.clone())),
            server.info().name.clone(),
            items,
        )
    }
}

/// Shared with the builder: whether any mount is remote (lists then change while serving).
pub(crate) fn has_remote(mounts: &[(String, Mount)]) -> bool {
    mounts
        .iter()
        .any(|(_, m)| matches!(m.upstream, crate::proxy::Upstream::Remote(_)))
}

/// Fetches the views of a caller of the mounts that pass its token on, before its request is
/// handled (`dispatch/caller_views.rs`); what a new view brings joins the served union.
pub(crate) struct ViewsOfCallers {
    pub(crate) dispatcher: Weak<Dispatcher>,
    pub(crate) mounts: Weak<Mounts>,
}

impl Mounts {
    /// Whether a mount passes its callers' tokens on (its items then depend on the caller).
    pub(crate) fn any_views(&self) -> bool {
        self.remote.iter().any(|m| m.views.is_some())
    }
}

/// How long a caller's first request waits for its view of a mount (the fetch goes on after):
/// a mounted server slow to answer delays nothing else for longer.
const FIRST_VIEW_WAIT: Duration = Duration::from_secs(2);

impl CallerViews for ViewsOfCallers {
    fn ready(&self, caller: Option<&Arc<Caller>>) -> Option<BoxFuture<'static, ()>> {
        let caller = caller?;
        caller.token()?;
        let mounts = self.mounts.upgrade()?;
        let mut waits = Vec::new();
        for (index, mount) in mounts.remote.iter().enumerate() {
            let Some(views) = &mount.views else { continue };
            let standing = views.standing(caller);
            if matches!(standing, Standing::Fresh) {
                continue;
            }
            let (d, m, caller) = (self.dispatcher.clone(), self.mounts.clone(), caller.clone());
            let fetch = tokio::spawn(fetch_view(d, m, index, caller));
            if matches!(standing, Standing::Missing) {
                waits.push(fetch);
            }
        }
        if waits.is_empty() {
            return None;
        }
        Some(Box::pin(async move {
            let all = async {
                for fetch in waits {
                    let _ = fetch.await;
                }
            };
            let _ = tokio::time::timeout(FIRST_VIEW_WAIT, all).await;
        }))
    }
}

/// Fetches the caller's view of the mount at `index`; what it brings that is new joins the
/// served union.
async fn fetch_view(d: Weak<Dispatcher>, mounts: Weak<Mounts>, index: usize, caller: Arc<Caller>) {
    let (Some(d), Some(mounts)) = (d.upgrade(), mounts.upgrade()) else {
        return;
    };
    let mount = &mounts.remote[index];
    let Some(views) = &mount.views else { return };
    let (_, fetched) = views.view_of(&caller).await;
    let served: HashSet<Key> = mount
        .owned
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .cloned()
        .collect();
    if fetched && views.union() != served {
        let fetched = Fetched {
            items: Vec::new(),
            problems: Vec::new(),
            fresh_for: None,
            skills: None,
        };
        swap_in(&d, &mounts, mount, fetched, true);
    }
}
