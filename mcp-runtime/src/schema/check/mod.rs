//! The built-in checker of tool arguments: the JSON Schema 2020-12 keywords schemars derives
//! (types, `enum`/`const`, bounds, lengths, `pattern`, the common `format`s, members and
//! items, `anyOf`/`oneOf`/`allOf`/`not`, local `$ref`s), read straight from the arguments'
//! tree, with no general JSON Schema engine in the build. A schema using anything else needs
//! the full engine (feature `full-json-schema`); [`Checker::compile`] says which keyword.
//!
//! `compile.rs`: the schema into nodes; `walk.rs`: a value against them; `formats.rs`: the
//! asserted formats; `pattern.rs`: `pattern`.

mod compile;
mod formats;
mod pattern;
mod walk;

use super::doc::DocRef;
use super::messages::Problem;
pub(crate) use compile::Refusal;
use compile::{Id, Node};
use serde_json::Value;
use walk::{At, Sink, Walker};

/// A compiled input schema.
pub(crate) struct Checker {
    nodes: Vec<Node>,
    root: Id,
}

impl Checker {
    /// Compiles `schema`, or says why the built-in checker cannot check it.
    pub(crate) fn compile(schema: &Value) -> Result<Checker, Refusal> {
        let (nodes, root) = compile::compile(schema)?;
        Ok(Checker { nodes, root })
    }

    /// Whether `v` satisfies the schema.
    pub(crate) fn is_valid(&self, v: DocRef<'_>) -> bool {
        let walker = Walker { nodes: &self.nodes };
        walker.node(self.root, v, &At::Root, &mut Sink::first(), 0)
    }

    /// What is wrong with `v`: at most `limit` problems, in the full engine's order.
    pub(crate) fn problems(&self, v: DocRef<'_>, limit: usize) -> Vec<Problem> {
        let walker = Walker { nodes: &self.nodes };
        let mut sink = Sink::all(limit);
        walker.node(self.root, v, &At::Root, &mut sink, 0);
        sink.problems
    }
}

#[cfg(test)]
mod tests;
