//! `#[handlers]` on an `impl` block: its methods marked `#[tool]`, `#[resource]` or `#[prompt]`
//! become primitives, served with the value registered by `ServerBuilder::handlers` as their
//! shared state (`&self`).

use crate::attr::keys::CRATE;
use crate::ctxt::Ctxt;
use crate::driver::{self, Expanded};
use crate::kind::Kind;
use crate::model::{Host, strip};
use crate::paths::Paths;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, ImplItem, ItemFn, ItemImpl, Meta};

/// The primitive a method's attribute declares, if it is one of ours.
fn kind_of(attr: &Attribute) -> Option<Kind> {
    Kind::of_path(attr.path())
}

/// Entry point of `#[handlers]`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let krate = if args.is_empty() {
        None
    } else {
        match syn::parse2::<syn::MetaNameValue>(args) {
            Ok(nv) if nv.path.is_ident(CRATE) => match nv.value {
                syn::Expr::Path(p) => Some(p.path),
                other => {
                    cx.error_spanned_by(other, "write `crate = path::to::mcp_runtime`");
                    None
                }
            },
            Ok(nv) => {
                cx.error_spanned_by(nv.path, "`#[handlers]` takes only `crate = path`");
                None
            }
            Err(e) => {
                cx.error_at(e.span(), "`#[handlers]` takes only `crate = path`");
                None
            }
        }
    };
    let paths = Paths::new(krate);
    let mut imp = match syn::parse2::<ItemImpl>(input.clone()) {
        Ok(imp) => imp,
        Err(_) => {
            cx.error_at(
                Span::call_site(),
                "`#[handlers]` goes on an `impl` block of the type whose value serves the methods (`#[handlers] impl Notes { .. }`)",
            );
            let errors = cx.into_compile_errors();
            return quote!(#input #errors);
        }
    };
    if let Some((path, _)) = &imp.trait_ {
        cx.error_spanned_by(
            path,
            "`#[handlers]` goes on an inherent `impl` block (`impl Notes { .. }`), not on a trait implementation",
        );
        let errors = cx.into_compile_errors();
        return quote!(#imp #errors);
    }
    if let Some(g) = imp.generics.params.first() {
        cx.error_spanned_by(
            g,
            "`#[handlers]` cannot be generic: the registry needs one concrete type, registered as the server's shared state",
        );
        let errors = cx.into_compile_errors();
        return quote!(#imp #errors);
    }
    let self_ty = (*imp.self_ty).clone();
    let mut generated = Vec::new();
    let mut errors = TokenStream::new();
    let mut found = 0;
    for item in &mut imp.items {
        let ImplItem::Fn(method) = item else { continue };
        let Some((pos, kind)) = method
            .attrs
            .iter()
            .enumerate()
            .find_map(|(i, a)| kind_of(a).map(|k| (i, k)))
        else {
            continue;
        };
        let attr = method.attrs.remove(pos);
        found += 1;
        if let Some(second) = method.attrs.iter().find(|a| kind_of(a).is_some()) {
            cx.error_spanned_by(
                second,
                "a method declares one primitive: it already has another `#[tool]`, `#[resource]` or `#[prompt]`",
            );
            method.attrs.retain(|a| kind_of(a).is_none());
            continue;
        }
        let args = match &attr.meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(list) => list.tokens.clone(),
            Meta::NameValue(nv) => {
                cx.error_spanned_by(nv, "write `#[tool(...)]`, not `#[tool = ...]`");
                continue;
            }
        };
        let mut function = ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            modifiers: method.modifiers.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let host = Host::Impl {
            self_ty: Box::new(self_ty.clone()),
            receiver: false,
        };
        match driver::expand_fn(kind, args, function.clone(), host) {
            Ok(Expanded {
                item: stripped,
                generated: items,
            }) => {
                method.sig = stripped.sig;
                generated.push(items);
            }
            Err(failed) => {
                // The method stays as written, minus the helper attributes, so that the rest
                // of the crate compiles while the mistakes are shown.
                strip(&mut function);
                method.sig = function.sig;
                errors.extend(failed.errors());
            }
        }
    }
    if found == 0 {
        cx.error_at(
            Span::call_site(),
            "`#[handlers]` found no method marked `#[tool]`, `#[resource]` or `#[prompt]` in this `impl` block",
        );
        let errors = cx.into_compile_errors();
        return quote!(#imp #errors);
    }
    errors.extend(cx.into_compile_errors());
    let p = paths.private();
    quote! {
        #imp
        #(#generated)*
        #[automatically_derived]
        impl #p::Handlers for #self_ty {}
        #errors
    }
}
