//! Skills as this server holds them once loaded (the Skills extension,
//! `io.modelcontextprotocol/skills`): each skill's files with their contents ready to answer a
//! `resources/read`, and its entry for `skills/list` and `skills/get` written once. Loaded
//! from a folder at startup (`load_dir`, through `mcp-runtime-skills`, with the `skills`
//! feature) or from what `skills!` embedded at compile time ([`load_embedded`]); both go
//! through [`SkillData::new`], so the same tree gives the same bytes on the wire.
//!
//! What a server declares (which folder, who may read which skill) is
//! [`Skills`](super::declared::Skills), beside it.

use super::embedded::EmbeddedSkill;
#[cfg(feature = "skills")]
pub(crate) use mcp_runtime_skills::{ScanLimits, SkillError};

use crate::protocol::{DIRECTORY_MIME_TYPE, ResourceContents};
pub(crate) use mcp_runtime_skills::rules;
use serde_json::value::RawValue;
#[cfg(feature = "skills")]
use std::path::Path;
use std::sync::Arc;

/// One file of a loaded skill.
#[derive(Debug)]
pub(crate) struct SkillFileData {
    /// Its path below the skill's folder, as on disk.
    pub(crate) rel: String,
    pub(crate) uri: String,
    pub(crate) size: u64,
    pub(crate) digest: String,
    pub(crate) mime: &'static str,
    /// What `resources/read` answers.
    pub(crate) contents: ResourceContents,
}

impl SkillFileData {
    /// The file's own name (the last segment of its path).
    pub(crate) fn name(&self) -> &str {
        self.rel.rsplit('/').next().unwrap_or(&self.rel)
    }
}

/// One loaded skill.
#[derive(Debug)]
pub(crate) struct SkillData {
    /// The folders from the skills root to the skill (`acme/billing/refunds`).
    pub(crate) path: String,
    pub(crate) name: String,
    pub(crate) description: String,
    /// The URI of its `SKILL.md`.
    pub(crate) uri: String,
    /// Its entry, as `skills/list` and `skills/get` answer it.
    pub(crate) entry: Box<RawValue>,
    /// Where the list of files starts in `entry` (what comes before it is kept when a
    /// caller is shown fewer files); `None` when the entry could not be written.
    resources_at: Option<usize>,
    /// Its files, `SKILL.md` first.
    pub(crate) files: Vec<SkillFileData>,
    /// The folders below its own.
    pub(crate) dirs: Vec<String>,
}

/// One file, as either way of loading hands it over.
pub(crate) struct FileInput<'a> {
    pub(crate) rel: &'a str,
    pub(crate) bytes: &'a [u8],
    pub(crate) digest: &'a str,
    pub(crate) mime: &'static str,
    pub(crate) text: bool,
}

impl SkillData {
    /// A skill at `path` (whose frontmatter `frontmatter_json` names it `name`), from its files
    /// (`SKILL.md` first) and folders.
    pub(crate) fn new(
        path: &str,
        name: &str,
        description: &str,
        frontmatter_json: &str,
        files: &[FileInput<'_>],
        dirs: Vec<String>,
    ) -> SkillData {
        let uri = rules::uri(path, rules::SKILL_MD);
        let files: Vec<SkillFileData> = files
            .iter()
            .map(|f| {
                let uri = rules::uri(path, f.rel);
                let contents = match (f.text, std::str::from_utf8(f.bytes)) {
                    (true, Ok(text)) => ResourceContents::text(&uri, text),
                    _ => ResourceContents::blob(&uri, f.bytes),
                }
                .mime_type(f.mime);
                SkillFileData {
                    rel: f.rel.to_owned(),
                    size: f.bytes.len() as u64,
                    digest: f.digest.to_owned(),
                    mime: f.mime,
                    contents,
                    uri,
                }
            })
            .collect();
        let (entry, resources_at) = entry_json(&uri, frontmatter_json, &files);
        SkillData {
            path: path.to_owned(),
            name: name.to_owned(),
            description: description.to_owned(),
            uri,
            entry,
            resources_at,
            files,
            dirs,
        }
    }

    /// The URI of the skill's own folder.
    pub(crate) fn dir_uri(&self) -> String {
        rules::uri(&self.path, "")
    }

    /// The URI of its folder `rel` (`""`: its own).
    pub(crate) fn subdir_uri(&self, rel: &str) -> String {
        rules::uri(&self.path, rel)
    }

    /// Its entry without the files inside the folders `hidden` (paths below its own folder,
    /// as on disk): what a caller who may not read the skills nested there is shown.
    pub(crate) fn entry_without(&self, hidden: &[&str]) -> String {
        let entry = self.entry.get();
        // Without a list of files (the entry could not be written) there is nothing to leave out.
        let Some(head) = self.resources_at.and_then(|at| entry.get(..at)) else {
            return entry.to_owned();
        };
        let inside = |rel: &str| {
            hidden
                .iter()
                .any(|folder| rel.strip_prefix(folder).is_some_and(|r| r.starts_with('/')))
        };
        let mut out = String::with_capacity(entry.len());
        out.push_str(head);
        let shown = self.files.iter().filter(|f| !inside(&f.rel));
        for (i, f) in shown.enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_file(&mut out, f);
        }
        out.push_str("]}");
        out
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// `{"uri":…,"digest":…,"size":…}`: one file in an entry.
fn push_file(out: &mut String, f: &SkillFileData) {
    out.push_str("{\"uri\":");
    out.push_str(&json_string(&f.uri));
    out.push_str(",\"digest\":");
    out.push_str(&json_string(&f.digest));
    out.push_str(",\"size\":");
    out.push_str(&f.size.to_string());
    out.push('}');
}

/// `{"uri":…,"frontmatter":…,"resources":[{"uri":…,"digest":…,"size":…},…]}`, written once,
/// and where its list of files starts.
fn entry_json(
    uri: &str,
    frontmatter_json: &str,
    files: &[SkillFileData],
) -> (Box<RawValue>, Option<usize>) {
    let mut out = String::with_capacity(frontmatter_json.len() + 64 + files.len() * 128);
    out.push_str("{\"uri\":");
    out.push_str(&json_string(uri));
    out.push_str(",\"frontmatter\":");
    out.push_str(frontmatter_json);
    out.push_str(",\"resources\":[");
    let resources_at = out.len();
    for (i, f) in files.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_file(&mut out, f);
    }
    out.push_str("]}");
    match RawValue::from_string(out) {
        Ok(entry) => (entry, Some(resources_at)),
        // The frontmatter is JSON written by mcp-runtime-skills; keep a valid value regardless.
        Err(_) => (
            RawValue::from_string("{}".to_owned()).unwrap_or_default(),
            None,
        ),
    }
}

/// The skills of the folder `root`, read now (startup, or a watched folder's change).
#[cfg(feature = "skills")]
pub(crate) fn load_dir(root: &Path, limits: ScanLimits) -> Result<Vec<Arc<SkillData>>, SkillError> {
    let scanned = mcp_runtime_skills::scan(root, limits)?;
    for ignored in &scanned.ignored {
        tracing::debug!(
            target: "mcp_runtime::skills",
            file = %ignored.display(),
            "a file outside every skill is not served"
        );
    }
    Ok(scanned
        .skills
        .iter()
        .map(|skill| {
            let files: Vec<FileInput<'_>> = skill
                .files
                .iter()
                .map(|f| FileInput {
                    rel: &f.rel,
                    bytes: &f.bytes,
                    digest: &f.digest,
                    mime: f.mime,
                    text: f.text,
                })
                .collect();
            Arc::new(SkillData::new(
                &skill.path,
                &skill.frontmatter.name,
                &skill.frontmatter.description,
                &skill.frontmatter.json,
                &files,
                skill.dirs.clone(),
            ))
        })
        .collect())
}

/// The skills `skills!` embedded.
pub(crate) fn load_embedded(skills: &[EmbeddedSkill]) -> Vec<Arc<SkillData>> {
    skills
        .iter()
        .map(|skill| {
            let files: Vec<FileInput<'_>> = skill
                .files
                .iter()
                .map(|f| FileInput {
                    rel: f.rel,
                    bytes: f.bytes,
                    digest: f.digest,
                    mime: f.mime,
                    text: f.text,
                })
                .collect();
            Arc::new(SkillData::new(
                skill.path,
                skill.name,
                skill.description,
                skill.frontmatter,
                &files,
                skill.dirs.iter().map(|d| (*d).to_owned()).collect(),
            ))
        })
        .collect()
}

/// The JSON of a directory resource (a folder child of a directory).
pub(crate) fn directory_json(uri: &str, name: &str) -> Box<RawValue> {
    let string = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let text = format!(
        "{{\"uri\":{},\"name\":{},\"mimeType\":{}}}",
        string(uri),
        string(name),
        string(DIRECTORY_MIME_TYPE)
    );
    RawValue::from_string(text).unwrap_or_default()
}
