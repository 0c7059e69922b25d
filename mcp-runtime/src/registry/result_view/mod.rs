//! Views that need no HTML: [`ResultView`], a table, a form or a bar chart of a tool's
//! structured result, generated from its output schema when the server is built and served as
//! an MCP App at `ui://views/<tool>.html` (one page, `page.html`, that speaks the Apps protocol
//! itself and draws the result the host sends it as the plan made here says).
//!
//! The generation is the `result-views` feature. Without it a tool still names its view (the
//! macros' expansion is the same either way), and the server's `build` refuses it, naming the
//! feature.

#[cfg(feature = "result-views")]
mod plan;

use super::result_layout::ResultView;

#[cfg(feature = "result-views")]
use super::app::{Csp, UiResource};
use super::primitive::Items;
use super::tool::Tool;
use crate::error::BuildError;
use serde_json::{Map, Value};

/// The page every generated view is; the plan goes where `null` stands in it.
#[cfg(feature = "result-views")]
const PAGE: &str = include_str!("page.html");
#[cfg(feature = "result-views")]
const PLAN_SLOT: &str = "/*PLAN*/null";

impl Tool {
    /// Shows its structured result in a view generated from its output schema ([`ResultView`]).
    ///
    /// ```
    /// use mcp_runtime::Tool;
    /// use mcp_runtime::apps::ResultView;
    /// let tool = Tool::new("stats").result_view(ResultView::Chart);
    /// ```
    pub fn result_view(mut self, view: ResultView) -> Self {
        self.result_view = Some((view, None));
        self
    }

    #[doc(hidden)]
    /// What `#[tool(view = "…")]` writes: the view, and the schema of the result type's `T`.
    pub fn __result_view_of<R: ResultSchema>(mut self, view: ResultView) -> Self {
        self.result_view = Some((view, Some(R::result_schema())));
        self
    }
}

/// A tool's return type whose structured result has a schema a generated view can be drawn
/// from: [`Structured<T>`](crate::Structured) and [`Json<T>`](crate::Json) of a
/// `T: JsonSchema`, and a `Result` of one.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a view generated from `{Self}` needs a structured result with a schema",
    label = "a generated view (`view = \"…\"`) is drawn from this return type",
    note = "return `Structured<T>` or `Json<T>` (or a `Result` of one) with `T: schemars::JsonSchema`; a view of your own is `ui = \"ui://…\"`"
)]
pub trait ResultSchema {
    /// The schema of the structured result.
    fn result_schema() -> Map<String, Value>;
}

impl<T: schemars::JsonSchema> ResultSchema for super::output::Structured<T> {
    fn result_schema() -> Map<String, Value> {
        crate::schema::schema_for::<T>()
    }
}

impl<T: schemars::JsonSchema> ResultSchema for super::output::Json<T> {
    fn result_schema() -> Map<String, Value> {
        crate::schema::schema_for::<T>()
    }
}

impl<R: ResultSchema, E> ResultSchema for Result<R, E> {
    fn result_schema() -> Map<String, Value> {
        R::result_schema()
    }
}

/// The URI of the view generated for the tool `name`.
#[cfg(feature = "result-views")]
fn uri_of(name: &str) -> String {
    format!("ui://views/{name}.html")
}

/// Without the `result-views` feature: a tool that asks for a generated view is refused.
#[cfg(not(feature = "result-views"))]
pub(crate) fn attach(items: &mut Items) -> Result<(), BuildError> {
    match items.tools.iter().find(|tool| tool.result_view.is_some()) {
        None => Ok(()),
        Some(tool) => Err(BuildError::Invalid {
            kind: "tool",
            name: tool.info.name.clone(),
            reason: "its result view is generated from its output schema, which needs the \
                     `result-views` feature of mcp-runtime (`mcp-runtime = { version = \"…\", \
                     features = [\"result-views\"] }`)"
                .to_owned(),
            location: tool.source,
        }),
    }
}

/// Generates the views the tools ask for, serves each as a resource and links its tool to it.
#[cfg(feature = "result-views")]
pub(crate) fn attach(items: &mut Items) -> Result<(), BuildError> {
    let mut views = Vec::new();
    for tool in items.tools.iter_mut() {
        let Some((view, of_type)) = tool.result_view.take() else {
            continue;
        };
        let refuse = |reason: String| BuildError::Invalid {
            kind: "tool",
            name: tool.info.name.clone(),
            reason,
            location: tool.source,
        };
        if let Some(app) = tool.app_uri() {
            return Err(refuse(format!(
                "it asks for a generated result view and is linked to the view `{app}`: keep one"
            )));
        }
        let Some(schema) = of_type.as_ref().or(tool.info.output_schema.as_ref()) else {
            return Err(refuse(
                "a generated result view is drawn from the result's schema: give the tool an \
                 output schema (`Tool::output_schema`), or return `Json<T>`"
                    .to_owned(),
            ));
        };
        let name = tool.info.name.clone();
        let title = tool
            .info
            .title
            .clone()
            .unwrap_or_else(|| plan::words(&name));
        let plan = plan::plan(view, schema, &title).map_err(refuse)?;
        // `<` escaped, so that no text of the plan can end the page's script.
        let plan = plan.to_string().replace('<', "\\u003c");
        let uri = uri_of(&name);
        let description = format!("The result of {name}, drawn from its output schema");
        let mut resource = UiResource::new(uri.clone(), format!("{name} view"))
            .title(title)
            .description(description)
            .html(PAGE.replacen(PLAN_SLOT, &plan, 1))
            .csp(Csp::new())
            .into_resource();
        // The view is reached through the tool: whoever may not see the tool may not read it.
        resource.access = tool.access.clone();
        resource.source = tool.source;
        views.push(resource);
        tool.link_app(uri);
    }
    items.resources.extend(views);
    Ok(())
}
