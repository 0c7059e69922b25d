use mcp_runtime::tool;

struct Notes;

impl Notes {
    /// Creates a note.
    #[tool]
    fn create(text: String) -> String {
        text
    }
}

fn main() {}
