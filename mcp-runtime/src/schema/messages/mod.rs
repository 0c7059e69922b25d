//! Arguments that fail validation, told as sentences a model can act on: the argument, what it
//! must be (the allowed values, the bound, the format in words), and what it was.
//!
//! Two sources speak here: the input schema ([`sentence`] of a [`Problem`], which the built-in
//! checker makes and the full engine's errors convert to) and the handler's typed parse
//! ([`parse_error_sentence`], one of serde's messages). Both say the same thing the same way:
//! `` `priority` must be one of "low", "high" (got "asap") ``.

mod parse;
mod problem;
#[cfg(any(test, feature = "full-json-schema"))]
mod validation;
mod words;

pub(crate) use parse::parse_error_sentence;
pub(crate) use problem::{Kind, Problem, Seg, format_name, sentence, types};
#[cfg(any(test, feature = "full-json-schema"))]
pub(crate) use validation::problem_of;
pub(crate) use words::count;
