use super::*;
use serde_json::json;

fn map(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("an object")
}

#[test]
fn portable_schemas_are_left_as_they_are() {
    for schema in [
        json!({"type": "object", "required": ["a", "b"], "additionalProperties": false,
               "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
        json!({"type": "object", "additionalProperties": false}),
        json!({"type": "object", "properties": {
            "q": {"type": "string", "minLength": 3, "description": "Query."},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "x": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "r": {"type": "string", "x-mcp-header": "Region"}}}),
    ] {
        let s = map(schema);
        assert_eq!(portable(&s), s);
        assert_eq!(portability_issues(&s), []);
    }
}

#[test]
fn options_lose_their_null_only_where_they_are_optional() {
    let s = map(
        json!({"type": "object", "required": ["kept"], "properties": {
        "a": {"type": ["integer", "null"], "minimum": 1},
        "b": {"description": "B.", "anyOf": [{"type": "string", "description": "T."},
                                             {"type": "null"}]},
        "c": {"type": ["string", "null"], "enum": ["x", "y", null]},
        "d": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}],
              "default": null},
        "kept": {"type": ["integer", "null"]},
        "items": {"type": "array", "items": {"type": ["integer", "null"]}}}}),
    );
    let p = Value::Object(portable(&s));
    assert_eq!(
        p["properties"]["a"],
        json!({"type": "integer", "minimum": 1})
    );
    assert_eq!(
        p["properties"]["b"],
        json!({"type": "string", "description": "B."})
    );
    assert_eq!(
        p["properties"]["c"],
        json!({"type": "string", "enum": ["x", "y"]})
    );
    assert_eq!(
        p["properties"]["d"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
    );
    // Required, or an array's item: `null` is a value there, and is reported.
    assert_eq!(
        p["properties"]["kept"],
        json!({"type": ["integer", "null"]})
    );
    let pointers: Vec<String> = portability_issues(p.as_object().unwrap())
        .into_iter()
        .map(|i| i.pointer)
        .collect();
    assert_eq!(
        pointers,
        ["/properties/items/items/type", "/properties/kept/type"]
    );
}

#[test]
fn references_are_inlined_and_recursion_is_kept_and_reported() {
    let s = map(json!({"type": "object", "required": ["p"], "properties": {
        "p": {"$ref": "#/$defs/P", "description": "Field doc."},
        "o": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]},
        "t": {"anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]}},
        "$defs": {
            "P": {"type": "string", "enum": ["low", "high"], "description": "Type doc."},
            "Inner": {"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}},
            "Tree": {"type": "object", "required": ["children"], "properties": {
                "label": {"type": ["string", "null"]},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}}));
    let p = Value::Object(portable(&s));
    assert_eq!(
        p["properties"]["p"],
        json!({"type": "string", "enum": ["low", "high"], "description": "Field doc."})
    );
    assert_eq!(
        p["properties"]["o"],
        json!({"type": "object", "properties": {"p": {"type": "string", "enum": ["low", "high"], "description": "Type doc."}}})
    );
    // The recursive type: inlined once, its inner reference kept with its definition.
    assert_eq!(
        p["properties"]["t"]["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/Tree"})
    );
    assert_eq!(
        p["properties"]["t"]["properties"]["label"],
        json!({"type": "string"})
    );
    assert_eq!(
        p["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["Tree"]
    );
    assert_eq!(
        p["$defs"]["Tree"]["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/Tree"})
    );
    let issues = portability_issues(p.as_object().unwrap());
    let pointers: Vec<&str> = issues.iter().map(|i| i.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/$defs/Tree/properties/children/items/$ref",
            "/properties/t/properties/children/items/$ref"
        ],
        "{issues:?}"
    );
    // Still a valid 2020-12 schema whose references resolve.
    jsonschema::validator_for(&p).expect("compiles");
}

#[test]
fn a_reference_graph_shared_many_times_stays_bounded() {
    // 2^20 paths if every reference were inlined.
    let mut defs = Map::new();
    for i in 0..20 {
        let next = json!({"$ref": format!("#/$defs/D{}", i + 1)});
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"l": next.clone(), "r": next}}),
        );
    }
    defs.insert("D20".into(), json!({"type": "integer"}));
    let s = map(
        json!({"type": "object", "properties": {"d": {"$ref": "#/$defs/D0"}},
                       "$defs": defs}),
    );
    let p = Value::Object(portable(&s));
    assert!(p.to_string().len() < 1_000_000);
    assert!(!portability_issues(p.as_object().unwrap()).is_empty());
    jsonschema::validator_for(&p).expect("compiles");
}

#[test]
fn disjoint_one_ofs_are_any_ofs_and_consts_are_enums() {
    let enum_like = json!({"oneOf": [
        {"type": "string", "enum": ["Dot"]},
        {"type": "object", "required": ["Circle"], "additionalProperties": false,
         "properties": {"Circle": {"type": "number"}}},
        {"type": "object", "required": ["Rect"], "additionalProperties": false,
         "properties": {"Rect": {"type": "object"}}}]});
    let tagged = json!({"oneOf": [
        {"type": "object", "required": ["kind", "x"],
         "properties": {"kind": {"type": "string", "const": "A"}, "x": {"type": "integer"}}},
        {"type": "object", "required": ["kind"],
         "properties": {"kind": {"type": "string", "const": "B"}}}]});
    let overlapping = json!({"oneOf": [{"type": "string"}, {"type": "string", "minLength": 3}]});
    let s = map(json!({"type": "object", "required": ["e", "t", "o"],
        "properties": {"e": enum_like, "t": tagged, "o": overlapping}}));
    let p = Value::Object(portable(&s));
    assert!(p["properties"]["e"].get("anyOf").is_some());
    assert_eq!(
        p["properties"]["t"]["anyOf"][0]["properties"]["kind"],
        json!({"type": "string", "enum": ["A"]})
    );
    assert!(
        p["properties"]["o"].get("oneOf").is_some(),
        "may overlap: kept"
    );
    let issues = portability_issues(p.as_object().unwrap());
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].pointer, "/properties/o/oneOf");
}

#[test]
fn documented_values_are_one_enum_with_their_meanings_described() {
    let s = map(json!({"type": "object", "required": ["to"], "properties": {
        "to": {"description": "Where the card goes.", "$ref": "#/$defs/Column"}},
        "$defs": {"Column": {"oneOf": [
            {"type": "string", "const": "todo", "description": "Not started."},
            {"type": "string", "const": "doing", "title": "Doing", "description": "In progress."},
            {"type": "string", "const": "done"}]}}}));
    let p = Value::Object(portable(&s));
    assert_eq!(
        p["properties"]["to"],
        json!({"type": "string", "enum": ["todo", "doing", "done"],
               "description": "Where the card goes.\n- \"todo\": Not started.\n- \"doing\": Doing: In progress."})
    );
    assert_eq!(portability_issues(p.as_object().unwrap()), []);
}

#[test]
fn alternatives_at_the_root_become_one_object() {
    let s = map(json!({"oneOf": [
        {"type": "object", "required": ["kind", "x"], "additionalProperties": false,
         "properties": {"kind": {"type": "string", "const": "A"}, "x": {"type": "integer"}}},
        {"type": "object", "required": ["kind", "y"], "additionalProperties": false,
         "properties": {"kind": {"type": "string", "const": "B"}, "y": {"type": "string"}}}]}));
    let p = portable(&s);
    assert_eq!(
        Value::Object(p.clone()),
        json!({"type": "object", "required": ["kind"], "additionalProperties": false,
               "properties": {"kind": {"type": "string", "enum": ["A", "B"]},
                              "x": {"type": "integer"}, "y": {"type": "string"}}})
    );
    assert_eq!(portability_issues(&p), []);
    let issues = portability_issues(&s);
    assert_eq!(issues[0].pointer, "/type");
    assert_eq!(issues[1].pointer, "/oneOf");
}

#[test]
fn what_hosts_cannot_read_is_reported_with_its_place() {
    let s = map(json!({"type": "object", "properties": {
        "any": true,
        "map": {"type": "object", "additionalProperties": {"type": "integer"}},
        "pair": {"type": "array", "prefixItems": [{"type": "integer"}]},
        "both": {"allOf": [{"type": "string"}, {"minLength": 2}]},
        "a/b": {"description": "untyped"}}}));
    let issues: Vec<String> = portability_issues(&s)
        .iter()
        .map(ToString::to_string)
        .collect();
    let starts = [
        "at `/properties/a~1b`: no `type`",
        "at `/properties/any`: `true` accepts any JSON value",
        "at `/properties/both/allOf`: `allOf`",
        "at `/properties/map/additionalProperties`: an object of free-form names",
        "at `/properties/pair/prefixItems`: `prefixItems`",
    ];
    assert_eq!(issues.len(), starts.len(), "{issues:#?}");
    for (issue, start) in issues.iter().zip(starts) {
        assert!(issue.starts_with(start), "{issue}");
    }
}
