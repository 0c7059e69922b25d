//! The team's notes: a small knowledge base searched by `search_notes`, whose view
//! (`search.html`) is written with the official ext-apps `App` class and opens a note with
//! `read_note`.

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

/// The notes' search view.
pub const SEARCH_VIEW: &str = "ui://notes/search.html";

/// The notes (a real server would read them from a database).
const NOTES: &[(&str, &str)] = &[
    (
        "Release checklist",
        "Tag the release, write the notes, announce it in #general.",
    ),
    (
        "On-call handbook",
        "Page the second on-call after 15 minutes without an answer.",
    ),
    (
        "Design review",
        "Every new endpoint gets a design review before its first release.",
    ),
    (
        "Onboarding",
        "New people pair with a buddy for their first two weeks.",
    ),
];

/// A note that matched.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hit {
    /// The note's number (for `read_note`).
    pub id: u32,
    /// Its title.
    pub title: String,
    /// Its first words.
    pub snippet: String,
}

/// What a search found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hits {
    /// What was searched for.
    pub query: String,
    /// The notes that match, best first.
    pub hits: Vec<Hit>,
}

/// The notes, searchable.
pub struct Notes;

#[handlers]
impl Notes {
    /// Searches the team's notes (titles and text, case-insensitive).
    #[tool(ui = "ui://notes/search.html", annotations(read_only = true))]
    fn search_notes(
        &self,
        /// Words to look for (1 to 100 characters).
        query: String,
    ) -> Result<Structured<Hits>, McpError> {
        let query = query.trim().to_owned();
        if query.is_empty() || query.chars().count() > 100 {
            return Err(McpError::invalid_params("a query has 1 to 100 characters"));
        }
        let words: Vec<String> = query
            .to_lowercase()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let hits: Vec<Hit> = (1..)
            .zip(NOTES)
            .filter(|(_, (title, text))| {
                let all = format!("{title} {text}").to_lowercase();
                words.iter().any(|w| all.contains(w.as_str()))
            })
            .map(|(id, (title, text))| Hit {
                id,
                title: (*title).to_owned(),
                snippet: text
                    .split_whitespace()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join(" "),
            })
            .collect();
        let text = match hits.len() {
            0 => format!("No note matches {query:?}."),
            n => format!(
                "{n} notes match {query:?}: {}",
                hits.iter()
                    .map(|h| h.title.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Ok(Structured::new(Hits { query, hits }).text(text))
    }

    /// Reads one note whole.
    #[tool(ui = "ui://notes/search.html", annotations(read_only = true))]
    fn read_note(
        &self,
        /// The note's number, from `search_notes`.
        id: u32,
    ) -> Result<String, McpError> {
        let (title, text) = (id as usize)
            .checked_sub(1)
            .and_then(|i| NOTES.get(i))
            .ok_or_else(|| McpError::invalid_params(format!("there is no note #{id}")))?;
        Ok(format!("{title}\n\n{text}"))
    }
}

/// The search view: its page, with the official SDK (`AppSdk`) put in it.
pub fn search_view(sdk: AppSdk) -> UiResource {
    UiResource::new(SEARCH_VIEW, "search")
        .title("Search the notes")
        .description("The notes a search found; open one to read it")
        .html(include_str!("search.html"))
        .app_sdk(sdk)
}
