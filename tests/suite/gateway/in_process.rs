//! Servers of this crate mounted in process: names and links under a prefix, collisions, a
//! mount's own scopes, its tasks and its skills.

use super::common::within;
use super::support::*;
use mcp_runtime::client::Client;
use mcp_runtime::proxy::{Mount, Uris};
use mcp_runtime::testing::{Elicited, TestClient};
use mcp_runtime::{Caller, NoArguments, Server, Tool};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn an_in_process_mount_is_served_under_its_prefix() {
    let client = TestClient::new(front(Mount::from(notes("notes")).uris(Uris::Prefix)))
        .on_elicit(|_, _| Elicited::Accept(json!({"value": "yes"})))
        .progress();
    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        ["ping", "kb_search", "kb_confirm", "kb_count"],
        "purge needs a scope"
    );
    let tools = client.list_tools().await.unwrap();
    let search = tools.iter().find(|t| t.name == "kb_search").unwrap();
    assert_eq!(
        search.meta.as_ref().unwrap()["ui"]["resourceUri"],
        "ui://kb/search/view.html",
        "the link follows the view"
    );
    let view = client
        .read_resource("ui://kb/search/view.html")
        .await
        .unwrap();
    assert_eq!(view.contents[0].uri, "ui://kb/search/view.html");
    let found = client
        .call_tool("kb_search", json!({"query": "milk"}))
        .await
        .unwrap();
    assert_eq!(found.text(), "found milk");
    let bad = client
        .call_tool("kb_search", json!({"query": 3}))
        .await
        .unwrap();
    assert_eq!(
        bad.is_error,
        Some(true),
        "the front checks the backend's schema"
    );

    let done = client.call_tool("kb_confirm", json!({})).await.unwrap();
    assert_eq!(
        done.text(),
        "deleted (yes, Some(7))",
        "the mounted server's state came back"
    );

    client.take_notifications();
    client.call_tool("kb_count", json!({})).await.unwrap();
    let progress: Vec<f64> = client
        .take_notifications()
        .into_iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| n["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);

    let today = client.read_resource("notes://kb/today").await.unwrap();
    assert_eq!(today.contents[0].uri, "notes://kb/today");
    let topic = client
        .read_resource("notes://kb/topics/rust")
        .await
        .unwrap();
    assert!(format!("{:?}", topic.contents[0].body).contains("notes on rust"));
    let prompt = client
        .get_prompt("kb_greet", json!({"name": "Ada"}))
        .await
        .unwrap();
    assert!(format!("{:?}", prompt.messages[0]).contains("Say hello to Ada."));
    let discovered = client.request("server/discover", json!({})).await.unwrap();
    assert_eq!(
        discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "front"
    );
}

#[tokio::test]
async fn a_mount_keeps_its_own_scopes() {
    let server = front(Mount::from(notes("notes")));
    let anonymous = TestClient::new(server.clone());
    let refused = anonymous
        .call_tool("kb_purge", json!({}))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some(-32602), "{refused}");
    let writer = TestClient::new(server).caller(Caller::new("ada").with_scopes(["notes:write"]));
    let names: Vec<String> = writer
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(names.contains(&"kb_purge".to_owned()), "{names:?}");
    assert_eq!(
        writer
            .call_tool("kb_purge", json!({}))
            .await
            .unwrap()
            .text(),
        "purged"
    );
}

#[test]
fn a_name_taken_twice_names_both_origins() {
    let err = Server::builder()
        .tool(Tool::new("search").handler(|_: NoArguments, _cx| async { "mine" }))
        .mount("", notes("notes"))
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("`search`"), "{err}");
    assert!(err.contains("registered on this server"), "{err}");
    assert!(err.contains("mounted from `notes`"), "{err}");
    let err = Server::builder()
        .mount("", notes("a"))
        .mount("", Mount::from(notes("b")).uris(Uris::Prefix))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("mounted from `a`") && err.contains("mounted from `b`"),
        "{err}"
    );
    let err = Server::builder()
        .mount("a.b", notes("n"))
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("mount prefix"), "{err}");
}

#[tokio::test]
async fn a_task_tool_of_an_in_process_mount_is_a_task_of_the_front() {
    let backend = Server::builder()
        .tool(
            Tool::new("reindex")
                .task(mcp_runtime::TaskSupport::Required)
                .handler(|_: NoArguments, _cx| async {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    "reindexed"
                }),
        )
        .build()
        .unwrap();
    let client = TestClient::new(Server::builder().mount("kb", backend).build().unwrap());
    let created = client
        .call_tool_as_task("kb_reindex", json!({}))
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    let done = within("the task", async {
        loop {
            let task = client.get_task(&id).await.unwrap();
            if task["status"] == "completed" {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert_eq!(done["result"]["content"][0]["text"], "reindexed", "{done}");
}

#[tokio::test]
async fn a_mounts_skills_are_served_as_its_own() {
    let root = std::env::temp_dir().join(format!("mcp-gateway-skills-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("notes/templates")).unwrap();
    std::fs::write(
        root.join("notes/SKILL.md"),
        "---\nname: notes\ndescription: How to keep notes.\n---\nUse the tools.\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/templates/day.md"), "# Today\n").unwrap();
    let backend = || {
        Server::builder()
            .skills(mcp_runtime::Skills::dir(&root))
            .build()
            .unwrap()
    };
    let direct = TestClient::new(backend());
    let (addr, _stop, _) = serve(backend(), None).await;
    let remote = Server::builder()
        .mount("kb", Client::http(url(addr)).connect().unwrap())
        .build()
        .unwrap();
    remote.refresh_mounts().await;
    for (how, front) in [
        ("remote", remote),
        (
            "in process",
            Server::builder().mount("kb", backend()).build().unwrap(),
        ),
    ] {
        let client = TestClient::new(front);
        let listed = client.list_skills().await.unwrap();
        assert_eq!(listed, direct.list_skills().await.unwrap(), "{how}");
        let uri = "skill://notes/SKILL.md";
        assert_eq!(
            client.get_skill(uri).await.unwrap(),
            direct.get_skill(uri).await.unwrap(),
            "{how}"
        );
        let day = "skill://notes/templates/day.md";
        assert_eq!(
            client.read_resource(day).await.unwrap().contents,
            direct.read_resource(day).await.unwrap().contents,
            "{how}"
        );
        assert_eq!(
            client
                .read_directory("skill://notes/templates")
                .await
                .unwrap(),
            direct
                .read_directory("skill://notes/templates")
                .await
                .unwrap(),
            "{how}"
        );
    }
    let prefixed = Server::builder()
        .mount("kb", Mount::from(backend()).uris(Uris::Prefix))
        .build()
        .unwrap();
    let skills = TestClient::new(prefixed).list_skills().await.unwrap();
    assert_eq!(skills[0].uri, "skill://kb/notes/SKILL.md");
    let _ = std::fs::remove_dir_all(&root);
}
