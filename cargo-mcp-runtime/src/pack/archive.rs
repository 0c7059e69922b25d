//! The `.mcpb` file: a zip archive with `manifest.json` at its root and the server's binary
//! under `server/`, executable (the bundle's unpacker restores Unix modes). No directory
//! entries, and no timestamps (every entry dated 1980): the same inputs give the same bytes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use zip::CompressionMethod;
use zip::write::{SimpleFileOptions, ZipWriter};

/// Writes the bundle at `path` whole or not at all (a file beside it, then renamed over it).
pub(crate) fn write(path: &Path, manifest: &str, binary: &Path, file: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    }
    let mut beside = path.as_os_str().to_owned();
    beside.push(".part");
    let beside = PathBuf::from(beside);
    let written = fill(&beside, manifest, binary, file);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&beside);
        return Err(e);
    }
    std::fs::rename(&beside, path).map_err(|e| format!("could not write {}: {e}", path.display()))
}

/// The archive's entries, written to `path`.
fn fill(path: &Path, manifest: &str, binary: &Path, file: &str) -> Result<(), String> {
    let failed = |e: &dyn std::fmt::Display| format!("could not write {}: {e}", path.display());
    let out = File::create(path).map_err(|e| failed(&e))?;
    let mut zip = ZipWriter::new(BufWriter::new(out));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    zip.start_file("manifest.json", options.unix_permissions(0o644))
        .map_err(|e| failed(&e))?;
    zip.write_all(manifest.as_bytes()).map_err(|e| failed(&e))?;
    let mut server =
        File::open(binary).map_err(|e| format!("could not read {}: {e}", binary.display()))?;
    // The unpacker reads no zip64 records: a binary past 4 GiB is refused by the writer.
    zip.start_file(format!("server/{file}"), options.unix_permissions(0o755))
        .map_err(|e| failed(&e))?;
    std::io::copy(&mut server, &mut zip).map_err(|e| failed(&e))?;
    let mut out = zip.finish().map_err(|e| failed(&e))?;
    out.flush().map_err(|e| failed(&e))
}
