use mcp_runtime::{Prompt, Server, prompt, resource};

/// Greets.
#[prompt]
fn greet() -> &'static str {
    "Say hello."
}

/// One note.
#[resource("notes://{id}")]
fn note(id: String) -> String {
    id
}

fn main() {
    let _ = Server::builder().tool(Prompt::new("greet"));
    let _ = Server::builder().tool(greet {});
    let _ = Server::builder().resource(note {});
}
