//! Result content of every kind, `isError`, progress, logging, and a capability requirement.

use mcp_runtime::protocol::{CallToolResult, Content, ResourceContents};
use mcp_runtime::{Elicitation, Logger, Progress, Sampled, tool};
use std::time::Duration;

/// A 1×1 PNG, base64.
pub const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A tiny WAV file (one silent sample), base64.
pub const WAV_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Returns a simple text response.
#[tool]
pub fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1×1 PNG image.
#[tool]
pub fn test_image_content() -> Content {
    Content::image(PNG_BASE64, "image/png")
}

/// Returns a short WAV audio clip.
#[tool]
pub fn test_audio_content() -> Content {
    Content::audio(WAV_BASE64, "audio/wav")
}

/// Returns a text resource embedded in the result.
#[tool]
pub fn test_embedded_resource() -> Content {
    Content::embedded(
        ResourceContents::text(
            "test://embedded-resource",
            "This is an embedded resource content.",
        )
        .mime_type("text/plain"),
    )
}

/// Returns text, an image and an embedded resource in one result.
#[tool]
pub fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image(PNG_BASE64, "image/png"),
        Content::embedded(
            ResourceContents::text(
                "test://mixed-content-resource",
                serde_json::json!({"test": "data", "value": 123}).to_string(),
            )
            .mime_type("application/json"),
        ),
    ]
}

/// Reports progress 0, 50 and 100 of 100, about 50 ms apart, then finishes.
#[tool]
pub async fn test_tool_with_progress(progress: Progress) -> String {
    for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        progress.report(step, Some(100.0), Some(&format!("step {} of 3", i + 1)));
    }
    "Progress complete: reported 0, 50 and 100 of 100.".to_owned()
}

/// Always fails: returns an `isError` result (a tool failure, not a protocol error).
#[tool]
pub fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Needs the client's `sampling` capability: without it the call is refused with `-32021`.
#[tool]
pub fn test_missing_capability(
    #[sample(prompt = "Say hello in one word.", max_tokens = 16)] hello: Sampled,
) -> String {
    format!("Success: the client sampled {:?}", hello.text())
}

/// A confirmation form.
#[derive(Debug, serde::Deserialize, mcp_runtime::ElicitForm)]
pub struct Proceed {
    /// Whether to go on.
    pub proceed: bool,
}

/// Asks the user a question through an `input_required` result (never a request on the
/// response stream), then reports the answer.
#[tool]
pub fn test_streaming_elicitation(
    #[elicit(message = "Proceed with the streaming test?")] answer: Elicitation<Proceed>,
) -> String {
    match answer {
        Elicitation::Accepted(p) => format!("The user answered proceed = {}.", p.proceed),
        Elicitation::Declined => "The user declined.".to_owned(),
        Elicitation::Cancelled => "The user cancelled.".to_owned(),
    }
}

/// Logs three messages, sent only when the request asked for logs with
/// `_meta["io.modelcontextprotocol/logLevel"]`.
#[tool]
pub async fn test_logging_tool(logger: Logger) -> CallToolResult {
    log_three(logger.named("test_logging_tool")).await
}

/// Three log messages 50 ms apart, then a result saying so.
pub async fn log_three(logger: Logger) -> CallToolResult {
    logger.info("Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    logger.info("Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    logger.info("Tool execution completed");
    CallToolResult::new(vec![Content::text("Logging test completed.")])
}
