//! Which revision one HTTP request belongs to, decided per request (never by its method name):
//!
//! 1. a legacy `MCP-Protocol-Version` header (2024-11-05 … 2025-11-25): legacy, whatever the
//!    body carries (some hosts put 2026 `_meta` keys on legacy sessions);
//! 2. an `Mcp-Session-Id` and no `MCP-Protocol-Version` header: legacy;
//! 3. any other `MCP-Protocol-Version` header (2026-07-28, or one this server does not know):
//!    modern, with its whole validation (`-32602`, `-32020`, `-32022`);
//! 4. a `_meta` protocol version in the body: modern;
//! 5. anything else (a bare `initialize`): legacy.

use super::headers::McpHeaders;
use crate::legacy::is_legacy_version;

/// The revision a request is served by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    Modern,
    Legacy,
}

/// The era of a POST whose MCP headers are `found`, with this body.
pub(super) fn of_post(found: &McpHeaders<'_>, body: &[u8]) -> Era {
    match found.version() {
        Some(version) if is_legacy_version(version) => Era::Legacy,
        Some(_) => Era::Modern,
        None if found.session() => Era::Legacy,
        None if claims_modern(body) => Era::Modern,
        None => Era::Legacy,
    }
}

/// Whether the body names a 2026 protocol version in `_meta` (read as bytes: a legacy body never
/// holds the key).
fn claims_modern(body: &[u8]) -> bool {
    const KEY: &[u8] = b"\"io.modelcontextprotocol/protocolVersion\"";
    body.windows(KEY.len()).any(|w| w == KEY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderMap;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            let name = http::HeaderName::from_bytes(k.as_bytes()).unwrap();
            h.insert(name, v.parse().unwrap());
        }
        h
    }

    const MODERN_BODY: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    const BARE: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;

    #[test]
    fn the_era_table() {
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a [u8], Era);
        let cases: [Case<'_>; 8] = [
            (&[("mcp-protocol-version", "2025-11-25")], BARE, Era::Legacy),
            (
                &[("mcp-protocol-version", "2025-06-18")],
                MODERN_BODY,
                Era::Legacy,
            ),
            (&[("mcp-session-id", "abc")], MODERN_BODY, Era::Legacy),
            (
                &[
                    ("mcp-session-id", "abc"),
                    ("mcp-protocol-version", "2025-11-25"),
                ],
                BARE,
                Era::Legacy,
            ),
            (&[("mcp-protocol-version", "2026-07-28")], BARE, Era::Modern),
            (&[("mcp-protocol-version", "v999.0.0")], BARE, Era::Modern),
            (&[], MODERN_BODY, Era::Modern),
            (&[], BARE, Era::Legacy),
        ];
        for (pairs, body, era) in cases {
            let h = headers(pairs);
            assert_eq!(of_post(&McpHeaders::scan(&h), body), era, "{pairs:?}");
        }
    }
}
