//! The kinds of primitive.

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
