//! The skills of a registry snapshot: each skill's entry and requirement (for `skills/list` and
//! `skills/get`), the resources its files become, and its folders as directory resources (for
//! `resources/directory/read`), the folders above skills included.
//!
//! A skill may hold others in its folder (nested skills). A caller who may read the outer skill
//! but not a nested one is shown the outer one as if the nested one were not there: neither its
//! folder in a directory nor its files in the outer skill's entry. What a nested skill requires
//! beyond the outer one is worked out here once, so that a server without such skills checks
//! nothing more per request.

use super::data::{SkillData, directory_json};
use super::declared::SkillSet;
use crate::config::CacheHint;
use crate::error::BuildError;
use crate::registry::access::{ListGuard, Requirement};
use crate::registry::kind::NameIndex;
use crate::registry::resource::Resource;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::Arc;

/// One skill as served.
pub(crate) struct SkillEntry {
    pub(crate) data: Arc<SkillData>,
    /// What a caller needs to see it, get it and read its files.
    pub(crate) access: Requirement,
    /// The caching hint of `skills/get` and of reads of its files.
    pub(crate) cache: Option<CacheHint>,
    /// The skills inside its folder, at any depth.
    pub(crate) nested: Vec<Nested>,
    /// What those require beyond this skill.
    nested_guard: NestedGuard,
}

/// A skill inside another's folder.
pub(crate) struct Nested {
    /// Its position in [`SkillIndex::entries`].
    pub(crate) skill: usize,
    /// Its folder below the outer skill's, as on disk (`secret`, `refs/secret`).
    pub(crate) rel: String,
}

/// Whether some nested skills require more than the skill (or folder) around them.
#[derive(Default, Clone, Copy)]
struct NestedGuard {
    /// There is a nested skill (a server's `policy` is asked of each).
    any: bool,
    /// Some nested skill requires a scope the outer one does not, or has a custom check.
    beyond: ListGuard,
}

impl NestedGuard {
    fn add(&mut self, inner: &Requirement, outer: &Requirement) {
        self.any = true;
        self.beyond.scoped |= inner.scopes.iter().any(|s| !outer.scopes.contains(s));
        self.beyond.checked |= inner.check.is_some();
    }

    /// `scoped`: a caller of the outer skill may lack a nested one's scopes; `checked`: custom
    /// checks (a nested skill's, or the server's `policy`) decide whether it may read one.
    /// Neither: whoever may read the outer skill may read every nested one.
    fn with_policy(self, policy: bool) -> ListGuard {
        ListGuard {
            scoped: self.beyond.scoped,
            checked: self.beyond.checked || (policy && self.any),
        }
    }
}

impl SkillEntry {
    /// Whether what this skill shows (its entry's files) depends on the caller beyond its own
    /// requirement, through the skills nested in it; `policy`: the server has one.
    pub(crate) fn nested_guard(&self, policy: bool) -> ListGuard {
        self.nested_guard.with_policy(policy)
    }

    /// Its entry as shown to a caller who may read the skills `readable` says (by position):
    /// the files of every nested skill it may not read left out. `None` when nothing is left
    /// out (the entry as written).
    pub(crate) fn entry_for(&self, readable: impl Fn(usize) -> bool) -> Option<String> {
        let hidden: Vec<&str> = self
            .nested
            .iter()
            .filter(|n| !readable(n.skill))
            .map(|n| n.rel.as_str())
            .collect();
        (!hidden.is_empty()).then(|| self.data.entry_without(&hidden))
    }
}

/// A direct child of a directory resource.
pub(crate) struct DirChild {
    pub(crate) uri: String,
    /// Its resource metadata (a file's as `resources/list` shows it, or a directory's).
    pub(crate) json: Box<RawValue>,
    /// The skills it belongs to or holds (positions in [`SkillIndex::entries`]): in a folder
    /// above every skill, a child is shown to a caller who may read one of them.
    pub(crate) skills: Vec<usize>,
    /// The skill whose own folder it is. In a folder inside a skill, that is a nested skill:
    /// the child is shown only to a caller who may read it.
    pub(crate) folder_of: Option<usize>,
}

/// A directory resource.
#[derive(Default)]
pub(crate) struct DirEntry {
    /// The innermost skill whose folder holds it (or is it); `None` above every skill.
    pub(crate) owner: Option<usize>,
    /// Its direct children, by URI.
    pub(crate) children: Vec<DirChild>,
    /// What the skills whose folders are among its children require beyond the owner.
    nested_guard: NestedGuard,
}

impl DirEntry {
    /// Whether which children are shown depends on the caller beyond the owner's requirement
    /// (some child is a nested skill's folder); `policy`: the server has one.
    pub(crate) fn nested_guard(&self, policy: bool) -> ListGuard {
        self.nested_guard.with_policy(policy)
    }
}

/// Every skill of a snapshot.
#[derive(Default)]
pub(crate) struct SkillIndex {
    pub(crate) entries: Vec<Arc<SkillEntry>>,
    /// Position in `entries` by the URI of the skill's `SKILL.md`.
    pub(crate) by_uri: NameIndex,
    pub(crate) dirs: HashMap<String, DirEntry, fnv::FnvBuildHasher>,
    /// Whether the list depends on the caller.
    pub(crate) guard: ListGuard,
}

impl SkillIndex {
    /// The skills of `sets` that are `enabled`, the resources their files are served as, and
    /// the problems found (two skills of one name).
    pub(crate) fn build(
        sets: &[SkillSet],
        enabled: impl Fn(&str) -> bool,
    ) -> (SkillIndex, Vec<Resource>, Vec<BuildError>) {
        let mut index = SkillIndex::default();
        let mut errors = Vec::new();
        let mut names: HashMap<&str, &str> = HashMap::new();
        let mut entries = Vec::new();
        for set in sets {
            for data in set.loaded.iter().filter(|s| enabled(&s.name)) {
                if let Some(first) = names.insert(&data.name, &data.path) {
                    errors.push(BuildError::Invalid {
                        kind: "skill",
                        name: data.name.clone(),
                        reason: format!(
                            "two skills have this name, at `{first}` and at `{}`: a server's skill \
                             names must be unique",
                            data.path
                        ),
                        location: None,
                    });
                    continue;
                }
                let access = set.declared.requirement_of(&data.name);
                index.guard.add(&access);
                index.by_uri.insert(data.uri.clone(), entries.len());
                entries.push(SkillEntry {
                    data: data.clone(),
                    access,
                    cache: set.declared.cache,
                    nested: Vec::new(),
                    nested_guard: NestedGuard::default(),
                });
            }
        }
        nest(&mut entries);
        index.entries = entries.into_iter().map(Arc::new).collect();
        let resources = index.resources();
        index.index_dirs(&resources);
        (index, resources, errors)
    }

    /// The innermost skill holding `path` (a path below the root, `/`-separated): the skill at
    /// the path itself, or at the nearest folder above it.
    fn owner_of(&self, by_path: &HashMap<&str, usize>, path: &str) -> Option<usize> {
        let mut at = path;
        loop {
            if let Some(&i) = by_path.get(at) {
                return Some(i);
            }
            at = at.rsplit_once('/')?.0;
        }
    }

    fn by_path(&self) -> HashMap<&str, usize> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.data.path.as_str(), i))
            .collect()
    }

    /// Each file once, as the resource of the innermost skill holding it.
    fn resources(&self) -> Vec<Resource> {
        let by_path = self.by_path();
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for entry in &self.entries {
            let data = &entry.data;
            for (i, file) in data.files.iter().enumerate() {
                if !seen.insert(file.uri.clone()) {
                    continue;
                }
                let owner = self
                    .owner_of(&by_path, &format!("{}/{}", data.path, file.rel))
                    .map_or(entry.clone(), |o| self.entries[o].clone());
                let is_skill_md = file.rel == super::data::rules::SKILL_MD;
                let mut resource = Resource::new(&file.uri, file.name())
                    .mime_type(file.mime)
                    .size(file.size);
                if is_skill_md {
                    resource = Resource::new(&file.uri, &data.name)
                        .description(&data.description)
                        .mime_type(file.mime)
                        .size(file.size);
                }
                resource.access = owner.access.clone();
                resource.cache = owner.cache;
                let data = data.clone();
                out.push(
                    resource
                        .handler(move |_read| std::future::ready(data.files[i].contents.clone())),
                );
            }
        }
        out
    }

    /// Every folder of every skill, and the folders above them, with their children.
    fn index_dirs(&mut self, resources: &[Resource]) {
        let file_json: HashMap<&str, Box<RawValue>> = resources
            .iter()
            .map(|r| {
                let json = serde_json::value::to_raw_value(r.info()).unwrap_or_default();
                (r.uri(), json)
            })
            .collect();
        let mut dirs: HashMap<String, DirEntry, fnv::FnvBuildHasher> = HashMap::default();
        let add = |dirs: &mut HashMap<String, DirEntry, fnv::FnvBuildHasher>,
                   parent: String,
                   uri: String,
                   json: &dyn Fn() -> Box<RawValue>,
                   skill: usize| {
            let entry = dirs.entry(parent).or_default();
            match entry.children.iter_mut().find(|c| c.uri == uri) {
                Some(child) => {
                    if !child.skills.contains(&skill) {
                        child.skills.push(skill);
                    }
                }
                None => entry.children.push(DirChild {
                    uri,
                    json: json(),
                    skills: vec![skill],
                    folder_of: None,
                }),
            }
        };
        for (i, entry) in self.entries.iter().enumerate() {
            let data = &entry.data;
            // The folders above the skill.
            let segments: Vec<&str> = data.path.split('/').collect();
            for k in 1..segments.len() {
                let parent = super::data::rules::uri(&segments[..k].join("/"), "");
                let child = super::data::rules::uri(&segments[..=k].join("/"), "");
                let name = segments[k];
                add(
                    &mut dirs,
                    parent,
                    child.clone(),
                    &|| directory_json(&child, name),
                    i,
                );
            }
            // Its own folder, as a child of the folder around it.
            if let Some(child) = dirs
                .get_mut(&parent_uri(&segments))
                .and_then(|parent| parent.children.iter_mut().find(|c| c.uri == data.dir_uri()))
            {
                child.folder_of = Some(i);
            }
            dirs.entry(data.dir_uri()).or_default();
            // Its own folders and files.
            for rel in &data.dirs {
                let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel));
                let uri = data.subdir_uri(rel);
                dirs.entry(uri.clone()).or_default();
                add(
                    &mut dirs,
                    data.subdir_uri(parent),
                    uri.clone(),
                    &|| directory_json(&uri, name),
                    i,
                );
            }
            for file in &data.files {
                let parent = file.rel.rsplit_once('/').map_or("", |(p, _)| p);
                let Some(json) = file_json.get(file.uri.as_str()) else {
                    continue;
                };
                add(
                    &mut dirs,
                    data.subdir_uri(parent),
                    file.uri.clone(),
                    &|| json.clone(),
                    i,
                );
            }
        }
        let by_path = self.by_path();
        for (uri, dir) in &mut dirs {
            let path = uri.strip_prefix(super::data::rules::SCHEME).unwrap_or(uri);
            dir.owner = self.owner_of(&by_path, path);
            dir.children.sort_by(|a, b| a.uri.cmp(&b.uri));
            let Some(owner) = dir.owner else { continue };
            for child in &dir.children {
                if let Some(inner) = child.folder_of.filter(|&inner| inner != owner) {
                    let (inner, outer) = (&self.entries[inner], &self.entries[owner]);
                    dir.nested_guard.add(&inner.access, &outer.access);
                }
            }
        }
        self.dirs = dirs;
    }

    /// What `skills/get` of `uri` requires, when a skill is served there.
    pub(crate) fn get_access(&self, uri: &str) -> Option<&Requirement> {
        let &at = self.by_uri.get(uri)?;
        self.entries.get(at).map(|e| &e.access)
    }

    /// What `resources/directory/read` of `uri` requires, when it is a folder inside a skill:
    /// that skill's requirement. (A folder above every skill refuses no one: it shows each
    /// caller the children holding a skill it may read.)
    pub(crate) fn directory_access(&self, uri: &str) -> Option<&Requirement> {
        let owner = self.dirs.get(uri)?.owner?;
        self.entries.get(owner).map(|e| &e.access)
    }

    /// The entries `skills/list` shows a caller who sees the skills `visible` says (by
    /// position): for each skill, its entry without the nested skills the caller may not see,
    /// `None` where that is the entry as written. Empty when nothing is left out anywhere.
    pub(crate) fn entries_for(&self, visible: &[bool]) -> Vec<Option<Box<RawValue>>> {
        let seen = |i: usize| visible.get(i).copied().unwrap_or(false);
        let mut out = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            if entry.nested.is_empty() || !seen(i) {
                continue;
            }
            if let Some(json) = entry.entry_for(seen) {
                out.resize_with(self.entries.len(), || None);
                // Written from the entry's own JSON and serde's strings: always valid.
                out[i] = Some(RawValue::from_string(json).unwrap_or_default());
            }
        }
        out
    }

    /// The entry of `entry` in a list: its trimmed one from `trimmed` (what
    /// [`entries_for`](Self::entries_for) made), else its own.
    pub(crate) fn listed_entry<'a>(
        &self,
        trimmed: &'a [Option<Box<RawValue>>],
        entry: &'a SkillEntry,
    ) -> &'a RawValue {
        if trimmed.is_empty() {
            return &entry.data.entry;
        }
        match self
            .by_uri
            .get(&entry.data.uri)
            .and_then(|&i| trimmed.get(i))
        {
            Some(Some(json)) => json,
            _ => &entry.data.entry,
        }
    }
}

/// The URI of the folder around the skill whose path is `segments` (`skill://` for a skill at
/// the root).
fn parent_uri(segments: &[&str]) -> String {
    let above = segments.len().saturating_sub(1);
    super::data::rules::uri(&segments[..above].join("/"), "")
}

/// Records, in each skill, the skills inside its folder and what they require beyond it.
fn nest(entries: &mut [SkillEntry]) {
    let by_path: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.data.path.clone(), i))
        .collect();
    let mut pairs = Vec::new();
    for (inner, entry) in entries.iter().enumerate() {
        let path = entry.data.path.as_str();
        let mut at = path;
        while let Some((up, _)) = at.rsplit_once('/') {
            at = up;
            if let Some(&outer) = by_path.get(at) {
                pairs.push((outer, inner, path[at.len() + 1..].to_owned()));
            }
        }
    }
    for (outer, inner, rel) in pairs {
        let required = entries[inner].access.clone();
        let entry = &mut entries[outer];
        entry.nested_guard.add(&required, &entry.access);
        entry.nested.push(Nested { skill: inner, rel });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::skills::data::FileInput;
    use crate::registry::skills::declared::Skills;

    /// A skill at `path` with these files (`SKILL.md` first) and folders.
    fn skill(path: &str, files: &[&str], dirs: &[&str]) -> Arc<SkillData> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let files: Vec<FileInput<'_>> = files
            .iter()
            .map(|rel| FileInput {
                rel,
                bytes: b"x",
                digest: "sha256:00",
                mime: "text/markdown",
                text: true,
            })
            .collect();
        let dirs = dirs.iter().map(|d| (*d).to_owned()).collect();
        Arc::new(SkillData::new(path, name, "d", "{}", &files, dirs))
    }

    fn index(declared: Skills) -> SkillIndex {
        let loaded = vec![
            skill(
                "outer",
                &["SKILL.md", "inner/SKILL.md", "innerx.md"],
                &["inner"],
            ),
            skill("outer/inner", &["SKILL.md"], &[]),
        ];
        let set = SkillSet {
            declared,
            loaded: Arc::new(loaded),
        };
        let (index, _, errors) = SkillIndex::build(&[set], |_| true);
        assert!(errors.is_empty());
        index
    }

    fn guard(g: ListGuard) -> (bool, bool) {
        (g.scoped, g.checked)
    }

    #[test]
    fn nested_skills_cost_nothing_unless_they_require_more_than_the_outer_one() {
        // The set's scopes hold for both: whoever reads the outer one reads the inner one.
        let same = index(Skills::embedded("unused", &[]).scopes(["skills:read"]));
        let outer = &same.entries[0];
        assert_eq!(outer.nested.len(), 1);
        assert_eq!(guard(outer.nested_guard(false)), (false, false));
        assert_eq!(
            guard(same.dirs["skill://outer"].nested_guard(false)),
            (false, false)
        );
        // A server's policy is asked of every skill.
        assert_eq!(guard(outer.nested_guard(true)), (false, true));
        // No nested skill: nothing, whatever the policy.
        assert_eq!(guard(same.entries[1].nested_guard(true)), (false, false));

        let more = index(Skills::embedded("unused", &[]).skill_scopes("inner", ["vault:read"]));
        assert_eq!(guard(more.entries[0].nested_guard(false)), (true, false));
        let dir = &more.dirs["skill://outer"];
        assert_eq!(guard(dir.nested_guard(false)), (true, false));
        let child = dir.children.iter().find(|c| c.uri == "skill://outer/inner");
        assert_eq!(child.and_then(|c| c.folder_of), Some(1));
    }

    #[test]
    fn an_entry_leaves_out_exactly_the_files_of_the_hidden_nested_skill() {
        let index = index(Skills::embedded("unused", &[]));
        let outer = &index.entries[0];
        assert!(outer.entry_for(|_| true).is_none(), "nothing left out");
        let shown = outer.entry_for(|_| false).unwrap_or_default();
        let json: serde_json::Value = serde_json::from_str(&shown).unwrap_or_default();
        let uris: Vec<&str> = json["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["uri"].as_str())
            .collect();
        assert_eq!(uris, ["skill://outer/SKILL.md", "skill://outer/innerx.md"]);
        // Nothing hidden: byte for byte the entry written once.
        assert_eq!(outer.data.entry_without(&[]), outer.data.entry.get());
    }
}
