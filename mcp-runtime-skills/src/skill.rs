//! A skills folder read into skills: every folder holding a `SKILL.md` is a skill named by its
//! frontmatter, whose files are everything below it (nested skills included, as the extension
//! asks); the folders above a skill are its path's prefix.

use crate::error::SkillError;
use crate::frontmatter::{self, Frontmatter};
use crate::mime;
use crate::rules::{MAX_BYTES, MAX_FILES, SKILL_MD, name_problem, prefix_segment_ok};
use crate::walk::{self, Budget, shown};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// One file of a skill.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillFile {
    /// Its path below the skill's folder, `/`-separated, as named on disk.
    pub rel: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// `sha256:` and the 64 lowercase hexadecimal digits of the SHA-256 of its bytes.
    pub digest: String,
    /// Its MIME type.
    pub mime: &'static str,
    /// Whether it is served as `text` (else as a base64 `blob`).
    pub text: bool,
}

/// One skill.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillDir {
    /// The folders from the root to the skill, `/`-separated (`acme/billing/refunds`); the last
    /// is the skill's name.
    pub path: String,
    /// Its `SKILL.md` frontmatter.
    pub frontmatter: Frontmatter,
    /// Its files: `SKILL.md` first, then the others by path.
    pub files: Vec<SkillFile>,
    /// The folders below its own, `/`-separated, by path.
    pub dirs: Vec<String>,
}

/// A skills folder, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scanned {
    /// The skills, by path.
    pub skills: Vec<SkillDir>,
    /// Files found outside every skill (not served).
    pub ignored: Vec<PathBuf>,
}

/// How much one folder may hold in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanLimits {
    /// Bytes of all files read.
    pub total_bytes: u64,
    /// Skills.
    pub skills: usize,
}

impl Default for ScanLimits {
    /// 256 MiB and 10,000 skills.
    fn default() -> Self {
        ScanLimits {
            total_bytes: 256 * 1024 * 1024,
            skills: 10_000,
        }
    }
}

/// `sha256:` and the lowercase hexadecimal SHA-256 of `bytes`, as the extension writes digests.
///
/// ```
/// use mcp_runtime_skills::digest;
/// assert_eq!(
///     digest(b""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Reads the skills folder `root`: every skill in it, checked against the Agent Skills format
/// and the Skills extension (names, frontmatter, 512 files and 16 MiB per skill), with the
/// digests of their files. The first problem found is the error, naming the file, the skill and
/// the rule.
///
/// ```
/// let root = std::env::temp_dir().join(format!("skills-doc-{}", std::process::id()));
/// std::fs::create_dir_all(root.join("greet")).unwrap();
/// std::fs::write(root.join("greet/SKILL.md"), "---\nname: greet\ndescription: Say hi\n---\nHi.\n").unwrap();
/// let scanned = mcp_runtime_skills::scan(&root, mcp_runtime_skills::ScanLimits::default()).unwrap();
/// assert_eq!(scanned.skills[0].path, "greet");
/// assert_eq!(scanned.skills[0].files[0].rel, "SKILL.md");
/// std::fs::remove_dir_all(&root).unwrap();
/// ```
pub fn scan(root: &Path, limits: ScanLimits) -> Result<Scanned, SkillError> {
    let mut budget = Budget {
        bytes_left: limits.total_bytes,
        total: limits.total_bytes,
    };
    let tree = walk::walk(root, &mut budget)?;
    assemble(root, tree.files, &tree.dirs, limits)
}

/// The skills of a tree already read: `files` (path below `root`, bytes) and `dirs`.
fn assemble(
    root: &Path,
    files: Vec<(String, Vec<u8>)>,
    dirs: &[String],
    limits: ScanLimits,
) -> Result<Scanned, SkillError> {
    let mut skill_paths: Vec<&str> = files
        .iter()
        .filter_map(|(path, _)| {
            if path == SKILL_MD {
                Some("")
            } else {
                path.strip_suffix(&format!("/{SKILL_MD}"))
            }
        })
        .collect();
    skill_paths.sort_unstable();
    if skill_paths.first() == Some(&"") {
        return Err(SkillError::new(
            shown(root, SKILL_MD),
            "is at the root of the skills folder: put each skill in a folder named after it".into(),
        ));
    }
    if skill_paths.len() > limits.skills {
        return Err(SkillError::new(
            root,
            format!("holds more than {} skills", limits.skills),
        ));
    }
    let within = |path: &str, skill: &str| {
        path.len() > skill.len() + 1
            && path.starts_with(skill)
            && path.as_bytes()[skill.len()] == b'/'
    };
    let mut scanned = Scanned::default();
    for (path, _) in &files {
        if !skill_paths.iter().any(|s| within(path, s)) {
            scanned.ignored.push(shown(root, path));
        }
    }
    for skill in &skill_paths {
        let mut own: Vec<(String, &[u8])> = files
            .iter()
            .filter(|(path, _)| within(path, skill))
            .map(|(path, bytes)| (path[skill.len() + 1..].to_owned(), bytes.as_slice()))
            .collect();
        own.sort_by(|a, b| (a.0 != SKILL_MD, &a.0).cmp(&(b.0 != SKILL_MD, &b.0)));
        let own_dirs = dirs
            .iter()
            .filter(|d| within(d, skill))
            .map(|d| d[skill.len() + 1..].to_owned())
            .collect();
        scanned.skills.push(one(root, skill, own, own_dirs)?);
    }
    Ok(scanned)
}

/// The skill at `path` below `root`, from its files (`SKILL.md` first) and folders.
fn one(
    root: &Path,
    path: &str,
    files: Vec<(String, &[u8])>,
    dirs: Vec<String>,
) -> Result<SkillDir, SkillError> {
    let skill_md = shown(root, &format!("{path}/{SKILL_MD}"));
    let (prefix, folder) = path.rsplit_once('/').unwrap_or(("", path));
    if let Some(why) = name_problem(folder) {
        return Err(SkillError::new(
            shown(root, path),
            format!(
                "holds a SKILL.md, but `{folder}` cannot be a skill's name: {why} (a skill's \
                 folder is named after it; Agent Skills names are 1-64 lowercase letters, \
                 digits and hyphens)"
            ),
        ));
    }
    if let Some(bad) = prefix
        .split('/')
        .find(|s| !s.is_empty() && !prefix_segment_ok(s))
    {
        return Err(SkillError::new(
            shown(root, path),
            format!(
                "skill `{folder}`: the folder `{bad}` in its path cannot be part of a `skill://` \
                 URI as it is (use letters, digits and `-._~`)"
            ),
        ));
    }
    let text = std::str::from_utf8(files[0].1)
        .ok()
        .filter(|t| !t.contains('\0'))
        .ok_or_else(|| {
            SkillError::new(
                &skill_md,
                format!("skill `{folder}`: SKILL.md is not UTF-8 text"),
            )
        })?;
    let frontmatter = frontmatter::read(text).map_err(|e| {
        let error = SkillError::new(&skill_md, format!("skill `{folder}`: {}", e.message));
        match e.line {
            Some(line) => error.at_line(line),
            None => error,
        }
    })?;
    if frontmatter.name != folder {
        return Err(SkillError::new(
            &skill_md,
            format!(
                "the frontmatter names the skill `{}`, but its folder is `{folder}`: a skill's \
                 folder is named after it (the last segment of its URI is its name)",
                frontmatter.name
            ),
        ));
    }
    if files.len() > MAX_FILES {
        return Err(SkillError::new(
            shown(root, path),
            format!(
                "skill `{folder}` has {} files: a skill may have at most {MAX_FILES}, SKILL.md \
                 included (Skills extension limit)",
                files.len()
            ),
        ));
    }
    let size: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    if size > MAX_BYTES {
        return Err(SkillError::new(
            shown(root, path),
            format!(
                "skill `{folder}` holds {size} bytes: a skill's files may add up to at most \
                 {MAX_BYTES} bytes (16 MiB, Skills extension limit)"
            ),
        ));
    }
    let files = files
        .into_iter()
        .map(|(rel, bytes)| {
            let name = rel.rsplit('/').next().unwrap_or(&rel);
            SkillFile {
                mime: mime::of(name, bytes),
                text: mime::is_text(bytes),
                digest: digest(bytes),
                bytes: bytes.to_vec(),
                rel,
            }
        })
        .collect();
    Ok(SkillDir {
        path: path.to_owned(),
        frontmatter,
        files,
        dirs,
    })
}
