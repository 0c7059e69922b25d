//! The MCP headers that mirror the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and
//! the `Mcp-Param-*` of tool arguments declared with `x-mcp-header`), checked against it at their
//! places in the pipeline (`-32020`). Values are trimmed of optional whitespace; a
//! `=?base64?…?=` value is decoded.

use crate::dispatch::TransportChecks;
use crate::error::McpError;
use crate::protocol::ClientRequest;
use crate::registry::{HeaderKind, ParamHeader};
use base64::Engine as _;
use http::{HeaderMap, HeaderValue};
use serde_json::{Map, Value};

/// The checks of one request's headers.
pub(super) struct HeaderChecks<'h> {
    headers: &'h HeaderMap,
    found: McpHeaders<'h>,
}

impl<'h> HeaderChecks<'h> {
    /// The checks of `headers`, whose MCP headers were `found` by [`McpHeaders::scan`].
    pub(super) fn new(headers: &'h HeaderMap, found: McpHeaders<'h>) -> Self {
        HeaderChecks { headers, found }
    }
}

impl TransportChecks for HeaderChecks<'_> {
    fn check_request(&self, request: &ClientRequest<'_>) -> Result<(), McpError> {
        let found = self.found;
        let body_version = request
            .meta
            .as_ref()
            .and_then(|m| m.protocol_version.as_deref())
            .unwrap_or_default();
        match header_value(found.version, "mcp-protocol-version")? {
            None => {
                return Err(McpError::header_mismatch(
                    "Header mismatch: the MCP-Protocol-Version header is required",
                ));
            }
            Some(v) if v != body_version => {
                return Err(McpError::header_mismatch(format!(
                    "Header mismatch: MCP-Protocol-Version header value '{v}' does not match body value '{body_version}'"
                )));
            }
            Some(_) => {}
        }
        let method = request.method_name();
        match header_value(found.method, "mcp-method")? {
            None => {
                return Err(McpError::header_mismatch(
                    "Header mismatch: the Mcp-Method header is required",
                ));
            }
            Some(v) if v != method => {
                return Err(McpError::header_mismatch(format!(
                    "Header mismatch: Mcp-Method header value '{v}' does not match body value '{method}'"
                )));
            }
            Some(_) => {}
        }
        if request.method().is_ok_and(|m| m.mcp_name_header()) {
            match (
                header_value(found.name, "mcp-name")?,
                request.primitive_name(),
            ) {
                (None, _) => {
                    return Err(McpError::header_mismatch(format!(
                        "Header mismatch: the Mcp-Name header is required for {method}"
                    )));
                }
                (Some(v), Some(b)) if v == b => {}
                (Some(v), b) => {
                    return Err(McpError::header_mismatch(format!(
                        "Header mismatch: Mcp-Name header value '{v}' does not match body value '{}'",
                        b.unwrap_or("")
                    )));
                }
            }
        }
        Ok(())
    }

    /// A present, non-null argument needs its `Mcp-Param-*` header with an equal value.
    fn check_arguments(
        &self,
        declared: &[ParamHeader],
        arguments: &Map<String, Value>,
    ) -> Result<(), McpError> {
        for h in declared {
            let mut value = None;
            let mut level = Some(arguments);
            for (i, step) in h.path.iter().enumerate() {
                let v = level.and_then(|m| m.get(step));
                if i + 1 == h.path.len() {
                    value = v;
                } else {
                    level = v.and_then(Value::as_object);
                }
            }
            let Some(value) = value.filter(|v| !v.is_null()) else {
                continue;
            };
            let mut seen = Seen::Absent;
            for (name, value) in self.headers {
                if name.as_str().strip_prefix("mcp-param-") == Some(h.lower.as_str()) {
                    seen.add(value);
                }
            }
            let header = match seen {
                Seen::Absent => None,
                Seen::Once(value) => Some(value),
                // Two values: an intermediary may route on the other one.
                Seen::Repeated => {
                    return Err(McpError::header_mismatch(format!(
                        "Header mismatch: Mcp-Param-{} is given more than once",
                        h.name
                    )));
                }
            };
            let Some(raw) = header else {
                return Err(McpError::header_mismatch(format!(
                    "Header mismatch: Mcp-Param-{} is required because argument `{}` is present",
                    h.name,
                    h.path.join(".")
                )));
            };
            // Bytes that are not visible ASCII cannot match any argument: a mismatch.
            let decoded = raw
                .to_str()
                .ok()
                .and_then(decode_header_text)
                .ok_or_else(|| {
                    McpError::header_mismatch(format!(
                        "Header mismatch: Mcp-Param-{} has an invalid value encoding",
                        h.name
                    ))
                })?;
            let equal = match (h.kind, value) {
                (HeaderKind::String, Value::String(s)) => decoded == *s,
                (HeaderKind::Boolean, Value::Bool(b)) => {
                    decoded == if *b { "true" } else { "false" }
                }
                (HeaderKind::Integer, Value::Number(n)) => {
                    match (decoded.parse::<f64>(), n.as_f64()) {
                        (Ok(a), Some(b)) => a == b,
                        _ => false,
                    }
                }
                _ => false,
            };
            if !equal {
                return Err(McpError::header_mismatch(format!(
                    "Header mismatch: Mcp-Param-{} header value '{decoded}' does not match body value '{}'",
                    h.name,
                    match value {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    }
                )));
            }
        }
        Ok(())
    }
}

/// A header looked for in one pass over the request's headers.
#[derive(Clone, Copy)]
enum Seen<'h> {
    Absent,
    Once(&'h HeaderValue),
    Repeated,
}

impl<'h> Seen<'h> {
    fn add(&mut self, value: &'h HeaderValue) {
        *self = match self {
            Seen::Absent => Seen::Once(value),
            _ => Seen::Repeated,
        };
    }
}

/// The MCP metadata headers, found in one pass (cheaper than three lookups by name); the
/// same pass tells the era of the request (`era.rs`).
#[derive(Clone, Copy)]
pub(super) struct McpHeaders<'h> {
    version: Seen<'h>,
    method: Seen<'h>,
    name: Seen<'h>,
    session: bool,
}

impl<'h> McpHeaders<'h> {
    pub(super) fn scan(headers: &'h HeaderMap) -> Self {
        let mut found = McpHeaders {
            version: Seen::Absent,
            method: Seen::Absent,
            name: Seen::Absent,
            session: false,
        };
        for (name, value) in headers {
            match name.as_str() {
                "mcp-protocol-version" => found.version.add(value),
                "mcp-method" => found.method.add(value),
                "mcp-name" => found.name.add(value),
                "mcp-session-id" => found.session = true,
                _ => {}
            }
        }
        found
    }

    /// The `MCP-Protocol-Version` header, trimmed: `Some("")` when it is there but repeated or
    /// not text (the 2026 path reports that), `None` when absent.
    pub(super) fn version(&self) -> Option<&'h str> {
        match self.version {
            Seen::Absent => None,
            Seen::Once(v) => Some(v.to_str().map(str::trim).unwrap_or("")),
            Seen::Repeated => Some(""),
        }
    }

    /// Whether `Mcp-Session-Id` is there.
    pub(super) fn session(&self) -> bool {
        self.session
    }
}

/// Reads a metadata header: trimmed of optional whitespace, base64 sentinel decoded (the only
/// case that allocates).
fn header_value<'h>(
    seen: Seen<'h>,
    name: &str,
) -> Result<Option<std::borrow::Cow<'h, str>>, McpError> {
    let raw = match seen {
        Seen::Absent => return Ok(None),
        Seen::Once(raw) => raw,
        Seen::Repeated => {
            return Err(McpError::header_mismatch(format!(
                "Header mismatch: `{name}` is given more than once"
            )));
        }
    };
    let text = raw.to_str().map_err(|_| {
        McpError::header_mismatch(format!(
            "Header mismatch: `{name}` contains characters that are not visible ASCII; encode the value as =?base64?…?="
        ))
    })?;
    let text = trim_whitespace(text);
    // `to_str` let only visible ASCII and tabs through: a tab is the one control left.
    if text.bytes().any(|c| c == b'\t') {
        return Err(McpError::header_mismatch(format!(
            "Header mismatch: `{name}` contains control characters"
        )));
    }
    if !text.starts_with("=?base64?") {
        return Ok(Some(std::borrow::Cow::Borrowed(text)));
    }
    decode_sentinel(text)
        .map(|t| Some(std::borrow::Cow::Owned(t)))
        .ok_or_else(|| {
            McpError::header_mismatch(format!(
                "Header mismatch: `{name}` has an invalid =?base64?…?= value"
            ))
        })
}

/// `text` without the optional whitespace (spaces and tabs) at either end. By bytes: a
/// `trim_matches` with a pattern of two chars decodes every char (BENCHMARKS.md, "Header
/// checks").
fn trim_whitespace(text: &str) -> &str {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let bytes = text.as_bytes();
    let start = bytes.iter().position(|b| !blank(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |i| i + 1);
    // Both ends sit next to ASCII bytes (or the ends of `text`): char boundaries.
    &text[start..end]
}

/// Trims optional whitespace, refuses control characters, and decodes the base64 sentinel.
fn decode_header_text(raw: &str) -> Option<String> {
    let text = trim_whitespace(raw);
    if text.chars().any(|c| c.is_ascii_control()) {
        return None;
    }
    decode_sentinel(text)
}

/// Decodes `=?base64?…?=` values; other values are returned as they are.
fn decode_sentinel(text: &str) -> Option<String> {
    match text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        None => Some(text.to_owned()),
        Some(b64) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::collect_param_headers;
    use serde_json::json;

    #[test]
    fn sentinel() {
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(decode_sentinel("plain").as_deref(), Some("plain"));
        assert_eq!(decode_sentinel("=?base64?SGVsbG8?="), None);
    }

    fn check(
        declared: &[ParamHeader],
        arguments: &Map<String, Value>,
        headers: &[(String, String)],
    ) -> Result<(), McpError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(
                http::HeaderName::try_from(format!("mcp-param-{name}")).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        HeaderChecks::new(&map, McpHeaders::scan(&map)).check_arguments(declared, arguments)
    }

    fn schema(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    fn collect(schema: &Map<String, Value>) -> Result<Vec<ParamHeader>, String> {
        collect_param_headers(schema)
    }

    #[test]
    fn header_checks() {
        let declared = collect(&schema(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"}
        }})))
        .unwrap();
        let args = json!({"region": "us-west1", "count": 42, "flag": true});
        let args = args.as_object().unwrap();
        let h = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert!(
            check(
                &declared,
                args,
                &h(&[("region", "us-west1"), ("count", "42.0"), ("flag", "true")])
            )
            .is_ok()
        );
        assert!(
            check(
                &declared,
                args,
                &h(&[
                    ("region", "=?base64?dXMtd2VzdDE=?="),
                    ("count", "42"),
                    ("flag", "true")
                ])
            )
            .is_ok()
        );
        assert_eq!(
            check(&declared, args, &h(&[("count", "42"), ("flag", "true")]))
                .unwrap_err()
                .code(),
            -32020
        );
        assert!(
            check(
                &declared,
                args,
                &h(&[("region", "eu"), ("count", "42"), ("flag", "true")])
            )
            .is_err()
        );
        assert!(
            check(
                &declared,
                args,
                &h(&[
                    ("region", "=?base64?SGVsbG8?="),
                    ("count", "42"),
                    ("flag", "true")
                ])
            )
            .is_err()
        );
        // Found by the hostile-input suite: a repeated header was read by its first value.
        let twice = vec![
            ("region".to_owned(), "us-west1".to_owned()),
            ("region".to_owned(), "eu".to_owned()),
            ("count".to_owned(), "42".to_owned()),
            ("flag".to_owned(), "true".to_owned()),
        ];
        let err = check(&declared, args, &twice).unwrap_err();
        assert_eq!(err.code(), -32020);
        assert!(err.message().contains("more than once"), "{err:?}");
        let empty = Map::new();
        assert!(
            check(&declared, &empty, &[]).is_ok(),
            "absent arguments expect no header"
        );
    }
}
