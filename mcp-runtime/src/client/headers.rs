//! The HTTP headers a client request mirrors from its body: `Mcp-Name` and the
//! `Mcp-Param-{Name}` of a tool's `x-mcp-header` arguments, in plain text or the Base64
//! sentinel form.

use crate::registry::{HeaderKind, ParamHeader};
use base64::Engine;
use serde_json::Value;

/// `text` as a header value: as is when it is plain visible ASCII without surrounding
/// whitespace (and does not look like the sentinel), else `=?base64?…?=`.
pub(crate) fn header_text(text: &str) -> String {
    let visible = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let sentinel_like = text.starts_with("=?base64?") && text.ends_with("?=");
    if text.is_empty() || (visible && !padded && !sentinel_like) {
        return text.to_owned();
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("=?base64?{encoded}?=")
}

/// The `Mcp-Param-*` headers of a tool call: one per declared argument present and not null.
#[inline]
pub(crate) fn param_headers(declared: &[ParamHeader], arguments: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for header in declared {
        let mut at = arguments;
        for key in &header.path {
            at = &at[key.as_str()];
        }
        let text = match (header.kind, at) {
            (_, Value::Null) => continue,
            (HeaderKind::String, Value::String(s)) => header_text(s),
            (HeaderKind::Integer, Value::Number(n)) => n.to_string(),
            (HeaderKind::Boolean, Value::Bool(b)) => b.to_string(),
            // A value of the wrong type: the server refuses the arguments anyway.
            _ => continue,
        };
        out.push((format!("Mcp-Param-{}", header.name), text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::header_text;

    #[test]
    fn sentinel_only_where_plain_text_would_not_survive() {
        assert_eq!(header_text("us-west1"), "us-west1");
        assert_eq!(
            header_text("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_text(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_text("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert!(header_text("=?base64?x?=").starts_with("=?base64?PT9"));
    }
}
