//! Prompt definitions.

use super::access::Requirement;
use super::complete::Completer;
use super::future::BoxFuture;
use super::output::{IntoPromptResult, PromptOutcome};
use crate::context::{RequestContext, StateNeed};
use crate::error::{McpError, SourceLocation};
use crate::protocol::{Icon, PromptArgument, PromptInfo};
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::Arc;

/// One `prompts/get` as seen by a handler.
#[derive(Debug)]
#[non_exhaustive]
pub struct PromptGet {
    /// The prompt's name.
    pub name: String,
    /// The string arguments (required ones are guaranteed present).
    pub arguments: BTreeMap<String, String>,
    /// The request context (client input of MRTR rounds is reached through it).
    pub context: RequestContext,
}

pub(crate) type PromptFn =
    dyn Fn(PromptGet) -> BoxFuture<'static, Result<PromptOutcome, McpError>> + Send + Sync;

/// A prompt template.
///
/// ```
/// use mcp_runtime::Prompt;
/// let p = Prompt::new("greet")
///     .argument("name", Some("Who to greet"), true)
///     .handler(|get| async move { format!("Say hello to {}.", get.arguments["name"]) });
/// ```
#[derive(Clone)]
#[must_use]
pub struct Prompt {
    pub(crate) info: PromptInfo,
    pub(crate) handler: Option<Arc<PromptFn>>,
    pub(crate) source: Option<SourceLocation>,
    /// Shared state the handler needs.
    pub(crate) needs: Vec<StateNeed>,
    /// The handler asks the client for input.
    pub(crate) asks_input: bool,
    pub(crate) completers: HashMap<String, Completer>,
    /// What a caller needs to see and get it.
    pub(crate) access: Requirement,
    /// What keeps it from being served (startup errors).
    pub(crate) problems: Vec<String>,
}

impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompt")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Prompt {
    /// A prompt named `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            info: PromptInfo {
                name: name.into(),
                title: None,
                description: None,
                arguments: None,
                icons: None,
                meta: None,
            },
            handler: None,
            source: None,
            needs: Vec::new(),
            asks_input: false,
            completers: HashMap::new(),
            access: Requirement::default(),
            problems: Vec::new(),
        }
    }
    /// Marks the definition as invalid: [`ServerBuilder::build`](crate::ServerBuilder::build)
    /// reports `reason` as a startup error naming the prompt, as for
    /// [`Tool::invalid`](crate::Tool::invalid).
    pub fn invalid(mut self, reason: impl Into<String>) -> Self {
        self.problems.push(reason.into());
        self
    }
    /// The name.
    pub fn name(&self) -> &str {
        &self.info.name
    }
    /// The listing.
    pub fn info(&self) -> &PromptInfo {
        &self.info
    }
    /// Display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }
    /// Description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }
    /// Adds an icon.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.info.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }
    /// Declares an argument.
    pub fn argument(mut self, name: &str, description: Option<&str>, required: bool) -> Self {
        self.info
            .arguments
            .get_or_insert_with(Vec::new)
            .push(PromptArgument::new(
                name,
                description.map(str::to_owned),
                required,
            ));
        self
    }
    /// Records where it was declared.
    pub fn source(mut self, location: SourceLocation) -> Self {
        self.source = Some(location);
        self
    }
    /// Declares shared state the handler takes from the context: building a server that
    /// registers it without the state fails, naming it (the macros declare `State<T>`
    /// parameters themselves).
    pub fn needs(mut self, need: StateNeed) -> Self {
        if !self.needs.contains(&need) {
            self.needs.push(need);
        }
        self
    }
    /// Declares that the handler asks the client for input (multi round-trip requests): a
    /// server with such a primitive and no shared `requestState` key warns at startup (the
    /// macros declare it themselves).
    pub fn asks_client_input(mut self) -> Self {
        self.asks_input = true;
        self
    }
    super::access::access_setters!();
    /// Completes values of the argument `argument`.
    pub fn complete(mut self, argument: impl Into<String>, completer: Completer) -> Self {
        self.completers.insert(argument.into(), completer);
        self
    }
    /// The handler.
    pub fn handler<F, Fut, R>(mut self, f: F) -> Self
    where
        F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        self.handler = Some(Arc::new(move |get| {
            let fut = f(get);
            Box::pin(async move { fut.await.into_prompt_result() })
        }));
        self
    }
}

/// Sets a generated handler, a function returning its boxed future: what `#[prompt]`
/// registers (one instance of this function for every prompt, no closure per prompt).
#[doc(hidden)]
pub fn generated_prompt_handler(
    mut prompt: Prompt,
    f: fn(PromptGet) -> BoxFuture<'static, Result<PromptOutcome, McpError>>,
) -> Prompt {
    prompt.handler = Some(Arc::new(f));
    prompt
}
