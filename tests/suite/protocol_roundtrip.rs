//! Every example of the spec (`<shared>/spec/examples/<TypeName>/*.json`) round-trips through the
//! types of `mcp_runtime::protocol`: deserialize → serialize → JSON-equal.
//!
//! Every folder is mapped; none is excluded. (A server receives or sends all of these shapes:
//! the client-side ones — `ElicitResult`, `CreateMessageResult`, `ListRootsResult`,
//! `InputResponses`, `ClientCapabilities` — arrive inside requests.) A folder without a mapping
//! fails the test, so new fixtures cannot be skipped silently.
//!
//! Two files diverge on purpose; each is listed in [`DIVERGENCES`] with its reason, and the test
//! checks that the divergence is still exactly what is described.

use crate::common;
use mcp_runtime::protocol::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::Path;

type Check = fn(&Value) -> Result<Value, String>;

/// Deserializes `value` as `T` and serializes it back.
fn rt<T: Serialize + DeserializeOwned>(value: &Value) -> Result<Value, String> {
    let name = std::any::type_name::<T>().replace("mcp_runtime::protocol::", "");
    let parsed: T = serde_json::from_value(value.clone())
        .map_err(|e| format!("does not deserialize as {name}: {e}"))?;
    serde_json::to_value(&parsed).map_err(|e| format!("{name} does not serialize: {e}"))
}

/// [`rt`] for types that borrow raw parts (`arguments`, `inputResponses`) from the message text,
/// as the server reads them: deserialized from the fixture's text.
macro_rules! rt_text {
    ($t:ty) => {{
        fn check(value: &Value) -> Result<Value, String> {
            let name = stringify!($t);
            let text = value.to_string();
            let parsed: $t = serde_json::from_str(&text)
                .map_err(|e| format!("does not deserialize as {name}: {e}"))?;
            serde_json::to_value(&parsed).map_err(|e| format!("{name} does not serialize: {e}"))
        }
        check as Check
    }};
}

/// The Rust types each example folder must round-trip through (at least one each).
fn mapping(folder: &str) -> Option<Vec<Check>> {
    let checks: Vec<Check> = match folder {
        // Content blocks.
        "TextContent" | "ImageContent" | "AudioContent" | "EmbeddedResource" | "ResourceLink" => {
            vec![rt::<Content>]
        }
        "ToolUseContent" | "ToolResultContent" => {
            vec![rt::<SamplingMessageContentBlock>, rt::<SamplingBlock>]
        }
        "TextResourceContents" | "BlobResourceContents" => vec![rt::<ResourceContents>],
        "Resource" => vec![rt::<Resource>],
        "Tool" => vec![rt::<ToolInfo>],
        "Root" => vec![rt::<Root>],
        // Capabilities.
        "ClientCapabilities" => vec![rt::<ClientCapabilities>],
        "ServerCapabilities" => vec![rt::<ServerCapabilities>],
        // Requests and their params.
        "DiscoverRequest" => vec![rt::<JsonRpcRequest<RequestParams>>],
        "ListToolsRequest"
        | "ListPromptsRequest"
        | "ListResourcesRequest"
        | "ListResourceTemplatesRequest" => vec![rt::<JsonRpcRequest<PaginatedRequestParams>>],
        "PaginatedRequestParams" => vec![rt::<PaginatedRequestParams>],
        "CallToolRequest" => vec![rt_text!(JsonRpcRequest<CallToolRequestParams<'_>>)],
        "CallToolRequestParams" => vec![rt_text!(CallToolRequestParams<'_>)],
        "GetPromptRequest" => vec![rt_text!(JsonRpcRequest<GetPromptRequestParams<'_>>)],
        "GetPromptRequestParams" => vec![rt_text!(GetPromptRequestParams<'_>)],
        "ReadResourceRequest" => vec![rt_text!(JsonRpcRequest<ReadResourceRequestParams<'_>>)],
        "CompleteRequest" => vec![rt::<JsonRpcRequest<CompleteRequestParams>>],
        "CompleteRequestParams" => vec![rt::<CompleteRequestParams>],
        "SubscriptionsListenRequest" => {
            vec![rt::<JsonRpcRequest<SubscriptionsListenRequestParams>>]
        }
        // Results and result responses.
        "DiscoverResult" => vec![rt::<DiscoverResult>],
        "DiscoverResultResponse" => vec![rt::<JsonRpcResultResponse<DiscoverResult>>],
        "ListToolsResult" => vec![rt::<ListToolsResult>],
        "ListToolsResultResponse" => vec![rt::<JsonRpcResultResponse<ListToolsResult>>],
        "ListPromptsResult" => vec![rt::<ListPromptsResult>],
        "ListPromptsResultResponse" => vec![rt::<JsonRpcResultResponse<ListPromptsResult>>],
        "ListResourcesResult" => vec![rt::<ListResourcesResult>],
        "ListResourcesResultResponse" => vec![rt::<JsonRpcResultResponse<ListResourcesResult>>],
        "ListResourceTemplatesResult" => vec![rt::<ListResourceTemplatesResult>],
        "ListResourceTemplatesResultResponse" => {
            vec![rt::<JsonRpcResultResponse<ListResourceTemplatesResult>>]
        }
        "CallToolResult" => vec![rt::<CallToolResult>],
        "CallToolResultResponse" => vec![rt::<JsonRpcResultResponse<CallToolResult>>],
        "ReadResourceResult" => vec![rt::<ReadResourceResult>],
        "ReadResourceResultResponse" => vec![rt::<JsonRpcResultResponse<ReadResourceResult>>],
        "GetPromptResult" => vec![rt::<GetPromptResult>],
        "GetPromptResultResponse" => vec![rt::<JsonRpcResultResponse<GetPromptResult>>],
        "CompleteResult" => vec![rt::<CompleteResult>],
        "CompleteResultResponse" => vec![rt::<JsonRpcResultResponse<CompleteResult>>],
        "SubscriptionsListenResult" => vec![rt::<SubscriptionsListenResult>],
        "SubscriptionsListenResultResponse" => {
            vec![rt::<JsonRpcResultResponse<SubscriptionsListenResult>>]
        }
        // Multi round-trip requests.
        "InputRequiredResult" => vec![rt::<InputRequiredResult>],
        "InputRequests" => vec![rt::<InputRequests>],
        "InputResponses" => vec![rt::<InputResponses>],
        "ElicitRequest" | "CreateMessageRequest" | "ListRootsRequest" => vec![rt::<InputRequest>],
        "ElicitRequestFormParams" => {
            vec![rt::<ElicitRequestFormParams>, rt::<ElicitRequestParams>]
        }
        "ElicitRequestURLParams" => vec![rt::<ElicitRequestUrlParams>, rt::<ElicitRequestParams>],
        "ElicitResult" => vec![rt::<ElicitResult>, rt::<InputResponse>],
        "CreateMessageRequestParams" => vec![rt::<CreateMessageRequestParams>],
        "CreateMessageResult" => vec![rt::<CreateMessageResult>, rt::<InputResponse>],
        "ListRootsResult" => vec![rt::<ListRootsResult>, rt::<InputResponse>],
        "SamplingMessage" => vec![rt::<SamplingMessage>],
        "ModelPreferences" => vec![rt::<ModelPreferences>],
        // Elicitation form fields.
        "StringSchema" => vec![rt::<StringSchema>, rt::<PrimitiveSchemaDefinition>],
        "NumberSchema" => vec![rt::<NumberSchema>, rt::<PrimitiveSchemaDefinition>],
        "BooleanSchema" => vec![rt::<BooleanSchema>, rt::<PrimitiveSchemaDefinition>],
        "UntitledSingleSelectEnumSchema" => {
            vec![
                rt::<UntitledSingleSelectEnumSchema>,
                rt::<PrimitiveSchemaDefinition>,
            ]
        }
        "TitledSingleSelectEnumSchema" => {
            vec![
                rt::<TitledSingleSelectEnumSchema>,
                rt::<PrimitiveSchemaDefinition>,
            ]
        }
        "UntitledMultiSelectEnumSchema" => {
            vec![
                rt::<UntitledMultiSelectEnumSchema>,
                rt::<PrimitiveSchemaDefinition>,
            ]
        }
        "TitledMultiSelectEnumSchema" => {
            vec![
                rt::<TitledMultiSelectEnumSchema>,
                rt::<PrimitiveSchemaDefinition>,
            ]
        }
        // Notifications and their params.
        "ProgressNotification" => vec![rt::<JsonRpcNotification<ProgressNotificationParams>>],
        "ProgressNotificationParams" => vec![rt::<ProgressNotificationParams>],
        "LoggingMessageNotification" => {
            vec![rt::<JsonRpcNotification<LoggingMessageNotificationParams>>]
        }
        "LoggingMessageNotificationParams" => vec![rt::<LoggingMessageNotificationParams>],
        "CancelledNotification" => vec![rt::<JsonRpcNotification<CancelledNotificationParams>>],
        "CancelledNotificationParams" => vec![rt::<CancelledNotificationParams>],
        "ToolListChangedNotification"
        | "PromptListChangedNotification"
        | "ResourceListChangedNotification" => vec![rt::<JsonRpcNotification<NotificationParams>>],
        "ResourceUpdatedNotification" => {
            vec![rt::<JsonRpcNotification<ResourceUpdatedNotificationParams>>]
        }
        "ResourceUpdatedNotificationParams" => vec![rt::<ResourceUpdatedNotificationParams>],
        "SubscriptionsAcknowledgedNotification" => {
            vec![rt::<JsonRpcNotification<SubscriptionsAcknowledgedParams>>]
        }
        // Errors: whole responses, or bare error objects.
        "HeaderMismatchError"
        | "MissingRequiredClientCapabilityError"
        | "UnsupportedProtocolVersionError" => vec![rt::<JsonRpcErrorResponse>],
        "ParseError" | "InvalidParamsError" | "MethodNotFoundError" | "InternalError" => {
            vec![rt::<ErrorObject>]
        }
        _ => return None,
    };
    Some(checks)
}

/// How a fixture is expected to differ from a plain round trip.
enum Divergence {
    /// These top-level members are not part of the type the schema defines and are dropped.
    DropsMembers(&'static [&'static str]),
    /// The strict type rejects the file (the server never sends this shape).
    Rejected,
}

/// Files that do not round-trip byte-for-byte, and why.
const DIVERGENCES: &[(&str, &str, Divergence, &str)] = &[
    (
        "ListRootsRequest",
        "list-roots-request.json",
        Divergence::DropsMembers(&["id"]),
        "an embedded input request is a bare {method, params} object; the schema's \
         ListRootsRequest defines no `id` (the fixture's `id` passes only because objects are open)",
    ),
    (
        "ReadResourceResultResponse",
        "read-resource-result-response.json",
        Divergence::Rejected,
        "a complete resources/read result MUST carry ttlMs and cacheScope (digest §1 Caching); the \
         fixture validates only because the schema's InputRequiredResult branch accepts any \
         resultType. ReadResourceResult keeps both fields required so the server cannot omit them",
    ),
];

fn divergence(folder: &str, file: &str) -> Option<&'static Divergence> {
    DIVERGENCES
        .iter()
        .find(|(d, f, _, _)| *d == folder && *f == file)
        .map(|(_, _, d, _)| d)
}

fn json_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_spec_example_round_trips() {
    let Some(root) = common::shared_path("spec/examples") else {
        return;
    };
    let mut folders: Vec<_> = std::fs::read_dir(&root)
        .expect("list spec/examples")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(!folders.is_empty(), "{} holds no folders", root.display());

    let mut failures: Vec<String> = Vec::new();
    let mut checked = 0usize;
    let mut files_seen = 0usize;
    let mut used_divergences = 0usize;
    for dir in &folders {
        let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
        let Some(checks) = mapping(&folder) else {
            failures.push(format!(
                "{folder}/: no Rust type is mapped to this folder; add it to `mapping`"
            ));
            continue;
        };
        let files = json_files(dir);
        if files.is_empty() {
            failures.push(format!("{folder}/: no .json file"));
        }
        for path in files {
            files_seen += 1;
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let label = format!("{folder}/{file}");
            let text = std::fs::read_to_string(&path).expect("read fixture");
            let fixture: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{label}: not JSON: {e}"));
                    continue;
                }
            };
            // The validator itself is checked against the fixtures (the digest reports 129/129).
            if common::def_names().contains(&folder) {
                let errors = common::violations(&folder, &fixture);
                if !errors.is_empty() {
                    failures.push(format!(
                        "{label}: invalid against $defs/{folder}: {errors:?}"
                    ));
                }
            }
            let div = divergence(&folder, &file);
            if div.is_some() {
                used_divergences += 1;
            }
            for check in &checks {
                checked += 1;
                let outcome = check(&fixture);
                match (div, outcome) {
                    (Some(Divergence::Rejected), Ok(back)) => failures.push(format!(
                        "{label}: listed as rejected by the strict type but it now round-trips to {back}; \
                         remove it from DIVERGENCES"
                    )),
                    (Some(Divergence::Rejected), Err(_)) => {}
                    (_, Err(e)) => failures.push(format!("{label}: {e}")),
                    (d, Ok(back)) => {
                        let mut expected = fixture.clone();
                        if let (Some(Divergence::DropsMembers(members)), Value::Object(m)) =
                            (d, &mut expected)
                        {
                            for member in *members {
                                assert!(
                                    m.remove(*member).is_some(),
                                    "{label}: DIVERGENCES names `{member}`, which the file lacks"
                                );
                            }
                        }
                        if back != expected {
                            failures.push(format!(
                                "{label}: not JSON-equal after the round trip\n    expected: {expected}\n    got:      {back}"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert_eq!(
        used_divergences,
        DIVERGENCES.len(),
        "a DIVERGENCES entry names a file that does not exist any more"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} round trips over {files_seen} files failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
    eprintln!(
        "{checked} round trips over {files_seen} files in {} folders passed",
        folders.len()
    );
}

/// The shapes the server builds itself are valid for the schema.
#[test]
fn built_values_are_schema_valid() {
    if !common::schema_available() {
        return;
    }
    let cases: Vec<(&str, Value)> = vec![
        (
            "CallToolResult",
            serde_json::to_value(CallToolResult::new(vec![Content::text("42")])).unwrap(),
        ),
        (
            "CallToolResult",
            serde_json::to_value(CallToolResult::error("boom").with_structured(Value::Null))
                .unwrap(),
        ),
        (
            "ListRootsRequest",
            serde_json::to_value(InputRequest::ListRoots(Some(ListRootsParams::default())))
                .unwrap(),
        ),
        (
            "CreateMessageRequest",
            serde_json::to_value(InputRequest::Sample(CreateMessageRequestParams::prompt(
                "Capital of France?",
                100,
            )))
            .unwrap(),
        ),
        (
            "ResourceLink",
            serde_json::to_value(Content::resource_link("file:///a.txt", "a.txt")).unwrap(),
        ),
        (
            "EmbeddedResource",
            serde_json::to_value(Content::embedded(
                ResourceContents::blob("test://b", &[1, 2, 3]).mime_type("image/png"),
            ))
            .unwrap(),
        ),
        (
            "ImageContent",
            serde_json::to_value(Content::image("AAEC", "image/png")).unwrap(),
        ),
        (
            "PromptMessage",
            serde_json::to_value(PromptMessage::user("Review this.")).unwrap(),
        ),
        (
            "Implementation",
            serde_json::to_value(Implementation::new("s", "1.0.0")).unwrap(),
        ),
    ];
    for (def, value) in cases {
        common::assert_valid(def, &value);
    }
    let roots = serde_json::to_value(InputRequest::ListRoots(None)).unwrap();
    assert_eq!(roots, serde_json::json!({"method": "roots/list"}));
    let roots =
        serde_json::to_value(InputRequest::ListRoots(Some(ListRootsParams::default()))).unwrap();
    assert_eq!(
        roots,
        serde_json::json!({"method": "roots/list", "params": {}})
    );
}

#[test]
fn primitive_schema_picks_the_most_specific_shape() {
    let legacy: PrimitiveSchemaDefinition = serde_json::from_value(serde_json::json!({
        "type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]
    }))
    .unwrap();
    assert!(matches!(legacy, PrimitiveSchemaDefinition::LegacyTitled(_)));
    let plain: PrimitiveSchemaDefinition =
        serde_json::from_value(serde_json::json!({"type": "string", "minLength": 1})).unwrap();
    assert!(matches!(plain, PrimitiveSchemaDefinition::String(_)));
    let bad =
        serde_json::from_value::<PrimitiveSchemaDefinition>(serde_json::json!({"type": "object"}));
    assert!(bad.is_err(), "nested objects are not form fields");
}
