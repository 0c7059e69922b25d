//! What a remote link is made with: the revision to speak, headers or environment,
//! credentials and limits.

use super::credentials::Credentials;
use std::time::Duration;

/// Which protocol revision a remote client speaks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Revision {
    /// 2026-07-28 when the server answers `server/discover`, else a 2025 session.
    #[default]
    Auto,
    /// 2026-07-28 only.
    Modern,
    /// A 2025 session opened with this revision (`2025-11-25`, `2025-06-18`).
    Legacy(String),
}

/// A remote link's settings, as [`Remote`](super::Remote) gathers them.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) timeout: Duration,
    pub(crate) max_message_bytes: usize,
    pub(crate) revision: Revision,
    pub(crate) credentials: Option<Credentials>,
}
