//! The model built from representative functions, through the same path the macros take.

use super::{InputKind, Model, ParamKind, Spec};
use crate::driver::checked_model;
use crate::kind::Kind;
use crate::model::Host;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{ItemFn, parse_quote};

/// The checked model of `item` under `#[kind(args)]`, or every error message in order.
fn model(kind: Kind, args: TokenStream, item: ItemFn) -> Result<Model, Vec<String>> {
    checked_model(kind, args, item, Host::Free)
        .map(|(model, _)| model)
        .map_err(|failed| failed.error.into_iter().map(|e| e.to_string()).collect())
}

fn ok(kind: Kind, args: TokenStream, item: ItemFn) -> Model {
    match model(kind, args, item) {
        Ok(m) => m,
        Err(errors) => panic!("unexpected errors: {errors:#?}"),
    }
}

#[test]
fn tool_with_arguments_and_doc_comment() {
    let m = ok(
        Kind::Tool,
        quote!(name = "adder", annotations(read_only), task = "optional"),
        parse_quote! {
            /// Add two integers.
            /// Use only for arithmetic.
            async fn add(
                /// The first term.
                a: i64,
                #[schemars(range(min = 0), description = "The second term.")] b: i64,
                #[serde(default)] c: Option<i64>,
                progress: Progress,
            ) -> i64 {
                a + b
            }
        },
    );
    assert_eq!(m.kind(), Kind::Tool);
    let Spec::Tool(tool) = &m.spec else {
        panic!("not a tool")
    };
    assert_eq!(tool.name, "adder");
    assert!(tool.attrs.annotations.as_ref().unwrap().read_only.is_some());
    assert_eq!(
        tool.attrs.task.as_ref().map(|(mode, _)| *mode),
        Some(crate::attr::tool::TaskMode::Optional)
    );
    assert!(tool.attrs.common.description.is_none());

    let params = &m.func.params;
    assert_eq!(params.len(), 4);
    assert_eq!(params[0].name, "a");
    assert!(params[0].is_argument());
    assert_eq!(params[0].doc.as_deref(), Some("The first term."));
    assert!(!params[0].described);
    // A description given to schemars is found after a nested `range(..)`.
    assert!(params[1].described);
    assert_eq!(params[1].forwarded.len(), 1);
    assert!(!params[2].described);
    assert!(matches!(params[3].kind, ParamKind::Context));

    // The function keeps its doc comment; the parameters lose theirs and the helper attributes.
    assert_eq!(
        crate::docs::description(&m.func.item.attrs).as_deref(),
        Some("Add two integers. Use only for arithmetic.")
    );
    for input in &m.func.item.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            panic!("a receiver")
        };
        assert!(pt.attrs.is_empty(), "left on the re-emitted function");
    }
}

#[test]
fn description_is_a_key_not_a_substring() {
    let m = ok(
        Kind::Tool,
        TokenStream::new(),
        parse_quote! {
            fn find(#[schemars(title = "no description here")] q: String) {}
        },
    );
    assert!(!m.func.params[0].described);
}

#[test]
fn tool_name_defaults_to_the_function() {
    let m = ok(
        Kind::Tool,
        TokenStream::new(),
        parse_quote!(
            fn r#type() {}
        ),
    );
    let Spec::Tool(tool) = &m.spec else {
        panic!("not a tool")
    };
    assert_eq!(tool.name, "type");
}

#[test]
fn resource_with_a_template() {
    let m = ok(
        Kind::Resource,
        quote!(
            "docs://{id}/text{+rest}",
            mime_type = "text/plain",
            complete(id = ["doc_1"])
        ),
        parse_quote! {
            async fn document(id: String, rest: Option<String>, context: RequestContext) -> String {
                id
            }
        },
    );
    assert_eq!(m.kind(), Kind::Resource);
    let Spec::Resource(res) = &m.spec else {
        panic!("not a resource")
    };
    assert_eq!(res.name, "document");
    assert_eq!(res.uri(), "docs://{id}/text{+rest}");
    assert_eq!(
        res.variables.as_deref(),
        Ok(&["id".to_owned(), "rest".to_owned()][..])
    );
    assert!(res.is_template());
    assert_eq!(res.attrs.mime_type.as_ref().unwrap().value(), "text/plain");
    assert_eq!(res.attrs.completions.len(), 1);
    assert!(m.func.params[0].is_argument() && m.func.params[1].is_argument());
    assert!(matches!(m.func.params[2].kind, ParamKind::Context));
}

#[test]
fn fixed_resource() {
    let m = ok(
        Kind::Resource,
        quote!(
            "config://service",
            name = "config",
            cache(ttl_ms = 30000, scope = "public")
        ),
        parse_quote!(
            fn service_config() -> String {
                String::new()
            }
        ),
    );
    let Spec::Resource(res) = &m.spec else {
        panic!("not a resource")
    };
    assert_eq!(res.name, "config");
    assert!(!res.is_template());
    let cache = res.attrs.cache.as_ref().unwrap();
    assert_eq!(cache.ttl_ms.base10_parse::<u64>().unwrap(), 30000);
    assert!(!cache.private);
}

#[test]
fn prompt_with_renamed_argument_and_inputs() {
    let m = ok(
        Kind::Prompt,
        quote!(title = "Brief", complete(audience = ["legal"])),
        parse_quote! {
            fn brief(
                /// Who reads it
                audience: String,
                #[serde(rename = "maxWords")] words: Option<u32>,
                #[elicit(message = "Tone for {audience}?")] tone: Elicitation<Tone>,
                #[sample(prompt = "Summarize", max_tokens = 80, key = "sum")] s: Option<Sampled>,
            ) -> String {
                String::new()
            }
        },
    );
    assert_eq!(m.kind(), Kind::Prompt);
    let Spec::Prompt(prompt) = &m.spec else {
        panic!("not a prompt")
    };
    assert_eq!(prompt.name, "brief");
    assert_eq!(prompt.attrs.common.title.as_ref().unwrap().value(), "Brief");
    let params = &m.func.params;
    assert_eq!(params[0].doc.as_deref(), Some("Who reads it"));
    assert_eq!(params[1].name, "maxWords");
    let ParamKind::Input(tone) = &params[2].kind else {
        panic!("not an input")
    };
    assert_eq!(tone.key, "tone");
    assert!(!tone.optional);
    assert!(matches!(
        &tone.kind,
        InputKind::Elicit { form: Some(_), .. }
    ));
    let ParamKind::Input(s) = &params[3].kind else {
        panic!("not an input")
    };
    assert_eq!(s.key, "sum");
    assert!(s.optional);
    assert!(matches!(s.kind, InputKind::Sample { .. }));
}

#[test]
fn mistakes_are_all_reported_in_order() {
    let errors = model(
        Kind::Tool,
        quote!(nmae = "x", task = "later"),
        parse_quote! {
            fn f<T>(#[ctx] #[arg] a: i64, b: &str) {}
        },
    )
    .err()
    .unwrap();
    assert_eq!(errors.len(), 5, "{errors:#?}");
    assert!(errors[0].contains("did you mean `name`"), "{}", errors[0]);
    assert!(
        errors[1].starts_with("`task` is \"optional\""),
        "{}",
        errors[1]
    );
    assert!(errors[2].contains("cannot be generic"), "{}", errors[2]);
    assert!(errors[3].contains("already has `#[ctx]`"), "{}", errors[3]);
    assert!(errors[4].contains("take `String`"), "{}", errors[4]);
}

#[test]
fn resource_template_mismatch() {
    let errors = model(
        Kind::Resource,
        quote!("files://{path}", size = 10),
        parse_quote!(
            fn file(name: String) -> String {
                name
            }
        ),
    )
    .err()
    .unwrap();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(
        errors[0].contains("`path` has no parameter"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].contains("`name` is not a variable"),
        "{}",
        errors[1]
    );
    assert!(
        errors[2].contains("`size` is only for fixed resources"),
        "{}",
        errors[2]
    );
}

#[test]
fn kinds_by_attribute_path() {
    assert_eq!(Kind::of_path(&parse_quote!(tool)), Some(Kind::Tool));
    assert_eq!(
        Kind::of_path(&parse_quote!(mcp_runtime::resource)),
        Some(Kind::Resource)
    );
    assert_eq!(Kind::of_path(&parse_quote!(prompt)), Some(Kind::Prompt));
    assert_eq!(Kind::of_path(&parse_quote!(handlers)), None);
}
