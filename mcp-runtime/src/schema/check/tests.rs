//! The built-in checker against the sentences it must say, and against the full engine: the
//! same verdict and the same sentences for the same schema and arguments.

use super::Checker;
use crate::schema::doc::Doc;
use crate::schema::messages::{problem_of, sentence};
use serde_json::{Value, json};

/// The built-in checker's sentences for `instance` against `schema`.
fn ours(schema: &Value, instance: &Value) -> Vec<String> {
    let checker = Checker::compile(schema).expect("the built-in checker compiles it");
    let text = instance.to_string();
    let doc = Doc::parse(&text).unwrap();
    let problems = checker.problems(doc.at(&text), 100);
    assert_eq!(
        checker.is_valid(doc.at(&text)),
        problems.is_empty(),
        "{schema} {instance}"
    );
    problems.iter().map(sentence).collect()
}

/// The full engine's sentences for the same.
fn theirs(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .expect("a valid schema");
    validator
        .iter_errors(instance)
        .map(|e| sentence(&problem_of(&e, schema)))
        .collect()
}

/// Every sentence, after checking that the engine says the same ones (in its order when
/// there is one; as a set when there are several, whose order the engine varies with its
/// fused validators).
fn sentences(schema: Value, instance: Value) -> Vec<String> {
    let ours = ours(&schema, &instance);
    let mut theirs = theirs(&schema, &instance);
    if ours.len() > 1 {
        let mut sorted = ours.clone();
        sorted.sort();
        theirs.sort();
        assert_eq!(sorted, theirs, "{schema} {instance}");
    } else {
        assert_eq!(ours, theirs, "{schema} {instance}");
    }
    ours
}

fn one(schema: Value, instance: Value) -> String {
    let all = sentences(schema, instance);
    assert_eq!(all.len(), 1, "{all:?}");
    all.into_iter().next().unwrap_or_default()
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "additionalProperties": false, "properties": properties})
}

#[test]
fn each_keyword_reads_as_a_sentence() {
    let cases = [
        (
            json!({"a": {"type": "integer"}}),
            json!({"a": "one"}),
            r#"`a` must be an integer (got "one")"#,
        ),
        (
            json!({"a": {"type": ["string", "null"]}}),
            json!({"a": 1}),
            "`a` must be a string (got 1)",
        ),
        (
            json!({"priority": {"enum": ["low", "normal", "high"]}}),
            json!({"priority": "asap"}),
            r#"`priority` must be one of "low", "normal", "high" (got "asap")"#,
        ),
        (
            json!({"kind": {"const": "A"}}),
            json!({"kind": "B"}),
            r#"`kind` must be "A" (got "B")"#,
        ),
        (
            json!({"q": {"type": "string", "minLength": 3}}),
            json!({"q": "ab"}),
            r#"`q` must be at least 3 characters long (got "ab")"#,
        ),
        (
            json!({"q": {"type": "string", "maxLength": 1}}),
            json!({"q": "ab"}),
            r#"`q` must be at most 1 character long (got "ab")"#,
        ),
        (
            json!({"n": {"minimum": 1}}),
            json!({"n": 0}),
            "`n` must be at least 1 (got 0)",
        ),
        (
            json!({"n": {"maximum": 10}}),
            json!({"n": 11}),
            "`n` must be at most 10 (got 11)",
        ),
        (
            json!({"n": {"exclusiveMinimum": 0}}),
            json!({"n": 0}),
            "`n` must be greater than 0 (got 0)",
        ),
        (
            json!({"n": {"exclusiveMaximum": 1.5}}),
            json!({"n": 2}),
            "`n` must be less than 1.5 (got 2)",
        ),
        (
            json!({"n": {"multipleOf": 5}}),
            json!({"n": 7}),
            "`n` must be a multiple of 5 (got 7)",
        ),
        (
            json!({"id": {"pattern": "^doc_"}}),
            json!({"id": "nope"}),
            r#"`id` must match the pattern `^doc_` (got "nope")"#,
        ),
        (
            json!({"notify": {"format": "email"}}),
            json!({"notify": "nope"}),
            r#"`notify` must be an email address (got "nope")"#,
        ),
        (
            json!({"at": {"format": "date"}}),
            json!({"at": "31/01"}),
            r#"`at` must be a date (YYYY-MM-DD) (got "31/01")"#,
        ),
        (
            json!({"tags": {"minItems": 1}}),
            json!({"tags": []}),
            "`tags` must have at least 1 item (got [])",
        ),
        (
            json!({"tags": {"maxItems": 2}}),
            json!({"tags": [1, 2, 3]}),
            "`tags` must have at most 2 items (got [1,2,3])",
        ),
        (
            json!({"tags": {"uniqueItems": true}}),
            json!({"tags": ["x", "x"]}),
            r#"`tags` must not repeat an item (got ["x","x"])"#,
        ),
        (
            json!({"o": {"minProperties": 2}}),
            json!({"o": {"a": 1}}),
            r#"`o` must have at least 2 members (got {"a":1})"#,
        ),
        (
            json!({"o": {"maxProperties": 0}}),
            json!({"o": {"a": 1}}),
            r#"`o` must have at most 0 members (got {"a":1})"#,
        ),
        (
            json!({"l": {"contains": {"type": "string"}}}),
            json!({"l": [1]}),
            "`l` must contain at least one item of the kind it asks for (got [1])",
        ),
        (
            json!({"o": {"propertyNames": {"maxLength": 2}}}),
            json!({"o": {"long": 1}}),
            r#"`o` has a member named "long" that is not allowed"#,
        ),
        (
            json!({"x": {"not": {"type": "string"}}}),
            json!({"x": "s"}),
            r#"`x` has a value that is not allowed (got "s")"#,
        ),
        (
            json!({"x": false}),
            json!({"x": 1}),
            "`x` is not allowed here",
        ),
        (
            json!({"t": {"prefixItems": [{"type": "integer"}], "items": false}}),
            json!({"t": [1, 2]}),
            "`t[1]` is not allowed (got 2)",
        ),
        (
            json!({"x": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}),
            json!({"x": 1}),
            "`x` matches more than one of its alternatives, and must match exactly one (got 1)",
        ),
    ];
    for (properties, instance, want) in cases {
        assert_eq!(one(object(properties), instance), want);
    }
    let nested = json!({"type": "array", "items": {"type": "object", "required": ["n"],
            "properties": {"n": {"type": "integer"}}}});
    assert_eq!(
        one(
            object(json!({"rows": nested})),
            json!({"rows": [{"n": 1}, {}]})
        ),
        "`rows[1].n` is required"
    );
}

#[test]
fn missing_and_unknown_arguments_name_what_is_allowed() {
    let schema = json!({"type": "object", "required": ["a", "b"], "additionalProperties": false,
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                           "inner": {"type": "object", "additionalProperties": false,
                                     "properties": {"x": {"type": "string"}}}}});
    assert_eq!(
        sentences(schema.clone(), json!({"a": 1})),
        ["`b` is required"]
    );
    assert_eq!(
        sentences(schema.clone(), json!({"a": 1, "b": 2, "c": 3})),
        ["`c` is not an argument of this tool (its arguments: `a`, `b`, `inner`)"]
    );
    assert_eq!(
        sentences(
            schema.clone(),
            json!({"a": 1, "b": 2, "inner": {"y": 1, "z": 2}})
        ),
        ["`inner.y`, `inner.z` are not allowed (`inner` takes `x`)"]
    );
    let none = json!({"type": "object", "additionalProperties": false});
    assert_eq!(
        sentences(none, json!({"q": 1})),
        ["this tool takes no arguments: send an empty object"]
    );
    // Through a reference: the referenced schema's properties.
    let referenced = json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}},
            "$defs": {"P": {"type": "object", "additionalProperties": false,
                            "properties": {"k": {"type": "string"}}}}});
    assert_eq!(
        sentences(referenced, json!({"p": {"j": 1}})),
        ["`p.j` is not allowed (`p` takes `k`)"]
    );
}

#[test]
fn alternatives_say_what_the_value_could_be() {
    // An `Option` of an enum (schemars' shape): the `null` is left out.
    let option = json!({"type": "object", "properties": {"maybe": {"anyOf": [
            {"$ref": "#/$defs/P"}, {"type": "null"}]}},
            "$defs": {"P": {"type": "string", "enum": ["low", "high"]}}});
    assert_eq!(
        sentences(option, json!({"maybe": "asap"})),
        [r#"`maybe` must be one of "low", "high" (got "asap")"#]
    );
    // Untagged alternatives of different types.
    let loose = object(json!({"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}));
    assert_eq!(
        sentences(loose, json!({"v": true})),
        ["`v` must be an integer or a string (got true)"]
    );
    // An enum with data: the alternative whose shape the value has speaks.
    let shape = object(json!({"s": {"oneOf": [
            {"type": "string", "enum": ["Dot"]},
            {"type": "object", "required": ["Circle"], "additionalProperties": false,
             "properties": {"Circle": {"type": "number"}}},
            {"type": "object", "required": ["Rect"], "additionalProperties": false,
             "properties": {"Rect": {"type": "object", "required": ["w"],
                                     "properties": {"w": {"type": "integer"}}}}}]}}));
    assert_eq!(
        sentences(shape.clone(), json!({"s": {"Circle": "big"}})),
        [r#"`s.Circle` must be a number (got "big")"#]
    );
    assert_eq!(
        sentences(shape.clone(), json!({"s": "Square"})),
        [r#"`s` must be "Dot" or an object (got "Square")"#]
    );
    assert_eq!(
        sentences(shape, json!({"s": {"Rect": {}}})),
        ["`s.Rect.w` is required"]
    );
}

/// A registration form as schemars derives it with its validation attributes.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
#[serde(deny_unknown_fields)]
struct Form {
    #[schemars(length(min = 1, max = 8))]
    name: String,
    #[schemars(email)]
    email: String,
    #[schemars(range(min = 0, max = 150))]
    age: u8,
    #[schemars(regex(pattern = r"^\+?[0-9 ]{6,20}$"))]
    phone: Option<String>,
    #[schemars(url)]
    site: Option<String>,
    #[schemars(range(min = 0.0, max = 5.0))]
    score: f64,
    tags: std::collections::BTreeSet<String>,
    #[schemars(length(max = 2))]
    pets: Vec<Pet>,
    level: Level,
    shape: Option<Shape>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Pet {
    kind: Level,
    #[schemars(length(min = 2))]
    called: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
enum Level {
    Low,
    High,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
#[serde(tag = "type")]
enum Shape {
    Dot,
    Circle { r: f64 },
}

#[test]
fn derived_schemas_read_as_the_engine_reads_them() {
    let schema = Value::Object(crate::schema::schema_for::<Form>());
    let good = json!({"name": "Ann", "email": "ann@example.com", "age": 30, "score": 4.5,
        "tags": ["a", "b"], "pets": [{"kind": "Low", "called": "Rex"}], "level": "High",
        "phone": "+33 123 456", "site": "https://example.com", "shape": {"type": "Circle", "r": 1.5}});
    assert_eq!(
        sentences(schema.clone(), good.clone()),
        Vec::<String>::new()
    );
    let changes = [
        json!({"name": ""}),
        json!({"name": "a very long name"}),
        json!({"email": "nope"}),
        json!({"age": 151}),
        json!({"age": -1}),
        json!({"age": 1.5}),
        json!({"phone": "12"}),
        json!({"site": "not a uri"}),
        json!({"score": 5.5}),
        json!({"tags": ["a", "a"]}),
        json!({"tags": "a"}),
        json!({"pets": [{"kind": "Mid", "called": "R"}, {"kind": "Low"}, {}]}),
        json!({"level": "Mid"}),
        json!({"level": 3}),
        json!({"shape": {"type": "Square"}}),
        json!({"shape": {"type": "Circle", "r": "big"}}),
        json!({"shape": {"type": "Circle"}}),
        json!({"shape": "Dot"}),
        json!({"extra": 1}),
        json!({"extra": 1, "more": 2, "name": 7}),
    ];
    for change in changes {
        let mut instance = good.clone();
        for (k, v) in change.as_object().unwrap() {
            instance[k] = v.clone();
        }
        let said = sentences(schema.clone(), instance.clone());
        assert!(!said.is_empty(), "{instance} is refused");
    }
    let mut missing = good;
    missing.as_object_mut().unwrap().remove("email");
    assert_eq!(sentences(schema, missing), ["`email` is required"]);
}

#[test]
fn numbers_compare_by_value() {
    let schema = json!({"type": "object", "properties": {
        "i": {"type": "integer", "minimum": 1, "maximum": 1e3},
        "e": {"enum": [1, "x", [1, {"a": 2}]]},
        "m": {"multipleOf": 0.1},
        "u": {"type": "array", "uniqueItems": true}}});
    for (instance, valid) in [
        (json!({"i": 1.0}), true),
        (json!({"i": 1000}), true),
        (json!({"i": 1001}), false),
        (json!({"i": 0.5}), false),
        (json!({"e": 1.0}), true),
        (json!({"e": [1.0, {"a": 2}]}), true),
        (json!({"e": [1, {"a": 3}]}), false),
        (json!({"m": 0.3}), true),
        (json!({"m": 7}), true),
        (json!({"m": 0.35}), false),
        (json!({"u": [1, 1.0]}), false),
        (json!({"u": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]}), false),
        (json!({"u": [[1], [1, 1], "1", 1]}), true),
    ] {
        assert_eq!(
            sentences(schema.clone(), instance.clone()).is_empty(),
            valid,
            "{instance}"
        );
    }
}

#[test]
fn what_only_the_full_engine_checks_is_refused_by_name() {
    for (schema, says) in [
        (
            json!({"if": {"type": "string"}, "then": {"minLength": 1}}),
            "uses `if`",
        ),
        (
            json!({"patternProperties": {"^x": {}}}),
            "uses `patternProperties`",
        ),
        (
            json!({"properties": {"a": {"unevaluatedProperties": false}}}),
            "uses `unevaluatedProperties`",
        ),
        (
            json!({"$ref": "https://example.com/s.json"}),
            "outside the schema",
        ),
        (
            json!({"format": "duration"}),
            "asserts the `duration` format",
        ),
        (
            json!({"items": [{"type": "string"}]}),
            "an array as `items`",
        ),
    ] {
        match Checker::compile(&schema) {
            Err(super::Refusal::Unsupported(why)) => assert!(why.contains(says), "{why}"),
            other => panic!("{schema}: {:?}", other.err()),
        }
    }
    // A pattern regex-lite cannot read either: for the full engine, with the `regex` feature;
    // without it, the refusal asks for that feature first.
    let look_around = json!({"pattern": "(?=a)b"});
    match Checker::compile(&look_around) {
        #[cfg(feature = "regex")]
        Err(super::Refusal::Unsupported(why)) => assert!(why.contains("cannot read"), "{why}"),
        #[cfg(not(feature = "regex"))]
        Err(super::Refusal::NeedsRegex(p)) => assert_eq!(p, "(?=a)b"),
        other => panic!("{look_around}: {:?}", other.err()),
    }
    for schema in [
        json!({"type": "strin"}),
        json!({"minLength": -1}),
        json!({"$ref": "#/$defs/Nope"}),
    ] {
        assert!(
            matches!(Checker::compile(&schema), Err(super::Refusal::Invalid(_))),
            "{schema}"
        );
    }
    // Unknown formats and keywords are annotations, as in the engine.
    assert!(
        Checker::compile(&json!({"format": "int32", "x-mcp-header": "Q", "examples": [1]})).is_ok()
    );
}

#[test]
fn client_input_meets_bounded_work() {
    // A reference cycle that never moves into the value ends at the depth bound.
    let cycle = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    let checker = Checker::compile(&cycle).unwrap();
    let doc = Doc::parse("{}").unwrap();
    assert!(!checker.is_valid(doc.at("{}")));
    let said: Vec<String> = checker
        .problems(doc.at("{}"), 8)
        .iter()
        .map(sentence)
        .collect();
    assert_eq!(
        said,
        ["the arguments could not be checked: its schema refers to itself without end"]
    );
    // `uniqueItems` over 200,000 items sorts rather than compares every pair.
    let items: Vec<String> = (0..200_000).map(|i| i.to_string()).collect();
    let text = format!("[{},1]", items.join(","));
    let doc = Doc::parse(&text).unwrap();
    let unique = Checker::compile(&json!({"uniqueItems": true})).unwrap();
    assert!(!unique.is_valid(doc.at(&text)));
    // At most `limit` problems, however many items are wrong.
    let wrong = Checker::compile(&json!({"items": {"type": "string"}})).unwrap();
    assert_eq!(wrong.problems(doc.at(&text), 8).len(), 8);
}
