//! One violation of a tool's input schema ([`Problem`]: where, the value, what is wrong) and
//! its sentence ([`sentence`]), with the allowed values, the bound or the format in words.
//! The built-in checker makes problems; so does the full JSON Schema engine's error, converted
//! (`validation.rs`), so that both say the same thing the same way.

use super::words::{child, listed, shown, subject, unknown_members};
use serde_json::Value;

/// One step of an instance location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// The JSON types as a set, one bit each, in JSON Schema's order of naming them.
pub(crate) mod types {
    pub(crate) const NULL: u8 = 1;
    pub(crate) const BOOLEAN: u8 = 1 << 1;
    pub(crate) const INTEGER: u8 = 1 << 2;
    pub(crate) const NUMBER: u8 = 1 << 3;
    pub(crate) const STRING: u8 = 1 << 4;
    pub(crate) const ARRAY: u8 = 1 << 5;
    pub(crate) const OBJECT: u8 = 1 << 6;
}

/// What is wrong with a value.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// `type`: the types allowed.
    Type(u8),
    /// `enum`: the values allowed.
    Enum(Vec<Value>),
    /// `const`: the one value allowed.
    Const(Value),
    /// `required`: the member missing.
    Required(String),
    /// Members the object does not declare, and those it does.
    Unexpected {
        names: Vec<String>,
        declared: Vec<String>,
    },
    /// `additionalProperties: false` with no `properties`: the object has a member.
    NoMembers,
    /// A `false` schema.
    NotAllowed,
    /// `anyOf`/`oneOf` none of which accepts the value: each alternative's problems.
    Alternatives(Vec<Vec<Problem>>),
    /// `oneOf` more than one of which accepts it.
    OneOfMultiple,
    /// `propertyNames` refuses a member's name.
    PropertyName(Value),
    /// `not`.
    Not,
    /// What the value must do, after "must": `be at least 3`, `match the pattern …`.
    Must(String),
    /// Words after the subject: `could not be checked: …`.
    Phrase(String),
    /// A message after the subject and a colon (only the full engine's errors say one).
    #[cfg_attr(not(any(test, feature = "full-json-schema")), allow(dead_code))]
    Said(String),
}

/// One violation: the value's location, the value, what is wrong.
#[derive(Debug, Clone)]
pub(crate) struct Problem {
    pub(crate) path: Vec<Seg>,
    pub(crate) value: Value,
    pub(crate) kind: Kind,
}

impl Problem {
    /// The length of the location written as a JSON pointer (how deep the problem lies).
    fn depth(&self) -> usize {
        self.path
            .iter()
            .map(|s| match s {
                Seg::Key(k) => 1 + k.len(),
                Seg::Index(i) => 1 + i.to_string().len(),
            })
            .sum()
    }
}

/// A location as an argument path: `inner.tags[0]`; empty for the arguments.
fn field(path: &[Seg]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Seg::Key(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Seg::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

fn type_name(bit: u8) -> &'static str {
    match bit {
        types::NULL => "null",
        types::BOOLEAN => "true or false",
        types::INTEGER => "an integer",
        types::NUMBER => "a number",
        types::STRING => "a string",
        types::ARRAY => "an array",
        _ => "an object",
    }
}

/// The types a `type` keyword allows. `null` is left out beside others: it is what an
/// `Option` adds, and an optional argument is left out rather than sent as `null`.
fn type_names(set: u8) -> Vec<&'static str> {
    let others: Vec<&'static str> = (0..7)
        .map(|i| 1u8 << i)
        .filter(|bit| set & bit != 0 && *bit != types::NULL)
        .map(type_name)
        .collect();
    match others.is_empty() {
        true => vec![type_name(types::NULL)],
        false => others,
    }
}

/// A format in words.
pub(crate) fn format_name(format: &str) -> String {
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

/// One problem as a sentence.
pub(crate) fn sentence(problem: &Problem) -> String {
    let path = field(&problem.path);
    let who = subject(&path);
    let got = shown(&problem.value);
    match &problem.kind {
        Kind::Required(name) => format!("`{}` is required", child(&path, name)),
        Kind::Unexpected { names, declared } => unknown_members(&path, names, declared),
        Kind::Alternatives(context) => alternatives(problem, context),
        Kind::OneOfMultiple => format!(
            "{who} matches more than one of its alternatives, and must match exactly one (got \
             {got})"
        ),
        Kind::PropertyName(name) => {
            format!(
                "{who} has a member named {} that is not allowed",
                shown(name)
            )
        }
        Kind::NoMembers => match path.as_str() {
            "" => "this tool takes no arguments: send an empty object".into(),
            _ => format!("{who} takes no members: send an empty object"),
        },
        Kind::NotAllowed => match problem.path.last() {
            Some(Seg::Key(_)) => format!("{who} is not allowed here"),
            _ => format!("{who} is not allowed (got {got})"),
        },
        Kind::Not => format!("{who} has a value that is not allowed (got {got})"),
        Kind::Phrase(words) => format!("{who} {words}"),
        Kind::Said(message) => format!("{who}: {message}"),
        Kind::Type(set) => format!(
            "{who} must be {} (got {got})",
            type_names(*set).join(" or ")
        ),
        Kind::Enum(options) => match options.as_slice() {
            [only] => format!("{who} must be {} (got {got})", shown(only)),
            values => format!("{who} must be one of {} (got {got})", listed(values)),
        },
        Kind::Const(value) => format!("{who} must be {} (got {got})", shown(value)),
        Kind::Must(requirement) => format!("{who} must {requirement} (got {got})"),
    }
}

/// An `anyOf`/`oneOf` no alternative of which accepts the value. When the value has the type
/// of exactly one alternative (or of one more closely than the others), that alternative's
/// problems are the message; otherwise what each alternative wants, together (the `null` of
/// an `Option` left out: an optional argument is omitted rather than sent as `null`).
fn alternatives(problem: &Problem, context: &[Vec<Problem>]) -> String {
    let here = &problem.path;
    let refuses_itself = |p: &Problem| {
        p.path == *here && matches!(p.kind, Kind::Type(_) | Kind::Enum(_) | Kind::Const(_))
    };
    // The alternatives whose kind of value it is, closest first: fewest problems with the
    // value itself, then the deepest problem.
    let mut fitting: Vec<&Vec<Problem>> = context
        .iter()
        .filter(|problems| !problems.is_empty() && !problems.iter().any(refuses_itself))
        .collect();
    fitting.sort_by_key(|problems| {
        let at_value = problems.iter().filter(|p| p.path == *here).count();
        let depth = problems.iter().map(Problem::depth).max().unwrap_or(0);
        (at_value, std::cmp::Reverse(depth))
    });
    if let Some(best) = fitting.first() {
        return best.iter().map(sentence).collect::<Vec<_>>().join("; ");
    }
    let mut values: Vec<Value> = Vec::new();
    let mut wants: Vec<String> = Vec::new();
    let mut null = false;
    for p in context.iter().flatten().filter(|p| refuses_itself(p)) {
        match &p.kind {
            Kind::Enum(options) => {
                for v in options {
                    if !values.contains(v) {
                        values.push(v.clone());
                    }
                }
            }
            Kind::Const(expected) if !values.contains(expected) => values.push(expected.clone()),
            Kind::Type(types::NULL) => null = true,
            Kind::Type(set) => {
                for name in type_names(*set) {
                    if !wants.iter().any(|w| w == name) {
                        wants.push(name.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    let who = subject(&field(here));
    let got = shown(&problem.value);
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
