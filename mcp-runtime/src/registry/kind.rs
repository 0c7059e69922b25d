//! The kinds of primitive, and the index of one kind's names.

use std::collections::HashMap;

/// The kind of a registered primitive, for run-time changes.
///
/// ```
/// use mcp_runtime::{PrimitiveKind, Server};
/// let server = Server::builder().build().unwrap();
/// assert!(!server.remove(PrimitiveKind::Prompt, "absent").unwrap());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum PrimitiveKind {
    /// A tool (keyed by name).
    Tool,
    /// A fixed resource (keyed by URI).
    Resource,
    /// A resource template (keyed by its template).
    ResourceTemplate,
    /// A prompt (keyed by name).
    Prompt,
    /// A skill of the Skills extension (keyed by name).
    Skill,
}

/// Position of each registered name (tool, prompt) or URI in its list.
///
/// Hashed with FNV-1a instead of SipHash: the keys are the server's own names, fixed when the
/// registry is built, so client input only ever looks up (it cannot grow a bucket).
pub(crate) type NameIndex = HashMap<String, usize, fnv::FnvBuildHasher>;
