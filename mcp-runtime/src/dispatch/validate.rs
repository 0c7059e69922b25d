//! Stage 2, validate: the checks every request passes before its method runs, in the order the
//! spec and the conformance suite expect. A failure is a rejection (HTTP answers it with 400, or
//! 404 for an unknown method); a pass is a [`Validated`] request, what `route` takes.
//!
//! It reads the server's configuration and registry only: it imports no other stage.

use super::dispatcher::TransportChecks;
use crate::config::Config;
use crate::error::McpError;
use crate::protocol::{ClientRequest, LATEST_PROTOCOL_VERSION, Method, codes};
use crate::registry::Registry;

/// A request that passed validation: its method exists in this revision and is advertised.
/// Only [`validate`] makes one (its field is private), and `route` serves only what it is given
/// one for.
#[derive(Debug)]
pub(super) struct Validated {
    method: Method,
}

impl Validated {
    /// The request's method, known and advertised.
    #[inline(always)]
    pub(super) fn method(&self) -> Method {
        self.method
    }
}

/// Runs the checks; the [`Validated`] request when it passes them.
pub(super) fn validate(
    cfg: &Config,
    reg: &Registry,
    request: &ClientRequest<'_>,
    transport: Option<&dyn TransportChecks>,
) -> Result<Validated, McpError> {
    meta(request)?;
    if let Some(transport) = transport {
        transport.check_request(request)?;
    }
    version(cfg, request)?;
    let method = method(cfg, reg, request)?;
    Ok(Validated { method })
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
        Ok(m) => Err(McpError::new(
            codes::METHOD_NOT_FOUND,
            format!(
                "Method not found: `{m}` belongs to a capability this server does not advertise"
            ),
        )),
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

/// Whether the capability `method` belongs to is advertised. Mirrors
/// `Dispatcher::capabilities` without building it (no allocation on the request path).
fn advertised(cfg: &Config, reg: &Registry, method: Method) -> bool {
    match method {
        Method::Discover => true,
        Method::ToolsList | Method::ToolsCall => !reg.tools.is_empty(),
        Method::ResourcesList | Method::ResourceTemplatesList | Method::ResourcesRead => {
            !reg.resources.is_empty() || !reg.templates.is_empty()
        }
        Method::PromptsList | Method::PromptsGet => !reg.prompts.is_empty(),
        Method::Complete => reg.has_completions(),
        Method::Listen => cfg.list_changed || cfg.resource_subscribe || reg.has_tasks(),
        Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => reg.has_tasks(),
        Method::SkillsList | Method::SkillsGet | Method::ResourcesDirectoryRead => reg.has_skills(),
    }
}
