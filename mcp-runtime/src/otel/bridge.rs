//! [`MetricsBridge`]: a `metrics` recorder that records into OpenTelemetry instruments.

use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};
use opentelemetry::KeyValue;
use opentelemetry::metrics::Meter;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Bucket boundaries (seconds) of histograms described in seconds: the ones the semantic
/// conventions for MCP recommend for `mcp.server.operation.duration`.
const SECONDS_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// A [`metrics::Recorder`] over an OpenTelemetry [`Meter`]: counters become `u64` counters,
/// gauges `f64` gauges, histograms `f64` histograms; labels become attributes; units and
/// descriptions given with `describe_*` carry over (UCUM units: `s`, `ms`, `By`, …), and
/// histograms in seconds get the bucket boundaries the semantic conventions recommend for MCP
/// operation durations.
///
/// [`otel::init`](super::init) installs one; install it yourself (with
/// `metrics::set_global_recorder`) to compose your own setup.
///
/// ```
/// use opentelemetry::metrics::MeterProvider as _;
/// let provider = opentelemetry_sdk::metrics::SdkMeterProvider::builder().build();
/// let bridge = mcp_runtime::otel::MetricsBridge::new(provider.meter("my-server"));
/// metrics::with_local_recorder(&bridge, || metrics::counter!("jobs.done").increment(1));
/// ```
pub struct MetricsBridge {
    meter: Meter,
    described: Mutex<HashMap<String, (Option<Unit>, SharedString)>>,
    counters: Mutex<HashMap<Key, Arc<OtelCounter>>>,
    gauges: Mutex<HashMap<Key, Arc<OtelGauge>>>,
    histograms: Mutex<HashMap<Key, Arc<OtelHistogram>>>,
}

impl std::fmt::Debug for MetricsBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsBridge").finish_non_exhaustive()
    }
}

impl MetricsBridge {
    /// A recorder writing into `meter`'s instruments.
    pub fn new(meter: Meter) -> MetricsBridge {
        MetricsBridge {
            meter,
            described: Mutex::default(),
            counters: Mutex::default(),
            gauges: Mutex::default(),
            histograms: Mutex::default(),
        }
    }

    fn describe(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        lock(&self.described).insert(key.as_str().to_owned(), (unit, description));
    }

    /// The unit and description given for `name`.
    fn description(&self, name: &str) -> (Option<&'static str>, Option<String>, bool) {
        match lock(&self.described).get(name) {
            Some((unit, description)) => (
                unit.map(ucum),
                Some(description.to_string()),
                *unit == Some(Unit::Seconds),
            ),
            None => (None, None, false),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn attributes(key: &Key) -> Vec<KeyValue> {
    key.labels()
        .map(|l| KeyValue::new(l.key().to_owned(), l.value().to_owned()))
        .collect()
}

/// The UCUM form of a unit, as OpenTelemetry writes units.
fn ucum(unit: Unit) -> &'static str {
    match unit {
        Unit::Count => "1",
        Unit::Percent => "%",
        Unit::Seconds => "s",
        Unit::Milliseconds => "ms",
        Unit::Microseconds => "us",
        Unit::Nanoseconds => "ns",
        Unit::Bytes => "By",
        Unit::Kibibytes => "KiBy",
        Unit::Mebibytes => "MiBy",
        Unit::Gibibytes => "GiBy",
        Unit::Tebibytes => "TiBy",
        other => other.as_canonical_label(),
    }
}

impl Recorder for MetricsBridge {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.describe(key, unit, description);
    }

    fn describe_gauge(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.describe(key, unit, description);
    }

    fn describe_histogram(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.describe(key, unit, description);
    }

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        let made = lock(&self.counters).get(key).cloned();
        let counter = made.unwrap_or_else(|| {
            let (unit, description, _) = self.description(key.name());
            let mut builder = self.meter.u64_counter(key.name().to_owned());
            if let Some(unit) = unit {
                builder = builder.with_unit(unit);
            }
            if let Some(description) = description {
                builder = builder.with_description(description);
            }
            let made = Arc::new(OtelCounter {
                counter: builder.build(),
                attributes: attributes(key),
                absolute: AtomicU64::new(0),
            });
            lock(&self.counters)
                .entry(key.clone())
                .or_insert(made)
                .clone()
        });
        Counter::from_arc(counter)
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        let made = lock(&self.gauges).get(key).cloned();
        let gauge = made.unwrap_or_else(|| {
            let (unit, description, _) = self.description(key.name());
            let mut builder = self.meter.f64_gauge(key.name().to_owned());
            if let Some(unit) = unit {
                builder = builder.with_unit(unit);
            }
            if let Some(description) = description {
                builder = builder.with_description(description);
            }
            let made = Arc::new(OtelGauge {
                gauge: builder.build(),
                attributes: attributes(key),
                value: Mutex::new(0.0),
            });
            lock(&self.gauges)
                .entry(key.clone())
                .or_insert(made)
                .clone()
        });
        Gauge::from_arc(gauge)
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        let made = lock(&self.histograms).get(key).cloned();
        let histogram = made.unwrap_or_else(|| {
            let (unit, description, seconds) = self.description(key.name());
            let mut builder = self.meter.f64_histogram(key.name().to_owned());
            if let Some(unit) = unit {
                builder = builder.with_unit(unit);
            }
            if let Some(description) = description {
                builder = builder.with_description(description);
            }
            if seconds {
                builder = builder.with_boundaries(SECONDS_BOUNDARIES.to_vec());
            }
            let made = Arc::new(OtelHistogram {
                histogram: builder.build(),
                attributes: attributes(key),
            });
            lock(&self.histograms)
                .entry(key.clone())
                .or_insert(made)
                .clone()
        });
        Histogram::from_arc(histogram)
    }
}

struct OtelCounter {
    counter: opentelemetry::metrics::Counter<u64>,
    attributes: Vec<KeyValue>,
    /// The highest value `absolute` was given.
    absolute: AtomicU64,
}

impl CounterFn for OtelCounter {
    fn increment(&self, value: u64) {
        self.counter.add(value, &self.attributes);
    }

    fn absolute(&self, value: u64) {
        // An OpenTelemetry counter only adds: add what the new total has over the last one.
        let before = self.absolute.fetch_max(value, Ordering::AcqRel);
        if value > before {
            self.counter.add(value - before, &self.attributes);
        }
    }
}

struct OtelGauge {
    gauge: opentelemetry::metrics::Gauge<f64>,
    attributes: Vec<KeyValue>,
    /// The value now (a gauge handle may move it up and down as well as set it).
    value: Mutex<f64>,
}

impl OtelGauge {
    fn update(&self, change: impl FnOnce(f64) -> f64) {
        let mut value = lock(&self.value);
        *value = change(*value);
        self.gauge.record(*value, &self.attributes);
    }
}

impl GaugeFn for OtelGauge {
    fn increment(&self, value: f64) {
        self.update(|v| v + value);
    }

    fn decrement(&self, value: f64) {
        self.update(|v| v - value);
    }

    fn set(&self, value: f64) {
        self.update(|_| value);
    }
}

struct OtelHistogram {
    histogram: opentelemetry::metrics::Histogram<f64>,
    attributes: Vec<KeyValue>,
}

impl HistogramFn for OtelHistogram {
    fn record(&self, value: f64) {
        self.histogram.record(value, &self.attributes);
    }
}
