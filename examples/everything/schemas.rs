//! Input schemas beyond what a Rust type derives: a hand-written JSON Schema 2020-12 document,
//! and a parameter mirrored into an HTTP header (`x-mcp-header`).

use mcp_runtime::protocol::{CallToolResult, Content};
use mcp_runtime::{Tool, handler::ToolOutcome, tool};
use serde_json::{Value, json};

/// A tool whose `inputSchema` uses `$defs`/`$ref`/`$anchor`, `allOf`/`anyOf`,
/// `if`/`then`/`else` and `additionalProperties: false`. No Rust type derives such a schema, so
/// it is declared with the builder and a raw handler (the arguments are validated against the
/// schema before the handler runs).
pub fn json_schema_2020_12_tool() -> Tool {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    let Value::Object(schema) = schema else {
        unreachable!("a JSON object literal")
    };
    Tool::new("json_schema_2020_12_tool")
        .description("Tool with JSON Schema 2020-12 features")
        .input_schema(schema)
        .raw_handler(|call| async move {
            let text = |key: &str| call.arguments.get(key).and_then(Value::as_str);
            let name = text("name").unwrap_or("someone");
            let contact = match (text("phone"), text("email")) {
                (Some(phone), _) if text("contactMethod") == Some("phone") => {
                    format!("phone {phone}")
                }
                (_, Some(email)) => format!("email {email}"),
                (Some(phone), None) => format!("phone {phone}"),
                (None, None) => "nothing".to_owned(),
            };
            let city = call
                .arguments
                .get("address")
                .and_then(|a| a.get("city"))
                .and_then(Value::as_str)
                .map(|c| format!(" in {c}"))
                .unwrap_or_default();
            Ok(ToolOutcome::Complete(CallToolResult::new(vec![
                Content::text(format!("Contact {name}{city} by {contact}.")),
            ])))
        })
}

/// Tool with x-mcp-header parameter (SEP-2243): the client mirrors `region` into the
/// `Mcp-Param-Region` header, so proxies can route on it without reading the body.
#[tool]
pub fn test_custom_header(
    /// Region
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
) -> String {
    format!("region={region}")
}
