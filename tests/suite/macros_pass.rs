//! The macros' compile-pass cases (`tests/ui/*/pass/*.rs`): each file compiles as a module of
//! this one, and its `main` runs as a test of its own.
//!
//! They are built with the other tests rather than by trybuild, so that trybuild only checks the
//! compile-fail cases (`tests/macros_ui.rs`): a pass case makes trybuild *build* every
//! dependency again in a target directory of its own (with `--cfg trybuild` and without
//! incremental state), while compile-fail cases need only `cargo check`. No pass case reads the
//! link-time registry (`Server::from_inventory`), so they share the suite's binary safely.

macro_rules! pass_cases {
    ($($name:ident => $path:literal,)*) => {$(
        #[path = $path]
        // A case may leave a tool undocumented on purpose (the macro's warning), keep its types
        // private, or take every kind of parameter at once.
        #[allow(dead_code, unused_imports, deprecated, private_interfaces)]
        #[allow(clippy::too_many_arguments)]
        mod $name;

        #[test]
        fn $name() {
            $name::main();
        }
    )*};
}

pass_cases! {
    auth_scopes => "../ui/auth/pass/scopes.rs",
    form_forms => "../ui/form/pass/forms.rs",
    handlers_handlers => "../ui/handlers/pass/handlers.rs",
    prompt_prompts => "../ui/prompt/pass/prompts.rs",
    resource_resources => "../ui/resource/pass/resources.rs",
    tool_everything => "../ui/tool/pass/everything.rs",
}

#[path = "../ui/builder/pass/right_kind.rs"]
mod builder_right_kind;

#[test]
fn builder_right_kind() -> Result<(), mcp_runtime::BuildError> {
    builder_right_kind::main()
}
