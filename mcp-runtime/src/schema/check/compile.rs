//! A tool's input schema read into the checker's nodes ([`compile`]): each subschema once, by
//! its JSON pointer, so that a `$ref` (recursive types included) points at one node.

use super::formats::Format;
use super::pattern::{Pattern, Unread};
use crate::schema::messages::types;
use serde_json::{Map, Number, Value};
use std::collections::HashMap;

/// A node's index.
pub(super) type Id = u32;

/// One compiled subschema.
pub(super) enum Node {
    /// `true`, or an object of annotations only.
    Any,
    /// `false`.
    Never,
    Rules(Box<Rules>),
}

/// What `additionalProperties` says.
#[derive(Clone, Copy)]
pub(super) enum Additional {
    Any,
    Never,
    Node(Id),
}

/// Which groups of keywords a schema object has (`Rules::groups`), so that the walk skips
/// the others at once.
pub(super) mod group {
    pub(in super::super) const VALUES: u8 = 1;
    pub(in super::super) const NUMBERS: u8 = 1 << 1;
    pub(in super::super) const STRINGS: u8 = 1 << 2;
    pub(in super::super) const ARRAYS: u8 = 1 << 3;
    pub(in super::super) const OBJECTS: u8 = 1 << 4;
    pub(in super::super) const COMPOSED: u8 = 1 << 5;
}

/// The assertions and applicators of one schema object, in the order they are checked.
pub(super) struct Rules {
    /// The `group`s present.
    pub(super) groups: u8,
    /// `type`: a set of `types` bits; 0 when absent.
    pub(super) types: u8,
    pub(super) constant: Option<Value>,
    pub(super) one_of_values: Option<Vec<Value>>,
    pub(super) minimum: Option<Number>,
    pub(super) maximum: Option<Number>,
    pub(super) exclusive_minimum: Option<Number>,
    pub(super) exclusive_maximum: Option<Number>,
    pub(super) multiple_of: Option<Number>,
    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) min_properties: Option<u64>,
    pub(super) max_properties: Option<u64>,
    pub(super) required: Vec<String>,
    /// For each required name, its index in `properties` (when it has one).
    pub(super) required_at: Vec<Option<usize>>,
    pub(super) pattern: Option<(String, Pattern)>,
    pub(super) format: Option<Format>,
    pub(super) unique_items: bool,
    /// `properties`, in the schema's order.
    pub(super) properties: Vec<(String, Id)>,
    /// Whether `properties` was given (an empty one still names no member).
    pub(super) has_properties: bool,
    pub(super) additional: Additional,
    pub(super) property_names: Option<Id>,
    pub(super) items: Option<Id>,
    pub(super) prefix_items: Vec<Id>,
    pub(super) contains: Option<Id>,
    pub(super) all_of: Vec<Id>,
    pub(super) any_of: Vec<Id>,
    pub(super) one_of: Vec<Id>,
    pub(super) not: Option<Id>,
    pub(super) reference: Option<Id>,
}

/// Keywords of JSON Schema 2020-12 (and earlier drafts) that assert or apply and that the
/// built-in checker does not implement: a schema using one needs the full engine.
const NOT_BUILT_IN: &[&str] = &[
    "patternProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minContains",
    "maxContains",
    "additionalItems",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$anchor",
    "$vocabulary",
];

/// Why a schema was not compiled.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// It uses what only the full engine checks (the words say what).
    Unsupported(String),
    /// It is not a valid schema.
    Invalid(String),
    /// Its `pattern` (this one) has more than the built-in matcher reads, and the `regex`
    /// feature is off.
    #[cfg(not(feature = "regex"))]
    NeedsRegex(String),
}

impl From<String> for Refusal {
    fn from(why: String) -> Refusal {
        Refusal::Invalid(why)
    }
}

impl From<&str> for Refusal {
    fn from(why: &str) -> Refusal {
        Refusal::Invalid(why.to_owned())
    }
}

/// Reads `root` into nodes.
pub(super) fn compile(root: &Value) -> Result<(Vec<Node>, Id), Refusal> {
    let mut compiler = Compiler {
        root,
        nodes: Vec::new(),
        by_pointer: HashMap::new(),
    };
    let id = compiler.at(root, String::new())?;
    Ok((compiler.nodes, id))
}

struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    by_pointer: HashMap<String, Id>,
}

/// `key` escaped as a JSON pointer segment.
fn escaped(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn count(map: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match map.get(key) {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) => Ok(Some(n)),
            None => match v.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 => Ok(Some(f as u64)),
                _ => Err(format!("`{key}` must be a non-negative integer")),
            },
        },
    }
}

fn number(map: &Map<String, Value>, key: &str) -> Result<Option<Number>, String> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(_) => Err(format!("`{key}` must be a number")),
    }
}

fn type_bit(name: &str) -> Result<u8, String> {
    Ok(match name {
        "null" => types::NULL,
        "boolean" => types::BOOLEAN,
        "integer" => types::INTEGER,
        "number" => types::NUMBER,
        "string" => types::STRING,
        "array" => types::ARRAY,
        "object" => types::OBJECT,
        other => return Err(format!("`type` names an unknown type `{other}`")),
    })
}

impl<'s> Compiler<'s> {
    /// The node of the subschema `schema`, found at `pointer` in the root.
    fn at(&mut self, schema: &'s Value, pointer: String) -> Result<Id, Refusal> {
        if let Some(id) = self.by_pointer.get(&pointer) {
            return Ok(*id);
        }
        let id = Id::try_from(self.nodes.len()).map_err(|_| "the schema is too large")?;
        self.nodes.push(Node::Any);
        self.by_pointer.insert(pointer.clone(), id);
        let node = match schema {
            Value::Bool(true) => Node::Any,
            Value::Bool(false) => Node::Never,
            Value::Object(map) => self.rules(map, &pointer)?,
            _ => {
                let why = format!("the subschema at `{pointer}` is not an object or a boolean");
                return Err(Refusal::Invalid(why));
            }
        };
        self.nodes[id as usize] = node;
        Ok(id)
    }

    fn child(
        &mut self,
        map: &'s Map<String, Value>,
        key: &str,
        pointer: &str,
    ) -> Result<Option<Id>, Refusal> {
        match map.get(key) {
            None => Ok(None),
            Some(v) => self.at(v, format!("{pointer}/{}", escaped(key))).map(Some),
        }
    }

    fn list(
        &mut self,
        map: &'s Map<String, Value>,
        key: &str,
        pointer: &str,
    ) -> Result<Vec<Id>, Refusal> {
        match map.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(i, v)| self.at(v, format!("{pointer}/{key}/{i}")))
                .collect(),
            Some(_) => Err(format!("`{key}` must be a non-empty array of schemas").into()),
        }
    }

    fn reference(&mut self, target: &str) -> Result<Id, Refusal> {
        let Some(fragment) = target.strip_prefix('#') else {
            let why = format!("has a `$ref` ({target:?}) outside the schema");
            return Err(Refusal::Unsupported(why));
        };
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return Err(Refusal::Unsupported(format!(
                "has a `$ref` ({target:?}) to an anchor"
            )));
        }
        let schema = self
            .root
            .pointer(fragment)
            .ok_or_else(|| format!("`$ref` {target:?} points at nothing"))?;
        self.at(schema, fragment.to_owned())
    }

    fn rules(&mut self, map: &'s Map<String, Value>, pointer: &str) -> Result<Node, Refusal> {
        if let Some(keyword) = NOT_BUILT_IN.iter().find(|k| map.contains_key(**k)) {
            return Err(Refusal::Unsupported(format!("uses `{keyword}`")));
        }
        if map.contains_key("$id") && !pointer.is_empty() {
            return Err(Refusal::Unsupported("sets `$id` below the root".into()));
        }
        let types = match map.get("type") {
            None => 0,
            Some(Value::String(name)) => type_bit(name)?,
            Some(Value::Array(names)) => names.iter().try_fold(0, |set, name| {
                let name = name.as_str().ok_or("`type` must name types")?;
                Ok::<u8, String>(set | type_bit(name)?)
            })?,
            Some(_) => return Err("`type` must be a string or an array".into()),
        };
        let pattern = match map.get("pattern") {
            None => None,
            Some(Value::String(p)) => match Pattern::new(p) {
                Ok(re) => Some((p.clone(), re)),
                #[cfg(not(feature = "regex"))]
                Err(Unread::NeedsRegex) => return Err(Refusal::NeedsRegex(p.clone())),
                #[cfg(feature = "regex")]
                Err(Unread::Unreadable) => {
                    let why =
                        format!("has a `pattern` ({p:?}) the built-in regex engine cannot read");
                    return Err(Refusal::Unsupported(why));
                }
            },
            Some(_) => return Err("`pattern` must be a string".into()),
        };
        let format = match map.get("format") {
            Some(Value::String(f)) => Format::of(f).map_err(Refusal::Unsupported)?,
            _ => None,
        };
        let one_of_values = match map.get("enum") {
            None => None,
            Some(Value::Array(values)) => Some(values.clone()),
            Some(_) => return Err("`enum` must be an array".into()),
        };
        let required = match map.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) => names
                .iter()
                .map(|n| {
                    n.as_str()
                        .map(str::to_owned)
                        .ok_or("`required` must list names")
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("`required` must be an array".into()),
        };
        let mut properties = Vec::new();
        let has_properties = match map.get("properties") {
            None => false,
            Some(Value::Object(props)) => {
                for (name, schema) in props {
                    let at = format!("{pointer}/properties/{}", escaped(name));
                    properties.push((name.clone(), self.at(schema, at)?));
                }
                true
            }
            Some(_) => return Err("`properties` must be an object".into()),
        };
        let additional = match map.get("additionalProperties") {
            None | Some(Value::Bool(true)) => Additional::Any,
            Some(Value::Bool(false)) => Additional::Never,
            Some(_) => Additional::Node(
                self.child(map, "additionalProperties", pointer)?
                    .ok_or("unreachable")?,
            ),
        };
        let items = match map.get("items") {
            Some(Value::Array(_)) => {
                let why = "has an array as `items` (a tuple before draft 2020-12)";
                return Err(Refusal::Unsupported(why.into()));
            }
            _ => self.child(map, "items", pointer)?,
        };
        let reference = match map.get("$ref") {
            None => None,
            Some(Value::String(target)) => Some(self.reference(target)?),
            Some(_) => return Err("`$ref` must be a string".into()),
        };
        let required_at = required
            .iter()
            .map(|name| properties.iter().position(|(p, _)| p == name))
            .collect();
        let mut rules = Rules {
            groups: 0,
            types,
            constant: map.get("const").cloned(),
            one_of_values,
            minimum: number(map, "minimum")?,
            maximum: number(map, "maximum")?,
            exclusive_minimum: number(map, "exclusiveMinimum")?,
            exclusive_maximum: number(map, "exclusiveMaximum")?,
            multiple_of: number(map, "multipleOf")?,
            min_length: count(map, "minLength")?,
            max_length: count(map, "maxLength")?,
            min_items: count(map, "minItems")?,
            max_items: count(map, "maxItems")?,
            min_properties: count(map, "minProperties")?,
            max_properties: count(map, "maxProperties")?,
            required,
            required_at,
            pattern,
            format,
            unique_items: map.get("uniqueItems") == Some(&Value::Bool(true)),
            properties,
            has_properties,
            additional,
            property_names: self.child(map, "propertyNames", pointer)?,
            items,
            prefix_items: match map.get("prefixItems") {
                None => Vec::new(),
                Some(_) => self.list(map, "prefixItems", pointer)?,
            },
            contains: self.child(map, "contains", pointer)?,
            all_of: self.list(map, "allOf", pointer)?,
            any_of: self.list(map, "anyOf", pointer)?,
            one_of: self.list(map, "oneOf", pointer)?,
            not: self.child(map, "not", pointer)?,
            reference,
        };
        rules.groups = rules.groups();
        if rules.types == 0 && rules.groups == 0 {
            // Annotations only.
            return Ok(Node::Any);
        }
        Ok(Node::Rules(Box::new(rules)))
    }
}

impl Rules {
    fn groups(&self) -> u8 {
        let mut groups = 0;
        if self.constant.is_some() || self.one_of_values.is_some() {
            groups |= group::VALUES;
        }
        if self.minimum.is_some()
            || self.maximum.is_some()
            || self.exclusive_minimum.is_some()
            || self.exclusive_maximum.is_some()
            || self.multiple_of.is_some()
        {
            groups |= group::NUMBERS;
        }
        if self.min_length.is_some()
            || self.max_length.is_some()
            || self.pattern.is_some()
            || self.format.is_some()
        {
            groups |= group::STRINGS;
        }
        if self.min_items.is_some()
            || self.max_items.is_some()
            || self.unique_items
            || self.items.is_some()
            || !self.prefix_items.is_empty()
            || self.contains.is_some()
        {
            groups |= group::ARRAYS;
        }
        if self.min_properties.is_some()
            || self.max_properties.is_some()
            || !self.required.is_empty()
            || self.has_properties
            || !matches!(self.additional, Additional::Any)
            || self.property_names.is_some()
        {
            groups |= group::OBJECTS;
        }
        if !self.all_of.is_empty()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || self.not.is_some()
            || self.reference.is_some()
        {
            groups |= group::COMPOSED;
        }
        groups
    }
}
