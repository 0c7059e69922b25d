//! `pack` run as a user runs it, in the workspace's root: the notes example built and packed as
//! an MCP Bundle, then the archive opened and its manifest read.

mod common;

use common::text;

use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

/// The workspace's root, where the notes example is an example of the root package.
fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Runs the command line with `args` in the workspace's root, for at most `limit`.
async fn run(args: &[&str], limit: Duration) -> Output {
    common::run_in(Some(&root()), args, limit).await
}

#[tokio::test]
async fn the_notes_example_packs_into_a_bundle_claude_desktop_reads() {
    let dir = std::env::temp_dir().join(format!("cli-pack-{}", std::process::id()));
    let bundle = dir.join("notes.mcpb");
    let output = bundle.to_string_lossy().into_owned();
    // A debug build, which CI's other steps have made already; a cold one takes minutes.
    let packed = run(
        &[
            "pack",
            "--example",
            "notes",
            "--debug",
            "--author",
            "The mcp-runtime developers <dev@example.com>",
            "--display-name",
            "Notes",
            "--output",
            &output,
        ],
        Duration::from_secs(1200),
    )
    .await;
    assert!(packed.status.success(), "{}", text(&packed.stderr));
    assert!(
        text(&packed.stdout).contains("(4 tools, 1 prompts)"),
        "{}",
        text(&packed.stdout)
    );

    let mut archive = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let mut names: Vec<String> = archive
        .file_names()
        .map(|name| name.unwrap().into_owned())
        .collect();
    names.sort();
    let binary = format!("server/notes{}", std::env::consts::EXE_SUFFIX);
    assert_eq!(names, ["manifest.json", binary.as_str()]);
    let mut manifest = String::new();
    archive
        .by_name("manifest.json")
        .unwrap()
        .read_to_string(&mut manifest)
        .unwrap();
    {
        let server = archive.by_name(&binary).unwrap();
        assert!(server.size() > 0);
        if cfg!(unix) {
            let mode = server.unix_mode().expect("a Unix mode");
            assert_eq!(mode & 0o777, 0o755, "executable: {mode:o}");
        }
    }

    let manifest: Value = serde_json::from_str(&manifest).unwrap();
    assert_eq!(manifest["manifest_version"], "0.2");
    assert_eq!(manifest["name"], "notes", "the example's name");
    assert_eq!(manifest["display_name"], "Notes");
    assert_eq!(manifest["version"], "0.1.0", "the package's version");
    assert_eq!(
        manifest["description"],
        "Example servers and integration tests of the MCP server framework."
    );
    assert_eq!(
        manifest["author"],
        serde_json::json!({"name": "The mcp-runtime developers", "email": "dev@example.com"})
    );
    assert_eq!(manifest["license"], "MIT OR Apache-2.0");
    assert_eq!(manifest["server"]["type"], "binary");
    assert_eq!(manifest["server"]["entry_point"], binary);
    assert_eq!(
        manifest["server"]["mcp_config"],
        serde_json::json!({"command": format!("${{__dirname}}/{binary}"), "args": ["--stdio"]})
    );
    let platform = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    assert_eq!(
        manifest["compatibility"],
        serde_json::json!({"platforms": [platform]})
    );
    let names = |key: &str| -> Vec<String> {
        let items = manifest[key].as_array().unwrap();
        items
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names("tools"),
        ["create_note", "delete_tagged", "reindex", "search_notes"]
    );
    assert!(
        manifest["tools"][0]["description"]
            .as_str()
            .unwrap()
            .starts_with("Create a note")
    );
    assert_eq!(names("prompts"), ["summarize_tag"]);
    assert_eq!(
        manifest["prompts"][0]["arguments"],
        serde_json::json!(["tag", "tone"])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn what_pack_cannot_do_is_said_before_anything_is_built() {
    let limit = Duration::from_secs(120);
    let absent = run(&["pack", "--bin", "nope"], limit).await;
    assert_eq!(absent.status.code(), Some(1));
    assert!(
        text(&absent.stderr).contains("no package here has the bin `nope`"),
        "{}",
        text(&absent.stderr)
    );
    // The root package names no author: asked for, and nothing built.
    let anonymous = run(&["pack", "--example", "notes"], limit).await;
    assert_eq!(anonymous.status.code(), Some(1));
    let complaint = text(&anonymous.stderr);
    assert!(complaint.contains("pass `--author"), "{complaint}");
    assert!(!complaint.contains("Compiling"), "{complaint}");
    let conflicting = run(&["pack", "--example", "notes", "--binary", "x"], limit).await;
    assert_eq!(conflicting.status.code(), Some(2), "clap refuses both");
}
