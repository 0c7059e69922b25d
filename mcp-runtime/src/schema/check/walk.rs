//! Checking a value against compiled nodes: [`Walker::node`]. One pass answers "valid?" and
//! stops at the first problem; a second, only for invalid arguments, collects problems in the
//! order the full engine reports them (its keyword priority: type, values, bounds, required,
//! pattern, format, members, items, composition, `$ref`).

use super::compile::{Additional, Id, Node, Rules, group};
use crate::schema::doc::{Doc, DocRef, Text};
use crate::schema::messages::{Kind, Problem, Seg, count, format_name, types};
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// How many schema nodes one value may pass through, nested (a `$ref` cycle that never moves
/// into the value ends here).
const MAX_DEPTH: u32 = 256;

/// Where a value stands, as steps up to the arguments: built into a path only for a problem.
#[derive(Clone, Copy)]
pub(super) enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn path(&self) -> Vec<Seg> {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                At::Root => break,
                At::Key(up, key) => {
                    steps.push(Seg::Key((*key).to_owned()));
                    at = up;
                }
                At::Index(up, i) => {
                    steps.push(Seg::Index(*i));
                    at = up;
                }
            }
        }
        steps.reverse();
        steps
    }
}

/// Where problems go: `collect` off, the first ends the walk.
pub(super) struct Sink {
    pub(super) problems: Vec<Problem>,
    collect: bool,
    limit: usize,
}

impl Sink {
    pub(super) fn first() -> Sink {
        Sink {
            problems: Vec::new(),
            collect: false,
            limit: 0,
        }
    }

    pub(super) fn all(limit: usize) -> Sink {
        Sink {
            problems: Vec::new(),
            collect: true,
            limit,
        }
    }

    fn collecting(&self) -> bool {
        self.collect && self.problems.len() < self.limit
    }

    /// Records a problem (when collecting); always `false`, the verdict.
    fn fail(&mut self, at: &At<'_>, v: DocRef<'_>, kind: impl FnOnce() -> Kind) -> bool {
        if self.collecting() {
            self.problems.push(Problem {
                path: at.path(),
                value: v.value(),
                kind: kind(),
            });
        }
        false
    }
}

/// Reads values against the nodes of one schema.
pub(super) struct Walker<'n> {
    pub(super) nodes: &'n [Node],
}

impl Walker<'_> {
    /// Whether `v` (at `at`) satisfies node `id`; its problems into `sink`.
    pub(super) fn node(
        &self,
        id: Id,
        v: DocRef<'_>,
        at: &At<'_>,
        sink: &mut Sink,
        depth: u32,
    ) -> bool {
        if depth > MAX_DEPTH {
            return sink.fail(at, v, || {
                Kind::Phrase("could not be checked: its schema refers to itself without end".into())
            });
        }
        match &self.nodes[id as usize] {
            Node::Any => true,
            Node::Never => sink.fail(at, v, || Kind::NotAllowed),
            Node::Rules(rules) => self.rules(rules, v, at, sink, depth + 1),
        }
    }

    /// Whether `v` satisfies `id`, problems unsaid.
    fn passes(&self, id: Id, v: DocRef<'_>, at: &At<'_>, depth: u32) -> bool {
        self.node(id, v, at, &mut Sink::first(), depth)
    }

    /// One schema object's keywords, by the kind of value: a value has one type, so only its
    /// group and the composition apply, each in the full engine's order.
    fn rules(&self, r: &Rules, v: DocRef<'_>, at: &At<'_>, sink: &mut Sink, depth: u32) -> bool {
        let mut ok = true;
        // One failed keyword: recorded, and the walk ends unless problems are collected.
        macro_rules! fail {
            ($kind:expr) => {{
                ok = sink.fail(at, v, || $kind);
                if !sink.collecting() {
                    return false;
                }
            }};
        }
        // A subschema's verdict: the walk ends on a failure unless problems are collected.
        macro_rules! apply {
            ($verdict:expr) => {{
                ok &= $verdict;
                if !ok && !sink.collecting() {
                    return false;
                }
            }};
        }
        if r.types != 0 && r.types & type_of(v.doc) == 0 {
            fail!(Kind::Type(r.types));
        }
        if r.groups & group::VALUES != 0 {
            if let Some(c) = &r.constant
                && !equal(v, c)
            {
                fail!(Kind::Const(c.clone()));
            }
            if let Some(values) = &r.one_of_values
                && !values.iter().any(|x| equal(v, x))
            {
                fail!(Kind::Enum(values.clone()));
            }
        }
        match v.doc {
            Doc::Number(n) if r.groups & group::NUMBERS != 0 => {
                if let Some(m) = &r.minimum
                    && compare(n, m) == Ordering::Less
                {
                    fail!(Kind::Must(format!("be at least {m}")));
                }
                if let Some(m) = &r.maximum
                    && compare(n, m) == Ordering::Greater
                {
                    fail!(Kind::Must(format!("be at most {m}")));
                }
                if let Some(m) = &r.exclusive_minimum
                    && compare(n, m) != Ordering::Greater
                {
                    fail!(Kind::Must(format!("be greater than {m}")));
                }
                if let Some(m) = &r.exclusive_maximum
                    && compare(n, m) != Ordering::Less
                {
                    fail!(Kind::Must(format!("be less than {m}")));
                }
                if let Some(m) = &r.multiple_of
                    && !multiple(n, m)
                {
                    fail!(Kind::Must(format!("be a multiple of {m}")));
                }
            }
            Doc::String(s) if r.groups & group::STRINGS != 0 => {
                let s = s.get(v.text);
                if r.min_length.is_some() || r.max_length.is_some() {
                    let chars = s.chars().count() as u64;
                    if let Some(n) = r.min_length
                        && chars < n
                    {
                        fail!(Kind::Must(format!(
                            "be at least {} long",
                            count(n, "character")
                        )));
                    }
                    if let Some(n) = r.max_length
                        && chars > n
                    {
                        fail!(Kind::Must(format!(
                            "be at most {} long",
                            count(n, "character")
                        )));
                    }
                }
                if let Some((pattern, re)) = &r.pattern
                    && !re.is_match(s)
                {
                    fail!(Kind::Must(format!("match the pattern `{pattern}`")));
                }
                if let Some(f) = r.format
                    && !f.accepts(s)
                {
                    fail!(Kind::Must(format!("be {}", format_name(f.name()))));
                }
            }
            Doc::Array(items) if r.groups & group::ARRAYS != 0 => {
                let len = items.len() as u64;
                if let Some(n) = r.min_items
                    && len < n
                {
                    fail!(Kind::Must(format!("have at least {}", count(n, "item"))));
                }
                if let Some(n) = r.max_items
                    && len > n
                {
                    fail!(Kind::Must(format!("have at most {}", count(n, "item"))));
                }
                if r.unique_items && !unique(items, v.text) {
                    fail!(Kind::Must("not repeat an item".into()));
                }
                let first = r.prefix_items.len();
                if let Some(each) = r.items {
                    for (i, item) in items.iter().enumerate().skip(first) {
                        apply!(self.node(each, item.at(v.text), &At::Index(at, i), sink, depth));
                    }
                }
                for (i, (id, item)) in r.prefix_items.iter().zip(items).enumerate() {
                    apply!(self.node(*id, item.at(v.text), &At::Index(at, i), sink, depth));
                }
                if let Some(wanted) = r.contains
                    && !items.iter().enumerate().any(|(i, item)| {
                        self.passes(wanted, item.at(v.text), &At::Index(at, i), depth)
                    })
                {
                    fail!(Kind::Must(
                        "contain at least one item of the kind it asks for".into()
                    ));
                }
            }
            Doc::Object(members) if r.groups & group::OBJECTS != 0 => {
                let len = members.len() as u64;
                if let Some(n) = r.min_properties
                    && len < n
                {
                    fail!(Kind::Must(format!("have at least {}", count(n, "member"))));
                }
                if let Some(n) = r.max_properties
                    && len > n
                {
                    fail!(Kind::Must(format!("have at most {}", count(n, "member"))));
                }
                // Collecting, the required names are told first; otherwise the pass over the
                // members marks those it meets.
                let collecting = sink.collecting();
                if collecting {
                    for name in &r.required {
                        if !members.iter().any(|(k, _)| k.is(v.text, name)) {
                            fail!(Kind::Required(name.clone()));
                        }
                    }
                }
                let mut seen = 0u64;
                apply!(self.members(r, members, v, at, sink, depth, &mut seen));
                if !collecting {
                    for (name, index) in r.required.iter().zip(&r.required_at) {
                        let present = match index {
                            Some(i) if *i < 64 => seen & (1 << i) != 0,
                            _ => members.iter().any(|(k, _)| k.is(v.text, name)),
                        };
                        if !present {
                            return false;
                        }
                    }
                }
                if let Some(names) = r.property_names {
                    for (key, _) in members {
                        let name = Doc::String(key.clone());
                        if !self.passes(names, name.at(v.text), at, depth) {
                            let shown = Value::String(key.get(v.text).to_owned());
                            fail!(Kind::PropertyName(shown));
                        }
                    }
                }
            }
            _ => {}
        }
        if r.groups & group::COMPOSED == 0 {
            return ok;
        }
        for id in &r.all_of {
            apply!(self.node(*id, v, at, sink, depth));
        }
        if !r.any_of.is_empty() {
            apply!(self.alternatives(&r.any_of, false, v, at, sink, depth));
        }
        if !r.one_of.is_empty() {
            apply!(self.alternatives(&r.one_of, true, v, at, sink, depth));
        }
        if let Some(id) = r.not
            && self.passes(id, v, at, depth)
        {
            fail!(Kind::Not);
        }
        if let Some(id) = r.reference {
            ok &= self.node(id, v, at, sink, depth);
        }
        ok
    }

    /// `properties` and `additionalProperties`, member by member in the order written; the
    /// members no schema declares in one problem after the others'. `seen` gets a bit for each
    /// of the first 64 properties met. Members are looked up from the property after the last
    /// one met: arguments sent in the schema's order cost one comparison each.
    #[allow(clippy::too_many_arguments)]
    fn members(
        &self,
        r: &Rules,
        members: &[(Text, Doc)],
        v: DocRef<'_>,
        at: &At<'_>,
        sink: &mut Sink,
        depth: u32,
        seen: &mut u64,
    ) -> bool {
        if !r.has_properties && matches!(r.additional, Additional::Any) {
            return true;
        }
        let mut ok = true;
        let mut unexpected: Vec<String> = Vec::new();
        let count = r.properties.len();
        let mut next = 0;
        for (key, value) in members {
            let found = (next..count)
                .chain(0..next)
                .find(|i| key.is(v.text, &r.properties[*i].0));
            let schema = match found {
                Some(i) => {
                    next = i + 1;
                    if i < 64 {
                        *seen |= 1 << i;
                    }
                    Some(r.properties[i].1)
                }
                None => match r.additional {
                    Additional::Any => None,
                    Additional::Node(id) => Some(id),
                    Additional::Never if r.has_properties => {
                        ok = false;
                        if !sink.collecting() {
                            return false;
                        }
                        unexpected.push(key.get(v.text).to_owned());
                        None
                    }
                    Additional::Never => {
                        // No member at all is allowed: one problem, about the object.
                        return sink.fail(at, v, || Kind::NoMembers) && ok;
                    }
                },
            };
            if let Some(id) = schema {
                let here = At::Key(at, key.get(v.text));
                ok &= self.node(id, value.at(v.text), &here, sink, depth);
                if !ok && !sink.collecting() {
                    return false;
                }
            }
        }
        if !unexpected.is_empty() {
            let declared = r.properties.iter().map(|(n, _)| n.clone()).collect();
            sink.fail(at, v, || Kind::Unexpected {
                names: unexpected,
                declared,
            });
        }
        ok
    }

    /// `anyOf` (`exactly_one` false) or `oneOf`.
    fn alternatives(
        &self,
        ids: &[Id],
        exactly_one: bool,
        v: DocRef<'_>,
        at: &At<'_>,
        sink: &mut Sink,
        depth: u32,
    ) -> bool {
        if !sink.collecting() {
            let mut passing = ids.iter().filter(|id| self.passes(**id, v, at, depth));
            return match exactly_one {
                false => passing.next().is_some(),
                true => passing.next().is_some() && passing.next().is_none(),
            };
        }
        let mut context = Vec::new();
        let mut valid = 0;
        for id in ids {
            let mut own = Sink::all(sink.limit);
            if self.node(*id, v, at, &mut own, depth) {
                valid += 1;
                if !exactly_one {
                    return true;
                }
            } else {
                context.push(own.problems);
            }
        }
        match valid {
            0 => sink.fail(at, v, || Kind::Alternatives(context)),
            1 => true,
            _ => sink.fail(at, v, || Kind::OneOfMultiple),
        }
    }
}

/// The type bits a value satisfies (an integral number is an integer and a number).
fn type_of(doc: &Doc) -> u8 {
    match doc {
        Doc::Null => types::NULL,
        Doc::Bool(_) => types::BOOLEAN,
        Doc::Number(n) if integral(n) => types::INTEGER | types::NUMBER,
        Doc::Number(_) => types::NUMBER,
        Doc::String(_) => types::STRING,
        Doc::Array(_) => types::ARRAY,
        Doc::Object(_) => types::OBJECT,
    }
}

fn integral(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn as_int(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn as_float(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// Numbers compared by value (`1` equals `1.0`).
fn compare(a: &Number, b: &Number) -> Ordering {
    match (as_int(a), as_int(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => as_float(a)
            .partial_cmp(&as_float(b))
            .unwrap_or(Ordering::Equal),
    }
}

/// Whether `a` is a multiple of `m`: exact for integers, within a few units in the last
/// place for fractions (`0.3` is a multiple of `0.1`).
fn multiple(a: &Number, m: &Number) -> bool {
    if let (Some(x), Some(y)) = (as_int(a), as_int(m)) {
        return y != 0 && x % y == 0;
    }
    let q = as_float(a) / as_float(m);
    q.is_finite() && (q - q.round()).abs() <= 4.0 * f64::EPSILON * q.abs().max(1.0)
}

/// Whether a value of the document equals a schema's value (numbers by value, members in any
/// order).
fn equal(v: DocRef<'_>, x: &Value) -> bool {
    match (v.doc, x) {
        (Doc::Null, Value::Null) => true,
        (Doc::Bool(a), Value::Bool(b)) => a == b,
        (Doc::String(s), Value::String(t)) => s.get(v.text) == t,
        (Doc::Number(a), Value::Number(b)) => compare(a, b) == Ordering::Equal,
        (Doc::Array(items), Value::Array(xs)) => {
            items.len() == xs.len() && items.iter().zip(xs).all(|(i, x)| equal(i.at(v.text), x))
        }
        (Doc::Object(members), Value::Object(map)) => {
            members.len() == map.len()
                && members.iter().all(|(k, val)| {
                    map.get(k.get(v.text))
                        .is_some_and(|x| equal(val.at(v.text), x))
                })
        }
        _ => false,
    }
}

/// Whether no two items are equal: each written in one canonical form, sorted, neighbours
/// compared (n log n, however long the array).
fn unique(items: &[Doc], text: &str) -> bool {
    let mut forms: Vec<String> = items
        .iter()
        .map(|item| {
            let mut out = String::new();
            canonical(item.at(text), &mut out);
            out
        })
        .collect();
    forms.sort_unstable();
    forms.windows(2).all(|pair| pair[0] != pair[1])
}

/// A value written so that equal values (by JSON Schema's equality) are written alike.
fn canonical(v: DocRef<'_>, out: &mut String) {
    match v.doc {
        Doc::Null => out.push('n'),
        Doc::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Doc::Number(n) => match as_int(n) {
            Some(i) => out.push_str(&format!("i{i}")),
            None => {
                let f = as_float(n);
                match f.fract() == 0.0 && f.abs() < 1e38 {
                    true => out.push_str(&format!("i{}", f as i128)),
                    false => out.push_str(&format!("f{f:?}")),
                }
            }
        },
        Doc::String(s) => {
            out.push('s');
            out.push_str(&Value::String(s.get(v.text).to_owned()).to_string());
        }
        Doc::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item.at(v.text), out);
                out.push(',');
            }
            out.push(']');
        }
        Doc::Object(members) => {
            let mut pairs: Vec<String> = members
                .iter()
                .map(|(k, val)| {
                    let mut pair = Value::String(k.get(v.text).to_owned()).to_string();
                    pair.push(':');
                    canonical(val.at(v.text), &mut pair);
                    pair
                })
                .collect();
            pairs.sort_unstable();
            out.push('{');
            out.push_str(&pairs.join(","));
            out.push('}');
        }
    }
}
