//! Servers mounted in a server (`ServerBuilder::mount`): in process and remote (Streamable HTTP
//! in both eras, stdio), names and links under a prefix, collisions, a mount's own scopes,
//! rounds of client input and progress relayed, tasks and skills, the caller's token kept from
//! backends, several gateways, and a backend that goes down and comes back while the others
//! keep working. A module a concern.

use crate::common;
mod cancellation;
mod client;
mod credentials;
mod in_process;
mod instances;
mod remote;
mod support;
