//! The method families: one module per family, each a set of free functions that `route`
//! names at its call site. A family finds its primitive, `authorize`s the caller for it, owns
//! its input (`prepare`, making a [`Prepared`](super::work::Prepared)) and starts its handler
//! (`invoke`, making [`Work`](super::work::Work)).
//!
//! - `lists`: `server/discover`, `tools/list`, `resources/list`,
//!   `resources/templates/list`, `prompts/list`, `skills/list` (pages, answered without a
//!   handler);
//! - `tools`: `tools/call` (a task tool's call runs as a task, in `tasks`);
//! - `resources`: `resources/read`;
//! - `prompts`: `prompts/get`;
//! - `complete`: `completion/complete`;
//! - `listen`: `subscriptions/listen`;
//! - `tasks`: `tasks/get`, `tasks/update`, `tasks/cancel`, and the tasks that tool calls start;
//! - `skills`: `skills/get`, `resources/directory/read` (the Skills extension; `skills/list` is
//!   one of `lists`, and the skills' files are read through `resources`).
//!
//! A family never calls back into `route`; what two of them share lives below them, in
//! `dispatch`: `authorize`, `round` (a request's MRTR round), `tool_result` (a tool's outcome
//! answered, by `tools` and `tasks` alike), `trace`, `panic`. Between families the arrows go one
//! way: `tools` and `listen` use `tasks`, `skills` uses the cursors of `lists`.

pub(super) mod complete;
pub(super) mod listen;
pub(super) mod lists;
pub(super) mod prompts;
pub(super) mod resources;
#[cfg(feature = "skills")]
pub(super) mod skills;
pub(super) mod tasks;
pub(super) mod tools;
