//! Code generation, one module per macro, from a checked model; the pieces they share are here
//! (and, re-exported, in `inputs.rs` and `strings.rs`).
//! Everything generated is named through `::mcp_runtime::__private` and sits inside
//! `const _: () = { ... };`.

mod arguments;
pub(crate) mod form;
mod inputs;
pub(crate) mod prompt;
pub(crate) mod resource;
mod strings;
pub(crate) mod tool;

pub(crate) use arguments::{ArgumentsStruct, arguments_struct};
pub(crate) use inputs::{context_and_inputs, declarations, local};
pub(crate) use strings::{Noun, parse_string, refuses_strings, ways_in_scope};

use crate::attr::shared::{AccessSpec, CompletionSource, IconSpec};
use crate::kind::Kind;
use crate::model::{Function, Host};
use crate::paths::Paths;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Lints silenced on generated items.
pub(crate) fn allows() -> TokenStream {
    quote! {
        #[allow(
            non_camel_case_types,
            non_snake_case,
            unused_qualifications,
            unused_imports,
            unused_variables,
            unused_mut,
            dead_code,
            missing_docs,
            unreachable_code,
            clippy::all,
            clippy::pedantic,
            clippy::nursery
        )]
    }
}

/// The kind of primitive an attribute registers: which runtime type, conversion trait and
/// builder method its handle goes with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Registered {
    Tool,
    Resource,
    ResourceTemplate,
    Prompt,
}

impl Registered {
    /// The primitives a function of `kind` may register as; the fallback handle converts into
    /// each of them.
    pub(crate) fn of(kind: Kind) -> &'static [Registered] {
        match kind {
            Kind::Tool => &[Registered::Tool],
            Kind::Resource => &[Registered::Resource, Registered::ResourceTemplate],
            Kind::Prompt => &[Registered::Prompt],
        }
    }
    /// The runtime type (`Tool`), also the name of its `Primitive`, `PrimitiveKind` and `Build`
    /// variant.
    fn ty(self) -> Ident {
        format_ident!(
            "{}",
            match self {
                Registered::Tool => "Tool",
                Registered::Resource => "Resource",
                Registered::ResourceTemplate => "ResourceTemplate",
                Registered::Prompt => "Prompt",
            }
        )
    }
    /// The `ServerBuilder` method taking it (`tool`).
    fn method(self) -> &'static str {
        match self {
            Registered::Tool => "tool",
            Registered::Resource => "resource",
            Registered::ResourceTemplate => "resource_template",
            Registered::Prompt => "prompt",
        }
    }
    /// The conversion into it: trait and method (`IntoTool`, `into_tool`).
    fn conversion(self) -> (Ident, Ident) {
        (
            format_ident!("Into{}", self.ty()),
            format_ident!("into_{}", self.method()),
        )
    }
}

/// The conversion of a handle `ident` into its primitive (`build` makes a `Tool`, or whichever
/// type `kind` names), and into any primitive when `any`.
pub(crate) fn conversions(
    paths: &Paths,
    kind: Registered,
    ident: &Ident,
    build: &TokenStream,
    any: bool,
) -> TokenStream {
    let p = paths.private();
    let ty = kind.ty();
    let (into, into_method) = kind.conversion();
    let primitive = any.then(|| {
        quote! {
            #[automatically_derived]
            impl #p::IntoPrimitive for #ident {
                fn into_primitive(self) -> #p::Primitive {
                    #p::Primitive::#ty(#build)
                }
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #p::#into for #ident {
            fn #into_method(self) -> #p::#ty {
                #build
            }
        }
        #primitive
    }
}

/// `pub struct add {}` (emitted beside the function) and its conversions (emitted inside the
/// `const _` block, next to the build function they call).
pub(crate) fn handle(
    paths: &Paths,
    func: &Function,
    kind: Registered,
    build: &Ident,
) -> (TokenStream, TokenStream) {
    if let Host::Impl { .. } = func.host {
        // Registered through its impl's `Handlers`: no handle beside a method.
        return (TokenStream::new(), TokenStream::new());
    }
    let vis = &func.item.vis;
    let ident = &func.item.sig.ident;
    let noun = match kind {
        Registered::Tool => "tool",
        Registered::Resource => "resource",
        Registered::ResourceTemplate => "resource template",
        Registered::Prompt => "prompt",
    };
    let doc = format!(
        "Registration handle of the `{ident}` {noun}: `Server::builder().{}({ident} {{}})`.",
        kind.method()
    );
    let def = quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #ident {}
    };
    (
        def,
        conversions(paths, kind, ident, &quote!(#build()), true),
    )
}

/// `inventory::submit!` of the item (a method's registration names its impl's type).
pub(crate) fn registration(
    paths: &Paths,
    func: &Function,
    kind: Registered,
    key: &str,
    build: &Ident,
) -> TokenStream {
    let p = paths.private();
    let ty = kind.ty();
    let owner = match &func.host {
        Host::Free => quote!(::core::option::Option::None),
        Host::Impl { self_ty, .. } => quote! {
            ::core::option::Option::Some(#p::std::any::TypeId::of::<#self_ty>)
        },
    };
    quote! {
        #p::inventory::submit! {
            #p::Registration::new(#key, #p::Build::#ty(#build), #owner, ::core::file!(), ::core::line!(), ::core::column!())
        }
    }
}

/// The function as the user wrote it, where it is re-emitted next to the generated items: a free
/// function here, a method by its `impl` block.
pub(crate) fn emitted(func: &Function) -> TokenStream {
    match func.host {
        Host::Free => {
            let item = &func.item;
            quote!(#item)
        }
        Host::Impl { .. } => TokenStream::new(),
    }
}

/// The title and the description (the attribute's, else the doc comment's), each as an
/// `Option<&'static str>` expression (the fields of `#[tool]`'s `ToolSpec`).
pub(crate) fn title_and_description(
    title: Option<&syn::LitStr>,
    description: Option<&syn::LitStr>,
    attrs: &[syn::Attribute],
) -> (TokenStream, TokenStream) {
    let some = |text: Option<String>| match text {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let description = description
        .map(syn::LitStr::value)
        .or_else(|| crate::docs::description(attrs));
    (some(title.map(syn::LitStr::value)), some(description))
}

/// `builder = builder.title(..)` and `.description(..)`, as [`title_and_description`] finds
/// them (`#[resource]` and `#[prompt]`).
pub(crate) fn title_and_description_setters(
    builder: &Ident,
    title: Option<&syn::LitStr>,
    description: Option<&syn::LitStr>,
    attrs: &[syn::Attribute],
) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(t) = title {
        out.extend(quote!(#builder = #builder.title(#t);));
    }
    let description = description
        .map(syn::LitStr::value)
        .or_else(|| crate::docs::description(attrs));
    if let Some(d) = description {
        out.extend(quote!(#builder = #builder.description(#d);));
    }
    out
}

/// A compile-time warning, at `span`, that the tool has no description (stable proc macros
/// cannot emit warnings: the use of a deprecated item carries the message). Nothing when it has
/// one.
pub(crate) fn missing_description_warning(
    name: &str,
    description: Option<&syn::LitStr>,
    attrs: &[syn::Attribute],
    span: proc_macro2::Span,
) -> TokenStream {
    if description.is_some() || crate::docs::description(attrs).is_some() {
        return TokenStream::new();
    }
    let note = format!(
        "tool `{name}` has no description, so the model is told nothing about when to use it: add a `///` doc comment or `#[tool(description = \"...\")]`"
    );
    let use_site = quote_spanned!(span=> let _ = __mcp_no_description;);
    quote! {
        #[deprecated(note = #note)]
        struct __mcp_no_description;
        fn __mcp_description_check() {
            #use_site
        }
    }
}

/// `Icon::new(src).mime_type(..).sizes([..]).theme(..)`.
pub(crate) fn icon(paths: &Paths, icon: &IconSpec) -> TokenStream {
    let proto = paths.protocol();
    let src = &icon.src;
    let mut t = quote!(#proto::Icon::new(#src));
    if let Some(m) = &icon.mime_type {
        t = quote!(#t.mime_type(#m));
    }
    if !icon.sizes.is_empty() {
        let sizes = &icon.sizes;
        t = quote!(#t.sizes([#(#sizes),*]));
    }
    if let Some(th) = &icon.theme {
        t = quote!(#t.theme(#th));
    }
    t
}

/// The builder calls of `scopes = [...]` and `authorize = path`.
pub(crate) fn access(paths: &Paths, builder: &Ident, spec: &AccessSpec) -> TokenStream {
    let p = paths.private();
    let mut t = TokenStream::new();
    if !spec.scopes.is_empty() {
        let scopes = &spec.scopes;
        t.extend(quote!(#builder = #builder.scopes([#(#scopes),*]);));
    }
    if let Some(check) = &spec.authorize {
        t.extend(quote_spanned! {check.span()=>
            #builder = #builder.authorize(#p::AccessCheck::new(#check));
        });
    }
    t
}

/// A `Completer` expression.
pub(crate) fn completer(paths: &Paths, source: &CompletionSource) -> TokenStream {
    let c = paths.completer();
    match source {
        CompletionSource::Function(path) => quote_spanned!(path.span()=> #c::new(#path)),
        CompletionSource::Values(values) => {
            let elems = values.elems.iter();
            quote!(#c::from_values([#(#elems),*]))
        }
    }
}

/// `Option<Map>`-valued `meta` expression applied to a builder named `b`.
pub(crate) fn meta(paths: &Paths, builder: &Ident, expr: &syn::Expr) -> TokenStream {
    let p = paths.private();
    quote_spanned! {expr.span()=>
        match ::core::convert::Into::<#p::serde_json::Value>::into(#expr) {
            #p::serde_json::Value::Object(__mcp_meta) => #builder = #builder.meta(__mcp_meta),
            __mcp_other => {
                #builder = #builder.invalid(#p::std::format!(
                    "its `meta` must be a JSON object, not `{}`",
                    __mcp_other
                ));
            }
        }
    }
}

/// Calls the user's function with every parameter's local and binds the result to `__mcp_out`.
/// An async function's future is boxed as `Send` right at the call, spanned at the function, so
/// a non-`Send` future is reported there (and only there).
pub(crate) fn call(paths: &Paths, func: &Function) -> TokenStream {
    let p = paths.private();
    let ident = &func.item.sig.ident;
    let locals = (0..func.params.len()).map(local);
    let (callee, receiver) = match &func.host {
        Host::Free => (quote!(#ident), TokenStream::new()),
        Host::Impl { self_ty, receiver } => (
            quote!(<#self_ty>::#ident),
            if *receiver {
                quote!(&*__mcp_self,)
            } else {
                TokenStream::new()
            },
        ),
    };
    if func.is_async() {
        let span = ident.span();
        // Checked for `Send` here, at the function's name, without boxing it a second time
        // (the handler's own future is boxed already).
        let boxed = quote_spanned! {span=>
            let __mcp_fut = #p::assert_send(#callee(#receiver #(#locals),*));
        };
        quote! {
            #boxed
            let __mcp_out = __mcp_fut.await;
        }
    } else {
        quote!(let __mcp_out = #callee(#receiver #(#locals),*);)
    }
}

/// The declared return type, if it can be named (not `impl Trait`).
pub(crate) fn return_type(func: &Function) -> Option<TokenStream> {
    match &func.item.sig.output {
        syn::ReturnType::Default => Some(quote!(())),
        syn::ReturnType::Type(_, ty) => {
            if contains_impl_trait(ty) {
                None
            } else {
                Some(quote!(#ty))
            }
        }
    }
}

fn contains_impl_trait(ty: &syn::Type) -> bool {
    ty_tokens_have_impl(&quote!(#ty))
}

fn ty_tokens_have_impl(ts: &TokenStream) -> bool {
    ts.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "impl",
        proc_macro2::TokenTree::Group(g) => ty_tokens_have_impl(&g.stream()),
        _ => false,
    })
}
