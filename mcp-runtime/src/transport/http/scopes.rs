//! Before an endpoint serves: its options are consistent, and every scope a primitive requires
//! is one the resource server knows (when it lists any): a baseline scope of
//! `scopes_supported` or a declared step-up scope. A misspelt scope then stops the start
//! instead of refusing every call; a scope kept out of the metadata on purpose (the spec's
//! `scopes_supported` is a minimal baseline) is declared with `step_up_scopes`.

use super::options::HttpOptions;
use crate::dispatch::Dispatcher;
use crate::error::{BuildError, Error};

/// `options` checked, and checked against what `dispatcher` serves.
pub(crate) fn check(dispatcher: &Dispatcher, options: &HttpOptions) -> Result<(), Error> {
    options.check().map_err(Error::Usage)?;
    let Some(auth) = &options.auth else {
        return Ok(());
    };
    let listed = &auth.metadata.scopes_supported;
    if listed.is_empty() {
        return Ok(());
    }
    let unlisted: Vec<String> = dispatcher.catalog.read_items(|items| {
        items
            .required_scopes()
            .into_iter()
            .filter(|(_, scope)| !listed.iter().chain(&auth.step_up).any(|l| l == scope))
            .map(|(what, scope)| format!("{what} requires `{scope}`"))
            .collect()
    });
    if unlisted.is_empty() {
        return Ok(());
    }
    Err(Error::Build(BuildError::setting(
        "scopes_supported",
        format!(
            "{}, which the resource server knows neither as a baseline scope (scopes_supported: \
             {}) nor as a step-up scope: fix the spelling, or add it with \
             ResourceServer::scopes_supported (advertised) or ResourceServer::step_up_scopes \
             (asked for only when needed)",
            unlisted.join("; "),
            listed.join(" "),
        ),
    )))
}
