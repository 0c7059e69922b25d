//! OpenTelemetry export (feature `otel`): the server's spans and metrics sent over OTLP
//! (HTTP/protobuf) with the official OpenTelemetry crates.
//!
//! [`init`] sets everything up for a server binary: a W3C Trace Context and Baggage
//! propagator (so that a `traceparent` in a request's `_meta` becomes the parent of its span), a
//! tracer and a meter provider exporting to `OTEL_EXPORTER_OTLP_ENDPOINT` (default
//! `http://localhost:4318`; the other `OTEL_EXPORTER_OTLP_*` variables apply too), a global
//! `tracing` subscriber (spans to OTLP, events to stderr) and a global `metrics` recorder
//! ([`MetricsBridge`]). Turn the server's metrics on with
//! [`ServerBuilder::metrics`](crate::ServerBuilder::metrics).
//!
//! To compose your own subscriber instead, use `tracing_opentelemetry::layer()` with a tracer
//! of your provider, set a text map propagator, and install a [`MetricsBridge`].

mod bridge;

pub use bridge::MetricsBridge;

use crate::error::{BuildError, Error};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The environment variable [`init`] reads its `tracing` filter from (the syntax of
/// `tracing_subscriber::filter::Targets`: `info,mcp_runtime=debug`).
pub const FILTER_ENV: &str = "MCP_LOG";

/// The filter [`init`] uses without [`FILTER_ENV`]: INFO everywhere, and the handler and MRTR
/// round spans and the rejection events of this crate (DEBUG).
pub const DEFAULT_FILTER: &str = "info,mcp_runtime=debug";

/// Keeps the exporters running; dropping it flushes what is buffered and shuts them down.
#[must_use = "dropping the guard shuts the exporters down"]
pub struct OtelGuard {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
}

impl std::fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtelGuard").finish_non_exhaustive()
    }
}

impl OtelGuard {
    /// Exports what is buffered now.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), mcp_runtime::Error> {
    /// let otel = mcp_runtime::otel::init("batch-job")?;
    /// // … serve …
    /// otel.flush();
    /// # Ok(()) }
    /// ```
    pub fn flush(&self) {
        let _ = self.tracer_provider.force_flush();
        let _ = self.meter_provider.force_flush();
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        let _ = self.tracer_provider.shutdown();
        let _ = self.meter_provider.shutdown();
    }
}

/// Sets up OTLP export of traces and metrics for the service `service_name` (see the module
/// documentation) and returns the guard that keeps it running. Fails when a global `tracing`
/// subscriber or `metrics` recorder is installed already, or the exporters cannot be built.
///
/// ```no_run
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let _otel = mcp_runtime::otel::init("calculator")?;
/// let server = mcp_runtime::Server::builder().metrics(true).build()?;
/// # Ok(()) }
/// ```
pub fn init(service_name: &str) -> Result<OtelGuard, Error> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        Error::Build(BuildError::Invalid {
            kind: "setting",
            name: "OpenTelemetry export".into(),
            reason: format!("{what}: {e}"),
            location: None,
        })
    };
    opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ]));
    let resource = Resource::builder()
        .with_service_name(service_name.to_owned())
        .build();
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|e| failed("the span exporter", &e))?;
    let tracer_provider = SdkTracerProvider::builder()
        .with_batch_exporter(spans)
        .with_resource(resource.clone())
        .build();
    let measurements = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .build()
        .map_err(|e| failed("the metric exporter", &e))?;
    let meter_provider = SdkMeterProvider::builder()
        .with_periodic_exporter(measurements)
        .with_resource(resource)
        .build();
    let guard = OtelGuard {
        tracer_provider,
        meter_provider,
    };
    let filter = std::env::var(FILTER_ENV)
        .ok()
        .and_then(|f| f.parse::<Targets>().ok())
        .unwrap_or_else(|| DEFAULT_FILTER.parse().unwrap_or_default());
    let tracer = guard.tracer_provider.tracer("mcp-runtime");
    tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(tracer))
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .try_init()
        .map_err(|e| failed("a tracing subscriber is installed already", &e))?;
    let bridge = MetricsBridge::new(guard.meter_provider.meter("mcp-runtime"));
    metrics::set_global_recorder(bridge)
        .map_err(|e| failed("a metrics recorder is installed already", &e))?;
    Ok(guard)
}
