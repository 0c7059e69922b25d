//! The cases: what each sends, and how a correct answer looks.

use mcp_bench::client::{self, Response};
use mcp_bench::{
    Request, add_call, add_task_call, legacy_call, legacy_initialize, mrtr_first, mrtr_retry,
    resource_read, skill_file_read, skills_list, tasks_get, tools_list,
};

#[path = "session.rs"]
mod session;
pub(crate) use session::SessionConn;

/// Which server a case runs against.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Baseline,
    Ours {
        fill: usize,
        validate: bool,
    },
    /// The study server with observation on (`mcp-bench-ours --observe WHAT`): only run when
    /// named with `--only`.
    Observed(&'static str),
}

/// One benchmark case.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Case {
    pub(crate) key: &'static str,
    pub(crate) what: &'static str,
    pub(crate) kind: Kind,
}

pub(crate) const CASES: [Case; 20] = [
    Case {
        key: "baseline",
        what: "raw axum + serde_json, tools/call add",
        kind: Kind::Baseline,
    },
    Case {
        key: "call",
        what: "ours, tools/call add (JSON)",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "sse",
        what: "ours, tools/call add over SSE, 2 progress notifications",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "mrtr",
        what: "ours, MRTR round: input_required, then retry (per request)",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "legacy",
        what: "ours, tools/call add on a 2025-11-25 session (JSON)",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "resource",
        what: "ours, resources/read config://service",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "validate20",
        what: "ours, tools/call with a 20-field argument object",
        kind: Kind::Ours {
            fill: 0,
            validate: true,
        },
    },
    Case {
        key: "list100",
        what: "ours, tools/list page 2 (50 per page), 100 tools",
        kind: Kind::Ours {
            fill: 100,
            validate: false,
        },
    },
    Case {
        key: "list1000",
        what: "ours, tools/list page 2 (50 per page), 1,000 tools",
        kind: Kind::Ours {
            fill: 1000,
            validate: false,
        },
    },
    Case {
        key: "list10000",
        what: "ours, tools/list page 2 (50 per page), 10,000 tools",
        kind: Kind::Ours {
            fill: 10000,
            validate: false,
        },
    },
    Case {
        key: "call-fmt",
        what: "ours, tools/call add, a tracing `fmt` subscriber at INFO (to stderr)",
        kind: Kind::Observed("fmt"),
    },
    Case {
        key: "call-layer",
        what: "ours, tools/call add, one pass-through layer registered",
        kind: Kind::Observed("layer"),
    },
    Case {
        key: "call-idle-layer",
        what: "ours, tools/call add, a layer registered that does not want it",
        kind: Kind::Observed("idle-layer"),
    },
    Case {
        key: "call-metrics",
        what: "ours, tools/call add, metrics on (no recorder installed)",
        kind: Kind::Observed("metrics"),
    },
    Case {
        key: "call-auth",
        what: "ours, tools/call add behind OAuth (JWT seen before), `add` needs a scope",
        kind: Kind::Observed("auth"),
    },
    Case {
        key: "call-introspect",
        what: "ours, tools/call add behind OAuth, an opaque token checked by introspection (cached)",
        kind: Kind::Observed("introspect"),
    },
    Case {
        key: "tasks-get",
        what: "ours, tasks/get of a completed task (the tasks extension), its add result",
        kind: Kind::Observed("tasks"),
    },
    Case {
        key: "skills100",
        what: "ours, skills/list page 2 (50 per page), 100 skills (the skills extension)",
        kind: Kind::Observed("skills"),
    },
    Case {
        key: "skill-read",
        what: "ours, resources/read of a file of a skill embedded with skills!",
        kind: Kind::Observed("skills"),
    },
    Case {
        key: "call-auth-first",
        what: "ours, tools/call add behind OAuth, a new JWT each request (signature checked)",
        kind: Kind::Observed("auth"),
    },
];

/// The callgrind table's `session` case (not a wrk case: each iteration needs the session id
/// its `initialize` was answered with, and ends with a DELETE): a 2025-11-25 session opened and
/// closed per iteration, [`SessionConn::iteration`]; its server is the plain study server,
/// probed with a 2026 `tools/call`.
pub(crate) const SESSION: Case = Case {
    key: "session",
    what: "ours, a 2025-11-25 session per iteration: initialize, notifications/initialized, tools/call add, DELETE",
    kind: Kind::Ours {
        fill: 0,
        validate: false,
    },
};

/// Distinct tokens the `call-auth-first` case sends (more than any run's requests).
const FIRST_SIGHTS: usize = 6000;

/// The case whose requests and answers a case shares (`call-fmt` sends what `call` sends).
fn base(key: &str) -> &str {
    if key.starts_with("call-") || key == SESSION.key {
        "call"
    } else {
        key
    }
}

/// The requests a case sends under load, prepared from a running server.
pub(crate) fn prepare(case: &Case, port: u16) -> Result<Vec<Request>, String> {
    let ask = |req: &Request| client::once(port, req).map_err(|e| e.to_string());
    match case.key {
        "call-auth" => return Ok(vec![add_call(false).with_token(&mcp_bench::calc_token(0))]),
        "call-introspect" => return Ok(vec![add_call(false).with_token(mcp_bench::OPAQUE_TOKEN)]),
        "call-auth-first" => {
            // The probe used token 0; every request after it shows a token for the first time.
            return Ok((1..=FIRST_SIGHTS)
                .map(|n| add_call(false).with_token(&mcp_bench::calc_token(n)))
                .collect());
        }
        "legacy" => {
            let r = ask(&legacy_initialize())?;
            let session = r.session.ok_or("initialize sent no Mcp-Session-Id")?;
            return Ok(vec![legacy_call(&session)]);
        }
        "skills100" => {
            let r = ask(&skills_list(None))?;
            let v: serde_json::Value = serde_json::from_str(&r.body).map_err(|e| e.to_string())?;
            let cursor = v["result"]["nextCursor"]
                .as_str()
                .ok_or("no nextCursor on the first page of skills")?;
            return Ok(vec![skills_list(Some(cursor))]);
        }
        "skill-read" => return Ok(vec![skill_file_read()]),
        "tasks-get" => {
            let r = ask(&add_task_call())?;
            let v: serde_json::Value = serde_json::from_str(&r.body).map_err(|e| e.to_string())?;
            let id = v["result"]["taskId"].as_str().ok_or("no taskId")?;
            return Ok(vec![tasks_get(id)]);
        }
        _ => {}
    }
    Ok(match base(case.key) {
        "baseline" | "call" => vec![add_call(false)],
        "sse" => vec![add_call(true)],
        "mrtr" => {
            let first = mrtr_first();
            let r = ask(&first)?;
            let v: serde_json::Value = serde_json::from_str(&r.body).map_err(|e| e.to_string())?;
            let state = v["result"]["requestState"]
                .as_str()
                .ok_or("no requestState in the first round")?;
            vec![first, mrtr_retry(state)]
        }
        "resource" => vec![resource_read()],
        "validate20" => vec![mcp_bench::validate_call()],
        _ => {
            let r = ask(&tools_list(None))?;
            let v: serde_json::Value = serde_json::from_str(&r.body).map_err(|e| e.to_string())?;
            let cursor = v["result"]["nextCursor"]
                .as_str()
                .ok_or("no nextCursor on the first page")?;
            vec![tools_list(Some(cursor))]
        }
    })
}

/// The request that proves the server is up and answering correctly.
pub(crate) fn probe(case: &Case) -> Request {
    if matches!(case.kind, Kind::Observed("auth")) {
        return add_call(false).with_token(&mcp_bench::calc_token(0));
    }
    if matches!(case.kind, Kind::Observed("introspect")) {
        return add_call(false).with_token(mcp_bench::OPAQUE_TOKEN);
    }
    match base(case.key) {
        "legacy" => legacy_initialize(),
        "tasks-get" => add_task_call(),
        "skills100" => skills_list(None),
        "skill-read" => skill_file_read(),
        "mrtr" => mrtr_first(),
        "sse" => add_call(true),
        "resource" => resource_read(),
        "validate20" => mcp_bench::validate_call(),
        k if k.starts_with("list") => tools_list(None),
        _ => add_call(false),
    }
}

/// Whether `resp` is a correct answer to the `i`-th request of `case`.
pub(crate) fn correct(case: &Case, i: usize, resp: &Response) -> bool {
    let b = &resp.body;
    resp.status == 200
        && match base(case.key) {
            "baseline" | "call" => {
                b.contains(r#""text":"42""#) && resp.content_type == "application/json"
            }
            "sse" => {
                resp.content_type == "text/event-stream"
                    && b.matches("notifications/progress").count() == 2
                    && b.contains(r#""text":"42""#)
            }
            // The probe opens a session; the load calls `add` on it (no 2026 result fields).
            "legacy" => {
                b.contains(r#""protocolVersion":"2025-11-25""#)
                    || b.contains(r#""text":"42""#) && !b.contains("resultType")
            }
            "tasks-get" => {
                b.contains(r#""status":"completed""#) && b.contains(r#""text":"42""#)
                    || b.contains(r#""resultType":"task""#)
            }
            "mrtr" if i == 0 => b.contains(r#""resultType":"input_required""#),
            "mrtr" => b.contains(r#""resultType":"complete""#) && b.contains(r#""isError":false"#),
            "resource" => {
                b.contains(r#""contents":[{"uri":"config://service""#) && b.contains("region")
            }
            "validate20" => b.contains(r#""text":"3""#) && b.contains(r#""isError":false"#),
            "skills100" => {
                b.contains(r#""skills":["#) && b.matches(r#""frontmatter""#).count() == 50
            }
            "skill-read" => b.contains(r#""mimeType":"text/markdown""#) && b.contains("PDF forms"),
            _ => b.contains(r#""tools":["#) && b.matches(r#""inputSchema""#).count() >= 48,
        }
}
