//! The {{name}} server: `count_words` answers with structured content, and hosts that render
//! MCP Apps show that answer in the tool's view, `ui://{{name}}/words.html` (`src/words.html`,
//! one page embedded at compile time that speaks the Apps protocol itself: no SDK, no network).

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::HashMap;

/// The view's URI.
pub const VIEW: &str = "ui://{{name}}/words.html";

/// How many words a count keeps.
const TOP: usize = 20;

/// The most frequent words of a text.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WordCounts {
    /// The words, the most frequent first (ties in alphabetical order).
    pub words: Vec<String>,
    /// How often each word appears, in the same order.
    pub counts: Vec<u32>,
}

/// Count the words of a text; the 20 most frequent come back, and hosts with MCP Apps draw them.
#[tool(ui = "ui://{{name}}/words.html", annotations(read_only))]
pub fn count_words(
    /// The text whose words are counted (letters and digits; case is ignored).
    text: String,
) -> Structured<WordCounts> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        *seen.entry(word.to_lowercase()).or_default() += 1;
    }
    let mut ranked: Vec<(String, u32)> = seen.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(TOP);
    let summary: Vec<String> = ranked.iter().map(|(w, n)| format!("{w}: {n}")).collect();
    let (words, counts) = ranked.into_iter().unzip();
    Structured::new(WordCounts { words, counts }).text(summary.join("\n"))
}

/// The view `count_words` opens: its HTML, with a content security policy that allows no
/// outside origin at all.
fn view() -> UiResource {
    UiResource::new(VIEW, "words")
        .title("Word counts")
        .description("A bar for each word of a count_words answer")
        .html(include_str!("words.html"))
        .csp(Csp::new())
}

/// The server: the tool marked above, found at link time, and its view.
pub fn build() -> Result<Server, BuildError> {
    Server::from_inventory()
        .name("{{name}}")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Counts the words of a text; hosts with MCP Apps draw the counts as bars.")
        .resource(view())
        .build()
}
