//! A server's entry in Codex's `config.toml` (`[mcp_servers.NAME]`), edited in place: comments,
//! order and the other tables stay as they were.

use super::entry::{Edited, Entry};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, value};

/// The entry as Codex reads it: `command`, `args`, `env`; or `url` and
/// `bearer_token_env_var` (Codex refuses a token written inline).
fn table(entry: &Entry) -> Table {
    let mut table = Table::new();
    match entry {
        Entry::Local { command, args, env } => {
            table["command"] = value(command.as_str());
            table["args"] = value(args.iter().map(String::as_str).collect::<Array>());
            if !env.is_empty() {
                let mut vars = InlineTable::new();
                for (name, val) in env {
                    vars.insert(name, val.as_str().into());
                }
                table["env"] = value(vars);
            }
        }
        Entry::Remote { url, bearer_env } => {
            table["url"] = value(url.as_str());
            if let Some(var) = bearer_env {
                table["bearer_token_env_var"] = value(var.as_str());
            }
        }
    }
    table
}

/// The file's text with `name` set to `entry` (or removed, for `None`).
pub(crate) fn edit(old: &str, name: &str, entry: Option<&Entry>) -> Result<Edited, String> {
    let mut doc: DocumentMut = old
        .parse()
        .map_err(|e| format!("the file is not TOML: {e}"))?;
    let Some(entry) = entry else {
        let servers = doc.get_mut("mcp_servers").and_then(Item::as_table_like_mut);
        return Ok(match servers.and_then(|t| t.remove(name)) {
            Some(_) => Edited::Changed(doc.to_string()),
            None => Edited::Unchanged,
        });
    };
    let wanted = table(entry);
    if !doc.contains_key("mcp_servers") {
        let mut servers = Table::new();
        servers.set_implicit(true);
        doc["mcp_servers"] = Item::Table(servers);
    }
    let servers = doc["mcp_servers"]
        .as_table_mut()
        .ok_or("`mcp_servers` in the file is not a table")?;
    if let Some(existing) = servers.get(name).and_then(Item::as_table)
        && existing.to_string() == wanted.to_string()
    {
        return Ok(Edited::Unchanged);
    }
    servers.insert(name, Item::Table(wanted));
    Ok(Edited::Changed(doc.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_entries_keep_the_rest_of_the_file() {
        let old = "# my settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let local = Entry::Local {
            command: "/opt/notes".into(),
            args: vec!["--stdio".into()],
            env: vec![("A".into(), "1".into())],
        };
        let new = edit(old, "notes", Some(&local)).unwrap().changed();
        assert!(new.starts_with(old), "{new}");
        assert!(new.contains("[mcp_servers.notes]\ncommand = \"/opt/notes\"\nargs = [\"--stdio\"]\nenv = { A = \"1\" }\n"), "{new}");
        assert!(matches!(
            edit(&new, "notes", Some(&local)).unwrap(),
            Edited::Unchanged
        ));
        let back = edit(&new, "notes", None).unwrap().changed();
        assert_eq!(back, old);
        let remote = Entry::Remote {
            url: "https://x.example/mcp".into(),
            bearer_env: Some("X_TOKEN".into()),
        };
        let new = edit("", "x", Some(&remote)).unwrap().changed();
        assert_eq!(
            new,
            "[mcp_servers.x]\nurl = \"https://x.example/mcp\"\nbearer_token_env_var = \"X_TOKEN\"\n"
        );
    }
}
