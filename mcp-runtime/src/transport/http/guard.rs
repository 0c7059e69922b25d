//! The DNS-rebinding guard: a request whose `Host` or `Origin` is neither loopback nor allowed is
//! refused with 403 before anything else is read.

use super::options::HttpOptions;
use crate::net::{host_part, is_loopback};
use http::{HeaderMap, header};

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
