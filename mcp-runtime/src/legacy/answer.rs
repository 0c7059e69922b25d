//! A 2026-07-28 answer written back in the shape a 2025-era client expects: no `resultType`,
//! caching hints or result `serverInfo`, `structuredContent` an object, no task support in
//! `tools/list`; an `input_required` result taken apart for the bridge (`exchange.rs`).

use super::codec::{Envelope, members, write_key};
use bytes::Bytes;
use serde_json::{Map, Value};

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

/// Rewrites a modern response for a legacy session. Errors pass unchanged; a result loses its
/// 2026 members, written back around the pipeline's own JSON text (a full parse and
/// re-serialization cost more; BENCHMARKS.md, "The legacy codec"). `info` is the server's
/// serialized `serverInfo`, which the pipeline puts last in results.
pub(crate) fn legacy_answer(body: &[u8], method: &str, info: Option<&str>) -> Answer {
    if let Some(spliced) = splice(body, method, info) {
        return Answer::Final(Bytes::from(spliced));
    }
    let unchanged = || Answer::Final(Bytes::copy_from_slice(body));
    let Ok(envelope) = crate::json::from_bytes::<Envelope<'_>>(body) else {
        return unchanged();
    };
    let (Some(id), Some(result)) = (envelope.id, envelope.result) else {
        return unchanged();
    };
    let Some(members) = members(result.get()) else {
        return unchanged();
    };
    let input_required = members
        .0
        .iter()
        .any(|(k, v)| k == "resultType" && v.get() == r#""input_required""#);
    if input_required {
        let mut requests = Map::new();
        let mut state = None;
        for (key, value) in &members.0 {
            match key.as_ref() {
                "inputRequests" => {
                    requests = serde_json::from_str(value.get()).unwrap_or_default();
                }
                "requestState" => state = serde_json::from_str(value.get()).ok(),
                _ => {}
            }
        }
        return Answer::InputRequired { requests, state };
    }
    let mut out = Vec::with_capacity(body.len());
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.get().as_bytes());
    out.extend_from_slice(br#","result":{"#);
    let mut first = true;
    let mut member = |out: &mut Vec<u8>, key: &str, value: &[u8]| {
        if !first {
            out.push(b',');
        }
        first = false;
        write_key(out, key);
        out.extend_from_slice(value);
    };
    for (key, value) in &members.0 {
        let text = value.get();
        match key.as_ref() {
            "resultType" | "ttlMs" | "cacheScope" => {}
            "_meta" => {
                let kept: Vec<_> = self::members(text)
                    .map(|m| m.0)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|(k, _)| k != "io.modelcontextprotocol/serverInfo")
                    .collect();
                if !kept.is_empty() {
                    let mut meta = vec![b'{'];
                    for (i, (k, v)) in kept.iter().enumerate() {
                        if i > 0 {
                            meta.push(b',');
                        }
                        write_key(&mut meta, k);
                        meta.extend_from_slice(v.get().as_bytes());
                    }
                    meta.push(b'}');
                    member(&mut out, key, &meta);
                }
            }
            // 2025-11-25 `structuredContent` is an object.
            "structuredContent" if method == "tools/call" => match text.as_bytes().first() {
                Some(b'{') => member(&mut out, key, text.as_bytes()),
                _ if text == "null" => {}
                _ => member(&mut out, key, format!(r#"{{"result":{text}}}"#).as_bytes()),
            },
            // Task support is a 2026-07-28 extension.
            "tools" if method == "tools/list" && text.contains(r#""execution""#) => {
                let mut tools: Value = serde_json::from_str(text).unwrap_or_default();
                if let Value::Array(tools) = &mut tools {
                    for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                        tool.remove("execution");
                    }
                }
                member(&mut out, key, tools.to_string().as_bytes());
            }
            _ => member(&mut out, key, text.as_bytes()),
        }
    }
    out.extend_from_slice(b"}}");
    Answer::Final(Bytes::from(out))
}

/// The common case, cut out of the pipeline's own bytes: a complete result whose only 2026
/// members are `resultType` first and the caching hints and `serverInfo` last (far cheaper than
/// through `Members`; BENCHMARKS.md, "The legacy codec"). `None` sends the result the general
/// way. JSON strings escape their quotes, so these patterns can only match members.
fn splice(body: &[u8], method: &str, info: Option<&str>) -> Option<Vec<u8>> {
    const HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &str = r#","result":{"#;
    const COMPLETE: &str = r#""resultType":"complete""#;
    let body = std::str::from_utf8(body).ok()?;
    if !body.starts_with(HEAD) {
        return None;
    }
    let at = body.find(RESULT)? + RESULT.len();
    let (before, rest) = body.split_at(at);
    let mut rest = rest.strip_prefix(COMPLETE)?;
    rest = rest.strip_prefix(',').unwrap_or(rest);
    let mut end = rest.strip_suffix("}}")?;
    if let Some(info) = info
        && let Some(e) = end.strip_suffix("}")
        && let Some(e) = e.strip_suffix(info)
        && let Some(e) = e.strip_suffix(r#""_meta":{"io.modelcontextprotocol/serverInfo":"#)
    {
        end = e.strip_suffix(',').unwrap_or(e);
    }
    for scope in [r#""cacheScope":"public""#, r#""cacheScope":"private""#] {
        if let Some(e) = end.strip_suffix(scope) {
            end = e.strip_suffix(',').unwrap_or(e);
        }
    }
    let digits = end.len() - end.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0
        && let Some(e) = end[..end.len() - digits].strip_suffix(r#""ttlMs":"#)
    {
        end = e.strip_suffix(',').unwrap_or(e);
    }
    // What needs the general way: `structuredContent` that is not an object (it is wrapped),
    // task support in tool definitions (dropped), anything 2026-only left over (a `_meta` of
    // the handler's own beside `serverInfo`, hints not at the end).
    if needs_the_general_way(end, method) {
        return None;
    }
    let mut out = Vec::with_capacity(before.len() + end.len() + 2);
    out.extend_from_slice(before.as_bytes());
    out.extend_from_slice(end.as_bytes());
    out.extend_from_slice(b"}}");
    Some(out)
}

/// Whether the rest of a result, `end`, holds a member [`splice`] cannot pass as it is. Every
/// match of one of the patterns starts at a quote, so the quotes are visited once and the byte
/// after each picks the one pattern to compare, against a `str::contains` per pattern, which
/// sets up a searcher for each (BENCHMARKS.md, "The legacy codec").
/// The same answers as `contains`, and as `find` for the first `structuredContent`.
fn needs_the_general_way(end: &str, method: &str) -> bool {
    const STRUCTURED: &str = r#""structuredContent":"#;
    let call = method == "tools/call";
    let list = method == "tools/list";
    let mut structured_seen = false;
    for (i, _) in end.bytes().enumerate().filter(|(_, b)| *b == b'"') {
        // `i` is at an ASCII quote: a character boundary.
        let at = &end[i..];
        let general = match at.as_bytes().get(1) {
            Some(b'i') => at.starts_with(r#""io.modelcontextprotocol/serverInfo""#),
            Some(b'r') => at.starts_with(r#""resultType""#),
            Some(b't') => at.starts_with(r#""ttlMs":"#),
            Some(b'c') => at.starts_with(r#""cacheScope":"#),
            Some(b'e') => list && at.starts_with(r#""execution""#),
            Some(b's') if call && !structured_seen && at.starts_with(STRUCTURED) => {
                structured_seen = true;
                !at[STRUCTURED.len()..].starts_with('{')
            }
            _ => false,
        };
        if general {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::codec::client_request;
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn results_lose_what_2025_does_not_carry() {
        let modern = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":[1,2],"ttlMs":5,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
        let Answer::Final(legacy) = legacy_answer(modern, "tools/call", None) else {
            panic!("final")
        };
        let legacy: Value = serde_json::from_slice(&legacy).unwrap();
        assert_eq!(
            legacy,
            json!({"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"result":[1,2]}}})
        );
    }

    #[test]
    fn the_spliced_result_is_the_general_one() {
        let info = r#"{"name":"s","version":"1"}"#;
        for modern in [
            format!(
                r#"{{"jsonrpc":"2.0","id":"a","result":{{"resultType":"complete","content":[{{"type":"text","text":"\"ttlMs\":1"}}],"isError":false,"_meta":{{"io.modelcontextprotocol/serverInfo":{info}}}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"result":{{"resultType":"complete","contents":[],"ttlMs":60000,"cacheScope":"private","_meta":{{"io.modelcontextprotocol/serverInfo":{info}}}}}}}"#
            ),
            r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete"}}"#.to_owned(),
            format!(
                r#"{{"jsonrpc":"2.0","id":4,"result":{{"resultType":"complete","content":[],"_meta":{{"mine":1,"io.modelcontextprotocol/serverInfo":{info}}}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"result":{{"resultType":"complete","content":[],"structuredContent":7,"_meta":{{"io.modelcontextprotocol/serverInfo":{info}}}}}}}"#
            ),
        ] {
            let general = match legacy_answer(modern.as_bytes(), "tools/call", None) {
                Answer::Final(b) => serde_json::from_slice::<Value>(&b)
                    .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&b))),
                Answer::InputRequired { .. } => panic!("final"),
            };
            let fast = match legacy_answer(modern.as_bytes(), "tools/call", Some(info)) {
                Answer::Final(b) => serde_json::from_slice::<Value>(&b)
                    .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&b))),
                Answer::InputRequired { .. } => panic!("final"),
            };
            assert_eq!(fast, general, "{modern}");
            for gone in ["resultType", "ttlMs", "cacheScope"] {
                assert!(fast["result"].get(gone).is_none(), "{modern}");
            }
            assert!(
                fast["result"]["_meta"]
                    .get("io.modelcontextprotocol/serverInfo")
                    .is_none()
            );
        }
    }

    #[test]
    fn the_members_that_need_the_general_way_are_found_as_by_searching() {
        let by_search = |end: &str, method: &str| {
            (method == "tools/call"
                && end
                    .find(r#""structuredContent":"#)
                    .is_some_and(|i| !end[i + r#""structuredContent":"#.len()..].starts_with('{')))
                || (method == "tools/list" && end.contains(r#""execution""#))
                || [
                    r#""io.modelcontextprotocol/serverInfo""#,
                    r#""resultType""#,
                    r#""ttlMs":"#,
                    r#""cacheScope":"#,
                ]
                .iter()
                .any(|p| end.contains(p))
        };
        let ends = [
            r#""content":[{"type":"text","text":"42"}],"isError":false"#,
            r#""content":[],"structuredContent":{"a":1},"isError":false"#,
            r#""content":[],"structuredContent":[1],"isError":false"#,
            r#""content":[],"structuredContent":{"x":1},"structuredContent":2"#,
            r#""content":[{"type":"text","text":""resultType" "ttlMs":1"}]"#,
            r#""contents":[],"ttlMs":5"#,
            r#""contents":[],"cacheScope":"public","x":1"#,
            r#""content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{}}"#,
            r#""tools":[{"name":"t","execution":{"taskSupport":"optional"}}]"#,
            r#""tools":[{"name":"execution"}]"#,
            r#""resultType":"complete""#,
            r#""é":"é"","s":"\","#,
            "",
            r#"""#,
        ];
        for end in ends {
            for method in ["tools/call", "tools/list", "resources/read"] {
                assert_eq!(
                    needs_the_general_way(end, method),
                    by_search(end, method),
                    "{method} {end}"
                );
            }
        }
    }

    #[test]
    fn input_required_is_taken_apart() {
        let modern = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s"}}"#;
        let Answer::InputRequired { requests, state } = legacy_answer(modern, "tools/call", None)
        else {
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
}
