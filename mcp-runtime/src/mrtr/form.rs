//! Elicitation forms: the flat structs a handler asks the user to fill in ([`ElicitForm`]) and
//! the field types they may hold ([`FormField`]).

use crate::protocol::{ElicitRequestFormParams, ElicitRequestParams, InputRequest};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::{Arc, OnceLock};

/// A form that can be elicited: a struct of flat primitive fields. Derive it with
/// `#[derive(serde::Deserialize, mcp_runtime::ElicitForm)]`.
///
/// ```
/// use mcp_runtime::ElicitForm;
/// use serde_json::value::RawValue;
///
/// #[derive(serde::Deserialize, ElicitForm)]
/// struct Goal {
///     /// What to look for.
///     goal: String,
/// }
///
/// let schema = Goal::shared_schema();
/// assert_eq!(schema["required"], serde_json::json!(["goal"]));
/// // Built once per type: every call shares it.
/// assert!(std::sync::Arc::ptr_eq(&schema, &Goal::shared_schema()));
/// let content = RawValue::from_string(r#"{"goal": "risks"}"#.into()).unwrap();
/// assert_eq!(Goal::from_content(&content).unwrap().goal, "risks");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation form",
    label = "not a form: a struct deriving `ElicitForm`",
    note = "derive `serde::Deserialize` and `ElicitForm` on a struct of the fields to ask for, such as `struct Proceed {{ proceed: bool }}`, and ask for `Elicitation<Proceed>`; `Elicitation<String>` asks for one text, and a fieldless enum deriving `ElicitForm` is a field of a form, not a form"
)]
pub trait ElicitForm: DeserializeOwned {
    /// The `requestedSchema` of the form.
    fn requested_schema() -> Map<String, Value>;
    /// The `requestedSchema`, shared: the derive builds it once per type and hands out the same
    /// one each time (this default builds it on every call).
    fn shared_schema() -> Arc<Map<String, Value>> {
        Arc::new(Self::requested_schema())
    }
    /// Decodes the submitted `content` (a JSON object, as raw text).
    fn from_content(content: &RawValue) -> Result<Self, serde_json::Error> {
        serde_json::from_str(content.get())
    }
}

/// A field type allowed in an elicitation form (flat: strings, numbers, booleans, string enums).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a flat form field",
    note = "form fields are `String`, `bool`, integers, floats, a fieldless enum deriving `ElicitForm`, or an `Option` of one of these"
)]
pub trait FormField {
    /// The property schema.
    fn field_schema() -> Map<String, Value>;
    /// Whether the field may be left out.
    const OPTIONAL: bool = false;
}

fn typed(t: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), Value::from(t));
    m
}

macro_rules! form_fields {
    ($kind:literal: $($t:ty),*) => {$(
        impl FormField for $t {
            fn field_schema() -> Map<String, Value> {
                typed($kind)
            }
        }
    )*};
}
form_fields!("string": String);
form_fields!("boolean": bool);
form_fields!("integer": i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
form_fields!("number": f32, f64);

impl<T: FormField> FormField for Option<T> {
    fn field_schema() -> Map<String, Value> {
        T::field_schema()
    }
    const OPTIONAL: bool = true;
}

/// A one-field form holding a string (`{"value": "..."}`), for quick questions.
impl ElicitForm for String {
    fn requested_schema() -> Map<String, Value> {
        let mut props = Map::new();
        props.insert("value".into(), Value::Object(typed("string")));
        let mut m = typed("object");
        m.insert("properties".into(), Value::Object(props));
        m.insert("required".into(), Value::from(vec!["value"]));
        m
    }
    fn shared_schema() -> Arc<Map<String, Value>> {
        static SCHEMA: OnceLock<Arc<Map<String, Value>>> = OnceLock::new();
        SCHEMA
            .get_or_init(|| Arc::new(Self::requested_schema()))
            .clone()
    }
    fn from_content(content: &RawValue) -> Result<Self, serde_json::Error> {
        #[derive(Deserialize)]
        struct One {
            #[serde(default)]
            value: Option<String>,
        }
        serde_json::from_str::<One>(content.get())?
            .value
            .ok_or_else(|| serde::de::Error::invalid_type(serde::de::Unexpected::Unit, &"a string"))
    }
}

/// An `elicitation/create` request for a form.
pub(super) fn elicit_request(message: &str, schema: Arc<Map<String, Value>>) -> InputRequest {
    InputRequest::Elicit(ElicitRequestParams::Form(ElicitRequestFormParams {
        mode: Some("form".into()),
        message: message.to_owned(),
        requested_schema: schema,
        meta: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_form_schema_is_shared() {
        assert!(Arc::ptr_eq(
            &String::shared_schema(),
            &String::shared_schema()
        ));
        assert_eq!(
            Value::Object((*String::shared_schema()).clone()),
            Value::Object(String::requested_schema())
        );
    }
}
