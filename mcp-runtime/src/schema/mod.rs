//! JSON Schema generation (schemars, 2020-12), its portable form for hosts
//! ([`portable`], [`portability_issues`]), and compiled validation of tool arguments.

mod check;
mod doc;
mod messages;
mod portability;

use check::{Checker, Refusal};
pub(crate) use doc::Doc;
pub(crate) use messages::parse_error_sentence;
use messages::sentence;
pub use portability::{PortabilityIssue, portability_issues, portable};
use serde_json::{Map, Value};

/// Which form of a generated input schema a server lists as a tool's `inputSchema`
/// ([`ServerBuilder::schema_dialect`](crate::ServerBuilder::schema_dialect)). Arguments are
/// validated against the full schema either way: the dialect changes what hosts read, never
/// what the server accepts. Schemas set by hand ([`Tool::input_schema`](crate::Tool::input_schema))
/// are listed as written in both.
///
/// ```
/// use mcp_runtime::{Server, Tool, schema::SchemaDialect};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Search { query: String, limit: Option<u32> }
/// let search = || Tool::new("search").handler(|a: Search, _cx| async move { a.query });
///
/// // The default: `limit` is an optional `{"type": "integer", "minimum": 0}`.
/// let portable = Server::builder().tool(search()).build().unwrap();
/// // schemars' own output: `limit` is `{"type": ["integer", "null"], "minimum": 0}`.
/// let full = Server::builder()
///     .schema_dialect(SchemaDialect::Full)
///     .tool(search())
///     .build()
///     .unwrap();
/// # let _ = (portable, full);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SchemaDialect {
    /// The form the converters of common hosts (Gemini, OpenAI's strict mode, LangChain, the
    /// Vercel AI SDK) read without loss: see [`portable`]. The default.
    #[default]
    Portable,
    /// schemars' 2020-12 output as it is ([`schema_for`]): `$defs` and `$ref`, `["T", "null"]`
    /// type lists and `null` alternatives for `Option<T>`, `oneOf` for enums.
    Full,
}

/// The clean 2020-12 schema of `T`: no `$schema`, no root `title`, no numeric `format` noise.
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// #[allow(dead_code)]
/// struct Add { a: i64, b: i64 }
/// let s = mcp_runtime::schema::schema_for::<Add>();
/// assert_eq!(serde_json::Value::Object(s), serde_json::json!({
///     "type": "object", "required": ["a", "b"],
///     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}
/// }));
/// ```
pub fn schema_for<T: schemars::JsonSchema>() -> Map<String, Value> {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    let generator = settings.into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(root) = &mut value {
        root.remove("title");
    }
    clean(&mut value);
    match value {
        Value::Object(map) => map,
        other => {
            let mut m = Map::new();
            m.insert("allOf".into(), Value::Array(vec![other]));
            m
        }
    }
}

/// Removes schemars' numeric `format` annotations (`int64`, `uint32`, `double`, …), which are
/// not 2020-12 vocabulary and only add noise for models.
fn clean(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let numeric = match map.get("type") {
                Some(Value::String(t)) => t == "integer" || t == "number",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer" || t == "number"),
                _ => false,
            };
            if numeric
                && map.get("format").and_then(Value::as_str).is_some_and(|f| {
                    matches!(
                        f,
                        "int8"
                            | "int16"
                            | "int32"
                            | "int64"
                            | "int128"
                            | "uint"
                            | "uint8"
                            | "uint16"
                            | "uint32"
                            | "uint64"
                            | "uint128"
                            | "int"
                            | "float"
                            | "double"
                    )
                })
            {
                map.remove("format");
            }
            for v in map.values_mut() {
                clean(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        _ => {}
    }
}

/// Whether every keyword of a generated schema is one that deserializing into the Rust type
/// already enforces (types, required fields, `additionalProperties: false`, enums), so that a
/// JSON Schema validator would add nothing. Ranges, lengths, patterns, formats and composition
/// keep the full validator.
pub(crate) fn enforced_by_types(schema: &Map<String, Value>) -> bool {
    schema
        .iter()
        .all(|(key, value)| match (key.as_str(), value) {
            ("type" | "required" | "description" | "title" | "enum" | "const" | "$ref", _) => true,
            ("additionalProperties", Value::Bool(false)) => true,
            ("properties" | "$defs", Value::Object(children)) => children
                .values()
                .all(|c| c.as_object().is_some_and(enforced_by_types)),
            ("items", Value::Object(item)) => enforced_by_types(item),
            _ => false,
        })
}

/// How a tool's arguments are validated before its body runs.
pub(crate) enum ArgumentValidator {
    /// The typed parse of the handler enforces the whole (generated) schema.
    TypedParse,
    /// A compiled schema, reading the arguments borrowed from their text.
    Schema(Box<Compiled>),
}

/// How many problems one refusal names.
const PROBLEMS_TOLD: usize = 8;

/// A compiled schema: by the built-in checker, or by the full engine for what it cannot check.
pub(crate) enum Compiled {
    BuiltIn(Checker),
    #[cfg(feature = "full-json-schema")]
    Full {
        validator: jsonschema::Validator<doc::Borrowed>,
        /// The schema, which the engine's errors read.
        schema: Value,
    },
}

impl ArgumentValidator {
    /// Compiles `schema` with the built-in checker, or, for what only the full engine checks,
    /// with the engine (feature `full-json-schema`); `Err` says why neither can, as a clause
    /// about the tool ("its inputSchema …").
    pub(crate) fn compile(schema: &Map<String, Value>) -> Result<Self, String> {
        let schema = Value::Object(schema.clone());
        let compiled = match Checker::compile(&schema) {
            Ok(checker) => Compiled::BuiltIn(checker),
            Err(Refusal::Invalid(why)) => {
                return Err(format!("its inputSchema is not a valid JSON Schema: {why}"));
            }
            Err(Refusal::Unsupported(why)) => full_engine(schema, why)?,
            #[cfg(not(feature = "regex"))]
            Err(Refusal::NeedsRegex(pattern)) => regex_or_full_engine(schema, &pattern)?,
        };
        Ok(ArgumentValidator::Schema(Box::new(compiled)))
    }

    /// Checks `arguments` (a JSON object's text): `Valid` with the tree that was read (for the
    /// typed parse to read again), or `Invalid` with one sentence per violation, naming the
    /// argument, what it must be and what it was. `Err` when the text cannot be read (too
    /// deeply nested).
    pub(crate) fn check(&self, arguments: &str) -> Result<Checked, String> {
        let ArgumentValidator::Schema(compiled) = self else {
            return Ok(Checked::Valid(None));
        };
        let doc = Doc::parse(arguments).map_err(|e| e.to_string())?;
        let args = doc.at(arguments);
        let problems: Vec<String> = match &**compiled {
            Compiled::BuiltIn(checker) => {
                if checker.is_valid(args) {
                    return Ok(Checked::Valid(Some(doc)));
                }
                let problems = checker.problems(args, PROBLEMS_TOLD);
                problems.iter().map(sentence).collect()
            }
            #[cfg(feature = "full-json-schema")]
            Compiled::Full { validator, schema } => {
                if validator.is_valid(args) {
                    return Ok(Checked::Valid(Some(doc)));
                }
                validator
                    .iter_errors(args)
                    .take(PROBLEMS_TOLD)
                    .map(|e| sentence(&messages::problem_of(&e, schema)))
                    .collect()
            }
        };
        Ok(Checked::Invalid(problems.join("; ")))
    }
}

/// The full engine's compilation of a schema the built-in checker refused (`why`).
#[cfg(feature = "full-json-schema")]
fn full_engine(schema: Value, _why: String) -> Result<Compiled, String> {
    let validator = jsonschema::options_for::<doc::Borrowed>()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .map_err(|e| format!("its inputSchema is not a valid JSON Schema: {e}"))?;
    Ok(Compiled::Full { validator, schema })
}

/// Without the full engine, a schema the built-in checker refused (`why`) is refused.
#[cfg(not(feature = "full-json-schema"))]
fn full_engine(_schema: Value, why: String) -> Result<Compiled, String> {
    Err(format!(
        "its inputSchema {why}, which the built-in checker does not check (turn on mcp-runtime's \
         `full-json-schema` feature for the full JSON Schema 2020-12 engine)"
    ))
}

/// A `pattern` with more than the built-in matcher reads, without the `regex` feature: the full
/// engine checks it when it is on, else the schema is refused, naming the lighter feature.
#[cfg(not(feature = "regex"))]
fn regex_or_full_engine(schema: Value, pattern: &str) -> Result<Compiled, String> {
    let why = format!(
        "has a `pattern` ({pattern:?}) with more than anchors, literals, classes, `.` and \
         repeats of one of them"
    );
    #[cfg(feature = "full-json-schema")]
    return full_engine(schema, why);
    #[cfg(not(feature = "full-json-schema"))]
    {
        let _ = schema;
        Err(format!(
            "its inputSchema {why}, which the built-in checker matches only with mcp-runtime's \
             `regex` feature"
        ))
    }
}

/// What [`ArgumentValidator::check`] found.
pub(crate) enum Checked {
    /// Valid; the tree the validator read, when it read one.
    Valid(Option<Doc>),
    /// Not valid: what is wrong, one sentence per violation.
    Invalid(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn only_type_level_schemas_skip_the_validator() {
        let typed = json!({"type": "object", "required": ["a"], "additionalProperties": false,
            "properties": {"a": {"type": "integer", "description": "A."},
                           "b": {"type": ["string", "null"]},
                           "c": {"$ref": "#/$defs/C"}},
            "$defs": {"C": {"type": "string", "enum": ["x", "y"]}}});
        assert!(enforced_by_types(&map(typed)));
        for extra in [
            json!({"minLength": 3}),
            json!({"pattern": "^doc_"}),
            json!({"minimum": 0}),
            json!({"format": "email"}),
            json!({"anyOf": [{"type": "string"}]}),
            json!({"default": "x"}),
        ] {
            let mut prop = map(json!({"type": "string"}));
            prop.extend(map(extra.clone()));
            let schema = json!({"type": "object", "properties": {"a": prop}});
            assert!(!enforced_by_types(&map(schema)), "{extra}");
        }
        assert!(!enforced_by_types(&map(
            json!({"type": "object", "additionalProperties": {"type": "string"}})
        )));
    }

    /// A pattern the built-in matcher does not read: matched with the `regex` feature (or the
    /// full engine); without either, refused naming the feature.
    #[test]
    fn a_pattern_with_a_group_needs_the_regex_feature() {
        let schema = map(json!({"type": "object",
            "properties": {"code": {"type": "string", "pattern": "^(ab|cd)$"}}}));
        let compiled = ArgumentValidator::compile(&schema);
        #[cfg(not(any(feature = "regex", feature = "full-json-schema")))]
        assert_eq!(
            compiled.err().as_deref(),
            Some(
                "its inputSchema has a `pattern` (\"^(ab|cd)$\") with more than anchors, \
                 literals, classes, `.` and repeats of one of them, which the built-in checker \
                 matches only with mcp-runtime's `regex` feature"
            )
        );
        #[cfg(any(feature = "regex", feature = "full-json-schema"))]
        {
            let Ok(validator) = compiled else {
                panic!("compiled with the feature")
            };
            assert!(matches!(
                validator.check(r#"{"code": "cd"}"#),
                Ok(Checked::Valid(_))
            ));
            assert!(matches!(
                validator.check(r#"{"code": "ac"}"#),
                Ok(Checked::Invalid(_))
            ));
        }
    }

    #[test]
    fn a_schema_only_the_full_engine_checks_says_so() {
        let schema =
            map(json!({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}}));
        let compiled = ArgumentValidator::compile(&schema);
        #[cfg(not(feature = "full-json-schema"))]
        assert_eq!(
            compiled.err().as_deref(),
            Some(
                "its inputSchema uses `if`, which the built-in checker does not check (turn on \
                 mcp-runtime's `full-json-schema` feature for the full JSON Schema 2020-12 engine)"
            )
        );
        #[cfg(feature = "full-json-schema")]
        {
            let Ok(validator) = compiled else {
                panic!("the engine compiles it")
            };
            let Ok(Checked::Invalid(why)) = validator.check(r#"{"a": 1}"#) else {
                panic!("refused")
            };
            assert_eq!(why, "`b` is required");
        }
        let invalid = map(json!({"type": "object", "properties": {"a": {"type": "strin"}}}));
        assert_eq!(
            ArgumentValidator::compile(&invalid).err().as_deref(),
            Some(
                "its inputSchema is not a valid JSON Schema: `type` names an unknown type `strin`"
            )
        );
    }
}
