//! The [Agent Skills](https://agentskills.io/specification) format as the MCP server framework
//! serves it through the Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a skills
//! folder read safely (`scan`: no symbolic link followed, names, sizes and depth bounded),
//! each `SKILL.md` frontmatter read into JSON and checked (`frontmatter`), the files' digests
//! (`digest`) and MIME types ([`mime`]), and the URIs they are served at ([`rules::uri`]).
//!
//! Both ways a server gets its skills use this crate, so they agree byte for byte: `mcp-runtime`
//! reads a folder when the server starts, and `mcp-runtime-macros`' `skills!` reads it at compile time
//! to embed it. Servers depend on `mcp-runtime` alone.
//!
//! Reading a folder (`scan`, `frontmatter`, `digest`: a YAML parser, descriptor-relative file
//! access, SHA-256) is the `scan` feature; without it the crate holds the rules and MIME types, all
//! a server needs that serves no skill folder (mcp-runtime turns `scan` on with its `skills`
//! feature).
//!
//! ```
//! use mcp_runtime_skills::rules::uri;
//! assert_eq!(uri("pdf-processing", "SKILL.md"), "skill://pdf-processing/SKILL.md");
//! ```

mod error;
#[cfg(feature = "scan")]
pub mod frontmatter;
pub mod mime;
pub mod rules;
#[cfg(feature = "scan")]
mod skill;
#[cfg(feature = "scan")]
mod walk;

pub use error::SkillError;
#[cfg(feature = "scan")]
pub use skill::{ScanLimits, Scanned, SkillDir, SkillFile, digest, scan};
