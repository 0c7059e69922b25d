//! How long a `requestState` lives, how large it may be and how many rounds it may count.

use std::time::Duration;

/// Default lifetime of a `requestState`.
///
/// ```
/// assert_eq!(mcp_runtime::mrtr::DEFAULT_STATE_TTL.as_secs(), 300);
/// ```
pub const DEFAULT_STATE_TTL: Duration = Duration::from_secs(5 * 60);

/// Largest accepted `requestState`, in bytes of its wire form.
///
/// ```
/// assert_eq!(mcp_runtime::mrtr::MAX_STATE_BYTES, 64 * 1024);
/// ```
pub const MAX_STATE_BYTES: usize = 64 * 1024;

/// Most rounds one request may take before the server refuses to ask again.
///
/// ```
/// assert_eq!(mcp_runtime::mrtr::MAX_ROUNDS, 16);
/// ```
pub const MAX_ROUNDS: u32 = 16;
