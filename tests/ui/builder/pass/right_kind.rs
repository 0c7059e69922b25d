use mcp_runtime::{NoArguments, Prompt, Server, Tool, prompt, resource, tool};

/// Adds.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

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

/// The configuration.
#[resource("config://app")]
fn config() -> String {
    "{}".to_owned()
}

pub fn main() -> Result<(), mcp_runtime::BuildError> {
    let server = Server::builder()
        .tool(add {})
        .tool(Tool::new("ping").handler(|_: NoArguments, _| async { "pong" }))
        .prompt(greet {})
        .prompt(Prompt::new("empty").handler(|_| async { "" }))
        .resource(config {})
        .resource_template(note {})
        .register(add {})
        .build();
    assert!(server.is_err(), "`add` is registered twice");
    Ok(())
}
