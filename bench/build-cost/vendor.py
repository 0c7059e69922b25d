"""This framework as a registry dependency, the way rmcp is taken: its three crates packaged
(`cargo package`) and served, with every other crate of the graph, from a directory source that
replaces crates.io in the `ours` project only.

Cargo treats a path dependency as the user's own code: it compiles it incrementally in dev
(about a fifth more CPU for the runtime crate) and does not cap its lints. A crate from a
registry gets neither, and that is how a published framework reaches its users, and how rmcp is
measured beside it. `--ours-from path` keeps the path dependency (the README's snippet while the
crates are unpublished).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

PACKAGES = ("mcp-runtime-skills", "mcp-runtime-macros", "mcp-runtime")


def _run(cmd: list[str], cwd: Path, env: dict, log_to: Path) -> None:
    with open(log_to, "w") as out:
        done = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = "\n".join(log_to.read_text(errors="replace").splitlines()[-20:])
        raise RuntimeError(f"{' '.join(cmd)} failed in {cwd} (log {log_to}):\n{tail}")


def version_of(ours: Path) -> str:
    """The workspace's version, which the three crates share."""
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ours,
        capture_output=True, text=True, check=True).stdout)
    return next(p["version"] for p in meta["packages"] if p["name"] == "mcp-runtime")


def vendor(ours: Path, work: Path, env: dict, seed_deps: str, logdir: Path) -> tuple[Path, str]:
    """Packages the checkout `ours` and fills `work/ours-vendor` with it and every crate its
    graph takes from crates.io (resolved for a crate with `seed_deps`); returns the folder and
    the packaged version."""
    pkg_target = work / "ours-package"
    _run(["cargo", "package", "--no-verify", "--allow-dirty", "--quiet",
          *[f"-p{p}" for p in PACKAGES], "--target-dir", str(pkg_target)],
         ours, env, logdir / "vendor-package.log")
    # The rest of the graph: vendored from a crate that takes the checkout by path (path
    # dependencies themselves are not vendored).
    seed = work / "ours-vendor-seed"
    shutil.rmtree(seed, ignore_errors=True)
    (seed / "src").mkdir(parents=True)
    (seed / "src" / "main.rs").write_text("fn main() {}\n")
    rt = json.dumps(str(ours / "mcp-runtime"))
    (seed / "Cargo.toml").write_text(
        '[package]\nname = "seed"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f"[workspace]\n\n[dependencies]\nmcp-runtime = {{ path = {rt} }}\n{seed_deps}")
    out = work / "ours-vendor"
    shutil.rmtree(out, ignore_errors=True)
    _run(["cargo", "vendor", "--versioned-dirs", "--quiet", str(out)], seed,
         dict(env, CARGO_TARGET_DIR=str(seed / "target")), logdir / "vendor-vendor.log")
    version = version_of(ours)
    for name in PACKAGES:
        crate = pkg_target / "package" / f"{name}-{version}.crate"
        with tarfile.open(crate) as tar:
            tar.extractall(out, filter="data")
        # A directory source checks files listed here (none) and matches `package` against
        # the checksum in Cargo.lock.
        digest = hashlib.sha256(crate.read_bytes()).hexdigest()
        (out / f"{name}-{version}" / ".cargo-checksum.json").write_text(
            json.dumps({"files": {}, "package": digest}))
    shutil.rmtree(seed, ignore_errors=True)
    return out, version


def source_config(vendor_dir: Path) -> str:
    """`.cargo/config.toml` of the `ours` project: crates.io replaced by the vendored folder."""
    return ('[source.crates-io]\nreplace-with = "ours-vendor"\n\n'
            f"[source.ours-vendor]\ndirectory = {json.dumps(str(vendor_dir))}\n")
