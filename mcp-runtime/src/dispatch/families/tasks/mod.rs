//! The `tasks` family (the tasks extension): `tasks/get`, `tasks/update` and `tasks/cancel`
//! (`methods`), and a `tools/call` of a task tool that runs as a task (`run`), held by a lease
//! in the store while it runs (`lease`). `extension` says whether a client declared the
//! extension; `relayed` answers for the tasks of servers this one relays.
//!
//! The files import each other in one direction only: `methods` and `run` use `lease` and
//! `extension`; this module only re-exports them.

mod extension;
mod lease;
mod methods;
mod relayed;
mod run;

pub(crate) use extension::{declares_tasks, tasks_not_declared};
pub(crate) use methods::{owned_task, prepare, read_answers, task_scopes};
pub(crate) use relayed::RelayedTasks;
pub(crate) use run::start;
