//! Which attribute is being expanded: `#[tool]`, `#[resource]` or `#[prompt]`.

use syn::Path;

/// The primitive an attribute declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Tool, Kind::Resource, Kind::Prompt];

    /// The attribute's name, as written after `#[`.
    pub(crate) fn ident(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }

    /// The kind named by an attribute's path (`tool`, `mcp_runtime::tool`), by its last segment.
    pub(crate) fn of_path(path: &Path) -> Option<Kind> {
        let last = &path.segments.last()?.ident;
        Kind::ALL.into_iter().find(|k| last == k.ident())
    }

    /// The attribute as messages quote it.
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "#[tool]",
            Kind::Resource => "#[resource]",
            Kind::Prompt => "#[prompt]",
        }
    }

    /// What the function is.
    pub(crate) fn noun(self) -> &'static str {
        self.ident()
    }

    /// How a plain parameter of this kind of function is called.
    pub(crate) fn argument_noun(self) -> &'static str {
        match self {
            Kind::Tool => "tool argument",
            Kind::Resource => "template variable",
            Kind::Prompt => "prompt argument",
        }
    }
}
