//! The `otel` feature (run with `cargo test --features otel --test otel`): a `traceparent` in
//! `_meta` becomes the OpenTelemetry parent of the request's span, the spans carry the semantic
//! conventions' name, kind, status and attributes, and the metrics bridge records the server's
//! metrics into OpenTelemetry instruments.
#![cfg(feature = "otel")]

use mcp_runtime::otel::MetricsBridge;
use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::{NoArguments, Server, Tool};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{SdkMeterProvider, Temporality};
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt as _;

/// Keeps every exported span.
#[derive(Debug, Clone, Default)]
struct Exported(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Exported {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

impl Exported {
    fn named(&self, name: &str) -> Vec<SpanData> {
        let spans = self.0.lock().unwrap();
        spans.iter().filter(|s| s.name == name).cloned().collect()
    }
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn body(id: i64, method: &str, mut params: Value, trace: &[(&str, &str)]) -> Vec<u8> {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    for (key, value) in trace {
        meta[*key] = json!(value);
    }
    params["_meta"] = meta;
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap()
}

fn server() -> Server {
    Server::builder()
        .tool(Tool::new("add").handler(|_: NoArguments, _| async { 42 }))
        .tool(Tool::new("fail").handler(|_: NoArguments, _| async { CallToolResult::error("no") }))
        .build()
        .unwrap()
}

async fn send(server: &Server, body: Vec<u8>) {
    server.handle_message(&body, None).unwrap().response().await;
}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

// One test: the global propagator is process-wide state.
#[tokio::test]
async fn a_traceparent_in_meta_becomes_the_parent_of_the_request_span() {
    let exported = Exported::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exported.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    let server = server();
    let traceparent = format!("00-{TRACE}-{PARENT}-01");

    // Without a configured propagator, the W3C `traceparent` read by the runtime is used.
    let args = json!({"name": "add"});
    send(
        &server,
        body(
            1,
            "tools/call",
            args.clone(),
            &[("traceparent", &traceparent)],
        ),
    )
    .await;
    let requests = exported.named("tools/call add");
    assert_eq!(requests.len(), 1, "{:#?}", exported.0.lock().unwrap());
    let request = &requests[0];
    assert_eq!(
        request.span_context.trace_id(),
        TraceId::from_hex(TRACE).unwrap()
    );
    assert_eq!(request.parent_span_id, SpanId::from_hex(PARENT).unwrap());
    assert!(request.parent_span_is_remote);
    assert_eq!(request.span_kind, SpanKind::Server);
    assert_eq!(request.status, Status::Unset);
    assert_eq!(
        attribute(request, "mcp.method.name"),
        Some(&"tools/call".into())
    );
    assert_eq!(attribute(request, "gen_ai.tool.name"), Some(&"add".into()));
    assert_eq!(attribute(request, "jsonrpc.request.id"), Some(&"1".into()));
    assert_eq!(
        attribute(request, "mcp.protocol.version"),
        Some(&"2026-07-28".into())
    );
    let handlers = exported.named("execute_tool add");
    assert_eq!(handlers.len(), 1);
    let handler = &handlers[0];
    assert_eq!(
        handler.span_context.trace_id(),
        request.span_context.trace_id()
    );
    assert_eq!(handler.parent_span_id, request.span_context.span_id());
    assert!(!handler.parent_span_is_remote);
    assert_eq!(handler.span_kind, SpanKind::Internal);

    // With the W3C propagator configured (what `otel::init` does), it extracts the context,
    // `tracestate` included.
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    exported.0.lock().unwrap().clear();
    let other_parent = "b7ad6b7169203331";
    let traceparent = format!("00-{TRACE}-{other_parent}-01");
    let trace = [
        ("traceparent", traceparent.as_str()),
        ("tracestate", "rojo=00f067aa0ba902b7"),
    ];
    send(
        &server,
        body(2, "tools/call", json!({"name": "fail"}), &trace),
    )
    .await;
    let requests = exported.named("tools/call fail");
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        request.span_context.trace_id(),
        TraceId::from_hex(TRACE).unwrap()
    );
    assert_eq!(
        request.parent_span_id,
        SpanId::from_hex(other_parent).unwrap()
    );
    assert_eq!(
        request.span_context.trace_state().get("rojo"),
        Some("00f067aa0ba902b7")
    );
    // A tool error is an error of the span.
    assert!(
        matches!(request.status, Status::Error { .. }),
        "{:?}",
        request.status
    );
    assert_eq!(attribute(request, "error.type"), Some(&"tool_error".into()));

    // Without a traceparent, the request starts a trace of its own.
    exported.0.lock().unwrap().clear();
    send(&server, body(3, "tools/call", json!({"name": "add"}), &[])).await;
    let request = &exported.named("tools/call add")[0];
    assert_ne!(
        request.span_context.trace_id(),
        TraceId::from_hex(TRACE).unwrap()
    );
    assert_eq!(request.parent_span_id, SpanId::INVALID);
}

/// One exported data point: name, unit, attributes, and the count (histograms) or the value.
type Point = (String, String, Vec<KeyValue>, f64);

/// Keeps what the metric reader exports.
#[derive(Debug, Clone, Default)]
struct Measured(Arc<Mutex<Vec<Point>>>);

impl PushMetricExporter for Measured {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        let mut kept = self.0.lock().unwrap();
        for scope in metrics.scope_metrics() {
            for metric in scope.metrics() {
                let (name, unit) = (metric.name().to_owned(), metric.unit().to_owned());
                let mut keep = |attributes: Vec<KeyValue>, value: f64| {
                    kept.push((name.clone(), unit.clone(), attributes, value));
                };
                match metric.data() {
                    AggregatedMetrics::F64(MetricData::Histogram(h)) => {
                        for p in h.data_points() {
                            keep(p.attributes().cloned().collect(), p.count() as f64);
                        }
                    }
                    AggregatedMetrics::U64(MetricData::Sum(s)) => {
                        for p in s.data_points() {
                            keep(p.attributes().cloned().collect(), p.value() as f64);
                        }
                    }
                    AggregatedMetrics::F64(MetricData::Gauge(g)) => {
                        for p in g.data_points() {
                            keep(p.attributes().cloned().collect(), p.value());
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }
    fn shutdown_with_timeout(&self, _: Duration) -> OTelSdkResult {
        Ok(())
    }
    fn temporality(&self) -> Temporality {
        Temporality::Cumulative
    }
}

#[tokio::test]
async fn the_metrics_bridge_records_into_opentelemetry_instruments() {
    // A subscriber on this thread too: a thread without one could cache "never" for the
    // runtime's span callsites while the other test installs its own (tracing's interest cache
    // is process-wide).
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry());
    let measured = Measured::default();
    let provider = SdkMeterProvider::builder()
        .with_periodic_exporter(measured.clone())
        .build();
    let bridge = MetricsBridge::new(provider.meter("test"));
    let _recorder = metrics::set_default_local_recorder(&bridge);
    let server = Server::builder()
        .metrics(true)
        .tool(Tool::new("add").handler(|_: NoArguments, _| async { 42 }))
        .build()
        .unwrap();
    for id in 1..=3 {
        send(&server, body(id, "tools/call", json!({"name": "add"}), &[])).await;
    }
    provider.force_flush().unwrap();
    let kept = measured.0.lock().unwrap().clone();
    let find = |name: &str| {
        kept.iter()
            .filter(|(n, ..)| n == name)
            .cloned()
            .collect::<Vec<_>>()
    };
    let durations = find("mcp.server.operation.duration");
    assert_eq!(durations.len(), 1, "{kept:#?}");
    let (_, unit, attributes, count) = &durations[0];
    assert_eq!(unit, "s");
    assert_eq!(*count, 3.0);
    assert!(attributes.contains(&KeyValue::new("mcp.method.name", "tools/call")));
    assert!(attributes.contains(&KeyValue::new("gen_ai.tool.name", "add")));
    let requests = find("mcp.server.requests");
    assert_eq!(requests.len(), 1, "{kept:#?}");
    assert_eq!(requests[0].3, 3.0);
}
