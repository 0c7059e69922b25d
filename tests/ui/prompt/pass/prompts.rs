//! Prompts with typed, optional and context parameters.
use mcp_runtime::protocol::PromptMessage;
use mcp_runtime::{handler::CompletionRequest, McpError, RequestContext, Server, prompt};

async fn audiences(req: CompletionRequest) -> Vec<String> {
    vec![req.value]
}

/// A briefing.
#[prompt(title = "Brief", icon(src = "https://example.com/p.png"), complete(audience = audiences, tone = ["dry", "warm"]))]
async fn brief(
    /// Who reads it.
    audience: String,
    tone: Option<String>,
    words: Option<u32>,
    cx: RequestContext,
) -> Result<Vec<PromptMessage>, McpError> {
    let _ = (tone, words, cx);
    Ok(vec![PromptMessage::user(audience)])
}

#[prompt(name = "short-one", description = "Short.")]
fn short() -> &'static str {
    "hi"
}

pub fn main() {
    let _ = Server::builder().prompt(brief {}).prompt(short {}).build();
    assert_eq!(short(), "hi");
}
