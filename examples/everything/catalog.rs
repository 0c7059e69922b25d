//! `test://` resources, a resource template, the prompts, and argument completion.

use super::content::PNG_BASE64;
use mcp_runtime::protocol::{Content, PromptMessage, ResourceContents, Role};
use mcp_runtime::{prompt, resource};

/// A static text resource.
#[resource("test://static-text", name = "static-text", mime_type = "text/plain")]
pub fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a 1×1 PNG).
#[resource(
    "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
pub fn static_binary() -> ResourceContents {
    ResourceContents::blob_base64("test://static-binary", PNG_BASE64)
}

/// A text resource whose contents could change.
#[resource(
    "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
pub fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// JSON data for any `id`.
#[resource(
    "test://template/{id}/data",
    name = "template",
    mime_type = "application/json"
)]
pub fn template_data(id: String) -> String {
    serde_json::json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
        .to_string()
}

/// A simple prompt without arguments.
#[prompt]
pub fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two required arguments.
#[prompt(complete(arg1 = ["test", "testValue1", "testValue2", "example"]))]
pub fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource.
#[prompt]
pub fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[serde(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(
            Role::User,
            Content::embedded(
                ResourceContents::text(resource_uri, "Embedded resource content for testing.")
                    .mime_type("text/plain"),
            ),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[prompt]
pub fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, Content::image(PNG_BASE64, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}
