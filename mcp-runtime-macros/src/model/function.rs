//! An annotated function: where it lives, its parameters, and the function as it is re-emitted.

use crate::ctxt::Ctxt;
use crate::kind::Kind;
use crate::model::param::{Param, is_helper_attr};
use syn::{FnArg, ItemFn, Type};

/// Where an annotated function lives.
#[derive(Clone)]
pub(crate) enum Host {
    /// A free function, called as `name(..)`.
    Free,
    /// An associated function of `self_ty`, in a `#[handlers]` impl; `receiver` when it takes
    /// `&self` (the value registered as the server's shared state).
    Impl { self_ty: Box<Type>, receiver: bool },
}

/// An annotated function.
pub(crate) struct Function {
    /// The function as it is re-emitted: helper attributes and parameter docs removed.
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    pub(crate) host: Host,
}

/// Removes the attributes this crate understands from a function's parameters, so that the
/// re-emitted function compiles whatever else went wrong.
pub(crate) fn strip(item: &mut ItemFn) {
    for input in &mut item.sig.inputs {
        if let FnArg::Typed(pt) = input {
            pt.attrs.retain(|a| !is_helper_attr(a));
        }
    }
}

impl Function {
    /// Builds the model; mistakes are recorded in `cx`. `item` is the function as written.
    pub(crate) fn from_item(cx: &Ctxt, mut item: ItemFn, kind: Kind, host: Host) -> Function {
        let mut params = Vec::new();
        let mut host = host;
        for input in &item.sig.inputs {
            match (input, &mut host) {
                (FnArg::Receiver(r), Host::Free) => cx.error_spanned_by(
                    r,
                    format!(
                        "{} on a method needs `#[handlers]` on its `impl` block (the value is registered with `ServerBuilder::handlers`); or remove `self` and make it a free function",
                        kind.attr()
                    ),
                ),
                (FnArg::Receiver(r), Host::Impl { receiver, .. }) => {
                    let shared = matches!(r.kind, syn::ReceiverKind::Reference(_, _, None));
                    if !shared || r.mutability.is_some() {
                        cx.error_spanned_by(
                            r,
                            "take `&self`: requests are served concurrently and share the registered value (use interior mutability, such as a `Mutex`, to change it)",
                        );
                    }
                    *receiver = true;
                }
                (FnArg::Typed(pt), _) => params.push(Param::from_syn(cx, pt, kind)),
            }
        }
        strip(&mut item);
        Function { item, params, host }
    }

    pub(crate) fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
    }

    /// The name a primitive takes when the attribute gives none: the function's, without `r#`.
    pub(crate) fn default_name(&self) -> String {
        let n = self.item.sig.ident.to_string();
        n.strip_prefix("r#").map(str::to_owned).unwrap_or(n)
    }

    /// The plain arguments (tool arguments, template variables, prompt arguments).
    pub(crate) fn arguments(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.is_argument())
    }
}
