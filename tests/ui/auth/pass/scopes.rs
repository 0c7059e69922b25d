//! Scopes and custom checks on every kind of primitive.

use mcp_runtime::auth::{AccessRequest, Denied};
use mcp_runtime::{Server, prompt, resource, tool};

async fn owners_only(access: AccessRequest) -> Result<(), Denied> {
    match access.caller() {
        Some(_) => Ok(()),
        None => Err(Denied::new("sign in first")),
    }
}

/// Searches private documents.
#[tool(scopes = ["docs:read"], authorize = owners_only)]
fn search(query: String) -> String {
    query
}

/// The handbook.
#[resource("docs://handbook", scopes = ["docs:read", "docs:list"])]
fn handbook() -> String {
    "handbook".into()
}

/// One page.
#[resource("docs://pages/{id}", authorize = owners_only)]
fn page(id: String) -> String {
    id
}

/// A review prompt.
#[prompt(scopes = ["prompts:use"])]
fn review(topic: String) -> String {
    topic
}

pub fn main() {
    let _ = Server::builder()
        .tool(search {})
        .resource(handbook {})
        .resource_template(page {})
        .prompt(review {})
        .build()
        .unwrap();
}
