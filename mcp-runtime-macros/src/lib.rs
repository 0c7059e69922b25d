//! Attribute macros of the MCP server framework: `#[tool]`, `#[resource]`, `#[prompt]` and
//! `#[derive(ElicitForm)]`.
//!
//! Use them through `mcp_runtime` (`use mcp_runtime::tool;`): the generated code names only
//! `::mcp_runtime::__private`, so a server depends on `mcp-runtime` alone. Every macro keeps the
//! annotated function as written (callable from your own code and tests) and adds, next to it,
//! a registration collected by `Server::from_inventory()` and a same-named *handle* struct for
//! explicit registration (`Server::builder().tool(add {})`).
//!
//! Mistakes are compile errors at the narrowest span, all reported at once; the function is
//! still emitted so the rest of the crate keeps compiling.

// Every attribute goes through `driver`: `attr` parses its arguments, `check` the signature,
// `model` builds the function's model, `check` checks it, and only then does `expand`
// generate; `fallback` is what is emitted instead when anything was wrong. `handlers` (the
// `#[handlers]` impl block) runs the driver once per marked method.

mod app_sdk;
mod attr;
mod check;
mod ctxt;
mod docs;
mod driver;
mod expand;
mod fallback;
mod handlers;
mod interpolate;
mod kind;
mod model;
mod paths;
#[cfg(feature = "skills")]
mod skills;

use kind::Kind;
use proc_macro::TokenStream;

#[doc = include_str!("../doc/tool.md")]
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    driver::expand(Kind::Tool, args.into(), item.into()).into()
}

#[doc = include_str!("../doc/resource.md")]
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    driver::expand(Kind::Resource, args.into(), item.into()).into()
}

#[doc = include_str!("../doc/prompt.md")]
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    driver::expand(Kind::Prompt, args.into(), item.into()).into()
}

#[doc = include_str!("../doc/handlers.md")]
#[proc_macro_attribute]
pub fn handlers(args: TokenStream, item: TokenStream) -> TokenStream {
    handlers::expand(args.into(), item.into()).into()
}

#[doc = include_str!("../doc/elicit_form.md")]
#[proc_macro_derive(ElicitForm, attributes(form))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    expand::form::expand(input.into()).into()
}

#[doc = include_str!("../doc/app_sdk.md")]
#[proc_macro]
pub fn app_sdk(input: TokenStream) -> TokenStream {
    app_sdk::expand(input.into(), proc_macro::Span::call_site().local_file()).into()
}

#[doc = include_str!("../doc/skills.md")]
#[proc_macro]
pub fn skills(input: TokenStream) -> TokenStream {
    #[cfg(feature = "skills")]
    return skills::expand(input.into(), proc_macro::Span::call_site().local_file()).into();
    #[cfg(not(feature = "skills"))]
    {
        let _ = input;
        skills_off(proc_macro2::Span::call_site()).into()
    }
}

/// `skills!` without the `skills` feature: reading a folder needs a YAML parser and
/// descriptor-relative file access, built only for servers that serve skills.
#[cfg(not(feature = "skills"))]
fn skills_off(span: proc_macro2::Span) -> proc_macro2::TokenStream {
    let message = "`skills!` reads a skills folder at compile time: turn on mcp-runtime's \
                   `skills` feature (`mcp-runtime = { version = \"0.1\", features = \
                   [\"skills\"] }`)";
    syn::Error::new(span, message).to_compile_error()
}

#[cfg(all(test, not(feature = "skills")))]
mod tests {
    /// The error names the feature and the line that turns it on (run by `cargo test -p
    /// mcp-runtime-macros --lib`, where the feature is off).
    #[test]
    fn skills_without_the_feature_names_it() {
        let error = super::skills_off(proc_macro2::Span::call_site()).to_string();
        assert!(error.starts_with(":: core :: compile_error !"), "{error}");
        assert!(
            error.contains("turn on mcp-runtime's `skills` feature"),
            "{error}"
        );
        assert!(error.contains(r#"features = [\"skills\"]"#), "{error}");
    }
}
