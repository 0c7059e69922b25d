//! Fixtures of the 2025-11-25 conformance run, written the 2026 way: each asks the client for
//! input through MRTR (`Rounds`), and on a 2025-11-25 session the bridge sends what it asks as a
//! real `sampling/createMessage` or `elicitation/create` request on the call's stream. One
//! closes its stream mid-call so that the client resumes it (`Last-Event-ID`).

use mcp_runtime::mrtr::FromAnswer;
use mcp_runtime::protocol::{CallToolResult, CreateMessageRequestParams};
use mcp_runtime::serde_json::{Map, Value, json};
use mcp_runtime::{Ask, Logger, McpError, RequestContext, Rounds, Sampled, Step, tool};
use std::time::Duration;

/// An elicitation's answer as the client sent it (action and content).
pub struct Answered(Value);

impl FromAnswer for Answered {
    fn from_answer(key: &str, answer: &serde_json::value::RawValue) -> Result<Self, McpError> {
        serde_json::from_str(answer.get())
            .map(Answered)
            .map_err(|e| McpError::invalid_params(format!("inputResponses[\"{key}\"]: {e}")))
    }
}

fn schema(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Asks once (`key`, with `ask`), then answers with what came back.
fn elicited(
    rounds: &Rounds,
    key: &str,
    message: &str,
    requested: Value,
) -> Result<Step<String>, McpError> {
    match rounds.answer::<Answered>(key)? {
        Some(Answered(answer)) => Ok(Step::Done(format!("Elicitation completed: {answer}"))),
        None => rounds.ask(
            Ask::new().elicit_schema(key, message, schema(requested)),
            &(),
        ),
    }
}

/// Logs three messages at the session's (or the request's) log level.
#[tool]
pub async fn test_tool_with_logging(logger: Logger) -> CallToolResult {
    super::content::log_three(logger.named("test_tool_with_logging")).await
}

/// Asks the client's model to answer `prompt` (sampling), then reports the answer.
#[tool]
pub fn test_sampling(
    /// The prompt to send to the client's model.
    prompt: String,
    #[ctx] rounds: Rounds,
) -> Result<Step<String>, McpError> {
    match rounds.answer::<Sampled>("completion")? {
        Some(sampled) => Ok(Step::Done(format!("LLM response: {}", sampled.text()))),
        None => rounds.ask(
            Ask::new().sample(
                "completion",
                CreateMessageRequestParams::prompt(prompt, 100),
            ),
            &(),
        ),
    }
}

/// Asks the user for a username and an email with `message`, then reports the answer.
#[tool]
pub fn test_elicitation(
    /// What to tell the user.
    message: String,
    #[ctx] rounds: Rounds,
) -> Result<Step<String>, McpError> {
    let requested = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "Your username"},
            "email": {"type": "string", "description": "Your email address", "format": "email"}
        },
        "required": ["username", "email"]
    });
    elicited(&rounds, "user_info", &message, requested)
}

/// Elicits a form whose every field has a default (SEP-1034).
#[tool]
pub fn test_elicitation_sep1034_defaults(#[ctx] rounds: Rounds) -> Result<Step<String>, McpError> {
    let requested = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        }
    });
    elicited(
        &rounds,
        "defaults",
        "Please review and update the form fields with defaults",
        requested,
    )
}

/// Elicits a form with each kind of enum field (SEP-1330).
#[tool]
pub fn test_elicitation_sep1330_enums(#[ctx] rounds: Rounds) -> Result<Step<String>, McpError> {
    let requested = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Pick one",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Pick one titled value",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Pick one (legacy titles)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Pick several",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "description": "Pick several titled values",
                "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}
                ]}
            }
        }
    });
    elicited(
        &rounds,
        "enums",
        "Please select options from the enum fields",
        requested,
    )
}

/// Closes its SSE stream part way through; the client resumes the stream (`GET` with
/// `Last-Event-ID`) and receives the result there.
#[tool]
pub async fn test_reconnection(#[ctx] cx: RequestContext) -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    cx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(200)).await;
    "Reconnection test completed successfully"
}
