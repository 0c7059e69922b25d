//! The integration tests that can share a process, as one test binary (the shape of Cargo's
//! own `tests/testsuite`): each module was a test file of its own, and every test binary links
//! the runtime, axum, hyper and jsonschema again. Run one of them by its name:
//!
//! ```text
//! cargo test --test suite limits::
//! cargo test --test suite gateway::remote::
//! cargo test --features server-card --test suite server_card::
//! cargo test --features redis --test suite -- --test-threads=1 \
//!     redis:: scaleout:: failover:: rolling:: identity:: dpop::
//! ```
//!
//! (The last is what CI runs: `failover` and `rolling` are a minute of load each, which
//! `scale_tools::one_load_at_a_time` keeps apart, and one test at a time keeps the others off
//! the machine while they run.)
//!
//! Shared by every test binary: `tests/common/` (requests, the schema checks, an HTTP client,
//! the SSE reader, the loopback server, `redis-server` and nginx, oidc-provider, the capture of
//! spans and metrics, the fixture server of the hostile and fuzzing suites). Only here:
//! `examples` (the example servers, each included once) and `scale_tools`.
//!
//! The test files beside this folder keep a binary of their own, each for a reason a shared
//! process would break:
//! - `authoring.rs`, `macros_runtime.rs`, `macros_schema.rs`, `transcript_study.rs` (the study
//!   server) and `lambda.rs` (the study server too, `--features lambda`) build a server with
//!   `Server::from_inventory()`, which collects every `#[tool]` linked into the binary: here it
//!   would find every module's tools;
//! - `auth.rs` and `oauth_mounts/` install the global tracing subscriber, to look for tokens in
//!   every log line;
//! - `tracing_spans.rs` and `otel.rs` (`--features otel`) capture spans with a subscriber of the
//!   test's thread, while tracing caches whether a callsite is wanted for the whole process: a
//!   callsite first reached by another module's thread, with no subscriber, would stay off;
//! - `hostile.rs` counts the server's panics with a panic hook, which is the process's: here it
//!   would count those other modules cause on purpose (`portable_schemas` catches one);
//! - `macros_ui.rs` is trybuild's (compile-fail cases).

#[path = "../common/mod.rs"]
mod common;
mod examples;
#[cfg(feature = "redis")]
mod scale_tools;

mod apps;
mod cors;
mod deployment;
mod discover;
mod dpop;
#[cfg(feature = "redis")]
mod failover;
mod fuzz_pipeline;
mod gateway;
mod guide_hosts;
mod http_pipeline;
mod identity;
mod lab_page;
mod layers;
mod legacy;
mod limits;
mod local_caller;
mod macros_pass;
mod many_clients;
mod metrics;
mod mrtr;
mod notes;
mod open_internet;
mod portable_schemas;
mod protocol_roundtrip;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod rolling;
#[cfg(feature = "redis")]
mod scaleout;
#[cfg(feature = "server-card")]
mod server_card;
mod server_json;
mod skills;
mod stdio_transport;
mod streaming;
mod tasks;
mod transcript_acme;
