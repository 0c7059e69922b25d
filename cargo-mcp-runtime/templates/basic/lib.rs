//! The {{name}} server: its tools, resources and prompts, each a plain function.

use mcp_runtime::prelude::*;

/// Add two integers. Use only for arithmetic addition.
#[tool(annotations(read_only))]
pub fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
) -> i64 {
    a + b
}

/// What this server is for, in a sentence.
#[resource("info://{{name}}/about", name = "about", mime_type = "text/plain")]
pub fn about() -> &'static str {
    "{{name}} adds numbers for its clients."
}

/// Ask the model to explain a sum step by step.
#[prompt]
pub fn explain_sum(
    /// The numbers to add, separated by spaces.
    numbers: String,
) -> String {
    format!("Add these numbers one at a time, showing each step: {numbers}")
}

/// The server: everything marked above, found at link time.
pub fn build() -> Result<Server, BuildError> {
    Server::from_inventory()
        .name("{{name}}")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Adds numbers. Read info://{{name}}/about for more.")
        .build()
}
