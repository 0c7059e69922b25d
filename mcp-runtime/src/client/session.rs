//! A 2026-07-28 request as a 2025 session sends it: what `initialize` declares once, and the
//! request without it.

use serde_json::{Map, Value};

/// The `_meta` keys a 2026-07-28 request carries that an older revision knows as the session's
/// (sent once in `initialize`), not the request's.
const SESSION_META: [&str; 4] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
];

/// A 2026-07-28 request rewritten for a 2025 session: the session's `_meta` keys taken out (an
/// emptied `_meta` removed), so the message is what an older client sends.
pub(crate) fn legacy_params(message: &mut Map<String, Value>) {
    let Some(Value::Object(params)) = message.get_mut("params") else {
        return;
    };
    if let Some(Value::Object(meta)) = params.get_mut("_meta") {
        for key in SESSION_META {
            meta.remove(key);
        }
        if meta.is_empty() {
            params.remove("_meta");
        }
    }
}

/// The `_meta` a first request declared, for the `initialize` of a 2025 session: its client
/// capabilities and client info.
pub(crate) fn session_meta(message: &Map<String, Value>) -> (Value, Value) {
    let meta = &message["params"]["_meta"];
    let caps = meta
        .get("io.modelcontextprotocol/clientCapabilities")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    let info = meta
        .get("io.modelcontextprotocol/clientInfo")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"name": "mcp-runtime-client", "version": env!("CARGO_PKG_VERSION")}));
    (caps, info)
}
