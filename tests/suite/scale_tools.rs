//! The tools of the instances that `failover` and `rolling` start (the test binary started
//! again as an instance): a plain call, a multi-round request, a call that takes a while, and a
//! task; the `_meta` their clients send; and the lock that keeps their minutes of load apart.
//! In the suite only (`--features redis`), so that no binary that collects the link-time
//! registry registers them.

use mcp_runtime::{ElicitForm, Elicitation, tool};
use serde::Deserialize;
use serde_json::{Value, json};
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

/// The request `_meta` of the load's clients (`name` in `clientInfo`): elicitation and the
/// tasks extension declared.
pub fn client_meta(name: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    })
}

/// Held for its minute of load by each of `failover` and `rolling`, so that the two never load
/// the machine (three instances, nginx and Redis each) at once, whatever the test threads.
pub async fn one_load_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOAD: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOAD.lock().await
}
