//! A mounted server's skills (the Skills extension) as this server's: each listed skill's files
//! read through the mount and held as a set of this server's skills, so `skills/list`,
//! `skills/get`, `resources/read` of their files and `resources/directory/read` answer as the
//! mounted server does. A skill is its files (SKILL.md and what it names), small and fixed, so
//! they are read when the lists are, not relayed per request.

use super::relay::SharedBackend;
use crate::client::ClientError;
use crate::registry::{FileInput, SkillData, rules};
use crate::registry::{SkillSet, SkillSource, Skills};
use base64::Engine;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The extension's limits on one skill.
const MAX_FILES: usize = 512;
const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Pages of `skills/list` read.
const MAX_PAGES: usize = 100;

/// The mounted server's skills, when its `server/discover` advertises the extension.
pub(crate) async fn fetch_skills(backend: &SharedBackend) -> Result<SkillSet, ClientError> {
    let mut loaded = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            None => json!({}),
            Some(c) => json!({"cursor": c}),
        };
        let mut page = backend.client.request("skills/list", params).await?;
        if let Some(Value::Array(entries)) = page.get_mut("skills").map(Value::take) {
            for entry in entries {
                match skill(backend, &entry).await {
                    Ok(Some(skill)) => loaded.push(Arc::new(skill)),
                    Ok(None) => {}
                    Err(e) if e.is_transport() => return Err(e),
                    Err(e) => tracing::warn!(
                        target: "mcp_runtime::proxy",
                        mount = %backend.name,
                        error = %e,
                        "a mounted server's skill could not be read"
                    ),
                }
            }
        }
        match page["nextCursor"].as_str() {
            Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
            _ => break,
        }
    }
    let origin = format!("the skills of the mounted server `{}`", backend.name);
    Ok(SkillSet {
        declared: Skills::from_source(SkillSource::Relayed { origin }),
        loaded: Arc::new(loaded),
    })
}

/// One listed skill, its files read; `None` when its entry is not one this server can hold.
async fn skill(backend: &SharedBackend, entry: &Value) -> Result<Option<SkillData>, ClientError> {
    let Some(path) = entry["uri"]
        .as_str()
        .and_then(|u| u.strip_prefix("skill://"))
        .and_then(|u| u.strip_suffix(&format!("/{}", rules::SKILL_MD)))
    else {
        return Ok(None);
    };
    let frontmatter = &entry["frontmatter"];
    let name = frontmatter["name"].as_str().unwrap_or_default().to_owned();
    let description = frontmatter["description"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let listed = entry["resources"].as_array().cloned().unwrap_or_default();
    if listed.len() > MAX_FILES {
        return Ok(None);
    }
    let mut total = 0u64;
    let mut files: Vec<(String, Vec<u8>, String, bool)> = Vec::new();
    let own = format!("skill://{path}/");
    for file in &listed {
        let (Some(uri), Some(digest)) = (file["uri"].as_str(), file["digest"].as_str()) else {
            continue;
        };
        let Some(rel) = uri.strip_prefix(&own) else {
            continue;
        };
        let mut read = backend
            .client
            .request("resources/read", json!({"uri": uri}))
            .await?;
        let content = read
            .get_mut("contents")
            .and_then(|c| c.get_mut(0))
            .map(Value::take)
            .unwrap_or(Value::Null);
        let (bytes, text) = match (content["text"].as_str(), content["blob"].as_str()) {
            (Some(text), _) => (text.as_bytes().to_vec(), true),
            (None, Some(blob)) => match base64::engine::general_purpose::STANDARD.decode(blob) {
                Ok(bytes) => (bytes, false),
                Err(_) => continue,
            },
            _ => continue,
        };
        total += bytes.len() as u64;
        if total > MAX_BYTES {
            return Ok(None);
        }
        files.push((rel.to_owned(), bytes, digest.to_owned(), text));
    }
    // SKILL.md first, as a loaded skill holds them.
    files.sort_by_key(|(rel, ..)| rel != rules::SKILL_MD);
    let dirs: BTreeSet<String> = files
        .iter()
        .flat_map(|(rel, ..)| {
            let parts: Vec<&str> = rel.split('/').collect();
            (1..parts.len()).map(move |n| parts[..n].join("/"))
        })
        .collect();
    let inputs: Vec<FileInput<'_>> = files
        .iter()
        .map(|(rel, bytes, digest, text)| FileInput {
            rel,
            bytes,
            digest,
            mime: mcp_runtime_skills::mime::of(rel, bytes),
            text: *text,
        })
        .collect();
    let path = backend.naming.skill_path(path);
    let frontmatter_json = serde_json::to_string(frontmatter).unwrap_or_else(|_| "{}".into());
    Ok(Some(SkillData::new(
        &path,
        &name,
        &description,
        &frontmatter_json,
        &inputs,
        dirs.into_iter().collect(),
    )))
}

/// The skill sets of a server mounted in process, as this server holds them: the same sets
/// (their access included) when URIs are kept, each skill moved under the prefix otherwise.
pub(crate) fn local_skills(backend: &SharedBackend, sets: &[SkillSet]) -> Vec<SkillSet> {
    if backend.naming.skill_path("x") == "x" {
        return sets.to_vec();
    }
    sets.iter()
        .map(|set| {
            let moved = set
                .loaded
                .iter()
                .map(|skill| Arc::new(moved(backend, skill)))
                .collect();
            SkillSet {
                declared: set.declared.clone(),
                loaded: Arc::new(moved),
            }
        })
        .collect()
}

/// `skill` with its path under the mount's prefix.
fn moved(backend: &SharedBackend, skill: &SkillData) -> SkillData {
    let entry: Value = serde_json::from_str(skill.entry.get()).unwrap_or_default();
    let frontmatter_json = entry
        .get("frontmatter")
        .map(Value::to_string)
        .unwrap_or_else(|| "{}".into());
    let bytes: Vec<(Vec<u8>, bool)> = skill
        .files
        .iter()
        .map(|f| match &f.contents.body {
            crate::protocol::ResourceBody::Text(text) => (text.as_bytes().to_vec(), true),
            crate::protocol::ResourceBody::Blob(blob) => (
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .unwrap_or_default(),
                false,
            ),
        })
        .collect();
    let inputs: Vec<FileInput<'_>> = skill
        .files
        .iter()
        .zip(&bytes)
        .map(|(f, (bytes, text))| FileInput {
            rel: &f.rel,
            bytes,
            digest: &f.digest,
            mime: f.mime,
            text: *text,
        })
        .collect();
    SkillData::new(
        &backend.naming.skill_path(&skill.path),
        &skill.name,
        &skill.description,
        &frontmatter_json,
        &inputs,
        skill.dirs.clone(),
    )
}
