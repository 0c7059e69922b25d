use mcp_runtime::tool;

/// Scopes as a string.
#[tool(scopes = "docs:read")]
fn one() -> String {
    String::new()
}

/// A scope with a space, one that is not a string, two lists.
#[tool(scopes = ["docs read", 7], scopes = ["x"])]
fn two() -> String {
    String::new()
}

/// A check that is not a path.
#[tool(authorize = |_| async { Ok(()) })]
fn three() -> String {
    String::new()
}

/// A check with the wrong signature.
#[tool(authorize = not_a_check)]
fn four() -> String {
    String::new()
}

fn not_a_check(_: u32) -> bool {
    true
}

fn main() {
    let _ = (one {}, two {}, three {}, four {});
}
