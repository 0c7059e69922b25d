//! Other MCP servers as part of this one: [`Mount`], a server of this crate mounted in process
//! or a remote one reached through a [`Client`], its tools and prompts
//! under a prefix (or flat), its resources kept or rewritten ([`Uris`]), every request relayed
//! (`relay.rs`) with the front client's capabilities and its rounds of client input sealed in
//! this server's own `requestState`.

mod fetch;
mod handles;
mod names;
mod primitives;
mod relay;
#[cfg(feature = "skills")]
mod skills;
mod tasks;

pub(crate) use fetch::{Fetched, fetch, fetch_as, local_items};
pub(crate) use handles::TaskRelay;
pub use names::Uris;
pub(crate) use names::{Key, Naming, key};
pub(crate) use relay::{Backend, SharedBackend};

use crate::client::Client;
use crate::registry::Items;

/// What [`ServerBuilder::mount`](crate::ServerBuilder::mount) mounts: a
/// [`Server`](crate::Server) of this crate (in process: its lists read at build, each request through its own pipeline, with
/// its own scopes, layers and state) or a [`Client`] of a remote one (feature `client`: its
/// lists fetched when serving starts and kept fresh).
///
/// ```
/// use mcp_runtime::proxy::{Mount, Uris};
/// use mcp_runtime::{NoArguments, Server, Tool};
/// let notes = Server::builder()
///     .tool(Tool::new("search").handler(|_: NoArguments, _cx| async { "found" }))
///     .build()
///     .unwrap();
/// let front = Server::builder()
///     .mount("notes", Mount::from(notes).uris(Uris::Prefix))
///     .build()
///     .unwrap();
/// ```
#[must_use]
pub struct Mount {
    pub(crate) upstream: Upstream,
    pub(crate) uris: Uris,
    pub(crate) name: Option<String>,
}

pub(crate) enum Upstream {
    /// A server of this crate in process: a client of it, its name, and its items as
    /// registered when it was mounted.
    Local {
        client: Box<Client>,
        name: String,
        items: Box<Items>,
    },
    Remote(Box<Client>),
}

impl std::fmt::Debug for Mount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match &self.upstream {
            Upstream::Local { name, .. } => format!("in-process {name}"),
            Upstream::Remote(client) => client.server().to_owned(),
        };
        f.debug_struct("Mount").field("upstream", &what).finish()
    }
}

impl Mount {
    /// What the composite does with the mounted server's resource URIs ([`Uris::Keep`] unless
    /// set).
    pub fn uris(self, uris: Uris) -> Mount {
        Mount { uris, ..self }
    }

    /// The mount's name in errors and logs (its prefix unless set; a flat mount's server name
    /// otherwise).
    pub fn name(self, name: impl Into<String>) -> Mount {
        Mount {
            name: Some(name.into()),
            ..self
        }
    }

    /// The mount as its relayed requests reach it, and the items of a server in process.
    pub(crate) fn into_backend(self, prefix: &str) -> (SharedBackend, Option<Box<Items>>) {
        let name = self.name.clone().unwrap_or_else(|| match &self.upstream {
            _ if !prefix.is_empty() => prefix.to_owned(),
            Upstream::Local { name, .. } => name.clone(),
            Upstream::Remote(client) => client.server().to_owned(),
        });
        let naming = Naming {
            prefix: prefix.to_owned(),
            uris: self.uris,
        };
        let (client, local) = match self.upstream {
            Upstream::Local { client, items, .. } => (*client, Some(items)),
            Upstream::Remote(client) => (*client, None),
        };
        let backend = Backend {
            name,
            client,
            naming,
            offers_tasks: std::sync::atomic::AtomicBool::new(false),
            offers_subscribe: std::sync::atomic::AtomicBool::new(false),
        };
        (std::sync::Arc::new(backend), local)
    }
}

impl Mount {
    /// A server in process: a client of it, its name and its items.
    pub(crate) fn local(client: Box<Client>, name: String, items: Box<Items>) -> Mount {
        Mount {
            upstream: Upstream::Local {
                client,
                name,
                items,
            },
            uris: Uris::Keep,
            name: None,
        }
    }
}

impl From<Client> for Mount {
    fn from(client: Client) -> Mount {
        Mount {
            upstream: Upstream::Remote(Box::new(client)),
            uris: Uris::Keep,
            name: None,
        }
    }
}
