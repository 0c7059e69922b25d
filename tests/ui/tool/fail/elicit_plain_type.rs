use mcp_runtime::tool;

/// An `#[elicit]` parameter of a plain type: told the `Elicitation<..>` to write.
#[tool]
fn deploy(
    #[elicit(message = "Go on?")] go_on: bool,
    #[elicit(message = "Why?")] reason: String,
    #[elicit(message = "How many?")] count: Option<u32>,
) -> String {
    format!("{go_on} {reason} {count:?}")
}

fn main() {
    // The function is still there, callable as written.
    let _ = deploy(true, String::new(), None);
}
