//! Reading a folder tree: every regular file with its bytes, every folder, in name order, names
//! starting with `.` left out. No symbolic link is followed: on Unix each entry is opened
//! relative to its folder's descriptor with `O_NOFOLLOW` and checked by `fstat` on what was
//! opened, so a link swapped in after the folder was listed is refused rather than followed.

use crate::error::SkillError;
use crate::rules::file_name_problem;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Deepest folder nesting read below the root.
pub(crate) const MAX_DEPTH: usize = 32;

/// What was found below the root, paths relative to it and `/`-separated.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    pub(crate) files: Vec<(String, Vec<u8>)>,
    pub(crate) dirs: Vec<String>,
}

/// How much a walk may read in all.
pub(crate) struct Budget {
    pub(crate) bytes_left: u64,
    pub(crate) total: u64,
}

pub(crate) fn shown(root: &Path, rel: &str) -> PathBuf {
    if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    }
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}

/// A name read from a folder, checked: `None` for names left out (`.`, `..`, dot files).
fn entry_name(root: &Path, rel: &str, raw: &[u8]) -> Result<Option<String>, SkillError> {
    if raw.first() == Some(&b'.') {
        return Ok(None);
    }
    let Ok(name) = std::str::from_utf8(raw) else {
        return Err(SkillError::new(
            shown(root, rel),
            format!(
                "holds a file whose name is not UTF-8 ({}): a skill's files are named in URIs",
                String::from_utf8_lossy(raw)
            ),
        ));
    };
    if let Some(why) = file_name_problem(name) {
        return Err(SkillError::new(
            shown(root, &join(rel, &name.escape_default().to_string())),
            format!("cannot be served: {why}"),
        ));
    }
    Ok(Some(name.to_owned()))
}

fn read_limited(
    root: &Path,
    rel: &str,
    mut file: impl Read,
    len: u64,
    budget: &mut Budget,
) -> Result<Vec<u8>, SkillError> {
    if len > budget.bytes_left {
        return Err(too_much(root, budget.total));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.by_ref()
        .take(budget.bytes_left + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SkillError::new(shown(root, rel), format!("cannot be read: {e}")))?;
    if bytes.len() as u64 > budget.bytes_left {
        return Err(too_much(root, budget.total));
    }
    budget.bytes_left -= bytes.len() as u64;
    Ok(bytes)
}

fn too_much(root: &Path, total: u64) -> SkillError {
    SkillError::new(
        root,
        format!("holds more than {total} bytes of files, the most a skills folder may hold here"),
    )
}

fn symlink(root: &Path, rel: &str) -> SkillError {
    SkillError::new(
        shown(root, rel),
        "is a symbolic link: skills are served from regular files and folders only, and no \
         link is followed (copy the file in instead)"
            .into(),
    )
}

fn not_regular(root: &Path, rel: &str) -> SkillError {
    SkillError::new(
        shown(root, rel),
        "is neither a regular file nor a folder".into(),
    )
}

fn too_deep(root: &Path, rel: &str) -> SkillError {
    SkillError::new(
        shown(root, rel),
        format!("is nested deeper than {MAX_DEPTH} folders"),
    )
}

#[cfg(unix)]
mod imp {
    use super::*;
    use rustix::fs::{Dir, FileType, Mode, OFlags, openat};
    use rustix::io::Errno;
    use std::os::fd::OwnedFd;

    const OPEN: OFlags = OFlags::RDONLY
        .union(OFlags::NOFOLLOW)
        .union(OFlags::CLOEXEC)
        .union(OFlags::NONBLOCK)
        .union(OFlags::NOCTTY);

    pub(crate) fn walk(root: &Path, budget: &mut Budget) -> Result<Tree, SkillError> {
        let fd = openat(
            rustix::fs::CWD,
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| SkillError::new(root, format!("is not a readable folder: {e}")))?;
        let mut tree = Tree::default();
        dir(root, "", &fd, 0, budget, &mut tree)?;
        Ok(tree)
    }

    fn dir(
        root: &Path,
        rel: &str,
        fd: &OwnedFd,
        depth: usize,
        budget: &mut Budget,
        tree: &mut Tree,
    ) -> Result<(), SkillError> {
        if depth > MAX_DEPTH {
            return Err(too_deep(root, rel));
        }
        let unreadable =
            |e: Errno| SkillError::new(shown(root, rel), format!("cannot be listed: {e}"));
        let mut entries = Vec::new();
        for entry in Dir::read_from(fd).map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            let raw = entry.file_name().to_bytes().to_vec();
            entries.push((raw, entry.file_type()));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (raw, kind) in entries {
            let Some(name) = entry_name(root, rel, &raw)? else {
                continue;
            };
            let path = join(rel, &name);
            match kind {
                FileType::Symlink => return Err(symlink(root, &path)),
                FileType::RegularFile | FileType::Directory | FileType::Unknown => {}
                _ => return Err(not_regular(root, &path)),
            }
            let opened = match openat(fd, name.as_str(), OPEN, Mode::empty()) {
                Ok(opened) => opened,
                Err(Errno::LOOP) => return Err(symlink(root, &path)),
                Err(e) => {
                    return Err(SkillError::new(
                        shown(root, &path),
                        format!("cannot be opened: {e}"),
                    ));
                }
            };
            let stat = rustix::fs::fstat(&opened).map_err(|e| {
                SkillError::new(shown(root, &path), format!("cannot be examined: {e}"))
            })?;
            match FileType::from_raw_mode(stat.st_mode) {
                FileType::Directory => {
                    tree.dirs.push(path.clone());
                    dir(root, &path, &opened, depth + 1, budget, tree)?;
                }
                FileType::RegularFile => {
                    let len = stat.st_size.max(0) as u64;
                    let bytes =
                        read_limited(root, &path, std::fs::File::from(opened), len, budget)?;
                    tree.files.push((path, bytes));
                }
                _ => return Err(not_regular(root, &path)),
            }
        }
        Ok(())
    }
}

#[cfg(not(unix))]
mod imp {
    use super::*;

    pub(crate) fn walk(root: &Path, budget: &mut Budget) -> Result<Tree, SkillError> {
        let mut tree = Tree::default();
        dir(root, "", 0, budget, &mut tree)?;
        Ok(tree)
    }

    fn dir(
        root: &Path,
        rel: &str,
        depth: usize,
        budget: &mut Budget,
        tree: &mut Tree,
    ) -> Result<(), SkillError> {
        if depth > MAX_DEPTH {
            return Err(too_deep(root, rel));
        }
        let here = shown(root, rel);
        let unreadable =
            |e: std::io::Error| SkillError::new(here.clone(), format!("cannot be listed: {e}"));
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&here).map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            let raw = entry.file_name().to_string_lossy().into_owned();
            names.push(raw);
        }
        names.sort();
        for raw in names {
            let Some(name) = entry_name(root, rel, raw.as_bytes())? else {
                continue;
            };
            let path = join(rel, &name);
            let meta = std::fs::symlink_metadata(shown(root, &path)).map_err(|e| {
                SkillError::new(shown(root, &path), format!("cannot be examined: {e}"))
            })?;
            if meta.file_type().is_symlink() {
                return Err(symlink(root, &path));
            } else if meta.is_dir() {
                tree.dirs.push(path.clone());
                dir(root, &path, depth + 1, budget, tree)?;
            } else if meta.is_file() {
                let file = std::fs::File::open(shown(root, &path)).map_err(|e| {
                    SkillError::new(shown(root, &path), format!("cannot be opened: {e}"))
                })?;
                let bytes = read_limited(root, &path, file, meta.len(), budget)?;
                tree.files.push((path, bytes));
            } else {
                return Err(not_regular(root, &path));
            }
        }
        Ok(())
    }
}

pub(crate) use imp::walk;
