//! The lab page's view sandbox (MCP Apps' "sandbox proxy" for web hosts): a document served on
//! the *other* loopback name of this server (the page on `127.0.0.1` frames it from `localhost`,
//! and the other way round), so that it never shares the page's origin. The page sends it a
//! view's HTML by `postMessage`; it renders the HTML in an inner frame of an opaque origin and
//! relays the JSON-RPC messages between that frame and the page, making no request of its own.
//!
//! The view's Content Security Policy is this document's response header (a `srcdoc` frame
//! inherits its parent's policy), built from the view's `_meta.ui.csp`, which the page passes in
//! the query (`?csp=` and the JSON): every domain that could end or split a directive is dropped,
//! and a view that declares nothing gets the restrictive default.

use crate::net::host_part;
use serde_json::Value;

/// The relay, with `{{PARENT}}` where the page's origin goes (a JSON string).
const DOCUMENT: &str = include_str!("sandbox.html");

/// How many domains of one list are kept.
const MAX_DOMAINS: usize = 32;
/// How long a domain may be, in bytes.
const MAX_DOMAIN_BYTES: usize = 255;

/// The domains a view declared (`_meta.ui.csp`), each list sanitized.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ViewCsp {
    connect: Vec<String>,
    resource: Vec<String>,
    frame: Vec<String>,
    base_uri: Vec<String>,
}

impl ViewCsp {
    /// The lists of a `McpUiResourceCsp` object; `None` when `csp` is not an object. Unknown
    /// keys, entries that are not strings and unsafe domains ([`safe_domain`]) are left out.
    pub(super) fn from_json(csp: &Value) -> Option<ViewCsp> {
        let csp = csp.as_object()?;
        let list = |key: &str| -> Vec<String> {
            csp.get(key)
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .filter(|d| safe_domain(d))
                        .take(MAX_DOMAINS)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        Some(ViewCsp {
            connect: list("connectDomains"),
            resource: list("resourceDomains"),
            frame: list("frameDomains"),
            base_uri: list("baseUriDomains"),
        })
    }

    /// The sandbox's policy: the spec's template (the restrictive default when nothing is
    /// declared), stricter in three ways. `'self'` is left out of every fetch directive: the
    /// sandbox's origin is this server's (its endpoint, the lab page), not an empty origin as in
    /// the spec, and the view has no business there. `form-action 'none'`: a form may run its
    /// submit handler but never navigates. `frame-ancestors`: only the lab page may frame it.
    pub(super) fn policy(&self, parent: &str) -> String {
        let with = |first: &str, list: &[String]| {
            std::iter::once(first)
                .chain(list.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let or_none = |list: &[String], none: &str| {
            if list.is_empty() {
                none.to_owned()
            } else {
                list.join(" ")
            }
        };
        [
            "default-src 'none'".to_owned(),
            format!("script-src {}", with("'unsafe-inline'", &self.resource)),
            format!("style-src {}", with("'unsafe-inline'", &self.resource)),
            format!("img-src {}", with("data:", &self.resource)),
            format!("media-src {}", with("data:", &self.resource)),
            format!("font-src {}", or_none(&self.resource, "'none'")),
            format!("connect-src {}", or_none(&self.connect, "'none'")),
            format!("frame-src {}", or_none(&self.frame, "'none'")),
            "object-src 'none'".to_owned(),
            format!("base-uri {}", or_none(&self.base_uri, "'self'")),
            "form-action 'none'".to_owned(),
            format!("frame-ancestors {parent}"),
        ]
        .join("; ")
    }
}

/// Whether `domain` may go into a policy as it is: printable ASCII without `;` or `,` (which end
/// a directive or a policy) or quotes (which would make a keyword such as `'unsafe-eval'`), so no
/// whitespace or control character either, and of a sane length.
fn safe_domain(domain: &str) -> bool {
    !domain.is_empty()
        && domain.len() <= MAX_DOMAIN_BYTES
        && domain
            .chars()
            .all(|c| c.is_ascii_graphic() && !matches!(c, ';' | ',' | '\'' | '"'))
}

/// The origin of the sandbox for a lab page requested with this `Host`: the same port on the
/// other loopback name. `None` for any other host (`[::1]`, which no policy can name, or a
/// non-loopback name when the page is served to any client): views are then not rendered.
pub(super) fn counterpart(host: &str) -> Option<String> {
    let host = host.trim();
    let name = host_part(host);
    let port = &host[name.len()..];
    if !(port.is_empty() || port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let other = if name.eq_ignore_ascii_case("localhost") {
        "127.0.0.1"
    } else if name == "127.0.0.1" {
        "localhost"
    } else {
        return None;
    };
    Some(format!("http://{other}{port}"))
}

/// What the sandbox route answers: the document and its policy, or why not (400).
pub(super) fn sandbox(
    host: Option<&str>,
    query: Option<&str>,
) -> Result<(String, String), &'static str> {
    let parent = host.and_then(counterpart).ok_or(
        "Bad Request: the view sandbox is served on localhost or 127.0.0.1, for the lab page on the other name",
    )?;
    let csp = match query_value(query.unwrap_or(""), "csp")? {
        None => ViewCsp::default(),
        Some(text) => serde_json::from_str::<Value>(&text)
            .ok()
            .as_ref()
            .and_then(ViewCsp::from_json)
            .ok_or("Bad Request: csp is the JSON object of a view's _meta.ui.csp")?,
    };
    let parent_json = serde_json::to_string(&parent).unwrap_or_default();
    Ok((
        DOCUMENT.replace("{{PARENT}}", &parent_json),
        csp.policy(&parent),
    ))
}

/// The value of `key` in a query string (percent-decoded), `None` when absent; an error when it
/// is given twice or does not decode.
fn query_value(query: &str, key: &str) -> Result<Option<String>, &'static str> {
    let mut found = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if name != key {
            continue;
        }
        if found.is_some() {
            return Err("Bad Request: a query parameter is given twice");
        }
        found =
            Some(percent_decode(value).ok_or("Bad Request: a query parameter does not decode")?);
    }
    Ok(found)
}

/// `text` with its `%XX` escapes decoded and `+` read as a space; `None` when an escape is
/// broken or the bytes are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let digit = |b: u8| char::from(b).to_digit(16);
                let value = digit(hex[0])? * 16 + digit(hex[1])?;
                out.push(u8::try_from(value).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_sandbox_is_on_the_other_loopback_name() {
        assert_eq!(
            counterpart("127.0.0.1:8000").as_deref(),
            Some("http://localhost:8000")
        );
        assert_eq!(
            counterpart("LocalHost:9").as_deref(),
            Some("http://127.0.0.1:9")
        );
        assert_eq!(
            counterpart("localhost").as_deref(),
            Some("http://127.0.0.1")
        );
        for host in [
            "[::1]:8000",
            "example.com:8000",
            "127.0.0.2:80",
            "localhost:80x",
            "",
        ] {
            assert_eq!(counterpart(host), None, "{host}");
        }
    }

    #[test]
    fn nothing_declared_is_the_restrictive_default() {
        let policy = ViewCsp::default().policy("http://127.0.0.1:8000");
        assert_eq!(
            policy,
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             img-src data:; media-src data:; font-src 'none'; connect-src 'none'; \
             frame-src 'none'; object-src 'none'; base-uri 'self'; form-action 'none'; \
             frame-ancestors http://127.0.0.1:8000"
        );
        assert!(
            !policy.contains("'self' "),
            "no fetch directive names 'self'"
        );
    }

    #[test]
    fn declared_domains_go_into_their_directives() {
        let csp = ViewCsp::from_json(&json!({
            "connectDomains": ["https://api.example.com", "wss://live.example.com"],
            "resourceDomains": ["https://cdn.example.com"],
            "frameDomains": ["https://www.youtube.com"],
            "baseUriDomains": ["https://base.example.com"],
            "other": ["https://ignored.example.com"],
        }))
        .unwrap();
        let policy = csp.policy("http://localhost:1");
        for part in [
            "script-src 'unsafe-inline' https://cdn.example.com;",
            "style-src 'unsafe-inline' https://cdn.example.com;",
            "img-src data: https://cdn.example.com;",
            "font-src https://cdn.example.com;",
            "connect-src https://api.example.com wss://live.example.com;",
            "frame-src https://www.youtube.com;",
            "base-uri https://base.example.com;",
        ] {
            assert!(policy.contains(part), "{part} in {policy}");
        }
        assert!(!policy.contains("ignored"));
    }

    #[test]
    fn a_domain_that_could_end_or_split_a_directive_is_dropped() {
        let csp = ViewCsp::from_json(&json!({
            "connectDomains": [
                "https://ok.example.com",
                "https://a.example.com; script-src *",
                "https://b.example.com,https://c.example.com",
                "'unsafe-eval'",
                "\"x\"",
                "https://d.example.com https://e.example.com",
                "https://f.example.com\r\nX-Header: 1",
                "https://g.example.com\u{7}",
                "https://\u{e9}.example.com",
                "",
                42,
            ],
            "resourceDomains": "https://not-a-list.example.com",
        }))
        .unwrap();
        assert_eq!(
            csp,
            ViewCsp {
                connect: vec!["https://ok.example.com".to_owned()],
                ..ViewCsp::default()
            }
        );
        assert!(ViewCsp::from_json(&json!(["https://a.example.com"])).is_none());
    }

    #[test]
    fn the_route_reads_its_query() {
        let (document, policy) = sandbox(
            Some("localhost:8000"),
            Some("csp=%7B%22connectDomains%22%3A%5B%22https%3A%2F%2Fapi.example.com%22%5D%7D"),
        )
        .unwrap();
        assert!(policy.contains("connect-src https://api.example.com;"));
        assert!(policy.ends_with("frame-ancestors http://127.0.0.1:8000"));
        assert!(document.contains(r#""http://127.0.0.1:8000""#));
        assert!(!document.contains("{{PARENT}}"));
        let (_, default) = sandbox(Some("127.0.0.1:8000"), None).unwrap();
        assert!(default.contains("connect-src 'none';"));
        assert!(sandbox(Some("localhost:8000"), Some("csp=%7B")).is_err());
        assert!(sandbox(Some("localhost:8000"), Some("csp=%5B%5D")).is_err());
        assert!(sandbox(Some("localhost:8000"), Some("csp=%7B%7D&csp=%7B%7D")).is_err());
        assert!(sandbox(Some("localhost:8000"), Some("csp=%zz")).is_err());
        assert!(sandbox(Some("[::1]:8000"), None).is_err());
        assert!(sandbox(None, None).is_err());
    }

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(percent_decode("a%20b+c%2B").as_deref(), Some("a b c+"));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("\u{e9}"));
        for bad in ["%", "%2", "%+1", "%FF"] {
            assert_eq!(percent_decode(bad), None, "{bad}");
        }
    }
}
