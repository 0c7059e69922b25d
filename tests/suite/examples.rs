//! The example servers the tests build, each included once (`examples/`): their `build()`
//! functions, and the types their tools answer with. None of them collects the link-time
//! registry (`Server::from_inventory`), so the suite's tools and theirs can share a binary; the
//! study server does, and is included by the binaries that test it (`tests/transcript_study.rs`,
//! `tests/lambda.rs`).
// Each test reads a part of an example; an example's `main` and command line go unused.
#![allow(dead_code, unreachable_pub)]

#[path = "../../examples/acme-knowledge/server.rs"]
pub mod acme;
#[path = "../../examples/apps/server.rs"]
pub mod apps;
/// A binary of several modules, which name each other from their parent (`super::content`).
#[path = "../../examples/everything/main.rs"]
pub mod everything;
#[path = "../../examples/notes/server.rs"]
pub mod notes;
