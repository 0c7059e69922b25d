//! A mistake in the attribute is reported once: the function and its handle still exist, so
//! code that uses them does not add errors of its own.
use mcp_runtime::{Server, tool};

#[tool(nmae = "add")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    assert_eq!(add(1, 2), 3);
    let _ = Server::builder().tool(add {}).build();
}
