//! One parameter of an annotated function, classified: a plain argument, a context value or a
//! client input, by its marker attribute or else by its type.

use crate::attr::forwarded;
use crate::attr::keys::{ARG, CTX, DESCRIPTION, SCHEMARS, SERDE};
use crate::ctxt::Ctxt;
use crate::docs;
use crate::kind::Kind;
use crate::model::input::{self, Input, InputMarker};
use crate::model::types::{find_impl_trait, generic_arg_of, is_known_context};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Meta, Pat, Type};

/// A marker attribute on a parameter: what the parameter is, when its type does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    /// `#[ctx]`: built from the request context.
    Ctx,
    /// `#[arg]`: a plain argument, whatever its type.
    Arg,
    /// `#[roots]`, `#[sample(..)]` or `#[elicit(..)]`: asked of the client.
    Input(InputMarker),
}

impl Marker {
    const ALL: [Marker; 5] = [
        Marker::Ctx,
        Marker::Arg,
        Marker::Input(InputMarker::Roots),
        Marker::Input(InputMarker::Sample),
        Marker::Input(InputMarker::Elicit),
    ];

    /// The attribute's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Marker::Ctx => CTX,
            Marker::Arg => ARG,
            Marker::Input(input) => input.name(),
        }
    }

    /// The marker `attr` is, if it is one.
    pub(crate) fn of(attr: &Attribute) -> Option<Marker> {
        Marker::ALL
            .into_iter()
            .find(|m| attr.path().is_ident(m.name()))
    }
}

/// Whether the macros take `attr` off a parameter before the function is re-emitted: a marker,
/// a doc comment, or a `#[serde]` / `#[schemars]` that is forwarded to the arguments struct.
pub(crate) fn is_helper_attr(attr: &Attribute) -> bool {
    docs::is_doc(attr) || is_forwarded(attr) || Marker::of(attr).is_some()
}

fn is_forwarded(attr: &Attribute) -> bool {
    attr.path().is_ident(SERDE) || attr.path().is_ident(SCHEMARS)
}

/// One parameter of an annotated function.
pub(crate) struct Param {
    /// The local name (for identifier patterns).
    pub(crate) ident: Option<Ident>,
    /// The name on the wire: the identifier without `r#`.
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
    /// `///` on the parameter.
    pub(crate) doc: Option<String>,
    /// Whether a forwarded `#[schemars(description = ...)]` describes the parameter already (then
    /// the doc comment is not added to the schema).
    pub(crate) described: bool,
    /// `#[serde(..)]` and `#[schemars(..)]`, forwarded to the arguments struct field.
    pub(crate) forwarded: Vec<Attribute>,
    /// The whole parameter, for error spans.
    pub(crate) span: Span,
}

#[allow(clippy::large_enum_variant)] // a few short-lived values per macro call
pub(crate) enum ParamKind {
    /// A JSON argument (tools), template variable (resources) or prompt argument.
    Argument,
    /// Built from the request context through `FromContext`.
    Context,
    /// A client input requested through MRTR.
    Input(Input),
}

impl Param {
    /// Classifies the parameter `pt` of a function of `kind`; mistakes are recorded in `cx`.
    pub(crate) fn from_syn(cx: &Ctxt, pt: &syn::PatType, kind: Kind) -> Param {
        let ty = (*pt.ty).clone();
        let ident = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(pi.ident.clone()),
            _ => None,
        };
        let name = ident
            .as_ref()
            .map(|i| {
                let s = i.to_string();
                s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
            })
            .unwrap_or_default();

        let mut marker: Option<(&Attribute, Marker)> = None;
        let mut forwarded = Vec::new();
        for a in &pt.attrs {
            if is_forwarded(a) {
                forwarded.push(a.clone());
                continue;
            }
            if let Some(n) = Marker::of(a) {
                if let Some((_, first)) = marker {
                    cx.error_spanned_by(
                        a,
                        format!(
                            "a parameter takes at most one of `#[ctx]`, `#[arg]`, `#[roots]`, `#[sample]` and `#[elicit]`; this one already has `#[{}]`",
                            first.name()
                        ),
                    );
                    continue;
                }
                marker = Some((a, n));
            }
        }

        let param_kind = match marker {
            Some((a, Marker::Ctx)) => {
                no_args(cx, a, Marker::Ctx);
                ParamKind::Context
            }
            Some((a, Marker::Arg)) => {
                no_args(cx, a, Marker::Arg);
                ParamKind::Argument
            }
            Some((a, Marker::Input(which))) => {
                ParamKind::Input(input::parse(cx, a, which, &name, &ty))
            }
            None if is_known_context(&ty) => ParamKind::Context,
            None => ParamKind::Argument,
        };

        if matches!(param_kind, ParamKind::Argument) {
            if ident.is_none() {
                cx.error_spanned_by(
                    &pt.pat,
                    format!(
                        "a {} needs a plain name (like `query: String`) because the name is part of the schema; patterns are only allowed for context parameters",
                        kind.argument_noun()
                    ),
                );
            }
            if let Some(t) = find_impl_trait(&ty) {
                cx.error_spanned_by(
                    t,
                    format!(
                        "a {} cannot have an `impl Trait` type: use a concrete type",
                        kind.argument_noun()
                    ),
                );
            } else if let Type::Reference(r) = &ty {
                let owned = match &*r.elem {
                    Type::Path(p) if p.path.is_ident("str") => "String".to_owned(),
                    Type::Slice(s) => {
                        let e = &s.elem;
                        format!("Vec<{}>", quote::quote!(#e))
                    }
                    other => quote::quote!(#other).to_string(),
                };
                cx.error_spanned_by(
                    &ty,
                    format!(
                        "a {} is read from the request into a value the function owns: take `{owned}` instead of a reference",
                        kind.argument_noun()
                    ),
                );
            } else if let Some(inner) = ["Arc", "Rc"].iter().find_map(|w| generic_arg_of(&ty, w)) {
                cx.error_spanned_by(
                    &ty,
                    format!(
                        "shared state is not a {}: take it as `State<{}>` (register the value with `ServerBuilder::state`); a JSON argument is a plain owned type",
                        kind.argument_noun(),
                        quote::quote!(#inner)
                    ),
                );
            }
        } else if !forwarded.is_empty() {
            for a in &forwarded {
                cx.error_spanned_by(
                    a,
                    "`#[serde]` and `#[schemars]` apply only to JSON arguments; remove it from this parameter",
                );
            }
        }

        Param {
            ident,
            name,
            ty,
            kind: param_kind,
            doc: docs::description(&pt.attrs),
            described: forwarded::has_key(&forwarded, SCHEMARS, DESCRIPTION),
            forwarded,
            span: pt.span(),
        }
    }

    /// Whether it is a plain argument (not a context value or a client input).
    pub(crate) fn is_argument(&self) -> bool {
        matches!(self.kind, ParamKind::Argument)
    }
}

fn no_args(cx: &Ctxt, a: &Attribute, marker: Marker) {
    if !matches!(a.meta, Meta::Path(_)) {
        cx.error_spanned_by(a, format!("`#[{}]` takes no arguments", marker.name()));
    }
}
