//! The skills of a registry snapshot: each skill's entry and requirement (for `skills/list` and
//! `skills/get`), the resources its files become, and its folders as directory resources (for
//! `resources/directory/read`), the folders above skills included.

use super::access::{ListGuard, Requirement};
use super::kind::NameIndex;
use super::resource::Resource;
use super::skills::SkillSet;
use crate::config::CacheHint;
use crate::error::BuildError;
use crate::skills::{SkillData, directory_json};
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
}

/// A direct child of a directory resource.
pub(crate) struct DirChild {
    pub(crate) uri: String,
    /// Its resource metadata (a file's as `resources/list` shows it, or a directory's).
    pub(crate) json: Box<RawValue>,
    /// The skills it belongs to or holds (positions in [`SkillIndex::entries`]): in a folder
    /// above every skill, a child is shown to a caller who may read one of them.
    pub(crate) skills: Vec<usize>,
}

/// A directory resource.
#[derive(Default)]
pub(crate) struct DirEntry {
    /// The innermost skill whose folder holds it (or is it); `None` above every skill.
    pub(crate) owner: Option<usize>,
    /// Its direct children, by URI.
    pub(crate) children: Vec<DirChild>,
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
                index.by_uri.insert(data.uri.clone(), index.entries.len());
                index.entries.push(Arc::new(SkillEntry {
                    data: data.clone(),
                    access,
                    cache: set.declared.cache,
                }));
            }
        }
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
                let is_skill_md = file.rel == crate::skills::rules::SKILL_MD;
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
                }),
            }
        };
        for (i, entry) in self.entries.iter().enumerate() {
            let data = &entry.data;
            // The folders above the skill.
            let segments: Vec<&str> = data.path.split('/').collect();
            for k in 1..segments.len() {
                let parent = crate::skills::rules::uri(&segments[..k].join("/"), "");
                let child = crate::skills::rules::uri(&segments[..=k].join("/"), "");
                let name = segments[k];
                add(
                    &mut dirs,
                    parent,
                    child.clone(),
                    &|| directory_json(&child, name),
                    i,
                );
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
            let path = uri
                .strip_prefix(crate::skills::rules::SCHEME)
                .unwrap_or(uri);
            dir.owner = self.owner_of(&by_path, path);
            dir.children.sort_by(|a, b| a.uri.cmp(&b.uri));
        }
        self.dirs = dirs;
    }
}
