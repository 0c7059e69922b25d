//! Multi round-trip requests: typed client input and the sealed `requestState`.

use serde_json::Value;

/// The verified contents of a `requestState` the client echoed back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OpenedState {
    /// How many rounds came before this one.
    pub round: u32,
    /// The handler's own continuation data.
    pub data: Value,
}
