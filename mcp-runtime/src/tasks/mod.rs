//! The tasks extension's state (`io.modelcontextprotocol/tasks`): what is kept of each task
//! ([`TaskRecord`]) and where ([`TaskStore`]; [`MemoryTaskStore`] by default). Declaring a task
//! tool is [`TaskSupport`](crate::TaskSupport); serving `tasks/*` is the dispatcher's.
//!
//! ```
//! use mcp_runtime::tasks::MemoryTaskStore;
//! use mcp_runtime::{Server, TaskOptions};
//! let server = Server::builder()
//!     .tasks(TaskOptions::new().store(MemoryTaskStore::new(1_000)))
//!     .build()
//!     .unwrap();
//! ```

mod record;
mod store;
pub(crate) mod time;

pub use record::TaskRecord;
pub use store::{MemoryTaskStore, TaskChange, TaskStore};

/// A new task id: 128 random bits, as 32 lowercase hex digits.
pub(crate) fn new_id() -> Result<String, crate::error::McpError> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|e| {
        crate::error::McpError::internal(format!("no randomness for a task id: {e}"))
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
