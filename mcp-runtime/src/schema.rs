//! JSON Schema generation (schemars, 2020-12) and compiled validation of tool arguments.

use serde_json::{Map, Value};

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

/// A compiled validator of a tool's `inputSchema`.
pub(crate) struct ArgumentValidator {
    validator: jsonschema::Validator,
}

impl ArgumentValidator {
    pub(crate) fn compile(schema: &Map<String, Value>) -> Result<Self, String> {
        let schema = Value::Object(schema.clone());
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&schema)
            .map(|validator| ArgumentValidator { validator })
            .map_err(|e| e.to_string())
    }

    /// `None` when valid; otherwise one sentence per violation, naming the field.
    pub(crate) fn check(&self, args: &Value) -> Option<String> {
        if self.validator.is_valid(args) {
            return None;
        }
        let problems: Vec<String> = self
            .validator
            .iter_errors(args)
            .take(8)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    let field = path.trim_start_matches('/').replace('/', ".");
                    format!("`{field}`: {e}")
                }
            })
            .collect();
        Some(problems.join("; "))
    }
}
