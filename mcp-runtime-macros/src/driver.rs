//! The one path every attribute (`#[tool]`, `#[resource]`, `#[prompt]`) takes: parse its
//! arguments, check the signature, build the model, check the model, then, only when nothing
//! was wrong, generate. On any mistake the output is the fallback: the user's function as
//! written, a stand-in handle, and every error at its token.

use crate::attr::Attrs;
use crate::check;
use crate::ctxt::Ctxt;
use crate::expand;
use crate::fallback;
use crate::kind::Kind;
use crate::model::{Host, Model, Spec};
use crate::paths::Paths;
use proc_macro2::{Span, TokenStream};
use syn::ItemFn;

/// A function expanded: the function as it is re-emitted (helper attributes removed) and the
/// items generated for it.
pub(crate) struct Expanded {
    pub(crate) item: ItemFn,
    pub(crate) generated: TokenStream,
}

/// A function whose attribute or signature has mistakes.
pub(crate) struct Failed {
    /// Every mistake, combined.
    pub(crate) error: syn::Error,
    /// Where `mcp_runtime` is, for the fallback's stand-in handle.
    pub(crate) paths: Paths,
}

impl Failed {
    /// The mistakes as `compile_error!` invocations.
    pub(crate) fn errors(&self) -> TokenStream {
        self.error.to_compile_error()
    }
}

/// Entry point of the attribute `kind` on a free function.
pub(crate) fn expand(kind: Kind, args: TokenStream, input: TokenStream) -> TokenStream {
    let failed = match syn::parse2::<ItemFn>(input.clone()) {
        Ok(item) => match expand_fn(kind, args, item, Host::Free) {
            Ok(expanded) => return expanded.generated,
            Err(failed) => failed,
        },
        Err(_) => not_a_function(kind, args),
    };
    fallback::emit(
        input,
        failed.errors(),
        &failed.paths,
        expand::Registered::of(kind),
    )
}

/// The attribute on something that is not a function: its arguments are still read, for their
/// own mistakes and for `crate = path`.
fn not_a_function(kind: Kind, args: TokenStream) -> Failed {
    let cx = Ctxt::new();
    let attrs = Attrs::parse(&cx, kind, args);
    let paths = Paths::new(attrs.common().krate.clone());
    let misplaced = syn::Error::new(
        Span::call_site(),
        format!(
            "`{}` goes on a free function (`fn` or `async fn`)",
            kind.attr()
        ),
    );
    // The arguments' own mistakes first, then where the attribute is.
    let error = match cx.check() {
        Ok(()) => misplaced,
        Err(mut error) => {
            error.combine(misplaced);
            error
        }
    };
    Failed { error, paths }
}

/// The primitive `kind` of `item`, a function living in `host`: the function as it is
/// re-emitted and the items generated for it.
pub(crate) fn expand_fn(
    kind: Kind,
    args: TokenStream,
    item: ItemFn,
    host: Host,
) -> Result<Expanded, Failed> {
    let (model, paths) = checked_model(kind, args, item, host)?;
    let generated = generate(&paths, &model);
    Ok(Expanded {
        item: model.func.item,
        generated,
    })
}

/// Parses the arguments, checks the signature, builds the model and checks it; the model (and
/// where `mcp_runtime` is) when nothing was wrong, else every mistake at once.
pub(crate) fn checked_model(
    kind: Kind,
    args: TokenStream,
    item: ItemFn,
    host: Host,
) -> Result<(Model, Paths), Failed> {
    let cx = Ctxt::new();
    let attrs = Attrs::parse(&cx, kind, args);
    let paths = Paths::new(attrs.common().krate.clone());
    check::signature(&cx, &item, kind);
    let model = Model::from_ast(&cx, attrs, item, host);
    check::model(&cx, &model);
    cx.check().map_err(|error| Failed {
        error,
        paths: paths.clone(),
    })?;
    Ok((model, paths))
}

/// The generated items of a checked model.
fn generate(paths: &Paths, model: &Model) -> TokenStream {
    let func = &model.func;
    match &model.spec {
        Spec::Tool(tool) => expand::tool::generate(paths, func, tool),
        Spec::Resource(resource) => expand::resource::generate(paths, func, resource),
        Spec::Prompt(prompt) => expand::prompt::generate(paths, func, prompt),
    }
}
