//! Compile-fail tests of the macros and of the builder's typed registration (trybuild): each
//! case must fail with the message of its `.stderr`. The compile-pass cases beside them
//! (`tests/ui/*/pass/`) are built and run by `tests/macros_pass.rs`, so that trybuild only
//! checks (its builds are of a target directory of its own). The `.stderr` files are checked
//! in; they are pinned to the 1.95 stable toolchain because rustc's wording changes between
//! releases. Regenerate with `TRYBUILD=overwrite cargo test -p mcp-examples --test macros_ui`
//! and read every message: each must say what is wrong and how to fix it.

#[rustversion::stable(1.95)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/fail/*.rs");
}
