//! The tasks extension (`io.modelcontextprotocol/tasks`): tools whose calls a client that
//! declares the extension gets as task handles, then polls (`tasks/get`), answers
//! (`tasks/update`) and cancels (`tasks/cancel`). These are the fixtures of the suite's
//! `tasks-*` scenarios.
//!
//! `#[tool(task = "optional")]` runs as a task only for a client that declares the extension;
//! `task = "required"` refuses other clients with `-32021`. Questions asked through [`Rounds`]
//! once the task runs appear in `tasks/get` as `input_required`; declared inputs (`#[elicit]`)
//! are asked before the task starts, as an ordinary multi round-trip request.

use super::mrtr::NameForm;
use mcp_runtime::{
    Ask, CancellationToken, ElicitForm, Elicitation, McpError, Progress, Rounds, Step, tool,
};
use serde::Deserialize;
use std::time::Duration;

/// A confirmation.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct DeleteForm {
    /// Whether to delete the file.
    pub confirm: bool,
}

/// A name and a confirmation, for the two questions of `multi_input`.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct EntryForm {
    /// A name.
    pub name: String,
    /// Whether to go ahead.
    pub confirm: bool,
}

/// Greets without a task (never one, even for a client that declares the extension).
#[tool]
pub fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Sleeps `seconds`, reporting progress each second, then answers; a task when the client
/// declares the extension, a plain (slow) call otherwise. Cancellation stops the sleep.
#[tool(task = "optional")]
pub async fn slow_compute(
    /// How long to compute, in seconds.
    seconds: f64,
    /// A label echoed in the result.
    #[serde(default)]
    label: Option<String>,
    progress: Progress,
    cancel: CancellationToken,
) -> Result<String, McpError> {
    let label = label.unwrap_or_else(|| "job".to_owned());
    let total = seconds.clamp(0.0, 600.0);
    let mut done = 0.0;
    while done < total {
        let step = (total - done).min(1.0);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs_f64(step)) => {}
            () = cancel.cancelled() => {
                return Err(McpError::internal(format!("{label} was cancelled")));
            }
        }
        done += step;
        progress.report(
            done,
            Some(total),
            Some(&format!("{label}: {done:.0} of {total:.0} s")),
        );
    }
    Ok(format!("Computed {label} in {total} s"))
}

/// Fails after about a second with a tool error (`isError`): the task still completes. Runs
/// only as a task.
#[tool(task = "required")]
pub async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("The job failed: the input data was inconsistent.".to_owned())
}

/// Fails with a JSON-RPC error: the task ends `failed`. Runs only as a task.
#[tool(task = "required")]
pub async fn protocol_error_job() -> Result<String, McpError> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    Err(McpError::internal(
        "The job could not reach its data source",
    ))
}

/// Asks, from inside its task, whether to delete `filename`; completes once answered.
#[tool(task = "required")]
pub async fn confirm_delete(
    /// The file to delete.
    filename: String,
    #[ctx] rounds: Rounds,
) -> Result<Step<String>, McpError> {
    match rounds.answer::<Elicitation<DeleteForm>>("confirm")? {
        None => rounds.ask(
            Ask::new().elicit::<DeleteForm>("confirm", &format!("Delete {filename}?")),
            &(),
        ),
        Some(Elicitation::Accepted(form)) if form.confirm => {
            Ok(Step::Done(format!("Deleted {filename}")))
        }
        Some(_) => Ok(Step::Done(format!("Kept {filename}"))),
    }
}

/// Asks two questions at once from inside its task; completes once both are answered (the
/// client may answer them one `tasks/update` at a time).
#[tool(task = "required")]
pub async fn multi_input(#[ctx] rounds: Rounds) -> Result<Step<String>, McpError> {
    let first = rounds.answer::<Elicitation<EntryForm>>("first")?;
    let second = rounds.answer::<Elicitation<EntryForm>>("second")?;
    match (first, second) {
        (Some(a), Some(b)) => {
            let entry = |e: Elicitation<EntryForm>| match e.accepted() {
                Some(f) if f.confirm => f.name,
                Some(f) => format!("{} (unconfirmed)", f.name),
                None => "nothing".to_owned(),
            };
            Ok(Step::Done(format!("Got {} and {}", entry(a), entry(b))))
        }
        _ => rounds.ask(
            Ask::new()
                .elicit::<EntryForm>("first", "First entry?")
                .elicit::<EntryForm>("second", "Second entry?"),
            &(),
        ),
    }
}

/// Asks the user's name before its task starts (an ordinary `input_required` round), then
/// greets them from the task.
#[tool(task = "required")]
pub async fn test_tool_with_task(
    #[elicit(message = "What is your name?")] user_name: Elicitation<NameForm>,
) -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    let name = user_name
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |f| f.name);
    format!("Hello from the task, {name}!")
}
