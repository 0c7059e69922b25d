//! Content negotiation: the body must be JSON (else 415), and the client must accept JSON or SSE
//! (else 406); which of the two it accepts decides how a call that notifies is answered.

use http::{HeaderMap, HeaderValue, StatusCode, header};

/// Which answers the client accepts.
pub(super) struct AcceptSet {
    pub(super) json: bool,
    pub(super) sse: bool,
}

pub(super) fn accepts(headers: &HeaderMap) -> AcceptSet {
    let mut set = AcceptSet {
        json: false,
        sse: false,
    };
    let mut values = headers.get_all(header::ACCEPT).iter();
    // What MCP clients send: no list to parse.
    if let (Some(v), None) = (values.next(), values.next())
        && v.as_bytes() == b"application/json, text/event-stream"
    {
        return AcceptSet {
            json: true,
            sse: true,
        };
    }
    let mut any = false;
    for v in headers.get_all(header::ACCEPT) {
        any = true;
        for item in v.to_str().unwrap_or("").split(',') {
            let mut parts = item.split(';');
            let media = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.starts_with("q=") && p[2..].trim().parse::<f32>().is_ok_and(|q| q == 0.0)
            });
            if refused {
                continue;
            }
            let is = |m: &str| media.eq_ignore_ascii_case(m);
            if is("*/*") {
                set.json = true;
                set.sse = true;
            } else if is("application/json") || is("application/*") {
                set.json = true;
            } else if is("text/event-stream") || is("text/*") {
                set.sse = true;
            }
        }
    }
    if !any {
        return AcceptSet {
            json: true,
            sse: true,
        };
    }
    set
}

/// A POST's media checks: what the client accepts, or the `415` or `406` that refuses it and
/// its message.
pub(super) fn post_media(headers: &HeaderMap) -> Result<AcceptSet, (StatusCode, &'static str)> {
    if !content_type_ok(headers) {
        return Err((
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: send the JSON-RPC message as application/json",
        ));
    }
    let accept = accepts(headers);
    if !accept.json && !accept.sse {
        return Err((
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: accept application/json and text/event-stream",
        ));
    }
    Ok(accept)
}

pub(super) fn content_type_ok(headers: &HeaderMap) -> bool {
    let value = headers.get(header::CONTENT_TYPE);
    if value.is_some_and(|v| v.as_bytes() == b"application/json") {
        return true;
    }
    match value.map(HeaderValue::to_str) {
        None => true,
        Some(Ok(ct)) => ct
            .split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json")),
        Some(Err(_)) => false,
    }
}
