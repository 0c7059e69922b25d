//! The mounts of a server: those in process taken into its items at build (a name or URI
//! already taken is a build error naming both origins), and the remote ones fetched when serving
//! starts, then again whenever their lists go stale, each fetch swapping in what the mount
//! serves now (a name taken by another origin is skipped with an error naming both).

use super::views::{Standing, Views};
use crate::context::Caller;
use crate::dispatch::{CallerViews, Dispatcher};
use crate::error::BuildError;
use crate::proxy::{Fetched, Key, Mount, SharedBackend, key, local_items};
use crate::registry::{BoxFuture, Items, PrimitiveKind};
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// A remote mount and the items it added last.
pub(crate) struct RemoteMount {
    pub(super) backend: SharedBackend,
    pub(super) owned: Mutex<Vec<Key>>,
    /// Its listen stream is open and reports its list changes: the lists are fetched on each,
    /// and only seldom besides.
    pub(super) listening: AtomicBool,
    /// Each caller's view, when it passes its callers' tokens on (`views.rs`).
    pub(super) views: Option<Arc<Views>>,
}

/// The remote mounts of a server.
#[derive(Default)]
pub(crate) struct Mounts {
    pub(super) remote: Vec<RemoteMount>,
    /// Every mount, in process or remote (their tasks are relayed by name).
    pub(crate) all: Vec<SharedBackend>,
    pub(super) started: AtomicBool,
}

/// How long serving waits for the first fetch of the remote mounts before it starts anyway.
pub(super) const FIRST_FETCH: Duration = Duration::from_secs(10);
/// Bounds of the interval between fetches of one mount (its lists' `ttlMs`, clamped; a `ttlMs`
/// of 0 asks for no caching, not for a fetch every moment).
pub(super) const FRESH_MIN: Duration = Duration::from_secs(5);
pub(super) const FRESH_MAX: Duration = Duration::from_secs(300);
/// After a failed fetch.
pub(super) const RETRY: Duration = Duration::from_secs(2);

pub(super) fn kind_word(kind: PrimitiveKind) -> &'static str {
    match kind {
        PrimitiveKind::Tool => "tool",
        PrimitiveKind::Resource => "resource",
        PrimitiveKind::ResourceTemplate => "resource template",
        PrimitiveKind::Prompt => "prompt",
        PrimitiveKind::Skill => "skill",
    }
}

/// The keys of every item, each with where it came from.
pub(super) fn origins(items: &Items) -> Vec<((PrimitiveKind, String), String)> {
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
    pub(super) fn lists(&self) -> Vec<&'static str> {
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

/// Shared with the builder: whether any mount is remote (lists then change while serving).
pub(crate) fn has_remote(mounts: &[(String, Mount)]) -> bool {
    mounts
        .iter()
        .any(|(_, m)| matches!(m.upstream, crate::proxy::Upstream::Remote(_)))
}

/// Fetches the views of a caller of the mounts that pass its token on, before its request is
/// handled (`dispatch/mounted.rs`); what a new view brings joins the served union.
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
pub(super) const FIRST_VIEW_WAIT: Duration = Duration::from_secs(2);

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

/// Serves what `fetched` holds of `mount` in place of what it served (with the union of the
/// views of a mount that passes its callers' tokens on; its skills kept when `keep_skills`).
pub(super) fn swap_in(
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

/// The dispatcher told of the mounts: their tasks relayed, their views read per caller.
pub(super) fn plug_in(dispatcher: &Arc<Dispatcher>, mounts: &Arc<Mounts>) {
    if !mounts.all.is_empty() {
        let relay = crate::proxy::TaskRelay {
            ring: dispatcher.sealer.ring.clone(),
            backends: mounts.all.clone(),
        };
        let _ = dispatcher.relayed_tasks.set(Arc::new(relay));
    }
    if mounts.any_views() {
        let views = ViewsOfCallers {
            dispatcher: Arc::downgrade(dispatcher),
            mounts: Arc::downgrade(mounts),
        };
        let _ = dispatcher.caller_views.set(Arc::new(views));
    }
}
