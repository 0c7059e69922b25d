//! A tool's arguments struct: one field per JSON argument, deriving the input schema, with a
//! `Deserialize` impl that calls the runtime for everything but its own fields.
//!
//! The struct is generic over the argument types, so that its impls never name a user type (a
//! type that is not `Deserialize + JsonSchema` would fail in every generated method); it is
//! instantiated once, through `Argument`, at the parameters' spans. Its `Deserialize` impl is
//! written here, not derived, when no field needs serde's attributes (a plain
//! `#[serde(default)]` aside): serde's derive expands a field enum, a field visitor and a
//! sequence visitor into every tool, and instantiates them for every deserializer, where this
//! impl has a map visitor whose steps are the runtime's (`FieldKey`, `field_value`, `required`),
//! generic only over the field types. Its errors are worded as the derive's are.

use super::inputs::local;
use crate::attr::keys::{ALIAS, DEFAULT, RENAME, SERDE};
use crate::model::Function;
use crate::paths::Paths;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

/// The arguments struct of a tool and what its handler does with it.
pub(crate) struct ArgumentsStruct {
    /// The struct and its impls.
    pub(crate) items: TokenStream,
    /// The struct instantiated with the parameters' types.
    pub(crate) ty: TokenStream,
    /// The pattern binding each field to its parameter's local.
    pub(crate) pattern: TokenStream,
    /// Checks of fields typed by their parameter's own type (`assert_argument`).
    pub(crate) checks: TokenStream,
}

/// One JSON argument.
struct Field<'a> {
    ident: &'a Ident,
    /// The type parameter standing for its type, when the field is generic.
    generic: Option<Ident>,
    /// `#[serde(default)]` without a function.
    default: bool,
    /// The description from its doc comment (empty for none).
    description: String,
}

/// The arguments struct of `func`.
pub(crate) fn arguments_struct(paths: &Paths, func: &Function) -> ArgumentsStruct {
    let p = paths.private();
    let serde_crate = paths.private_crate_str("serde");
    let schemars_crate = paths.private_crate_str("schemars");
    let mut fields = Vec::new();
    let mut declared = Vec::new();
    let mut generics = Vec::new();
    let mut projected = Vec::new();
    let mut checks = TokenStream::new();
    let mut bind = Vec::new();
    // Whether every field can be read by the runtime's steps (no serde attribute but a plain
    // `default`), and described by them (no attribute at all: a doc comment at most).
    let mut compact = true;
    let mut plain_schema = true;
    for (i, param) in func.params.iter().enumerate() {
        if !param.is_argument() {
            continue;
        }
        let Some(ident) = &param.ident else { continue };
        let ty = &param.ty;
        let forwarded = &param.forwarded;
        plain_schema &= forwarded.is_empty();
        let doc = match (&param.doc, param.described) {
            (Some(d), false) => quote!(#[schemars(description = #d)]),
            _ => TokenStream::new(),
        };
        let description = match (&param.doc, param.described) {
            (Some(d), false) => d.clone(),
            _ => String::new(),
        };
        let field = match serde_shape(forwarded) {
            SerdeShape::Plain { default, renamed } => {
                compact &= !renamed;
                let generic = format_ident!("__McpT{}", i);
                declared.push(quote!(#(#forwarded)* #doc #ident: #generic));
                generics.push(if default {
                    quote!(#generic: ::core::default::Default)
                } else {
                    quote!(#generic)
                });
                projected.push(quote_spanned!(ty.span()=> <#ty as #p::Argument>::Type));
                Field {
                    ident,
                    generic: Some(generic),
                    default,
                    description,
                }
            }
            // `deserialize_with`, `default = "path"`, `with`...: functions typed for the
            // concrete type, so the field keeps it (and is checked at the parameter first).
            SerdeShape::Custom => {
                compact = false;
                declared.push(quote!(#(#forwarded)* #doc #ident: #ty));
                checks.extend(quote_spanned!(ty.span()=> #p::assert_argument::<#ty>();));
                Field {
                    ident,
                    generic: None,
                    default: false,
                    description,
                }
            }
        };
        fields.push(field);
        let l = local(i);
        bind.push(quote!(#ident: #l));
    }
    let derived = match (compact, plain_schema && compact) {
        (_, true) => None,
        (true, false) => Some(quote!(#[derive(#p::schemars::JsonSchema)])),
        (false, _) => Some(quote!(#[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)])),
    };
    let deserialize = compact.then(|| deserialize_impl(&p, &fields));
    let schema = derived.is_none().then(|| schema_impl(&p, &fields));
    // The attributes the derives read; written impls read none.
    let (attributes, declared) = match derived {
        Some(derives) => (
            quote! {
                #derives
                #[serde(crate = #serde_crate, deny_unknown_fields)]
                #[schemars(crate = #schemars_crate)]
            },
            declared,
        ),
        None => {
            let bare = fields.iter().map(|f| {
                let (ident, generic) = (f.ident, &f.generic);
                quote!(#ident: #generic)
            });
            (TokenStream::new(), bare.collect())
        }
    };
    let checks = match checks.is_empty() {
        true => checks,
        false => quote!(fn __mcp_checks() { #checks }),
    };
    ArgumentsStruct {
        items: quote! {
            #attributes
            struct __McpArgs<#(#generics),*> {
                #(#declared,)*
            }
            #deserialize
            #schema
        },
        ty: quote!(__McpArgs<#(#projected),*>),
        pattern: quote!(__McpArgs { #(#bind),* }),
        checks,
    }
}

/// `Deserialize` for the arguments struct, every field generic: a map visitor reading each key
/// with the runtime's `FieldKey` and each value with `field_value`, then `required` for each
/// field missing (or its default).
fn deserialize_impl(p: &TokenStream, fields: &[Field<'_>]) -> TokenStream {
    let serde = quote!(#p::serde);
    let generics: Vec<&Ident> = fields.iter().filter_map(|f| f.generic.as_ref()).collect();
    // Each type parameter's bounds: `Deserialize`, and `Default` for a defaulted field (as the
    // struct declares).
    let bounds: Vec<TokenStream> = fields
        .iter()
        .filter_map(|f| {
            let g = f.generic.as_ref()?;
            Some(match f.default {
                true => quote!(#g: #serde::Deserialize<'de> + ::core::default::Default),
                false => quote!(#g: #serde::Deserialize<'de>),
            })
        })
        .collect();
    let names: Vec<String> = fields.iter().map(|f| f.ident.unraw().to_string()).collect();
    let slots: Vec<Ident> = (0..fields.len())
        .map(|i| format_ident!("__f{}", i))
        .collect();
    let arms =
        slots.iter().zip(&names).enumerate().map(
            |(i, (slot, name))| quote!(#i => #p::field_value(&mut __map, &mut #slot, #name)?,),
        );
    let values = fields
        .iter()
        .zip(&slots)
        .zip(&names)
        .map(|((f, slot), name)| {
            let ident = f.ident;
            match f.default {
                true => quote!(#ident: ::core::option::Option::unwrap_or_default(#slot)),
                false => quote!(#ident: #p::required(#slot, #name)?),
            }
        });
    quote! {
        #[automatically_derived]
        impl<'de, #(#bounds),*> #serde::Deserialize<'de> for __McpArgs<#(#generics),*> {
            fn deserialize<__D: #serde::Deserializer<'de>>(
                __deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                struct __McpVisitor<#(#generics),*>(::core::marker::PhantomData<(#(#generics,)*)>);
                #[automatically_derived]
                impl<'de, #(#bounds),*> #serde::de::Visitor<'de> for __McpVisitor<#(#generics),*> {
                    type Value = __McpArgs<#(#generics),*>;
                    fn expecting(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        __f.write_str("struct __McpArgs")
                    }
                    fn visit_map<__A: #serde::de::MapAccess<'de>>(
                        self,
                        mut __map: __A,
                    ) -> ::core::result::Result<Self::Value, __A::Error> {
                        #(let mut #slots = ::core::option::Option::None;)*
                        while let ::core::option::Option::Some(__key) =
                            #serde::de::MapAccess::next_key_seed(&mut __map, #p::FieldKey(FIELDS))?
                        {
                            match __key {
                                #(#arms)*
                                _ => {}
                            }
                        }
                        ::core::result::Result::Ok(__McpArgs { #(#values),* })
                    }
                }
                const FIELDS: &[&str] = &[#(#names),*];
                #serde::Deserializer::deserialize_struct(
                    __deserializer,
                    "__McpArgs",
                    FIELDS,
                    __McpVisitor(::core::marker::PhantomData),
                )
            }
        }
    }
}

/// `JsonSchema` for the arguments struct, no field carrying an attribute: the runtime's object
/// schema, then each field's property (its subschema, its doc comment, required unless an
/// `Option`), as schemars' derive writes them.
fn schema_impl(p: &TokenStream, fields: &[Field<'_>]) -> TokenStream {
    let schemars = quote!(#p::schemars);
    let generics: Vec<&Ident> = fields.iter().filter_map(|f| f.generic.as_ref()).collect();
    let properties = fields.iter().filter_map(|f| {
        let generic = f.generic.as_ref()?;
        let name = f.ident.unraw().to_string();
        let description = &f.description;
        Some(quote!(#p::property::<#generic>(&mut __schema, __generator, #name, #description);))
    });
    quote! {
        #[automatically_derived]
        impl<#(#generics: #schemars::JsonSchema),*> #schemars::JsonSchema for __McpArgs<#(#generics),*> {
            fn schema_name() -> #p::std::borrow::Cow<'static, str> {
                #p::std::borrow::Cow::Borrowed("__McpArgs")
            }
            fn schema_id() -> #p::std::borrow::Cow<'static, str> {
                #p::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::__McpArgs"))
            }
            fn json_schema(__generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                let mut __schema = #p::object_schema();
                #(#properties)*
                __schema
            }
        }
    }
}

/// How a parameter's `#[serde(...)]` attributes let the arguments struct treat its field.
enum SerdeShape {
    /// Only names (`rename`, `alias`) and a plain `default`: the field can be generic.
    Plain { default: bool, renamed: bool },
    /// Attributes naming functions typed for the concrete type.
    Custom,
}

fn serde_shape(attrs: &[syn::Attribute]) -> SerdeShape {
    let mut default = false;
    let mut renamed = false;
    let mut custom = false;
    for a in attrs.iter().filter(|a| a.path().is_ident(SERDE)) {
        let parsed = a.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let has_value = meta.input.peek(syn::Token![=]);
            if has_value {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|_| Ok(()))?;
            }
            match key.as_str() {
                RENAME | ALIAS => renamed = true,
                DEFAULT if !has_value => default = true,
                _ => custom = true,
            }
            Ok(())
        });
        if parsed.is_err() {
            custom = true;
        }
    }
    if custom {
        SerdeShape::Custom
    } else {
        SerdeShape::Plain { default, renamed }
    }
}
