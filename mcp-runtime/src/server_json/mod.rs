//! `server.json`, the MCP Registry's description of a server: [`ServerJson`] and
//! [`Server::server_json`]; the checks of each field the registry validates are in `fields`.

mod fields;

pub use fields::ServerJsonError;

use crate::error::Error;
use crate::server::Server;
#[cfg(feature = "server-card")]
use crate::transport::http::{SERVER_CARD_SCHEMA, ServerCard};
use fields::{
    DESCRIPTION_MAX, TITLE_MAX, cargo_package, check_https, check_name, check_remote, check_text,
    check_version, icon, repository,
};
use serde_json::{Map, Value, json};

/// The `$schema` of every `server.json` [`Server::server_json`] writes: the MCP Registry's
/// `server.json` schema, release 2025-12-11.
pub const SERVER_JSON_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// What the MCP Registry should say about a server, beyond what the server says of itself: its
/// registry name, and where it is found (a crate that runs it on stdio, URLs that serve it).
/// [`Server::server_json`] writes it out as `server.json` with the server's own version,
/// description and title, after checking it against the registry's rules.
///
/// - `name`: reverse-DNS, `NAMESPACE/NAME`: `io.github.OWNER/NAME` for a GitHub login,
///   `com.example/NAME` for a domain you prove with DNS.
/// - `version`: the server's (`serverInfo.version`).
/// - `description` (100 characters at most): [`description`](ServerJson::description), else
///   `serverInfo.description`, else the server's instructions.
/// - `title`: [`title`](ServerJson::title), else `serverInfo.title`.
/// - `websiteUrl`: [`website_url`](ServerJson::website_url), else `serverInfo.websiteUrl`
///   (`https` only).
/// - `icons`: those of `serverInfo.icons` the registry takes (`https`, its MIME types, sizes
///   and themes); the others are left out.
/// - `packages`: one per [`cargo_crate`](ServerJson::cargo_crate), run on stdio: the crate's
///   binary started with `--stdio`, which [`Server::run`] reads.
/// - `remotes`: one Streamable HTTP endpoint per [`remote`](ServerJson::remote).
///
/// ```
/// use mcp_runtime::{Server, ServerJson};
///
/// let server = Server::builder()
///     .name("weather")
///     .version("0.3.0")
///     .instructions("Forecasts and weather alerts for any city.")
///     .build()
///     .unwrap();
/// let entry = ServerJson::new("io.github.owner/weather")
///     .cargo_crate("weather-mcp") // at the server's version, 0.3.0
///     .remote("https://weather.example.com/mcp");
/// let json = server.server_json(&entry).unwrap();
/// assert_eq!(json["name"], "io.github.owner/weather");
/// assert_eq!(json["description"], "Forecasts and weather alerts for any city.");
/// assert_eq!(json["packages"][0]["registryType"], "cargo");
/// assert_eq!(json["packages"][0]["version"], "0.3.0");
/// assert_eq!(json["packages"][0]["transport"]["type"], "stdio");
/// assert_eq!(json["remotes"][0]["type"], "streamable-http");
/// // The line the crate's README shows, in plain text (crates.io drops HTML comments), so that
/// // the registry can tell the crate is yours.
/// assert_eq!(entry.mcp_name_line(), "mcp-name: io.github.owner/weather");
///
/// let wrong = server.server_json(&ServerJson::new("weather")).unwrap_err();
/// assert_eq!(wrong.field(), "name");
/// assert!(wrong.to_string().contains("NAMESPACE/NAME"), "{wrong}");
/// ```
///
/// A program that serves with [`Server::run`] prints it with `--server-json` (see
/// [`ServerJson::from_args`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct ServerJson {
    name: String,
    description: Option<String>,
    title: Option<String>,
    website_url: Option<String>,
    repository: Option<String>,
    /// `name` or `name@version`, as given.
    crates: Vec<String>,
    remotes: Vec<String>,
}

impl ServerJson {
    /// An entry named `name` (`io.github.OWNER/NAME`, say), checked when it is written.
    pub fn new(name: impl Into<String>) -> Self {
        ServerJson {
            name: name.into(),
            description: None,
            title: None,
            website_url: None,
            repository: None,
            crates: Vec::new(),
            remotes: Vec::new(),
        }
    }

    /// The description, 100 characters at most (instead of `serverInfo.description` or the
    /// instructions).
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// The title shown to people, 100 characters at most (instead of `serverInfo.title`).
    pub fn title(mut self, text: impl Into<String>) -> Self {
        self.title = Some(text.into());
        self
    }

    /// The home page, an `https` URL (instead of `serverInfo.websiteUrl`).
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.website_url = Some(url.into());
        self
    }

    /// The source repository: `https://github.com/OWNER/REPO` or
    /// `https://gitlab.com/GROUP/…/REPO`, the two the registry takes.
    pub fn repository(mut self, url: impl Into<String>) -> Self {
        self.repository = Some(url.into());
        self
    }

    /// A crate on crates.io whose binary runs this server: `name@version`, or `name` alone for
    /// the server's own version. Clients install it (`cargo install`) and start its binary with
    /// `--stdio`.
    pub fn cargo_crate(mut self, spec: impl Into<String>) -> Self {
        self.crates.push(spec.into());
        self
    }

    /// A URL where this server is served on Streamable HTTP: `https`, reachable from elsewhere
    /// (no loopback host), the endpoint itself (`https://mcp.example.com/mcp`).
    pub fn remote(mut self, url: impl Into<String>) -> Self {
        self.remotes.push(url.into());
        self
    }

    /// The line a crate's README shows so that the registry can tell the crate is yours:
    /// `mcp-name: NAME`. Write it as plain text (crates.io drops HTML comments), on a line of
    /// its own or followed by a space.
    pub fn mcp_name_line(&self) -> String {
        format!("mcp-name: {}", self.name)
    }

    /// The crates named, as given (`name` or `name@version`).
    pub fn crates(&self) -> &[String] {
        &self.crates
    }

    /// Reads `--server-json` and its options from a command line (the program name left out):
    /// `--name NAMESPACE/NAME` (required), `--crate NAME[@VERSION]` and `--remote URL` (each as
    /// often as needed), `--description TEXT`, `--title TEXT`, `--repository URL`,
    /// `--website URL`; each also as `--option=value`. `None` without `--server-json`; other
    /// arguments are the program's own and are passed over. [`RunMode::parse`](crate::RunMode::parse)
    /// calls it, so that every server run by [`Server::run`] prints its `server.json` with
    /// `--server-json` and exits.
    ///
    /// ```
    /// use mcp_runtime::ServerJson;
    /// let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    /// let entry = ServerJson::from_args(&args(&[
    ///     "--server-json", "--name", "io.github.owner/weather", "--crate=weather-mcp@0.3.0",
    /// ]));
    /// assert_eq!(
    ///     entry.unwrap(),
    ///     Some(ServerJson::new("io.github.owner/weather").cargo_crate("weather-mcp@0.3.0"))
    /// );
    /// assert_eq!(ServerJson::from_args(&args(&["--stdio"])).unwrap(), None);
    /// assert!(ServerJson::from_args(&args(&["--server-json"])).is_err()); // no --name
    /// ```
    pub fn from_args(args: &[String]) -> Result<Option<ServerJson>, Error> {
        if !args.iter().any(|a| a == "--server-json") {
            return Ok(None);
        }
        let mut name = None;
        let mut entry = ServerJson::new("");
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let (option, inline) = match arg.split_once('=') {
                Some((option, value)) => (option, Some(value.to_owned())),
                None => (arg.as_str(), None),
            };
            if !OPTIONS.contains(&option) {
                continue;
            }
            let value = match inline {
                Some(value) => value,
                None => args
                    .next()
                    .cloned()
                    .ok_or_else(|| Error::Usage(format!("{option} needs a value")))?,
            };
            entry = match option {
                "--name" => {
                    name = Some(value);
                    entry
                }
                "--crate" => entry.cargo_crate(value),
                "--remote" => entry.remote(value),
                "--description" => entry.description(value),
                "--title" => entry.title(value),
                "--repository" => entry.repository(value),
                "--website" => entry.website_url(value),
                _ => unreachable!("every option of OPTIONS is matched"),
            };
        }
        let name = name.ok_or_else(|| {
            Error::Usage(
                "--server-json needs --name NAMESPACE/NAME, the server's name in the MCP \
                 Registry (io.github.OWNER/NAME, say)"
                    .to_owned(),
            )
        })?;
        Ok(Some(ServerJson { name, ..entry }))
    }
}

/// The options [`ServerJson::from_args`] reads, each followed by a value.
pub(crate) const OPTIONS: [&str; 7] = [
    "--name",
    "--crate",
    "--remote",
    "--description",
    "--title",
    "--repository",
    "--website",
];

impl Server {
    /// This server's `server.json` for the MCP Registry ([`SERVER_JSON_SCHEMA`]): `entry`'s name,
    /// crates and URLs with this server's version, description and title (see [`ServerJson`]).
    /// Every field is checked against the registry's rules first, so that what is written is
    /// what the registry takes.
    pub fn server_json(&self, entry: &ServerJson) -> Result<Value, ServerJsonError> {
        let mut doc = self.described(entry, SERVER_JSON_SCHEMA)?;
        if !entry.crates.is_empty() {
            let version = &self.info().version;
            let packages = entry.crates.iter().map(|spec| cargo_package(spec, version));
            doc.insert(
                "packages".into(),
                packages.collect::<Result<Vec<_>, _>>()?.into(),
            );
        }
        if !entry.remotes.is_empty() {
            let remotes = entry.remotes.iter().map(|url| {
                let url = check_remote(url)?;
                Ok(json!({"type": "streamable-http", "url": url}))
            });
            let remotes = remotes.collect::<Result<Vec<_>, _>>()?;
            doc.insert("remotes".into(), remotes.into());
        }
        Ok(Value::Object(doc))
    }

    /// This server's Server Card (SEP-2127, a draft), for
    /// [`HttpOptions::server_card`](crate::HttpOptions::server_card): the fields `server.json`
    /// has, written by the same code under the same rules (`name`, `version`, `description`,
    /// `title`, `websiteUrl`, `repository`, `icons`), and `entry`'s URLs as its remotes. Feature
    /// `server-card`.
    ///
    /// ```
    /// # use mcp_runtime::{Server, ServerJson};
    /// let server = Server::builder().version("0.3.0").instructions("Weather.").build().unwrap();
    /// let entry = ServerJson::new("io.github.owner/weather").remote("https://w.example.com/mcp");
    /// assert_eq!(server.server_card(&entry).unwrap().name(), "io.github.owner/weather");
    /// let long = entry.description("x".repeat(101));
    /// assert_eq!(server.server_card(&long).unwrap_err().field(), "description");
    /// ```
    #[cfg(feature = "server-card")]
    pub fn server_card(&self, entry: &ServerJson) -> Result<ServerCard, ServerJsonError> {
        let fields = self.described(entry, SERVER_CARD_SCHEMA)?;
        let remote = |url: &String| check_remote(url).map(str::to_owned);
        let remotes = entry.remotes.iter().map(remote).collect::<Result<_, _>>()?;
        let made_from = (self.info().clone(), self.discover_result().instructions);
        Ok(ServerCard::new(fields, remotes, made_from))
    }

    /// What `server.json` and the Server Card both say of the server, checked: `$schema`,
    /// `name`, `title`, `description`, `version`, `websiteUrl`, `repository` and `icons`.
    fn described(
        &self,
        entry: &ServerJson,
        schema: &str,
    ) -> Result<Map<String, Value>, ServerJsonError> {
        let info = self.info();
        let mut doc = Map::new();
        doc.insert("$schema".into(), schema.into());
        doc.insert("name".into(), check_name(&entry.name)?.into());
        if let Some(title) = entry.title.as_ref().or(info.title.as_ref()) {
            doc.insert(
                "title".into(),
                check_text("title", title, TITLE_MAX)?.into(),
            );
        }
        doc.insert("description".into(), self.description_for(entry)?.into());
        let version = check_version("version", &info.version)?;
        doc.insert("version".into(), version.into());
        if let Some(url) = entry.website_url.as_ref().or(info.website_url.as_ref()) {
            doc.insert("websiteUrl".into(), check_https("websiteUrl", url)?.into());
        }
        if let Some(url) = &entry.repository {
            doc.insert("repository".into(), repository(url)?);
        }
        let icons: Vec<Value> = info.icons.iter().flatten().filter_map(icon).collect();
        if !icons.is_empty() {
            doc.insert("icons".into(), icons.into());
        }
        Ok(doc)
    }

    /// The description: the entry's, else `serverInfo.description`, else the instructions.
    fn description_for(&self, entry: &ServerJson) -> Result<String, ServerJsonError> {
        let instructions = self.discover_result().instructions;
        let (text, from) = match (&entry.description, &self.info().description) {
            (Some(text), _) => (text.clone(), "the description given"),
            (None, Some(text)) => (text.clone(), "serverInfo.description"),
            (None, None) => match instructions {
                Some(text) => (text, "the server's instructions"),
                None => {
                    return Err(ServerJsonError::new(
                        "description",
                        "the server has neither a description nor instructions: give one \
                         (ServerJson::description, or --description TEXT)",
                    ));
                }
            },
        };
        let count = text.chars().count();
        if count > DESCRIPTION_MAX {
            return Err(ServerJsonError::new(
                "description",
                format!(
                    "{count} characters from {from}; the registry takes at most \
                     {DESCRIPTION_MAX}: give a shorter description (ServerJson::description, \
                     or --description TEXT)"
                ),
            ));
        }
        check_text("description", &text, DESCRIPTION_MAX).map(str::to_owned)
    }
}
