//! A server's entry in Goose's `config.yaml` (`extensions: NAME: …`), edited line by line so
//! that everything else stays as it was: no YAML crate edits a document in place (they
//! re-emit it whole, comments lost), so the entry's lines are found by indentation, replaced or
//! added, and the result parsed back (yaml-rust2) before it is written.
//!
//! A remote server's token stays out of the file. Goose (block/goose, now aaif-goose/goose)
//! fills a `streamable_http` extension's header values from a map it builds when the extension
//! starts (`crates/goose/src/agents/extension_manager/helpers.rs`: `merge_environments` takes
//! the entry's literal `envs`, then looks each name of `env_keys` up as a secret;
//! `substitute_env_vars` replaces `${NAME}` and `$NAME` in a value from that map only, never
//! from the process environment directly; `extension_manager/mod.rs` applies it to `uri` and
//! every header before connecting; added by goose PR #5439). The secret look-up
//! (`crates/goose/src/config/base/secrets.rs`, `get_secret`) reads the environment variable
//! named by the upper-cased key first, then the keyring (or `secrets.yaml` with the keyring
//! off). So the entry names the variable in `env_keys` and the header says `${NAME}`.

use super::entry::{Edited, Entry};
use yaml_rust2::{Yaml, YamlLoader};

/// How long Goose waits on the server (seconds), as Goose itself writes it.
const TIMEOUT: u64 = 300;

/// A YAML scalar: a JSON string is a valid double-quoted YAML scalar.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A mapping key as Goose writes it: plain when YAML reads it as that same string, quoted
/// otherwise.
fn key(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    match plain {
        true => name.to_owned(),
        false => quoted(name),
    }
}

/// The entry's lines, indented by `indent` (its name's line) and `indent` twice (its fields).
fn render(name: &str, entry: &Entry, indent: &str) -> Result<Vec<String>, String> {
    let field = format!("{indent}{indent}");
    let mut lines = vec![format!("{indent}{}:", key(name))];
    let mut push = |key: &str, value: String| lines.push(format!("{field}{key}: {value}"));
    match entry {
        Entry::Local { command, args, env } => {
            push("type", "stdio".into());
            push("name", quoted(name));
            push("description", quoted(""));
            push("cmd", quoted(command));
            let args: Vec<String> = args.iter().map(|a| quoted(a)).collect();
            push("args", format!("[{}]", args.join(", ")));
            let envs: Vec<String> = env
                .iter()
                .map(|(k, v)| format!("{}: {}", quoted(k), quoted(v)))
                .collect();
            push("envs", format!("{{{}}}", envs.join(", ")));
        }
        Entry::Remote { url, bearer_env } => {
            push("type", "streamable_http".into());
            push("name", quoted(name));
            // Goose's `streamable_http` has no default for `description`
            // (`crates/goose/src/agents/extension.rs`): an entry without one is skipped as
            // malformed when the extensions are read.
            push("description", quoted(""));
            push("uri", quoted(url));
            if let Some(var) = bearer_env {
                env_key(var)?;
                push("env_keys", format!("[{}]", quoted(var)));
                let header = format!("Bearer ${{{var}}}");
                push(
                    "headers",
                    format!("{{{}: {}}}", quoted("Authorization"), quoted(&header)),
                );
            }
        }
    }
    push("enabled", "true".into());
    push("timeout", TIMEOUT.to_string());
    Ok(lines)
}

/// `var` as a name Goose resolves: its substitution matches `[A-Za-z_][A-Za-z0-9_]*`, and its
/// secret look-up reads the environment variable of the upper-cased name, so a name with
/// lower-case letters would be read from another variable than the one named.
fn env_key(var: &str) -> Result<(), String> {
    let valid = var.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && var
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if valid {
        return Ok(());
    }
    let mut like = var
        .to_ascii_uppercase()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    if !like.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
        like.insert(0, '_');
    }
    Err(format!(
        "`--bearer-env {var}`: Goose reads the token from the environment variable of the upper-cased name and substitutes only names of capital letters, digits and `_` (not starting with a digit): name it like `{like}`"
    ))
}

/// A line's indentation, in spaces (`None` for a blank line or a comment).
fn indentation(line: &str) -> Option<usize> {
    let rest = line.trim_start_matches(' ');
    match rest.is_empty() || rest.starts_with('#') {
        true => None,
        false => Some(line.len() - rest.len()),
    }
}

/// Whether `line` (at `indent`) is the key `name`, quoted or not.
fn is_key(line: &str, indent: usize, name: &str) -> bool {
    let rest = &line[indent.min(line.len())..];
    [
        format!("{name}:"),
        format!("{}:", quoted(name)),
        format!("'{name}':"),
    ]
    .iter()
    .any(|k| rest.starts_with(k.as_str()))
}

/// The file's text with `name` set to `entry` (or removed, for `None`).
pub(crate) fn edit(old: &str, name: &str, entry: Option<&Entry>) -> Result<Edited, String> {
    let mut lines: Vec<String> = old.lines().map(str::to_owned).collect();
    let top = lines
        .iter()
        .position(|l| indentation(l) == Some(0) && is_key(l, 0, "extensions"));
    let Some(top) = top else {
        let Some(entry) = entry else {
            return Ok(Edited::Unchanged);
        };
        lines.push("extensions:".into());
        lines.extend(render(name, entry, "  ")?);
        return finish(old, lines, name, true);
    };
    if !lines[top].trim_end().ends_with(':') {
        match lines[top].trim_end().ends_with("{}") {
            true => lines[top] = "extensions:".into(),
            false => {
                return Err(
                    "`extensions` in the file is written inline: write it as a block of entries"
                        .into(),
                );
            }
        }
    }
    // The block: every line after `extensions:` until the next top-level key.
    let end = (top + 1..lines.len())
        .find(|&i| indentation(&lines[i]) == Some(0))
        .unwrap_or(lines.len());
    let child = (top + 1..end)
        .find_map(|i| indentation(&lines[i]))
        .unwrap_or(2);
    let indent = " ".repeat(child);
    let start = (top + 1..end)
        .find(|&i| indentation(&lines[i]) == Some(child) && is_key(&lines[i], child, name));
    let (from, to) = match start {
        Some(from) => {
            let to = (from + 1..end)
                .find(|&i| indentation(&lines[i]).is_some_and(|n| n <= child))
                .unwrap_or(end);
            // Trailing blank lines and comments belong to what follows.
            let to = (from + 1..to)
                .rev()
                .find(|&i| indentation(&lines[i]).is_some())
                .map_or(from + 1, |i| i + 1);
            (from, to)
        }
        None => {
            // After the block's last line that is not blank.
            let at = (top + 1..end)
                .rev()
                .find(|&i| indentation(&lines[i]).is_some())
                .map_or(top + 1, |i| i + 1);
            (at, at)
        }
    };
    let replacement = match entry {
        Some(entry) => render(name, entry, &indent)?,
        None if start.is_none() => return Ok(Edited::Unchanged),
        None => Vec::new(),
    };
    if lines[from..to] == replacement[..] {
        return Ok(Edited::Unchanged);
    }
    lines.splice(from..to, replacement);
    finish(old, lines, name, entry.is_some())
}

/// The new text, parsed back: refused unless it is YAML whose `extensions` holds the entry (or
/// no longer does).
fn finish(old: &str, lines: Vec<String>, name: &str, present: bool) -> Result<Edited, String> {
    let mut text = lines.join("\n");
    if old.is_empty() || old.ends_with('\n') {
        text.push('\n');
    }
    let docs = YamlLoader::load_from_str(&text)
        .map_err(|e| format!("the edit would leave the file unreadable ({e}): nothing written"))?;
    let root = docs.first().cloned().unwrap_or(Yaml::Null);
    let found = !root["extensions"][name].is_badvalue();
    if found != present {
        return Err(
            "the file's layout is not one this command edits safely: nothing written".into(),
        );
    }
    Ok(Edited::Changed(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> Entry {
        Entry::Local {
            command: "/opt/notes".into(),
            args: vec!["--stdio".into()],
            env: vec![("NOTES_DIR".into(), "/srv/notes".into())],
        }
    }

    #[test]
    fn an_entry_joins_the_others_and_leaves_them_as_they_were() {
        let old = "GOOSE_PROVIDER: openai  # mine\nextensions:\n  developer:\n    bundled: true\n    enabled: true\n    type: builtin\n\n  # a note\nGOOSE_MODEL: gpt-4o\n";
        let new = edit(old, "notes", Some(&local())).unwrap().changed();
        assert!(new.starts_with("GOOSE_PROVIDER: openai  # mine\nextensions:\n  developer:\n    bundled: true\n    enabled: true\n    type: builtin\n  notes:\n    type: stdio\n"), "{new}");
        assert!(
            new.ends_with("    timeout: 300\n\n  # a note\nGOOSE_MODEL: gpt-4o\n"),
            "{new}"
        );
        let parsed = &YamlLoader::load_from_str(&new).unwrap()[0];
        assert_eq!(
            parsed["extensions"]["notes"]["cmd"].as_str(),
            Some("/opt/notes")
        );
        assert_eq!(
            parsed["extensions"]["notes"]["envs"]["NOTES_DIR"].as_str(),
            Some("/srv/notes")
        );
        assert!(matches!(
            edit(&new, "notes", Some(&local())).unwrap(),
            Edited::Unchanged
        ));
        assert_eq!(edit(&new, "notes", None).unwrap().changed(), old);
    }

    #[test]
    fn a_file_without_extensions_gets_the_block() {
        let new = edit("GOOSE_MODEL: x\n", "notes", Some(&local()))
            .unwrap()
            .changed();
        assert!(
            new.starts_with("GOOSE_MODEL: x\nextensions:\n  notes:\n"),
            "{new}"
        );
        let odd = edit("", "yes", Some(&local())).unwrap().changed();
        assert!(odd.contains("  \"yes\":\n"), "{odd}");
        let remote = Entry::Remote {
            url: "https://n.example/mcp".into(),
            bearer_env: None,
        };
        let new = edit("extensions: {}\n", "notes", Some(&remote))
            .unwrap()
            .changed();
        let parsed = &YamlLoader::load_from_str(&new).unwrap()[0];
        assert_eq!(
            parsed["extensions"]["notes"]["type"].as_str(),
            Some("streamable_http")
        );
        assert_eq!(
            parsed["extensions"]["notes"]["description"].as_str(),
            Some("")
        );
        assert!(parsed["extensions"]["notes"]["headers"].is_badvalue());
    }

    #[test]
    fn a_remote_token_is_named_in_env_keys_and_referenced_in_the_header() {
        let old = "GOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n";
        let token = |var: &str| Entry::Remote {
            url: "https://n.example/mcp".into(),
            bearer_env: Some(var.into()),
        };
        let new = edit(old, "notes", Some(&token("NOTES_TOKEN")))
            .unwrap()
            .changed();
        assert!(new.starts_with(old), "{new}");
        assert!(
            new.ends_with("    uri: \"https://n.example/mcp\"\n    env_keys: [\"NOTES_TOKEN\"]\n    headers: {\"Authorization\": \"Bearer ${NOTES_TOKEN}\"}\n    enabled: true\n    timeout: 300\n"),
            "{new}"
        );
        let entry = &YamlLoader::load_from_str(&new).unwrap()[0]["extensions"]["notes"];
        assert_eq!(entry["type"].as_str(), Some("streamable_http"));
        assert_eq!(entry["env_keys"][0].as_str(), Some("NOTES_TOKEN"));
        assert_eq!(
            entry["headers"]["Authorization"].as_str(),
            Some("Bearer ${NOTES_TOKEN}")
        );
        assert!(matches!(
            edit(&new, "notes", Some(&token("NOTES_TOKEN"))).unwrap(),
            Edited::Unchanged
        ));
        // Another variable replaces the reference; removing gives the file back.
        let other = edit(&new, "notes", Some(&token("OTHER_TOKEN")))
            .unwrap()
            .changed();
        assert!(other.contains("${OTHER_TOKEN}") && !other.contains("NOTES_TOKEN"));
        assert_eq!(edit(&other, "notes", None).unwrap().changed(), old);
        // A name Goose would read from another variable, or not substitute: refused.
        for var in ["notes_token", "NOTES-TOKEN", "1TOKEN"] {
            let refused = edit(old, "notes", Some(&token(var))).unwrap_err();
            assert!(refused.contains("upper-cased"), "{refused}");
        }
    }
}
