//! The server's requests for input, asked in the terminal: an elicitation as a form built from
//! its requested schema (one question a field), a sampling request as the conversation shown
//! and a reply typed by the person.

use mcp_runtime::client::Elicited;
use mcp_runtime::protocol::CreateMessageRequestParams;
use serde_json::{Map, Value};
use std::io::{BufRead, Write};

/// One line typed in the terminal (`None` at the end of input).
fn ask(question: &str) -> Option<String> {
    eprint!("{question}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
    }
}

/// The choices of an enum field: `(value, label)` each.
fn choices(property: &Value) -> Vec<(String, String)> {
    let plain = |values: &Value| -> Vec<(String, String)> {
        values
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|v| (v.to_owned(), v.to_owned()))
            .collect()
    };
    let titled = |options: &Value| -> Vec<(String, String)> {
        options
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| {
                let value = o["const"].as_str()?;
                Some((
                    value.to_owned(),
                    o["title"].as_str().unwrap_or(value).to_owned(),
                ))
            })
            .collect()
    };
    let items = &property["items"];
    for found in [
        titled(&property["oneOf"]),
        plain(&property["enum"]),
        titled(&items["anyOf"]),
        plain(&items["enum"]),
    ] {
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// An elicitation asked field by field; an empty answer leaves an optional field out, and the
/// end of input cancels.
pub(crate) fn form(message: &str, schema: &Map<String, Value>) -> Elicited {
    eprintln!("The server asks: {message}");
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut content = Map::new();
    for (field, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let title = property["title"].as_str().unwrap_or(field);
        let needed = required.contains(&field.as_str());
        let options = choices(property);
        if let Some(description) = property["description"].as_str() {
            eprintln!("  {description}");
        }
        for (i, (_, label)) in options.iter().enumerate() {
            eprintln!("    {}) {label}", i + 1);
        }
        loop {
            let kind = property["type"].as_str().unwrap_or("string");
            let question = format!(
                "  {title} ({kind}{}): ",
                if needed { ", required" } else { "" }
            );
            let Some(answer) = ask(&question) else {
                return Elicited::Cancel;
            };
            if answer.is_empty() {
                if needed {
                    eprintln!("  this field is required");
                    continue;
                }
                break;
            }
            // A choice by its number, or several separated by commas.
            let answer = match options.is_empty() {
                true => answer,
                false => answer
                    .split(',')
                    .map(|a| {
                        a.trim()
                            .parse::<usize>()
                            .ok()
                            .and_then(|n| options.get(n.wrapping_sub(1)))
                            .map_or_else(|| a.trim().to_owned(), |(value, _)| value.clone())
                    })
                    .collect::<Vec<_>>()
                    .join(","),
            };
            match crate::values::typed(&answer, property) {
                Ok(value) => {
                    content.insert(field.clone(), value);
                    break;
                }
                Err(why) => eprintln!("  {why}"),
            }
        }
    }
    match ask("Send these answers? [Y/n, or c to cancel] ").as_deref() {
        None | Some("c" | "C" | "cancel") => Elicited::Cancel,
        Some("n" | "N" | "no") => Elicited::Decline,
        Some(_) => Elicited::Accept(Value::Object(content)),
    }
}

/// A sampling request shown, its reply typed (an empty reply at the end of input).
pub(crate) fn sample(params: &CreateMessageRequestParams) -> String {
    eprintln!("The server asks for a model's reply to this conversation:");
    if let Some(system) = &params.system_prompt {
        eprintln!("  (system) {system}");
    }
    for message in &params.messages {
        let message = serde_json::to_value(message).unwrap_or_default();
        let role = message["role"].as_str().unwrap_or("?");
        let text = match &message["content"] {
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join(" "),
            block => block["text"].as_str().unwrap_or("[not text]").to_owned(),
        };
        eprintln!("  ({role}) {text}");
    }
    ask("Reply: ").unwrap_or_default()
}
