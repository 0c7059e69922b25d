//! The rules a served skill keeps: its name (Agent Skills), the two per-skill limits and the
//! reserved metadata prefix (Skills extension), and how paths become `skill://` URIs.

/// Most files one skill may have, `SKILL.md` included (the extension's limit).
pub const MAX_FILES: usize = 512;

/// Most bytes one skill's files may add up to (16 MiB, the extension's limit).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Longest skill name (Agent Skills).
pub const MAX_NAME: usize = 64;

/// Longest description, in characters (Agent Skills).
pub const MAX_DESCRIPTION: usize = 1024;

/// Longest `compatibility`, in characters (Agent Skills).
pub const MAX_COMPATIBILITY: usize = 500;

/// Keys of the frontmatter's `metadata` with this prefix are reserved for MCP extensions.
pub const RESERVED_METADATA_PREFIX: &str = "io.modelcontextprotocol/";

/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// The URI scheme skills are served under.
pub const SCHEME: &str = "skill://";

/// Why `name` is not a skill name, if it is not one: 1 to 64 lowercase letters, digits and
/// hyphens, neither first nor last a hyphen, no two hyphens in a row.
///
/// ```
/// use mcp_runtime_skills::rules::name_problem;
/// assert!(name_problem("pdf-processing").is_none());
/// assert!(name_problem("PDF").is_some());
/// assert!(name_problem("a--b").is_some());
/// ```
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name.len() > MAX_NAME {
        return Some("it is longer than 64 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("only lowercase letters, digits and hyphens are allowed");
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("it may not start or end with a hyphen");
    }
    if name.contains("--") {
        return Some("it may not have two hyphens in a row");
    }
    None
}

/// Whether `segment` may be a folder of the path in front of a skill (`acme/billing` in
/// `skill://acme/billing/refunds`): letters, digits and `-._~`, so that it needs no encoding in
/// a URI and the first one is a valid host name (`reg-name`).
///
/// ```
/// use mcp_runtime_skills::rules::prefix_segment_ok;
/// assert!(prefix_segment_ok("acme.v2"));
/// assert!(!prefix_segment_ok("my team"));
/// ```
pub fn prefix_segment_ok(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Why a file or folder name inside a skill cannot be served, if it cannot: it must be UTF-8
/// without control characters (NUL included). Names starting with `.` are not served at all
/// (the caller skips them).
///
/// ```
/// use mcp_runtime_skills::rules::file_name_problem;
/// assert!(file_name_problem("notes 2.md").is_none());
/// assert!(file_name_problem("a\u{7}b").is_some());
/// ```
pub fn file_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name == "." || name == ".." {
        return Some("it is not a file name");
    }
    if name.chars().any(char::is_control) {
        return Some("it has a control character");
    }
    None
}

/// `segment` as a URI path segment: bytes other than unreserved characters, sub-delimiters,
/// `:` and `@` percent-encoded (`%` itself too, so that an encoded-looking name stays itself).
///
/// ```
/// use mcp_runtime_skills::rules::encode_segment;
/// assert_eq!(encode_segment("notes 2.md"), "notes%202.md");
/// assert_eq!(encode_segment("%2e%2e"), "%252e%252e");
/// ```
pub fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for &b in segment.as_bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            );
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The URI of a file or folder `rel` (`/`-separated, as on disk) of the skill at `skill_path`;
/// the skill's own folder when `rel` is empty.
///
/// ```
/// use mcp_runtime_skills::rules::uri;
/// assert_eq!(uri("acme/refunds", "SKILL.md"), "skill://acme/refunds/SKILL.md");
/// assert_eq!(uri("acme/refunds", "a b/c.md"), "skill://acme/refunds/a%20b/c.md");
/// assert_eq!(uri("acme/refunds", ""), "skill://acme/refunds");
/// ```
pub fn uri(skill_path: &str, rel: &str) -> String {
    let mut out = format!("{SCHEME}{skill_path}");
    for segment in rel.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        out.push_str(&encode_segment(segment));
    }
    out
}
