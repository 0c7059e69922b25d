//! What the macros read from a parameter's type, by its path alone (no type information).

use syn::{GenericArgument, PathArguments, Type};

/// Extractor types recognized without `#[ctx]` (last path segment). The list is closed: any
/// other context value needs `#[ctx]`. The trait bound `FromContext` is checked regardless.
const CONTEXT_TYPES: &[&str] = &[
    "RequestContext",
    "Progress",
    "Logger",
    "CancellationToken",
    "State",
    "Caller",
];

/// `T` when `ty` is `Option<T>` (by its last path segment).
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    generic_arg_of(ty, "Option")
}

/// `T` when `ty` is `name<T>` (by its last path segment): `Elicitation<T>`, `Arc<T>`.
pub(crate) fn generic_arg_of<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let Type::Path(tp) = ty else { return None };
    if tp.qself.is_some() {
        return None;
    }
    let seg = tp.path.segments.last()?;
    if seg.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    if args.args.len() != 1 {
        return None;
    }
    match args.args.first()? {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(tp) if tp.qself.is_none() => {
            tp.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    }
}

/// Whether `ty` is a context extractor recognized without `#[ctx]`.
pub(crate) fn is_known_context(ty: &Type) -> bool {
    if let Some(inner) = option_inner(ty) {
        return last_segment(inner).as_deref() == Some("Caller");
    }
    last_segment(ty).is_some_and(|s| CONTEXT_TYPES.contains(&s.as_str()))
}

/// The first `impl Trait` in `ty`, if any.
pub(crate) fn find_impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Reference(r) => find_impl_trait(&r.elem),
        Type::Paren(p) => find_impl_trait(&p.elem),
        Type::Slice(s) => find_impl_trait(&s.elem),
        Type::Array(a) => find_impl_trait(&a.elem),
        Type::Tuple(t) => t.elems.iter().find_map(find_impl_trait),
        Type::Path(p) => p.path.segments.iter().find_map(|s| match &s.arguments {
            PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                GenericArgument::Type(t) => find_impl_trait(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}
