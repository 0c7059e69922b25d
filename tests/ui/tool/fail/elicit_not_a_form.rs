use mcp_runtime::{ElicitForm, Elicitation, tool};

#[derive(serde::Deserialize, ElicitForm)]
enum Choice {
    Yes,
    No,
}

type Count = Elicitation<u32>;

/// `Elicitation<T>` of a `T` that is not a form: a `bool`, a choice (a field, not a form), an
/// alias of one.
#[tool]
fn deploy(
    #[elicit(message = "Go on?")] answer: Elicitation<bool>,
    #[elicit(message = "Which?")] choice: Option<Elicitation<Choice>>,
    #[elicit(message = "How many?")] count: Count,
) -> String {
    let _ = (answer, choice, count);
    String::new()
}

fn main() {}
