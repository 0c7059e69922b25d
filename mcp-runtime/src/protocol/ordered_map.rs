//! A small insertion-ordered string map (keeps `inputRequests` in the order they were asked).

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// An ordered map from string keys to values; inserting an existing key replaces its value.
///
/// ```
/// use mcp_runtime::protocol::OrderedMap;
/// let mut m = OrderedMap::new();
/// m.insert("b", 1);
/// m.insert("a", 2);
/// assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a"]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct OrderedMap<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap {
            entries: Vec::new(),
        }
    }
}

impl<V> OrderedMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }
    /// An empty map with room for `n` entries.
    ///
    /// ```
    /// use mcp_runtime::protocol::InputRequests;
    /// let asks = InputRequests::with_capacity(3);
    /// assert!(asks.is_empty());
    /// ```
    pub fn with_capacity(n: usize) -> Self {
        OrderedMap {
            entries: Vec::with_capacity(n),
        }
    }
    /// Inserts or replaces.
    pub fn insert(&mut self, key: impl Into<String>, value: V) {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }
    /// Looks a key up.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// Removes a key, keeping the others in order; its value if it was there.
    ///
    /// ```
    /// use mcp_runtime::protocol::OrderedMap;
    /// let mut m = OrderedMap::new();
    /// m.insert("a", 1);
    /// m.insert("b", 2);
    /// assert_eq!(m.remove("a"), Some(1));
    /// assert_eq!(m.remove("a"), None);
    /// assert_eq!(m.keys().collect::<Vec<_>>(), ["b"]);
    /// ```
    pub fn remove(&mut self, key: &str) -> Option<V> {
        let at = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(at).1)
    }
    /// Keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }
    /// Entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut m = OrderedMap::new();
                while let Some((k, v)) = a.next_entry::<String, V>()? {
                    m.insert(k, v);
                }
                Ok(m)
            }
        }
        d.deserialize_map(V2(PhantomData))
    }
}

impl<V> IntoIterator for OrderedMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;
    /// Entries in order.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}
