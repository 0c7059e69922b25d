//! The examples embed skills folders with `skills!`, which includes each file it finds; so that
//! a file added to such a folder rebuilds them too, Cargo is told to watch the folders.

fn main() {
    println!("cargo::rerun-if-changed=examples/everything/skills");
}
