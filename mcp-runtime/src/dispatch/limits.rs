//! The limits a message meets before and after it is decoded: its nesting depth (before: a deep
//! message is refused without building anything), the length of the strings it names things
//! with (after).

use crate::config::Limits;
use crate::error::McpError;
use crate::protocol::{ClientParams, ClientRequest, RequestId, codes};

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
    serde_json::from_slice::<IdOnly>(body).ok()?.id
}

/// Refuses an id, name, URI, cursor or completion value longer than the limit, with `-32602`.
pub(super) fn check_strings(request: &ClientRequest<'_>, limits: &Limits) -> Result<(), McpError> {
    let max = limits.string_bytes;
    let too_long = |what: &str, len: usize| {
        Err(McpError::invalid_params(format!(
            "Invalid params: the {what} is {len} bytes long, more than the {max} this server takes"
        )))
    };
    if let RequestId::String(id) = &request.id
        && id.len() > max
    {
        return too_long("request id", id.len());
    }
    let (what, len) = match &request.params {
        ClientParams::ToolsCall(p) => ("tool name", p.name.len()),
        ClientParams::PromptsGet(p) => ("prompt name", p.name.len()),
        ClientParams::ResourcesRead(p) => ("resource URI", p.uri.len()),
        ClientParams::ToolsList(p)
        | ClientParams::ResourcesList(p)
        | ClientParams::ResourceTemplatesList(p)
        | ClientParams::PromptsList(p) => ("cursor", p.cursor.as_deref().map_or(0, str::len)),
        ClientParams::Complete(p) => ("completion value", p.argument.value.len()),
        _ => return Ok(()),
    };
    if len > max {
        return too_long(what, len);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
