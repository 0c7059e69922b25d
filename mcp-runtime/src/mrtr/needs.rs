//! Which client capability each kind of input request needs, and the `-32021` error naming
//! the ones a request did not declare.

use crate::error::McpError;
use crate::protocol::{ClientCapabilities, ElicitRequestParams, InputRequest};
use serde_json::{Map, Value};

/// Which client capability an input request needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Need {
    Roots,
    Sampling,
    ElicitForm,
    ElicitUrl,
}

impl Need {
    pub(super) fn declared(self, caps: &ClientCapabilities) -> bool {
        match self {
            Need::Roots => caps.roots.is_some(),
            Need::Sampling => caps.sampling.is_some(),
            Need::ElicitForm => caps.elicitation_form(),
            Need::ElicitUrl => caps.elicitation_url(),
        }
    }
    fn add_to(self, caps: &mut ClientCapabilities) {
        match self {
            Need::Roots => caps.roots = Some(Map::new()),
            Need::Sampling => caps.sampling = Some(Map::new()),
            Need::ElicitForm => {
                caps.elicitation.get_or_insert_with(Map::new);
            }
            Need::ElicitUrl => {
                caps.elicitation
                    .get_or_insert_with(Map::new)
                    .insert("url".into(), Value::Object(Map::new()));
            }
        }
    }
}

pub(super) fn need_of(request: &InputRequest) -> Need {
    match request.typed() {
        InputRequest::Elicit(ElicitRequestParams::Url(_)) => Need::ElicitUrl,
        InputRequest::Elicit(_) => Need::ElicitForm,
        InputRequest::Sample(_) => Need::Sampling,
        _ => Need::Roots,
    }
}

pub(super) fn missing_capability(missing: &[Need]) -> McpError {
    let mut caps = ClientCapabilities::default();
    for n in missing {
        n.add_to(&mut caps);
    }
    let names: Vec<&str> = missing
        .iter()
        .map(|n| match n {
            Need::Roots => "roots",
            Need::Sampling => "sampling",
            Need::ElicitForm => "elicitation",
            Need::ElicitUrl => "elicitation.url",
        })
        .collect();
    McpError::missing_capability(
        caps,
        format!(
            "This request needs client input the client did not declare: the {} capabilit{} in this request's clientCapabilities",
            names.join(", "),
            if names.len() == 1 { "y" } else { "ies" }
        ),
    )
}
