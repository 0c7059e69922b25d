#!/usr/bin/env python3
"""Where the runtime's release compile goes, by what it is made of: LLVM IR lines per capability.

Usage: irshare.py [--features F] [--rmcp VERSION] [--top N]

Emits the unoptimised LLVM IR of `mcp-runtime`'s library in release (`cargo rustc --release --
--emit=llvm-ir -Cno-prepopulate-passes -Csymbol-mangling-version=v0`, in `target/irshare`, the
same input `cargo llvm-lines` counts), demangles every function with `rustfilt` (`cargo install
rustfilt`) and counts the lines of each. A function goes to the first runtime module its name
holds, so a generic instantiation (`serde_json`'s reader made for a protocol type, hyper's
dispatcher made for the runtime's connection) counts for the runtime code it was made for;
functions that name no runtime module are "other crates' code". Modules are grouped into the
capabilities of `CAPABILITIES` below, and deserialization code is also counted by the
deserializer it was made for (serde's buffered `Content` for `untagged`, internally tagged and
`flatten` types, `serde_json::Value`, the `&str` and `&[u8]` readers).

With `--rmcp VERSION` the same IR is emitted for rmcp's library with the features
`bench/build-cost` gives it (a scratch project under `target/irshare-rmcp`, crates.io reachable),
and its total is printed beside ours.

IR lines before optimisation are a proxy for LLVM's time (the release compile of the runtime is
three quarters LLVM): BENCHMARKS.md, "Where the runtime's release compile goes", compares them
with `-Zllvm-time-trace`.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "build-cost"))
from run import RMCP_FEATURES  # noqa: E402  (the features the build-cost bench gives rmcp)
EMIT = ["--emit=llvm-ir", "-Cno-prepopulate-passes", "-Cpasses=name-anon-globals",
        "-Csymbol-mangling-version=v0"]

# (capability, module prefixes after `mcp_runtime::`); the first match wins, `core` takes the rest.
CAPABILITIES = [
    ("the 2025-11-25 era", ["legacy", "transport::http::legacy", "transport::connection::first_method"]),
    ("tasks", ["dispatch::families::tasks", "tasks", "protocol::tasks", "dispatch::mounted::RelayedTasks",
               "proxy::tasks", "client::tasks"]),
    ("skills", ["registry::skills", "dispatch::families::skills", "protocol::skills", "proxy::skills"]),
    ("mounts, gateway, client", ["proxy", "server::mount_set", "server::mounts", "server::views",
                                 "server::in_process", "client", "dispatch::mounted"]),
    ("elicitation, sampling, roots shapes", ["protocol::elicitation", "protocol::sampling", "protocol::mrtr"]),
    ("MRTR and the sealed state", ["mrtr", "seal", "dispatch::round", "protocol::input_responses"]),
    ("MCP Apps", ["registry::app", "registry::app_sdk"]),
    ("authorization", ["auth", "transport::http::auth", "transport::http::scopes", "dispatch::authorize",
                       "registry::access"]),
    ("schema checks, portable form, messages", ["schema"]),
    ("connection hygiene, rate limits", ["transport::http::hygiene", "transport::http::rate", "gcra",
                                         "transport::http::guard", "transport::http::proxies", "net"]),
    ("server.json", ["server_json"]),
    ("stdio", ["transport::stdio"]),
    ("other protocol types", ["protocol"]),
    ("dispatch", ["dispatch"]),
    ("registry", ["registry"]),
    ("HTTP transport", ["transport"]),
    ("server, builder, run", ["server", "run", "config"]),
]
READERS = [
    ("serde's buffered Content (untagged, tagged, flatten)",
     r"ContentRefDeserializer|ContentDeserializer|de::content::|FlatMapDeserializer|FlatStructAccess"),
    ("serde_json::Value", r"serde_json::value::de|value::de::|MapKeyDeserializer|&serde_json::value::Value"),
    ("&str reader (StrRead)", r"StrRead"),
    ("&[u8] reader (SliceRead)", r"SliceRead"),
]
DE = re.compile(r"[Dd]eserializ|Visitor|visit_|MapAccess|SeqAccess")


def emit(cwd: Path, package: str, target: Path, features: list[str]) -> Path:
    """Builds `package`'s library with the IR emitted; returns the `.ll` file."""
    deps = target / "release" / "deps"
    stem = package.replace("-", "_")
    for old in deps.glob(f"{stem}-*.ll") if deps.is_dir() else []:
        old.unlink()
    cmd = ["cargo", "rustc", "-p", package, "--lib", "--release", *features, "--", *EMIT]
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    for _ in range(2):
        subprocess.run(cmd, cwd=cwd, env=env, check=True, stderr=subprocess.DEVNULL)
        found = sorted(deps.glob(f"{stem}-*.ll"), key=lambda p: p.stat().st_mtime)
        if found:
            return found[-1]
        # Up to date, so nothing was emitted: build it again from its source.
        subprocess.run(["cargo", "clean", "-p", package, "--release"], cwd=cwd, env=env, check=True,
                       stderr=subprocess.DEVNULL)
    sys.exit(f"irshare: cargo emitted no IR for {package}")


def functions(ll: Path) -> list[tuple[int, str]]:
    """(lines, demangled name) of every function defined in `ll`."""
    names, sizes, current, n = [], [], None, 0
    with ll.open(errors="replace") as f:
        for line in f:
            if line.startswith("define "):
                m = re.search(r'@"?([^"(]+)"?\(', line)
                current, n = (m.group(1) if m else "?"), 0
            elif current is not None:
                n += 1
                if line.startswith("}"):
                    names.append(current)
                    sizes.append(n)
                    current = None
    out = subprocess.run(["rustfilt"], input="\n".join(names), capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return list(zip(sizes, out))


def capability(name: str) -> str:
    m = re.search(r"mcp_runtime::((?:\w+::)*\w+)", name)
    if not m:
        return "other crates' code"
    path = m.group(1)
    for cap, prefixes in CAPABILITIES:
        if any(path == p or path.startswith(p + "::") for p in prefixes):
            return cap
    return "core, other"


def rmcp_total(version: str) -> tuple[int, int]:
    project = ROOT / "target" / "irshare-rmcp"
    (project / "src").mkdir(parents=True, exist_ok=True)
    (project / "src" / "lib.rs").write_text("")
    (project / "Cargo.toml").write_text(
        '[package]\nname = "irshare-rmcp"\nversion = "0.0.0"\nedition = "2024"\n\n[workspace]\n\n'
        f'[dependencies]\nrmcp = {{ version = "={version}", features = {json.dumps(RMCP_FEATURES)} }}\n')
    fns = functions(emit(project, "rmcp", project / "target", []))
    return sum(n for n, _ in fns), len(fns)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--features", default="", help="features of mcp-runtime (default: none)")
    p.add_argument("--rmcp", metavar="VERSION", help="also count rmcp VERSION's library")
    p.add_argument("--top", type=int, default=0, help="also list the N largest functions")
    a = p.parse_args()
    if not shutil.which("rustfilt"):
        sys.exit("irshare: needs rustfilt (cargo install rustfilt)")
    features = ["--features", a.features] if a.features else []
    fns = functions(emit(ROOT, "mcp-runtime", ROOT / "target" / "irshare", features))
    total = sum(n for n, _ in fns)
    print(f"mcp-runtime{' (' + a.features + ')' if a.features else ''}: {total:,} IR lines "
          f"in {len(fns):,} functions\n")
    if a.rmcp:
        r_total, r_fns = rmcp_total(a.rmcp)
        print(f"rmcp {a.rmcp} ({', '.join(RMCP_FEATURES)}): "
              f"{r_total:,} IR lines in {r_fns:,} functions; mcp-runtime / rmcp = "
              f"{total / r_total:.2f}\n")
    caps = collections.Counter()
    for n, name in fns:
        caps[capability(name)] += n
    print("| capability | IR lines | share |\n|---|---:|---:|")
    for cap, n in caps.most_common():
        print(f"| {cap} | {n:,} | {100 * n / total:.1f} % |")
    readers = collections.Counter()
    for n, name in fns:
        if DE.search(name):
            label = next((k for k, pat in READERS if re.search(pat, name)), "other deserialization code")
            readers[label] += n
    de = sum(readers.values())
    print(f"\nDeserialization code: {de:,} IR lines, {100 * de / total:.1f} %, by the deserializer "
          "it was made for:\n\n| deserializer | IR lines | share of all |\n|---|---:|---:|")
    for label, n in readers.most_common():
        print(f"| {label} | {n:,} | {100 * n / total:.1f} % |")
    if a.top:
        print(f"\nThe {a.top} largest functions:\n")
        for n, name in sorted(fns, reverse=True)[: a.top]:
            print(f"{n:7,}  {name[:160]}")


if __name__ == "__main__":
    main()
