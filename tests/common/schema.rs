//! Every message the server emits validated against the protocol's JSON Schema: the 2026-07-28
//! one of the shared folder (`spec/schema-2026-07-28.json`), and the 2025-11-25 one of
//! `tests/fixtures` for the legacy era.

use super::shared_path;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn schema_defs() -> Option<&'static Map<String, Value>> {
    static DEFS: OnceLock<Option<Map<String, Value>>> = OnceLock::new();
    DEFS.get_or_init(|| {
        let path = shared_path("spec/schema-2026-07-28.json")?;
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let schema: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        match schema.get("$defs") {
            Some(Value::Object(defs)) => Some(defs.clone()),
            _ => panic!("{} has no top-level $defs", path.display()),
        }
    })
    .as_ref()
}

/// Whether schema validation is active (the schema file was found).
pub fn schema_available() -> bool {
    schema_defs().is_some()
}

/// The names of every `$defs` entry (empty when the schema is absent).
pub fn def_names() -> Vec<String> {
    schema_defs()
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}

fn validator(def: &str) -> Option<Arc<jsonschema::Validator>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
    let defs = schema_defs()?;
    assert!(defs.contains_key(def), "the schema has no $defs/{def}");
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(v) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(def) {
        return Some(v.clone());
    }
    let wrapper = json!({
        "$schema": DIALECT,
        "$defs": defs,
        "$ref": format!("#/$defs/{def}"),
    });
    let compiled = Arc::new(
        jsonschema::draft202012::new(&wrapper)
            .unwrap_or_else(|e| panic!("$defs/{def} does not compile: {e}")),
    );
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(def.to_owned(), compiled.clone());
    Some(compiled)
}

/// The schema violations of `value` against `$defs/<def>` (empty when valid or when the schema
/// is absent).
pub fn violations(def: &str, value: &Value) -> Vec<String> {
    let Some(v) = validator(def) else {
        return Vec::new();
    };
    v.iter_errors(value)
        .map(|e| format!("{e} (at `{}`)", e.instance_path()))
        .collect()
}

/// Panics unless `value` is valid against `$defs/<def>`.
pub fn assert_valid(def: &str, value: &Value) {
    let errors = violations(def, value);
    assert!(
        errors.is_empty(),
        "not a valid {def}:\n  {}\nmessage: {value}",
        errors.join("\n  ")
    );
}

/// The 2025-11-25 schema's `$defs` (`tests/fixtures/schema-2025-11-25.json`, copied from
/// modelcontextprotocol/modelcontextprotocol at c4c367f, `schema/2025-11-25/schema.json`).
fn schema_defs_2025() -> &'static Map<String, Value> {
    static DEFS: OnceLock<Map<String, Value>> = OnceLock::new();
    DEFS.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/schema-2025-11-25.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let schema: Value = serde_json::from_str(&text).expect("the 2025-11-25 schema is JSON");
        match schema.get("$defs") {
            Some(Value::Object(defs)) => defs.clone(),
            _ => panic!("{} has no top-level $defs", path.display()),
        }
    })
}

/// Panics unless `value` is valid against `$defs/<def>` of the 2025-11-25 schema.
pub fn assert_valid_2025(def: &str, value: &Value) {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
    let defs = schema_defs_2025();
    assert!(
        defs.contains_key(def),
        "the 2025-11-25 schema has no $defs/{def}"
    );
    let cache = CACHE.get_or_init(Mutex::default);
    let cached = cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(def)
        .cloned();
    let validator = cached.unwrap_or_else(|| {
        let wrapper = json!({"$schema": DIALECT, "$defs": defs, "$ref": format!("#/$defs/{def}")});
        let compiled = Arc::new(
            jsonschema::draft202012::new(&wrapper)
                .unwrap_or_else(|e| panic!("2025-11-25 $defs/{def} does not compile: {e}")),
        );
        cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(def.to_owned(), compiled.clone());
        compiled
    });
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} (at `{}`)", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid 2025-11-25 {def}:\n  {}\nmessage: {value}",
        errors.join("\n  ")
    );
}

/// The `<X>ResultResponse` and `<X>Result` definitions of a request method.
fn result_defs(method: &str) -> Option<(&'static str, &'static str)> {
    Some(match method {
        "server/discover" => ("DiscoverResultResponse", "DiscoverResult"),
        "tools/list" => ("ListToolsResultResponse", "ListToolsResult"),
        "tools/call" => ("CallToolResultResponse", "CallToolResult"),
        "resources/list" => ("ListResourcesResultResponse", "ListResourcesResult"),
        "resources/templates/list" => (
            "ListResourceTemplatesResultResponse",
            "ListResourceTemplatesResult",
        ),
        "resources/read" => ("ReadResourceResultResponse", "ReadResourceResult"),
        "prompts/list" => ("ListPromptsResultResponse", "ListPromptsResult"),
        "prompts/get" => ("GetPromptResultResponse", "GetPromptResult"),
        "completion/complete" => ("CompleteResultResponse", "CompleteResult"),
        "subscriptions/listen" => (
            "SubscriptionsListenResultResponse",
            "SubscriptionsListenResult",
        ),
        _ => return None,
    })
}

/// Validates the server's answer to a request of `method`: a result against
/// `<X>ResultResponse` and (the schema's response unions being loose) its `result` against
/// `<X>Result` or `InputRequiredResult`; an error against `JSONRPCErrorResponse` plus the
/// specific definition of `-32020`/`-32021`/`-32022`.
pub fn assert_response_valid(method: &str, response: &Value) {
    assert!(
        response.get("method").is_none(),
        "a response must not carry `method` (servers never send requests): {response}"
    );
    if let Some(error) = response.get("error") {
        assert!(
            response.get("result").is_none(),
            "both result and error: {response}"
        );
        assert_valid("JSONRPCErrorResponse", response);
        let specific = match error.get("code").and_then(Value::as_i64) {
            Some(-32020) => Some("HeaderMismatchError"),
            Some(-32021) => Some("MissingRequiredClientCapabilityError"),
            Some(-32022) => Some("UnsupportedProtocolVersionError"),
            Some(code) => {
                assert!(
                    !(-32099..=-32023).contains(&code) && code != -32002 && code != -32042,
                    "error code {code} is reserved or retired: {response}"
                );
                None
            }
            None => None,
        };
        if let Some(def) = specific {
            assert_valid(def, response);
        }
        return;
    }
    let result = response
        .get("result")
        .unwrap_or_else(|| panic!("neither result nor error: {response}"));
    match result_defs(method) {
        None => assert_valid("JSONRPCResultResponse", response),
        Some(_) if result.get("resultType") == Some(&json!("task")) => {
            assert_eq!(
                method, "tools/call",
                "only tools/call may answer a task: {response}"
            );
            assert_valid("JSONRPCResultResponse", response);
            assert_create_task(result);
        }
        Some((response_def, result_def)) => {
            assert_valid(response_def, response);
            if result.get("resultType") == Some(&json!("input_required")) {
                assert!(
                    matches!(method, "tools/call" | "prompts/get" | "resources/read"),
                    "only tools/call, prompts/get and resources/read may answer input_required: {response}"
                );
                assert_input_required(result);
            } else {
                assert_eq!(
                    result.get("resultType"),
                    Some(&json!("complete")),
                    "unexpected resultType: {response}"
                );
                assert_valid(result_def, result);
            }
        }
    }
}

/// A `CreateTaskResult` of the tasks extension (whose schema is not part of the 2026-07-28
/// one): a flat task with ISO 8601 times, `ttlMs` null or positive, `pollIntervalMs` positive,
/// and nothing of a result.
pub fn assert_create_task(result: &Value) {
    assert!(
        result["taskId"].as_str().is_some_and(|id| !id.is_empty()),
        "{result}"
    );
    let status = result["status"].as_str().unwrap_or_default();
    assert!(
        [
            "working",
            "input_required",
            "completed",
            "failed",
            "cancelled"
        ]
        .contains(&status),
        "{result}"
    );
    for time in ["createdAt", "lastUpdatedAt"] {
        let t = result[time].as_str().unwrap_or_default();
        assert!(
            t.len() >= 20 && t.ends_with('Z') && t.as_bytes()[10] == b'T',
            "{time}: {result}"
        );
    }
    let ttl = &result["ttlMs"];
    assert!(
        ttl.is_null() || ttl.as_u64().is_some_and(|n| n > 0),
        "ttlMs: {result}"
    );
    if let Some(poll) = result.get("pollIntervalMs") {
        assert!(
            poll.as_u64().is_some_and(|n| n > 0),
            "pollIntervalMs: {result}"
        );
    }
    for absent in [
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
        "pollInterval",
    ] {
        assert!(result.get(absent).is_none(), "{absent} in {result}");
    }
}

/// The custom rule the schema does not encode: an `input_required` result carries
/// `inputRequests` or `requestState` (or both).
pub fn assert_input_required(result: &Value) {
    assert_valid("InputRequiredResult", result);
    assert!(
        result.get("inputRequests").is_some() || result.get("requestState").is_some(),
        "an input_required result needs inputRequests or requestState: {result}"
    );
    if let Some(requests) = result.get("inputRequests") {
        assert_valid("InputRequests", requests);
    }
}

/// Validates a notification the server sent against the definition of its method.
pub fn assert_notification_valid(message: &Value) {
    assert!(
        message.get("id").is_none(),
        "a notification must not carry an id (servers never send requests): {message}"
    );
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("not a notification: {message}"));
    let def = match method {
        "notifications/progress" => "ProgressNotification",
        "notifications/message" => "LoggingMessageNotification",
        "notifications/cancelled" => "CancelledNotification",
        "notifications/subscriptions/acknowledged" => "SubscriptionsAcknowledgedNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        "notifications/prompts/list_changed" => "PromptListChangedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        other => panic!("the server sent an unknown notification `{other}`: {message}"),
    };
    assert_valid(def, message);
}

/// Validates any message the server sent in answer to a request of `method`.
pub fn assert_message_valid(method: &str, message: &Value) {
    if message.get("method").is_some() {
        assert_notification_valid(message);
    } else {
        assert_response_valid(method, message);
    }
}
