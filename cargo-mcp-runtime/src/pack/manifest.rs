//! The bundle's `manifest.json` (MCPB manifest version 0.2), from the crate's metadata, the
//! flags that override it, and what the server lists.

use super::package::Package;
use mcp_runtime::protocol::{PromptInfo, ToolInfo};
use serde::Serialize;
use serde_json::Value;

/// The manifest version written: mcpb's default for new bundles (what `mcpb init` writes);
/// it calls 0.3 a work in progress and 0.4 experimental (icons, localization, `uv` servers:
/// nothing a binary server needs).
const MANIFEST_VERSION: &str = "0.2";

/// The manifest's details that flags set instead of the crate.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct Overrides {
    /// The bundle's name (the package's name, or the example's, unless set).
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// The name Claude Desktop shows (the bundle's name unless set).
    #[arg(long, value_name = "NAME")]
    pub(crate) display_name: Option<String>,
    /// What the server does (the package's description unless set).
    #[arg(long, value_name = "TEXT")]
    pub(crate) description: Option<String>,
    /// The author, `Name <email>` (the package's first author unless set).
    #[arg(long, value_name = "NAME <EMAIL>")]
    pub(crate) author: Option<String>,
}

/// What the server lists, as the manifest shows it.
#[derive(Debug, Default)]
pub(crate) struct Listed {
    pub(crate) tools: Vec<Tool>,
    pub(crate) prompts: Vec<Prompt>,
}

impl Listed {
    /// The lists' items, with what the manifest shows of each.
    pub(crate) fn new(tools: Vec<ToolInfo>, prompts: Vec<PromptInfo>) -> Listed {
        let tools = tools
            .into_iter()
            .map(|t| Tool {
                name: t.name,
                description: t.description,
            })
            .collect();
        let prompts = prompts
            .into_iter()
            .map(|p| {
                let arguments: Vec<String> =
                    p.arguments.into_iter().flatten().map(|a| a.name).collect();
                // The schema requires a text; the server renders the real one when asked.
                let text = p
                    .description
                    .clone()
                    .or(p.title)
                    .unwrap_or_else(|| p.name.clone());
                Prompt {
                    name: p.name,
                    description: p.description,
                    arguments,
                    text,
                }
            })
            .collect();
        Listed { tools, prompts }
    }
}

/// A tool in the manifest.
#[derive(Debug, Serialize)]
pub(crate) struct Tool {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

/// A prompt in the manifest: its arguments' names, and its description as its text.
#[derive(Debug, Serialize)]
pub(crate) struct Prompt {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    arguments: Vec<String>,
    text: String,
}

/// `manifest.json`, its fields in the order the MCPB documentation shows them.
#[derive(Debug, Serialize)]
pub(crate) struct Manifest {
    manifest_version: &'static str,
    pub(crate) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    display_name: Option<String>,
    pub(crate) version: String,
    description: String,
    author: Author,
    #[serde(skip_serializing_if = "Option::is_none")]
    repository: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    homepage: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    documentation: Option<String>,
    server: Server,
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    keywords: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    license: Option<String>,
    compatibility: Value,
}

/// The manifest's author.
#[derive(Debug, Serialize)]
pub(crate) struct Author {
    pub(crate) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) email: Option<String>,
}

/// How the host starts the server.
#[derive(Debug, Default, Serialize)]
struct Server {
    r#type: &'static str,
    entry_point: String,
    mcp_config: McpConfig,
}

/// The server's command line, `${__dirname}` being where the bundle was unpacked.
#[derive(Debug, Default, Serialize)]
struct McpConfig {
    command: String,
    args: Vec<String>,
}

impl Manifest {
    /// The manifest's details, from the package and the flags, for a bundle run on
    /// `platform`: its server is set by [`Manifest::serve`].
    pub(crate) fn new(
        package: &Package,
        overrides: &Overrides,
        platform: &str,
    ) -> Result<Manifest, String> {
        let description = overrides.description.clone().or(package.description.clone()).ok_or(
            "the package has no `description` in its Cargo.toml: add one, or pass `--description TEXT`",
        )?;
        let author = overrides.author.clone().or(package.authors.first().cloned()).ok_or(
            "the package has no `authors` in its Cargo.toml: add one, or pass `--author 'Name <email>'`",
        )?;
        let url = |link: &Option<String>| {
            link.clone()
                .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
        };
        Ok(Manifest {
            manifest_version: MANIFEST_VERSION,
            name: overrides
                .name
                .clone()
                .unwrap_or_else(|| package.name.clone()),
            display_name: overrides.display_name.clone(),
            version: package.version.clone(),
            description,
            author: author_of(&author),
            repository: url(&package.repository)
                .map(|url| serde_json::json!({"type": "git", "url": url})),
            homepage: url(&package.homepage),
            documentation: url(&package.documentation),
            server: Server::default(),
            tools: Vec::new(),
            prompts: Vec::new(),
            keywords: package.keywords.clone(),
            license: package.license.clone(),
            compatibility: serde_json::json!({"platforms": [platform]}),
        })
    }

    /// The server: the binary `file` under `server/`, started with `args`, listing `listed`.
    pub(crate) fn serve(&mut self, file: &str, args: &[String], listed: Listed) {
        self.server = Server {
            r#type: "binary",
            entry_point: format!("server/{file}"),
            mcp_config: McpConfig {
                command: format!("${{__dirname}}/server/{file}"),
                args: args.to_vec(),
            },
        };
        self.tools = listed.tools;
        self.prompts = listed.prompts;
    }
}

/// An author as the manifest takes it: `Name <email>` split (an address that is not one is
/// left out, the schema refusing it).
pub(crate) fn author_of(author: &str) -> Author {
    let (name, email) = match author.split_once('<') {
        Some((name, rest)) => (name.trim(), rest.trim_end().trim_end_matches('>').trim()),
        None => (author.trim(), ""),
    };
    let looks_like_email = email.split_once('@').is_some_and(|(user, domain)| {
        !user.is_empty() && domain.contains('.') && !email.contains(' ')
    });
    Author {
        name: name.to_owned(),
        email: looks_like_email.then(|| email.to_owned()),
    }
}
