//! The DNS-rebinding guard: a request whose `Host` or `Origin` is neither loopback nor allowed is
//! refused with 403 before anything else is read.

use super::options::HttpOptions;
use http::{HeaderMap, header};

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The host part of `host[:port]`, trimmed (IPv6 literals keep their brackets; case is kept:
/// compare with `eq_ignore_ascii_case`). No allocation: this runs on every request.
fn host_part(authority: &str) -> &str {
    let a = authority.trim();
    if a.starts_with('[') {
        return match a.find(']') {
            Some(i) => &a[..=i],
            None => a,
        };
    }
    match a.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|c| c.is_ascii_digit()) => h,
        _ => a,
    }
}

fn is_loopback(host: &str) -> bool {
    LOOPBACK.iter().any(|l| l.eq_ignore_ascii_case(host))
}

pub(super) fn host_allowed(options: &HttpOptions, headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST) else {
        // HTTP/1.1 requires Host; without one there is nothing to rebind.
        return true;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let name = host_part(host);
    is_loopback(name)
        || options
            .hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(name) || h.eq_ignore_ascii_case(host.trim()))
}

pub(super) fn origin_allowed(options: &HttpOptions, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim().trim_end_matches('/');
    if options
        .origins
        .iter()
        .any(|o| o.eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
        && is_loopback(host_part(rest))
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
}
