//! The owned model of an annotated function and what its attribute declares: built once from
//! the syntax, checked, then read by code generation.

mod function;
mod input;
mod param;
mod template;
#[cfg(test)]
mod tests;
mod types;

pub(crate) use function::{Function, Host, strip};
pub(crate) use input::{InputKind, Message};
pub(crate) use param::{Param, ParamKind};
pub(crate) use template::has_scheme;
pub(crate) use types::option_inner;

use crate::attr::keys::RENAME;
use crate::attr::prompt::PromptAttrs;
use crate::attr::resource::ResourceAttrs;
use crate::attr::tool::ToolAttrs;
use crate::attr::{Attrs, forwarded};
use crate::ctxt::Ctxt;
use crate::kind::Kind;
use syn::{ItemFn, LitStr};

/// An annotated function and the primitive it declares.
pub(crate) struct Model {
    pub(crate) func: Function,
    pub(crate) spec: Spec,
}

/// The primitive, by kind.
pub(crate) enum Spec {
    Tool(Tool),
    Resource(Resource),
    Prompt(Prompt),
}

/// What `#[tool]` declares.
pub(crate) struct Tool {
    pub(crate) attrs: ToolAttrs,
    /// The tool's name: `name = "..."`, else the function's.
    pub(crate) name: String,
}

/// What `#[resource]` declares.
pub(crate) struct Resource {
    pub(crate) attrs: ResourceAttrs,
    /// The resource's name: `name = "..."`, else the function's.
    pub(crate) name: String,
    /// The variables of the URI (none for a fixed URI, or when the URI is missing), or what is
    /// wrong with it as a template.
    pub(crate) variables: Result<Vec<String>, String>,
}

/// What `#[prompt]` declares.
pub(crate) struct Prompt {
    pub(crate) attrs: PromptAttrs,
    /// The prompt's name: `name = "..."`, else the function's.
    pub(crate) name: String,
}

impl Model {
    /// Builds the model of `item`, living in `host`, with its attribute's arguments `attrs`;
    /// mistakes in the function's parameters are recorded in `cx`.
    pub(crate) fn from_ast(cx: &Ctxt, attrs: Attrs, item: ItemFn, host: Host) -> Model {
        let mut func = Function::from_item(cx, item, attrs.kind(), host);
        let name = match &attrs.common().name {
            Some(lit) => lit.value(),
            None => func.default_name(),
        };
        let spec = match attrs {
            Attrs::Tool(attrs) => Spec::Tool(Tool { attrs, name }),
            Attrs::Resource(attrs) => {
                let variables = match &attrs.uri {
                    Some(uri) => template::uri_template(&uri.value()),
                    None => Ok(Vec::new()),
                };
                Spec::Resource(Resource {
                    attrs,
                    name,
                    variables,
                })
            }
            Attrs::Prompt(attrs) => {
                // `#[serde(rename = "..")]` names a prompt argument on the wire.
                for p in func.params.iter_mut().filter(|p| p.is_argument()) {
                    if let Some(r) = forwarded::serde_string(&p.forwarded, RENAME) {
                        p.name = r.value();
                    }
                }
                Spec::Prompt(Prompt { attrs, name })
            }
        };
        Model { func, spec }
    }

    pub(crate) fn kind(&self) -> Kind {
        match self.spec {
            Spec::Tool(_) => Kind::Tool,
            Spec::Resource(_) => Kind::Resource,
            Spec::Prompt(_) => Kind::Prompt,
        }
    }
}

impl Resource {
    /// Whether the URI is a template (has variables): registered as a resource template.
    pub(crate) fn is_template(&self) -> bool {
        self.variables.as_ref().is_ok_and(|v| !v.is_empty())
    }

    /// The URI as written, or nothing when it is missing.
    pub(crate) fn uri(&self) -> String {
        self.attrs
            .uri
            .as_ref()
            .map(LitStr::value)
            .unwrap_or_default()
    }
}
