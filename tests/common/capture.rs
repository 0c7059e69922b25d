//! What the observability tests capture: every span and event of a `tracing` subscriber
//! ([`Spans`]), and every metric of a `metrics` recorder ([`Metrics`]), kept for assertions.
#![allow(dead_code)]

use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

/// One span as it was created and recorded.
#[derive(Debug, Clone)]
pub struct SpanRecord {
    /// Its number in creation order (ids of the registry are reused; these are not).
    pub seq: u64,
    pub name: &'static str,
    pub target: String,
    pub level: tracing::Level,
    /// The `seq` of its parent.
    pub parent: Option<u64>,
    pub fields: BTreeMap<String, String>,
    pub closed: bool,
}

impl SpanRecord {
    /// The field's value, as text.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// One event.
#[derive(Debug, Clone)]
pub struct EventRecord {
    pub target: String,
    pub level: tracing::Level,
    /// The `seq` of the span it happened in.
    pub span: Option<u64>,
    pub fields: BTreeMap<String, String>,
}

impl EventRecord {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
    pub fn message(&self) -> &str {
        self.field("message").unwrap_or_default()
    }
}

#[derive(Default)]
struct Captured {
    spans: Vec<SpanRecord>,
    events: Vec<EventRecord>,
}

/// A `tracing` layer keeping every span and event (all levels).
#[derive(Clone, Default)]
pub struct Spans(Arc<Mutex<Captured>>);

/// The `seq` of a span, kept in its extensions.
struct Seq(u64);

impl Spans {
    /// Installs a subscriber with this layer on this thread, for as long as the guard lives.
    pub fn install(&self) -> tracing::subscriber::DefaultGuard {
        use tracing_subscriber::layer::SubscriberExt as _;
        tracing::subscriber::set_default(tracing_subscriber::registry().with(self.clone()))
    }

    pub fn spans(&self) -> Vec<SpanRecord> {
        self.0.lock().unwrap().spans.clone()
    }

    pub fn events(&self) -> Vec<EventRecord> {
        self.0.lock().unwrap().events.clone()
    }

    /// The spans named `name`.
    pub fn named(&self, name: &str) -> Vec<SpanRecord> {
        self.spans()
            .into_iter()
            .filter(|s| s.name == name)
            .collect()
    }

    /// The spans whose parent is `parent`.
    pub fn children(&self, parent: &SpanRecord) -> Vec<SpanRecord> {
        self.spans()
            .into_iter()
            .filter(|s| s.parent == Some(parent.seq))
            .collect()
    }

    /// The events whose message is `message`.
    pub fn events_saying(&self, message: &str) -> Vec<EventRecord> {
        self.events()
            .into_iter()
            .filter(|e| e.message() == message)
            .collect()
    }

    pub fn clear(&self) {
        let mut captured = self.0.lock().unwrap();
        captured.spans.clear();
        captured.events.clear();
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
}

fn seq_of<S>(ctx: &Context<'_, S>, id: &Id) -> Option<u64>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    ctx.span(id)?.extensions().get::<Seq>().map(|s| s.0)
}

impl<S> Layer<S> for Spans
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = ctx
            .span(id)
            .and_then(|s| s.parent())
            .and_then(|p| p.extensions().get::<Seq>().map(|s| s.0));
        let mut captured = self.0.lock().unwrap();
        let seq = captured.spans.len() as u64;
        captured.spans.push(SpanRecord {
            seq,
            name: attrs.metadata().name(),
            target: attrs.metadata().target().to_owned(),
            level: *attrs.metadata().level(),
            parent,
            fields,
            closed: false,
        });
        drop(captured);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Seq(seq));
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(seq) = seq_of(&ctx, id) else { return };
        let mut captured = self.0.lock().unwrap();
        values.record(&mut Fields(&mut captured.spans[seq as usize].fields));
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let span = ctx
            .event_span(event)
            .and_then(|s| s.extensions().get::<Seq>().map(|s| s.0));
        self.0.lock().unwrap().events.push(EventRecord {
            target: event.metadata().target().to_owned(),
            level: *event.metadata().level(),
            span,
            fields,
        });
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(seq) = seq_of(&ctx, &id) else { return };
        self.0.lock().unwrap().spans[seq as usize].closed = true;
    }
}

/// A metric's name and labels, the labels sorted.
pub type MetricKey = (String, Vec<(String, String)>);

#[derive(Default)]
struct Values {
    counters: BTreeMap<MetricKey, Arc<AtomicU64>>,
    gauges: BTreeMap<MetricKey, Arc<Mutex<f64>>>,
    histograms: BTreeMap<MetricKey, Arc<Mutex<Vec<f64>>>>,
    units: BTreeMap<String, Option<Unit>>,
}

/// A `metrics` recorder keeping every value.
#[derive(Clone, Default)]
pub struct Metrics(Arc<Mutex<Values>>);

fn key_of(key: &Key) -> MetricKey {
    let mut labels: Vec<(String, String)> = key
        .labels()
        .map(|l| (l.key().to_owned(), l.value().to_owned()))
        .collect();
    labels.sort();
    (key.name().to_owned(), labels)
}

fn wanted(labels: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut labels: Vec<(String, String)> = labels
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    labels.sort();
    labels
}

impl Metrics {
    /// A counter's value (0 when it was never touched), by its exact labels.
    pub fn counter(&self, name: &str, labels: &[(&str, &str)]) -> u64 {
        let values = self.0.lock().unwrap();
        values
            .counters
            .get(&(name.to_owned(), wanted(labels)))
            .map_or(0, |c| c.load(Ordering::SeqCst))
    }

    /// A gauge's value (`None` when it was never touched).
    pub fn gauge(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let values = self.0.lock().unwrap();
        values
            .gauges
            .get(&(name.to_owned(), wanted(labels)))
            .map(|g| *g.lock().unwrap())
    }

    /// A histogram's samples, by its exact labels.
    pub fn histogram(&self, name: &str, labels: &[(&str, &str)]) -> Vec<f64> {
        let values = self.0.lock().unwrap();
        values
            .histograms
            .get(&(name.to_owned(), wanted(labels)))
            .map(|h| h.lock().unwrap().clone())
            .unwrap_or_default()
    }

    /// Every counter, for messages.
    pub fn counters(&self) -> Vec<(MetricKey, u64)> {
        let values = self.0.lock().unwrap();
        values
            .counters
            .iter()
            .map(|(k, v)| (k.clone(), v.load(Ordering::SeqCst)))
            .collect()
    }

    /// Whether anything at all was recorded.
    pub fn is_empty(&self) -> bool {
        let values = self.0.lock().unwrap();
        values.counters.is_empty() && values.gauges.is_empty() && values.histograms.is_empty()
    }

    /// The unit a metric was described with.
    pub fn unit(&self, name: &str) -> Option<Unit> {
        self.0.lock().unwrap().units.get(name).copied().flatten()
    }
}

struct CounterCell(Arc<AtomicU64>);
impl CounterFn for CounterCell {
    fn increment(&self, value: u64) {
        self.0.fetch_add(value, Ordering::SeqCst);
    }
    fn absolute(&self, value: u64) {
        self.0.fetch_max(value, Ordering::SeqCst);
    }
}

struct GaugeCell(Arc<Mutex<f64>>);
impl GaugeFn for GaugeCell {
    fn increment(&self, value: f64) {
        *self.0.lock().unwrap() += value;
    }
    fn decrement(&self, value: f64) {
        *self.0.lock().unwrap() -= value;
    }
    fn set(&self, value: f64) {
        *self.0.lock().unwrap() = value;
    }
}

struct HistogramCell(Arc<Mutex<Vec<f64>>>);
impl HistogramFn for HistogramCell {
    fn record(&self, value: f64) {
        self.0.lock().unwrap().push(value);
    }
}

impl Recorder for Metrics {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, _: SharedString) {
        self.0
            .lock()
            .unwrap()
            .units
            .insert(key.as_str().to_owned(), unit);
    }
    fn describe_gauge(&self, key: KeyName, unit: Option<Unit>, _: SharedString) {
        self.0
            .lock()
            .unwrap()
            .units
            .insert(key.as_str().to_owned(), unit);
    }
    fn describe_histogram(&self, key: KeyName, unit: Option<Unit>, _: SharedString) {
        self.0
            .lock()
            .unwrap()
            .units
            .insert(key.as_str().to_owned(), unit);
    }
    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        let mut values = self.0.lock().unwrap();
        let cell = values.counters.entry(key_of(key)).or_default().clone();
        Counter::from_arc(Arc::new(CounterCell(cell)))
    }
    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        let mut values = self.0.lock().unwrap();
        let cell = values.gauges.entry(key_of(key)).or_default().clone();
        Gauge::from_arc(Arc::new(GaugeCell(cell)))
    }
    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        let mut values = self.0.lock().unwrap();
        let cell = values.histograms.entry(key_of(key)).or_default().clone();
        Histogram::from_arc(Arc::new(HistogramCell(cell)))
    }
}
