//! Stage 1, decode: one message's bytes into a [`ClientMessage`], or the `-32700`/`-32600`
//! (or malformed `_meta`/`params`: `-32602`) rejection.
//!
//! Two readers produce the same [`ClientRequest`]: a one-pass reader for a well-formed
//! `tools/call` (the hot path: envelope, `_meta` and params in one serde pass), and the general
//! reader for everything else, which also decides which error a malformed message gets.
//! `tests/suite/http_pipeline.rs` feeds both the same bodies and requires the same result.

use super::encode::Rejection;
use crate::error::McpError;
use crate::protocol::{
    CallToolRequestParams, ClientMessage, ClientNotification, ClientParams, ClientRequest, Method,
    Named, RequestId, RequestMeta, codes, for_each_method,
};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

/// Decodes one JSON-RPC message.
pub(crate) fn decode(body: &[u8]) -> Result<ClientMessage<'_>, Rejection> {
    let text = utf8(body)?;
    if let Some(request) = read_tool_call(text) {
        return Ok(ClientMessage::Request(request));
    }
    read_message(text)
}

/// Decodes with the general reader only (for the differential test).
pub(crate) fn decode_general(body: &[u8]) -> Result<ClientMessage<'_>, Rejection> {
    read_message(utf8(body)?)
}

/// Decodes a well-formed `tools/call` with the one-pass reader only; `None` for anything else.
pub(crate) fn decode_tool_call(body: &[u8]) -> Option<ClientRequest<'_>> {
    read_tool_call(std::str::from_utf8(body).ok()?)
}

/// JSON text is UTF-8: checked once for the whole body here, so that serde_json does not check
/// every string again.
fn utf8(body: &[u8]) -> Result<&str, Rejection> {
    std::str::from_utf8(body).map_err(|_| {
        Rejection::new(
            None,
            McpError::new(
                codes::PARSE_ERROR,
                "Parse error: the body is not valid UTF-8",
            ),
        )
    })
}

/// A whole well-formed `tools/call` request, read in one pass over the body.
#[derive(Deserialize)]
struct ToolCallEnvelope<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: &'a RawValue,
    /// Only `tools/call` reads: any other method stops this reading at once (before `params`,
    /// which clients send after `method`).
    method: ToolsCallMethod,
    #[serde(borrow, deserialize_with = "object")]
    params: CallToolRequestParams<'a>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

/// Reads params only from a JSON object (serde's derived structs also take arrays).
fn object<'de, D, P>(d: D) -> Result<P, D::Error>
where
    D: serde::Deserializer<'de>,
    P: Deserialize<'de>,
{
    struct Object<P>(std::marker::PhantomData<P>);
    impl<'de, P: Deserialize<'de>> serde::de::Visitor<'de> for Object<P> {
        type Value = P;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<P, A::Error> {
            P::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_map(Object(std::marker::PhantomData))
}

#[derive(Deserialize)]
enum ToolsCallMethod {
    #[serde(rename = "tools/call")]
    ToolsCall,
}

/// The hot path: a well-formed `tools/call` in one pass. `None` for anything else (another
/// method, an escape where a borrow is expected, any malformation), which the general reader
/// then reads and reports in the pipeline's order.
fn read_tool_call(text: &str) -> Option<ClientRequest<'_>> {
    // Another method fails this reading only at `method`, after a serde error is built: a look
    // for the name first spares the other methods that error, and the scan is a small part of
    // reading any body (BENCHMARKS.md, "The one-pass tools/call reader").
    if !is_object(text) || !text.contains("\"tools/call\"") {
        return None;
    }
    let env: ToolCallEnvelope<'_> = serde_json::from_str(text).ok()?;
    let ToolsCallMethod::ToolsCall = env.method;
    if env.jsonrpc != "2.0" || env.result.is_some() || env.error.is_some() {
        return None;
    }
    let mut params = env.params;
    Some(ClientRequest::new(
        raw_id(env.id)?,
        params.meta.take(),
        ClientParams::ToolsCall(params),
    ))
}

/// Any JSON-RPC message, its members delimited but not read.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

/// A member that is present, even as `null` (serde reads a `null` `Option` as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The general reader.
fn read_message(text: &str) -> Result<ClientMessage<'_>, Rejection> {
    // serde's derived structs also read a JSON array, member by member: an array must not pass
    // for an envelope (`["2.0", 1, "tools/list", {…}]` is no request).
    let read = if is_object(text) {
        serde_json::from_str::<Envelope<'_>>(text).map_err(|e| e.to_string())
    } else {
        Err("expected a JSON object".to_owned())
    };
    let env = read.map_err(|e| {
        let error = if let Err(parse) = serde_json::from_str::<IgnoredAny>(text) {
            McpError::new(codes::PARSE_ERROR, format!("Parse error: {parse}"))
        } else if text.trim_start().starts_with('[') {
            McpError::new(
                codes::INVALID_REQUEST,
                "Invalid Request: batches are not supported; send one JSON-RPC message per request",
            )
        } else if e.starts_with("duplicate field") {
            McpError::new(
                codes::INVALID_REQUEST,
                format!("Invalid Request: {e}; each member of a JSON-RPC message appears once"),
            )
        } else {
            McpError::new(
                codes::INVALID_REQUEST,
                "Invalid Request: the body must be one JSON-RPC request or notification object",
            )
        };
        Rejection::new(None, error)
    })?;
    let id = match env.id.map(raw_id) {
        None => None,
        Some(Some(id)) => Some(id),
        Some(None) => {
            return Err(Rejection::new(
                None,
                McpError::new(
                    codes::INVALID_REQUEST,
                    "Invalid Request: `id` must be a string or an integer",
                ),
            ));
        }
    };
    let invalid = |id: &Option<RequestId>, msg: &str| {
        Rejection::new(
            id.clone(),
            McpError::new(codes::INVALID_REQUEST, format!("Invalid Request: {msg}")),
        )
    };
    let version_ok = match env.jsonrpc.map(RawValue::get) {
        Some("\"2.0\"") => true,
        // The same string, spelled with escapes.
        Some(text) if text.contains('\\') => {
            serde_json::from_str::<String>(text).is_ok_and(|v| v == "2.0")
        }
        _ => false,
    };
    if !version_ok {
        return Err(invalid(&id, "`jsonrpc` must be \"2.0\""));
    }
    if env.result.is_some() || env.error.is_some() {
        return Err(invalid(
            &id,
            "this server accepts requests and notifications only, not JSON-RPC responses",
        ));
    }
    let method = match env.method.map(raw_string) {
        Some(Some(m)) => m,
        Some(None) => return Err(invalid(&id, "`method` must be a string")),
        None => return Err(invalid(&id, "`method` is missing")),
    };
    let Some(id) = id else {
        return Ok(ClientMessage::Notification(ClientNotification {
            method: method.into_owned(),
            params: env.params.map(ToOwned::to_owned),
        }));
    };
    let (meta, params) = match Method::parse(&method) {
        Some(known) => {
            read_params(known, env.params).map_err(|e| Rejection::new(Some(id.clone()), e))?
        }
        None => {
            let head = read_head(env.params).map_err(|e| Rejection::new(Some(id.clone()), e))?;
            let params = ClientParams::Unknown {
                method: method.into_owned(),
                params: env.params,
            };
            (head.meta, params)
        }
    };
    Ok(ClientMessage::Request(ClientRequest::new(id, meta, params)))
}

/// Whether the JSON text is an object (its first non-whitespace byte opens one).
fn is_object(text: &str) -> bool {
    text.trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
}

/// What is read of params that do not have their method's shape: `_meta`, and the name the
/// `Mcp-Name` header mirrors.
struct Head {
    meta: Option<Box<RequestMeta>>,
    name: Option<Value>,
    uri: Option<Value>,
    task_id: Option<Value>,
}

/// Reads the [`Head`] of params, refusing params that are not an object or whose `_meta` does
/// not have its shape (`-32602`, before any other check).
fn read_head(params: Option<&RawValue>) -> Result<Head, McpError> {
    #[derive(Deserialize)]
    struct Lenient<'a> {
        #[serde(rename = "_meta", default, borrow, deserialize_with = "present")]
        meta: Option<&'a RawValue>,
        #[serde(default)]
        name: Option<Value>,
        #[serde(default)]
        uri: Option<Value>,
        #[serde(default, rename = "taskId")]
        task_id: Option<Value>,
    }
    let Some(raw) = params else {
        return Ok(Head {
            meta: None,
            name: None,
            uri: None,
            task_id: None,
        });
    };
    if !raw.get().starts_with('{') {
        return Err(not_an_object());
    }
    let lenient: Lenient<'_> = serde_json::from_str(raw.get()).map_err(|e| {
        let e = e.to_string();
        if e.starts_with("duplicate field") {
            McpError::invalid_params(format!(
                "Invalid params: {e}; each member of `params` appears once"
            ))
        } else {
            not_an_object()
        }
    })?;
    let meta = match lenient.meta {
        None => None,
        Some(v) => Some(
            serde_json::from_str::<Box<RequestMeta>>(v.get()).map_err(|e| {
                McpError::invalid_params(format!("Invalid params: `_meta` is malformed: {e}"))
            })?,
        ),
    };
    Ok(Head {
        meta,
        name: lenient.name,
        uri: lenient.uri,
        task_id: lenient.task_id,
    })
}

/// Writes [`read_params`] from the method table: absent params of an `optional` method are its
/// defaults, a `required` method's must be present, a method of `none` reads only `_meta`.
macro_rules! params_reader {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, params: $params:ident $(($ty:ty))?, facts: $facts:tt; )*) => {
        /// The params of a known method, typed, with their `_meta` taken out.
        fn read_params(
            method: Method,
            params: Option<&RawValue>,
        ) -> Result<(Option<Box<RequestMeta>>, ClientParams<'_>), McpError> {
            if params.is_some_and(|p| !p.get().starts_with('{')) {
                return Err(not_an_object());
            }
            let parsed = match method {
                $( Method::$variant => params_reader!(@read $params, params, ClientParams::$variant), )*
            };
            malformed_unless_read(method, params, parsed)
        }
    };
    (@read none, $raw:ident, $wrap:expr) => {
        return read_head($raw).map(|head| (head.meta, $wrap))
    };
    (@read optional, $raw:ident, $wrap:expr) => {
        optional($raw, |p| p.meta.take(), $wrap)
    };
    (@read required, $raw:ident, $wrap:expr) => {
        required($raw, |p| p.meta.take(), $wrap)
    };
}

for_each_method!(params_reader);

/// Params read as their method's shape, or else [`ClientParams::Malformed`] naming what is
/// wrong: `params` that are no object, or a malformed `_meta`, are refused now; anything else
/// waits for the checks every request passes first.
#[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
fn malformed_unless_read<'a>(
    method: Method,
    params: Option<&'a RawValue>,
    parsed: Read<'a>,
) -> Result<(Option<Box<RequestMeta>>, ClientParams<'a>), McpError> {
    match parsed {
        Ok(read) => Ok(read),
        Err(reason) => {
            let head = read_head(params)?;
            let name = match method.names() {
                Some(Named::Tool | Named::Prompt) => head.name,
                Some(Named::Resource | Named::Skill | Named::SkillDirectory) => head.uri,
                Some(Named::Task) => head.task_id,
                None => None,
            };
            let name = match name {
                Some(Value::String(s)) => Some(s),
                _ => None,
            };
            Ok((
                head.meta,
                ClientParams::Malformed {
                    method,
                    name,
                    reason,
                },
            ))
        }
    }
}

type Read<'a> = Result<(Option<Box<RequestMeta>>, ClientParams<'a>), String>;

/// Params that may be absent (read as their default).
fn optional<'a, P: Deserialize<'a> + Default>(
    params: Option<&'a RawValue>,
    meta: impl FnOnce(&mut P) -> Option<Box<RequestMeta>>,
    wrap: impl FnOnce(P) -> ClientParams<'a>,
) -> Read<'a> {
    let mut p: P = match params {
        None => P::default(),
        Some(raw) => serde_json::from_str(raw.get()).map_err(invalid_params)?,
    };
    Ok((meta(&mut p), wrap(p)))
}

/// Params that must be present.
fn required<'a, P: Deserialize<'a>>(
    params: Option<&'a RawValue>,
    meta: impl FnOnce(&mut P) -> Option<Box<RequestMeta>>,
    wrap: impl FnOnce(P) -> ClientParams<'a>,
) -> Read<'a> {
    let raw = params.ok_or_else(missing_params)?;
    let mut p: P = serde_json::from_str(raw.get()).map_err(invalid_params)?;
    Ok((meta(&mut p), wrap(p)))
}

/// `params` that are not an object are refused before any other check, with `-32602`.
fn not_an_object() -> McpError {
    McpError::invalid_params("Invalid params: `params` must be an object")
}

fn invalid_params(e: serde_json::Error) -> String {
    format!("Invalid params: {e}")
}

fn missing_params() -> String {
    "Invalid params: `params` is missing".to_owned()
}

/// A JSON string's value, borrowed when it has no escapes (as method names have).
fn raw_string(raw: &RawValue) -> Option<std::borrow::Cow<'_, str>> {
    let text = raw.get();
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(text).ok().map(Into::into)
    } else {
        Some(inner.into())
    }
}

/// A request id: a string or an integer (`null`, floats and others are not ids).
fn raw_id(raw: &RawValue) -> Option<RequestId> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => raw_string(raw).map(|s| RequestId::String(s.into_owned())),
        Some(b'-' | b'0'..=b'9') => text.parse::<i64>().ok().map(RequestId::Number),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(body: &str) -> Rejection {
        match decode(body.as_bytes()) {
            Err(r) => r,
            Ok(m) => panic!("{body} was read as {m:?}"),
        }
    }

    /// The reader agrees with the method table: a method whose params are required is
    /// malformed without them, any other reads its defaults.
    #[test]
    fn absent_params_follow_the_method_table() {
        for &method in Method::ALL {
            let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}"}}"#);
            let Ok(ClientMessage::Request(request)) = decode(body.as_bytes()) else {
                panic!("{body} was not read as a request");
            };
            assert_eq!(request.method(), Ok(method), "{body}");
            let malformed = matches!(request.params, ClientParams::Malformed { .. });
            assert_eq!(malformed, method.params_required(), "{body}");
        }
    }

    /// Found by the fuzzer: serde's derived structs read a JSON array member by member, so an
    /// array passed for an envelope (and a tools/call array was even served).
    #[test]
    fn an_array_is_no_envelope() {
        let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        for body in [
            "[null,0]".to_owned(),
            format!(r#"["2.0",1,"tools/list",{{"_meta":{meta}}}]"#),
            format!(r#" ["2.0",1,"tools/call",{{"name":"echo","_meta":{meta}}}]"#),
        ] {
            let r = rejected(&body);
            assert_eq!(r.error.code(), codes::INVALID_REQUEST, "{body}");
            assert_eq!(r.id, None, "{body}");
            assert!(r.error.message().contains("batches"), "{body}");
            assert!(decode_tool_call(body.as_bytes()).is_none());
        }
        let r = rejected("[1,");
        assert_eq!(r.error.code(), codes::PARSE_ERROR);
        assert!(
            !r.error.message().contains("object"),
            "{}",
            r.error.message()
        );
    }

    /// A member given twice is named in the error.
    #[test]
    fn duplicate_members_are_named() {
        let r = rejected(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#);
        assert_eq!(r.error.code(), codes::INVALID_REQUEST);
        assert!(
            r.error.message().contains("duplicate field `id`"),
            "{:?}",
            r.error
        );
        let r = rejected(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
        );
        assert_eq!(r.error.code(), codes::INVALID_PARAMS);
        assert_eq!(r.id, Some(RequestId::Number(1)));
        assert!(
            r.error.message().contains("duplicate field `name`"),
            "{:?}",
            r.error
        );
    }

    /// A key twice in `_meta` is refused by both readers, with `-32602` naming it.
    #[test]
    fn duplicate_meta_keys_are_invalid_params() {
        let v = "io.modelcontextprotocol/protocolVersion";
        let c = "io.modelcontextprotocol/clientCapabilities";
        for (method, params, key) in [
            (
                "tools/call",
                format!(
                    r#"{{"name":"a","_meta":{{"{v}":"2026-07-28","{c}":{{}},"{v}":"2026-07-28"}}}}"#
                ),
                v,
            ),
            (
                "tools/call",
                format!(r#"{{"name":"a","_meta":{{"{v}":"2026-07-28","{c}":{{}},"t":1,"t":2}}}}"#),
                "t",
            ),
            (
                "tools/list",
                format!(r#"{{"_meta":{{"{v}":"2026-07-28","{c}":{{}},"t":1,"t":2}}}}"#),
                "t",
            ),
            (
                "x/unknown",
                format!(r#"{{"_meta":{{"{v}":"2026-07-28","{c}":{{}},"{c}":{{}}}}}}"#),
                c,
            ),
        ] {
            let body =
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#);
            assert!(decode_tool_call(body.as_bytes()).is_none(), "{body}");
            let r = rejected(&body);
            assert_eq!(r.error.code(), codes::INVALID_PARAMS, "{body}");
            assert_eq!(r.id, Some(RequestId::Number(1)));
            assert!(
                r.error
                    .message()
                    .contains(&format!("duplicate field `{key}`")),
                "{:?}",
                r.error
            );
        }
    }
}
