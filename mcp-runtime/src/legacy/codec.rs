//! The 2025-11-25 wire beside the 2026-07-28 one: a legacy request becomes the modern request the
//! pipeline serves (the session supplies the `_meta` a legacy client never sends), and the
//! modern answer becomes what a legacy client expects (no `resultType`, caching hints or result
//! `serverInfo`; `structuredContent` an object: `answer.rs`).

use super::session::SessionRecord;
use crate::protocol::{RequestId, codes};
use bytes::Bytes;
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::borrow::Cow;

/// The legacy revisions a dual-era server negotiates, newest first.
///
/// ```
/// assert_eq!(mcp_runtime::legacy::LEGACY_VERSIONS[0], "2025-11-25");
/// ```
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

/// A request's or notification's `params`, kept as the client's JSON text: a call's are copied
/// into the modern request without being taken apart.
#[derive(Debug, Default)]
pub(crate) struct Params(Option<Box<RawValue>>);

impl Params {
    /// The params as a map (for the few methods that read them here).
    pub(crate) fn map(&self) -> Map<String, Value> {
        self.0
            .as_ref()
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default()
    }
}

/// What `initialize` reads of its params: the version asked for (when a string), the client's
/// capabilities (an object, else none) and `clientInfo` (any value, `null` too).
#[derive(Debug)]
pub(crate) struct InitializeParams {
    pub(crate) version: Option<String>,
    pub(crate) capabilities: Value,
    pub(crate) client_info: Option<Value>,
}

impl Params {
    /// The params `initialize` reads, in one pass over their text, against [`map`](Self::map)
    /// then copies of its members (BENCHMARKS.md, "The legacy codec"). What a map of them would
    /// give: each member's value read as a `Value`, the last of a repeated one counts, and
    /// params that are no such map (a number out of range) give the defaults.
    pub(crate) fn initialize(&self) -> InitializeParams {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = InitializeParams;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut read = InitializeParams::default();
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    let value: Value = map.next_value()?;
                    match key.as_ref() {
                        "protocolVersion" => {
                            read.version = match value {
                                Value::String(v) => Some(v),
                                _ => None,
                            }
                        }
                        "capabilities" => read.capabilities = value,
                        "clientInfo" => read.client_info = Some(value),
                        _ => {}
                    }
                }
                if !read.capabilities.is_object() {
                    read.capabilities = Value::Object(Map::new());
                }
                Ok(read)
            }
        }
        let Some(raw) = &self.0 else {
            return InitializeParams::default();
        };
        let mut de = serde_json::Deserializer::from_str(raw.get());
        serde::Deserializer::deserialize_map(&mut de, Visit).unwrap_or_default()
    }
}

impl Default for InitializeParams {
    fn default() -> Self {
        InitializeParams {
            version: None,
            capabilities: Value::Object(Map::new()),
            client_info: None,
        }
    }
}

/// A legacy message, as far as the session layer reads it.
#[derive(Debug)]
pub(crate) enum Incoming {
    Request {
        id: RequestId,
        method: String,
        params: Params,
    },
    Notification {
        method: String,
        params: Params,
    },
    /// The client's answer to a server-to-client request.
    Response {
        id: String,
        message: Value,
    },
}

/// The envelope of a message, its parts left as text.
#[derive(Deserialize)]
pub(super) struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// Reads one legacy message; the JSON-RPC error to answer otherwise.
pub(crate) fn parse(body: &[u8]) -> Result<Incoming, Bytes> {
    let invalid = |id: Option<&RawValue>, code: i32, message: &str| {
        let mut error = json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}});
        if let Some(id) = id.and_then(|id| serde_json::from_str::<RequestId>(id.get()).ok()) {
            error["id"] = json!(id);
        }
        Bytes::from(error.to_string())
    };
    // Read as text (`crate::json`): bytes that are not UTF-8 are no JSON.
    let read = std::str::from_utf8(body).map(serde_json::from_str::<Envelope<'_>>);
    let envelope = match read {
        Ok(Ok(e)) => e,
        Ok(Err(e)) if !(e.is_syntax() || e.is_eof()) => {
            return Err(invalid(
                None,
                codes::INVALID_REQUEST,
                "Invalid Request: send one JSON-RPC message (an object) per POST",
            ));
        }
        Err(_) | Ok(Err(_)) => {
            return Err(invalid(
                None,
                codes::PARSE_ERROR,
                "Parse error: the body is not JSON",
            ));
        }
    };
    if envelope.jsonrpc.as_deref() != Some("2.0") {
        return Err(invalid(
            envelope.id,
            codes::INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
        ));
    }
    let params = match envelope.params {
        None => Params(None),
        Some(raw) if raw.get().starts_with('{') => Params(Some(raw.to_owned())),
        Some(raw) if raw.get() == "null" => Params(None),
        Some(_) => {
            return Err(invalid(
                envelope.id,
                codes::INVALID_PARAMS,
                "Invalid params: `params` must be an object",
            ));
        }
    };
    match (envelope.method, envelope.id) {
        (Some(method), None) => Ok(Incoming::Notification {
            method: method.into_owned(),
            params,
        }),
        (Some(method), Some(id)) => match serde_json::from_str::<RequestId>(id.get()) {
            Ok(request_id) => Ok(Incoming::Request {
                id: request_id,
                method: method.into_owned(),
                params,
            }),
            Err(_) => Err(invalid(
                None,
                codes::INVALID_REQUEST,
                "Invalid Request: `id` must be a string or an integer",
            )),
        },
        (None, Some(id)) if envelope.result.is_some() || envelope.error.is_some() => {
            let key = match serde_json::from_str::<Value>(id.get()) {
                Ok(Value::String(s)) => s,
                Ok(other) => other.to_string(),
                Err(_) => id.get().to_owned(),
            };
            let mut message = Map::new();
            if let Some(result) = envelope.result {
                let value = serde_json::from_str(result.get()).unwrap_or(Value::Null);
                message.insert("result".into(), value);
            }
            if let Some(error) = envelope.error {
                let value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
                message.insert("error".into(), value);
            }
            Ok(Incoming::Response {
                id: key,
                message: Value::Object(message),
            })
        }
        (_, id) => Err(invalid(
            id,
            codes::INVALID_REQUEST,
            "Invalid Request: neither a request, a notification nor a response",
        )),
    }
}

/// A member name, borrowed from the message text unless it has escapes (serde's `Cow<str>`
/// always copies).
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(Visit)
    }
}

/// The members of a JSON object, in order, their values left as text.
pub(super) struct Members<'a>(pub(super) Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(4));
                while let Some((Key(key), value)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
                    members.push((key, value));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// The members of the object `text`, if it is one.
pub(super) fn members(text: &str) -> Option<Members<'_>> {
    serde_json::from_str(text).ok()
}

/// `"key":`, the key escaped as JSON.
pub(super) fn write_key(out: &mut Vec<u8>, key: &str) {
    // A key read from JSON written back as JSON: serializing a `str` cannot fail.
    let _ = serde_json::to_writer(&mut *out, key);
    out.push(b':');
}

/// `_meta` keys the session supplies (a client's own values for them are not used).
const SESSION_META: [&str; 4] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
];

/// The answers and state a bridged round adds to the request.
pub(crate) struct Retry<'a> {
    pub(crate) answers: &'a Map<String, Value>,
    pub(crate) state: Option<&'a Value>,
}

/// The modern request a legacy one stands for: its params, with the `_meta` of this session
/// (version, the capabilities and client info `initialize` declared, the log level
/// `logging/setLevel` set) beside the client's own `_meta` keys (a `progressToken`, say), and a
/// bridged round's answers. Written as bytes around the client's own JSON text: taking the
/// params apart into a tree and serializing it again cost more than the rest of the call
/// (BENCHMARKS.md, "The legacy codec").
pub(crate) fn modern_request(
    id: &RequestId,
    method: &str,
    params: &Params,
    session: &SessionRecord,
    version: &str,
    retry: Option<Retry<'_>>,
) -> Vec<u8> {
    let raw = params.0.as_deref().map(RawValue::get).unwrap_or("{}");
    let mut out = Vec::with_capacity(raw.len() + 320);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    let _ = serde_json::to_writer(&mut out, id);
    out.extend_from_slice(br#","method":"#);
    let _ = serde_json::to_writer(&mut out, method);
    out.extend_from_slice(br#","params":{"#);
    let mut client_meta = None;
    // Without a `_meta` of the client's or answers to add, the params go through as they are
    // (cheaper than reading their members; BENCHMARKS.md, "The legacy codec").
    let plain = retry.is_none() && !raw.contains(r#""_meta""#);
    let inner = raw
        .trim()
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'));
    if let (true, Some(inner)) = (plain, inner) {
        if !inner.trim().is_empty() {
            out.extend_from_slice(inner.as_bytes());
            out.push(b',');
        }
    } else if let Some(members) = members(raw) {
        for (key, value) in members.0 {
            match key.as_ref() {
                "_meta" => client_meta = Some(value),
                "inputResponses" | "requestState" if retry.is_some() => {}
                _ => {
                    write_key(&mut out, &key);
                    out.extend_from_slice(value.get().as_bytes());
                    out.push(b',');
                }
            }
        }
    }
    if let Some(retry) = retry {
        write_key(&mut out, "inputResponses");
        let _ = serde_json::to_writer(&mut out, retry.answers);
        out.push(b',');
        if let Some(state) = retry.state {
            write_key(&mut out, "requestState");
            let _ = serde_json::to_writer(&mut out, state);
            out.push(b',');
        }
    }
    out.extend_from_slice(br#""_meta":{"#);
    if let Some(members) = client_meta.and_then(|m| members(m.get())) {
        for (key, value) in members.0 {
            if !SESSION_META.contains(&key.as_ref()) {
                write_key(&mut out, &key);
                out.extend_from_slice(value.get().as_bytes());
                out.push(b',');
            }
        }
    }
    write_key(&mut out, SESSION_META[0]);
    let _ = serde_json::to_writer(&mut out, version);
    out.push(b',');
    write_key(&mut out, SESSION_META[1]);
    match &session.client_capabilities {
        // Tasks are a 2026-07-28 extension: a legacy session runs every call to its end. Other
        // extensions (MCP Apps) are the session's as declared.
        Value::Object(c) if c.contains_key("tasks") || declares_tasks(c) => {
            let mut c = c.clone();
            c.remove("tasks");
            if let Some(Value::Object(extensions)) = c.get_mut("extensions") {
                extensions.remove(crate::protocol::TASKS_EXTENSION);
            }
            let _ = serde_json::to_writer(&mut out, &c);
        }
        Value::Object(c) => {
            let _ = serde_json::to_writer(&mut out, c);
        }
        _ => out.extend_from_slice(b"{}"),
    }
    if let Some(info) = &session.client_info {
        out.push(b',');
        write_key(&mut out, SESSION_META[2]);
        let _ = serde_json::to_writer(&mut out, info);
    }
    if let Some(level) = &session.log_level {
        out.push(b',');
        write_key(&mut out, SESSION_META[3]);
        let _ = serde_json::to_writer(&mut out, level);
    }
    out.extend_from_slice(b"}}}");
    out
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

/// [`result`] of a result already written as JSON: the same bytes (a `Value`'s members in
/// order of their keys: `id`, `jsonrpc`, `result`).
pub(crate) fn result_text(id: &RequestId, result: &str) -> Bytes {
    let mut out = Vec::with_capacity(result.len() + 48);
    out.extend_from_slice(br#"{"id":"#);
    let _ = serde_json::to_writer(&mut out, id);
    out.extend_from_slice(br#","jsonrpc":"2.0","result":"#);
    out.extend_from_slice(result.as_bytes());
    out.push(b'}');
    Bytes::from(out)
}

/// Whether client capabilities declare the tasks extension.
fn declares_tasks(c: &serde_json::Map<String, Value>) -> bool {
    c.get("extensions")
        .and_then(Value::as_object)
        .is_some_and(|e| e.contains_key(crate::protocol::TASKS_EXTENSION))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_modern_request_keeps_the_clients_params_and_meta_beside_the_sessions() {
        let Incoming::Request { id, method, params } = parse(
            br#"{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"forged"}}}"#,
        )
        .unwrap() else {
            panic!("a request")
        };
        let mut session =
            SessionRecord::new("s", "2025-11-25", json!({"roots": {}, "tasks": {}}), None);
        session.log_level = Some("info".into());
        let answers = Map::from_iter([("k".to_owned(), json!({"roots": []}))]);
        let state = json!("st");
        let retry = Retry {
            answers: &answers,
            state: Some(&state),
        };
        let body = modern_request(&id, &method, &params, &session, "2026-07-28", Some(retry));
        let request: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            request,
            json!({"jsonrpc": "2.0", "id": "r1", "method": "tools/call", "params": {
            "name": "add", "arguments": {"a": 1},
            "inputResponses": {"k": {"roots": []}}, "requestState": "st",
            "_meta": {
                "progressToken": "p",
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
                "io.modelcontextprotocol/logLevel": "info"
            }}})
        );
    }

    #[test]
    fn a_result_written_around_its_text_is_the_result() {
        let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "s\"q", "version": "1"}, "instructions": "é\n"});
        for id in [
            RequestId::Number(-7),
            RequestId::Number(i64::MAX),
            RequestId::String("a\"b\u{1}c".into()),
        ] {
            assert_eq!(
                result_text(&id, &result.to_string()),
                super::result(&id, result.clone())
            );
        }
    }

    #[test]
    fn initialize_reads_what_a_map_of_its_params_gives() {
        for text in [
            r#"{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}"#,
            r#"{"protocolVersion":5,"capabilities":[1],"clientInfo":null}"#,
            r#"{"protocolVersion":"2024-11-05","protocolVersion":"2025-06-18","capabilities":{"a":1},"capabilities":"x","extra":[1,{"b":2}]}"#,
            r#"{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"big":1e400}"#,
            r#"{}"#,
        ] {
            let raw = serde_json::value::RawValue::from_string(text.to_owned()).unwrap();
            let params = Params(Some(raw));
            let read = params.initialize();
            let map = params.map();
            let version = map.get("protocolVersion").and_then(Value::as_str);
            assert_eq!(read.version.as_deref(), version, "{text}");
            let capabilities = match map.get("capabilities") {
                Some(Value::Object(c)) => Value::Object(c.clone()),
                _ => Value::Object(Map::new()),
            };
            assert_eq!(read.capabilities, capabilities, "{text}");
            assert_eq!(read.client_info, map.get("clientInfo").cloned(), "{text}");
        }
        let none = Params(None).initialize();
        assert_eq!((none.version, none.client_info), (None, None));
        assert_eq!(none.capabilities, json!({}));
    }

    #[test]
    fn versions_are_negotiated_down_to_one_this_server_knows() {
        assert_eq!(negotiate(Some("2025-06-18")), "2025-06-18");
        assert_eq!(negotiate(Some("2099-01-01")), "2025-11-25");
        assert_eq!(negotiate(None), "2025-11-25");
    }
}
