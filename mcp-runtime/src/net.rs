//! Host names in `Host`, `Origin` and URIs: the host part of an authority, and loopback names.

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The host part of `host[:port]`, trimmed (IPv6 literals keep their brackets; case is kept:
/// compare with `eq_ignore_ascii_case`). No allocation: this runs on every request.
///
/// Strict about IPv6 literals: `[...]` may be followed by nothing or `:port` (digits) only.
/// Anything else (`[::1]evil.com`, `[::1].evil.com`, `[::1]:80x`) is no authority, and the
/// whole text is returned: no loopback name, nor any allowed host, equals it.
pub(crate) fn host_part(authority: &str) -> &str {
    let a = authority.trim();
    if a.starts_with('[') {
        return match a.find(']') {
            Some(i) if port_or_nothing(&a[i + 1..]) => &a[..=i],
            _ => a,
        };
    }
    // By bytes: `rsplit_once(':')` sets up a char searcher on every request (BENCHMARKS.md,
    // "Header checks").
    match a.bytes().rposition(|b| b == b':') {
        Some(i) if a.as_bytes()[i + 1..].iter().all(u8::is_ascii_digit) => &a[..i],
        _ => a,
    }
}

/// Whether what follows an IPv6 literal is nothing or `:port` (`port = *DIGIT`, RFC 3986).
fn port_or_nothing(rest: &str) -> bool {
    match rest.as_bytes().split_first() {
        None => true,
        Some((b':', port)) => port.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// Whether a host name (as [`host_part`] returns it) is this machine.
pub(crate) fn is_loopback(host: &str) -> bool {
    LOOPBACK.iter().any(|l| l.eq_ignore_ascii_case(host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        assert_eq!(host_part("localhost:8000"), "localhost");
        assert_eq!(host_part("[::1]:8000"), "[::1]");
        assert_eq!(host_part(" 127.0.0.1"), "127.0.0.1");
        assert_eq!(host_part("Evil.example.com:80"), "Evil.example.com");
        assert!(is_loopback("LocalHost"));
        assert!(!is_loopback("localhost.evil.example"));
    }

    /// An IPv6 literal followed by anything but `:port` is not that literal.
    #[test]
    fn an_ipv6_literal_is_followed_by_a_port_or_nothing() {
        assert_eq!(host_part("[::1]"), "[::1]");
        assert_eq!(host_part("[::1]:"), "[::1]");
        assert_eq!(host_part(" [::1]:443 "), "[::1]");
        for bad in [
            "[::1]evil.com",
            "[::1].evil.com",
            "[::1]:80evil.com",
            "[::1]:80:80",
            "[::1]@evil.com",
            "[::1]/x",
            "[::1]]",
            "[::1",
        ] {
            assert_eq!(host_part(bad), bad, "{bad}");
            assert!(!is_loopback(host_part(bad)), "{bad}");
        }
    }
}
