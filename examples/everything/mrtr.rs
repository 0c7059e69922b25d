//! Multi round-trip requests: a call without the client input it needs gets an `input_required`
//! result listing what to ask the user, the client's model or the client itself; the retry
//! carries the answers (`inputResponses`) and the sealed `requestState`.
//!
//! Most fixtures *declare* their inputs as parameters (`#[elicit]`, `#[sample]`, `#[roots]`):
//! everything missing is asked for at once and the body runs once, with typed answers. The
//! dynamic ones (`multi_round`, `request_state`) use the continuation API, [`Rounds`].

use mcp_runtime::{
    Ask, ElicitForm, Elicitation, McpError, Roots, Rounds, Sampled, Step, prompt, tool,
};
use serde::{Deserialize, Serialize};

/// The user's name.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct NameForm {
    /// Your name.
    pub name: String,
}

/// The user's favourite colour.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct ColorForm {
    /// Your favorite color.
    pub color: String,
}

/// A yes/no confirmation.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct Confirm {
    /// Whether you confirm.
    pub ok: bool,
}

/// Context for a prompt.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct ContextForm {
    /// The context the prompt should use.
    pub context: String,
}

fn name_of(answer: Elicitation<NameForm>) -> String {
    answer
        .accepted()
        .map_or_else(|| "unknown".to_owned(), |f| f.name)
}

/// MRTR: asks the user for their name (elicitation), then greets them.
#[tool]
pub fn test_input_required_result_elicitation(
    #[elicit(message = "What is your name?")] user_name: Elicitation<NameForm>,
) -> String {
    format!("Hello, {}!", name_of(user_name))
}

/// MRTR: asks the client's model a question (sampling), then reports the answer.
#[tool]
pub fn test_input_required_result_sampling(
    #[sample(prompt = "What is the capital of France?", max_tokens = 100)]
    capital_question: Sampled,
) -> String {
    format!("Sampling result: {}", capital_question.text())
}

/// MRTR: asks the client for its roots, then lists them.
#[tool]
pub fn test_input_required_result_list_roots(#[roots] client_roots: Roots) -> String {
    let uris: Vec<&str> = client_roots.iter().map(|r| r.uri.as_str()).collect();
    format!("Found {} root(s): {}", uris.len(), uris.join(", "))
}

/// MRTR: asks for a confirmation and carries its own state in the sealed `requestState`; the
/// second round answers `state-ok` once the state came back intact.
#[tool]
pub fn test_input_required_result_request_state(
    #[ctx] rounds: Rounds,
) -> Result<Step<String>, McpError> {
    let carried: Option<String> = rounds.state()?;
    match (carried, rounds.answer::<Elicitation<Confirm>>("confirm")?) {
        (Some(marker), Some(answer)) => Ok(Step::Done(format!(
            "state-ok: requestState validated ({marker}); confirmed: {}",
            answer.accepted().is_some_and(|c| c.ok)
        ))),
        _ => rounds.ask(
            Ask::new().elicit::<Confirm>("confirm", "Please confirm"),
            &"awaiting confirmation".to_owned(),
        ),
    }
}

/// MRTR: asks for three inputs at once (a name, a sampled greeting and the client's roots).
#[tool]
pub fn test_input_required_result_multiple_inputs(
    #[elicit(message = "What is your name?")] user_name: Elicitation<NameForm>,
    #[sample(prompt = "Generate a greeting", max_tokens = 50)] greeting: Sampled,
    #[roots] client_roots: Roots,
) -> String {
    format!(
        "Name: {}; Greeting: {}; Roots: {}",
        name_of(user_name),
        greeting.text(),
        client_roots.len()
    )
}

/// Where the multi-round conversation stands (carried in the sealed `requestState`).
#[derive(Debug, Serialize, Deserialize)]
enum Stage {
    AskedName,
    AskedColor { name: String },
}

fn ask_name(rounds: &Rounds) -> Result<Step<String>, McpError> {
    rounds.ask(
        Ask::new().elicit::<NameForm>("step1", "Step 1: What is your name?"),
        &Stage::AskedName,
    )
}

fn ask_color(rounds: &Rounds, name: String) -> Result<Step<String>, McpError> {
    rounds.ask(
        Ask::new().elicit::<ColorForm>("step2", "Step 2: What is your favorite color?"),
        &Stage::AskedColor { name },
    )
}

/// MRTR: three rounds, each asking one question that depends on the previous answer.
#[tool]
pub fn test_input_required_result_multi_round(
    #[ctx] rounds: Rounds,
) -> Result<Step<String>, McpError> {
    match rounds.state::<Stage>()? {
        None => ask_name(&rounds),
        Some(Stage::AskedName) => match rounds.answer::<Elicitation<NameForm>>("step1")? {
            Some(Elicitation::Accepted(form)) => ask_color(&rounds, form.name),
            Some(_) => Ok(Step::Done("The user did not give a name.".to_owned())),
            None => ask_name(&rounds),
        },
        Some(Stage::AskedColor { name }) => {
            match rounds.answer::<Elicitation<ColorForm>>("step2")? {
                Some(Elicitation::Accepted(form)) => Ok(Step::Done(format!(
                    "Multi-round complete for {name} who likes {}",
                    form.color
                ))),
                Some(_) => Ok(Step::Done(format!("{name} did not pick a color."))),
                None => ask_color(&rounds, name),
            }
        }
    }
}

/// MRTR: asks for a confirmation; the `requestState` of the retry must come back untouched.
#[tool]
pub fn test_input_required_result_tampered_state(
    #[elicit(message = "Please confirm")] confirm: Elicitation<Confirm>,
) -> String {
    match confirm {
        Elicitation::Accepted(c) => format!("Confirmed: {}", c.ok),
        _ => "Not confirmed.".to_owned(),
    }
}

/// MRTR: asks only for what the client declared it can provide (elicitation, sampling, roots).
#[tool]
pub fn test_input_required_result_capabilities(
    #[elicit(message = "What is your name?")] elicit_input: Option<Elicitation<NameForm>>,
    #[sample(prompt = "Sample request", max_tokens = 50)] sample_input: Option<Sampled>,
    #[roots] roots_input: Option<Roots>,
) -> String {
    let mut got = Vec::new();
    if let Some(answer) = elicit_input {
        got.push(format!("name = {}", name_of(answer)));
    }
    if let Some(sampled) = sample_input {
        got.push(format!("sample = {}", sampled.text()));
    }
    if let Some(roots) = roots_input {
        got.push(format!("roots = {}", roots.len()));
    }
    if got.is_empty() {
        "The client declared no capability this tool can use.".to_owned()
    } else {
        format!("Received {}", got.join("; "))
    }
}

/// MRTR: prompt that requires elicitation input.
#[prompt]
pub fn test_input_required_result_prompt(
    #[elicit(message = "What context should the prompt use?")] user_context: Elicitation<
        ContextForm,
    >,
) -> String {
    let context = user_context
        .accepted()
        .map_or_else(|| "none".to_owned(), |f| f.context);
    format!("Prompt with context: {context}")
}
