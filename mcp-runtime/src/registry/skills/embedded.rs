//! What `skills!` writes into a server at compile time: every skill of a folder with its files'
//! bytes (`include_bytes!`), digests, MIME types and frontmatter already read and checked, so
//! that the server needs no file and reads nothing to serve them.

/// One embedded file (written by `skills!`).
#[doc(hidden)]
#[derive(Debug)]
pub struct EmbeddedFile {
    /// Its path below the skill's folder.
    pub rel: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
    /// `sha256:` and the hexadecimal SHA-256 of its bytes.
    pub digest: &'static str,
    /// Its MIME type.
    pub mime: &'static str,
    /// Whether it is served as text.
    pub text: bool,
}

/// One embedded skill (written by `skills!`).
#[doc(hidden)]
#[derive(Debug)]
pub struct EmbeddedSkill {
    /// The folders from the skills root to the skill.
    pub path: &'static str,
    /// Its frontmatter `name`.
    pub name: &'static str,
    /// Its frontmatter `description`.
    pub description: &'static str,
    /// Its whole frontmatter, as JSON.
    pub frontmatter: &'static str,
    /// Its files, `SKILL.md` first.
    pub files: &'static [EmbeddedFile],
    /// The folders below its own.
    pub dirs: &'static [&'static str],
}
