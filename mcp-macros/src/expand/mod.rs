//! Code generation, one module per macro, from a checked model; the pieces they share are here.
//! Everything generated is named through `::mcp_runtime::__private` and sits inside
//! `const _: () = { ... };`.

pub(crate) mod form;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod tool;

use crate::attr::shared::{AccessSpec, CompletionSource, IconSpec};
use crate::kind::Kind;
use crate::model::{Function, Host, InputKind, Message, ParamKind};
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

/// Local items, defined in each generated `const _` block, through which string-typed
/// parameters (template variables, prompt arguments) are parsed: with `FromStr` when the type
/// has it, else with serde from the string (a unit enum deriving `Deserialize` takes its
/// variant's name). The choice is made by method resolution (`&&__McpParse<T>` finds the
/// `FromStr` impl first, on `&__McpParse<T>`, then the serde one, on `__McpParse<T>`).
pub(crate) fn from_str_trait(paths: &Paths, noun: &str) -> TokenStream {
    let p = paths.private();
    let message = format!("`{{Self}}` cannot be a {noun}");
    let label = format!(
        "a {noun} arrives as a string: it is parsed with `FromStr`, or with serde from the string"
    );
    let note = "use `String`, a number, `bool`, a type implementing `std::str::FromStr` (whose `Err` implements `Display`), or an enum deriving `serde::Deserialize`";
    quote! {
        struct __McpParse<T>(::core::marker::PhantomData<T>);
        trait __McpViaFromStr<T> {
            fn __mcp_parse(&self, s: &str) -> ::core::result::Result<T, ::std::string::String>;
        }
        #[automatically_derived]
        impl<T> __McpViaFromStr<T> for &__McpParse<T>
        where
            T: ::core::str::FromStr,
            <T as ::core::str::FromStr>::Err: ::core::fmt::Display,
        {
            fn __mcp_parse(&self, s: &str) -> ::core::result::Result<T, ::std::string::String> {
                <T as ::core::str::FromStr>::from_str(s).map_err(|e| ::std::string::ToString::to_string(&e))
            }
        }
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        trait __McpFromString: ::core::marker::Sized {
            fn __mcp_from(s: &str) -> ::core::result::Result<Self, ::std::string::String>;
        }
        #[automatically_derived]
        impl<T: #p::serde::de::DeserializeOwned> __McpFromString for T {
            fn __mcp_from(s: &str) -> ::core::result::Result<T, ::std::string::String> {
                #p::string_argument(s)
            }
        }
        // The bound sits on the method, not the impl: method resolution always finds this
        // fallback, and a type that is neither gets the bound's error, worded above.
        trait __McpViaSerde<T> {
            fn __mcp_parse(&self, s: &str) -> ::core::result::Result<T, ::std::string::String>
            where
                T: __McpFromString;
        }
        #[automatically_derived]
        impl<T> __McpViaSerde<T> for __McpParse<T> {
            fn __mcp_parse(&self, s: &str) -> ::core::result::Result<T, ::std::string::String>
            where
                T: __McpFromString,
            {
                <T as __McpFromString>::__mcp_from(s)
            }
        }
    }
}

/// The call parsing `value` (a `&String`) into `ty` with [`from_str_trait`]'s items.
pub(crate) fn parse_string(ty: &syn::Type, value: TokenStream) -> TokenStream {
    quote_spanned!(ty.span()=> (&&__McpParse::<#ty>(::core::marker::PhantomData)).__mcp_parse(#value))
}

/// A local trait through which each JSON argument's type is projected in the arguments struct:
/// a type that is not `Deserialize + JsonSchema` fails there, once, at the parameter's type,
/// instead of in every method the derives generate.
pub(crate) fn argument_trait(paths: &Paths) -> TokenStream {
    let p = paths.private();
    quote! {
        #[diagnostic::on_unimplemented(
            message = "`{Self}` cannot be a tool argument",
            label = "tool arguments must implement `serde::Deserialize` and `schemars::JsonSchema`",
            note = "derive `Deserialize` and `JsonSchema` for it, or, if it is a context value such as a progress reporter, mark the parameter with `#[ctx]`"
        )]
        trait __McpArgument {
            type Type;
        }
        #[automatically_derived]
        impl<T: #p::ToolArgument> __McpArgument for T {
            type Type = T;
        }
    }
}

/// The local holding the value of parameter `i`.
pub(crate) fn local(i: usize) -> Ident {
    format_ident!("__mcp_p{}", i)
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
    /// The runtime type (`Tool`), also the name of its `Primitive` and `PrimitiveKind` variant.
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
        fn __mcp_primitive() -> #p::Primitive {
            #p::Primitive::#ty(#build())
        }
        #p::inventory::submit! {
            #p::Registration::new(#p::PrimitiveKind::#ty, #key, __mcp_primitive, #owner, ::core::file!(), ::core::line!(), ::core::column!())
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

/// `builder = builder.title(..)` and `.description(..)`: the attribute's description, else the
/// doc comment's. Shared by `#[tool]`, `#[resource]` and `#[prompt]`.
pub(crate) fn title_and_description(
    builder: &str,
    title: Option<&syn::LitStr>,
    description: Option<&syn::LitStr>,
    attrs: &[syn::Attribute],
) -> TokenStream {
    let b = format_ident!("{}", builder);
    let mut out = TokenStream::new();
    if let Some(t) = title {
        out.extend(quote!(#b = #b.title(#t);));
    }
    let description = description
        .map(syn::LitStr::value)
        .or_else(|| crate::docs::description(attrs));
    if let Some(d) = description {
        out.extend(quote!(#b = #b.description(#d);));
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

/// A client input's text: the literal as it is, or, when it interpolates `{name}` arguments
/// (checked against the arguments by `check::interpolations`), formatted with their values.
fn text(func: &Function, lit: &syn::LitStr) -> TokenStream {
    let names = crate::interpolate::placeholders(&lit.value()).unwrap_or_default();
    if names.is_empty() {
        // No argument to insert: `{{` and `}}` are braces here too, as `format!` reads them.
        let text = lit.value().replace("{{", "{").replace("}}", "}");
        let lit = syn::LitStr::new(&text, lit.span());
        return quote!(#lit);
    }
    let values = names.iter().filter_map(|name| {
        let i = func
            .params
            .iter()
            .position(|p| p.is_argument() && p.ident.as_ref().is_some_and(|id| id == name))?;
        let name = format_ident!("{}", name);
        let l = local(i);
        Some(quote_spanned!(func.params[i].ty.span()=> #name = &#l))
    });
    quote!(&::std::format!(#lit, #(#values),*))
}

/// Whether a text is the same on every call (no `{argument}` placeholders).
fn plain(lit: &syn::LitStr) -> bool {
    crate::interpolate::placeholders(&lit.value())
        .unwrap_or_default()
        .is_empty()
}

/// `ask` with a `static` place of its own, `__MCP_ASK`, where its request is written once.
fn once(p: &TokenStream, ask: TokenStream) -> TokenStream {
    quote!({
        static __MCP_ASK: #p::AskOnce = #p::AskOnce::new();
        #ask
    })
}

/// What the parameters declare on the builder: `needs(..)` for every context parameter that
/// needs shared state (`State<T>`, or `&self`), so that building a server without the state
/// fails instead of the first call; `asks_client_input()` when the function asks the client for
/// input (a `#[roots]`, `#[sample]` or `#[elicit]` parameter, or `Rounds`).
pub(crate) fn declarations(paths: &Paths, func: &Function, builder: &Ident) -> TokenStream {
    let p = paths.private();
    let mut out = TokenStream::new();
    if let Host::Impl {
        self_ty,
        receiver: true,
    } = &func.host
    {
        out.extend(quote!(#builder = #builder.needs(#p::StateNeed::of::<#self_ty>());));
    }
    for param in func
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Context))
    {
        let ty = &param.ty;
        out.extend(quote_spanned! {ty.span()=>
            if let ::core::option::Option::Some(__mcp_need) = <#ty as #p::FromContext>::state_need() {
                #builder = #builder.needs(__mcp_need);
            }
            if <#ty as #p::FromContext>::asks_client_input() {
                #builder = #builder.asks_client_input();
            }
        });
    }
    if func
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Input(_)))
    {
        out.extend(quote!(#builder = #builder.asks_client_input();));
    }
    out
}

/// Bindings of the context and client-input parameters, given the request context expression
/// and the outcome type used to answer `input_required`.
pub(crate) fn context_and_inputs(
    paths: &Paths,
    func: &Function,
    context: &TokenStream,
    outcome: &TokenStream,
) -> TokenStream {
    let p = paths.private();
    let mut out = TokenStream::new();
    if let Host::Impl {
        self_ty,
        receiver: true,
    } = &func.host
    {
        out.extend(quote! {
            let __mcp_self = <#p::State<#self_ty> as #p::FromContext>::from_context(#context)?;
        });
    }
    for (i, param) in func.params.iter().enumerate() {
        if let ParamKind::Context = param.kind {
            let l = local(i);
            let ty = &param.ty;
            let extract = quote_spanned!(ty.span()=> <#ty as #p::FromContext>::from_context);
            out.extend(quote!(let #l = #extract(#context)?;));
        }
    }
    let inputs: Vec<_> = func
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, param)| match &param.kind {
            ParamKind::Input(input) => Some((i, param, input)),
            _ => None,
        })
        .collect();
    if inputs.is_empty() {
        return out;
    }
    let count = inputs.len();
    out.extend(quote!(let mut __mcp_inputs = #p::InputSet::with_capacity(#context, #count)?;));
    for (i, param, input) in &inputs {
        let slot = format_ident!("__mcp_s{}", i);
        let key = &input.key;
        let required = !input.optional;
        let ask = match &input.kind {
            InputKind::Roots => quote!(__mcp_inputs.roots(#key, #required)),
            InputKind::Sample {
                prompt,
                max_tokens,
                system_prompt,
            } => {
                let system = match system_prompt {
                    Some(s) => {
                        let s = text(func, s);
                        quote!(::core::option::Option::Some(#s))
                    }
                    None => quote!(::core::option::Option::None::<&str>),
                };
                let fixed = plain(prompt) && system_prompt.as_ref().is_none_or(plain);
                let prompt = text(func, prompt);
                match fixed {
                    true => once(
                        &p,
                        quote!(__mcp_inputs.sample_prompt_once(&__MCP_ASK, #key, #required, #prompt, #max_tokens, #system)),
                    ),
                    false => {
                        quote!(__mcp_inputs.sample_prompt(#key, #required, #prompt, #max_tokens, #system))
                    }
                }
            }
            InputKind::Elicit {
                message: Message::Function(path),
                form,
            } => {
                let form = match form {
                    Some(t) => quote!(#t),
                    None => quote!(_),
                };
                // The function gets the receiver (a method's `&self`), the request's context
                // and each argument, and answers the message.
                let receiver = match &func.host {
                    Host::Impl { receiver: true, .. } => quote!(&*__mcp_self,),
                    _ => TokenStream::new(),
                };
                let arguments = func
                    .params
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_argument())
                    .map(|(i, _)| {
                        let l = local(i);
                        quote!(&#l)
                    });
                // `Self::f` names the impl's type: the handler is generated outside the impl.
                let callee = match (&func.host, path.segments.first()) {
                    (Host::Impl { self_ty, .. }, Some(first))
                        if first.ident == "Self" && path.segments.len() > 1 =>
                    {
                        let rest = path.segments.iter().skip(1);
                        quote_spanned!(path.span()=> <#self_ty>::#(#rest)::*)
                    }
                    _ => quote!(#path),
                };
                quote_spanned! {path.span()=> {
                    let __mcp_message = #callee(#receiver #context, #(#arguments),*);
                    __mcp_inputs.elicit::<#form>(
                        #key,
                        #required,
                        ::core::convert::AsRef::<str>::as_ref(&__mcp_message),
                    )
                }}
            }
            InputKind::Elicit {
                message: Message::Text(message),
                form,
            } => {
                let form = match form {
                    Some(t) => quote!(#t),
                    None => quote!(_),
                };
                let fixed = plain(message);
                let message = text(func, message);
                match fixed {
                    true => once(
                        &p,
                        quote_spanned!(param.ty.span()=> __mcp_inputs.elicit_once::<#form>(&__MCP_ASK, #key, #required, #message)),
                    ),
                    false => {
                        quote_spanned!(param.ty.span()=> __mcp_inputs.elicit::<#form>(#key, #required, #message))
                    }
                }
            }
        };
        out.extend(quote!(let #slot = #ask;));
    }
    out.extend(quote! {
        if let ::core::option::Option::Some(__mcp_ask) = __mcp_inputs.finish()? {
            return ::core::result::Result::Ok(#outcome::InputRequired(__mcp_ask));
        }
    });
    for (i, _, input) in &inputs {
        let slot = format_ident!("__mcp_s{}", i);
        let l = local(*i);
        if input.optional {
            out.extend(quote!(let #l = __mcp_inputs.take_optional(#slot)?;));
        } else {
            out.extend(quote!(let #l = __mcp_inputs.take(#slot)?;));
        }
    }
    out
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
