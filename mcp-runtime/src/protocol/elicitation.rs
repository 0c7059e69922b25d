//! The flat field schemas of a form-mode elicitation (`PrimitiveSchemaDefinition`).
//!
//! A form's `requestedSchema` is an object schema whose `properties` are each one of these
//! shapes: no nesting, no composition. [`ElicitRequestFormParams`](super::mrtr::ElicitRequestFormParams)
//! keeps `requestedSchema` as raw JSON; these types describe (and validate) its properties.

use serde::{Deserialize, Serialize};
use serde_json::Number;

/// The `"type": "string"` marker of the string-valued field schemas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringType {
    /// `"string"`.
    #[default]
    #[serde(rename = "string")]
    String,
}

/// The `type` of a [`NumberSchema`]: `"number"` or `"integer"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// Whole numbers only.
    Integer,
}

/// The `"type": "boolean"` marker of a [`BooleanSchema`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BooleanType {
    /// `"boolean"`.
    #[default]
    #[serde(rename = "boolean")]
    Boolean,
}

/// The `"type": "array"` marker of the multi-select field schemas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArrayType {
    /// `"array"`.
    #[default]
    #[serde(rename = "array")]
    Array,
}

/// A text field.
///
/// ```
/// use mcp_runtime::protocol::StringSchema;
/// let s: StringSchema = serde_json::from_str(r#"{"type":"string","format":"email"}"#).unwrap();
/// assert_eq!(s.format.as_deref(), Some("email"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Shortest accepted length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Longest accepted length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// `"email"`, `"uri"`, `"date"` or `"date-time"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A number field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Smallest accepted value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// Largest accepted value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Number>,
}

/// A checkbox.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// One choice of a titled enum: the value sent back (`const`) and its label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EnumOption {
    /// The value.
    #[serde(rename = "const")]
    pub value: String,
    /// The label shown to the user.
    pub title: String,
}

impl EnumOption {
    /// A choice.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        EnumOption {
            value: value.into(),
            title: title.into(),
        }
    }
}

/// Single choice among plain strings (`enum`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Single choice among labelled values (`oneOf` of `{const, title}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    pub one_of: Vec<EnumOption>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledEnumItems {
    /// The choices.
    pub any_of: Vec<EnumOption>,
}

/// Several choices among plain strings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: UntitledEnumItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Several choices among labelled values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledEnumItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Legacy single choice with parallel `enumNames` labels (kept for older clients).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Labels, one per choice. Required here: without it the schema is an
    /// [`UntitledSingleSelectEnumSchema`].
    pub enum_names: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// One field of an elicitation form (`PrimitiveSchemaDefinition`).
///
/// Deserialization picks the most specific shape: a `"type": "string"` schema with `enum` is a
/// single-select enum, not a plain [`StringSchema`].
///
/// ```
/// use mcp_runtime::protocol::PrimitiveSchemaDefinition;
/// let f: PrimitiveSchemaDefinition =
///     serde_json::from_str(r#"{"type":"string","enum":["Red","Green"]}"#).unwrap();
/// assert!(matches!(f, PrimitiveSchemaDefinition::UntitledSingleSelect(_)));
/// let f: PrimitiveSchemaDefinition = serde_json::from_str(r#"{"type":"integer"}"#).unwrap();
/// assert!(matches!(f, PrimitiveSchemaDefinition::Number(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum PrimitiveSchemaDefinition {
    /// Several labelled choices.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// Several plain choices.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// One labelled choice.
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// One choice with legacy `enumNames`.
    LegacyTitled(LegacyTitledEnumSchema),
    /// One plain choice.
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// Text.
    String(StringSchema),
    /// Number.
    Number(NumberSchema),
    /// Checkbox.
    Boolean(BooleanSchema),
}
