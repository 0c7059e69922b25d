//! The server: what is registered plus configuration ([`Server`], built by [`ServerBuilder`]),
//! the ways to serve it, and the changes it takes while serving. The files, lowest first:
//! `options` (the builder's option structs), `views` and `watch` (what changes while serving;
//! `watch`, a skills folder's, with the `skills` feature), `mount_set` (what a server mounts),
//! `built` ([`Server`] and how it is served), `in_process` and `mounts` (servers in servers,
//! while serving), `builder` ([`ServerBuilder`] and `build`; `feature_gates`, its unit tests
//! with and without the `tasks` and `skills` features). This module only declares and
//! re-exports.

mod builder;
mod built;
#[cfg(test)]
mod feature_gates;
mod in_process;
#[cfg(feature = "mounts")]
mod mount_set;
#[cfg(feature = "mounts")]
mod mounts;
mod options;
#[cfg(feature = "mounts")]
mod views;
#[cfg(feature = "skills")]
mod watch;
pub use builder::ServerBuilder;
pub use built::Server;
pub use options::LegacyOptions;
#[cfg(feature = "tasks")]
pub use options::TaskOptions;
