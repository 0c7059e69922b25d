//! The limits a message meets before and after it is decoded: its nesting depth (before: a deep
//! message is refused without building anything), the length of the strings it names things
//! with (after).

use crate::config::Limits;
use crate::error::McpError;
use crate::protocol::{ClientRequest, RequestId, codes};

/// Refuses a message nested deeper than `max` (objects and arrays), with `-32600`.
pub(super) fn check_depth(body: &[u8], max: usize) -> Result<(), McpError> {
    // Most messages open fewer brackets than the limit in all: then they cannot nest deeper, and
    // counting is all it costs. `b | 0x20 == b'{'` holds for `{` and `[` alone, and counting into
    // a byte per chunk of 255 lets the compiler vectorize it, where `filter(..).count()` does not
    // (BENCHMARKS.md, "Nesting depth").
    let opened: usize = body
        .chunks(255)
        .map(|chunk| {
            let n = chunk
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b | 0x20 == b'{')));
            usize::from(n)
        })
        .sum();
    if opened <= max {
        return Ok(());
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in body {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > max {
                    return Err(McpError::new(
                        codes::INVALID_REQUEST,
                        format!(
                            "Invalid Request: the message nests objects and arrays more than {max} deep"
                        ),
                    ));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The id of a message refused before it was read, when it can be read alone (the JSON
/// reader's own depth limit still applies: a message nested past it has no readable id).
pub(super) fn readable_id(body: &[u8]) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<RequestId>,
    }
    crate::json::from_bytes::<IdOnly>(body).ok()?.id
}

/// Refuses a request id, or a string the params name things with (every one the method
/// table's params types visit: names, URIs, cursors, task ids, completion values), longer than
/// the limit, with `-32602` naming it.
pub(super) fn check_strings(request: &ClientRequest<'_>, limits: &Limits) -> Result<(), McpError> {
    let max = limits.string_bytes;
    // The first string too long, by name and length: the error is built only for it.
    let mut within = |what: &'static str, s: &str| match s.len() {
        len if len > max => Err((what, len)),
        _ => Ok(()),
    };
    let id = match &request.id {
        RequestId::String(id) => within("request id", id),
        RequestId::Number(_) => Ok(()),
    };
    id.and_then(|()| request.params.visit_strings(&mut within))
        .map_err(|(what, len)| {
            McpError::invalid_params(format!(
                "Invalid params: the {what} is {len} bytes long, more than the {max} this server takes"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::decode::decode;
    use crate::protocol::{ClientMessage, ClientParams, Method};
    use serde_json::{Value, json};

    /// A method, its params, and each string visited: its name in the error, and its value.
    type Case = (Method, Value, Vec<(&'static str, &'static str)>);

    /// Every method's cases, in the table's order.
    fn cases() -> Vec<Case> {
        Method::ALL
            .iter()
            .flat_map(|&m| cases_of(m).into_iter().map(move |(p, s)| (m, p, s)))
            .collect()
    }

    /// One params object per method (two for `completion/complete`), each string a marker
    /// found once in the body, and the strings the table's types visit, in order. Arguments,
    /// `_meta`, `inputResponses`, `requestState` and unknown members are there too, unvisited.
    /// The match names every method: a new row of the table does not compile until it has its
    /// case.
    #[deny(clippy::wildcard_enum_match_arm)]
    fn cases_of(method: Method) -> Vec<(Value, Vec<(&'static str, &'static str)>)> {
        let answers = json!({"k": {"action": "decline", "content": {"x": "@answer@"}}});
        match method {
            Method::Discover => vec![(json!({}), vec![])],
            Method::ToolsList
            | Method::ResourcesList
            | Method::ResourceTemplatesList
            | Method::PromptsList
            | Method::SkillsList => vec![(json!({"cursor": "@c@"}), vec![("cursor", "@c@")])],
            Method::ToolsCall => vec![(
                json!({"name": "@n@", "arguments": {"a": "@arg@"}, "inputResponses": answers,
                       "requestState": "@state@"}),
                vec![("tool name", "@n@")],
            )],
            Method::ResourcesRead => vec![(
                json!({"uri": "@u@", "inputResponses": answers, "requestState": "@state@"}),
                vec![("resource URI", "@u@")],
            )],
            Method::PromptsGet => vec![(
                json!({"name": "@n@", "arguments": {"a": "@arg@"}, "inputResponses": answers,
                       "requestState": "@state@"}),
                vec![("prompt name", "@n@")],
            )],
            Method::Complete => vec![
                (
                    json!({"ref": {"type": "ref/prompt", "name": "@p@", "title": "@t@"},
                           "argument": {"name": "@a@", "value": "@v@"},
                           "context": {"arguments": {"b": "@arg@"}}}),
                    vec![
                        ("prompt name", "@p@"),
                        ("prompt title", "@t@"),
                        ("argument name", "@a@"),
                        ("completion value", "@v@"),
                    ],
                ),
                (
                    json!({"ref": {"type": "ref/resource", "uri": "@u@"},
                           "argument": {"name": "@a@", "value": "@v@"}}),
                    vec![
                        ("resource template URI", "@u@"),
                        ("argument name", "@a@"),
                        ("completion value", "@v@"),
                    ],
                ),
            ],
            Method::Listen => vec![(
                json!({"notifications": {"toolsListChanged": true,
                       "resourceSubscriptions": ["@r1@", "@r2@"], "taskIds": ["@t1@"],
                       "x-other": "@other@"}}),
                vec![
                    ("resource URI in `resourceSubscriptions`", "@r1@"),
                    ("resource URI in `resourceSubscriptions`", "@r2@"),
                    ("task id in `taskIds`", "@t1@"),
                ],
            )],
            Method::SkillsGet => vec![(json!({"uri": "@u@"}), vec![("skill URI", "@u@")])],
            Method::ResourcesDirectoryRead => vec![(
                json!({"uri": "@u@", "cursor": "@c@"}),
                vec![("directory URI", "@u@"), ("cursor", "@c@")],
            )],
            Method::TasksGet | Method::TasksCancel => {
                vec![(json!({"taskId": "@t@"}), vec![("task id", "@t@")])]
            }
            Method::TasksUpdate => vec![(
                json!({"taskId": "@t@", "inputResponses": answers}),
                vec![("task id", "@t@")],
            )],
        }
    }

    /// The body of a request of `method` with `params` (and a `_meta` with a long string).
    fn body(id: Value, method: Method, params: &Value) -> String {
        let mut params = params.clone();
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientCapabilities": {},
                                 "x-long": "m".repeat(300)});
        json!({"jsonrpc": "2.0", "id": id, "method": method.name(), "params": params}).to_string()
    }

    fn checked(body: &str, max: usize) -> Result<(), McpError> {
        let Ok(ClientMessage::Request(request)) = decode(body.as_bytes()) else {
            panic!("{body} was not read as a request");
        };
        assert!(
            !matches!(request.params, ClientParams::Malformed { .. }),
            "{body}: {:?}",
            request.params
        );
        check_strings(&request, &Limits::default().string_bytes(max))
    }

    #[test]
    fn each_method_visits_the_strings_its_params_name_things_with() {
        for (method, params, expected) in cases() {
            let body = body(json!(1), method, &params);
            let Ok(ClientMessage::Request(request)) = decode(body.as_bytes()) else {
                panic!("{body} was not read as a request");
            };
            let mut seen = Vec::new();
            let visited = request.params.visit_strings(&mut |what, s: &str| {
                seen.push((what, s.to_owned()));
                Ok::<(), ()>(())
            });
            assert_eq!(visited, Ok(()));
            let seen: Vec<(&str, &str)> = seen.iter().map(|(w, s)| (*w, s.as_str())).collect();
            assert_eq!(seen, expected, "{method}");
        }
    }

    #[test]
    fn each_string_is_refused_one_byte_over_the_limit_and_taken_at_it() {
        const MAX: usize = 64;
        for (method, params, expected) in cases() {
            let text = body(json!(1), method, &params);
            // Arguments, answers, state and `_meta` are longer than the limit: not names.
            let longer = text
                .replace("@arg@", &"a".repeat(300))
                .replace("@answer@", &"a".repeat(300))
                .replace("@state@", &"s".repeat(300))
                .replace("@other@", &"o".repeat(300));
            assert!(checked(&longer, MAX).is_ok(), "{longer}");
            for (what, marker) in expected {
                let quoted = format!("\"{marker}\"");
                let at = longer.replace(&quoted, &format!("\"{}\"", "x".repeat(MAX)));
                assert!(checked(&at, MAX).is_ok(), "{method} {what}");
                let over = longer.replace(&quoted, &format!("\"{}\"", "x".repeat(MAX + 1)));
                let error = checked(&over, MAX).expect_err(&over);
                assert_eq!(error.code(), codes::INVALID_PARAMS);
                assert_eq!(
                    error.message(),
                    format!(
                        "Invalid params: the {what} is {} bytes long, more than the {MAX} this server takes",
                        MAX + 1
                    ),
                    "{method}"
                );
            }
        }
    }

    #[test]
    fn a_string_request_id_is_bounded_too() {
        let params = json!({"cursor": "c"});
        let at = body(json!("i".repeat(64)), Method::ToolsList, &params);
        assert!(checked(&at, 64).is_ok());
        assert!(checked(&body(json!(i64::MAX), Method::ToolsList, &params), 64).is_ok());
        let over = body(json!("i".repeat(65)), Method::ToolsList, &params);
        let error = checked(&over, 64).unwrap_err();
        assert!(
            error.message().contains("the request id is 65 bytes long"),
            "{error:?}"
        );
    }

    #[test]
    fn depth_is_counted_outside_strings() {
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        assert!(check_depth(deep.as_bytes(), 64).is_err());
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(check_depth(ok.as_bytes(), 64).is_ok());
        let in_string = format!(r#"{{"a":"{}\"{}"}}"#, "[".repeat(100), "{".repeat(100));
        assert!(check_depth(in_string.as_bytes(), 64).is_ok());
        let wide = format!("[{}]", vec!["[]"; 1000].join(","));
        assert!(check_depth(wide.as_bytes(), 64).is_ok());
    }
}
