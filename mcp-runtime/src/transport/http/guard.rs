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
/// without one has nothing to rebind (HTTP/1.1 requires it; hyper answers its absence). An
/// absolute-form target (`POST http://host/mcp`) names the authority itself, and the `Host`
/// header is then not the one judged (RFC 9112 §3.2.2: a server uses the target's).
pub(super) fn judge_host(
    options: &HttpOptions,
    headers: &HeaderMap,
    target: &http::Uri,
) -> Result<bool, &'static str> {
    let mut hosts = headers.get_all(header::HOST).iter();
    let first = hosts.next();
    if hosts.next().is_some() {
        return Err("Bad Request: more than one Host header (RFC 9112 §3.2)");
    }
    if first.is_some_and(blank) {
        return Err("Bad Request: the Host header is empty (RFC 9112 §3.2)");
    }
    let host = match (target.authority(), first) {
        (Some(authority), _) => authority.as_str(),
        (None, None) => return Ok(true),
        (None, Some(host)) => match host.to_str() {
            Ok(host) => host,
            Err(_) => return Ok(false),
        },
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
    judge_host(
        &HttpOptions::default(),
        headers,
        &http::Uri::from_static("/mcp"),
    )
    .err()
}

fn blank(value: &HeaderValue) -> bool {
    value.as_bytes().iter().all(|b| matches!(b, b' ' | b'\t'))
}

/// Whether the `Host` is loopback or allowed (a second or an empty one never is).
#[cfg(any(test, feature = "lab"))]
pub(super) fn host_allowed(options: &HttpOptions, headers: &HeaderMap, target: &http::Uri) -> bool {
    judge_host(options, headers, target) == Ok(true)
}

/// Whether a request comes from no page, from a page of the endpoint's own origin (its `Origin`
/// names the `Host` it was sent to), or from one [`HttpOptions::allow_origin`] names: what a
/// request needs for the local caller (a page on another loopback port is none of these).
pub(super) fn own_or_named_origin(options: &HttpOptions, headers: &HeaderMap) -> bool {
    let mut origins = headers.get_all(header::ORIGIN).iter();
    let (Some(origin), None) = (origins.next(), origins.next()) else {
        return headers.get(header::ORIGIN).is_none();
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim().trim_end_matches('/');
    if named_origin(options, origin) {
        return true;
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    match (origin.split_once("://"), host) {
        (Some((scheme, authority)), Some(host)) => {
            (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
                && authority.eq_ignore_ascii_case(host.trim())
        }
        _ => false,
    }
}

/// Whether [`HttpOptions::allow_origin`] names `origin` (trimmed, without a trailing `/`).
pub(super) fn named_origin(options: &HttpOptions, origin: &str) -> bool {
    options
        .origins
        .iter()
        .any(|o| o.eq_ignore_ascii_case(origin))
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
    if named_origin(options, origin) {
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

    fn slash() -> http::Uri {
        http::Uri::from_static("/mcp")
    }

    #[test]
    fn an_absolute_form_target_is_judged_by_its_authority() {
        let options = HttpOptions::default();
        let local = headers(&[("host", "127.0.0.1:8000")]);
        let evil = http::Uri::from_static("http://evil.example.com/mcp");
        assert_eq!(judge_host(&options, &local, &evil), Ok(false));
        let mine = http::Uri::from_static("http://localhost:8000/mcp");
        let elsewhere = headers(&[("host", "evil.example.com")]);
        assert_eq!(judge_host(&options, &elsewhere, &mine), Ok(true));
        // Two Host headers stay a bad request whatever the target says.
        let two = headers(&[("host", "localhost"), ("host", "localhost")]);
        assert!(judge_host(&options, &two, &mine).is_err());
    }

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
                host_allowed(&options, &headers(&[("host", host)]), &slash()),
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
                !host_allowed(&options, &headers(&[("host", host)]), &slash()),
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
        assert!(!host_allowed(&options, &two, &slash()));
        let same = headers(&[("host", "localhost"), ("host", "localhost")]);
        assert!(host_header_error(&same).is_some());
        for empty in ["", " ", "\t"] {
            let h = headers(&[("host", empty)]);
            assert!(
                host_header_error(&h).unwrap().contains("empty"),
                "{empty:?}"
            );
            assert!(!host_allowed(&options, &h, &slash()));
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
