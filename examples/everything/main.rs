//! The *everything* server: the whole fixture surface of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, 2026-07-28 requirement set), written with the
//! framework's macros like any other server.
//!
//! It shows, one module each:
//!
//! * [`content`]: text, image, audio, embedded-resource and mixed results, `isError` results,
//!   progress notifications, request-scoped logging, and a tool that needs a client capability
//!   (`-32021` when it is missing);
//! * [`mrtr`]: multi round-trip requests (`input_required` results): declarative `#[roots]`,
//!   `#[sample]` and `#[elicit]` inputs, the `Rounds` continuation API, the sealed
//!   `requestState`, and a prompt that asks for input;
//! * [`live`]: list changes on the running server (`Server::add`, `remove`, `set_enabled`)
//!   announced on `subscriptions/listen` streams;
//! * [`catalog`]: `test://` resources, a resource template, the prompts and completion;
//! * [`schemas`]: a hand-written JSON Schema 2020-12 input schema and a parameter mirrored into an
//!   `Mcp-Param-*` header (`x-mcp-header`);
//! * [`tasks`]: the tasks extension: tools answered with task handles, questions asked from
//!   inside a running task, cancellation;
//! * the skills extension: the folder `examples/everything/skills` (two skills, one of them
//!   below an `acme/billing` prefix, with nested folders and a binary file), embedded in the
//!   binary at compile time by `skills!`.
//!
//! Run: `cargo run --example everything` (HTTP on http://127.0.0.1:8000/mcp), or add
//! `-- --addr 127.0.0.1:9000` or `-- --stdio`. `.ci/conformance.sh` runs the conformance suite
//! against it. Set `MCP_STATE_KEY` (32 bytes, base64) to let several instances resume each
//! other's multi-round requests.

mod catalog;
mod content;
mod legacy;
mod live;
mod mrtr;
mod schemas;
mod tasks;

use mcp_runtime::{BuildError, Server, skills};

/// The everything server, with its tools, resources and prompts in a fixed order
/// (`test_simple_text` first: clients of the suite call `tools[0]`).
pub fn build() -> Result<Server, BuildError> {
    let live = live::Live::default();
    let server = Server::builder()
        .name("mcp-everything")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions(
            "Fixtures of the MCP conformance suite: each tool, resource and prompt demonstrates one protocol feature.",
        )
        .list_changed(true)
        .resource_subscriptions(true)
        .logging(true)
        .state(live.clone())
        // Content and behaviour.
        .tool(content::test_simple_text {})
        .tool(content::test_image_content {})
        .tool(content::test_audio_content {})
        .tool(content::test_embedded_resource {})
        .tool(content::test_multiple_content_types {})
        .tool(content::test_tool_with_progress {})
        .tool(content::test_error_handling {})
        .tool(content::test_missing_capability {})
        .tool(content::test_streaming_elicitation {})
        .tool(content::test_logging_tool {})
        .tool(legacy::test_tool_with_logging {})
        .tool(legacy::test_sampling {})
        .tool(legacy::test_elicitation {})
        .tool(legacy::test_elicitation_sep1034_defaults {})
        .tool(legacy::test_elicitation_sep1330_enums {})
        .tool(legacy::test_reconnection {})
        // List changes.
        .tool(live::test_trigger_tool_change {})
        .tool(live::test_trigger_prompt_change {})
        .tool(live::test_dynamic_tool {})
        // Multi round-trip requests.
        .tool(mrtr::test_input_required_result_elicitation {})
        .tool(mrtr::test_input_required_result_sampling {})
        .tool(mrtr::test_input_required_result_list_roots {})
        .tool(mrtr::test_input_required_result_request_state {})
        .tool(mrtr::test_input_required_result_multiple_inputs {})
        .tool(mrtr::test_input_required_result_multi_round {})
        .tool(mrtr::test_input_required_result_tampered_state {})
        .tool(mrtr::test_input_required_result_capabilities {})
        // Schemas and headers.
        .tool(schemas::json_schema_2020_12_tool())
        .tool(schemas::test_custom_header {})
        // The tasks extension.
        .tool(tasks::greet {})
        .tool(tasks::slow_compute {})
        .tool(tasks::failing_job {})
        .tool(tasks::protocol_error_job {})
        .tool(tasks::confirm_delete {})
        .tool(tasks::multi_input {})
        .tool(tasks::test_tool_with_task {})
        // Resources (`test://static-text` first: clients read `resources[0]`).
        .resource(catalog::static_text {})
        .resource(catalog::static_binary {})
        .resource(catalog::watched_resource {})
        .resource_template(catalog::template_data {})
        // Prompts.
        .prompt(catalog::test_simple_prompt {})
        .prompt(catalog::test_prompt_with_arguments {})
        .prompt(catalog::test_prompt_with_embedded_resource {})
        .prompt(catalog::test_prompt_with_image {})
        .prompt(mrtr::test_input_required_result_prompt {})
        // The skills extension (`build.rs` has the folder rebuild the server when a file is
        // added to it).
        .skills(skills!("skills"))
        .build()?;
    live.attach(&server);
    Ok(server)
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    build()?.run().await
}
