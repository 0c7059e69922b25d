//! A client input (MRTR): a parameter marked `#[roots]`, `#[sample(..)]` or `#[elicit(..)]`,
//! whose value the client is asked for.

use crate::attr::keys::{ELICIT, KEY, MAX_TOKENS, MESSAGE, PROMPT, ROOTS, SAMPLE, SYSTEM_PROMPT};
use crate::attr::{self, Slot};
use crate::ctxt::Ctxt;
use crate::model::types::{generic_arg_of, option_inner};
use syn::spanned::Spanned;
use syn::{Attribute, LitInt, LitStr, Meta, Type};

/// Which client input a parameter asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InputMarker {
    Roots,
    Sample,
    Elicit,
}

impl InputMarker {
    /// The attribute's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            InputMarker::Roots => ROOTS,
            InputMarker::Sample => SAMPLE,
            InputMarker::Elicit => ELICIT,
        }
    }
}

/// A parameter asking the client for input.
pub(crate) struct Input {
    pub(crate) kind: InputKind,
    /// The key in `inputRequests` / `inputResponses`.
    pub(crate) key: String,
    /// `Option<..>`: asked only when the client declared the capability.
    pub(crate) optional: bool,
}

#[allow(clippy::large_enum_variant)] // a few short-lived values per macro call
pub(crate) enum InputKind {
    Roots,
    Sample {
        prompt: LitStr,
        max_tokens: LitInt,
        system_prompt: Option<LitStr>,
    },
    Elicit {
        message: Message,
        /// `T` of `Elicitation<T>`, when it can be read from the type (`None`: an alias, or a
        /// mistake `check` words when it can; generated code names the form through the
        /// runtime's `ElicitParam` either way).
        form: Option<Type>,
    },
}

/// What an elicitation asks: a text (with `{argument}` placeholders), or what a function of
/// the call computes (`message = path`).
pub(crate) enum Message {
    Text(LitStr),
    Function(syn::Path),
}

/// Reads the marker `a` of a client-input parameter named `name` of type `ty`.
pub(crate) fn parse(cx: &Ctxt, a: &Attribute, which: InputMarker, name: &str, ty: &Type) -> Input {
    let marker = which.name();
    let items: Vec<Meta> = match &a.meta {
        Meta::Path(_) => Vec::new(),
        Meta::List(_) => attr::nested(cx, &a.meta),
        Meta::NameValue(_) => {
            cx.error_spanned_by(
                a,
                format!("write `#[{marker}(...)]`, not `#[{marker} = ...]`"),
            );
            Vec::new()
        }
    };
    let mut key: Slot<LitStr> = Slot::new(KEY);
    let mut prompt: Slot<LitStr> = Slot::new(PROMPT);
    let mut max_tokens: Slot<LitInt> = Slot::new(MAX_TOKENS);
    let mut system_prompt: Slot<LitStr> = Slot::new(SYSTEM_PROMPT);
    let mut message: Slot<Message> = Slot::new(MESSAGE);
    let known: &[&str] = match which {
        InputMarker::Roots => &[KEY],
        InputMarker::Sample => &[PROMPT, MAX_TOKENS, SYSTEM_PROMPT, KEY],
        InputMarker::Elicit => &[MESSAGE, KEY],
    };
    for m in &items {
        let k = attr::key(m);
        if !known.contains(&k.as_str()) {
            attr::unknown_key(cx, m.path(), known, &format!("`#[{marker}]`"));
            continue;
        }
        match k.as_str() {
            KEY => key.set(cx, m, attr::string(cx, m)),
            PROMPT => prompt.set(cx, m, attr::string(cx, m)),
            MAX_TOKENS => max_tokens.set(cx, m, attr::integer(cx, m)),
            SYSTEM_PROMPT => system_prompt.set(cx, m, attr::string(cx, m)),
            _ => message.set(cx, m, message_of(cx, m)),
        }
    }
    let key = key
        .get()
        .map(|k| k.value())
        .unwrap_or_else(|| name.to_owned());
    if key.is_empty() {
        cx.error_spanned_by(
            a,
            format!("this `#[{marker}]` parameter needs a name: add `key = \"...\"`"),
        );
    }
    let optional_inner = option_inner(ty);
    let optional = optional_inner.is_some();
    let value_ty = optional_inner.unwrap_or(ty);
    let kind = match which {
        InputMarker::Roots => InputKind::Roots,
        InputMarker::Sample => {
            let prompt = prompt.get();
            let max_tokens = max_tokens.get();
            if prompt.is_none() || max_tokens.is_none() {
                cx.error_spanned_by(
                    a,
                    "`#[sample]` needs the request to send: add `prompt = \"...\"` and `max_tokens = N`",
                );
            }
            InputKind::Sample {
                prompt: prompt.unwrap_or_else(|| LitStr::new("", a.span())),
                max_tokens: max_tokens.unwrap_or_else(|| LitInt::new("0", a.span())),
                system_prompt: system_prompt.get(),
            }
        }
        InputMarker::Elicit => {
            let message = message.get();
            if message.is_none() {
                cx.error_spanned_by(
                    a,
                    "`#[elicit]` needs the question to ask: add `message = \"...\"`",
                );
            }
            InputKind::Elicit {
                message: message.unwrap_or_else(|| Message::Text(LitStr::new("", a.span()))),
                form: generic_arg_of(value_ty, "Elicitation").cloned(),
            }
        }
    };
    Input {
        kind,
        key,
        optional,
    }
}

/// `message = "..."` or `message = path::to::function`.
fn message_of(cx: &Ctxt, meta: &Meta) -> Option<Message> {
    match attr::expr(cx, meta)? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(Message::Text(s)),
        syn::Expr::Path(p) if p.qself.is_none() => Some(Message::Function(p.path)),
        other => {
            cx.error_spanned_by(
                other,
                "`message` is a string (`{argument}` placeholders allowed) or the path of a \
                 function computing it, like `message = confirm_text`",
            );
            None
        }
    }
}
