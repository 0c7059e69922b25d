//! Attribute macros of the MCP server framework: `#[tool]`, `#[resource]`, `#[prompt]` and
//! `#[derive(ElicitForm)]`.
//!
//! Use them through `mcp_runtime` (`use mcp_runtime::tool;`): the generated code names only
//! `::mcp_runtime::__private`, so a server depends on `mcp-runtime` alone. Every macro keeps the
//! annotated function as written (callable from your own code and tests) and adds, next to it,
//! a registration collected by `Server::from_inventory()` and a same-named *handle* struct for
//! explicit registration (`Server::builder().tool(add {})`).
//!
//! Mistakes are compile errors at the narrowest span, all reported at once; the function is
//! still emitted so the rest of the crate keeps compiling.

// Every attribute goes through `driver`: `attr` parses its arguments, `check` the signature,
// `model` builds the function's model, `check` checks it, and only then does `expand`
// generate; `fallback` is what is emitted instead when anything was wrong. `handlers` (the
// `#[handlers]` impl block) runs the driver once per marked method.

mod attr;
mod check;
mod ctxt;
mod docs;
mod driver;
mod expand;
mod fallback;
mod handlers;
mod interpolate;
mod kind;
mod model;
mod paths;
mod skills;

use kind::Kind;
use proc_macro::TokenStream;

/// Turns a function into an MCP tool.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use schemars::JsonSchema;
/// use serde::Serialize;
///
/// /// Add two integers.
/// /// Use only for arithmetic addition.
/// #[tool(annotations(read_only, open_world = false))]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// #[derive(Serialize, JsonSchema)]
/// struct Matches {
///     titles: Vec<String>,
/// }
///
/// /// Search documents the connected user is authorized to read.
/// #[tool(scopes = ["docs:read"])]
/// async fn search_private_docs(
///     /// Words to look for.
///     #[schemars(length(min = 3))]
///     query: String,
///     limit: Option<u32>,
///     progress: Progress,
/// ) -> Result<Json<Matches>, McpError> {
///     progress.report(1.0, Some(1.0), Some("searched"));
///     let titles = vec![format!("{query} (1 of {})", limit.unwrap_or(10))];
///     Ok(Json(Matches { titles }))
/// }
///
/// /// Build the quarterly report (minutes of work: a task for clients that declare the tasks
/// /// extension).
/// #[tool(task = "optional")]
/// async fn quarterly_report(quarter: u8) -> String {
///     format!("Q{quarter} report")
/// }
///
/// let server = Server::builder()
///     .tool(add {})
///     .tool(search_private_docs {})
///     .tool(quarterly_report {})
///     .build();
/// assert!(server.is_ok());
/// ```
///
/// # Arguments of the attribute
///
/// | argument | meaning | default |
/// |---|---|---|
/// | `name = "..."` | the tool's name: 1–64 characters of `[A-Za-z0-9_.-]`, checked at compile time | the function's name |
/// | `title = "..."` | display title | none |
/// | `description = "..."` | description for the model | the `///` doc comment (lines joined, paragraphs kept) |
/// | `annotations(read_only, destructive = false, idempotent, open_world = false, title = "...")` | behaviour hints; a bare flag means `true` | none |
/// | `icon(src = "...", mime_type = "...", sizes = "48x48 96x96", theme = "dark")` | an icon; repeat for several | none |
/// | `meta = <expr>` | `_meta` of the listing: an expression giving a JSON object, like `serde_json::json!({...})` | none |
/// | `scopes = ["docs:read", ...]` | OAuth scopes the caller's token must grant (all of them): without them the tool is not listed and a call is refused with a challenge | none |
/// | `authorize = path::to::async_fn` | a custom check, `async fn(AccessRequest) -> Result<(), Denied>` (`mcp_runtime::auth`), asked before every call and for every listing | none |
/// | `task = "optional"` \| `"required"` | runs as a task of the tasks extension: for clients that declare it (`optional`), or always (`required`, others get `-32021`); the function must be `async` | not a task |
/// | `ui = "ui://..."` | the MCP Apps view the tool is linked to (`_meta.ui.resourceUri`); serve it with a `UiResource` | none |
/// | `visibility = ["model", "app"]` | who may call a tool linked to a view: `["app"]` for one only its view calls | both |
/// | `crate = path` | where `mcp_runtime` is, if renamed | `::mcp_runtime` |
///
/// # Parameters
///
/// Each parameter is one of:
///
/// * a **JSON argument** (the default): a property of the `inputSchema`, deserialized with serde.
///   Its type must implement `Deserialize` and `JsonSchema`. `///` on the parameter becomes the
///   property's `description`; `#[serde(...)]` and `#[schemars(...)]` are applied to the
///   property (`#[serde(rename = "documentId")]`, `#[schemars(length(min = 3))]`,
///   `#[schemars(regex(pattern = "^doc_"))]`, `#[schemars(range(min = 1, max = 50))]`);
///   `Option<T>` is not required. Unknown properties are rejected.
/// * a **context extractor**: `RequestContext`, `Progress`, `Logger`, `CancellationToken`,
///   `State<T>`, `Caller`, `Option<Caller>` are recognized by type; any other type implementing
///   `FromContext` needs `#[ctx]`. `#[arg]` forces a parameter to be a JSON argument.
/// * a **client input** (MRTR): `#[roots] r: Roots`,
///   `#[sample(prompt = "...", max_tokens = 80, system_prompt = "...")] s: Sampled`,
///   `#[elicit(message = "...")] e: Elicitation<Form>`, each with an optional `key = "..."`
///   (default: the parameter name); wrapped in `Option` when the input is optional. Texts may
///   name arguments (`message = "Delete the notes tagged {tag}?"`); a question computed from
///   state is `message = path::to::fn`: a function called with the method's `&self` (in a
///   `#[handlers]` impl, where `Self::f` works), the `&RequestContext` (shared state:
///   `cx.state::<T>()`) and a reference to each argument in order, returning the question
///   (`String` or `&str`).
///
/// # Return type
///
/// Anything implementing `IntoToolResult`: text-like values, content blocks, `Json<T>` (with an
/// `outputSchema`), `Structured<T>`, `CallToolResult`, `()`, or a `Result` of one of these
/// (`Err` becomes an `isError: true` result). The function may be `async`; its future must be
/// `Send`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    driver::expand(Kind::Tool, args.into(), item.into()).into()
}

/// Turns a function into an MCP resource (fixed URI) or resource template (RFC 6570).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::handler::CompletionRequest;
///
/// /// Service configuration.
/// #[resource("config://service", mime_type = "application/json", cache(ttl_ms = 30000, scope = "private"))]
/// fn service_config() -> String {
///     r#"{"region":"local"}"#.into()
/// }
///
/// /// The ids of documents starting with what was typed (a completion function: it gets the
/// /// request, and reaches shared state through `req.request.state::<T>()`).
/// async fn document_ids(req: CompletionRequest) -> Vec<String> {
///     ["doc_1", "doc_2"]
///         .into_iter()
///         .filter(|id| id.starts_with(&req.value))
///         .map(String::from)
///         .collect()
/// }
///
/// /// One document's text.
/// #[resource("docs://{id}/text", name = "document", complete(id = document_ids))]
/// async fn document(id: String) -> Result<String, McpError> {
///     Ok(format!("the text of {id}"))
/// }
///
/// let server = Server::builder()
///     .resource(service_config {})
///     .resource_template(document {})
///     .build();
/// assert!(server.is_ok());
/// ```
///
/// # Arguments of the attribute
///
/// | argument | meaning | default |
/// |---|---|---|
/// | `"scheme://..."` (first) | the URI, or a template with `{var}` / `{+var}` variables | required |
/// | `name = "..."` | the resource's name | the function's name |
/// | `title = "..."` | display title | none |
/// | `description = "..."` | description | the `///` doc comment |
/// | `mime_type = "..."` | MIME type of the contents | none |
/// | `size = N` | size in bytes (fixed URIs only) | none |
/// | `icon(src = "...", mime_type = "...", sizes = "...", theme = "...")` | an icon; repeatable | none |
/// | `cache(ttl_ms = N, scope = "public" \| "private")` | caching hint of `resources/read` results | the server's |
/// | `complete(var = path::to::async_fn, other = ["a", "b"])` | completions of template variables: a list of values (completed by prefix), or an `async fn(CompletionRequest) -> Vec<String>` | none |
/// | `scopes = [...]`, `authorize = path` | what a caller needs to see and read it, as for `#[tool]` | none |
/// | `crate = path` | where `mcp_runtime` is, if renamed | `::mcp_runtime` |
///
/// Every template variable must be a parameter of the function, parsed with `FromStr`
/// (`Option<T>` when it may be empty), and every other parameter must be a context extractor or
/// a client input. The function returns `IntoResourceResult`: `String` (text), `Vec<u8>`
/// (base64 blob), `ResourceContents`, or a `Result` of one of these.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    driver::expand(Kind::Resource, args.into(), item.into()).into()
}

/// Turns a function into an MCP prompt.
///
/// ```
/// use mcp_runtime::{Server, prompt};
///
/// /// Create a source-grounded briefing for a named audience.
/// #[prompt(title = "Draft a policy briefing", complete(audience = ["support managers", "legal"]))]
/// fn draft_policy_brief(
///     /// Who will read the briefing
///     audience: String,
///     /// How many words at most
///     words: Option<u32>,
/// ) -> String {
///     let words = words.unwrap_or(300);
///     format!("Draft a concise briefing of at most {words} words for {audience}.")
/// }
///
/// assert!(Server::builder().prompt(draft_policy_brief {}).build().is_ok());
/// ```
///
/// # Arguments of the attribute
///
/// | argument | meaning | default |
/// |---|---|---|
/// | `name = "..."` | the prompt's name | the function's name |
/// | `title = "..."` | display title | none |
/// | `description = "..."` | description | the `///` doc comment |
/// | `icon(...)` | an icon; repeatable | none |
/// | `complete(arg = path::to::async_fn, other = ["a", "b"])` | completions of arguments: a list of values, or an `async fn(CompletionRequest) -> Vec<String>` | none |
/// | `scopes = [...]`, `authorize = path` | what a caller needs to see and get it, as for `#[tool]` | none |
/// | `crate = path` | where `mcp_runtime` is, if renamed | `::mcp_runtime` |
///
/// Arguments arrive as strings and are parsed with `FromStr` (a parse failure is a `-32602`
/// error naming the argument); `Option<T>` arguments are not required; `///` on a parameter is
/// the argument's description. Context extractors and client inputs work as for `#[tool]`. The
/// function returns `IntoPromptResult`: `String` (one user message), `PromptMessage`,
/// `Vec<PromptMessage>`, `GetPromptResult`, or a `Result` of one of these.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    driver::expand(Kind::Prompt, args.into(), item.into()).into()
}

/// Serves the methods of an `impl` block: those marked `#[tool]`, `#[resource]` or `#[prompt]`
/// become primitives, and the value registered with `ServerBuilder::handlers` is the `&self`
/// they are called on (the server's shared state).
///
/// ```
/// use mcp_runtime::{handlers, Server};
/// use std::sync::Mutex;
///
/// #[derive(Default)]
/// struct Notes(Mutex<Vec<String>>);
///
/// #[handlers]
/// impl Notes {
///     /// Adds a note.
///     #[tool]
///     fn add_note(&self, text: String) -> usize {
///         let mut notes = self.0.lock().unwrap();
///         notes.push(text);
///         notes.len()
///     }
///
///     /// Every note, one per line.
///     #[resource("notes://all")]
///     fn all_notes(&self) -> String {
///         self.0.lock().unwrap().join("\n")
///     }
/// }
///
/// let server = Server::builder().handlers(Notes::default()).build();
/// assert!(server.is_ok());
/// ```
///
/// Each method takes the attribute's usual arguments and parameters. A method takes `&self`
/// (requests are served concurrently: change the value through interior mutability) or no
/// receiver. The methods are also collected by `Server::from_inventory()`, which then needs
/// the value registered with `ServerBuilder::state`. `crate = path` says where `mcp_runtime`
/// is, if renamed.
#[proc_macro_attribute]
pub fn handlers(args: TokenStream, item: TokenStream) -> TokenStream {
    handlers::expand(args.into(), item.into()).into()
}

/// Derives `ElicitForm` (for a struct of flat fields: the form's `requestedSchema`) or
/// `FormField` (for a fieldless enum: a string choice).
///
/// ```
/// use mcp_runtime::ElicitForm;
///
/// #[derive(serde::Deserialize, ElicitForm)]
/// struct ReviewGoal {
///     /// What matters most in this review.
///     #[form(title = "Goal", min_length = 3)]
///     goal: String,
///     #[form(format = "email")]
///     notify: Option<String>,
///     depth: Depth,
/// }
///
/// #[derive(serde::Deserialize, ElicitForm)]
/// enum Depth { Quick, #[form(rename = "thorough")] Thorough }
///
/// let schema = <ReviewGoal as mcp_runtime::ElicitForm>::requested_schema();
/// assert_eq!(schema["properties"]["goal"]["minLength"], 3);
/// ```
///
/// | field attribute | schema keyword |
/// |---|---|
/// | `title = "..."` | `title` |
/// | `description = "..."` (default: `///`) | `description` |
/// | `min_length = N`, `max_length = N` | `minLength`, `maxLength` |
/// | `minimum = X`, `maximum = X` | `minimum`, `maximum` |
/// | `format = "email" \| "uri" \| "date" \| "date-time"` | `format` |
/// | `rename = "..."` (also read from `#[serde(rename = "...")]`) | the property name |
///
/// Every field type must implement `FormField` (strings, numbers, booleans, fieldless enums
/// deriving `ElicitForm`, and `Option` of these): nested objects and arrays are rejected at the
/// field. Derive `serde::Deserialize` on the type yourself.
#[proc_macro_derive(ElicitForm, attributes(form))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    expand::form::expand(input.into()).into()
}

/// Embeds a skills folder in the binary at compile time (the Skills extension): every folder
/// below it holding a `SKILL.md` becomes a skill, read, checked and written into the server, so
/// that a deployed server needs no file to serve them. The path is relative to the file the
/// macro is written in, as `include_bytes!`'s is. A skill that breaks a rule of the format (its frontmatter, its name, a
/// symbolic link, 512 files or 16 MiB) is a compile error naming the file and the rule.
///
/// Each file is included with `include_bytes!`, so editing or removing one rebuilds the crate.
/// Cargo does not watch for new files on its own: add a build script with
/// `println!("cargo::rerun-if-changed=src/skills");` (the folder, relative to `Cargo.toml`) so
/// that adding a file rebuilds it too.
///
/// ```
/// use mcp_runtime::{Server, skills};
/// // This crate's own test folder of one skill.
/// let server = Server::builder().skills(skills!("../tests/skills")).build();
/// assert!(server.is_ok());
/// ```
#[proc_macro]
pub fn skills(input: TokenStream) -> TokenStream {
    skills::expand(input.into(), proc_macro::Span::call_site().local_file()).into()
}
