//! The full JSON Schema engine's errors as [`Problem`]s (feature `full-json-schema`), so that
//! they read as the built-in checker's do: [`problem_of`].

use super::problem::{Kind, Problem, Seg, types};
use super::words::{count, shown};
use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::types::JsonType;
use serde_json::Value;

/// An instance location as the problem's path.
fn path(location: &Location) -> Vec<Seg> {
    location
        .segments()
        .map(|segment| match segment {
            LocationSegment::Property(name) => Seg::Key(name.to_string()),
            LocationSegment::Index(i) => Seg::Index(i),
        })
        .collect()
}

fn type_bit(t: JsonType) -> u8 {
    match t {
        JsonType::Null => types::NULL,
        JsonType::Boolean => types::BOOLEAN,
        JsonType::Integer => types::INTEGER,
        JsonType::Number => types::NUMBER,
        JsonType::String => types::STRING,
        JsonType::Array => types::ARRAY,
        JsonType::Object => types::OBJECT,
    }
}

fn type_set(kind: &TypeKind) -> u8 {
    match kind {
        TypeKind::Single(t) => type_bit(*t),
        TypeKind::Multiple(set) => set.iter().map(type_bit).fold(0, |a, b| a | b),
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

/// One engine error as a problem (`schema`: the schema it was compiled from).
pub(crate) fn problem_of(error: &ValidationError<'_>, schema: &Value) -> Problem {
    let value = error.instance().as_ref().clone();
    let kind = match error.kind() {
        ValidationErrorKind::Required { property } => Kind::Required(
            property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned),
        ),
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => Kind::Unexpected {
            names: unexpected.clone(),
            declared: schema_of(schema, error.schema_path())
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default(),
        },
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            Kind::Alternatives(
                context
                    .iter()
                    .map(|errors| errors.iter().map(|e| problem_of(e, schema)).collect())
                    .collect(),
            )
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => Kind::OneOfMultiple,
        ValidationErrorKind::PropertyNames { error: inner } => {
            Kind::PropertyName(inner.instance().as_ref().clone())
        }
        // `additionalProperties: false` beside no `properties`: the engine points at the
        // object (with the member's value), not at the member.
        ValidationErrorKind::FalseSchema
            if error
                .schema_path()
                .as_str()
                .ends_with("/additionalProperties") =>
        {
            Kind::NoMembers
        }
        ValidationErrorKind::FalseSchema => Kind::NotAllowed,
        ValidationErrorKind::Not { .. } => Kind::Not,
        ValidationErrorKind::Custom { message, .. } => Kind::Said(message.clone()),
        ValidationErrorKind::Referencing(e) => Kind::Phrase(format!("could not be checked: {e}")),
        ValidationErrorKind::BacktrackLimitExceeded { .. }
        | ValidationErrorKind::RegexEngineFailure { .. } => Kind::Phrase(format!(
            "could not be checked against its pattern (got {})",
            shown(&value)
        )),
        ValidationErrorKind::Type { kind } => Kind::Type(type_set(kind)),
        ValidationErrorKind::Enum { options } => match options.as_array() {
            Some(values) => Kind::Enum(values.clone()),
            None => Kind::Must(format!("be one of {}", shown(options))),
        },
        ValidationErrorKind::Constant { expected_value } => Kind::Const((**expected_value).clone()),
        kind => match must(kind, error, schema) {
            Some(requirement) => Kind::Must(requirement),
            None => Kind::Said(error.to_string()),
        },
    };
    Problem {
        path: path(error.instance_path()),
        value,
        kind,
    }
}

/// What a keyword requires, after "must": `be at least 3`, …
fn must(kind: &ValidationErrorKind, error: &ValidationError<'_>, schema: &Value) -> Option<String> {
    let number = |v: &Value| v.to_string();
    Some(match kind {
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
        ValidationErrorKind::Format { format } => {
            format!("be {}", super::problem::format_name(format))
        }
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
