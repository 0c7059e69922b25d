//! The `tasks` family (the tasks extension): `tasks/get`, `tasks/update` and `tasks/cancel`
//! (`methods`), and a `tools/call` of a task tool that runs as a task (`run`), held by a lease
//! in the store while it runs (`lease`). `extension` says whether a client declared the
//! extension. The tasks of servers this one relays are answered through `dispatch::mounted`'s
//! `RelayedTasks`, which `methods` asks first.
//!
//! The files import each other in one direction only: `methods` and `run` use `lease` and
//! `extension`; this module only re-exports them.

mod extension;
#[cfg(feature = "tasks")]
mod lease;
#[cfg(feature = "tasks")]
mod methods;
#[cfg(feature = "tasks")]
mod run;

pub(crate) use extension::{declares_tasks, tasks_not_declared};
#[cfg(feature = "tasks")]
pub(crate) use methods::{TaskMethod, owned_task, prepare, read_answers, task_scopes};
#[cfg(feature = "tasks")]
pub(crate) use run::start;
