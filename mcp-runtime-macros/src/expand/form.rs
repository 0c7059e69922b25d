//! `#[derive(ElicitForm)]`: the `requestedSchema` of an elicitation form (struct of flat
//! fields), or a string choice usable as a form field (fieldless enum).

use crate::attr::forwarded::serde_string;
use crate::attr::keys::{
    DESCRIPTION, FORM, FORMAT, MAX_LENGTH, MAXIMUM, MIN_LENGTH, MINIMUM, RENAME, RENAME_ALL, TITLE,
};
use crate::attr::{self, Slot};
use crate::ctxt::Ctxt;
use crate::docs;
use crate::paths::Paths;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, ExprLit, Fields, Lit, LitInt, LitStr};

const FIELD_KEYS: &[&str] = &[
    TITLE,
    DESCRIPTION,
    MIN_LENGTH,
    MAX_LENGTH,
    MINIMUM,
    MAXIMUM,
    FORMAT,
    RENAME,
];
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// Entry point of `#[derive(ElicitForm)]`.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let cx = Ctxt::new();
    let paths = Paths::new(None);
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &input.generics,
            "`ElicitForm` cannot be derived for a generic type: a form has one fixed schema",
        );
    }
    let rename_all = serde_rename_all(&cx, &input.attrs);
    let out = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => form_struct(&cx, &paths, &input, named, rename_all.as_deref()),
            other => {
                cx.error_spanned_by(
                    other,
                    "`ElicitForm` needs a struct with named fields (each field is one question of the form)",
                );
                TokenStream::new()
            }
        },
        Data::Enum(e) => choice_enum(&cx, &paths, &input, e, rename_all.as_deref()),
        Data::Union(u) => {
            cx.error_spanned_by(
                u.union_token,
                "`ElicitForm` cannot be derived for a union: use a struct or a fieldless enum",
            );
            TokenStream::new()
        }
    };
    match cx.check() {
        Ok(()) => out,
        Err(e) => e.to_compile_error(),
    }
}

struct FieldAttrs {
    title: Option<LitStr>,
    description: Option<LitStr>,
    min_length: Option<LitInt>,
    max_length: Option<LitInt>,
    minimum: Option<Expr>,
    maximum: Option<Expr>,
    format: Option<LitStr>,
    rename: Option<LitStr>,
}

fn field_attrs(cx: &Ctxt, attrs: &[Attribute], allowed: &[&str]) -> FieldAttrs {
    let mut title = Slot::new(TITLE);
    let mut description = Slot::new(DESCRIPTION);
    let mut min_length = Slot::new(MIN_LENGTH);
    let mut max_length = Slot::new(MAX_LENGTH);
    let mut minimum = Slot::new(MINIMUM);
    let mut maximum = Slot::new(MAXIMUM);
    let mut format: Slot<LitStr> = Slot::new(FORMAT);
    let mut rename: Slot<LitStr> = Slot::new(RENAME);
    for a in attrs.iter().filter(|a| a.path().is_ident(FORM)) {
        for m in attr::nested(cx, &a.meta) {
            let k = attr::key(&m);
            if !allowed.contains(&k.as_str()) {
                attr::unknown_key(cx, m.path(), allowed, "`#[form]`");
                continue;
            }
            match k.as_str() {
                TITLE => title.set(cx, &m, attr::string(cx, &m)),
                DESCRIPTION => description.set(cx, &m, attr::string(cx, &m)),
                MIN_LENGTH => min_length.set(cx, &m, attr::integer(cx, &m)),
                MAX_LENGTH => max_length.set(cx, &m, attr::integer(cx, &m)),
                MINIMUM => minimum.set(cx, &m, attr::number(cx, &m)),
                MAXIMUM => maximum.set(cx, &m, attr::number(cx, &m)),
                FORMAT => {
                    let f = attr::string(cx, &m);
                    if let Some(f) = &f
                        && !FORMATS.contains(&f.value().as_str())
                    {
                        cx.error_spanned_by(
                            f,
                            format!(
                                "elicitation forms support the formats {}",
                                FORMATS
                                    .iter()
                                    .map(|f| format!("\"{f}\""))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        );
                    }
                    format.set(cx, &m, f)
                }
                // `RENAME`, the one key left in `allowed`.
                _ => rename.set(cx, &m, attr::string(cx, &m)),
            }
        }
    }
    // `#[serde(rename = "...")]` names the property too (serde reads the answer).
    if rename.as_ref().is_none()
        && let Some(r) = serde_string(attrs, RENAME)
    {
        rename.set(cx, &r, Some(r.clone()));
    }
    FieldAttrs {
        title: title.get(),
        description: description.get(),
        min_length: min_length.get(),
        max_length: max_length.get(),
        minimum: minimum.get(),
        maximum: maximum.get(),
        format: format.get(),
        rename: rename.get(),
    }
}

fn serde_rename_all(cx: &Ctxt, attrs: &[Attribute]) -> Option<String> {
    let lit = serde_string(attrs, RENAME_ALL)?;
    let v = lit.value();
    if rename(&v, "a_b", false).is_none() {
        cx.error_spanned_by(
            &lit,
            format!("`ElicitForm` does not know the `rename_all` rule \"{v}\""),
        );
        return None;
    }
    Some(v)
}

/// Applies a serde `rename_all` rule to a field (`snake_case`) or variant (`PascalCase`) name.
fn rename(rule: &str, name: &str, variant: bool) -> Option<String> {
    let words: Vec<String> = if variant {
        let mut words = Vec::new();
        let mut cur = String::new();
        for c in name.chars() {
            if c.is_uppercase() && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            cur.push(c);
        }
        if !cur.is_empty() {
            words.push(cur);
        }
        words.into_iter().map(|w| w.to_lowercase()).collect()
    } else {
        name.split('_')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let cap = |w: &String| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    Some(match rule {
        "lowercase" => words.concat(),
        "UPPERCASE" => words.concat().to_uppercase(),
        "PascalCase" => words.iter().map(cap).collect(),
        "camelCase" => {
            let mut s = String::new();
            for (i, w) in words.iter().enumerate() {
                s += &if i == 0 { w.clone() } else { cap(w) };
            }
            s
        }
        "snake_case" => words.join("_"),
        "SCREAMING_SNAKE_CASE" => words.join("_").to_uppercase(),
        "kebab-case" => words.join("-"),
        "SCREAMING-KEBAB-CASE" => words.join("-").to_uppercase(),
        _ => return None,
    })
}

fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

fn number_value(p: &TokenStream, e: &Expr) -> TokenStream {
    let is_float = match e {
        Expr::Lit(ExprLit {
            lit: Lit::Float(_), ..
        }) => true,
        Expr::Unary(u) => matches!(
            &*u.expr,
            Expr::Lit(ExprLit {
                lit: Lit::Float(_),
                ..
            })
        ),
        _ => false,
    };
    if is_float {
        quote!(#p::serde_json::Value::from(#e as f64))
    } else {
        quote!(#p::serde_json::Value::from(#e as i64))
    }
}

fn form_struct(
    cx: &Ctxt,
    paths: &Paths,
    input: &DeriveInput,
    fields: &syn::FieldsNamed,
    rename_all: Option<&str>,
) -> TokenStream {
    let p = paths.private();
    let ident = &input.ident;
    let mut body = TokenStream::new();
    let mut seen: Vec<String> = Vec::new();
    for field in &fields.named {
        let Some(fident) = &field.ident else { continue };
        let fa = field_attrs(cx, &field.attrs, FIELD_KEYS);
        let name = match (&fa.rename, rename_all) {
            (Some(r), _) => r.value(),
            (None, Some(rule)) => {
                rename(rule, &unraw(fident), false).unwrap_or_else(|| unraw(fident))
            }
            (None, None) => unraw(fident),
        };
        if seen.contains(&name) {
            cx.error_spanned_by(fident, format!("two fields of the form are named `{name}`"));
        }
        seen.push(name.clone());
        let ty = &field.ty;
        let mut inserts = TokenStream::new();
        let mut put = |key: &str, value: TokenStream| {
            inserts.extend(quote!(__mcp_s.insert(::core::convert::Into::into(#key), #value);));
        };
        if let Some(t) = &fa.title {
            put("title", quote!(#p::serde_json::Value::from(#t)));
        }
        let description = fa
            .description
            .as_ref()
            .map(LitStr::value)
            .or_else(|| docs::description(&field.attrs));
        if let Some(d) = description {
            put("description", quote!(#p::serde_json::Value::from(#d)));
        }
        if let Some(n) = &fa.min_length {
            put("minLength", quote!(#p::serde_json::Value::from(#n as u64)));
        }
        if let Some(n) = &fa.max_length {
            put("maxLength", quote!(#p::serde_json::Value::from(#n as u64)));
        }
        if let Some(n) = &fa.minimum {
            put("minimum", number_value(&p, n));
        }
        if let Some(n) = &fa.maximum {
            put("maximum", number_value(&p, n));
        }
        if let Some(f) = &fa.format {
            put("format", quote!(#p::serde_json::Value::from(#f)));
        }
        let schema = quote_spanned!(ty.span()=> <#ty as #p::FormField>::field_schema());
        let optional = quote_spanned!(ty.span()=> <#ty as #p::FormField>::OPTIONAL);
        body.extend(quote! {
            {
                let mut __mcp_s = #schema;
                #inserts
                __mcp_props.insert(::core::convert::Into::into(#name), #p::serde_json::Value::Object(__mcp_s));
                if !#optional {
                    __mcp_required.push(#p::serde_json::Value::from(#name));
                }
            }
        });
    }
    let allows = crate::expand::allows();
    quote! {
        #allows
        const _: () = {
            #[automatically_derived]
            impl #p::ElicitForm for #ident {
                fn requested_schema() -> #p::serde_json::Map<#p::std::string::String, #p::serde_json::Value> {
                    let mut __mcp_props = #p::serde_json::Map::new();
                    let mut __mcp_required: #p::std::vec::Vec<#p::serde_json::Value> = #p::std::vec::Vec::new();
                    #body
                    let mut __mcp_schema = #p::serde_json::Map::new();
                    __mcp_schema.insert(::core::convert::Into::into("type"), #p::serde_json::Value::from("object"));
                    __mcp_schema.insert(::core::convert::Into::into("properties"), #p::serde_json::Value::Object(__mcp_props));
                    if !__mcp_required.is_empty() {
                        __mcp_schema.insert(::core::convert::Into::into("required"), #p::serde_json::Value::Array(__mcp_required));
                    }
                    __mcp_schema
                }
                fn shared_schema() -> #p::std::sync::Arc<#p::serde_json::Map<#p::std::string::String, #p::serde_json::Value>> {
                    static __MCP_SCHEMA: #p::std::sync::OnceLock<
                        #p::std::sync::Arc<#p::serde_json::Map<#p::std::string::String, #p::serde_json::Value>>,
                    > = #p::std::sync::OnceLock::new();
                    #p::std::sync::Arc::clone(__MCP_SCHEMA.get_or_init(|| {
                        #p::std::sync::Arc::new(<Self as #p::ElicitForm>::requested_schema())
                    }))
                }
            }
        };
    }
}

fn choice_enum(
    cx: &Ctxt,
    paths: &Paths,
    input: &DeriveInput,
    e: &syn::DataEnum,
    rename_all: Option<&str>,
) -> TokenStream {
    let p = paths.private();
    let ident = &input.ident;
    let mut names = Vec::new();
    for v in &e.variants {
        if !matches!(v.fields, Fields::Unit) {
            cx.error_spanned_by(
                &v.fields,
                "a form choice cannot carry data: `ElicitForm` on an enum needs unit variants (each one is an option of a string choice)",
            );
            continue;
        }
        let fa = field_attrs(cx, &v.attrs, &[RENAME]);
        let name = match (&fa.rename, rename_all) {
            (Some(r), _) => r.value(),
            (None, Some(rule)) => {
                rename(rule, &unraw(&v.ident), true).unwrap_or_else(|| unraw(&v.ident))
            }
            (None, None) => unraw(&v.ident),
        };
        names.push(name);
    }
    if e.variants.is_empty() {
        cx.error_spanned_by(ident, "a form choice needs at least one variant");
    }
    let title = serde_or_doc_title(input);
    let allows = crate::expand::allows();
    quote! {
        #allows
        const _: () = {
            #[automatically_derived]
            impl #p::FormField for #ident {
                const OPTIONAL: bool = false;
                fn field_schema() -> #p::serde_json::Map<#p::std::string::String, #p::serde_json::Value> {
                    let mut __mcp_s = #p::serde_json::Map::new();
                    __mcp_s.insert(::core::convert::Into::into("type"), #p::serde_json::Value::from("string"));
                    __mcp_s.insert(
                        ::core::convert::Into::into("enum"),
                        #p::serde_json::Value::Array(#p::std::vec![#(#p::serde_json::Value::from(#names)),*]),
                    );
                    #title
                    __mcp_s
                }
            }
        };
    }
}

/// A fieldless enum's `///` doc becomes the description of the choice.
fn serde_or_doc_title(input: &DeriveInput) -> TokenStream {
    match docs::description(&input.attrs) {
        Some(d) => {
            let p = Paths::new(None).private();
            quote!(__mcp_s.insert(::core::convert::Into::into("description"), #p::serde_json::Value::from(#d));)
        }
        None => TokenStream::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::rename;

    #[test]
    fn rename_rules() {
        assert_eq!(
            rename("camelCase", "review_goal", false).unwrap(),
            "reviewGoal"
        );
        assert_eq!(
            rename("kebab-case", "ReviewGoal", true).unwrap(),
            "review-goal"
        );
        assert_eq!(
            rename("snake_case", "ReviewGoal", true).unwrap(),
            "review_goal"
        );
        assert_eq!(rename("SCREAMING_SNAKE_CASE", "a_b", false).unwrap(), "A_B");
        assert!(rename("weird", "a", false).is_none());
    }
}
