//! Error accumulation: independent mistakes are collected and reported together.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Collects `syn::Error`s while a macro input is parsed and checked.
///
/// Like serde's `Ctxt`, it must be consumed with [`Ctxt::check`]; dropping it unchecked is a bug
/// in this crate and panics (at compile time, inside the macro, never in generated code).
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanned at `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at a span.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Records a `syn::Error` (which may already combine several).
    pub(crate) fn syn_error(&self, err: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(err);
        }
    }

    /// Consumes the context: all recorded errors combined into one, if any.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut iter = errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }

    /// The errors as `compile_error!` invocations (consumes the context).
    pub(crate) fn into_compile_errors(self) -> TokenStream {
        match self.check() {
            Ok(()) => TokenStream::new(),
            Err(e) => e.to_compile_error(),
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("mcp-runtime-macros bug: Ctxt dropped without being checked");
        }
    }
}
