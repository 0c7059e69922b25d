//! Reading the `#[serde(...)]` and `#[schemars(...)]` attributes a parameter or a field carries,
//! key by key, without taking them over: they are forwarded as written.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, LitStr, Token};

/// Calls `visit` with each top-level item of every `#[name(...)]` in `attrs`; the value of an
/// item the visitor leaves unread (`= value` or `(...)`) is skipped. A malformed attribute stops
/// at the mistake, which the attribute's own derive reports.
pub(crate) fn for_each_item(
    attrs: &[Attribute],
    name: &str,
    mut visit: impl FnMut(&ParseNestedMeta<'_>) -> syn::Result<()>,
) {
    for a in attrs.iter().filter(|a| a.path().is_ident(name)) {
        let _ = a.parse_nested_meta(|meta| {
            visit(&meta)?;
            skip_value(&meta)
        });
    }
}

/// Consumes an item's `= value` or `(...)`, if the visitor did not.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

/// Whether some `#[name(...)]` in `attrs` has the top-level key `key`
/// (`#[schemars(description = "...")]`).
pub(crate) fn has_key(attrs: &[Attribute], name: &str, key: &str) -> bool {
    let mut found = false;
    for_each_item(attrs, name, |meta| {
        found |= meta.path.is_ident(key);
        Ok(())
    });
    found
}

/// The string value of `key` in `#[serde(...)]`, if present (`#[serde(rename = "...")]`).
pub(crate) fn serde_string(attrs: &[Attribute], key: &str) -> Option<LitStr> {
    let mut found = None;
    for_each_item(attrs, super::keys::SERDE, |meta| {
        if meta.path.is_ident(key)
            && let Ok(s) = meta.value().and_then(|v| v.parse::<LitStr>())
        {
            found = Some(s);
        }
        Ok(())
    });
    found
}
