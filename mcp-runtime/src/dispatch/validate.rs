//! Stage 2, validate: the checks every request passes before its method runs, in the order the
//! spec and the conformance suite expect. A failure is a rejection (HTTP answers it with 400, or
//! 404 for an unknown method); a pass is a [`Validated`] request, what `route` takes.
//!
//! It reads the server's configuration and registry only: it imports no other stage.

use super::dispatcher::{TransportChecks, not_advertised, offers};
use super::work::Validated;
use crate::config::Config;
use crate::error::McpError;
use crate::protocol::{ClientRequest, LATEST_PROTOCOL_VERSION, Method, codes};
use crate::registry::Registry;

/// A request refused by validation, given back with the error (for the log and the metrics).
pub(super) type Refused<'a> = Box<(ClientRequest<'a>, McpError)>;

/// Runs the checks; the [`Validated`] request when it passes them, typed so that routing
/// checks nothing again.
pub(super) fn validate<'a>(
    cfg: &Config,
    reg: &Registry,
    request: ClientRequest<'a>,
    transport: Option<&dyn TransportChecks>,
) -> Result<Validated<'a>, Refused<'a>> {
    let method = match check(cfg, reg, &request, transport) {
        Ok(method) => method,
        Err(error) => return Err(Box::new((request, error))),
    };
    let ClientRequest { id, meta, params } = request;
    // `check` refused an unknown method and an absent `_meta` already: these only turn what it
    // saw into types.
    let Some(meta) = meta else {
        let error = McpError::invalid_params("Invalid params: `params._meta` is missing");
        return Err(Box::new((ClientRequest { id, meta, params }, error)));
    };
    let params = match params.known() {
        Ok(params) => params,
        Err(params) => {
            let request = ClientRequest {
                id,
                meta: Some(meta),
                params,
            };
            let error = McpError::method_not_found(request.method_name());
            return Err(Box::new((request, error)));
        }
    };
    Ok(Validated {
        id,
        meta,
        method,
        params,
    })
}

/// The checks, in order; the method when they pass.
fn check(
    cfg: &Config,
    reg: &Registry,
    request: &ClientRequest<'_>,
    transport: Option<&dyn TransportChecks>,
) -> Result<Method, McpError> {
    meta(request)?;
    if let Some(transport) = transport {
        transport.check_request(request)?;
    }
    version(cfg, request)?;
    method(cfg, reg, request)
}

/// The required `_meta` fields (`-32602`).
fn meta(request: &ClientRequest<'_>) -> Result<(), McpError> {
    let missing = match &request.meta {
        None => "`params._meta` is missing",
        Some(m) if m.protocol_version.is_none() => {
            "`_meta[\"io.modelcontextprotocol/protocolVersion\"]` is missing"
        }
        Some(m) if m.client_capabilities.is_none() => {
            "`_meta[\"io.modelcontextprotocol/clientCapabilities\"]` is missing"
        }
        Some(_) => return Ok(()),
    };
    let message = if request.method_name() == "initialize" {
        // A client of an earlier revision can only show the message: say what this server speaks.
        format!(
            "Invalid params: {missing}. This server speaks MCP {LATEST_PROTOCOL_VERSION} (stateless): there is no initialize handshake; send the protocol version and client capabilities in `_meta` on every request"
        )
    } else {
        format!(
            "Invalid params: {missing}; every 2026-07-28 request carries its protocol version and client capabilities in `_meta`"
        )
    };
    Err(McpError::invalid_params(message))
}

/// The protocol version is one this server accepts (`-32022` with the supported ones).
fn version(cfg: &Config, request: &ClientRequest<'_>) -> Result<(), McpError> {
    let requested = request_version(request);
    let supported = &cfg.supported_versions;
    if supported.iter().any(|v| v == requested) {
        return Ok(());
    }
    Err(McpError::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version `{requested}`; this server supports {}",
            supported.join(", ")
        ),
    )
    .with_data(serde_json::json!({
        "supported": supported,
        "requested": requested,
    })))
}

fn request_version<'r>(request: &'r ClientRequest<'_>) -> &'r str {
    request
        .meta
        .as_ref()
        .and_then(|m| m.protocol_version.as_deref())
        .unwrap_or_default()
}

/// The method exists in this revision and its capability is advertised (`-32601`).
fn method(cfg: &Config, reg: &Registry, request: &ClientRequest<'_>) -> Result<Method, McpError> {
    match request.method() {
        Ok(m) if advertised(cfg, reg, m) => Ok(m),
        Ok(m) => Err(not_advertised(m)),
        Err(name) if Method::is_removed(name) => {
            let supported = &cfg.supported_versions;
            Err(McpError::new(
                codes::METHOD_NOT_FOUND,
                format!(
                    "Method not found: `{name}` does not exist in protocol {}; this server supports {} (send `_meta` on every request; no initialize handshake)",
                    request_version(request),
                    supported.join(", ")
                ),
            )
            .with_data(serde_json::json!({ "supported": supported })))
        }
        Err(name) => Err(McpError::method_not_found(name)),
    }
}

/// Whether the capability `method` belongs to is advertised (the method table's
/// `offered_by`).
fn advertised(cfg: &Config, reg: &Registry, method: Method) -> bool {
    offers(cfg, reg, method.offered_by())
}
