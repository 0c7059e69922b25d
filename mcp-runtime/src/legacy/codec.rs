//! The 2025-11-25 wire beside the 2026-07-28 one: a legacy request becomes the modern request the
//! pipeline serves (the session supplies the `_meta` a legacy client never sends), and the
//! modern answer becomes what a legacy client expects (no `resultType`, caching hints or result
//! `serverInfo`; `structuredContent` an object).

use super::session::SessionRecord;
use crate::protocol::RequestId;
use bytes::Bytes;
use serde_json::{Map, Value, json};

/// The legacy revisions a dual-era server negotiates, newest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Whether `version` names a legacy (handshake) revision.
pub(crate) fn is_legacy_version(version: &str) -> bool {
    LEGACY_VERSIONS.contains(&version)
}

/// The version `initialize` answers: the client's when this server knows it, else the newest.
pub(crate) fn negotiate(requested: Option<&str>) -> &'static str {
    LEGACY_VERSIONS
        .iter()
        .find(|v| Some(**v) == requested)
        .copied()
        .unwrap_or(LEGACY_VERSIONS[0])
}

/// The levels `logging/setLevel` takes.
pub(crate) const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// A legacy message, as far as the session layer reads it.
#[derive(Debug)]
pub(crate) enum Incoming {
    Request {
        id: RequestId,
        method: String,
        params: Map<String, Value>,
    },
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    /// The client's answer to a server-to-client request.
    Response { id: String, message: Value },
}

/// Reads one legacy message; the JSON-RPC error to answer otherwise.
pub(crate) fn parse(body: &[u8]) -> Result<Incoming, Bytes> {
    let invalid = |id: Option<&Value>, code: i32, message: &str| {
        let mut error = json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}});
        if let Some(id) = id.filter(|id| id.is_string() || id.is_i64() || id.is_u64()) {
            error["id"] = id.clone();
        }
        Bytes::from(error.to_string())
    };
    let mut message: Map<String, Value> = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            return Err(invalid(
                None,
                -32600,
                "Invalid Request: send one JSON-RPC message (an object) per POST",
            ));
        }
        Err(_) => return Err(invalid(None, -32700, "Parse error: the body is not JSON")),
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid(
            message.get("id"),
            -32600,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
        ));
    }
    let params = match message.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => {
            return Err(invalid(
                message.get("id"),
                -32602,
                "Invalid params: `params` must be an object",
            ));
        }
    };
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id");
    match (method, id) {
        (Some(method), None) => Ok(Incoming::Notification {
            method: method.to_owned(),
            params,
        }),
        (Some(method), Some(id)) => match serde_json::from_value::<RequestId>(id.clone()) {
            Ok(request_id) => Ok(Incoming::Request {
                id: request_id,
                method: method.to_owned(),
                params,
            }),
            Err(_) => Err(invalid(
                None,
                -32600,
                "Invalid Request: `id` must be a string or an integer",
            )),
        },
        (None, Some(id)) if message.contains_key("result") || message.contains_key("error") => {
            let key = match id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Ok(Incoming::Response {
                id: key,
                message: Value::Object(message),
            })
        }
        _ => Err(invalid(
            id,
            -32600,
            "Invalid Request: neither a request, a notification nor a response",
        )),
    }
}

/// The modern request a legacy one stands for: its params, with the `_meta` of this session
/// (version, the capabilities and client info `initialize` declared, the log level
/// `logging/setLevel` set) beside the client's own `_meta` keys (a `progressToken`, say).
pub(crate) fn modern_request(
    id: &RequestId,
    method: &str,
    params: &Map<String, Value>,
    session: &SessionRecord,
    version: &str,
) -> Vec<u8> {
    let mut params = params.clone();
    let mut meta = match params.remove("_meta") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    meta.insert(
        "io.modelcontextprotocol/protocolVersion".into(),
        Value::String(version.to_owned()),
    );
    let mut capabilities = match &session.client_capabilities {
        Value::Object(c) => c.clone(),
        _ => Map::new(),
    };
    // Tasks are a 2026-07-28 extension: a legacy session runs every call to its end.
    capabilities.remove("tasks");
    capabilities.remove("extensions");
    meta.insert(
        "io.modelcontextprotocol/clientCapabilities".into(),
        Value::Object(capabilities),
    );
    if let Some(info) = &session.client_info {
        meta.insert("io.modelcontextprotocol/clientInfo".into(), info.clone());
    }
    if let Some(level) = &session.log_level {
        meta.insert(
            "io.modelcontextprotocol/logLevel".into(),
            Value::String(level.clone()),
        );
    }
    params.insert("_meta".into(), Value::Object(meta));
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    serde_json::to_vec(&request).unwrap_or_default()
}

/// What a modern answer comes to on a legacy session.
#[derive(Debug)]
pub(crate) enum Answer {
    /// The legacy response to send.
    Final(Bytes),
    /// Client input is needed: these requests (by key), then a retry with this state.
    InputRequired {
        requests: Map<String, Value>,
        state: Option<Value>,
    },
}

/// Rewrites a modern response for a legacy session.
pub(crate) fn legacy_answer(body: &[u8], method: &str) -> Answer {
    let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(body) else {
        return Answer::Final(Bytes::copy_from_slice(body));
    };
    let Some(Value::Object(result)) = message.get_mut("result") else {
        return Answer::Final(Bytes::copy_from_slice(body));
    };
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        let requests = match result.remove("inputRequests") {
            Some(Value::Object(r)) => r,
            _ => Map::new(),
        };
        return Answer::InputRequired {
            requests,
            state: result.remove("requestState"),
        };
    }
    legacy_result(result, method);
    Answer::Final(Bytes::from(
        serde_json::to_vec(&Value::Object(message)).unwrap_or_default(),
    ))
}

/// Strips what 2025-11-25 results do not carry.
fn legacy_result(result: &mut Map<String, Value>, method: &str) {
    result.remove("resultType");
    result.remove("ttlMs");
    result.remove("cacheScope");
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.remove("io.modelcontextprotocol/serverInfo");
        if meta.is_empty() {
            result.remove("_meta");
        }
    }
    match method {
        "tools/call" => match result.get("structuredContent") {
            Some(Value::Null) => {
                result.remove("structuredContent");
            }
            Some(Value::Object(_)) | None => {}
            Some(other) => {
                let wrapped = json!({ "result": other });
                result.insert("structuredContent".into(), wrapped);
            }
        },
        "tools/list" => {
            if let Some(Value::Array(tools)) = result.get_mut("tools") {
                for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                    // Task support is a 2026-07-28 extension.
                    tool.remove("execution");
                }
            }
        }
        _ => {}
    }
}

/// A server-to-client request on a legacy session of protocol `version`, for one entry of
/// `inputRequests`.
pub(crate) fn client_request(id: &str, asked: &Value, version: &str) -> Option<Bytes> {
    let method = asked.get("method")?.as_str()?;
    if !matches!(
        method,
        "elicitation/create" | "sampling/createMessage" | "roots/list"
    ) {
        return None;
    }
    let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
    match asked.get("params") {
        Some(Value::Object(p)) => {
            let mut params = p.clone();
            // Elicitation modes came with 2025-11-25; before, every elicitation was a form.
            if version < "2025-11-25" && params.get("mode").and_then(Value::as_str) == Some("form")
            {
                params.remove("mode");
            }
            // 2025-11-25 URL-mode elicitations carry an id of their own.
            if method == "elicitation/create"
                && params.get("mode").and_then(Value::as_str) == Some("url")
                && !params.contains_key("elicitationId")
            {
                params.insert("elicitationId".into(), Value::String(id.to_owned()));
            }
            request["params"] = Value::Object(params);
        }
        _ if method != "roots/list" => request["params"] = json!({}),
        _ => {}
    }
    Some(Bytes::from(request.to_string()))
}

/// A JSON-RPC error response (without `id` when the request's is unknown).
pub(crate) fn error(id: Option<&RequestId>, code: i32, message: &str) -> Bytes {
    let mut body = json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}});
    if let Some(id) = id {
        body["id"] = json!(id);
    }
    Bytes::from(body.to_string())
}

/// A JSON-RPC result response.
pub(crate) fn result(id: &RequestId, result: Value) -> Bytes {
    Bytes::from(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_lose_what_2025_does_not_carry() {
        let modern = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":[1,2],"ttlMs":5,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
        let Answer::Final(legacy) = legacy_answer(modern, "tools/call") else {
            panic!("final")
        };
        let legacy: Value = serde_json::from_slice(&legacy).unwrap();
        assert_eq!(
            legacy,
            json!({"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"result":[1,2]}}})
        );
    }

    #[test]
    fn input_required_is_taken_apart() {
        let modern = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s"}}"#;
        let Answer::InputRequired { requests, state } = legacy_answer(modern, "tools/call") else {
            panic!("input")
        };
        assert_eq!(requests.len(), 1);
        assert_eq!(state, Some(json!("s")));
        let asked = client_request("mcp-input-1", &requests["a"], "2025-11-25").unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&asked).unwrap(),
            json!({"jsonrpc":"2.0","id":"mcp-input-1","method":"roots/list"})
        );
    }

    #[test]
    fn versions_are_negotiated_down_to_one_this_server_knows() {
        assert_eq!(negotiate(Some("2025-06-18")), "2025-06-18");
        assert_eq!(negotiate(Some("2099-01-01")), "2025-11-25");
        assert_eq!(negotiate(None), "2025-11-25");
    }
}
