//! Before an endpoint serves: its options are consistent, and every scope a primitive requires
//! is one the resource server lists in `scopes_supported` (when it lists any), so that a
//! misspelt scope stops the start instead of refusing every call.

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
            .filter(|(_, scope)| !listed.iter().any(|l| l == scope))
            .map(|(what, scope)| format!("{what} requires `{scope}`"))
            .collect()
    });
    if unlisted.is_empty() {
        return Ok(());
    }
    Err(Error::Build(BuildError::setting(
        "scopes_supported",
        format!(
            "{}, which the resource server does not list (it lists {}): fix the spelling, or \
             add the scope with ResourceServer::scopes_supported so that clients ask for it",
            unlisted.join("; "),
            listed.join(" "),
        ),
    )))
}
