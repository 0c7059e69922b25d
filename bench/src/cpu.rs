//! A process's CPU time, read from `/proc/PID/stat`, and the clock ticks it is counted in:
//! what the drivers divide by the requests a load window served.

use std::process::Command;

/// Clock ticks per second (`getconf CLK_TCK`; 100 when it cannot be read).
pub fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// utime + stime of a process (all its threads, live and exited), in clock ticks.
pub fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| e.to_string())?;
    let rest = stat.rsplit_once(')').map(|(_, r)| r).ok_or("bad stat")?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the command name: state is field 3, utime 14 and stime 15 (1-based overall).
    let utime: u64 = f.get(11).and_then(|v| v.parse().ok()).ok_or("bad utime")?;
    let stime: u64 = f.get(12).and_then(|v| v.parse().ok()).ok_or("bad stime")?;
    Ok(utime + stime)
}
