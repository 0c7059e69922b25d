//! Skills (the Skills extension, SEP-2640), from what a server declares to what a registry
//! snapshot serves, lowest first: `embedded` (what `skills!` embeds at compile time), `data`
//! (a skill's files loaded, ready to answer), `declared` ([`Skills`]: which skills, who may read
//! them), `index` (a snapshot's skills: entries, requirements, folders). This module only
//! declares and re-exports.

mod data;
mod declared;
mod embedded;
mod index;

#[cfg(feature = "mounts")]
pub(crate) use data::{FileInput, SkillData, rules};
pub(crate) use declared::SkillSet;
pub use declared::Skills;
#[cfg(feature = "mounts")]
pub(crate) use declared::Source;
pub use embedded::{EmbeddedFile, EmbeddedSkill};
pub(crate) use index::{DirChild, SkillEntry, SkillIndex};
