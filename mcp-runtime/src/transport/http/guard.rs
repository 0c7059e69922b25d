//! The DNS-rebinding guard: a request whose `Host` or `Origin` is neither loopback nor allowed is
//! refused with 403 before anything else is read, and one whose `Host` header is given twice or
//! empty with 400 (RFC 9112 §3.2).

use super::options::HttpOptions;
use crate::net::{host_part, is_loopback};
use http::{HeaderMap, HeaderValue, header};

/// The request's `Host`, judged in one pass over its headers: `Err` with why the request is a
/// bad one (400) — RFC 9112 §3.2: a server MUST answer 400 to a request with more than one
/// `Host` header or an invalid one, and an empty one names no authority, which an `http` URI
/// must have (RFC 9110 §4.2.1) — else whether its name is loopback or allowed. A request
/// without one has nothing to rebind (HTTP/1.1 requires it; hyper answers its absence).
pub(super) fn judge_host(options: &HttpOptions, headers: &HeaderMap) -> Result<bool, &'static str> {
    let mut hosts = headers.get_all(header::HOST).iter();
    let Some(host) = hosts.next() else {
        return Ok(true);
    };
    if hosts.next().is_some() {
        return Err("Bad Request: more than one Host header (RFC 9112 §3.2)");
    }
    if blank(host) {
        return Err("Bad Request: the Host header is empty (RFC 9112 §3.2)");
    }
    let Ok(host) = host.to_str() else {
        return Ok(false);
    };
    let name = host_part(host);
    Ok(is_loopback(name)
        || options
            .hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(name) || h.eq_ignore_ascii_case(host.trim())))
}

/// Why the `Host` header makes the request a bad one (400), if it does ([`judge_host`]).
#[cfg(test)]
fn host_header_error(headers: &HeaderMap) -> Option<&'static str> {
    judge_host(&HttpOptions::default(), headers).err()
}

fn blank(value: &HeaderValue) -> bool {
    value.as_bytes().iter().all(|b| matches!(b, b' ' | b'\t'))
}

/// Whether the `Host` is loopback or allowed (a second or an empty one never is).
#[cfg(any(test, feature = "lab"))]
pub(super) fn host_allowed(options: &HttpOptions, headers: &HeaderMap) -> bool {
    judge_host(options, headers) == Ok(true)
}

pub(super) fn origin_allowed(options: &HttpOptions, headers: &HeaderMap) -> bool {
    let mut origins = headers.get_all(header::ORIGIN).iter();
    let Some(origin) = origins.next() else {
        return true;
    };
    // One origin (RFC 6454 §7): two cannot both be judged by the first.
    if origins.next().is_some() {
        return false;
    }
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
    // `host_part` is strict about IPv6 literals: `[::1]` followed by anything but `:port`
    // (`http://[::1].evil.com`) is no loopback host.
    (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
        && is_loopback(host_part(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (n, v) in pairs {
            h.append(
                http::HeaderName::from_bytes(n.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn an_ipv6_literal_with_text_after_it_is_no_loopback_host() {
        let options = HttpOptions::default();
        for host in ["[::1]", "[::1]:8000", "localhost", "127.0.0.1:1"] {
            assert!(
                host_allowed(&options, &headers(&[("host", host)])),
                "{host}"
            );
        }
        for host in [
            "[::1]evil.com",
            "[::1].evil.com",
            "[::1]evil.com:80",
            "[::1]:80.evil.com",
            "[::1]:80:80",
        ] {
            assert!(
                !host_allowed(&options, &headers(&[("host", host)])),
                "{host}"
            );
            assert_eq!(host_header_error(&headers(&[("host", host)])), None);
        }
        for origin in ["http://[::1]", "http://[::1]:9000", "https://[::1]/"] {
            assert!(
                origin_allowed(&options, &headers(&[("origin", origin)])),
                "{origin}"
            );
        }
        for origin in [
            "http://[::1].evil.com",
            "http://[::1]evil.com",
            "http://[::1]:9000.evil.com",
            "http://[::1]@evil.com",
            "http://[::1]:9000/x",
        ] {
            assert!(
                !origin_allowed(&options, &headers(&[("origin", origin)])),
                "{origin}"
            );
        }
    }

    #[test]
    fn two_hosts_or_an_empty_one_are_a_bad_request() {
        let options = HttpOptions::default();
        let two = headers(&[("host", "localhost"), ("host", "evil.example.com")]);
        assert!(host_header_error(&two).unwrap().contains("more than one"));
        assert!(!host_allowed(&options, &two));
        let same = headers(&[("host", "localhost"), ("host", "localhost")]);
        assert!(host_header_error(&same).is_some());
        for empty in ["", " ", "\t"] {
            let h = headers(&[("host", empty)]);
            assert!(
                host_header_error(&h).unwrap().contains("empty"),
                "{empty:?}"
            );
            assert!(!host_allowed(&options, &h));
        }
        assert_eq!(host_header_error(&headers(&[("host", "localhost")])), None);
        assert_eq!(host_header_error(&HeaderMap::new()), None);
        // Two origins are not judged by the first.
        let two = headers(&[
            ("origin", "http://localhost"),
            ("origin", "http://evil.com"),
        ]);
        assert!(!origin_allowed(&options, &two));
    }
}
