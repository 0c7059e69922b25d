//! The `arguments` of a `tools/call`: the JSON text the client sent, read into the handler's
//! type once, or into a JSON tree on demand.

use crate::error::without_position;
use crate::error_path::error_path;
use crate::schema::{Doc, parse_error_sentence};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The `arguments` object of a `tools/call`, kept as the JSON text the client sent.
///
/// Typed handlers deserialize it once, straight from the text ([`Arguments::parse`]); a JSON
/// tree is only built when something asks for one ([`Arguments::get`], indexing,
/// [`Arguments::as_map`]), and then only once.
///
/// ```
/// use mcp_runtime::handler::Arguments;
/// #[derive(serde::Deserialize)]
/// struct Add { a: i64, b: i64 }
/// let args = Arguments::from_json(r#"{"a": 40, "b": 2}"#).unwrap();
/// let add: Add = args.parse().unwrap();
/// assert_eq!(add.a + add.b, 42);
/// assert_eq!(args["a"], 40);
/// assert!(args.get("c").is_none());
/// assert_eq!(Arguments::from_json("[1]").unwrap_err(), "the arguments must be a JSON object");
/// ```
pub struct Arguments {
    raw: Arc<str>,
    tree: std::sync::OnceLock<Value>,
    /// The tree a JSON Schema validator read, kept for the typed parse.
    validated: std::sync::OnceLock<Arc<Doc>>,
}

impl Arguments {
    /// Arguments from the JSON text of an object (the text is kept as given).
    pub fn from_json(json: impl Into<Arc<str>>) -> Result<Arguments, String> {
        let raw = json.into();
        match serde_json::from_str::<Value>(&raw) {
            Ok(Value::Object(map)) => {
                let tree = std::sync::OnceLock::new();
                let _ = tree.set(Value::Object(map));
                Ok(Arguments {
                    raw,
                    tree,
                    validated: std::sync::OnceLock::new(),
                })
            }
            Ok(_) => Err("the arguments must be a JSON object".into()),
            Err(e) => Err(format!("the arguments are not valid JSON: {e}")),
        }
    }

    /// Arguments whose text is known to be one JSON object (read by serde_json as a raw value
    /// whose first byte is `{`).
    pub(crate) fn from_raw_object(raw: Arc<str>) -> Arguments {
        Arguments {
            raw,
            tree: std::sync::OnceLock::new(),
            validated: std::sync::OnceLock::new(),
        }
    }

    /// No arguments: `{}`.
    pub fn empty() -> Arguments {
        static EMPTY: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from("{}"));
        Arguments::from_raw_object(EMPTY.clone())
    }

    /// Keeps the tree the validator read from [`json`](Self::json), for [`parse`](Self::parse).
    pub(crate) fn keep_tree(&self, tree: Doc) {
        let _ = self.validated.set(Arc::new(tree));
    }

    /// The JSON text as the client sent it.
    pub fn json(&self) -> &str {
        &self.raw
    }

    /// The text, shared (for bindings that outlive the call).
    pub(crate) fn shared_json(&self) -> Arc<str> {
        self.raw.clone()
    }

    /// The arguments as a JSON value (an object), built on first use.
    ///
    /// The runtime builds the tree of every call whose tool mirrors arguments into headers or
    /// validates them against a schema, and refuses the call (`-32602`) when it cannot be built
    /// (a value nested deeper than serde_json's recursion limit, a number out of range, a lone
    /// surrogate escape). Otherwise such text reads as an empty object here: use
    /// [`parse`](Self::parse), which reports the problem.
    pub fn as_value(&self) -> &Value {
        self.tree.get_or_init(|| {
            serde_json::from_str(&self.raw).unwrap_or_else(|_| Value::Object(Map::new()))
        })
    }

    /// The arguments as a JSON value, or why the text cannot be read as one.
    pub(crate) fn try_value(&self) -> Result<&Value, String> {
        if let Some(tree) = self.tree.get() {
            return Ok(tree);
        }
        let tree: Value = serde_json::from_str(&self.raw).map_err(|e| e.to_string())?;
        Ok(self.tree.get_or_init(|| tree))
    }

    /// The arguments as a JSON object, built on first use.
    pub fn as_map(&self) -> &Map<String, Value> {
        static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
        self.as_value().as_object().unwrap_or(&EMPTY)
    }

    /// The argument named `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map().get(key)
    }

    /// Deserializes the arguments into `T`, straight from the text. The error is a sentence
    /// naming the offending argument by its path, what it must be in JSON terms and what it was
    /// (`` `a.b` must be an integer (got "one") ``, `` `priority` must be one of "low", "high"
    /// (got "asap") ``, `` `c` is not an argument of this tool (its arguments: `a`, `b`) ``).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, String> {
        // Validated arguments are read from the validator's tree; the text is read again on
        // any error, so that the error is worded (and located) as for other tools.
        if let Some(tree) = self.validated.get()
            && let Ok(v) = T::deserialize(tree.at(&self.raw))
        {
            return Ok(v);
        }
        match serde_json::from_str(&self.raw) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.parse_error(&e)),
        }
    }

    /// serde_json's error reading [`json`](Self::json) as a sentence naming the argument it is
    /// about (found in the text, whatever the type read: no code per type).
    #[cold]
    #[inline(never)]
    fn parse_error(&self, e: &serde_json::Error) -> String {
        parse_error_sentence(&error_path(&self.raw, e), &without_position(e))
    }
}

impl std::ops::Index<&str> for Arguments {
    type Output = Value;
    /// The argument named `key`, or `null` when absent (like indexing a `serde_json::Value`).
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::fmt::Debug for Arguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.raw)
    }
}

impl Clone for Arguments {
    fn clone(&self) -> Self {
        Arguments {
            raw: self.raw.clone(),
            tree: self.tree.clone(),
            validated: self.validated.clone(),
        }
    }
}

impl From<Map<String, Value>> for Arguments {
    fn from(map: Map<String, Value>) -> Self {
        let value = Value::Object(map);
        let tree = std::sync::OnceLock::new();
        let raw = Arc::from(value.to_string());
        let _ = tree.set(value);
        Arguments {
            raw,
            tree,
            validated: std::sync::OnceLock::new(),
        }
    }
}
