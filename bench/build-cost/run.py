#!/usr/bin/env python3
"""What a server author pays at build time: this framework against rmcp, on the same N tools.

    python3 bench/build-cost/run.py [--tools 100] [--runs 3] [--ours PATH] [--work DIR]
                                    [--only ROWS] [--rmcp-version 3.11.0] [--keep] [--smoke]
                                    [--ours-from registry|path]

Generates two standalone cargo projects under --work (default /tmp/mcp-build-cost): `ours/`
(`mcp-runtime` from a registry: the checkout's crates packaged and vendored, vendor.py; or by
path with --ours-from path; `#[tool]` functions, `Server::from_inventory()...run()`) and `rmcp/`
(`rmcp` pinned exactly, `#[tool_router(server_handler)]` on an impl block, `Parameters<Args>`,
`StreamableHttpService` nested at `/mcp` in an axum router). Both expose the same N tools (2 to 4
typed arguments, a doc comment each, one in four returning a `Json<struct>` with an output
schema), both serve Streamable HTTP on 127.0.0.1:8000/mcp. Each project is its own `[workspace]`
with its own target dir and cargo's default dev/release profiles; CARGO_*/RUST* variables that
would change a build (RUSTFLAGS, CARGO_PROFILE_*, CARGO_INCREMENTAL, RUSTC_WRAPPER, ...) are
removed from the environment of every cargo run (the ones removed are printed).

How each figure is made (CPU = user+sys of cargo and everything it waited for, the delta of
getrusage(RUSAGE_CHILDREN) around the command; wall = monotonic clock; each timed row is run
--runs times, frameworks interleaved, and reported as median (min-max)):

  edit           `cargo build` (dev) after changing a constant in one tool's format string.
                 Warm first: a full dev build, then one unmeasured edit/build/revert/build cycle.
                 Each run: write the edit, build (measured), revert, build (not measured), so every
                 measured step is the same edit on top of the same incremental state.
  arg            `cargo check` after adding a `bool` argument to one tool (ours: a parameter;
                 rmcp: a field of its `Args` struct and the destructuring pattern). Warmed and
                 reverted the same way.
  crate-dev      the server crate alone from scratch (dev): dependencies built, then
  crate-release  `cargo clean [--release] -p <server>` (and its incremental dir removed), then
                 `cargo build [--release]`.
  deps-dev       dependencies, first build: the target dir's profile folder removed, `src/main.rs`
  deps-release   replaced by `fn main() {}` (same Cargo.toml, same Cargo.lock, so the same
                 dependency graph with the same features), `cargo build [--release]` measured;
                 the real `main.rs` is then put back and the crate-alone figure of the same run
                 is measured on those dependencies. This measures the dependencies directly
                 (plus compiling and linking an empty main, a fraction of a second) instead of
                 subtracting two figures of a pipelined build, so its wall time means something.
  size           stripped release binary: `strip -o` on a copy of target/release/<server>
                 (same as `-C strip=symbols`), MiB; the unstripped dev binary is printed too.
  expand         lines of `RUSTC_BOOTSTRAP=1 cargo rustc --profile check --bin <server> --
                 -Zunpretty=expanded` (no nightly here), counted once. Run last: RUSTC_BOOTSTRAP
                 makes proc-macro2's build script rerun, which rebuilds the proc macros.

--only takes a comma-separated subset of: edit, arg, crate-dev, crate-release, deps-dev,
deps-release, deps (both), crate (both), size, expand. The crate counts (cargo tree) are always
printed. --smoke also starts each dev binary for a moment and checks over HTTP that it answers
initialize and lists N tools (needs 127.0.0.1:8000 free). Results are written to
<work>/results.md and <work>/results.json; the projects are removed unless --keep.

Standard library only. Run it under `nice` on a shared machine, and read the load average it
prints: a busy machine inflates CPU seconds too (caches, SMT), not only wall time.
"""

from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vendor  # noqa: E402  (beside this script)

FRAMEWORKS = ("ours", "rmcp")
CRATE = {"ours": "ours-server", "rmcp": "rmcp-server"}
ALL_ROWS = ("edit", "arg", "crate-dev", "crate-release", "deps-dev", "deps-release", "size", "expand")
ALIASES = {"deps": ("deps-dev", "deps-release"), "crate": ("crate-dev", "crate-release")}
DEFAULT_RMCP = "3.11.0"

# Environment variables that change what cargo builds or how: dropped so that the user's shell
# does not leak into either project (both would get them, but not as "a user would have").
DROP_ENV = re.compile(
    r"^(RUSTFLAGS|RUSTDOCFLAGS|CARGO_ENCODED_RUSTFLAGS|CARGO_ENCODED_RUSTDOCFLAGS|CARGO_INCREMENTAL"
    r"|CARGO_TARGET_DIR|CARGO_BUILD_.*|CARGO_PROFILE_.*|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER"
    r"|RUSTC_BOOTSTRAP|CARGO_TARGET_.*_RUSTFLAGS|CARGO_TARGET_.*_LINKER)$"
)


# ---------------------------------------------------------------------------------------------
# The tools: deterministic, index-based (no random module, so every Python gives the same code).

VERBS = ["get", "list", "create", "update", "delete", "search", "count", "archive", "rename", "validate"]
NOUNS = ["invoice", "customer", "order", "ticket", "shipment", "product", "account", "report",
         "payment", "project"]
# (Rust type, argument name, description template)
ARG_KINDS = [
    ("String", "label", "Human-readable label of the {noun}."),
    ("i64", "offset", "Offset into the {noun} list (may be negative: from the end)."),
    ("u32", "count", "How many {noun}s to act on."),
    ("f64", "weight", "Relative weight given to this {noun}."),
    ("bool", "dry_run", "Only report what would be done to the {noun}."),
    ("Option<String>", "note", "A note to attach to the {noun}, if any."),
    ("Vec<String>", "tags", "Tags the {noun} must carry."),
    ("Priority", "priority", "How urgent the {noun} is."),
    ("Option<u32>", "limit", "At most this many {noun}s (no limit when absent)."),
]
EXTRA_ARG = ("bool", "notify", "Notify the {noun}'s owner.")


def camel(s: str) -> str:
    return "".join(p.capitalize() for p in s.split("_"))


def tools(n: int) -> list[dict]:
    out = []
    for i in range(n):
        verb, noun = VERBS[i % 10], NOUNS[(i // 10 + i) % 10]
        name = f"{verb}_{noun}" + (f"_{i // 100}" if i >= 100 else "")
        nargs = 2 + i % 3
        base = 2 * i + i // 9
        args = [ARG_KINDS[(base + 4 * j) % len(ARG_KINDS)] for j in range(nargs)]  # distinct
        out.append({
            "i": i, "name": name, "verb": verb, "noun": noun,
            "doc": f"{verb.capitalize()} {'an' if noun[0] in 'aeiou' else 'a'} {noun} "
                   f"and report what was done (tool {i}).",
            "args": [(ty, an, d.format(noun=noun)) for ty, an, d in args],
            "structured": i % 4 == 1,
            "is_async": i % 2 == 0,
            "result": camel(name) + "Result",
            "args_struct": camel(name) + "Args",
        })
    return out


def edited(ts: list[dict], edit: str | None) -> list[dict]:
    """The tools with `edit` applied to the middle one: None, "body" or "arg"."""
    k = len(ts) // 2
    out = [dict(t) for t in ts]
    for t in out:
        t["rev"] = 1
    if edit == "body":
        out[k]["rev"] = 2
    elif edit == "arg":
        ty, an, d = EXTRA_ARG
        out[k]["args"] = out[k]["args"] + [(ty, an, d.format(noun=out[k]["noun"]))]
    return out


def body(t: dict, indent: str) -> str:
    """The function body shared by both frameworks (only the signature differs)."""
    fmt = f"{t['name']} rev {t['rev']}:" + "".join(f" {an}={{{an}:?}}" for _, an, _ in t["args"])
    if not t["structured"]:
        return f'{indent}format!("{fmt}")\n'
    first = t["args"][0][1]
    return (
        f"{indent}Json({t['result']} {{\n"
        f'{indent}    id: format!("{fmt}"),\n'
        f"{indent}    affected: {t['i'] % 7 + 1},\n"
        f"{indent}    score: {t['i'] % 10}.5,\n"
        f'{indent}    tags: vec![format!("{{{first}:?}}"), "{t["noun"]}".to_string()],\n'
        f"{indent}}})\n"
    )


COMMON_TYPES = '''/// How urgent something is.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    Normal,
    High,
}
'''


def result_struct(t: dict) -> str:
    return f'''
/// What `{t["name"]}` did.
#[derive(Serialize, JsonSchema)]
struct {t["result"]} {{
    /// Identifier of the {t["noun"]}.
    id: String,
    /// How many {t["noun"]}s were affected.
    affected: u32,
    /// How well the {t["noun"]} matched.
    score: f64,
    /// Tags now on the {t["noun"]}.
    tags: Vec<String>,
}}
'''


def ours_main(ts: list[dict]) -> str:
    src = [f"//! {len(ts)} generated tools on mcp-runtime, served over Streamable HTTP on "
           "http://127.0.0.1:8000/mcp.\n\n",
           "use mcp_runtime::prelude::*;\nuse schemars::JsonSchema;\n"
           "use serde::{Deserialize, Serialize};\n\n", COMMON_TYPES]
    for t in ts:
        if t["structured"]:
            src.append(result_struct(t))
        ret = f"Json<{t['result']}>" if t["structured"] else "String"
        params = "".join(f"    /// {d}\n    {an}: {ty},\n" for ty, an, d in t["args"])
        src.append(f"\n/// {t['doc']}\n#[tool]\n{'async ' if t['is_async'] else ''}fn {t['name']}(\n"
                   f"{params}) -> {ret} {{\n{body(t, '    ')}}}\n")
    src.append('''
#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::from_inventory().name("ours-server").version("1.0.0").build()?.run().await
}
''')
    return "".join(src)


def rmcp_main(ts: list[dict]) -> str:
    src = [f"//! {len(ts)} generated tools on rmcp, served over Streamable HTTP on "
           "http://127.0.0.1:8000/mcp.\n\n",
           "use rmcp::transport::streamable_http_server::{\n"
           "    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,\n"
           "};\n"
           "use rmcp::{Json, handler::server::wrapper::Parameters, tool, tool_router};\n"
           "use schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\n", COMMON_TYPES]
    for t in ts:
        fields = "".join(f"    /// {d}\n    {an}: {ty},\n" for ty, an, d in t["args"])
        src.append(f"\n#[derive(Deserialize, JsonSchema)]\nstruct {t['args_struct']} {{\n{fields}}}\n")
        if t["structured"]:
            src.append(result_struct(t))
    src.append("\n#[derive(Clone)]\nstruct Bench;\n\n#[tool_router(server_handler)]\nimpl Bench {")
    for t in ts:
        ret = f"Json<{t['result']}>" if t["structured"] else "String"
        names = ", ".join(an for _, an, _ in t["args"])
        src.append(f"\n    /// {t['doc']}\n    #[tool]\n    {'async ' if t['is_async'] else ''}fn {t['name']}(\n"
                   f"        &self,\n        Parameters({t['args_struct']} {{ {names} }}): "
                   f"Parameters<{t['args_struct']}>,\n    ) -> {ret} {{\n{body(t, '        ')}    }}\n")
    src.append('''}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let service = StreamableHttpService::new(
        || Ok(Bench),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
    axum::serve(listener, app).await
}
''')
    return "".join(src)


# The dependency lines a user writes. Ours: the README's snippet (mcp-runtime re-exports the
# macros). rmcp: the features the server needs (server, macros and schemars are its defaults,
# written out; transport-streamable-http-server for StreamableHttpService), and axum with the
# two features serving needs (rmcp's own tests use exactly these): a lower bound for rmcp's
# side, default axum features would add crates. tokio/serde/schemars: the same lines in both.
RMCP_FEATURES = ["server", "macros", "schemars", "transport-streamable-http-server"]
COMMON_DEPS = '''tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
'''


def cargo_toml(fw: str, ours: Path, rmcp_version: str, ours_version: str | None) -> str:
    head = f'''[package]
name = "{CRATE[fw]}"
version = "0.1.0"
edition = "2024"
publish = false

# A workspace of its own: no parent's profiles or lock apply. Default dev and release profiles.
[workspace]

[dependencies]
'''
    if fw == "ours" and ours_version:
        # From the vendored folder that replaces crates.io for this project (vendor.py).
        deps = f'mcp-runtime = "={ours_version}"\n'
    elif fw == "ours":
        rt = json.dumps(str(ours / "mcp-runtime"))
        deps = f"mcp-runtime = {{ path = {rt} }}\n"
    else:
        deps = (f'rmcp = {{ version = "={rmcp_version}", features = {json.dumps(RMCP_FEATURES)} }}\n'
                'axum = { version = "0.8", default-features = false, features = ["http1", "tokio"] }\n')
    return head + deps + COMMON_DEPS


# ---------------------------------------------------------------------------------------------
# Running cargo.

def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class CargoFailed(Exception):
    pass


class Project:
    def __init__(self, fw: str, root: Path, env: dict, logdir: Path):
        self.fw, self.root, self.env, self.logdir = fw, root, env, logdir
        self.crate = CRATE[fw]
        self.target = root / "target"
        self.main = root / "src" / "main.rs"
        self.n = 0

    def write_main(self, text: str) -> None:
        self.main.write_text(text)

    def run(self, args: list[str], extra_env: dict | None = None, stdout_file: Path | None = None):
        """Runs `cargo ARGS` in the project; returns (cpu_s, wall_s, stderr_text)."""
        self.n += 1
        err_path = self.logdir / f"{self.fw}-{self.n:03d}-{args[0]}.stderr"
        out_path = stdout_file or self.logdir / f"{self.fw}-{self.n:03d}-{args[0]}.stdout"
        env = dict(self.env, **(extra_env or {}))
        cmd = ["cargo", *args]
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        with open(err_path, "w") as err, open(out_path, "w") as out:
            rc = subprocess.run(cmd, cwd=self.root, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL).returncode
        wall = time.monotonic() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        text = err_path.read_text(errors="replace")
        if rc != 0:
            tail = "\n".join(text.splitlines()[-40:])
            raise CargoFailed(f"{self.fw}: `{' '.join(cmd)}` failed (exit {rc}) in {self.root}\n"
                              f"--- last lines of stderr ({err_path}) ---\n{tail}")
        return cpu, wall, text

    def compiled(self, text: str) -> list[str]:
        return re.findall(r"^\s*(?:Compiling|Checking) (\S+)", text, re.M)

    def expect_only_self(self, text: str, what: str) -> None:
        units = self.compiled(text)
        if self.crate not in units:
            raise CargoFailed(f"{self.fw}: {what}: cargo did not rebuild {self.crate} (the step "
                              f"measured nothing); stderr:\n{text[-2000:]}")
        others = [u for u in units if u != self.crate]
        if others:
            log(f"warning: {self.fw}: {what} also rebuilt {', '.join(others)}")

    def clean_self(self, release: bool) -> None:
        self.run(["clean", "-p", self.crate] + (["--release"] if release else []))
        prof = "release" if release else "debug"
        for d in glob.glob(str(self.target / prof / "incremental" / (self.crate.replace("-", "_") + "-*"))):
            shutil.rmtree(d, ignore_errors=True)

    def slowest(self, k: int = 5) -> list:
        """The k packages that took longest in the last `--timings` build (wall seconds of their
        units, build scripts included), from the data in cargo's HTML report."""
        try:
            text = (self.target / "cargo-timings" / "cargo-timing.html").read_text()
            at = text.index("UNIT_DATA = ") + len("UNIT_DATA = ")
            units, _ = json.JSONDecoder().raw_decode(text, at)
        except (OSError, ValueError):
            return []
        total: dict[str, float] = {}
        versions: dict[str, set] = {}
        for u in units:
            total[u["name"]] = total.get(u["name"], 0.0) + float(u.get("duration") or 0)
            versions.setdefault(u["name"], set()).add(u.get("version"))
        top = sorted(total.items(), key=lambda x: -x[1])[:k]
        # A package built in two versions (syn 2 and 3, say) is one entry, marked "×2".
        return [[n + (f" ×{len(versions[n])}" if len(versions[n]) > 1 else ""), round(d, 1)]
                for n, d in top]

    def binary(self, release: bool) -> Path:
        return self.target / ("release" if release else "debug") / self.crate


def clean_env() -> tuple[dict, list[str]]:
    env, dropped = {}, []
    for k, v in os.environ.items():
        if DROP_ENV.match(k):
            dropped.append(k)
        else:
            env[k] = v
    env["CARGO_TERM_COLOR"] = "never"
    env["CARGO_TERM_PROGRESS_WHEN"] = "never"
    return env, dropped


def sh(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> str:
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        return f"? ({e})"


# ---------------------------------------------------------------------------------------------
# The optional smoke test: start a dev binary, initialize, list the tools.

def post(url: str, body: dict, headers: dict) -> tuple[int, dict, list]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **headers})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, hdrs, raw = r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), []
    msgs = []
    if raw.lstrip().startswith("{"):
        msgs.append(json.loads(raw))
    else:
        for line in raw.splitlines():
            if line.startswith("data:") and line[5:].strip():
                try:
                    msgs.append(json.loads(line[5:]))
                except json.JSONDecodeError:
                    pass
    return status, {k.lower(): v for k, v in hdrs.items()}, msgs


def smoke(p: Project, n: int) -> str:
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", 8000)) == 0:
            return "skipped (127.0.0.1:8000 is in use)"
    proc = subprocess.Popen([str(p.binary(False))], cwd=p.root, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", 8000)) == 0:
                    break
            time.sleep(0.1)
        url = "http://127.0.0.1:8000/mcp"
        version = "2025-11-25"
        st, hd, msgs = post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "build-cost", "version": "1"}}}, {})
        init = next((m for m in msgs if m.get("id") == 1), None)
        if st != 200 or not init or "result" not in init:
            return f"FAILED: initialize answered {st} {msgs}"
        version = init["result"].get("protocolVersion", version)
        h = {"MCP-Protocol-Version": version}
        if "mcp-session-id" in hd:
            h["Mcp-Session-Id"] = hd["mcp-session-id"]
        post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, h)
        listed, with_schema, cursor, rid = 0, 0, None, 2
        while True:
            params = {"cursor": cursor} if cursor else {}
            st, _, msgs = post(url, {"jsonrpc": "2.0", "id": rid, "method": "tools/list",
                                     "params": params}, h)
            res = next((m for m in msgs if m.get("id") == rid), {}).get("result")
            if st != 200 or res is None:
                return f"FAILED: tools/list answered {st} {msgs}"
            listed += len(res["tools"])
            with_schema += sum(1 for t in res["tools"] if "outputSchema" in t)
            cursor, rid = res.get("nextCursor"), rid + 1
            if not cursor:
                break
        ok = "ok" if listed == n else "MISMATCH"
        return f"{ok}: initialize ({version}) answered, {listed} tools listed, {with_schema} with an outputSchema"
    except (OSError, ValueError, KeyError) as e:
        return f"FAILED: {e}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ---------------------------------------------------------------------------------------------
# Reporting.

def fmt_s(v: float) -> str:
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def cell(samples: list[float] | None, unit: str = " s") -> str:
    if not samples:
        return "–"
    med = statistics.median(samples)
    if len(samples) == 1:
        return f"{fmt_s(med)}{unit}"
    return f"{fmt_s(med)}{unit} ({fmt_s(min(samples))}–{fmt_s(max(samples))})"


def num(v, spec: str) -> str:
    return format(v, spec) if isinstance(v, (int, float)) else (v or "–")


def ratio(a, b) -> str:
    if not a or not b:
        return "–"
    a = statistics.median(a) if isinstance(a, list) else a
    b = statistics.median(b) if isinstance(b, list) else b
    return f"{a / b:.2f}×" if b else "–"


ROW_TITLES = {
    "edit": "`cargo build` after editing one tool's body (dev, incremental)",
    "arg": "`cargo check` after adding an argument to a tool",
    "crate-dev": "the server crate alone from scratch (dev)",
    "crate-release": "the server crate alone from scratch (release)",
}


def report(res: dict, meta: dict) -> str:
    n = meta["tools"]
    cpu = res["cpu"]
    wall = res["wall"]
    L = []
    L.append(f"## Build cost: mcp-runtime vs rmcp {meta['rmcp']} (N = {n} tools)\n")
    L.append(f"- {meta['date']}, {meta['rustc']}, {meta['cargo']}, {meta['cores']} cores, "
             f"load average at start {meta['load_start']} (1/5/15 min), at end {meta['load_end']}")
    how = {"registry": "packaged and vendored, a registry dependency as rmcp is",
           "path": "a path dependency: incremental in dev"}.get(meta.get("ours_from"), "by path")
    L.append(f"- ours: {meta['ours_path']} at {meta['ours_rev']} ({how}); rmcp {meta['rmcp']} with features "
             f"{meta['rmcp_features']}, axum {meta.get('axum', '?')} (http1, tokio)")
    L.append(f"- CPU seconds (user+sys) of cargo and its children; median of {meta['runs']} run(s), "
             "(min–max) when more than one; ratio = ours / rmcp of the medians")
    if meta["dropped_env"]:
        L.append(f"- removed from the environment of cargo: {', '.join(meta['dropped_env'])}")
    L.append("")
    L.append(f"| figure (N = {n} tools) | this framework | rmcp | ratio |")
    L.append("|---|---|---|---|")
    for key in ("edit", "arg", "crate-dev", "crate-release"):
        o, r = cpu["ours"].get(key), cpu["rmcp"].get(key)
        if o or r:
            L.append(f"| {ROW_TITLES[key]} | {cell(o)} | {cell(r)} | {ratio(o, r)} |")
    dd = [cpu[f].get("deps-dev") for f in FRAMEWORKS]
    dr = [cpu[f].get("deps-release") for f in FRAMEWORKS]
    if any(dd) or any(dr):
        L.append(f"| dependencies, first build (dev / release) | {cell(dd[0])} / {cell(dr[0])} | "
                 f"{cell(dd[1])} / {cell(dr[1])} | {ratio(dd[0], dd[1])} / {ratio(dr[0], dr[1])} |")
    sz = [res["size"][f].get("release_stripped") for f in FRAMEWORKS]
    if any(sz):
        L.append(f"| stripped release binary (MiB) | {num(sz[0], '.2f')} | {num(sz[1], '.2f')} | "
                 f"{ratio(sz[0], sz[1]) if all(isinstance(v, float) for v in sz) else '–'} |")
    ex = [res["expand"].get(f) for f in FRAMEWORKS]
    if any(ex):
        L.append(f"| lines after macro expansion | {num(ex[0], ',')} | {num(ex[1], ',')} | "
                 f"{ratio(ex[0], ex[1]) if all(ex) else '–'} |")
    # Wall-clock companion table.
    wrows = []
    for key in ("edit", "arg", "crate-dev", "crate-release", "deps-dev", "deps-release"):
        o, r = wall["ours"].get(key), wall["rmcp"].get(key)
        if o or r:
            title = ROW_TITLES.get(key) or f"dependencies, first build ({key.split('-')[1]})"
            wrows.append(f"| {title} | {cell(o)} | {cell(r)} | {ratio(o, r)} |")
    if wrows:
        L.append("")
        L.append(f"Wall seconds of the same steps ({meta['cores']} cores):\n")
        L.append("| step | this framework | rmcp | ratio |")
        L.append("|---|---|---|---|")
        L.extend(wrows)
    L.append("")
    L.append("Other figures:\n")
    L.append("| | this framework | rmcp |")
    L.append("|---|---|---|")
    for label, key in (("packages in the build graph (cargo tree -e normal,build, unique, root excluded)", "tree_all"),
                       ("of which normal dependencies (cargo tree -e normal)", "tree_normal")):
        L.append(f"| {label} | {res['tree']['ours'].get(key, '–')} | {res['tree']['rmcp'].get(key, '–')} |")
    for label, key in (("packages compiled by the dev dependencies build", "deps-dev"),
                       ("packages compiled by the release dependencies build", "deps-release")):
        o, r = res["units"]["ours"].get(key), res["units"]["rmcp"].get(key)
        if o or r:
            L.append(f"| {label} | {o or '–'} | {r or '–'} |")
    for key in ("deps-dev", "deps-release"):
        sl = [res.get("slowest", {}).get(f, {}).get(key) for f in FRAMEWORKS]
        if any(sl):
            L.append(f"| slowest dependencies, {key[5:]} (wall s of their units, `cargo build --timings`) | "
                     + " | ".join(", ".join(f"{n} {d:g}" for n, d in v) if v else "–" for v in sl) + " |")
    dv = [res["size"][f].get("dev") for f in FRAMEWORKS]
    if any(dv):
        L.append("| dev binary, unstripped (MiB) | " + " | ".join(f"{v:.1f}" if v else "–" for v in dv) + " |")
    rv = [res["size"][f].get("release") for f in FRAMEWORKS]
    if any(rv):
        L.append("| release binary, unstripped (MiB) | " + " | ".join(f"{v:.2f}" if v else "–" for v in rv) + " |")
    L.append("| lines of src/main.rs as generated | " + " | ".join(str(res["src_lines"][f]) for f in FRAMEWORKS) + " |")
    if res.get("smoke"):
        L.append("| smoke test (dev binary over HTTP) | " + " | ".join(res["smoke"].get(f, "–") for f in FRAMEWORKS) + " |")
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------------------------------------

def main() -> int:
    here = Path(__file__).resolve()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="How each row is measured: the header of this script and "
                                        "bench/build-cost/README.md.")
    ap.add_argument("--tools", type=int, default=100, help="tools per server (default 100)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each timed row (default 3)")
    ap.add_argument("--ours", type=Path, default=here.parents[2],
                    help="a checkout of this repository (default: the one holding this script)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mcp-build-cost"),
                    help="where the projects go (default /tmp/mcp-build-cost)")
    ap.add_argument("--only", default="", help="comma-separated rows: " + ", ".join(ALL_ROWS)
                    + ", deps, crate (default: all)")
    ap.add_argument("--ours-from", choices=("registry", "path"), default="registry",
                    help="take this framework as a registry dependency, as rmcp is (its crates "
                         "packaged and vendored: the default), or by path")
    ap.add_argument("--rmcp-version", default=DEFAULT_RMCP, help=f"exact rmcp version (default {DEFAULT_RMCP})")
    ap.add_argument("--keep", action="store_true", help="leave the projects (and their target dirs)")
    ap.add_argument("--smoke", action="store_true",
                    help="also run each dev binary and check it answers initialize and tools/list")
    a = ap.parse_args()
    if a.tools < 2 or a.runs < 1:
        ap.error("--tools must be at least 2 and --runs at least 1")
    rows: set[str] = set()
    for r in filter(None, (x.strip() for x in a.only.split(","))):
        if r in ALIASES:
            rows.update(ALIASES[r])
        elif r in ALL_ROWS:
            rows.add(r)
        else:
            ap.error(f"unknown row {r!r}; rows: {', '.join(ALL_ROWS)}, deps, crate")
    rows = rows or set(ALL_ROWS)
    ours = a.ours.resolve()
    if not (ours / "mcp-runtime" / "Cargo.toml").is_file():
        ap.error(f"{ours} has no mcp-runtime/Cargo.toml (give --ours PATH to a checkout)")
    if shutil.which("cargo") is None:
        ap.error("cargo is not on PATH")

    load_start = "%.2f %.2f %.2f" % os.getloadavg()
    log(f"load average at start: {load_start}")
    env, dropped = clean_env()
    if dropped:
        log(f"removed from cargo's environment: {', '.join(dropped)}")
    work = a.work.resolve()
    logdir = work / "logs"
    shutil.rmtree(logdir, ignore_errors=True)
    logdir.mkdir(parents=True)

    ts = tools(a.tools)
    gen = {"ours": ours_main, "rmcp": rmcp_main}
    ours_version = None
    if a.ours_from == "registry":
        log("ours: cargo package and cargo vendor (a registry dependency, as rmcp is)")
        vendor_dir, ours_version = vendor.vendor(ours, work, env, COMMON_DEPS, logdir)
    projects: dict[str, Project] = {}
    for fw in FRAMEWORKS:
        root = work / fw
        (root / "src").mkdir(parents=True, exist_ok=True)
        toml = cargo_toml(fw, ours, a.rmcp_version, ours_version)
        tp = root / "Cargo.toml"
        config = root / ".cargo" / "config.toml"
        if fw == "ours" and ours_version:
            config.parent.mkdir(exist_ok=True)
            config.write_text(vendor.source_config(vendor_dir))
            # The packaged crates are new each run: their checksums too.
            (root / "Cargo.lock").unlink(missing_ok=True)
        else:
            config.unlink(missing_ok=True)
        if not tp.is_file() or tp.read_text() != toml:
            tp.write_text(toml)
            (root / "Cargo.lock").unlink(missing_ok=True)
        (root / ".gitignore").write_text("/target\n")
        p = Project(fw, root, dict(env, CARGO_TARGET_DIR=str(root / "target")), logdir)
        p.write_main(gen[fw](edited(ts, None)))
        projects[fw] = p
        if not (root / "Cargo.lock").is_file():
            log(f"{fw}: cargo generate-lockfile")
            p.run(["generate-lockfile"])
    sources = {fw: {e: gen[fw](edited(ts, e)) for e in (None, "body", "arg")} for fw in FRAMEWORKS}
    stub = "// The dependencies alone: same Cargo.toml and Cargo.lock, nothing of the server.\nfn main() {}\n"

    def lock_version(fw: str, pkg: str) -> str:
        text = (projects[fw].root / "Cargo.lock").read_text()
        m = re.search(r'name = "%s"\nversion = "([^"]+)"' % re.escape(pkg), text)
        return m.group(1) if m else "?"

    rev = sh(["git", "-C", str(ours), "rev-parse", "--short", "HEAD"])
    if sh(["git", "-C", str(ours), "status", "--porcelain", "--untracked-files=no"]):
        rev += " (with uncommitted changes)"
    meta = {
        "tools": a.tools, "runs": a.runs,
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "rustc": sh(["rustc", "--version"], cwd=work / "ours", env=env),
        "cargo": sh(["cargo", "--version"], cwd=work / "ours", env=env),
        "cores": os.cpu_count(), "load_start": load_start, "dropped_env": dropped,
        "ours_path": str(ours), "ours_rev": rev, "ours_from": a.ours_from,
        "rmcp": lock_version("rmcp", "rmcp"), "axum": lock_version("rmcp", "axum"),
        "rmcp_features": ", ".join(RMCP_FEATURES),
        "rows": sorted(rows),
    }
    if meta["rmcp"] != a.rmcp_version:
        log(f"warning: Cargo.lock has rmcp {meta['rmcp']}, asked for {a.rmcp_version}")
    log(f"{a.tools} tools, {a.runs} run(s), rows: {', '.join(sorted(rows))}; projects in {work}; "
        f"rmcp {meta['rmcp']}; {meta['rustc']}")

    res = {"cpu": {f: {} for f in FRAMEWORKS}, "wall": {f: {} for f in FRAMEWORKS},
           "units": {f: {} for f in FRAMEWORKS}, "size": {f: {} for f in FRAMEWORKS},
           "expand": {}, "tree": {f: {} for f in FRAMEWORKS}, "slowest": {f: {} for f in FRAMEWORKS},
           "src_lines": {f: sources[f][None].count("\n") for f in FRAMEWORKS}}

    def record(fw: str, key: str, cpu: float, wall: float) -> None:
        res["cpu"][fw].setdefault(key, []).append(round(cpu, 3))
        res["wall"][fw].setdefault(key, []).append(round(wall, 3))
        log(f"{fw}: {key}: {cpu:.2f} s CPU, {wall:.2f} s wall")

    try:
        # Crate counts: cheap, always.
        for fw, p in projects.items():
            for key, edges in (("tree_all", "normal,build"), ("tree_normal", "normal")):
                out = logdir / f"{fw}-tree-{key}.txt"
                p.run(["tree", "--prefix", "none", "-e", edges, "--format", "{p}"], stdout_file=out)
                pkgs = {re.sub(r" \(\*\)$| \(proc-macro\)", "", l.strip()) for l in out.read_text().splitlines() if l.strip()}
                pkgs = {x for x in pkgs if not x.startswith(CRATE[fw] + " ")}
                res["tree"][fw][key] = len(pkgs)
        log(f"packages: ours {res['tree']['ours']}, rmcp {res['tree']['rmcp']}")

        # Release, then dev: dependencies from an empty profile dir, then the crate alone.
        for release in (True, False):
            prof = "release" if release else "dev"
            flag = ["--release"] if release else []
            want_deps, want_crate = f"deps-{prof}" in rows, f"crate-{prof}" in rows
            if not (want_deps or want_crate or "size" in rows):
                continue
            if not want_deps:
                for fw, p in projects.items():
                    p.write_main(sources[fw][None])
                    log(f"{fw}: cargo build {' '.join(flag)} (not measured)")
                    p.run(["build", *flag])
            for run in range(a.runs if (want_deps or want_crate) else 0):
                for fw, p in projects.items():
                    if want_deps:
                        shutil.rmtree(p.target / ("release" if release else "debug"), ignore_errors=True)
                        p.write_main(stub)
                        log(f"{fw}: deps-{prof} run {run + 1}: cargo build {' '.join(flag)} from an empty target/{'release' if release else 'debug'}")
                        cpu, wall, text = p.run(["build", *flag, "--timings"])
                        record(fw, f"deps-{prof}", cpu, wall)
                        res["units"][fw][f"deps-{prof}"] = len([u for u in p.compiled(text) if u != p.crate])
                        res["slowest"][fw][f"deps-{prof}"] = p.slowest()
                    p.write_main(sources[fw][None])
                    if want_crate:
                        p.clean_self(release)
                        log(f"{fw}: crate-{prof} run {run + 1}: cargo build {' '.join(flag)}")
                        cpu, wall, text = p.run(["build", *flag])
                        p.expect_only_self(text, f"crate-{prof}")
                        record(fw, f"crate-{prof}", cpu, wall)
                    elif want_deps:
                        p.run(["build", *flag])
            for fw, p in projects.items():
                b = p.binary(release)
                if not b.is_file():
                    continue
                mib = b.stat().st_size / 2**20
                if release:
                    res["size"][fw]["release"] = round(mib, 3)
                    if "size" in rows:
                        if shutil.which("strip"):
                            out = p.root / f"{p.crate}.stripped"
                            subprocess.run(["strip", "-o", str(out), str(b)], check=True)
                            res["size"][fw]["release_stripped"] = round(out.stat().st_size / 2**20, 3)
                            out.unlink()
                        else:
                            res["size"][fw]["release_stripped"] = "no strip"
                else:
                    res["size"][fw]["dev"] = round(mib, 2)

        # Incremental edit of one tool's body, dev build.
        if "edit" in rows:
            for fw, p in projects.items():
                log(f"{fw}: edit: warming (full dev build, one edit/revert cycle)")
                p.write_main(sources[fw][None]); p.run(["build"])
                p.write_main(sources[fw]["body"]); p.run(["build"])
                p.write_main(sources[fw][None]); p.run(["build"])
            for run in range(a.runs):
                for fw, p in projects.items():
                    p.write_main(sources[fw]["body"])
                    cpu, wall, text = p.run(["build"])
                    p.expect_only_self(text, "edit")
                    record(fw, "edit", cpu, wall)
                    p.write_main(sources[fw][None])
                    p.run(["build"])

        # Adding an argument to one tool, cargo check.
        if "arg" in rows:
            for fw, p in projects.items():
                log(f"{fw}: arg: warming (cargo check, one edit/revert cycle)")
                p.write_main(sources[fw][None]); p.run(["check"])
                p.write_main(sources[fw]["arg"]); p.run(["check"])
                p.write_main(sources[fw][None]); p.run(["check"])
            for run in range(a.runs):
                for fw, p in projects.items():
                    p.write_main(sources[fw]["arg"])
                    cpu, wall, text = p.run(["check"])
                    p.expect_only_self(text, "arg")
                    record(fw, "arg", cpu, wall)
                    p.write_main(sources[fw][None])
                    p.run(["check"])

        if a.smoke:
            res["smoke"] = {}
            for fw, p in projects.items():
                p.write_main(sources[fw][None])
                p.run(["build"])
                res["smoke"][fw] = smoke(p, a.tools)
                log(f"{fw}: smoke: {res['smoke'][fw]}")

        # Lines after macro expansion: last (RUSTC_BOOTSTRAP reruns proc-macro2's build script).
        if "expand" in rows:
            for fw, p in projects.items():
                p.write_main(sources[fw][None])
                out = logdir / f"{fw}-expanded.rs"
                log(f"{fw}: expand: cargo rustc --profile check -- -Zunpretty=expanded")
                p.run(["rustc", "--profile", "check", "--bin", p.crate, "--", "-Zunpretty=expanded"],
                      extra_env={"RUSTC_BOOTSTRAP": "1"}, stdout_file=out)
                res["expand"][fw] = out.read_text().count("\n")
    except CargoFailed as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        for fw, p in projects.items():
            if p.main.is_file():
                p.write_main(sources[fw][None])

    meta["load_end"] = "%.2f %.2f %.2f" % os.getloadavg()
    text = report(res, meta)
    (work / "results.md").write_text(text)
    (work / "results.json").write_text(json.dumps({"meta": meta, "results": res}, indent=1) + "\n")
    if not a.keep:
        for fw in FRAMEWORKS:
            shutil.rmtree(work / fw, ignore_errors=True)
    print(text)
    log(f"written to {work / 'results.md'} and results.json; logs in {logdir}"
        + ("" if a.keep else " (projects removed; --keep leaves them)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
