//! Compile-fail tests of the macros and of the builder's typed registration (trybuild): each
//! case must fail with the message of its `.stderr`. The compile-pass cases beside them
//! (`tests/ui/*/pass/`) are built and run by `tests/suite/macros_pass.rs`, so that trybuild only
//! checks (its builds are of a target directory of its own). The `.stderr` files are checked
//! in; they are pinned to the 1.95 stable toolchain because rustc's wording changes between
//! releases. Regenerate with `TRYBUILD=overwrite cargo test -p mcp-examples --test macros_ui`
//! and read every message: each must say what is wrong and how to fix it. `MCP_SKIP_UI=1` leaves
//! the suite out of a quick local run.

#[rustversion::stable(1.95)]
#[test]
fn ui() {
    // The quick local path: `MCP_SKIP_UI=1 cargo test --workspace` leaves this suite out (CI
    // never sets it).
    if std::env::var_os("MCP_SKIP_UI").is_some_and(|v| !v.is_empty()) {
        eprintln!("SKIPPED (MCP_SKIP_UI is set): the compile-fail cases of tests/ui");
        return;
    }
    let t = trybuild::TestCases::new();
    // One case pins the error of a missing Apps SDK bundle, which `MCP_SKIP_APPS_SDK` turns
    // into a build that succeeds: with it set, that case is left out, saying so.
    let skip_sdk = std::env::var_os("MCP_SKIP_APPS_SDK").is_some_and(|v| !v.is_empty() && v != "0");
    let mut cases: Vec<_> = std::fs::read_dir("tests/ui")
        .expect("tests/ui is there")
        .flatten()
        .flat_map(|kind| {
            std::fs::read_dir(kind.path().join("fail"))
                .into_iter()
                .flatten()
        })
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    cases.sort();
    for case in cases {
        if skip_sdk && case.ends_with("tool/fail/app_sdk_missing.rs") {
            eprintln!("SKIPPED (MCP_SKIP_APPS_SDK is set): {}", case.display());
            continue;
        }
        t.compile_fail(case);
    }
}
