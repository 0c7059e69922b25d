//! The command line: what it asks ([`Opts`]) and reading it ([`parse_opts`]).

use std::path::PathBuf;

#[derive(Debug, Clone)]
pub(crate) struct Opts {
    pub(crate) rounds: usize,
    pub(crate) secs: f64,
    pub(crate) warmup: f64,
    pub(crate) clients: Vec<usize>,
    pub(crate) markdown: Option<PathBuf>,
    pub(crate) callgrind: bool,
    pub(crate) calls: usize,
    pub(crate) serve: bool,
    pub(crate) max_secs: u64,
    pub(crate) list_ttl_ms: Option<u64>,
}

pub(crate) fn parse_opts() -> Result<Opts, String> {
    let mut o = Opts {
        rounds: 5,
        secs: 3.0,
        warmup: 1.0,
        clients: vec![1, 16],
        markdown: None,
        callgrind: false,
        calls: 1000,
        serve: false,
        max_secs: 1200,
        list_ttl_ms: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--rounds" => o.rounds = val()?.parse().map_err(|_| "bad --rounds")?,
            "--secs" => o.secs = val()?.parse().map_err(|_| "bad --secs")?,
            "--warmup" => o.warmup = val()?.parse().map_err(|_| "bad --warmup")?,
            "--calls" => o.calls = val()?.parse().map_err(|_| "bad --calls")?,
            "--max-secs" => o.max_secs = val()?.parse().map_err(|_| "bad --max-secs")?,
            "--list-ttl-ms" => {
                o.list_ttl_ms = Some(val()?.parse().map_err(|_| "bad --list-ttl-ms")?)
            }
            "--clients" => {
                o.clients = val()?
                    .split(',')
                    .map(|c| c.parse().map_err(|_| "bad --clients"))
                    .collect::<Result<_, _>>()?
            }
            "--markdown" => o.markdown = Some(val()?.into()),
            "--callgrind" => o.callgrind = true,
            "--serve" => o.serve = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if o.rounds == 0 || o.secs <= 0.0 || o.calls < 5 || o.clients.contains(&0) {
        return Err("--rounds, --secs, --calls (≥ 5) and --clients must be positive".into());
    }
    Ok(o)
}
