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

#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Tone {
    Dry,
    Warm,
}

struct Words(u32);

impl std::str::FromStr for Words {
    type Err = std::num::ParseIntError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(Words)
    }
}

#[derive(serde::Deserialize, mcp_runtime::ElicitForm)]
struct Proceed {
    proceed: bool,
}

type Answer = mcp_runtime::Elicitation<Proceed>;

/// Arguments made with serde from the string (a fieldless enum) and with `FromStr`; client
/// inputs whose type is an alias of `Elicitation<..>`.
#[prompt]
fn styled(
    tone: Tone,
    words: Option<Words>,
    #[elicit(message = "Go on?")] go: Answer,
    #[elicit(message = "Sure?")] sure: Option<Answer>,
) -> String {
    let go = go.accepted().is_some_and(|p| p.proceed);
    let _ = (
        matches!(tone, Tone::Dry | Tone::Warm),
        words.map(|w| w.0),
        sure,
    );
    go.to_string()
}

#[prompt(name = "short-one", description = "Short.")]
fn short() -> &'static str {
    "hi"
}

pub fn main() {
    let _ = Server::builder()
        .prompt(brief {})
        .prompt(styled {})
        .prompt(short {})
        .build();
    assert_eq!(short(), "hi");
}
