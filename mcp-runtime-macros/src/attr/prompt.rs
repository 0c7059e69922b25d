//! The arguments of `#[prompt(...)]`.

use crate::attr::keys::{AUTHORIZE, COMPLETE, CRATE, DESCRIPTION, ICON, NAME, SCOPES, TITLE};
use crate::attr::read;
use crate::attr::shared::{self, Common, CommonSlots, CompletionSpec};
use crate::attr::unknown::unknown_key;
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;

/// The keys of `#[prompt]`, in the order the "expected one of" message lists them.
const KEYS: &[&str] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    ICON,
    COMPLETE,
    SCOPES,
    AUTHORIZE,
    CRATE,
];

/// The arguments of `#[prompt(...)]`.
pub(crate) struct PromptAttrs {
    pub(crate) common: Common,
    pub(crate) completions: Vec<CompletionSpec>,
}

impl PromptAttrs {
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> PromptAttrs {
        let mut common = CommonSlots::new();
        let mut completions = Vec::new();
        let literal_error =
            "`#[prompt]` takes `key = value` arguments: write `name = \"...\"` to name the prompt";
        for m in read::parse_keyed(cx, args, literal_error) {
            if common.read(cx, &m) {
                continue;
            }
            match read::key(&m).as_str() {
                COMPLETE => shared::completions(cx, &m, &mut completions),
                _ => unknown_key(cx, m.path(), KEYS, "`#[prompt]`"),
            }
        }
        PromptAttrs {
            common: common.finish(),
            completions,
        }
    }
}
