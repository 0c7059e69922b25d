//! The command line: what it asks ([`Opts`]) and reading it ([`parse_opts`]).

use std::path::PathBuf;

#[derive(Debug, Clone)]
pub(crate) struct Opts {
    pub(crate) rounds: usize,
    pub(crate) secs: f64,
    pub(crate) warmup: f64,
    pub(crate) conns: usize,
    pub(crate) markdown: Option<PathBuf>,
    pub(crate) only: Option<Vec<String>>,
    pub(crate) callgrind: bool,
    pub(crate) calls: usize,
}

pub(crate) fn parse_opts() -> Result<Opts, String> {
    let mut o = Opts {
        rounds: 7,
        secs: 3.0,
        warmup: 1.0,
        conns: 32,
        markdown: None,
        only: None,
        callgrind: false,
        calls: 1000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--rounds" => o.rounds = val()?.parse().map_err(|_| "bad --rounds")?,
            "--secs" => o.secs = val()?.parse().map_err(|_| "bad --secs")?,
            "--warmup" => o.warmup = val()?.parse().map_err(|_| "bad --warmup")?,
            "--conns" => o.conns = val()?.parse().map_err(|_| "bad --conns")?,
            "--calls" => o.calls = val()?.parse().map_err(|_| "bad --calls")?,
            "--markdown" => o.markdown = Some(val()?.into()),
            "--only" => o.only = Some(val()?.split(',').map(str::to_owned).collect()),
            "--callgrind" => o.callgrind = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}
