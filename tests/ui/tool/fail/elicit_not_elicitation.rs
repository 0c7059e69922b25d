use mcp_runtime::{ElicitForm, tool};

#[derive(serde::Deserialize, ElicitForm)]
struct Proceed {
    proceed: bool,
}

/// An `#[elicit]` parameter whose type is not `Elicitation<..>`: the form itself, a list.
#[tool]
fn deploy(
    #[elicit(message = "Go on?")] answer: Proceed,
    #[elicit(message = "Which?")] picks: Option<Vec<String>>,
) -> String {
    let _ = (answer.proceed, picks);
    String::new()
}

fn main() {}
