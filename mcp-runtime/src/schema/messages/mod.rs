//! Arguments that fail validation, told as sentences a model can act on: the argument, what it
//! must be (the allowed values, the bound, the format in words), and what it was.
//!
//! Two sources speak here: the JSON Schema validator ([`validation_sentence`], one of its
//! errors) and the handler's typed parse ([`parse_error_sentence`], one of serde's messages).
//! Both say the same thing the same way: `` `priority` must be one of "low", "high" (got
//! "asap") ``.

mod parse;
mod validation;
mod words;

pub(crate) use parse::parse_error_sentence;
pub(crate) use validation::validation_sentence;
