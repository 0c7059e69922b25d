//! Watching a skills folder (`Skills::watch`, the `skills` feature): a thread that looks at the
//! folder's names, sizes and modification times every so often, and when they changed reads the
//! folder again (as at startup), swaps the new skills in and tells listen streams: the
//! resources list changed, and each file whose content changed or that went away was updated.
//! A folder that no longer reads as valid skills is logged and the last good tree stays served.
//! The thread ends with the server.

use crate::bus::Change;
use crate::dispatch::Dispatcher;
use crate::registry::SkillSet;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Most entries looked at per look (a larger folder is read whole only when it changes).
const MAX_ENTRIES: usize = 200_000;

/// Starts watching the folder `root` of the server's skill set `set`, last seen as `seen` (its
/// [`fingerprint`] before it was read).
pub(super) fn spawn(d: &Arc<Dispatcher>, set: usize, root: PathBuf, every: Duration, seen: u64) {
    let weak = Arc::downgrade(d);
    let spawned = std::thread::Builder::new()
        .name("mcp-skills-watch".into())
        .spawn(move || {
            let mut last = seen;
            loop {
                std::thread::sleep(every);
                let Some(d) = weak.upgrade() else { return };
                if d.shutdown.is_cancelled() {
                    return;
                }
                let now = fingerprint(&root);
                if now != last {
                    last = now;
                    reload(&d, set, &root);
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(target: "mcp_runtime::skills", error = %e, "cannot watch the skills folder");
    }
}

/// A hash of every entry's path, kind, size and modification time below `root` (links are
/// looked at, not followed).
pub(super) fn fingerprint(root: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    let mut pending = vec![root.to_path_buf()];
    let mut seen = 0;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            dir.hash(&mut hasher);
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            seen += 1;
            if seen > MAX_ENTRIES {
                return hasher.finish();
            }
            let path = entry.path();
            path.hash(&mut hasher);
            if let Ok(meta) = std::fs::symlink_metadata(&path) {
                meta.len().hash(&mut hasher);
                meta.file_type().is_dir().hash(&mut hasher);
                meta.file_type().is_symlink().hash(&mut hasher);
                if let Ok(modified) = meta.modified() {
                    modified.hash(&mut hasher);
                }
                if meta.is_dir() {
                    pending.push(path);
                }
            }
        }
    }
    hasher.finish()
}

/// Reads the set again and serves it, announcing what changed.
fn reload(d: &Dispatcher, set: usize, root: &Path) {
    let Some(declared) = d
        .catalog
        .read_items(|items| items.skills.get(set).map(|s| s.declared.clone()))
    else {
        return;
    };
    let loaded = match declared.load() {
        Ok(loaded) => Arc::new(loaded),
        Err(e) => {
            tracing::warn!(
                target: "mcp_runtime::skills",
                folder = %root.display(),
                "the skills folder changed, but does not read as valid skills; the last good \
                 tree is served: {e}"
            );
            return;
        }
    };
    let digests = |set: &SkillSet| -> HashMap<String, String> {
        set.loaded
            .iter()
            .flat_map(|s| s.files.iter().map(|f| (f.uri.clone(), f.digest.clone())))
            .collect()
    };
    let mut updated = Vec::new();
    let changed = d.catalog.change(|items| {
        let Some(current) = items.skills.get_mut(set) else {
            return false;
        };
        let before = digests(current);
        let next = SkillSet {
            declared: current.declared.clone(),
            loaded: loaded.clone(),
        };
        let after = digests(&next);
        let entries_same = current.loaded.len() == next.loaded.len()
            && current
                .loaded
                .iter()
                .zip(next.loaded.iter())
                .all(|(a, b)| a.entry.get() == b.entry.get());
        if entries_same {
            return false;
        }
        updated = before
            .iter()
            .filter(|(uri, digest)| after.get(*uri) != Some(digest))
            .map(|(uri, _)| uri.clone())
            .collect();
        *current = next;
        true
    });
    match changed {
        Ok(true) => {
            tracing::info!(
                target: "mcp_runtime::skills",
                folder = %root.display(),
                files = updated.len(),
                "the skills folder changed: serving the new tree"
            );
            d.changes.publish(Change::ResourcesListChanged);
            for uri in updated {
                d.changes.publish(Change::ResourceUpdated(uri));
            }
        }
        Ok(false) => {}
        Err(e) => tracing::warn!(
            target: "mcp_runtime::skills",
            folder = %root.display(),
            "the skills folder changed, but the server would not build with it; the last good \
             tree is served: {e}"
        ),
    }
}
