//! Skills (the Skills extension, SEP-2640), from what a server declares to what a registry
//! snapshot serves, lowest first: `embedded` (what `skills!` embeds at compile time), `data`
//! (a skill's files loaded, ready to answer), `declared` (`Skills`: which skills, who may read
//! them), `index` (a snapshot's skills: entries, requirements, folders). This module only
//! declares and re-exports.
//!
//! Without the `skills` feature no skill is loaded or served (`ServerBuilder::skills` needs it,
//! and so does `skills!`): the snapshot's index stays empty and what would fill it is never
//! called, so never compiled to code either; it is left in the source rather than cut up by
//! `cfg`s.
#![cfg_attr(not(feature = "skills"), allow(dead_code))]

mod data;
mod declared;
mod embedded;
mod index;

#[cfg(all(feature = "mounts", feature = "skills"))]
pub(crate) use data::{FileInput, SkillData, rules};
pub(crate) use declared::SkillSet;
#[cfg(feature = "skills")]
pub use declared::Skills;
#[cfg(all(feature = "mounts", feature = "skills"))]
pub(crate) use declared::Source;
#[cfg(feature = "skills")]
pub use embedded::{EmbeddedFile, EmbeddedSkill};
pub(crate) use index::SkillIndex;
#[cfg(feature = "skills")]
pub(crate) use index::{DirChild, SkillEntry};
