//! Who is calling: the identity an authentication layer attached to the request.

/// The authenticated caller of a request, set by an authentication layer.
///
/// ```
/// use mcp_runtime::Caller;
/// let caller = Caller::new("user-17").with_scopes(["docs:read"]);
/// assert!(caller.has_scope("docs:read"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    /// Stable subject identifier (e.g. the token's `sub`).
    pub subject: String,
    /// Granted scopes.
    pub scopes: Vec<String>,
}

impl Caller {
    /// A caller with no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Caller {
            subject: subject.into(),
            scopes: Vec::new(),
        }
    }
    /// Adds scopes.
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }
    /// Whether a scope was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}
