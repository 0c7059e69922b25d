//! A server as a host's entry describes it ([`Entry`]), and what an edit of a host's
//! configuration did to its text ([`Edited`]): what `codex.rs`, `goose.rs` and `json.rs` edit
//! with, and what `hosts.rs` puts in a host's JSON shape.

/// A server as a host's entry describes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Entry {
    /// Started by the host, spoken to over stdio.
    Local {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// Reached over Streamable HTTP.
    Remote {
        url: String,
        /// The environment variable holding its bearer token.
        bearer_env: Option<String>,
    },
}

/// What an edit did to the file's text.
#[derive(Debug)]
pub(crate) enum Edited {
    /// The new text (the entry set or removed).
    Changed(String),
    /// The file already says so.
    Unchanged,
}

#[cfg(test)]
impl Edited {
    /// The new text, in a test that expects a change.
    pub(crate) fn changed(self) -> String {
        match self {
            Edited::Changed(text) => text,
            Edited::Unchanged => panic!("expected a change"),
        }
    }
}
