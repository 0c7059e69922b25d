//! The fields of `server.json` as the MCP Registry checks them: a name, texts, versions, URLs
//! (https, a remote's, a repository's), the Cargo package, icons. Each check refuses with a
//! [`ServerJsonError`] naming the field.

use crate::error::Error;
use crate::protocol::Icon;
use serde_json::{Value, json};
use std::fmt;
use std::net::IpAddr;

/// The registry's limits on the description and the title, in characters.
pub(super) const DESCRIPTION_MAX: usize = 100;
pub(super) const TITLE_MAX: usize = 100;
pub(super) const NAME_MAX: usize = 200;

/// Why a `server.json` cannot be written: a field the MCP Registry would refuse, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerJsonError {
    field: &'static str,
    message: String,
}

impl ServerJsonError {
    pub(super) fn new(field: &'static str, message: impl Into<String>) -> Self {
        ServerJsonError {
            field,
            message: message.into(),
        }
    }

    /// The `server.json` field at fault (`name`, `description`, `remotes`, …).
    pub fn field(&self) -> &str {
        self.field
    }
}

impl fmt::Display for ServerJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "server.json `{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for ServerJsonError {}

impl From<ServerJsonError> for Error {
    fn from(e: ServerJsonError) -> Self {
        Error::Usage(e.to_string())
    }
}

/// A registry name: `NAMESPACE/NAME`, the namespace a reverse-DNS name (`io.github.owner`,
/// `com.example`), the name letters, digits, `.`, `_` and `-`, beginning and ending with a
/// letter or digit (the registry's rules).
pub(super) fn check_name(name: &str) -> Result<&str, ServerJsonError> {
    let bad = |why: String| {
        Err(ServerJsonError::new(
            "name",
            format!(
                "`{name}` {why}; a registry name is NAMESPACE/NAME, the namespace in reverse-DNS \
                 form: io.github.OWNER/NAME, or com.example/NAME for a domain you own"
            ),
        ))
    };
    let Some((namespace, server)) = name.split_once('/') else {
        return bad("has no `/`".to_owned());
    };
    if server.contains('/') {
        return bad("has more than one `/`".to_owned());
    }
    if name.chars().count() > NAME_MAX {
        return bad(format!("is longer than {NAME_MAX} characters"));
    }
    let labels: Vec<&str> = namespace.split('.').collect();
    if labels.len() < 2 {
        return bad(format!(
            "has `{namespace}` for namespace, not a reverse-DNS name (two labels or more, \
             separated by dots)"
        ));
    }
    for label in labels {
        let letters = label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if label.is_empty() || label.len() > 63 || !letters {
            return bad(format!(
                "has `{label}` in its namespace: each dot-separated label is 1 to 63 letters, \
                 digits or `-`"
            ));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return bad(format!(
                "has `{label}` in its namespace: a label does not begin or end with `-`"
            ));
        }
    }
    let inner = server
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if server.len() < 2 || !inner || !ends(server.chars().next()) || !ends(server.chars().last()) {
        return bad(format!(
            "has `{server}` after the `/`: two characters or more (letters, digits, `.`, `_`, \
             `-`), beginning and ending with a letter or digit"
        ));
    }
    Ok(name)
}

/// Text that is not blank and at most `max` characters long.
pub(super) fn check_text<'a>(
    field: &'static str,
    text: &'a str,
    max: usize,
) -> Result<&'a str, ServerJsonError> {
    if text.trim().is_empty() {
        return Err(ServerJsonError::new(field, "is empty"));
    }
    let count = text.chars().count();
    if count > max {
        return Err(ServerJsonError::new(
            field,
            format!("has {count} characters; the registry takes at most {max}"),
        ));
    }
    Ok(text)
}

/// One exact version (not `latest`, not a range such as `^1.2`, `>=1`, `1.x` or `1.*`).
pub(super) fn check_version<'a>(
    field: &'static str,
    version: &'a str,
) -> Result<&'a str, ServerJsonError> {
    let bad = |why: &str| {
        Err(ServerJsonError::new(
            field,
            format!("`{version}` {why}: the registry takes one exact version, such as 1.0.2"),
        ))
    };
    if version.trim().is_empty() {
        return bad("is empty");
    }
    if version.len() > 255 {
        return bad("is longer than 255 characters");
    }
    if version == "latest" {
        return bad("is no version");
    }
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let wildcard = core.split('.').any(|part| matches!(part, "x" | "X" | "*"));
    if wildcard || version.contains(['^', '~', '<', '>', '=', '|', '*', ' ']) {
        return bad("is a range");
    }
    Ok(version)
}

/// A cargo package: `name` or `name@version` (the server's version by default), its binary
/// started with `--stdio`.
pub(super) fn cargo_package(spec: &str, server_version: &str) -> Result<Value, ServerJsonError> {
    let (name, version) = spec.split_once('@').unwrap_or((spec, server_version));
    let crate_name = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let first = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic());
    if name.is_empty() || name.len() > 64 || !crate_name || !first {
        return Err(ServerJsonError::new(
            "packages",
            format!(
                "`{name}` is not a crate name (a letter, then letters, digits, `-` or `_`; 64 at \
                 most); give the crate as NAME or NAME@VERSION"
            ),
        ));
    }
    check_version("packages", version)?;
    if !is_semver(version) {
        return Err(ServerJsonError::new(
            "packages",
            format!(
                "`{version}` is not the version of a crate (MAJOR.MINOR.PATCH, such as 0.3.0, \
                 with an optional -pre-release)"
            ),
        ));
    }
    Ok(json!({
        "registryType": "cargo",
        "identifier": name,
        "version": version,
        "transport": {"type": "stdio"},
        "packageArguments": [{"type": "positional", "value": "--stdio"}],
    }))
}

/// `MAJOR.MINOR.PATCH[-pre][+build]`, as Cargo versions are.
fn is_semver(version: &str) -> bool {
    let (rest, build) = match version.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (version, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let number = |n: &&str| {
        !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
            && (n.len() == 1 || !n.starts_with('0'))
    };
    let ident = |s: &str| {
        s.split('.').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
    };
    numbers.len() == 3
        && numbers.iter().all(number)
        && pre.is_none_or(ident)
        && build.is_none_or(ident)
}

/// An absolute `https` URL with a host, and nothing a URL cannot hold.
pub(super) fn check_https<'a>(
    field: &'static str,
    url: &'a str,
) -> Result<&'a str, ServerJsonError> {
    let bad = |why: &str| {
        Err(ServerJsonError::new(
            field,
            format!("`{url}` {why}: give an https URL, such as https://mcp.example.com/mcp"),
        ))
    };
    if url.contains(['{', '}']) {
        return bad("has a template variable, which this writer does not declare");
    }
    let Ok(uri) = url.parse::<http::Uri>() else {
        return bad("is not a URL");
    };
    if uri.scheme_str() != Some("https") {
        return bad("is not https");
    }
    if uri.host().is_none_or(str::is_empty) {
        return bad("has no host");
    }
    if url.len() > 2048 {
        return bad("is longer than 2048 characters");
    }
    Ok(url)
}

/// A remote: an `https` URL whose host is not this machine (the registry refuses loopback
/// remotes: nobody else could reach them).
pub(super) fn check_remote(url: &str) -> Result<&str, ServerJsonError> {
    check_https("remotes", url)?;
    let host = url.parse::<http::Uri>().ok();
    let host = host.as_ref().and_then(http::Uri::host).unwrap_or_default();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = bare.eq_ignore_ascii_case("localhost")
        || bare.to_ascii_lowercase().ends_with(".localhost")
        || bare
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified());
    if loopback {
        return Err(ServerJsonError::new(
            "remotes",
            format!(
                "`{url}` is served on this machine only (`{host}`): a remote is a public URL, \
                 such as https://mcp.example.com/mcp"
            ),
        ));
    }
    Ok(url)
}

/// `repository`: a GitHub (`https://github.com/OWNER/REPO`) or GitLab
/// (`https://gitlab.com/GROUP/…/REPO`) URL, the two sources the registry takes.
pub(super) fn repository(url: &str) -> Result<Value, ServerJsonError> {
    let bad = || {
        Err(ServerJsonError::new(
            "repository",
            format!(
                "`{url}` is not a repository the registry takes: https://github.com/OWNER/REPO \
                 or https://gitlab.com/GROUP/…/REPO"
            ),
        ))
    };
    let Some(rest) = url.strip_prefix("https://") else {
        return bad();
    };
    let rest = rest.strip_prefix("www.").unwrap_or(rest);
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let Some((host, path)) = rest.split_once('/') else {
        return bad();
    };
    let segments: Vec<&str> = path.split('/').collect();
    let segment_ok = |s: &&str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    };
    if !segments.iter().all(segment_ok) {
        return bad();
    }
    let source = match (host, segments.len()) {
        ("github.com", 2) => "github",
        ("gitlab.com", n) if n >= 2 => "gitlab",
        _ => return bad(),
    };
    Ok(json!({"url": url, "source": source}))
}

/// An icon as the registry takes it (an `https` source of 255 characters at most, its MIME
/// types, `WxH` or `any` sizes, a light or dark theme), or `None`.
pub(super) fn icon(icon: &Icon) -> Option<Value> {
    const MIME_TYPES: [&str; 5] = [
        "image/png",
        "image/jpeg",
        "image/jpg",
        "image/svg+xml",
        "image/webp",
    ];
    let size = |s: &String| {
        s == "any"
            || s.split_once('x').is_some_and(|(w, h)| {
                [w, h]
                    .iter()
                    .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
    };
    let fits = check_https("icons", &icon.src).is_ok()
        && icon.src.len() <= 255
        && icon
            .mime_type
            .as_deref()
            .is_none_or(|m| MIME_TYPES.contains(&m))
        && icon.sizes.iter().flatten().all(size)
        && icon
            .theme
            .as_deref()
            .is_none_or(|t| matches!(t, "light" | "dark"));
    fits.then(|| serde_json::to_value(icon).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semver() {
        for good in ["0.3.0", "1.2.3-alpha.1", "1.0.0+build.5", "10.20.30-rc-1+x"] {
            assert!(is_semver(good), "{good}");
        }
        for bad in [
            "1", "1.2", "01.2.3", "1.2.3-", "1.2.3.4", "v1.2.3", "1.2.3+",
        ] {
            assert!(!is_semver(bad), "{bad}");
        }
    }

    #[test]
    fn ranges_are_no_versions() {
        for range in [
            "^1.2.3",
            "~1.2",
            ">=1.0.0",
            "1.x",
            "1.2.*",
            "1.2 || 1.3",
            "latest",
            "",
        ] {
            assert!(check_version("version", range).is_err(), "{range}");
        }
        assert!(check_version("version", "2.0.0-beta").is_ok());
    }
}
