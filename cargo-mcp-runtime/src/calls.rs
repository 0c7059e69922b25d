//! `list`, `call`, `read`, `get`: one request, its arguments typed by the schema the server
//! lists, its input requests answered from flags or in the terminal, its progress shown as it
//! comes.

use crate::prompting;
use crate::values::{to_values, typed};
use mcp_runtime::client::{Client, Elicited};
use serde_json::{Map, Value, json};
use std::io::IsTerminal;
use std::process::ExitCode;

/// Which list `list` shows.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum Listed {
    Tools,
    Resources,
    Templates,
    Prompts,
    Skills,
}

/// How the server's requests for input are answered.
#[derive(clap::Args)]
pub(crate) struct Input {
    /// An answer to the server's question (elicitation), `FIELD=VALUE` (repeatable); with any,
    /// nothing is asked in the terminal.
    #[arg(long = "answer", value_name = "FIELD=VALUE")]
    answers: Vec<String>,
    /// Declines every question instead of asking.
    #[arg(long, conflicts_with = "answers")]
    decline: bool,
    /// The reply to a sampling request (otherwise typed in the terminal).
    #[arg(long, value_name = "TEXT")]
    sample: Option<String>,
    /// Shows no progress or log messages.
    #[arg(long, short = 'q')]
    quiet: bool,
}

impl Input {
    /// `client` answering as these flags say: roots are the working directory.
    pub(crate) fn configure(&self, client: Client) -> Client {
        let mut client = client;
        if let Ok(dir) = std::env::current_dir() {
            client = client.roots([format!("file://{}", dir.display())]);
        }
        if !self.quiet {
            client = client.progress().on_notification(show_notification);
        }
        let answers = self.answers.clone();
        let decline = self.decline;
        client = client.on_elicit(move |message, schema| {
            if decline {
                return Elicited::Decline;
            }
            if !answers.is_empty() {
                return match form_from_flags(&answers, schema) {
                    Ok(content) => Elicited::Accept(content),
                    Err(why) => {
                        eprintln!("error: {why}; declined");
                        Elicited::Decline
                    }
                };
            }
            if std::io::stdin().is_terminal() {
                return prompting::form(message, schema);
            }
            eprintln!(
                "the server asks: {message}\n  declined: no terminal to ask in; answer with `--answer FIELD=VALUE`"
            );
            Elicited::Decline
        });
        let sample = self.sample.clone();
        client.on_sample(move |params| match &sample {
            Some(text) => text.clone(),
            None => prompting::sample(params),
        })
    }
}

/// A progress notification as a line that rewrites itself, a log message as a line.
fn show_notification(note: &Value) {
    let params = &note["params"];
    match note["method"].as_str().unwrap_or("") {
        "notifications/progress" => {
            let done = params["progress"].as_f64().unwrap_or(0.0);
            let message = params["message"].as_str().unwrap_or("");
            match params["total"].as_f64() {
                Some(total) if total > 0.0 => {
                    let width = 30.0;
                    let filled = ((done / total).clamp(0.0, 1.0) * width) as usize;
                    eprint!(
                        "\r[{}{}] {done}/{total} {message}",
                        "#".repeat(filled),
                        " ".repeat(30 - filled)
                    );
                }
                _ => eprint!("\r{done} {message}"),
            }
            if params["total"].as_f64().is_some_and(|t| done >= t) {
                eprintln!();
            }
        }
        "notifications/message" => {
            let level = params["level"].as_str().unwrap_or("info");
            let data = match &params["data"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            eprintln!("[{level}] {data}");
        }
        _ => {}
    }
}

/// The flags' answers as the form's content, each typed by the requested schema.
fn form_from_flags(answers: &[String], schema: &Map<String, Value>) -> Result<Value, String> {
    let properties = schema.get("properties").cloned().unwrap_or(json!({}));
    let mut content = Map::new();
    for answer in answers {
        let (field, value) = answer
            .split_once('=')
            .ok_or_else(|| format!("`--answer {answer}`: write it as FIELD=VALUE"))?;
        let Some(property) = properties.get(field) else {
            let known = names(&properties);
            return Err(format!(
                "the question has no field `{field}` (its fields: {known:?})"
            ));
        };
        content.insert(field.to_owned(), typed(value, property)?);
    }
    Ok(Value::Object(content))
}

/// The names of a schema's properties.
fn names(properties: &Value) -> Vec<&String> {
    properties
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
        .collect()
}

/// `key=value` arguments typed by `schema`'s properties, or one JSON object.
fn arguments_of(what: &str, given: &[String], schema: &Value) -> Result<Value, String> {
    if let [only] = given
        && only.trim_start().starts_with('{')
    {
        return serde_json::from_str::<Value>(only)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| format!("the arguments of {what} are not a JSON object: {only}"));
    }
    let properties = &schema["properties"];
    let mut out = Map::new();
    for argument in given {
        let (key, value) = argument.split_once('=').ok_or_else(|| {
            format!(
                "`{argument}`: write each argument of {what} as KEY=VALUE (or pass one JSON object)"
            )
        })?;
        let property = match properties.get(key) {
            Some(property) => property,
            None if properties.is_object() => {
                let known = names(properties);
                return Err(format!(
                    "{what} takes no argument `{key}` (it takes {known:?})"
                ));
            }
            None => &Value::Null,
        };
        let value = typed(value, property).map_err(|e| format!("argument `{key}`: {e}"))?;
        out.insert(key.to_owned(), value);
    }
    Ok(Value::Object(out))
}

pub(crate) async fn list(client: &Client, what: Listed, as_json: bool) -> Result<(), String> {
    let err = |e: mcp_runtime::client::ClientError| e.to_string();
    let items: Vec<Value> = match what {
        Listed::Tools => to_values(client.list_tools().await.map_err(err)?),
        Listed::Resources => to_values(client.list_resources().await.map_err(err)?),
        Listed::Templates => to_values(client.list_resource_templates().await.map_err(err)?),
        Listed::Prompts => to_values(client.list_prompts().await.map_err(err)?),
        Listed::Skills => to_values(client.list_skills().await.map_err(err)?),
    };
    if as_json {
        say!(
            "{}",
            serde_json::to_string_pretty(&items).unwrap_or_default()
        );
        return Ok(());
    }
    if items.is_empty() {
        say!("(none)");
    }
    for item in &items {
        say!("{}", crate::values::one_line(item));
    }
    Ok(())
}

pub(crate) async fn call(
    client: &Client,
    name: &str,
    given: &[String],
) -> Result<ExitCode, String> {
    let tools = client.list_tools().await.map_err(|e| e.to_string())?;
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        return Err(format!(
            "the server has no tool `{name}` (it lists: {})",
            names.join(", ")
        ));
    };
    let schema = serde_json::to_value(&tool.input_schema).unwrap_or_default();
    let arguments = arguments_of(&format!("tool `{name}`"), given, &schema)?;
    let result = client
        .call_tool(name, arguments)
        .await
        .map_err(|e| e.to_string())?;
    let result = serde_json::to_value(&result).unwrap_or_default();
    match result.get("structuredContent") {
        // The text blocks are that JSON serialized (as servers send it for older clients):
        // shown once, readable.
        Some(structured) if texts_are(&result["content"], structured) => {
            say!(
                "{}",
                serde_json::to_string_pretty(structured).unwrap_or_default()
            );
        }
        Some(structured) => {
            print_content(&result["content"]);
            say!(
                "{}",
                serde_json::to_string_pretty(structured).unwrap_or_default()
            );
        }
        None => print_content(&result["content"]),
    }
    Ok(match result["isError"] == true {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    })
}

pub(crate) async fn read(client: &Client, uri: &str) -> Result<ExitCode, String> {
    let result = client.read_resource(uri).await.map_err(|e| e.to_string())?;
    let result = serde_json::to_value(&result).unwrap_or_default();
    for content in result["contents"].as_array().into_iter().flatten() {
        match (content["text"].as_str(), content["blob"].as_str()) {
            (Some(text), _) => say!("{text}"),
            (None, Some(blob)) => say!(
                "[{} bytes of {}, Base64]",
                blob.len() / 4 * 3,
                content["mimeType"].as_str().unwrap_or("binary data")
            ),
            _ => say!("{content}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) async fn get(client: &Client, name: &str, given: &[String]) -> Result<ExitCode, String> {
    let prompts = client.list_prompts().await.map_err(|e| e.to_string())?;
    let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        return Err(format!(
            "the server has no prompt `{name}` (it lists: {})",
            names.join(", ")
        ));
    };
    // A prompt's arguments are strings.
    let mut properties = Map::new();
    for argument in prompt.arguments.iter().flatten() {
        properties.insert(argument.name.clone(), json!({"type": "string"}));
    }
    let schema = json!({"properties": properties});
    let arguments = arguments_of(&format!("prompt `{name}`"), given, &schema)?;
    let result = client
        .get_prompt(name, arguments)
        .await
        .map_err(|e| e.to_string())?;
    let result = serde_json::to_value(&result).unwrap_or_default();
    for message in result["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or("?");
        say!("{role}:");
        print_content(&Value::Array(vec![message["content"].clone()]));
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether `content` is text blocks only, each `structured` serialized.
fn texts_are(content: &Value, structured: &Value) -> bool {
    let blocks = content.as_array().map(Vec::as_slice).unwrap_or_default();
    !blocks.is_empty()
        && blocks.iter().all(|b| {
            b["type"] == "text"
                && b["text"]
                    .as_str()
                    .and_then(|t| serde_json::from_str::<Value>(t).ok())
                    .as_ref()
                    == Some(structured)
        })
}

/// Content blocks as a person reads them: text as text, the rest named.
fn print_content(content: &Value) {
    for block in content.as_array().into_iter().flatten() {
        match block["type"].as_str().unwrap_or("") {
            "text" => say!("{}", block["text"].as_str().unwrap_or("")),
            "image" | "audio" => say!(
                "[{} {}, {} bytes]",
                block["type"].as_str().unwrap_or(""),
                block["mimeType"].as_str().unwrap_or(""),
                block["data"].as_str().map_or(0, |d| d.len() / 4 * 3)
            ),
            "resource_link" => say!(
                "[link: {} {}]",
                block["uri"].as_str().unwrap_or(""),
                block["name"].as_str().unwrap_or("")
            ),
            "resource" => {
                let resource = &block["resource"];
                match resource["text"].as_str() {
                    Some(text) => say!("[{}]\n{text}", resource["uri"].as_str().unwrap_or("")),
                    None => say!("[{}: binary]", resource["uri"].as_str().unwrap_or("")),
                }
            }
            _ => say!("{block}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_name_what_the_tool_takes() {
        let schema = json!({"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}});
        let args = ["a=1".to_owned(), "b=x=y".to_owned()];
        assert_eq!(
            arguments_of("tool `t`", &args, &schema),
            Ok(json!({"a": 1, "b": "x=y"}))
        );
        let wrong = arguments_of("tool `t`", &["c=1".to_owned()], &schema).unwrap_err();
        assert!(wrong.contains("takes no argument `c`"), "{wrong}");
        let json_args = arguments_of("tool `t`", &[r#"{"a": 2}"#.to_owned()], &schema);
        assert_eq!(json_args, Ok(json!({"a": 2})));
    }
}
