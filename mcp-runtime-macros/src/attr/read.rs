//! Reading an attribute's arguments: its items ([`Item`], [`parse_items`], [`parse_keyed`],
//! [`nested`]) and their keys ([`key`]), each single value (a string, a flag, an integer, a
//! number, an expression), and [`Slot`], a value that may be given at most once.

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitBool, LitInt, LitStr, Meta, Path, Token};

/// One comma-separated item of a macro's arguments: a bare string literal (the URI of
/// `#[resource("...")]`) or a `key`, `key = value` or `key(...)` item.
#[allow(clippy::large_enum_variant)] // a few short-lived values per macro call
pub(crate) enum Item {
    Lit(LitStr),
    Meta(Meta),
}

impl Parse for Item {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(LitStr) {
            input.parse().map(Item::Lit)
        } else {
            input.parse().map(Item::Meta)
        }
    }
}

/// Parses a macro's argument list. A syntax error is recorded and yields no items.
pub(crate) fn parse_items(cx: &Ctxt, tokens: TokenStream) -> Vec<Item> {
    match Punctuated::<Item, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(items) => items.into_iter().collect(),
        Err(e) => {
            cx.syn_error(e);
            Vec::new()
        }
    }
}

/// The items of an attribute that takes `key = value` arguments only: each bare string literal
/// is reported (with `literal_error`) and skipped, in its place among the other items' errors.
pub(crate) fn parse_keyed<'a>(
    cx: &'a Ctxt,
    tokens: TokenStream,
    literal_error: &'a str,
) -> impl Iterator<Item = Meta> + 'a {
    parse_items(cx, tokens)
        .into_iter()
        .filter_map(move |item| match item {
            Item::Meta(m) => Some(m),
            Item::Lit(l) => {
                cx.error_spanned_by(&l, literal_error);
                None
            }
        })
}

/// Parses the contents of `key(...)` as a list of `key`, `key = value` and `key(...)` items.
pub(crate) fn nested(cx: &Ctxt, meta: &Meta) -> Vec<Meta> {
    match meta {
        Meta::List(list) => {
            match list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
                Ok(items) => items.into_iter().collect(),
                Err(e) => {
                    cx.syn_error(e);
                    Vec::new()
                }
            }
        }
        _ => {
            cx.error_spanned_by(
                meta,
                format!(
                    "`{}` expects a parenthesized list, like `{}(...)`",
                    key(meta),
                    key(meta)
                ),
            );
            Vec::new()
        }
    }
}

/// The key of an item, as written (`name`, `open_world`, `crate`).
pub(crate) fn key(meta: &Meta) -> String {
    path_string(meta.path())
}

pub(crate) fn path_string(path: &Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// A value that may be given at most once.
pub(crate) struct Slot<T> {
    name: &'static str,
    value: Option<T>,
}

impl<T> Slot<T> {
    pub(crate) fn new(name: &'static str) -> Self {
        Slot { name, value: None }
    }
    /// Stores the value; a second one is an error at `at`.
    pub(crate) fn set<A: ToTokens>(&mut self, cx: &Ctxt, at: A, value: Option<T>) {
        if self.value.is_some() {
            cx.error_spanned_by(
                at,
                format!(
                    "`{}` is given more than once; keep only one of them",
                    self.name
                ),
            );
            return;
        }
        if value.is_some() {
            self.value = value;
        }
    }
    pub(crate) fn get(self) -> Option<T> {
        self.value
    }
    pub(crate) fn as_ref(&self) -> Option<&T> {
        self.value.as_ref()
    }
}

fn value_of<'m>(cx: &Ctxt, meta: &'m Meta, example: &str) -> Option<&'m Expr> {
    match meta {
        Meta::NameValue(nv) => Some(&nv.value),
        _ => {
            cx.error_spanned_by(
                meta,
                format!(
                    "`{}` expects a value, like `{} = {example}`",
                    key(meta),
                    key(meta)
                ),
            );
            None
        }
    }
}

/// `key = "text"`.
pub(crate) fn string(cx: &Ctxt, meta: &Meta) -> Option<LitStr> {
    match value_of(cx, meta, "\"...\"")? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.clone()),
        other => {
            cx.error_spanned_by(
                other,
                format!(
                    "`{}` expects a string literal, like `{} = \"...\"`",
                    key(meta),
                    key(meta)
                ),
            );
            None
        }
    }
}

/// `key` (meaning `true`) or `key = true|false`.
pub(crate) fn flag(cx: &Ctxt, meta: &Meta) -> Option<LitBool> {
    match meta {
        Meta::Path(p) => Some(LitBool::new(true, syn::spanned::Spanned::span(p))),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            }) => Some(b.clone()),
            other => {
                cx.error_spanned_by(
                    other,
                    format!(
                        "`{}` expects `true` or `false` (or nothing, meaning `true`)",
                        key(meta)
                    ),
                );
                None
            }
        },
        Meta::List(_) => {
            cx.error_spanned_by(
                meta,
                format!(
                    "`{}` is a flag: write `{}` or `{} = false`",
                    key(meta),
                    key(meta),
                    key(meta)
                ),
            );
            None
        }
    }
}

/// `key = 123` (a non-negative integer that fits `u64`).
pub(crate) fn integer(cx: &Ctxt, meta: &Meta) -> Option<LitInt> {
    match value_of(cx, meta, "123")? {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => {
            if let Err(e) = i.base10_parse::<u64>() {
                cx.error_spanned_by(
                    i,
                    format!("`{}` expects a non-negative integer: {e}", key(meta)),
                );
                return None;
            }
            Some(i.clone())
        }
        other => {
            cx.error_spanned_by(
                other,
                format!(
                    "`{}` expects an integer literal, like `{} = 100`",
                    key(meta),
                    key(meta)
                ),
            );
            None
        }
    }
}

/// `key = <number literal>`, possibly negative, as a `serde_json::Number`-compatible literal.
pub(crate) fn number(cx: &Ctxt, meta: &Meta) -> Option<Expr> {
    let value = value_of(cx, meta, "0")?;
    let inner = match value {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => &*u.expr,
        other => other,
    };
    match inner {
        Expr::Lit(ExprLit {
            lit: Lit::Int(_) | Lit::Float(_),
            ..
        }) => Some(value.clone()),
        _ => {
            cx.error_spanned_by(
                value,
                format!(
                    "`{}` expects a number literal, like `{} = 10`",
                    key(meta),
                    key(meta)
                ),
            );
            None
        }
    }
}

/// `key = <any expression>`.
pub(crate) fn expr(cx: &Ctxt, meta: &Meta) -> Option<Expr> {
    value_of(cx, meta, "<expression>").cloned()
}
