//! `#[tool]`.

use crate::attr::{self, Item, Slot};
use crate::check;
use crate::common::{self, AccessSpec, IconSpec};
use crate::ctxt::Ctxt;
use crate::expand::{self, Registered, local};
use crate::fallback;
use crate::model::{Function, Host, MacroKind};
use crate::paths::Paths;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ItemFn, LitBool, LitStr, Meta};

const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "annotations",
    "icon",
    "meta",
    "scopes",
    "authorize",
    "task",
    "crate",
];
const ANNOTATION_KEYS: &[&str] = &[
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "title",
];

/// The arguments of `#[tool(...)]`.
struct ToolAttrs {
    name: Option<LitStr>,
    title: Option<LitStr>,
    description: Option<LitStr>,
    annotations: Option<Annotations>,
    icons: Vec<IconSpec>,
    meta: Option<Expr>,
    access: AccessSpec,
    /// `task = "optional" | "required"`: the value, checked.
    task: Option<LitStr>,
    krate: Option<syn::Path>,
}

#[derive(Default)]
struct Annotations {
    read_only: Option<LitBool>,
    destructive: Option<LitBool>,
    idempotent: Option<LitBool>,
    open_world: Option<LitBool>,
    title: Option<LitStr>,
}

impl ToolAttrs {
    fn parse(cx: &Ctxt, args: TokenStream) -> ToolAttrs {
        let mut name = Slot::new("name");
        let mut title = Slot::new("title");
        let mut description = Slot::new("description");
        let mut annotations = Slot::new("annotations");
        let mut meta = Slot::new("meta");
        let mut krate = Slot::new("crate");
        let mut task = Slot::new("task");
        let mut icons = Vec::new();
        let mut access = AccessSpec::default();
        for item in attr::parse_items(cx, args) {
            let m = match item {
                Item::Meta(m) => m,
                Item::Lit(l) => {
                    cx.error_spanned_by(
                        &l,
                        "`#[tool]` takes `key = value` arguments: write `name = \"...\"` to name the tool",
                    );
                    continue;
                }
            };
            if access.read(cx, &m) {
                continue;
            }
            match attr::key(&m).as_str() {
                "name" => name.set(cx, &m, attr::string(cx, &m)),
                "title" => title.set(cx, &m, attr::string(cx, &m)),
                "description" => description.set(cx, &m, attr::string(cx, &m)),
                "annotations" => annotations.set(cx, &m, Some(parse_annotations(cx, &m))),
                "icon" => icons.extend(common::icon(cx, &m)),
                "meta" => meta.set(cx, &m, common::meta_expr(cx, &m)),
                "crate" => krate.set(cx, &m, common::crate_path(cx, &m)),
                "task" => task.set(cx, &m, task_mode(cx, &m)),
                _ => attr::unknown_key(cx, m.path(), KEYS, "`#[tool]`"),
            }
        }
        ToolAttrs {
            name: name.get(),
            title: title.get(),
            description: description.get(),
            annotations: annotations.get(),
            icons,
            meta: meta.get(),
            access,
            task: task.get(),
            krate: krate.get(),
        }
    }
}

/// `task = "optional"` or `task = "required"`.
fn task_mode(cx: &Ctxt, meta: &Meta) -> Option<LitStr> {
    let lit = attr::string(cx, meta)?;
    match lit.value().as_str() {
        "optional" | "required" => Some(lit),
        other => {
            cx.error_spanned_by(
                &lit,
                format!(
                    "`task` is \"optional\" (a task when the client declares the tasks extension) or \"required\" (always a task), not {other:?}"
                ),
            );
            None
        }
    }
}

fn parse_annotations(cx: &Ctxt, meta: &Meta) -> Annotations {
    let mut read_only = Slot::new("read_only");
    let mut destructive = Slot::new("destructive");
    let mut idempotent = Slot::new("idempotent");
    let mut open_world = Slot::new("open_world");
    let mut title = Slot::new("title");
    for m in attr::nested(cx, meta) {
        match attr::key(&m).as_str() {
            "read_only" => read_only.set(cx, &m, attr::flag(cx, &m)),
            "destructive" => destructive.set(cx, &m, attr::flag(cx, &m)),
            "idempotent" => idempotent.set(cx, &m, attr::flag(cx, &m)),
            "open_world" => open_world.set(cx, &m, attr::flag(cx, &m)),
            "title" => title.set(cx, &m, attr::string(cx, &m)),
            _ => attr::unknown_key(cx, m.path(), ANNOTATION_KEYS, "`annotations(...)`"),
        }
    }
    Annotations {
        read_only: read_only.get(),
        destructive: destructive.get(),
        idempotent: idempotent.get(),
        open_world: open_world.get(),
        title: title.get(),
    }
}

/// Entry point of `#[tool]`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<ItemFn>(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let cx = Ctxt::new();
            let attrs = ToolAttrs::parse(&cx, args);
            let paths = Paths::new(attrs.krate.clone());
            cx.error_at(
                Span::call_site(),
                "`#[tool]` goes on a free function (`fn` or `async fn`)",
            );
            return fallback::emit(input, cx.into_compile_errors(), &paths, &[Registered::Tool]);
        }
    };
    match expand_fn(args, item, Host::Free) {
        Ok((_, out)) => out,
        Err((errors, paths)) => fallback::emit(input, errors, &paths, &[Registered::Tool]),
    }
}

/// The tool of `item`, a function living in `host`: the function as it is re-emitted and the
/// generated items, or the errors (and where `mcp_runtime` is, for a fallback).
pub(crate) fn expand_fn(
    args: TokenStream,
    item: ItemFn,
    host: Host,
) -> Result<(ItemFn, TokenStream), (TokenStream, Paths)> {
    let cx = Ctxt::new();
    let attrs = ToolAttrs::parse(&cx, args);
    let paths = Paths::new(attrs.krate.clone());
    check::signature(&cx, &item, MacroKind::Tool);
    let func = Function::from_item(&cx, item, MacroKind::Tool, host);
    check::interpolations(&cx, &func, MacroKind::Tool);
    if let Some(task) = &attrs.task
        && !func.is_async()
    {
        cx.error_spanned_by(
            task,
            "a task tool runs on after its call is answered, so it is an `async fn`: add `async`",
        );
    }
    let name = match &attrs.name {
        Some(lit) => {
            if let Err(e) = check::tool_name(&lit.value()) {
                cx.error_spanned_by(lit, e);
            }
            lit.value()
        }
        None => {
            let ident = &func.item.sig.ident;
            let n = ident.to_string();
            let n = n.strip_prefix("r#").map(str::to_owned).unwrap_or(n);
            if let Err(e) = check::tool_name(&n) {
                cx.error_spanned_by(
                    ident,
                    format!("{e} (the name defaults to the function's name)"),
                );
            }
            n
        }
    };
    if cx.has_errors() {
        return Err((cx.into_compile_errors(), paths));
    }
    // Nothing can fail past this point.
    let _ = cx.check();
    let out = generate(&paths, &attrs, &func, &name);
    Ok((func.item, out))
}

fn generate(paths: &Paths, attrs: &ToolAttrs, func: &Function, name: &str) -> TokenStream {
    let p = paths.private();
    let proto = paths.protocol();
    let item = &func.item;
    let serde_crate = paths.private_crate_str("serde");
    let schemars_crate = paths.private_crate_str("schemars");

    // The arguments struct.
    // The struct is generic over the argument types, so the derives never name a user type (a
    // type that is not `Deserialize + JsonSchema` would fail in every generated method); it is
    // instantiated once, through `__McpArgument`, at the parameters' spans.
    let mut fields = Vec::new();
    let mut generics = Vec::new();
    let mut projected = Vec::new();
    let mut checks = Vec::new();
    let mut bind = Vec::new();
    for (i, param) in func.params.iter().enumerate() {
        if !param.is_argument() {
            continue;
        }
        let Some(ident) = &param.ident else { continue };
        let ty = &param.ty;
        let forwarded = &param.forwarded;
        let user_description = forwarded.iter().any(|a| {
            a.path().is_ident("schemars") && quote!(#a).to_string().contains("description")
        });
        let doc = match (&param.doc, user_description) {
            (Some(d), false) => quote!(#[schemars(description = #d)]),
            _ => TokenStream::new(),
        };
        match serde_shape(forwarded) {
            SerdeShape::Plain { default } => {
                let generic = format_ident!("__McpT{}", i);
                fields.push(quote!(#(#forwarded)* #doc #ident: #generic));
                generics.push(if default {
                    quote!(#generic: ::core::default::Default)
                } else {
                    quote!(#generic)
                });
                projected.push(quote_spanned!(ty.span()=> <#ty as __McpArgument>::Type));
            }
            // `deserialize_with`, `default = "path"`, `with`...: functions typed for the
            // concrete type, so the field keeps it (and is checked at the parameter first).
            SerdeShape::Custom => {
                fields.push(quote!(#(#forwarded)* #doc #ident: #ty));
                checks.push(quote_spanned!(ty.span()=> #p::assert_argument::<#ty>();));
            }
        }
        let l = local(i);
        bind.push(quote!(#ident: #l));
    }

    let outcome = quote!(#p::ToolOutcome);
    let prelude = expand::context_and_inputs(paths, func, &quote!(&__mcp_call.context), &outcome);
    let call = expand::call(paths, func);
    let ret = expand::return_type(func);
    let convert = match &ret {
        Some(r) => {
            quote_spanned!(r.span()=> <#r as #p::IntoToolResult>::into_tool_result(__mcp_out))
        }
        None => quote!(#p::IntoToolResult::into_tool_result(__mcp_out)),
    };
    let output_schema = ret.as_ref().map(|r| {
        quote_spanned! {r.span()=>
            if let ::core::option::Option::Some(__mcp_schema) = <#r as #p::IntoToolResult>::output_schema() {
                __mcp_tool = __mcp_tool.output_schema(__mcp_schema);
            }
        }
    });

    // A non-`async` function gets a plain-function handler: it runs when the request is
    // dispatched, without a future to allocate and poll.
    let (asyncness, register_handler) = if func.is_async() {
        (quote!(async), quote!(raw_handler))
    } else {
        (TokenStream::new(), quote!(sync_handler))
    };
    let builder = format_ident!("__mcp_tool");
    let mut setup = expand::title_and_description(
        "__mcp_tool",
        attrs.title.as_ref(),
        attrs.description.as_ref(),
        &item.attrs,
    );
    if let Some(a) = &attrs.annotations {
        let opt_bool = |b: &Option<LitBool>| match b {
            Some(b) => quote!(::core::option::Option::Some(#b)),
            None => quote!(::core::option::Option::None),
        };
        let ro = opt_bool(&a.read_only);
        let de = opt_bool(&a.destructive);
        let id = opt_bool(&a.idempotent);
        let ow = opt_bool(&a.open_world);
        let title = match &a.title {
            Some(t) => quote!(::core::option::Option::Some(::core::convert::Into::into(#t))),
            None => quote!(::core::option::Option::None),
        };
        setup.extend(quote! {
            __mcp_tool = __mcp_tool.annotations(#proto::ToolAnnotations {
                title: #title,
                read_only_hint: #ro,
                destructive_hint: #de,
                idempotent_hint: #id,
                open_world_hint: #ow,
            });
        });
    }
    for icon in &attrs.icons {
        let icon = expand::icon(paths, icon);
        setup.extend(quote!(__mcp_tool = __mcp_tool.icon(#icon);));
    }
    if let Some(m) = &attrs.meta {
        setup.extend(expand::meta(paths, &builder, m));
    }
    setup.extend(expand::access(paths, &builder, &attrs.access));
    if let Some(task) = &attrs.task {
        let mode = match task.value().as_str() {
            "required" => quote!(Required),
            _ => quote!(Optional),
        };
        setup.extend(quote!(__mcp_tool = __mcp_tool.task(#p::TaskSupport::#mode);));
    }
    setup.extend(expand::declarations(paths, func, &builder));

    let build = format_ident!("__mcp_build");
    let (handle, handle_impl) = expand::handle(paths, func, Registered::Tool, &build);
    let register = expand::registration(paths, func, Registered::Tool, name, &build);
    let allows = expand::allows();
    let argument_trait = expand::argument_trait(paths);
    let warning = expand::missing_description_warning(
        name,
        attrs.description.as_ref(),
        &item.attrs,
        item.sig.ident.span(),
    );

    let emitted = expand::emitted(func);
    quote! {
        #emitted

        #handle

        #allows
        const _: () = {
            #[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)]
            #[serde(crate = #serde_crate, deny_unknown_fields)]
            #[schemars(crate = #schemars_crate)]
            struct __McpArgs<#(#generics),*> {
                #(#fields,)*
            }

            #argument_trait

            #warning

            fn __mcp_checks() {
                #(#checks)*
            }

            #asyncness fn __mcp_handler(
                __mcp_call: #p::ToolCall,
            ) -> ::core::result::Result<#p::ToolOutcome, #p::McpError> {
                let __McpArgs { #(#bind),* } = match #p::parse_arguments::<__McpArgs<#(#projected),*>>(&__mcp_call) {
                    ::core::result::Result::Ok(__mcp_args) => __mcp_args,
                    ::core::result::Result::Err(__mcp_outcome) => {
                        return ::core::result::Result::Ok(__mcp_outcome);
                    }
                };
                #prelude
                #call
                #convert
            }

            fn #build() -> #p::Tool {
                let mut __mcp_tool = #p::Tool::new(#name);
                #setup
                __mcp_tool = __mcp_tool.input_schema_of::<__McpArgs<#(#projected),*>>();
                #output_schema
                __mcp_tool = __mcp_tool.#register_handler(__mcp_handler);
                __mcp_tool
            }

            #handle_impl

            #register
        };
    }
}

/// How a parameter's `#[serde(...)]` attributes let the arguments struct treat its field.
enum SerdeShape {
    /// Only names (`rename`, `alias`) and a plain `default`: the field can be generic.
    Plain { default: bool },
    /// Attributes naming functions typed for the concrete type.
    Custom,
}

fn serde_shape(attrs: &[syn::Attribute]) -> SerdeShape {
    let mut default = false;
    let mut custom = false;
    for a in attrs.iter().filter(|a| a.path().is_ident("serde")) {
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
                "rename" | "alias" => {}
                "default" if !has_value => default = true,
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
        SerdeShape::Plain { default }
    }
}
