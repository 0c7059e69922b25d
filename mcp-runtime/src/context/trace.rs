//! The spans a request carries while it is served: its own (`mcp.request`, made by dispatch)
//! and the `mcp.mrtr.round` span of its round of client input. Kept only when a subscriber
//! records the request span: a request nobody traces carries nothing.

use std::sync::OnceLock;
use tracing::Span;

/// The span of a request nobody traces.
pub(crate) static NO_SPAN: Span = Span::none();

/// The recorded spans of one request.
#[derive(Debug)]
pub(crate) struct RequestTrace {
    /// `mcp.request`.
    pub(crate) span: Span,
    /// `mcp.mrtr.round`, made when first needed.
    round: OnceLock<Span>,
}

impl RequestTrace {
    /// The spans of a request whose span is `span` (`None` when it is not recorded).
    pub(crate) fn new(span: &Span) -> Option<Box<RequestTrace>> {
        (!span.is_disabled()).then(|| {
            Box::new(RequestTrace {
                span: span.clone(),
                round: OnceLock::new(),
            })
        })
    }

    /// The `mcp.mrtr.round` span (target `mcp_runtime::mrtr`, DEBUG), a child of the request
    /// span, for a request that takes part in a multi-round exchange: it brings answers or a
    /// `requestState`, or seals a state to ask for more.
    ///
    /// Fields: `mcp.mrtr.round` (rounds before this one: 0 for the first call),
    /// `mcp.mrtr.answers` (answers this request brought), `mcp.mrtr.sealed` (whether it sealed
    /// a new state, i.e. asked for more input).
    pub(crate) fn round(&self) -> &Span {
        self.round.get_or_init(|| {
            tracing::debug_span!(
                target: "mcp_runtime::mrtr",
                parent: &self.span,
                "mcp.mrtr.round",
                mcp.mrtr.round = tracing::field::Empty,
                mcp.mrtr.answers = tracing::field::Empty,
                mcp.mrtr.sealed = tracing::field::Empty,
            )
        })
    }
}
