//! A server's entry set in (or removed from) a JSON host file, in place: the file is edited as
//! a concrete syntax tree, so its comments (VS Code's files are JSONC), order, spacing and every
//! other entry stay byte for byte.

use super::entry::{Edited, Entry};
use super::hosts::{Host, Scope};
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::Value;

/// `value` as the syntax tree takes it.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// The object at `keys` under `from`: made when `create`, else `None` when absent.
fn object_at(from: CstObject, keys: &[String], create: bool) -> Result<Option<CstObject>, String> {
    let mut at = from;
    for key in keys {
        at = match create {
            true => at
                .object_value_or_create(key)
                .ok_or_else(|| format!("`{key}` in the file is not an object"))?,
            false => match at.get(key) {
                None => return Ok(None),
                Some(prop) => prop
                    .object_value()
                    .ok_or_else(|| format!("`{key}` in the file is not an object"))?,
            },
        };
    }
    Ok(Some(at))
}

/// The file's text with `name` set to `entry` (or removed, for `None`).
pub(crate) fn edit(
    host: Host,
    scope: Scope,
    old: &str,
    name: &str,
    entry: Option<&Entry>,
) -> Result<Edited, String> {
    let text = match old.trim().is_empty() {
        true => "{}\n",
        false => old,
    };
    let root = CstRootNode::parse(text, &ParseOptions::default())
        .map_err(|e| format!("the file is not JSON: {e}"))?;
    let top = root
        .object_value_or_create()
        .ok_or("the file's top level is not an object")?;
    let keys = host.servers_key(scope)?;
    let Some(entry) = entry else {
        let Some(servers) = object_at(top.clone(), &keys, false)? else {
            return Ok(Edited::Unchanged);
        };
        let Some(prop) = servers.get(name) else {
            return Ok(Edited::Unchanged);
        };
        prop.remove();
        if host == Host::Vscode && remove_input(&top, &format!("{name}-token")) {
            // The `inputs` an install added goes with its last input.
            if let Some(inputs) = top.get("inputs")
                && top
                    .array_value("inputs")
                    .is_some_and(|a| a.elements().is_empty())
            {
                inputs.remove();
            }
        }
        return Ok(Edited::Changed(root.to_string()));
    };
    let (fields, prompt) = host.json_entry(name, entry)?;
    let value = Value::Object(fields.iter().cloned().collect());
    let ordered =
        CstInputValue::Object(fields.iter().map(|(k, v)| (k.clone(), input(v))).collect());
    let servers = object_at(top.clone(), &keys, true)?.ok_or("no servers object")?;
    let same = servers
        .get(name)
        .and_then(|p| p.value())
        .and_then(|v| v.to_serde_value())
        .is_some_and(|v| v == value);
    let prompt_kept = prompt.as_ref().is_none_or(|p| has_input(&top, p));
    if same && prompt_kept {
        return Ok(Edited::Unchanged);
    }
    match servers.get(name) {
        Some(prop) => prop.set_value(ordered),
        None => {
            servers.append(name, ordered);
        }
    }
    if let Some(prompt) = prompt {
        let id = prompt["id"].as_str().unwrap_or_default().to_owned();
        remove_input(&top, &id);
        let inputs = top
            .array_value_or_create("inputs")
            .ok_or("`inputs` in the file is not an array")?;
        inputs.append(input(&prompt));
    }
    Ok(Edited::Changed(root.to_string()))
}

/// Whether VS Code's `inputs` holds `prompt` as it is.
fn has_input(top: &CstObject, prompt: &Value) -> bool {
    let Some(inputs) = top.array_value("inputs") else {
        return false;
    };
    inputs
        .elements()
        .iter()
        .any(|e| e.to_serde_value().as_ref() == Some(prompt))
}

/// Takes VS Code's input `id` out of `inputs`; whether it was there.
fn remove_input(top: &CstObject, id: &str) -> bool {
    let Some(inputs) = top.array_value("inputs") else {
        return false;
    };
    let mut removed = false;
    for element in inputs.elements() {
        if element.to_serde_value().is_some_and(|v| v["id"] == id) {
            element.remove();
            removed = true;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> Entry {
        Entry::Local {
            command: "/opt/notes/bin/notes".into(),
            args: vec!["--stdio".into()],
            env: vec![("NOTES_DIR".into(), "/srv/notes".into())],
        }
    }

    #[test]
    fn other_entries_and_comments_stay_byte_for_byte() {
        let old = "{\n    // my servers\n    \"mcpServers\": {\n        \"other\": { \"command\": \"x\" }\n    },\n    \"theme\": \"dark\"\n}\n";
        let new = edit(Host::Cursor, Scope::User, old, "notes", Some(&local()))
            .unwrap()
            .changed();
        assert!(new.starts_with("{\n    // my servers\n    \"mcpServers\": {\n        \"other\": { \"command\": \"x\" },"), "{new}");
        assert!(new.ends_with("    \"theme\": \"dark\"\n}\n"), "{new}");
        let parsed: Value = serde_json::from_str(&new.replace("// my servers", "")).unwrap();
        assert_eq!(
            parsed["mcpServers"]["notes"]["env"]["NOTES_DIR"],
            "/srv/notes"
        );
        // A second run changes nothing; removing gives the file back as it was.
        assert!(matches!(
            edit(Host::Cursor, Scope::User, &new, "notes", Some(&local())).unwrap(),
            Edited::Unchanged
        ));
        let removed = edit(Host::Cursor, Scope::User, &new, "notes", None)
            .unwrap()
            .changed();
        assert_eq!(removed, old);
    }

    #[test]
    fn each_host_gets_its_own_shape() {
        let remote = Entry::Remote {
            url: "https://notes.example.com/mcp".into(),
            bearer_env: Some("NOTES_TOKEN".into()),
        };
        let shape = |host: Host| -> Value {
            let text = edit(host, Scope::Project, "", "notes", Some(&remote))
                .unwrap()
                .changed();
            serde_json::from_str(&text).unwrap()
        };
        let code = shape(Host::ClaudeCode);
        assert_eq!(code["mcpServers"]["notes"]["type"], "http");
        assert_eq!(
            code["mcpServers"]["notes"]["headers"]["Authorization"],
            "Bearer ${NOTES_TOKEN}"
        );
        let gemini = shape(Host::Gemini);
        assert_eq!(
            gemini["mcpServers"]["notes"]["httpUrl"],
            "https://notes.example.com/mcp"
        );
        let cursor = shape(Host::Cursor);
        assert_eq!(
            cursor["mcpServers"]["notes"]["headers"]["Authorization"],
            "Bearer ${env:NOTES_TOKEN}"
        );
        let vscode = shape(Host::Vscode);
        assert_eq!(
            vscode["servers"]["notes"]["headers"]["Authorization"],
            "Bearer ${input:notes-token}"
        );
        assert_eq!(vscode["inputs"][0]["password"], true);
        let refused = edit(Host::ClaudeDesktop, Scope::User, "", "notes", Some(&remote));
        assert!(refused.err().unwrap().contains("Connectors"));
        // No token is ever written: only where the host finds it.
        for host in [
            Host::ClaudeCode,
            Host::Gemini,
            Host::Cursor,
            Host::Vscode,
            Host::McpJson,
        ] {
            assert!(!shape(host).to_string().contains("secret"));
        }
    }

    #[test]
    fn a_file_that_is_not_an_object_is_left_alone() {
        let refused = edit(Host::Cursor, Scope::User, "[1, 2]", "notes", Some(&local()));
        assert!(refused.err().unwrap().contains("not an object"));
        let refused = edit(
            Host::Cursor,
            Scope::User,
            "{\"mcpServers\": 3}",
            "notes",
            Some(&local()),
        );
        assert!(refused.err().unwrap().contains("`mcpServers`"));
    }
}
