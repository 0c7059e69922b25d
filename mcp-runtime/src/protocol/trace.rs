//! W3C Trace Context carried in a request's `_meta`: `traceparent` and `tracestate` (exempt from
//! the `_meta` prefix rule; SEP-414).

use super::meta::RequestMeta;

/// `_meta` key of the W3C `traceparent` a client sends to continue its trace.
pub const TRACEPARENT_KEY: &str = "traceparent";
/// `_meta` key of the W3C `tracestate` that goes with `traceparent`.
pub const TRACESTATE_KEY: &str = "tracestate";

/// The trace a request continues: its `traceparent` (trace id, the client's span id, flags) and
/// `tracestate`, as [W3C Trace Context](https://www.w3.org/TR/trace-context/) defines them.
///
/// The server's span for the request becomes a child of the client's span (with the `otel`
/// feature); a handler that calls further services can pass the context on.
///
/// ```
/// use mcp_runtime::protocol::TraceContext;
/// let cx = TraceContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", None)
///     .unwrap();
/// assert_eq!(cx.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
/// assert_eq!(cx.parent_id_hex(), "00f067aa0ba902b7");
/// assert!(cx.is_sampled());
/// assert!(TraceContext::parse("00-00000000000000000000000000000000-00f067aa0ba902b7-01", None).is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// The trace id (16 bytes, never all zero).
    pub trace_id: [u8; 16],
    /// The id of the client's span, the parent of the server's (8 bytes, never all zero).
    pub parent_id: [u8; 8],
    /// The trace flags (bit 0: sampled).
    pub flags: u8,
    /// The `tracestate` sent with it, as sent.
    pub trace_state: Option<String>,
}

impl TraceContext {
    /// Reads a `traceparent` (and the `tracestate` that goes with it); `None` when the
    /// `traceparent` is not valid (the request is then served as the start of a new trace, as
    /// the W3C recommendation asks).
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<TraceContext> {
        let bytes = traceparent.trim_matches([' ', '\t']).as_bytes();
        // version "-" trace-id "-" parent-id "-" flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 bytes.
        if bytes.len() < 55 || bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
            return None;
        }
        let version = hex_byte(&bytes[0..2])?;
        // Version 255 is invalid; version 0 has exactly these fields; a later version may add
        // fields after a dash.
        if version == 0xff || (version == 0 && bytes.len() != 55) {
            return None;
        }
        if bytes.len() > 55 && bytes[55] != b'-' {
            return None;
        }
        let mut trace_id = [0u8; 16];
        for (i, out) in trace_id.iter_mut().enumerate() {
            *out = hex_byte(&bytes[3 + 2 * i..5 + 2 * i])?;
        }
        let mut parent_id = [0u8; 8];
        for (i, out) in parent_id.iter_mut().enumerate() {
            *out = hex_byte(&bytes[36 + 2 * i..38 + 2 * i])?;
        }
        let flags = hex_byte(&bytes[53..55])?;
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        let trace_state = tracestate
            .map(|s| s.trim_matches([' ', '\t']))
            // Printable ASCII only, at most 512 characters (the W3C limit on what is kept).
            .filter(|s| {
                !s.is_empty() && s.len() <= 512 && s.bytes().all(|b| (0x20..0x7f).contains(&b))
            })
            .map(str::to_owned);
        Some(TraceContext {
            trace_id,
            parent_id,
            flags,
            trace_state,
        })
    }

    /// The trace context in a request's `_meta`, when it carries a valid `traceparent`.
    ///
    /// ```
    /// use mcp_runtime::protocol::{RequestMeta, TraceContext};
    /// let meta: RequestMeta = serde_json::from_value(serde_json::json!({
    ///     "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
    ///     "tracestate": "rojo=00f067aa0ba902b7"
    /// })).unwrap();
    /// let cx = TraceContext::from_meta(&meta).unwrap();
    /// assert!(!cx.is_sampled());
    /// assert_eq!(cx.trace_state.as_deref(), Some("rojo=00f067aa0ba902b7"));
    /// ```
    pub fn from_meta(meta: &RequestMeta) -> Option<TraceContext> {
        let traceparent = meta.other.get(TRACEPARENT_KEY)?.as_str()?;
        let tracestate = meta
            .other
            .get(TRACESTATE_KEY)
            .and_then(serde_json::Value::as_str);
        TraceContext::parse(traceparent, tracestate)
    }

    /// Whether the client sampled its trace (flag bit 0).
    pub fn is_sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The trace id in lowercase hex (32 characters).
    pub fn trace_id_hex(&self) -> String {
        hex(&self.trace_id)
    }

    /// The client's span id in lowercase hex (16 characters).
    pub fn parent_id_hex(&self) -> String {
        hex(&self.parent_id)
    }

    /// The `traceparent` value (version 00) that names this context.
    ///
    /// ```
    /// use mcp_runtime::protocol::TraceContext;
    /// let sent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    /// assert_eq!(TraceContext::parse(sent, None).unwrap().traceparent(), sent);
    /// ```
    pub fn traceparent(&self) -> String {
        format!(
            "00-{}-{}-{:02x}",
            self.trace_id_hex(),
            self.parent_id_hex(),
            self.flags
        )
    }
}

/// Two lowercase hex digits (W3C: uppercase is invalid).
fn hex_byte(pair: &[u8]) -> Option<u8> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    Some(digit(pair[0])? << 4 | digit(pair[1])?)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn reads_a_valid_traceparent() {
        let cx = TraceContext::parse(VALID, Some(" rojo=1,congo=2 ")).unwrap();
        assert_eq!(cx.trace_id[0], 0x4b);
        assert_eq!(cx.parent_id[7], 0xb7);
        assert_eq!(cx.flags, 1);
        assert_eq!(cx.trace_state.as_deref(), Some("rojo=1,congo=2"));
        assert_eq!(cx.traceparent(), VALID);
    }

    #[test]
    fn refuses_what_the_recommendation_refuses() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            assert!(TraceContext::parse(bad, None).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn a_later_version_may_add_fields() {
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes";
        assert!(TraceContext::parse(later, None).is_some());
        let glued = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x";
        assert!(TraceContext::parse(glued, None).is_none());
    }

    #[test]
    fn an_unusable_tracestate_is_dropped() {
        let long = "a=".to_owned() + &"b".repeat(600);
        let cx = TraceContext::parse(VALID, Some(&long)).unwrap();
        assert!(cx.trace_state.is_none());
        let cx = TraceContext::parse(VALID, Some("a=\u{e9}")).unwrap();
        assert!(cx.trace_state.is_none());
    }
}
