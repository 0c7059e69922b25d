//! What writing a server is like: `#[handlers]` impl blocks sharing a value, shared state checked
//! when the server is built, arguments interpolated into client-input texts, unit enums as
//! prompt arguments and template variables, fresh-by-default caching hints, and the in-process
//! `TestClient` (typed calls, client input answered by callbacks, progress and logs collected,
//! listen streams, a cache that honours `ttlMs`).

mod common;

use mcp_runtime::protocol::{CacheScope, LoggingLevel};
use mcp_runtime::testing::{ClientError, Elicited, TestClient};
use mcp_runtime::{
    CacheTarget, Elicitation, Logger, PrimitiveKind, Progress, RequestContext, Roots, Sampled,
    Server, State, handlers, tool,
};
use serde_json::{Value, json};
use std::sync::Mutex;

/// A note store served by an impl block.
#[derive(Default)]
struct Notes {
    notes: Mutex<Vec<(String, String)>>,
}

#[handlers]
impl Notes {
    /// Creates a note with a tag; answers how many notes there are.
    #[tool]
    fn create_note(&self, text: String, tag: String) -> usize {
        let mut notes = self.notes.lock().unwrap();
        notes.push((text, tag));
        notes.len()
    }

    /// Deletes the notes tagged `tag`, after asking.
    #[tool]
    async fn delete_tagged(
        &self,
        tag: String,
        #[elicit(message = "Delete the notes tagged {tag}?")] confirm: Elicitation<String>,
    ) -> String {
        if !matches!(confirm, Elicitation::Accepted(_)) {
            return "kept".to_owned();
        }
        let mut notes = self.notes.lock().unwrap();
        notes.retain(|(_, t)| *t != tag);
        format!("{} left", notes.len())
    }

    /// Deletes note number `index` (from 1), after asking with its text.
    #[tool]
    fn delete_note(
        &self,
        index: usize,
        #[elicit(message = Self::confirm_delete)] confirm: Elicitation<String>,
    ) -> String {
        if !matches!(confirm, Elicitation::Accepted(_)) {
            return "kept".to_owned();
        }
        let mut notes = self.notes.lock().unwrap();
        if index == 0 || index > notes.len() {
            return "no such note".to_owned();
        }
        notes.remove(index - 1);
        format!("{} left", notes.len())
    }

    /// Every note, one per line.
    #[resource("notes://all")]
    fn all_notes(&self) -> String {
        let notes = self.notes.lock().unwrap();
        notes
            .iter()
            .map(|(text, _)| text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The notes of one tag.
    #[resource("notes://tags/{tag}")]
    fn tagged(&self, tag: String) -> String {
        let notes = self.notes.lock().unwrap();
        notes
            .iter()
            .filter(|(_, t)| *t == tag)
            .map(|(text, _)| text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Summarize the notes in a tone.
    #[prompt]
    fn summarize(&self, tone: Tone) -> String {
        let count = self.notes.lock().unwrap().len();
        format!("Summarize {count} notes, {tone:?}.")
    }

    /// How the server is doing (no receiver: needs no value).
    #[tool]
    fn health() -> &'static str {
        "ok"
    }
}

impl Notes {
    /// The question `delete_note` asks: the note's own text, from the store.
    fn confirm_delete(&self, _cx: &RequestContext, index: &usize) -> String {
        let notes = self.notes.lock().unwrap();
        match index.checked_sub(1).and_then(|i| notes.get(i)) {
            Some((text, _)) => format!("Delete note #{index} \"{text}\"?"),
            None => format!("Delete note #{index}?"),
        }
    }
}

/// The question `rename_tag` asks, computed from the request's shared state and arguments.
fn confirm_rename(cx: &RequestContext, from: &String, to: &String) -> String {
    let config = cx
        .state::<Config>()
        .map(|c| c.0.clone())
        .unwrap_or_default();
    format!("Rename tag {from} to {to} (config {config})?")
}

/// Renames a tag after asking (a free function whose question is computed).
#[tool]
fn rename_tag(
    from: String,
    to: String,
    #[elicit(message = confirm_rename)] confirm: Option<Elicitation<String>>,
) -> String {
    match confirm {
        Some(Elicitation::Accepted(_)) => format!("{from} is now {to}"),
        _ => "unchanged".to_owned(),
    }
}

/// A tone, taken by its variant's name.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Tone {
    Brief,
    Cheerful,
}

/// A free function of this file (in the inventory of this test binary).
#[tool]
fn shout(
    text: String,
    /// Reports progress twice.
    progress: Progress,
    log: Logger,
) -> String {
    progress.report(1.0, Some(2.0), Some("half"));
    log.info("shouting");
    progress.report(2.0, Some(2.0), Some("done"));
    text.to_uppercase()
}

/// Reads its config from shared state.
#[tool]
fn config_value(State(config): State<Config>) -> String {
    config.0.clone()
}

struct Config(String);

/// Asks the model for a title in a style, with the client's roots.
#[tool]
async fn title(
    style: String,
    #[sample(prompt = "Suggest a {style} title.", max_tokens = 20)] suggestion: Sampled,
    #[roots] roots: Roots,
) -> String {
    format!("{} ({} roots, {style})", suggestion.text(), roots.len())
}

/// The server of these tests: the impl block's value, and the free functions.
fn notes_server() -> Server {
    Server::builder()
        .handlers(Notes::default())
        .tool(shout {})
        .tool(title {})
        .logging(true)
        .build()
        .expect("valid server")
}

#[tokio::test]
async fn an_impl_block_serves_its_methods_on_one_value() {
    let client = TestClient::new(notes_server());
    let mut names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "create_note",
            "delete_note",
            "delete_tagged",
            "health",
            "shout",
            "title"
        ]
    );
    let tools = client.list_tools().await.unwrap();
    let create = tools.iter().find(|t| t.name == "create_note").unwrap();
    assert_eq!(
        create.description.as_deref(),
        Some("Creates a note with a tag; answers how many notes there are.")
    );
    assert_eq!(create.input_schema["required"], json!(["text", "tag"]));

    for (i, (text, tag)) in [("milk", "todo"), ("eggs", "todo"), ("idea", "later")]
        .into_iter()
        .enumerate()
    {
        let r = client
            .call_tool("create_note", json!({"text": text, "tag": tag}))
            .await
            .unwrap();
        assert_eq!(r.text(), (i + 1).to_string());
    }
    let all = client.read_resource("notes://all").await.unwrap();
    assert_eq!(
        serde_json::to_value(&all.contents).unwrap()[0]["text"],
        "milk\neggs\nidea"
    );
    let tagged = client.read_resource("notes://tags/todo").await.unwrap();
    assert_eq!(
        serde_json::to_value(&tagged.contents).unwrap()[0]["text"],
        "milk\neggs"
    );
    assert_eq!(
        client.call_tool("health", json!({})).await.unwrap().text(),
        "ok"
    );
}

#[tokio::test]
async fn unit_enums_are_prompt_arguments_by_variant_name() {
    let client = TestClient::new(notes_server());
    let got = client
        .get_prompt("summarize", json!({"tone": "cheerful"}))
        .await
        .unwrap();
    let text = serde_json::to_value(&got.messages).unwrap()[0]["content"]["text"].clone();
    assert_eq!(text, "Summarize 0 notes, Cheerful.");
    let err = client
        .get_prompt("summarize", json!({"tone": "grumpy"}))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(-32602), "{err}");
    assert!(err.to_string().contains("grumpy"), "{err}");
    let _ = Tone::Brief; // both variants are valid values
}

#[tokio::test]
async fn elicitation_messages_interpolate_the_arguments() {
    let asked = std::sync::Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = TestClient::new(notes_server()).on_elicit(move |message, _schema| {
        seen.lock().unwrap().push(message.to_owned());
        Elicited::Accept(json!({"value": "yes"}))
    });
    client
        .call_tool("create_note", json!({"text": "milk", "tag": "todo"}))
        .await
        .unwrap();
    let r = client
        .call_tool("delete_tagged", json!({"tag": "todo"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "0 left");
    assert_eq!(
        *asked.lock().unwrap(),
        ["Delete the notes tagged todo?".to_owned()]
    );

    // A question computed by a function of the call: the note's own text.
    asked.lock().unwrap().clear();
    client
        .call_tool(
            "create_note",
            json!({"text": "Printer on fire", "tag": "ops"}),
        )
        .await
        .unwrap();
    let r = client
        .call_tool("delete_note", json!({"index": 1}))
        .await
        .unwrap();
    assert_eq!(r.text(), "0 left");
    assert_eq!(
        *asked.lock().unwrap(),
        ["Delete note #1 \"Printer on fire\"?".to_owned()]
    );
    let server = Server::builder()
        .tool(rename_tag {})
        .state(Config("on".into()))
        .build()
        .unwrap();
    asked.lock().unwrap().clear();
    let seen = asked.clone();
    let client = TestClient::new(server).on_elicit(move |message, _schema| {
        seen.lock().unwrap().push(message.to_owned());
        Elicited::Accept(json!({"value": "yes"}))
    });
    let r = client
        .call_tool("rename_tag", json!({"from": "ops", "to": "it"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "ops is now it");
    assert_eq!(
        *asked.lock().unwrap(),
        ["Rename tag ops to it (config on)?".to_owned()]
    );

    // Declined: nothing is deleted.
    let client = TestClient::new(notes_server()).on_elicit(|_, _| Elicited::Decline);
    client
        .call_tool("create_note", json!({"text": "milk", "tag": "todo"}))
        .await
        .unwrap();
    let r = client
        .call_tool("delete_tagged", json!({"tag": "todo"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "kept");
}

/// The text of a sampling request's first message.
fn first_text(params: &mcp_runtime::protocol::CreateMessageRequestParams) -> String {
    serde_json::to_value(&params.messages).unwrap()[0]["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Asks with literal braces and no argument in the text.
#[tool]
async fn braced(
    #[elicit(message = "Pick a {{label}}.")] label: Elicitation<String>,
    #[sample(prompt = "Name the {{set}} {{{{ }}}}", max_tokens = 5)] set: Sampled,
) -> String {
    format!(
        "{} {}",
        matches!(label, Elicitation::Accepted(_)),
        set.text()
    )
}

#[tokio::test]
async fn doubled_braces_are_one_brace_with_or_without_arguments() {
    let texts = std::sync::Arc::new(Mutex::new(Vec::new()));
    let (elicited, sampled) = (texts.clone(), texts.clone());
    let server = Server::builder().tool(braced {}).build().unwrap();
    let client = TestClient::new(server)
        .on_elicit(move |message, _| {
            elicited.lock().unwrap().push(message.to_owned());
            Elicited::Accept(json!({"value": "x"}))
        })
        .on_sample(move |params| {
            sampled.lock().unwrap().push(first_text(params));
            "set".to_owned()
        });
    let r = client.call_tool("braced", json!({})).await.unwrap();
    assert_eq!(r.text(), "true set");
    let mut got = texts.lock().unwrap().clone();
    got.sort();
    assert_eq!(got, ["Name the {set} {{ }}", "Pick a {label}."]);
}

#[tokio::test]
async fn sampling_prompts_interpolate_and_inputs_are_answered_by_callbacks() {
    let prompts = std::sync::Arc::new(Mutex::new(Vec::new()));
    let seen = prompts.clone();
    let client = TestClient::new(notes_server())
        .on_sample(move |params| {
            seen.lock().unwrap().push(first_text(params));
            "Groceries".to_owned()
        })
        .roots(["file:///home/notes", "file:///tmp"]);
    let r = client
        .call_tool("title", json!({"style": "short"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "Groceries (2 roots, short)");
    // An interpolated prompt is written per call (a literal one is written once per process).
    let r = client
        .call_tool("title", json!({"style": "long"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "Groceries (2 roots, long)");
    assert_eq!(
        *prompts.lock().unwrap(),
        ["Suggest a short title.", "Suggest a long title."]
    );

    // A client that cannot answer says which input it lacked.
    let client = TestClient::new(notes_server()).roots(["file:///tmp"]);
    let err = client
        .call_tool("title", json!({"style": "short"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some(-32021),
        "a required capability is missing: {err}"
    );
}

#[tokio::test]
async fn progress_and_logs_are_collected() {
    let client = TestClient::new(notes_server())
        .progress()
        .log_level(LoggingLevel::Info);
    let r = client
        .call_tool("shout", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "HI");
    let methods: Vec<String> = client
        .take_notifications()
        .iter()
        .map(|n| n["method"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/message",
            "notifications/progress"
        ]
    );
    assert!(client.take_notifications().is_empty());
}

#[tokio::test]
async fn listen_streams_deliver_changes() {
    let server = Server::builder()
        .handlers(Notes::default())
        .list_changed(true)
        .build()
        .unwrap();
    let client = TestClient::new(server.clone());
    let mut listening = client
        .listen(json!({"toolsListChanged": true}))
        .await
        .unwrap();
    let ack = listening.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert!(
        server
            .set_enabled(PrimitiveKind::Tool, "health", false)
            .unwrap()
    );
    let change = listening.next().await.unwrap();
    assert_eq!(change["method"], "notifications/tools/list_changed");
    server.shutdown();
    assert!(
        listening.next().await.is_none(),
        "the stream ends on shutdown"
    );
}

#[tokio::test]
async fn lists_and_reads_are_never_fresh_unless_declared() {
    // Through a client that caches while `ttlMs` says a result is fresh: with the defaults, a
    // read after a change sees the change.
    let client = TestClient::new(notes_server()).honour_ttl();
    assert_eq!(client.discover().await.unwrap().ttl_ms, 3_600_000);
    client
        .call_tool("create_note", json!({"text": "milk", "tag": "todo"}))
        .await
        .unwrap();
    let first = client.read_resource("notes://all").await.unwrap();
    assert_eq!((first.ttl_ms, first.cache_scope), (0, CacheScope::Private));
    client
        .call_tool("create_note", json!({"text": "eggs", "tag": "todo"}))
        .await
        .unwrap();
    let second = client.read_resource("notes://all").await.unwrap();
    assert_eq!(
        serde_json::to_value(&second.contents).unwrap()[0]["text"],
        "milk\neggs",
        "the new note is seen"
    );
    let page = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(
        (page["ttlMs"].clone(), page["cacheScope"].clone()),
        (json!(0), json!("public"))
    );

    // The same client is served a stale read when the author declares a freshness: the cache
    // (and so the check above) works.
    let server = Server::builder()
        .handlers(Notes::default())
        .cache(CacheTarget::ResourceRead, 60_000, CacheScope::Private)
        .build()
        .unwrap();
    let client = TestClient::new(server).honour_ttl();
    client
        .call_tool("create_note", json!({"text": "milk", "tag": "todo"}))
        .await
        .unwrap();
    client.read_resource("notes://all").await.unwrap();
    client
        .call_tool("create_note", json!({"text": "eggs", "tag": "todo"}))
        .await
        .unwrap();
    let stale = client.read_resource("notes://all").await.unwrap();
    assert_eq!(
        serde_json::to_value(&stale.contents).unwrap()[0]["text"],
        "milk"
    );
}

#[test]
fn missing_shared_state_fails_the_build_naming_the_primitive_and_the_type() {
    let err = Server::builder()
        .tool(config_value {})
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("config_value"), "{err}");
    assert!(err.contains("State<authoring::Config>"), "{err}");
    assert!(err.contains("ServerBuilder::state"), "{err}");
    assert!(
        Server::builder()
            .tool(config_value {})
            .state(Config("on".into()))
            .build()
            .is_ok()
    );

    // An impl block's methods need their value: from the inventory without it, the build fails.
    let err = Server::from_inventory().build().unwrap_err().to_string();
    assert!(err.contains("State<authoring::Notes>"), "{err}");
    assert!(err.contains("create_note"), "{err}");
    let server = Server::from_inventory()
        .state(Notes::default())
        .state(Config("on".into()))
        .build();
    assert!(server.is_ok(), "{:?}", server.err());
    // Registering by hand what the inventory collected already says why it is twice.
    let err = Server::from_inventory()
        .handlers(Notes::default())
        .state(Config("on".into()))
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("already collects"), "{err}");
    assert!(err.contains("Server::builder()"), "{err}");
}

#[tokio::test]
async fn errors_are_typed_and_handlers_can_be_unit_tested() {
    let client = TestClient::new(notes_server());
    let err = client.call_tool("nope", json!({})).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Rpc(e) if e.code == -32602),
        "{err}"
    );
    let r = client
        .call_tool("create_note", json!({"text": 5, "tag": "x"}))
        .await
        .unwrap();
    assert!(r.failed(), "bad arguments are a tool error: {:?}", r.text());
    // A handler called directly, outside any request.
    assert_eq!(
        shout("quiet".into(), Progress::disabled(), Logger::disabled()),
        "QUIET"
    );
    let value: Value = json!(null);
    assert!(value.is_null());
}

/// Publishes a note (needs `notes:write`).
#[tool(scopes = ["notes:write"])]
fn publish_note() -> &'static str {
    "published"
}

/// A scope a primitive requires that the resource server knows neither as a baseline scope
/// nor as a step-up one (a misspelling, most often) stops the start, naming both; known
/// either way, or with no baseline to compare with, it serves.
#[tokio::test]
async fn a_scope_the_resource_server_does_not_know_stops_the_start() {
    use mcp_runtime::HttpOptions;
    use mcp_runtime::auth::ResourceServer;
    use mcp_runtime::testing::TestIssuer;
    let audience = "http://127.0.0.1:8000/mcp";
    let issuer = TestIssuer::new("https://auth.example.com", audience);
    let start = |listed: &'static [&'static str], step_up: &'static [&'static str]| {
        let auth = ResourceServer::new(audience, issuer.issuer(), issuer.verifier())
            .unwrap()
            .scopes_supported(listed.iter().copied())
            .step_up_scopes(step_up.iter().copied());
        let server = Server::builder().tool(publish_note {}).build().unwrap();
        async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            // Started, it stops at once: the signal is already given.
            server
                .serve_until(listener, HttpOptions::default().auth(auth), async {})
                .await
        }
    };
    let refused = common::within("a refused start", start(&["notes:read"], &["notes:wrte"]))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("tool `publish_note` requires `notes:write`")
            && refused.contains("scopes_supported: notes:read")
            && refused.contains("ResourceServer::step_up_scopes"),
        "{refused}"
    );
    common::within("a start", start(&["notes:write"], &[]))
        .await
        .unwrap();
    common::within("a start", start(&["notes:read"], &["notes:write"]))
        .await
        .unwrap();
    common::within("a start", start(&[], &[])).await.unwrap();
}

/// A newtype struct deriving `Deserialize`: serde wants its newtype form, never a string.
#[derive(Debug, serde::Deserialize)]
struct Slug(#[allow(dead_code)] String);

#[test]
fn the_string_probe_tells_a_type_that_refuses_every_string() {
    // The check generated code runs at registration (the startup errors themselves are the
    // doctests of `#[prompt]` and `#[resource]`, whose binaries' inventories hold nothing else),
    // on a type that refuses strings and on ones that take them.
    use mcp_runtime::__private::string_probe;
    assert!(
        string_probe::<Slug>()
            .unwrap()
            .contains("tuple struct Slug")
    );
    assert_eq!(string_probe::<Tone>(), None);
    assert_eq!(string_probe::<String>(), None);
    assert_eq!(
        string_probe::<serde_json::Value>(),
        None,
        "a Value takes any string"
    );
}
