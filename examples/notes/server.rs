//! The notes server's store and primitives (shared by the example binary and its tests).

use mcp_runtime::prelude::*;
use mcp_runtime::{CancellationToken, handlers};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::RwLock;
use std::time::Duration;

/// One note.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Note {
    /// Its id (`notes://{id}`).
    pub id: u64,
    /// The text.
    pub text: String,
    /// Its tags.
    pub tags: Vec<String>,
}

/// The notes that matched a search.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Found {
    /// The matches, newest first.
    pub notes: Vec<Note>,
}

/// How a summary should read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    /// Short.
    Brief,
    /// Complete.
    Detailed,
}

/// The note store: the value every request of the server shares.
#[derive(Debug, Default)]
pub struct Notes {
    notes: RwLock<BTreeMap<u64, Note>>,
}

impl Notes {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<u64, Note>> {
        self.notes.read().unwrap_or_else(|e| e.into_inner())
    }
    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<u64, Note>> {
        self.notes.write().unwrap_or_else(|e| e.into_inner())
    }
}

#[handlers]
impl Notes {
    /// Create a note with optional tags. Returns the note, with the id to read it by.
    #[tool]
    fn create_note(
        &self,
        /// The text of the note.
        text: String,
        /// Tags, like `todo` or `idea`.
        #[serde(default)]
        tags: Vec<String>,
    ) -> Result<Json<Note>, String> {
        if text.trim().is_empty() {
            return Err("A note needs some text.".into());
        }
        let mut notes = self.write();
        let id = notes.keys().next_back().map_or(1, |last| last + 1);
        let note = Note { id, text, tags };
        notes.insert(id, note.clone());
        Ok(Json(note))
    }

    /// Find the notes whose text contains every word of `query` (case-insensitive), newest first.
    #[tool(annotations(read_only))]
    fn search_notes(
        &self,
        /// Words to look for.
        query: String,
        /// At most this many notes (default 10).
        limit: Option<usize>,
    ) -> Json<Found> {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let notes = self
            .read()
            .values()
            .rev()
            .filter(|n| {
                let text = n.text.to_lowercase();
                words.iter().all(|w| text.contains(w))
            })
            .take(limit.unwrap_or(10))
            .cloned()
            .collect();
        Json(Found { notes })
    }

    /// Delete every note tagged `tag`, after the user confirms.
    #[tool(annotations(destructive))]
    async fn delete_tagged(
        &self,
        /// The tag whose notes go.
        tag: String,
        #[elicit(message = "Delete every note tagged `{tag}`?")] confirm: Elicitation<String>,
    ) -> String {
        if !matches!(confirm, Elicitation::Accepted(_)) {
            return format!("Kept the notes tagged `{tag}`.");
        }
        let mut notes = self.write();
        let before = notes.len();
        notes.retain(|_, n| !n.tags.contains(&tag));
        format!("Deleted {} notes tagged `{tag}`.", before - notes.len())
    }

    /// Rebuild the search index, reporting progress; stops if the request is cancelled. A
    /// client that declares the tasks extension gets a task: it polls `tasks/get`, whose
    /// `statusMessage` is the last progress message, instead of holding the request open.
    #[tool(task = "optional")]
    async fn reindex(&self, progress: Progress, cancel: CancellationToken) -> String {
        let total = self.read().len();
        for done in 1..=total {
            tokio::select! {
                _ = cancel.cancelled() => return format!("Stopped after {} notes.", done - 1),
                _ = tokio::time::sleep(Duration::from_millis(1)) => {}
            }
            let message = format!("Indexed {done} of {total} notes");
            progress.report(done as f64, Some(total as f64), Some(&message));
        }
        format!("Reindexed {total} notes.")
    }

    /// One note, as JSON.
    #[resource("notes://{id}", name = "note", mime_type = "application/json")]
    fn note(&self, id: u64) -> Result<String, McpError> {
        let notes = self.read();
        let note = notes
            .get(&id)
            .ok_or_else(|| McpError::resource_not_found(&format!("notes://{id}")))?;
        serde_json::to_string(note).map_err(|e| McpError::internal(e.to_string()))
    }

    /// The tags in use and how many notes carry each, as JSON. Never cached: it changes with
    /// every note.
    #[resource("notes://tags", name = "tags", mime_type = "application/json")]
    fn tags(&self) -> String {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let notes = self.read();
        for tag in notes.values().flat_map(|n| &n.tags) {
            *counts.entry(tag).or_default() += 1;
        }
        serde_json::to_string(&counts).unwrap_or_else(|_| "{}".into())
    }

    /// Summarize the notes tagged `tag`.
    #[prompt(title = "Summarize a tag")]
    fn summarize_tag(
        &self,
        /// The tag to summarize.
        tag: String,
        /// `brief` or `detailed` (default `brief`).
        tone: Option<Tone>,
    ) -> String {
        let notes = self.read();
        let texts: Vec<&str> = notes
            .values()
            .filter(|n| n.tags.contains(&tag))
            .map(|n| n.text.as_str())
            .collect();
        let tone = match tone.unwrap_or(Tone::Brief) {
            Tone::Brief => "in one sentence",
            Tone::Detailed => "point by point",
        };
        format!(
            "Summarize these {} notes tagged `{tag}` {tone}:\n{}",
            texts.len(),
            texts.join("\n")
        )
    }
}

/// The notes server, with an empty store.
pub fn build() -> Result<Server, BuildError> {
    Server::builder()
        .name("notes")
        .version("1.0.0")
        .instructions("Keep the user's notes: create, search and delete them, and summarize a tag.")
        .handlers(Notes::default())
        // How to use the tools, as a skill (the skills extension), read from the folder when the
        // server starts and read again when it changes.
        .skills(
            Skills::dir(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/examples/notes/skills"
            ))
            .watch(Duration::from_secs(2)),
        )
        .build()
}
