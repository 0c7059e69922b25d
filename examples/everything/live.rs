//! List changes on the running server, announced to `subscriptions/listen` streams.
//!
//! Handlers reach the server through shared state: a [`Live`] handle registered with
//! `ServerBuilder::state` and filled right after `build()`.

use mcp_runtime::{PrimitiveKind, Server, State, prompt, tool};
use std::sync::{Arc, OnceLock};

/// The running server, for handlers that change what it lists.
#[derive(Clone, Default)]
pub struct Live(Arc<OnceLock<Server>>);

impl Live {
    /// Fills the handle once the server is built. (The server's state then refers to the server
    /// itself: a reference cycle that lives as long as the process, which is what a server does.)
    pub fn attach(&self, server: &Server) {
        let _ = self.0.set(server.clone());
    }

    fn server(&self) -> Result<&Server, String> {
        self.0
            .get()
            .ok_or_else(|| "the server is not running yet".to_owned())
    }
}

/// Shows or hides `test_dynamic_tool`, which tells listen streams that asked for
/// `toolsListChanged`.
#[tool]
pub fn test_trigger_tool_change(State(live): State<Live>) -> Result<String, String> {
    let server = live.server()?;
    let hidden = server
        .set_enabled(PrimitiveKind::Tool, "test_dynamic_tool", false)
        .map_err(|e| e.to_string())?;
    if hidden {
        return Ok("Hid test_dynamic_tool: the tool list changed.".to_owned());
    }
    server
        .set_enabled(PrimitiveKind::Tool, "test_dynamic_tool", true)
        .map_err(|e| e.to_string())?;
    Ok("Listed test_dynamic_tool again: the tool list changed.".to_owned())
}

/// Adds or removes the prompt `test_dynamic_prompt`, which tells listen streams that asked for
/// `promptsListChanged`.
#[tool]
pub fn test_trigger_prompt_change(State(live): State<Live>) -> Result<String, String> {
    let server = live.server()?;
    let removed = server
        .remove(PrimitiveKind::Prompt, "test_dynamic_prompt")
        .map_err(|e| e.to_string())?;
    if removed {
        return Ok("Removed test_dynamic_prompt: the prompt list changed.".to_owned());
    }
    server
        .add(test_dynamic_prompt {})
        .map_err(|e| e.to_string())?;
    Ok("Added test_dynamic_prompt: the prompt list changed.".to_owned())
}

/// A tool that `test_trigger_tool_change` hides and shows.
#[tool]
pub fn test_dynamic_tool() -> &'static str {
    "The dynamic tool is listed right now."
}

/// A prompt that `test_trigger_prompt_change` adds and removes.
#[prompt]
pub fn test_dynamic_prompt() -> &'static str {
    "This prompt was added while the server was running."
}
