//! The AFL++ target of the request pipeline: each input is one message, run through
//! `Server::handle_message` (decode → validate → route → encode) against the fixture server
//! of `tests/common/pipeline_fixture.rs`, and judged by the same oracle as
//! `tests/suite/fuzz_pipeline.rs`. A failed judgement panics, which AFL++ records as a crash.
//!
//! `pipeline seeds DIR` writes the seed requests to `DIR` (one file each) instead of fuzzing.
//! The commands are in `fuzz/README.md`.

#[path = "../../tests/common/pipeline_fixture.rs"]
mod fixture;

use std::panic::AssertUnwindSafe;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("seeds") {
        let dir = std::path::Path::new(args.get(2).expect("pipeline seeds DIR"));
        std::fs::create_dir_all(dir).expect("the seed folder");
        for (i, seed) in fixture::seeds().iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i:02}.json")), seed).expect("a seed file");
        }
        return;
    }
    let server = AssertUnwindSafe(fixture::server());
    let rt = AssertUnwindSafe(
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime"),
    );
    afl::fuzz!(|data: &[u8]| {
        if let Err(why) = rt.block_on(fixture::check(&server, data)) {
            panic!("{why}");
        }
    });
}
