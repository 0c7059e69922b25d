//! What is the same however a skill is read: the limits of one folder ([`ScanLimits`]) and the
//! digest of a file ([`digest`]).

use sha2::{Digest, Sha256};

/// How much one folder may hold in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanLimits {
    /// Bytes of all files read.
    pub total_bytes: u64,
    /// Skills.
    pub skills: usize,
}

impl Default for ScanLimits {
    /// 256 MiB and 10,000 skills.
    fn default() -> Self {
        ScanLimits {
            total_bytes: 256 * 1024 * 1024,
            skills: 10_000,
        }
    }
}

/// `sha256:` and the lowercase hexadecimal SHA-256 of `bytes`, as the extension writes digests.
///
/// ```
/// use mcp_runtime_skills::digest;
/// assert_eq!(
///     digest(b""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
