//! What one request carries into its round of client input: this round's answers, the state
//! it echoed (opened), and the binding that a state sealed now would carry.

use super::binding::Binding;
use super::record::{Answers, Sealed, SealedOut, Sealer, now_ms};
use super::responses::Responses;
use crate::error::McpError;
use serde_json::value::RawValue;
use std::sync::{Arc, OnceLock};
use tracing::Span;

/// The MRTR data of one request: this round's answers and the opened state.
#[derive(Debug)]
pub(crate) struct InputData {
    pub(crate) responses: Responses,
    pub(crate) previous: Option<Sealed>,
    pub(crate) binding: LazyBinding,
    pub(crate) sealer: Arc<Sealer>,
}

/// The binding of a request, computed (canonical JSON + SHA-256) only when a state is opened or
/// sealed: most requests never need it.
#[derive(Debug)]
pub(crate) enum LazyBinding {
    /// Already computed (a state was opened against it).
    Ready(Binding),
    /// Computed on first use.
    Later {
        cell: OnceLock<Binding>,
        method: &'static str,
        name: Arc<str>,
        arguments: Arc<str>,
        caller: Option<Arc<str>>,
    },
}

impl LazyBinding {
    /// Computed now (a state is about to be opened against it).
    pub(crate) fn ready(binding: Binding) -> Self {
        LazyBinding::Ready(binding)
    }
    /// Computed on first use. `arguments` is the arguments' JSON text as sent (`{}` when absent).
    pub(crate) fn later(
        method: &'static str,
        name: Arc<str>,
        arguments: Arc<str>,
        caller: Option<Arc<str>>,
    ) -> Self {
        LazyBinding::Later {
            cell: OnceLock::new(),
            method,
            name,
            arguments,
            caller,
        }
    }
    pub(crate) fn get(&self) -> &Binding {
        match self {
            LazyBinding::Ready(b) => b,
            LazyBinding::Later {
                cell,
                method,
                name,
                arguments,
                caller,
            } => cell
                .get_or_init(|| Binding::new(method, name.clone(), arguments, caller.as_deref())),
        }
    }
}

impl InputData {
    pub(crate) fn answer(&self, key: &str) -> Option<&RawValue> {
        self.responses
            .get(key)
            .or_else(|| self.previous.as_ref().and_then(|p| p.answers.get(key)))
    }
    pub(crate) fn round(&self) -> u32 {
        self.previous.as_ref().map_or(0, |p| p.round)
    }
    /// Seals the state of the next round (inside the request's round span, when it is traced).
    pub(crate) fn seal_next(
        &self,
        answers: Answers<'_>,
        data: Option<&RawValue>,
        round_span: Option<&Span>,
    ) -> Result<String, McpError> {
        let _entered = round_span.map(|span| {
            span.record("mcp.mrtr.round", self.round());
            span.enter()
        });
        let round = self.round() + 1;
        let max = self.sealer.max_rounds;
        if round > max {
            return Err(McpError::invalid_params(format!(
                "Invalid params: this request has taken {max} rounds of client input, the most allowed"
            )));
        }
        let sealed = self.sealer.seal(&SealedOut {
            binding: self.binding.get(),
            expires_ms: now_ms().saturating_add(self.sealer.ttl.as_millis() as u64),
            round,
            answers,
            data,
        });
        if let Some(span) = round_span {
            span.record("mcp.mrtr.sealed", sealed.is_ok());
        }
        sealed
    }
}
