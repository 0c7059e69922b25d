//! The request context handed to handlers ([`RequestContext`]), and the values handlers take
//! from it: cancellation, progress and log reporting, shared state, the caller.

mod caller;
mod extract;
mod notify;
mod queue;
mod request;
mod trace;

pub use caller::Caller;
pub(crate) use caller::ShareKey;
pub use extract::{FromContext, State, StateNeed};
pub use notify::Logger;
pub(crate) use notify::{Notifier, Sent};
pub(crate) use queue::{Receiver as NotificationReceiver, queue as notification_queue};
pub(crate) use request::{ContextInner, StateMap};
pub use request::{Progress, RequestContext};
pub use tokio_util::sync::CancellationToken;
pub(crate) use trace::RequestTrace;
