use mcp_runtime::{Elicitation, tool};

/// Deletes notes.
#[tool]
async fn delete_notes(
    tag: String,
    #[elicit(message = "Delete the notes tagged {tagz}?")] confirm: Elicitation<String>,
) -> String {
    format!("{tag} {confirm:?}")
}

/// Asks with a brace left open.
#[tool]
async fn ask(#[elicit(message = "Sure {?")] confirm: Elicitation<String>) -> String {
    format!("{confirm:?}")
}

fn main() {}
