//! Transport-agnostic dispatch: one message in; nothing (a notification), or a [`Call`] out: the
//! request's notifications, then exactly one [`Response`].
//!
//! **Stages**, in the order a request goes through them:
//!
//! 1. `decode`: bytes → [`ClientRequest`](crate::protocol::ClientRequest) (one typed request, `-32700`/`-32600` otherwise),
//!    the message's nesting depth checked first and its strings' lengths after (`limits`);
//! 2. `validate`: required `_meta` (`-32602`), the transport's own checks (HTTP headers,
//!    `-32020`), protocol version (`-32022`), method known and advertised (`-32601`): a
//!    `Validated` request (in `work`), which only `validate` makes, typed so that routing checks
//!    nothing again; then (in `handle`) a permit of the server's concurrency limit (`-32603`
//!    busy otherwise);
//! 3. `route`: the request context, then the method's family, named at the call site: the
//!    family prepares the request (`Prepared`, in `work`), the [`Layer`](crate::layers::Layer)s run, the family
//!    starts its handler (`Work`);
//! 4. a **family** (the folder `families/`, one module of free functions per family): `lists`,
//!    `tools`, `resources`, `prompts`, `complete`, `listen`, and `tasks` (a folder: the
//!    `tasks/*` methods, and the tasks that tool calls start). Each finds its primitive and
//!    `authorize`s the caller for it: scopes at once, custom checks before the handler runs (a
//!    refusal is `-32602` with `data.requiredScopes`; lists leave out what the caller may not
//!    use);
//! 5. `encode`: the JSON-RPC envelope of the result or error, as a [`Response`] that says
//!    which stage answered (so a transport can frame it: HTTP picks the status).
//!
//! **Below the stages and families**, imported by them and importing none of them:
//! `dispatcher` (the `Dispatcher` and what a transport brings: the types every file shares),
//! `work` (`Prepared` → `Work`), `authorize`, `round` (a request's MRTR round: its client input
//! opened, an `input_required` answer sealed), `tool_result` (a tool's outcome as answered, by
//! `tools` and `tasks` alike), `layer`, `call` and `panic` (a [`Call`] carries the handler's
//! notifications and its response; dropping it cancels the handler), `slots` (the pools of
//! requests, listen streams and running tasks), `mounted` (what a mounted server plugs in: the
//! views of a caller, the tasks it relays), and `trace`, [`metrics`] and `observe` (the
//! request's `tracing` spans and its metrics, finished with its answer).
//!
//! **The entry point**, `handle` (`Dispatcher::handle`), runs the stages in that order; it is
//! the only module that imports `route`.
//!
//! Imports go one way: this module imports its children; a child imports siblings below it,
//! never this module, nor `route` (but `handle`), nor `handle`.

mod authorize;
mod call;
mod decode;
mod dispatcher;
mod encode;
mod families;
mod handle;
pub(crate) mod layer;
mod limits;
pub mod metrics;
mod mounted;
mod observe;
mod panic;
mod round;
mod route;
mod slots;
mod tool_result;
mod trace;
mod validate;
mod work;

pub use call::{Call, Outgoing};
pub(crate) use decode::{decode_general, decode_tool_call};
pub(crate) use dispatcher::{Dispatcher, Ingress, Transport, TransportChecks};
pub use encode::Response;
pub(crate) use handle::Handled;
#[cfg(feature = "mounts")]
pub(crate) use mounted::{CallerViews, RelayedTasks};
pub(crate) use slots::{Slot, Slots};
