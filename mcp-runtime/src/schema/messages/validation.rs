//! The JSON Schema validator's errors as sentences: [`validation_sentence`], one keyword's
//! error, with the allowed values, the bound or the format in words.

use super::words::{child, count, listed, shown, subject, unknown_members};
use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::types::JsonType;
use serde_json::Value;

/// An instance location as an argument path: `inner.tags[0]`; empty for the arguments.
fn field(location: &Location) -> String {
    let mut out = String::new();
    for segment in location.segments() {
        match segment {
            LocationSegment::Property(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&name);
            }
            LocationSegment::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Null => "null",
        JsonType::Boolean => "true or false",
        JsonType::Integer => "an integer",
        JsonType::Number => "a number",
        JsonType::String => "a string",
        JsonType::Array => "an array",
        JsonType::Object => "an object",
    }
}

/// The types a `type` keyword allows. `null` is left out beside others: it is what an
/// `Option` adds, and an optional argument is left out rather than sent as `null`.
fn type_names(kind: &TypeKind) -> Vec<&'static str> {
    match kind {
        TypeKind::Single(t) => vec![type_name(*t)],
        TypeKind::Multiple(set) => {
            let others: Vec<&'static str> = set
                .iter()
                .filter(|t| *t != JsonType::Null)
                .map(type_name)
                .collect();
            match others.is_empty() {
                true => vec![type_name(JsonType::Null)],
                false => others,
            }
        }
    }
}

/// A format in words.
fn format_name(format: &str) -> String {
    match format {
        "email" | "idn-email" => "an email address".into(),
        "uri" | "iri" => "an absolute URI (like https://example.com/a)".into(),
        "uri-reference" | "iri-reference" => "a URI reference".into(),
        "uri-template" => "a URI template".into(),
        "date-time" => "a date and time (RFC 3339, like 2025-01-31T09:30:00Z)".into(),
        "date" => "a date (YYYY-MM-DD)".into(),
        "time" => "a time (like 09:30:00Z)".into(),
        "duration" => "a duration (ISO 8601, like P3DT4H)".into(),
        "uuid" => "a UUID".into(),
        "ipv4" => "an IPv4 address".into(),
        "ipv6" => "an IPv6 address".into(),
        "hostname" | "idn-hostname" => "a host name".into(),
        "regex" => "a regular expression".into(),
        "json-pointer" => "a JSON pointer (like /a/0)".into(),
        "relative-json-pointer" => "a relative JSON pointer".into(),
        other => format!("in the `{other}` format"),
    }
}

/// The schema holding the keyword `location` ends with (a keyword location, whose `$ref`
/// segments are followed through local references).
fn schema_of<'s>(schema: &'s Value, location: &Location) -> Option<&'s Value> {
    let pointer = location.as_str();
    let parent = &pointer[..pointer.rfind('/')?];
    let mut at = schema;
    for segment in parent.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        at = match (segment.as_str(), at) {
            ("$ref", Value::Object(map)) => {
                let target = map.get("$ref")?.as_str()?.strip_prefix('#')?;
                schema.pointer(target)?
            }
            (key, Value::Object(map)) => map.get(key)?,
            (index, Value::Array(items)) => items.get(index.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// One validator error as a sentence (`schema`: the schema it was compiled from).
pub(crate) fn validation_sentence(error: &ValidationError<'_>, schema: &Value) -> String {
    let path = field(error.instance_path());
    let who = subject(&path);
    let got = shown(error.instance());
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            format!("`{}` is required", child(&path, &name))
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let declared: Vec<String> = schema_of(schema, error.schema_path())
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            unknown_members(&path, unexpected, &declared)
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            alternatives(error, context, schema)
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => format!(
            "{who} matches more than one of its alternatives, and must match exactly one (got \
             {got})"
        ),
        ValidationErrorKind::PropertyNames { error: inner } => {
            let name = shown(inner.instance());
            format!("{who} has a member named {name} that is not allowed")
        }
        // `additionalProperties: false` beside no `properties`: the validator points at the
        // object (with the member's value), not at the member.
        ValidationErrorKind::FalseSchema
            if error
                .schema_path()
                .as_str()
                .ends_with("/additionalProperties") =>
        {
            match path.as_str() {
                "" => "this tool takes no arguments: send an empty object".into(),
                _ => format!("{who} takes no members: send an empty object"),
            }
        }
        ValidationErrorKind::FalseSchema => match error.instance_path().segments().last() {
            Some(LocationSegment::Property(_)) => format!("{who} is not allowed here"),
            _ => format!("{who} is not allowed (got {got})"),
        },
        ValidationErrorKind::Not { .. } => {
            format!("{who} has a value that is not allowed (got {got})")
        }
        ValidationErrorKind::Custom { message, .. } => format!("{who}: {message}"),
        ValidationErrorKind::Referencing(e) => format!("{who} could not be checked: {e}"),
        ValidationErrorKind::BacktrackLimitExceeded { .. }
        | ValidationErrorKind::RegexEngineFailure { .. } => {
            format!("{who} could not be checked against its pattern (got {got})")
        }
        kind => match must(kind, error, schema) {
            Some(requirement) => format!("{who} must {requirement} (got {got})"),
            None => format!("{who}: {error}"),
        },
    }
}

/// What a keyword requires, after "must": `be one of "a", "b"`, `be at least 3`, …
fn must(kind: &ValidationErrorKind, error: &ValidationError<'_>, schema: &Value) -> Option<String> {
    let number = |v: &Value| v.to_string();
    Some(match kind {
        ValidationErrorKind::Type { kind } => format!("be {}", type_names(kind).join(" or ")),
        ValidationErrorKind::Enum { options } => match options.as_array().map(Vec::as_slice) {
            Some([only]) => format!("be {}", shown(only)),
            Some(values) => format!("be one of {}", listed(values)),
            None => format!("be one of {}", shown(options)),
        },
        ValidationErrorKind::Constant { expected_value } => format!("be {}", shown(expected_value)),
        ValidationErrorKind::MinLength { limit } => {
            format!("be at least {} long", count(*limit, "character"))
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("be at most {} long", count(*limit, "character"))
        }
        ValidationErrorKind::Minimum { limit } => format!("be at least {}", number(limit)),
        ValidationErrorKind::Maximum { limit } => format!("be at most {}", number(limit)),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("be greater than {}", number(limit))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("be less than {}", number(limit))
        }
        ValidationErrorKind::MultipleOf { .. } => {
            match schema_of(schema, error.schema_path()).and_then(|s| s.get("multipleOf")) {
                Some(m) => format!("be a multiple of {m}"),
                None => "be a multiple of the schema's `multipleOf`".into(),
            }
        }
        ValidationErrorKind::Pattern { pattern } => format!("match the pattern `{pattern}`"),
        ValidationErrorKind::Format { format } => format!("be {}", format_name(format)),
        ValidationErrorKind::MinItems { limit } => {
            format!("have at least {}", count(*limit, "item"))
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("have at most {}", count(*limit, "item"))
        }
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("have at most {}", count(*limit as u64, "item"))
        }
        ValidationErrorKind::UnevaluatedItems { .. } => "have no more items than it lists".into(),
        ValidationErrorKind::UniqueItems => "not repeat an item".into(),
        ValidationErrorKind::Contains => "contain at least one item of the kind it asks for".into(),
        ValidationErrorKind::MinProperties { limit } => {
            format!("have at least {}", count(*limit, "member"))
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("have at most {}", count(*limit, "member"))
        }
        ValidationErrorKind::ContentEncoding { content_encoding } => {
            format!("be {content_encoding}-encoded")
        }
        ValidationErrorKind::FromUtf8 { .. } => "be base64-encoded UTF-8 text".into(),
        ValidationErrorKind::ContentMediaType { content_media_type } => {
            format!("be {content_media_type} content")
        }
        _ => return None,
    })
}

/// An `anyOf`/`oneOf` no alternative of which accepts the value. When the value has the type
/// of exactly one alternative (or of one more closely than the others), that alternative's
/// errors are the message; otherwise what each alternative wants, together (the `null` of an
/// `Option` left out: an optional argument is omitted rather than sent as `null`).
fn alternatives(
    error: &ValidationError<'_>,
    context: &[Vec<ValidationError<'static>>],
    schema: &Value,
) -> String {
    let here = error.instance_path().as_str();
    let refuses_itself = |e: &ValidationError<'_>| {
        e.instance_path().as_str() == here
            && matches!(
                e.kind(),
                ValidationErrorKind::Type { .. }
                    | ValidationErrorKind::Enum { .. }
                    | ValidationErrorKind::Constant { .. }
            )
    };
    // The alternatives whose kind of value it is, closest first: fewest errors about the value
    // itself, then the deepest error.
    let mut fitting: Vec<&Vec<ValidationError<'static>>> = context
        .iter()
        .filter(|errors| !errors.is_empty() && !errors.iter().any(refuses_itself))
        .collect();
    fitting.sort_by_key(|errors| {
        let at_value = errors
            .iter()
            .filter(|e| e.instance_path().as_str() == here)
            .count();
        let depth = errors
            .iter()
            .map(|e| e.instance_path().as_str().len())
            .max()
            .unwrap_or(0);
        (at_value, std::cmp::Reverse(depth))
    });
    if let Some(best) = fitting.first() {
        return best
            .iter()
            .map(|e| validation_sentence(e, schema))
            .collect::<Vec<_>>()
            .join("; ");
    }
    let mut values: Vec<Value> = Vec::new();
    let mut wants: Vec<String> = Vec::new();
    let mut null = false;
    for e in context.iter().flatten().filter(|e| refuses_itself(e)) {
        match e.kind() {
            ValidationErrorKind::Enum { options } => {
                for v in options.as_array().into_iter().flatten() {
                    if !values.contains(v) {
                        values.push(v.clone());
                    }
                }
            }
            ValidationErrorKind::Constant { expected_value }
                if !values.contains(expected_value) =>
            {
                values.push((**expected_value).clone());
            }
            ValidationErrorKind::Type {
                kind: TypeKind::Single(JsonType::Null),
            } => null = true,
            ValidationErrorKind::Type { kind } => {
                for name in type_names(kind) {
                    if !wants.iter().any(|w| w == name) {
                        wants.push(name.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    let who = subject(&field(error.instance_path()));
    let got = shown(error.instance());
    match values.as_slice() {
        [] => {}
        [only] => wants.insert(0, shown(only)),
        all => wants.insert(0, format!("one of {}", listed(all))),
    }
    if wants.is_empty() {
        if null {
            wants.push("null".into());
        } else {
            return format!("{who} matches none of its alternatives (got {got})");
        }
    }
    format!("{who} must be {} (got {got})", wants.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every error's sentence for `instance` against `schema`.
    fn sentences(schema: Value, instance: Value) -> Vec<String> {
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&schema)
            .expect("a valid schema");
        validator
            .iter_errors(&instance)
            .map(|e| validation_sentence(&e, &schema))
            .collect()
    }

    fn one(schema: Value, instance: Value) -> String {
        let all = sentences(schema, instance);
        assert_eq!(all.len(), 1, "{all:?}");
        all.into_iter().next().unwrap_or_default()
    }

    fn object(properties: Value) -> Value {
        json!({"type": "object", "additionalProperties": false, "properties": properties})
    }

    #[test]
    fn each_keyword_reads_as_a_sentence() {
        let cases = [
            (
                json!({"a": {"type": "integer"}}),
                json!({"a": "one"}),
                r#"`a` must be an integer (got "one")"#,
            ),
            (
                json!({"a": {"type": ["string", "null"]}}),
                json!({"a": 1}),
                "`a` must be a string (got 1)",
            ),
            (
                json!({"priority": {"enum": ["low", "normal", "high"]}}),
                json!({"priority": "asap"}),
                r#"`priority` must be one of "low", "normal", "high" (got "asap")"#,
            ),
            (
                json!({"kind": {"const": "A"}}),
                json!({"kind": "B"}),
                r#"`kind` must be "A" (got "B")"#,
            ),
            (
                json!({"q": {"type": "string", "minLength": 3}}),
                json!({"q": "ab"}),
                r#"`q` must be at least 3 characters long (got "ab")"#,
            ),
            (
                json!({"q": {"type": "string", "maxLength": 1}}),
                json!({"q": "ab"}),
                r#"`q` must be at most 1 character long (got "ab")"#,
            ),
            (
                json!({"n": {"minimum": 1}}),
                json!({"n": 0}),
                "`n` must be at least 1 (got 0)",
            ),
            (
                json!({"n": {"maximum": 10}}),
                json!({"n": 11}),
                "`n` must be at most 10 (got 11)",
            ),
            (
                json!({"n": {"exclusiveMinimum": 0}}),
                json!({"n": 0}),
                "`n` must be greater than 0 (got 0)",
            ),
            (
                json!({"n": {"exclusiveMaximum": 1.5}}),
                json!({"n": 2}),
                "`n` must be less than 1.5 (got 2)",
            ),
            (
                json!({"n": {"multipleOf": 5}}),
                json!({"n": 7}),
                "`n` must be a multiple of 5 (got 7)",
            ),
            (
                json!({"id": {"pattern": "^doc_"}}),
                json!({"id": "nope"}),
                r#"`id` must match the pattern `^doc_` (got "nope")"#,
            ),
            (
                json!({"notify": {"format": "email"}}),
                json!({"notify": "nope"}),
                r#"`notify` must be an email address (got "nope")"#,
            ),
            (
                json!({"at": {"format": "date"}}),
                json!({"at": "31/01"}),
                r#"`at` must be a date (YYYY-MM-DD) (got "31/01")"#,
            ),
            (
                json!({"tags": {"minItems": 1}}),
                json!({"tags": []}),
                "`tags` must have at least 1 item (got [])",
            ),
            (
                json!({"tags": {"maxItems": 2}}),
                json!({"tags": [1, 2, 3]}),
                "`tags` must have at most 2 items (got [1,2,3])",
            ),
            (
                json!({"tags": {"uniqueItems": true}}),
                json!({"tags": ["x", "x"]}),
                r#"`tags` must not repeat an item (got ["x","x"])"#,
            ),
            (
                json!({"o": {"minProperties": 2}}),
                json!({"o": {"a": 1}}),
                r#"`o` must have at least 2 members (got {"a":1})"#,
            ),
            (
                json!({"o": {"maxProperties": 0}}),
                json!({"o": {"a": 1}}),
                r#"`o` must have at most 0 members (got {"a":1})"#,
            ),
            (
                json!({"l": {"contains": {"type": "string"}}}),
                json!({"l": [1]}),
                "`l` must contain at least one item of the kind it asks for (got [1])",
            ),
            (
                json!({"o": {"propertyNames": {"maxLength": 2}}}),
                json!({"o": {"long": 1}}),
                r#"`o` has a member named "long" that is not allowed"#,
            ),
            (
                json!({"x": {"not": {"type": "string"}}}),
                json!({"x": "s"}),
                r#"`x` has a value that is not allowed (got "s")"#,
            ),
            (
                json!({"x": false}),
                json!({"x": 1}),
                "`x` is not allowed here",
            ),
            (
                json!({"t": {"prefixItems": [{"type": "integer"}], "items": false}}),
                json!({"t": [1, 2]}),
                "`t[1]` is not allowed (got 2)",
            ),
            (
                json!({"x": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}),
                json!({"x": 1}),
                "`x` matches more than one of its alternatives, and must match exactly one (got 1)",
            ),
        ];
        for (properties, instance, want) in cases {
            assert_eq!(one(object(properties), instance), want);
        }
        let nested = json!({"type": "array", "items": {"type": "object", "required": ["n"],
            "properties": {"n": {"type": "integer"}}}});
        assert_eq!(
            one(
                object(json!({"rows": nested})),
                json!({"rows": [{"n": 1}, {}]})
            ),
            "`rows[1].n` is required"
        );
    }

    #[test]
    fn missing_and_unknown_arguments_name_what_is_allowed() {
        let schema = json!({"type": "object", "required": ["a", "b"], "additionalProperties": false,
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                           "inner": {"type": "object", "additionalProperties": false,
                                     "properties": {"x": {"type": "string"}}}}});
        assert_eq!(
            sentences(schema.clone(), json!({"a": 1})),
            ["`b` is required"]
        );
        assert_eq!(
            sentences(schema.clone(), json!({"a": 1, "b": 2, "c": 3})),
            ["`c` is not an argument of this tool (its arguments: `a`, `b`, `inner`)"]
        );
        assert_eq!(
            sentences(
                schema.clone(),
                json!({"a": 1, "b": 2, "inner": {"y": 1, "z": 2}})
            ),
            ["`inner.y`, `inner.z` are not allowed (`inner` takes `x`)"]
        );
        let none = json!({"type": "object", "additionalProperties": false});
        assert_eq!(
            sentences(none, json!({"q": 1})),
            ["this tool takes no arguments: send an empty object"]
        );
        // Through a reference: the referenced schema's properties.
        let referenced = json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}},
            "$defs": {"P": {"type": "object", "additionalProperties": false,
                            "properties": {"k": {"type": "string"}}}}});
        assert_eq!(
            sentences(referenced, json!({"p": {"j": 1}})),
            ["`p.j` is not allowed (`p` takes `k`)"]
        );
    }

    #[test]
    fn alternatives_say_what_the_value_could_be() {
        // An `Option` of an enum (schemars' shape): the `null` is left out.
        let option = json!({"type": "object", "properties": {"maybe": {"anyOf": [
            {"$ref": "#/$defs/P"}, {"type": "null"}]}},
            "$defs": {"P": {"type": "string", "enum": ["low", "high"]}}});
        assert_eq!(
            sentences(option, json!({"maybe": "asap"})),
            [r#"`maybe` must be one of "low", "high" (got "asap")"#]
        );
        // Untagged alternatives of different types.
        let loose = object(json!({"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}));
        assert_eq!(
            sentences(loose, json!({"v": true})),
            ["`v` must be an integer or a string (got true)"]
        );
        // An enum with data: the alternative whose shape the value has speaks.
        let shape = object(json!({"s": {"oneOf": [
            {"type": "string", "enum": ["Dot"]},
            {"type": "object", "required": ["Circle"], "additionalProperties": false,
             "properties": {"Circle": {"type": "number"}}},
            {"type": "object", "required": ["Rect"], "additionalProperties": false,
             "properties": {"Rect": {"type": "object", "required": ["w"],
                                     "properties": {"w": {"type": "integer"}}}}}]}}));
        assert_eq!(
            sentences(shape.clone(), json!({"s": {"Circle": "big"}})),
            [r#"`s.Circle` must be a number (got "big")"#]
        );
        assert_eq!(
            sentences(shape.clone(), json!({"s": "Square"})),
            [r#"`s` must be "Dot" or an object (got "Square")"#]
        );
        assert_eq!(
            sentences(shape, json!({"s": {"Rect": {}}})),
            ["`s.Rect.w` is required"]
        );
    }
}
