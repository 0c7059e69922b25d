//! The Skills extension (SEP-2640): skills from a folder (`Skills::dir`) and embedded at compile
//! time (`skills!`), answering byte for byte the same; their entries, files and folders on the
//! wire; traversal attempts and broken folders refused; per-skill access on every path that
//! reveals a skill; both eras; a watched folder announcing its changes; pagination.

use crate::common;
use common::{post, spawn_http, within};
use http::StatusCode;
use mcp_runtime::auth::{AccessCheck, Denied, Purpose};
use mcp_runtime::protocol::SkillResources;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Caller, Server, Skills, skills};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The fixture folder `examples/everything` embeds.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/everything/skills")
}

fn embedded() -> Server {
    Server::builder()
        .skills(skills!("../../examples/everything/skills"))
        .build()
        .expect("the embedded skills build")
}

fn from_folder(skills: Skills) -> Server {
    Server::builder()
        .skills(skills)
        .build()
        .expect("the folder's skills build")
}

/// The raw answer of one request to `server`, as the wire carries it.
async fn raw(server: &Server, method: &str, params: Value) -> String {
    let mut params = params;
    params["_meta"] = common::meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let call = server
        .handle_message(body.to_string().as_bytes(), None)
        .expect("a request is answered");
    String::from_utf8(call.response().await.body.to_vec()).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// A scratch folder of skills, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir =
            std::env::temp_dir().join(format!("mcp-skills-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Folder(dir)
    }
    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Self {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
        self
    }
    fn skill(&self, path: &str, description: &str) -> &Self {
        let name = path.rsplit('/').next().unwrap();
        self.write(
            &format!("{path}/SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
        )
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn the_embedded_and_folder_forms_answer_byte_for_byte_the_same() {
    let (a, b) = (embedded(), from_folder(Skills::dir(fixture())));
    let client = TestClient::new(a.clone());
    let skills = client.list_skills().await.unwrap();
    assert_eq!(skills.len(), 2);
    let mut requests = vec![
        ("skills/list", json!({})),
        ("resources/list", json!({})),
        ("server/discover", json!({})),
        ("skills/get", json!({"uri": "skill://nowhere/SKILL.md"})),
    ];
    let mut dirs = vec!["skill://acme".to_owned(), "skill://acme/billing".to_owned()];
    for skill in &skills {
        requests.push(("skills/get", json!({"uri": skill.uri})));
        let SkillResources::Files(files) = &skill.resources else {
            panic!("a folder's skill lists its files")
        };
        for file in files {
            requests.push(("resources/read", json!({"uri": file.uri})));
            let mut dir = file.uri.rsplit_once('/').unwrap().0.to_owned();
            while dir.len() > "skill://".len() && !dirs.contains(&dir) {
                dirs.push(dir.clone());
                dir = dir.rsplit_once('/').unwrap().0.to_owned();
            }
        }
    }
    for dir in &dirs {
        requests.push(("resources/directory/read", json!({"uri": dir})));
    }
    for (method, params) in requests {
        let (x, y) = (
            raw(&a, method, params.clone()).await,
            raw(&b, method, params.clone()).await,
        );
        assert_eq!(x, y, "{method} {params}");
    }
}

#[tokio::test]
async fn entries_carry_the_frontmatter_as_written_and_a_manifest_that_matches_the_files() {
    let client = TestClient::new(embedded());
    let discover = client.discover().await.unwrap();
    let extensions = discover.capabilities.extensions.expect("extensions");
    assert_eq!(
        extensions["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(
        discover.capabilities.resources.is_some(),
        "skills need resources"
    );
    let skills = client.list_skills().await.unwrap();
    let refunds = &skills[0];
    assert_eq!(refunds.uri, "skill://acme/billing/refunds/SKILL.md");
    assert_eq!(
        Value::Object(refunds.frontmatter.clone()),
        json!({"name": "refunds",
            "description": "Process customer refund requests per company policy",
            "license": "Apache-2.0", "metadata": {"version": "1.2", "owner": "billing"}})
    );
    for skill in &skills {
        let SkillResources::Files(files) = &skill.resources else {
            panic!("files")
        };
        assert_eq!(files[0].uri, skill.uri, "SKILL.md first");
        let skill_dir = skill.uri.strip_suffix("/SKILL.md").unwrap();
        for file in files {
            let on_disk = fixture().join(file.uri.strip_prefix("skill://").unwrap());
            let bytes = std::fs::read(&on_disk).unwrap();
            assert_eq!(file.size, bytes.len() as u64, "{}", file.uri);
            assert_eq!(file.digest, sha256(&bytes), "{}", file.uri);
            assert!(file.uri.starts_with(&format!("{skill_dir}/")));
            let read = client.read_resource(&file.uri).await.unwrap();
            let contents = serde_json::to_value(&read.contents[0]).unwrap();
            let served = match (&contents["text"], &contents["blob"]) {
                (Value::String(text), _) => text.as_bytes().to_vec(),
                (_, Value::String(blob)) => {
                    use base64::Engine as _;
                    base64::engine::general_purpose::STANDARD
                        .decode(blob)
                        .unwrap()
                }
                _ => panic!("{contents}"),
            };
            assert_eq!(served, bytes, "{}", file.uri);
        }
        let got = client.get_skill(&skill.uri).await.unwrap();
        assert_eq!(&got.skill, skill, "skills/get answers the listed entry");
    }
    let skill_md = client
        .read_resource("skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    assert_eq!(
        skill_md.contents[0].mime_type.as_deref(),
        Some("text/markdown")
    );
    let logo = client
        .read_resource("skill://pdf-processing/assets/logo.png")
        .await
        .unwrap();
    let logo = serde_json::to_value(&logo.contents[0]).unwrap();
    assert_eq!(logo["mimeType"], "image/png");
    assert!(
        logo.get("blob").is_some(),
        "a binary file is a blob: {logo}"
    );
    // The SKILL.md resources are listed with the frontmatter's name and description.
    let listed = client.list_resources().await.unwrap();
    let md = listed
        .iter()
        .find(|r| r.uri == "skill://pdf-processing/SKILL.md")
        .unwrap();
    assert_eq!(md.name, "pdf-processing");
    assert_eq!(
        md.description.as_deref(),
        Some("Extract, fill, and assemble PDF documents")
    );
}

#[tokio::test]
async fn folders_are_directory_resources_and_files_are_not() {
    let client = TestClient::new(embedded());
    let root = client
        .read_directory("skill://pdf-processing")
        .await
        .unwrap();
    let names: Vec<(&str, Option<&str>)> = root
        .iter()
        .map(|r| (r.name.as_str(), r.mime_type.as_deref()))
        .collect();
    assert_eq!(
        names,
        [
            ("pdf-processing", Some("text/markdown")),
            ("assets", Some("inode/directory")),
            ("references", Some("inode/directory")),
            ("scripts", Some("inode/directory")),
            ("templates", Some("inode/directory")),
        ]
    );
    let templates = client
        .read_directory("skill://pdf-processing/templates")
        .await
        .unwrap();
    let uris: Vec<&str> = templates.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/templates/invoice.md",
            "skill://pdf-processing/templates/purchase-order.md",
            "skill://pdf-processing/templates/regional",
        ]
    );
    let above = client.read_directory("skill://acme").await.unwrap();
    assert_eq!(above[0].uri, "skill://acme/billing");
    for not_a_directory in [
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/templates/",
        "skill://nowhere",
        "file:///etc",
    ] {
        let e = client
            .read_directory(not_a_directory)
            .await
            .expect_err(not_a_directory);
        assert_eq!(e.code(), Some(-32602), "{not_a_directory}: {e}");
    }
    let e = client
        .read_directory("skill://pdf-processing/SKILL.md")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("read it with resources/read"), "{e}");
}

#[tokio::test]
async fn traversal_and_encoded_names_reach_nothing() {
    let client = TestClient::new(from_folder(Skills::dir(fixture())));
    for uri in [
        "skill://pdf-processing/../acme/billing/refunds/SKILL.md",
        "skill://pdf-processing/templates/../SKILL.md",
        "skill://pdf-processing/%2e%2e/%2e%2e/etc/passwd",
        "skill://pdf-processing/..%2F..%2FCargo.toml",
        "skill://pdf-processing//SKILL.md",
        "skill://pdf-processing/SKILL.md%00",
        "skill://PDF-processing/SKILL.md",
        "skill:///etc/passwd",
    ] {
        let e = client.read_resource(uri).await.expect_err(uri);
        assert_eq!(e.code(), Some(-32602), "{uri}: {e}");
        let e = client.get_skill(uri).await.expect_err(uri);
        assert_eq!(e.code(), Some(-32602), "{uri}: {e}");
    }
    // A supporting file and a folder are not skills.
    for uri in [
        "skill://pdf-processing/references/FORMS.md",
        "skill://pdf-processing",
    ] {
        let e = client.get_skill(uri).await.expect_err(uri);
        assert!(e.to_string().contains("No skill is served at"), "{e}");
    }
}

/// A case of a broken folder: its name, how the folder is broken, what the error says.
type BrokenCase = (&'static str, Box<dyn Fn(&Folder)>, &'static str);

#[tokio::test]
async fn a_broken_folder_is_a_startup_error_naming_the_file_and_the_rule() {
    let cases: Vec<BrokenCase> = vec![
        (
            "link",
            Box::new(|f: &Folder| {
                f.skill("a", "A");
                #[cfg(unix)]
                std::os::unix::fs::symlink("/etc/passwd", f.0.join("a/passwd")).unwrap();
            }),
            "a/passwd: is a symbolic link",
        ),
        (
            "files",
            Box::new(|f: &Folder| {
                f.skill("many", "Many files");
                for i in 0..512 {
                    f.write(&format!("many/f/{i:03}.txt"), "x");
                }
            }),
            "skill `many` has 513 files: a skill may have at most 512",
        ),
        (
            "bytes",
            Box::new(|f: &Folder| {
                f.skill("big", "Big");
                let md = std::fs::metadata(f.0.join("big/SKILL.md")).unwrap().len();
                f.write(
                    "big/blob.bin",
                    vec![1u8; (16 * 1024 * 1024 - md + 1) as usize],
                );
            }),
            "skill `big` holds 16777217 bytes",
        ),
        (
            "reserved",
            Box::new(|f: &Folder| {
                f.write(
                    "r/SKILL.md",
                    "---\nname: r\ndescription: R\nmetadata:\n  io.modelcontextprotocol/x: y\n---\n",
                );
            }),
            "reserved for MCP extensions",
        ),
        (
            "mismatch",
            Box::new(|f: &Folder| {
                f.write("one/SKILL.md", "---\nname: two\ndescription: x\n---\n");
            }),
            "the frontmatter names the skill `two`, but its folder is `one`",
        ),
    ];
    for (name, make, expected) in cases {
        let folder = Folder::new(name);
        make(&folder);
        let e = Server::builder()
            .skills(Skills::dir(&folder.0))
            .build()
            .expect_err(name)
            .to_string();
        assert!(e.contains(expected), "{name}: {e}");
        assert!(e.starts_with("invalid skills folder"), "{name}: {e}");
    }
    // Two sets may not share a skill name.
    let (x, y) = (Folder::new("twice-x"), Folder::new("twice-y"));
    x.skill("same", "One");
    y.skill("team/same", "Other");
    let e = Server::builder()
        .skills(Skills::dir(&x.0))
        .skills(Skills::dir(&y.0))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("two skills have this name, at `same` and at `team/same`"),
        "{e}"
    );
    // Access set for a skill the folder does not hold.
    let e = Server::builder()
        .skills(Skills::dir(&x.0).skill_scopes("missing", ["s"]))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the skill `missing`, which it does not hold"),
        "{e}"
    );
}

#[tokio::test]
async fn a_skill_the_caller_may_not_read_is_absent_and_refused_everywhere() {
    let server = from_folder(Skills::dir(fixture()).skill_scopes("refunds", ["billing:read"]));
    let anonymous = TestClient::new(server.clone());
    let names: Vec<String> = anonymous
        .list_skills()
        .await
        .unwrap()
        .iter()
        .map(|s| s.frontmatter["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["pdf-processing"]);
    let refunds = "skill://acme/billing/refunds/SKILL.md";
    for e in [
        anonymous.get_skill(refunds).await.unwrap_err(),
        anonymous
            .read_resource(refunds)
            .await
            .map(drop)
            .unwrap_err(),
        anonymous
            .read_resource("skill://acme/billing/refunds/examples/email.md")
            .await
            .map(drop)
            .unwrap_err(),
        anonymous
            .read_directory("skill://acme/billing/refunds")
            .await
            .map(drop)
            .unwrap_err(),
    ] {
        assert!(e.to_string().contains("billing:read"), "{e}");
    }
    assert!(
        anonymous
            .read_directory("skill://acme/billing")
            .await
            .unwrap()
            .is_empty(),
        "a folder above only unreadable skills shows nothing"
    );
    assert!(
        !anonymous
            .list_resources()
            .await
            .unwrap()
            .iter()
            .any(|r| r.uri.starts_with("skill://acme/")),
        "nor does resources/list"
    );
    let billing = TestClient::new(server).caller(Caller::new("ana").with_scopes(["billing:read"]));
    assert_eq!(billing.list_skills().await.unwrap().len(), 2);
    assert!(billing.get_skill(refunds).await.is_ok());
    assert_eq!(
        billing
            .read_directory("skill://acme/billing")
            .await
            .unwrap()
            .len(),
        1
    );

    // A custom check: listed to all, used by the pro tier only.
    let pro_only = AccessCheck::new(|access| async move {
        match access.caller() {
            Some(c) if c.subject == "pro" => Ok(()),
            _ if access.purpose() == Purpose::List => Ok(()),
            _ => Err(Denied::new("for the pro tier")),
        }
    });
    let server = from_folder(Skills::dir(fixture()).skill_authorize("pdf-processing", pro_only));
    let free = TestClient::new(server.clone()).caller(Caller::new("free"));
    assert_eq!(free.list_skills().await.unwrap().len(), 2);
    let e = free
        .get_skill("skill://pdf-processing/SKILL.md")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("for the pro tier"), "{e}");
    let e = free
        .read_resource("skill://pdf-processing/SKILL.md")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("for the pro tier"), "{e}");
    let pro = TestClient::new(server).caller(Caller::new("pro"));
    assert!(
        pro.get_skill("skill://pdf-processing/SKILL.md")
            .await
            .is_ok()
    );
}

/// A public skill `handbook` (with a folder `refs` of its own) holding a skill `vault`, with
/// the access `protect` gives the folder.
fn nested(name: &str, protect: impl FnOnce(Skills) -> Skills) -> (Folder, Server) {
    let folder = Folder::new(name);
    folder
        .skill("handbook", "The public handbook")
        .write("handbook/refs/rules.md", "rules")
        .skill("handbook/vault", "Secret keys")
        .write("handbook/vault/keys/key.md", "key");
    let server = from_folder(protect(Skills::dir(&folder.0)));
    (folder, server)
}

/// The secret skill nested in the public one: `vault:read` to read it.
fn secret_vault(skills: Skills) -> Skills {
    skills.skill_scopes("vault", ["vault:read"])
}

fn vault_reader() -> Caller {
    Caller::new("ana").with_scopes(["vault:read"])
}

/// The URIs of `skills/get`'s manifest of the skill `uri`.
async fn manifest(client: &TestClient, uri: &str) -> Vec<String> {
    let got = client.get_skill(uri).await.unwrap();
    let SkillResources::Files(files) = got.skill.resources else {
        panic!("a folder's skill lists its files")
    };
    files.into_iter().map(|f| f.uri).collect()
}

async fn directory(client: &TestClient, uri: &str) -> Vec<String> {
    let read = client.read_directory(uri).await.unwrap();
    read.into_iter().map(|r| r.uri).collect()
}

const HANDBOOK: &str = "skill://handbook/SKILL.md";
const VAULT: &str = "skill://handbook/vault";

#[tokio::test]
async fn a_nested_skill_the_caller_may_not_read_is_no_folder_of_its_parent() {
    let (_folder, server) = nested("nested-dir", secret_vault);
    let anonymous = TestClient::new(server.clone());
    assert_eq!(
        directory(&anonymous, "skill://handbook").await,
        [HANDBOOK, "skill://handbook/refs"]
    );
    // A cursor forged to name the hidden folder is refused as one naming nothing.
    use base64::Engine as _;
    let forged =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("directory\n{VAULT}"));
    let e = anonymous
        .request(
            "resources/directory/read",
            json!({"uri": "skill://handbook", "cursor": forged}),
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("no longer exists"), "{e}");
    // Its own folders stay refused.
    let e = anonymous.read_directory(VAULT).await.unwrap_err();
    assert!(e.to_string().contains("vault:read"), "{e}");

    let reader = TestClient::new(server).caller(vault_reader());
    assert_eq!(
        directory(&reader, "skill://handbook").await,
        [HANDBOOK, "skill://handbook/refs", VAULT]
    );
    assert_eq!(
        directory(&reader, VAULT).await,
        [
            "skill://handbook/vault/SKILL.md",
            "skill://handbook/vault/keys"
        ]
    );
}

#[tokio::test]
async fn a_nested_skill_the_caller_may_not_read_is_left_out_of_its_parents_entry() {
    let (_folder, server) = nested("nested-get", secret_vault);
    let anonymous = TestClient::new(server.clone());
    assert_eq!(
        manifest(&anonymous, HANDBOOK).await,
        [HANDBOOK, "skill://handbook/refs/rules.md"]
    );
    let got = anonymous.get_skill(HANDBOOK).await.unwrap();
    assert_eq!(
        serde_json::to_value(got.cache_scope).unwrap(),
        "private",
        "the entry depends on the caller"
    );
    let e = anonymous
        .get_skill("skill://handbook/vault/SKILL.md")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("vault:read"), "{e}");

    let reader = TestClient::new(server).caller(vault_reader());
    assert_eq!(
        manifest(&reader, HANDBOOK).await,
        [
            HANDBOOK,
            "skill://handbook/refs/rules.md",
            "skill://handbook/vault/SKILL.md",
            "skill://handbook/vault/keys/key.md",
        ]
    );
}

#[tokio::test]
async fn a_nested_skill_the_caller_may_not_read_is_left_out_of_the_list_and_its_files() {
    let (_folder, server) = nested("nested-list", secret_vault);
    let files = |skill: &mcp_runtime::protocol::Skill| match &skill.resources {
        SkillResources::Files(files) => files.iter().map(|f| f.uri.clone()).collect::<Vec<_>>(),
        _ => panic!("a folder's skill lists its files"),
    };
    let anonymous = TestClient::new(server.clone());
    let listed = anonymous.list_skills().await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        files(&listed[0]),
        [HANDBOOK, "skill://handbook/refs/rules.md"]
    );
    let resources: Vec<String> = anonymous
        .list_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert_eq!(resources, [HANDBOOK, "skill://handbook/refs/rules.md"]);
    let e = anonymous
        .read_resource("skill://handbook/vault/keys/key.md")
        .await
        .map(drop)
        .unwrap_err();
    assert!(e.to_string().contains("vault:read"), "{e}");

    let reader = TestClient::new(server).caller(vault_reader());
    let listed = reader.list_skills().await.unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(
        files(&listed[0]).len(),
        4,
        "the handbook with the vault's files"
    );
    assert_eq!(reader.list_resources().await.unwrap().len(), 4);
    assert!(
        reader
            .read_resource("skill://handbook/vault/keys/key.md")
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_nested_skills_custom_check_decides_as_in_a_list() {
    // Only `pro` may list the vault; `maybe` may list it but not use it.
    let vault_check = AccessCheck::new(|access| async move {
        match access.caller().map(|c| c.subject.as_str()) {
            Some("pro") => Ok(()),
            Some("maybe") if access.purpose() == Purpose::List => Ok(()),
            _ => Err(Denied::new("the vault is for pros")),
        }
    });
    let (_folder, server) = nested("nested-check", |s| s.skill_authorize("vault", vault_check));
    let full = [
        HANDBOOK,
        "skill://handbook/refs/rules.md",
        "skill://handbook/vault/SKILL.md",
        "skill://handbook/vault/keys/key.md",
    ];
    let free = TestClient::new(server.clone()).caller(Caller::new("free"));
    assert_eq!(manifest(&free, HANDBOOK).await, full[..2]);
    assert_eq!(
        directory(&free, "skill://handbook").await,
        [HANDBOOK, "skill://handbook/refs"]
    );
    let listed = free.list_skills().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0], free.get_skill(HANDBOOK).await.unwrap().skill);
    for caller in ["pro", "maybe"] {
        let client = TestClient::new(server.clone()).caller(Caller::new(caller));
        assert_eq!(manifest(&client, HANDBOOK).await, full, "{caller}");
        assert_eq!(
            directory(&client, "skill://handbook").await,
            [HANDBOOK, "skill://handbook/refs", VAULT],
            "{caller}"
        );
        assert_eq!(client.list_skills().await.unwrap().len(), 2, "{caller}");
    }

    // The server's own check is asked of nested skills too.
    let policy = AccessCheck::new(|access| async move {
        match access.name() {
            "vault" if access.caller().is_none() => Err(Denied::new("sign in for the vault")),
            _ => Ok(()),
        }
    });
    let folder = Folder::new("nested-policy");
    folder
        .skill("handbook", "The public handbook")
        .skill("handbook/vault", "Secret keys");
    let server = Server::builder()
        .skills(Skills::dir(&folder.0))
        .authorize(policy)
        .build()
        .unwrap();
    let anonymous = TestClient::new(server.clone());
    assert_eq!(manifest(&anonymous, HANDBOOK).await, [HANDBOOK]);
    assert_eq!(directory(&anonymous, "skill://handbook").await, [HANDBOOK]);
    let signed_in = TestClient::new(server).caller(Caller::new("ana"));
    assert_eq!(manifest(&signed_in, HANDBOOK).await.len(), 2);
    assert_eq!(directory(&signed_in, "skill://handbook").await.len(), 2);
}

#[tokio::test]
async fn no_token_is_challenged_with_the_scopes_of_a_protected_skill() {
    use mcp_runtime::HttpOptions;
    use mcp_runtime::auth::ResourceServer;
    use mcp_runtime::testing::TestIssuer;
    let (_folder, server) = nested("nested-challenge", secret_vault);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let issuer = TestIssuer::new("https://auth.example.com", url.clone());
    let rs = ResourceServer::new(&url, issuer.issuer(), issuer.verifier()).unwrap();
    let task = tokio::spawn(server.serve(listener, HttpOptions::default().auth(rs)));
    let ask = async |method: &str, uri: &str, token: Option<&str>| {
        let body = common::request(1, method, json!({"uri": uri}));
        let mut headers = common::headers_for(&body);
        if let Some(token) = token {
            headers.push(("Authorization".into(), format!("Bearer {token}")));
        }
        post(&url, &headers, body.to_string()).await
    };
    for (method, uri) in [
        ("skills/get", "skill://handbook/vault/SKILL.md"),
        ("resources/directory/read", VAULT),
        ("resources/directory/read", "skill://handbook/vault/keys"),
        ("resources/read", "skill://handbook/vault/keys/key.md"),
    ] {
        let resp = ask(method, uri, None).await;
        assert_eq!(resp.status, StatusCode::UNAUTHORIZED, "{method} {uri}");
        let challenge = resp.header("www-authenticate").unwrap();
        assert!(
            challenge.contains("scope=\"vault:read\""),
            "{method} {uri}: {challenge}"
        );
    }
    // The public skill, and the folders above skills, need no scope: no scope is named.
    for (method, uri) in [
        ("skills/get", HANDBOOK),
        ("resources/directory/read", "skill://handbook"),
    ] {
        let resp = ask(method, uri, None).await;
        assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
        let challenge = resp.header("www-authenticate").unwrap();
        assert!(!challenge.contains("scope="), "{method} {uri}: {challenge}");
    }
    // With the scope, the skill is served.
    let token = issuer.token("ana", &["vault:read"]);
    let resp = ask(
        "skills/get",
        "skill://handbook/vault/SKILL.md",
        Some(&token),
    )
    .await;
    assert_eq!(resp.status, StatusCode::OK);
    let answer = common::response_of(&resp);
    assert_eq!(
        answer["result"]["skill"]["uri"], "skill://handbook/vault/SKILL.md",
        "{answer}"
    );
    task.abort();
}

#[tokio::test]
async fn pages_never_split_an_entry_and_cursors_round_trip() {
    let server = Server::builder()
        .page_size(1)
        .skills(skills!("../../examples/everything/skills"))
        .build()
        .unwrap();
    let client = TestClient::new(server);
    let first = client.request("skills/list", json!({})).await.unwrap();
    assert_eq!(first["skills"].as_array().unwrap().len(), 1);
    assert!(first["ttlMs"].is_u64() && first["cacheScope"] == "public");
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = client
        .request("skills/list", json!({"cursor": cursor}))
        .await
        .unwrap();
    assert_eq!(
        second["skills"][0]["uri"],
        "skill://pdf-processing/SKILL.md"
    );
    assert!(second.get("nextCursor").is_none());
    assert_eq!(client.list_skills().await.unwrap().len(), 2);
    let templates = client
        .read_directory("skill://pdf-processing/templates")
        .await
        .unwrap();
    assert_eq!(templates.len(), 3, "three pages of one");
    let e = client
        .request(
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing", "cursor": "bm9wZQ"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(-32602));
}

#[tokio::test]
async fn a_2025_11_25_session_sees_the_extension_and_its_methods() {
    let http = spawn_http(embedded()).await;
    let url = format!("http://{}/mcp", http.addr);
    let headers = common::post_headers();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let resp = post(&url, &headers, init.to_string()).await;
    assert_eq!(resp.status, StatusCode::OK);
    let session = resp.header("mcp-session-id").unwrap().to_owned();
    let answer: Value = serde_json::from_slice(&resp.body).unwrap();
    let extensions = &answer["result"]["capabilities"]["extensions"];
    assert_eq!(
        extensions["io.modelcontextprotocol/skills"]["directoryRead"],
        true
    );
    let mut headers = headers;
    headers.push(("Mcp-Session-Id".into(), session));
    headers.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {}});
    let resp = post(&url, &headers, list.to_string()).await;
    let answer = resp.messages().pop().unwrap();
    assert_eq!(
        answer["result"]["skills"].as_array().unwrap().len(),
        2,
        "{answer}"
    );
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "skills/get",
        "params": {"uri": "skill://nowhere/SKILL.md"}});
    let answer = post(&url, &headers, get.to_string())
        .await
        .messages()
        .pop()
        .unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let dir = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/directory/read",
        "params": {"uri": "skill://pdf-processing/templates"}});
    let answer = post(&url, &headers, dir.to_string())
        .await
        .messages()
        .pop()
        .unwrap();
    assert_eq!(
        answer["result"]["resources"].as_array().unwrap().len(),
        3,
        "{answer}"
    );
}

#[tokio::test]
async fn a_watched_folder_serves_its_changes_and_announces_them() {
    let folder = Folder::new("watch");
    folder
        .skill("notes", "Take notes")
        .write("notes/tips.md", "first tips");
    let server = Server::builder()
        .skills(Skills::dir(&folder.0).watch(Duration::from_millis(50)))
        .build()
        .unwrap();
    let client = TestClient::new(server);
    let tips = "skill://notes/tips.md";
    let mut listen = client
        .listen(json!({
            "resourcesListChanged": true, "resourceSubscriptions": [tips]
        }))
        .await
        .unwrap();
    let ack = within("the acknowledgement", listen.next()).await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let before = client.get_skill("skill://notes/SKILL.md").await.unwrap();

    folder.write("notes/tips.md", "better tips");
    let mut heard = Vec::new();
    while heard.len() < 2 {
        let note = within("a change", listen.next()).await.unwrap();
        heard.push(note["method"].as_str().unwrap().to_owned());
    }
    assert!(
        heard.contains(&"notifications/resources/list_changed".to_owned()),
        "{heard:?}"
    );
    assert!(
        heard.contains(&"notifications/resources/updated".to_owned()),
        "{heard:?}"
    );
    let read = client.read_resource(tips).await.unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        "better tips"
    );
    let after = client.get_skill("skill://notes/SKILL.md").await.unwrap();
    assert_ne!(before.skill, after.skill, "the digest changed");

    // A change that breaks the skill keeps the last good tree.
    folder.write("notes/SKILL.md", "no frontmatter any more");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(client.list_skills().await.unwrap().len(), 1);
    assert_eq!(
        client.get_skill("skill://notes/SKILL.md").await.unwrap(),
        after
    );

    // A new skill appears.
    folder
        .skill("notes", "Take notes")
        .skill("plans", "Make plans");
    let mut found = false;
    for _ in 0..40 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if client.list_skills().await.unwrap().len() == 2 {
            found = true;
            break;
        }
    }
    assert!(found, "the new skill is served");
}

#[tokio::test]
async fn layers_see_every_skills_request_with_the_uri_it_names() {
    use mcp_runtime::layers::{Next, layer_fn};
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    let layer = layer_fn(move |request, next: Next| {
        let name = request.name().unwrap_or("-").to_owned();
        log.lock()
            .unwrap()
            .push(format!("{} {name}", request.method()));
        next.run(request)
    });
    let server = Server::builder()
        .skills(skills!("../../examples/everything/skills"))
        .layer(layer)
        .build()
        .unwrap();
    let client = TestClient::new(server);
    client.list_skills().await.unwrap();
    client
        .get_skill("skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    client
        .read_directory("skill://pdf-processing")
        .await
        .unwrap();
    client
        .read_resource("skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "skills/list -",
            "skills/get skill://pdf-processing/SKILL.md",
            "resources/directory/read skill://pdf-processing",
            "resources/read skill://pdf-processing/SKILL.md",
        ]
    );
}
