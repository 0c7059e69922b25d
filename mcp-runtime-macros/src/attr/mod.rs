//! Parsing of macro arguments (`#[tool(name = "...", ...)]`) with error accumulation: the
//! readers of items and single values in [`read`], one module per attribute, and the keys in
//! [`keys`]. Here: [`Attrs`], the parsed arguments of whichever attribute it is.

pub(crate) mod forwarded;
pub(crate) mod keys;
pub(crate) mod prompt;
mod read;
pub(crate) mod resource;
pub(crate) mod shared;
pub(crate) mod tool;
mod unknown;

pub(crate) use read::{Slot, expr, integer, key, nested, number, string};
pub(crate) use unknown::unknown_key;

use crate::ctxt::Ctxt;
use crate::kind::Kind;
use proc_macro2::TokenStream;

/// The parsed arguments of one attribute.
pub(crate) enum Attrs {
    Tool(tool::ToolAttrs),
    Resource(resource::ResourceAttrs),
    Prompt(prompt::PromptAttrs),
}

impl Attrs {
    /// Parses the arguments of the attribute `kind`; mistakes are recorded in `cx`.
    pub(crate) fn parse(cx: &Ctxt, kind: Kind, args: TokenStream) -> Attrs {
        match kind {
            Kind::Tool => Attrs::Tool(tool::ToolAttrs::parse(cx, args)),
            Kind::Resource => Attrs::Resource(resource::ResourceAttrs::parse(cx, args)),
            Kind::Prompt => Attrs::Prompt(prompt::PromptAttrs::parse(cx, args)),
        }
    }

    /// Which attribute these are the arguments of.
    pub(crate) fn kind(&self) -> Kind {
        match self {
            Attrs::Tool(_) => Kind::Tool,
            Attrs::Resource(_) => Kind::Resource,
            Attrs::Prompt(_) => Kind::Prompt,
        }
    }

    /// The keys every attribute takes.
    pub(crate) fn common(&self) -> &shared::Common {
        match self {
            Attrs::Tool(a) => &a.common,
            Attrs::Resource(a) => &a.common,
            Attrs::Prompt(a) => &a.common,
        }
    }
}
