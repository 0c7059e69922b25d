//! The `notes` example, driven through the in-process `TestClient`: create, search, read by id
//! (and a missing id), the tags resource never served stale, a confirmation round, progress,
//! cancellation, and the prompt.

use crate::examples::notes;

use mcp_runtime::protocol::ResourceContents;
use mcp_runtime::testing::{Elicited, TestClient};
use serde_json::{Value, json};

fn text_of(contents: &[ResourceContents]) -> Value {
    let contents = serde_json::to_value(contents).expect("serializable");
    serde_json::from_str(contents[0]["text"].as_str().expect("text contents")).expect("JSON")
}

#[tokio::test]
async fn notes_are_created_searched_and_read_by_id() {
    let client = TestClient::new(notes::build().expect("the notes server builds"));
    let milk: notes::Note = client
        .call_tool_as("create_note", json!({"text": "Buy milk", "tags": ["todo"]}))
        .await
        .unwrap();
    assert_eq!(
        (milk.id, milk.tags.as_slice()),
        (1, ["todo".to_owned()].as_slice())
    );
    client
        .call_tool("create_note", json!({"text": "Milk the idea"}))
        .await
        .unwrap();
    let found: notes::Found = client
        .call_tool_as("search_notes", json!({"query": "MILK"}))
        .await
        .unwrap();
    let ids: Vec<u64> = found.notes.iter().map(|n| n.id).collect();
    assert_eq!(ids, [2, 1], "newest first");

    let read = client.read_resource("notes://1").await.unwrap();
    assert_eq!(text_of(&read.contents)["text"], "Buy milk");
    let missing = client.read_resource("notes://99").await.unwrap_err();
    assert_eq!(missing.code(), Some(-32602), "{missing}");

    let empty = client
        .call_tool("create_note", json!({"text": "  "}))
        .await
        .unwrap();
    assert!(
        empty.failed(),
        "an empty note is a tool error the model can read"
    );
    assert_eq!(empty.text(), "A note needs some text.");
}

#[tokio::test]
async fn the_tags_resource_is_never_stale() {
    // A client that keeps results while `ttlMs` says they are fresh sees every new tag.
    let client = TestClient::new(notes::build().unwrap()).honour_ttl();
    client
        .call_tool("create_note", json!({"text": "a", "tags": ["todo"]}))
        .await
        .unwrap();
    assert_eq!(
        text_of(&client.read_resource("notes://tags").await.unwrap().contents),
        json!({"todo": 1})
    );
    client
        .call_tool(
            "create_note",
            json!({"text": "b", "tags": ["todo", "idea"]}),
        )
        .await
        .unwrap();
    assert_eq!(
        text_of(&client.read_resource("notes://tags").await.unwrap().contents),
        json!({"idea": 1, "todo": 2})
    );
}

#[tokio::test]
async fn deleting_a_tag_asks_the_user_first() {
    let confirming = TestClient::new(notes::build().unwrap()).on_elicit(|message, schema| {
        assert_eq!(message, "Delete every note tagged `todo`?");
        assert_eq!(schema["required"], json!(["value"]));
        Elicited::Accept(json!({"value": "yes"}))
    });
    for text in ["a", "b"] {
        confirming
            .call_tool("create_note", json!({"text": text, "tags": ["todo"]}))
            .await
            .unwrap();
    }
    let r = confirming
        .call_tool("delete_tagged", json!({"tag": "todo"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "Deleted 2 notes tagged `todo`.");

    let declining = TestClient::new(notes::build().unwrap()).on_elicit(|_, _| Elicited::Cancel);
    declining
        .call_tool("create_note", json!({"text": "a", "tags": ["todo"]}))
        .await
        .unwrap();
    let r = declining
        .call_tool("delete_tagged", json!({"tag": "todo"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "Kept the notes tagged `todo`.");

    // A client that cannot ask its user gets the capability error, and nothing is deleted.
    let unable = TestClient::new(notes::build().unwrap());
    let err = unable
        .call_tool("delete_tagged", json!({"tag": "todo"}))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(-32021), "{err}");
}

#[tokio::test]
async fn reindexing_reports_progress() {
    let client = TestClient::new(notes::build().unwrap()).progress();
    for text in ["a", "b", "c"] {
        client
            .call_tool("create_note", json!({"text": text}))
            .await
            .unwrap();
    }
    client.take_notifications();
    let r = client.call_tool("reindex", json!({})).await.unwrap();
    assert_eq!(r.text(), "Reindexed 3 notes.");
    let progress: Vec<Value> = client
        .take_notifications()
        .into_iter()
        .map(|n| n["params"]["progress"].clone())
        .collect();
    assert_eq!(progress, [json!(1), json!(2), json!(3)]);
}

#[tokio::test]
async fn reindexing_runs_as_a_task_for_clients_that_declare_tasks() {
    let caps = serde_json::from_value(json!({
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }))
    .unwrap();
    let client = TestClient::new(notes::build().unwrap()).capabilities(caps);
    for text in ["a", "b", "c"] {
        client
            .call_tool("create_note", json!({"text": text}))
            .await
            .unwrap();
    }
    let created = client
        .request("tools/call", json!({"name": "reindex", "arguments": {}}))
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].clone();
    let done = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            let task = client
                .request("tasks/get", json!({"taskId": id}))
                .await
                .unwrap();
            if task["status"] == "completed" {
                return task;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the task completes");
    assert_eq!(done["statusMessage"], "Indexed 3 of 3 notes");
    assert_eq!(done["result"]["content"][0]["text"], "Reindexed 3 notes.");
}

#[tokio::test]
async fn the_prompt_gathers_a_tags_notes() {
    let client = TestClient::new(notes::build().unwrap());
    client
        .call_tool(
            "create_note",
            json!({"text": "ship it", "tags": ["release"]}),
        )
        .await
        .unwrap();
    let got = client
        .get_prompt(
            "summarize_tag",
            json!({"tag": "release", "tone": "detailed"}),
        )
        .await
        .unwrap();
    let messages = serde_json::to_value(&got.messages).unwrap();
    assert_eq!(
        messages[0]["content"]["text"],
        "Summarize these 1 notes tagged `release` point by point:\nship it"
    );
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "summarize_tag");
}

#[tokio::test]
async fn the_skill_of_how_to_use_the_tools_is_listed_and_readable() {
    let client = TestClient::new(notes::build().unwrap());
    let skills = client.list_skills().await.unwrap();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].uri, "skill://note-taking/SKILL.md");
    assert_eq!(skills[0].frontmatter["metadata"]["server"], "notes");
    let md = client
        .read_resource("skill://note-taking/SKILL.md")
        .await
        .unwrap();
    let text = serde_json::to_value(&md.contents[0]).unwrap()["text"].clone();
    assert!(text.as_str().unwrap().contains("search_notes"), "{text}");
    let templates = client
        .read_directory("skill://note-taking/templates")
        .await
        .unwrap();
    assert_eq!(templates[0].uri, "skill://note-taking/templates/meeting.md");
}
