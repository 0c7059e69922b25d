//! The tools of the instances that `failover.rs` and `rolling.rs` start (each test binary
//! started again as an instance): a plain call, a multi-round request, a call that takes a
//! while, and a task. Included with `#[path]` by those two only, so that no other test binary
//! registers them.

use mcp_runtime::{ElicitForm, Elicitation, tool};
use serde::Deserialize;
use std::time::Duration;

/// The user's answer.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct Answer {
    /// Yes or no.
    ok: bool,
}

/// Adds two numbers.
#[tool]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Asks the user to confirm (a multi-round request).
#[tool]
pub fn confirm(#[elicit(message = "Go ahead?")] answer: Elicitation<Answer>) -> String {
    format!("confirmed: {}", answer.accepted().is_some_and(|a| a.ok))
}

/// Takes `ms` milliseconds to answer (a call in flight when an instance dies or stops).
#[tool]
pub async fn pause(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("paused {ms} ms")
}

/// Works for `ms` milliseconds; a task for clients that declare the extension.
#[tool(task = "optional")]
pub async fn slow_job(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("done after {ms} ms")
}
