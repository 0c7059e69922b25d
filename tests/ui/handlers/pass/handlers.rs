use mcp_runtime::{Server, handlers};
use std::sync::Mutex;

#[derive(Default)]
struct Notes {
    notes: Mutex<Vec<String>>,
}

#[handlers]
impl Notes {
    /// Adds a note.
    #[tool]
    async fn add_note(&self, text: String) -> usize {
        let mut notes = self.notes.lock().unwrap();
        notes.push(text);
        notes.len()
    }

    /// One note.
    #[resource("notes://{index}")]
    fn note(&self, index: usize) -> Result<String, String> {
        let notes = self.notes.lock().unwrap();
        notes.get(index).cloned().ok_or_else(|| format!("no note {index}"))
    }

    /// Summarize the notes.
    #[mcp_runtime::prompt]
    fn summarize(&self, style: Option<String>) -> String {
        format!("Summarize {} notes ({style:?}).", self.notes.lock().unwrap().len())
    }

    /// A tool that needs no value.
    #[tool(name = "ping")]
    fn ping() -> &'static str {
        "pong"
    }

    fn helper(&self) -> usize {
        0
    }
}

pub fn main() {
    let notes = Notes::default();
    assert_eq!(notes.helper(), 0);
    let server = Server::builder().handlers(notes).build();
    assert!(server.is_ok());
}
