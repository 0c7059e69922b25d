//! Tool arguments as the JSON Schema validator reads them, and as the handler's typed parse
//! then reads them again: a tree over the request's text. Objects are vectors of members and a
//! string without escapes is kept as its place in the text, so the tree is built and dropped
//! for a fraction of a `serde_json::Value` (a `BTreeMap` and an owned `String` per key;
//! BENCHMARKS.md, "The validator's tree").
//!
//! `tree.rs`: the tree ([`Doc`], [`Text`]), reading it from the text, and [`DocRef`] (a value
//! with its text). `validate.rs`: the full engine's view of it (feature `full-json-schema`);
//! `typed.rs`: the typed parse's.

mod tree;
mod typed;
#[cfg(feature = "full-json-schema")]
mod validate;

pub(crate) use tree::{Doc, DocRef, Text};
#[cfg(feature = "full-json-schema")]
pub(crate) use validate::Borrowed;
