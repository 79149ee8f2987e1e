//! `lsmlab dump FILE`: a table (properties, index, entries), a blob file (its records), a WAL
//! (its batches) or a MANIFEST (its edits), in readable form. The kind comes from the name.

use lsmlab::blob::{BlobFileReader, BlobIndex};
use lsmlab::env::{Env, IoCategory, PosixFs};
use lsmlab::key::{parse_internal_key, ValueKind};
use lsmlab::sst::{BlockFetch, TableReader};
use lsmlab::version::VersionEdit;
use lsmlab::wal::{LogReader, ReadOutcome};
use lsmlab::{Statistics, WriteBatch};
use lsmlab_drivers::error::{CliError, CliResult};
use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;

/// Usage of `lsmlab dump`.
pub const USAGE: &str = "usage: lsmlab dump FILE [--limit=N]
Prints NNNNNN.sst (properties, index, entries), NNNNNN.blob (records), NNNNNN.log (write
batches) or MANIFEST-NNNNNN (version edits) in readable form. --limit caps the entries,
records or batches printed (default: all).";

/// Bytes of a key or value shown before `…`.
const SHOW: usize = 48;

/// Printable form of bytes: text as it is, anything else escaped.
pub fn show(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in &b[..b.len().min(SHOW)] {
        if (0x20..0x7f).contains(&c) && c != b'\\' {
            s.push(c as char);
        } else {
            let _ = write!(s, "\\x{c:02x}");
        }
    }
    if b.len() > SHOW {
        let _ = write!(s, "…({} bytes)", b.len());
    }
    s
}

fn internal(k: &[u8]) -> String {
    match parse_internal_key(k) {
        Some(p) => format!("'{}' @{} {:?}", show(p.user_key), p.seq, p.kind),
        None => format!("(malformed key {})", show(k)),
    }
}

/// The arguments of `lsmlab dump`.
#[derive(Debug, clap::Parser)]
#[command(
    name = "lsmlab dump",
    disable_help_flag = true,
    disable_version_flag = true,
    args_override_self = true
)]
struct DumpArgs {
    /// The file to print.
    file: Option<String>,
    /// At most this many entries.
    #[arg(long, default_value_t = u64::MAX, value_parser = entries)]
    limit: u64,
}

fn entries(v: &str) -> Result<u64, String> {
    v.parse()
        .map_err(|_| "allowed: a whole number of entries".to_string())
}

/// Runs `lsmlab dump` with `args` (after `dump`).
pub fn main(args: &[String]) -> CliResult<()> {
    if crate::cli::asks_help(args) {
        println!("{USAGE}");
        return Ok(());
    }
    let a: DumpArgs = crate::cli::parse_tool("dump", args)?;
    let limit = a.limit;
    let Some(file) = a.file.as_deref() else {
        return Err(CliError::new("dump: give one file: lsmlab dump FILE"));
    };
    let path = Path::new(file);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let env = Env::new(Arc::new(PosixFs));
    let mut out = String::new();
    let r = if name.ends_with(".sst") {
        table(&env, path, limit, &mut out)
    } else if name.ends_with(".blob") {
        blob(&env, path, limit, &mut out)
    } else if name.ends_with(".log") {
        wal(&env, path, limit, &mut out)
    } else if name.starts_with("MANIFEST-") {
        manifest(&env, path, limit, &mut out)
    } else {
        return Err(CliError::new(format!(
            "dump: {file}: not a table (.sst), blob file (.blob), WAL (.log) or MANIFEST-NNNNNN"
        )));
    };
    print!("{out}");
    r.map_err(|e| CliError::new(format!("dump: {e}")))
}

fn table(env: &Env, path: &Path, limit: u64, out: &mut String) -> lsmlab::Result<()> {
    let number = path
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let t = Arc::new(TableReader::open(
        env.open_random(path)?,
        path.to_path_buf(),
        number,
        None,
        Arc::new(Statistics::new()),
    )?);
    let p = t.properties();
    let _ = writeln!(out, "table {}", path.display());
    let _ = writeln!(
        out,
        "properties: entries {} (deletions {}), data blocks {}, data {} B, index {} B, filter {} B ({}), raw keys {} B, raw values {} B",
        p.num_entries,
        p.num_deletions,
        p.num_data_blocks,
        p.data_size,
        p.index_size,
        p.filter_size,
        t.filter_name().unwrap_or("none"),
        p.raw_key_size,
        p.raw_value_size
    );
    let _ = writeln!(out, "index:");
    for e in t.index_entries()? {
        let first = match &e.first {
            Some((1, k)) => format!(", 1 entry: {}", internal(k)),
            Some((n, k)) => format!(", {n} entries from {}", internal(k)),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "  block @{} {} B, up to {}{first}",
            e.handle.offset,
            e.handle.size,
            internal(&e.separator)
        );
    }
    let _ = writeln!(out, "entries:");
    let mut it = t.iter(IoCategory::Other, BlockFetch::SEQUENTIAL);
    it.seek_to_first();
    let mut n = 0;
    while it.valid() && n < limit {
        let k = it.key();
        let v = it.value();
        let shown = match parse_internal_key(k).map(|p| p.kind) {
            Some(ValueKind::Deletion) => String::new(),
            Some(ValueKind::BlobIndex) => match BlobIndex::decode(v) {
                Some(b) => format!(
                    " => blob {:06}.blob @{} {} B {:?}",
                    b.file_number, b.offset, b.size, b.compression
                ),
                None => format!(" => (malformed blob index {})", show(v)),
            },
            _ => format!(" => '{}'", show(v)),
        };
        let _ = writeln!(out, "  {}{shown}", internal(k));
        n += 1;
        it.next();
    }
    it.status()
}

fn blob(env: &Env, path: &Path, limit: u64, out: &mut String) -> lsmlab::Result<()> {
    let r = BlobFileReader::open(env, path)?;
    let _ = writeln!(out, "blob file {}", path.display());
    let mut shown = 0;
    let count = r.scan_records(|offset, key, len, c| {
        if shown < limit {
            let _ = writeln!(out, "  @{offset} '{}' value {len} B {c:?}", show(key));
            shown += 1;
        }
    })?;
    let _ = writeln!(out, "{count} records, every checksum valid");
    Ok(())
}

fn wal(env: &Env, path: &Path, limit: u64, out: &mut String) -> lsmlab::Result<()> {
    let data = env.read_file(path, IoCategory::Other)?;
    let mut reader = LogReader::new(&data, path);
    let _ = writeln!(out, "WAL {}", path.display());
    let mut n = 0;
    loop {
        let at = reader.position();
        let Some(rec) = reader.next_record() else {
            break;
        };
        n += 1;
        if n > limit {
            continue;
        }
        match WriteBatch::decode(rec) {
            Some((seq, batch)) => {
                let _ = writeln!(out, "  @{at} batch seq {seq}, {} records:", batch.len());
                for r in batch.records() {
                    let v = match r.kind {
                        ValueKind::Deletion => String::new(),
                        _ => format!(" => '{}'", show(r.value)),
                    };
                    let _ = writeln!(out, "    {:?} '{}'{v}", r.kind, show(r.key));
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "  @{at} (not a valid write batch: {} bytes)",
                    rec.len()
                );
            }
        }
    }
    let end = reader.outcome();
    let _ = writeln!(out, "{n} records; end: {}", outcome(&end));
    judge_log(path, "a WAL", &data, n, end)
}

/// The verdict on a log file once dumped: a file named as a log in which no record is valid
/// is not one (unless it is all zeros: a log whose first bytes never reached the disk); damage
/// followed by valid records fails the dump as it fails open.
fn judge_log(
    path: &Path,
    kind: &str,
    data: &[u8],
    records: u64,
    end: ReadOutcome,
) -> lsmlab::Result<()> {
    if records == 0 && end != ReadOutcome::Clean && data.iter().any(|&b| b != 0) {
        return Err(lsmlab::Error::corruption(
            path,
            0,
            format!(
                "not {kind}: none of its {} bytes form a record with a valid checksum",
                data.len()
            ),
        ));
    }
    match end {
        ReadOutcome::Corruption {
            file,
            offset,
            message,
        } => Err(lsmlab::Error::corruption(file, offset, message)),
        _ => Ok(()),
    }
}

fn outcome(o: &ReadOutcome) -> String {
    match o {
        ReadOutcome::Clean => "clean".into(),
        ReadOutcome::TornTail {
            offset,
            truncated: true,
        } => format!("torn tail at {offset} (cut short): a crash's trace"),
        ReadOutcome::TornTail { offset, .. } => format!(
            "last record at {offset} is whole but fails its checksum: damage, dropped and counted at open"
        ),
        ReadOutcome::Corruption {
            offset, message, ..
        } => {
            format!("CORRUPTION at {offset}: {message}")
        }
    }
}

fn manifest(env: &Env, path: &Path, limit: u64, out: &mut String) -> lsmlab::Result<()> {
    let data = env.read_file(path, IoCategory::Other)?;
    let mut reader = LogReader::new(&data, path);
    let _ = writeln!(out, "MANIFEST {}", path.display());
    let mut n = 0;
    loop {
        let at = reader.position();
        let Some(rec) = reader.next_record() else {
            break;
        };
        n += 1;
        // Counted past the limit, as a WAL's batches are, so the total stays whole.
        if n > limit {
            continue;
        }
        let e = match VersionEdit::decode(rec) {
            Ok(e) => e,
            Err(m) => {
                let _ = writeln!(out, "  edit {n} @{at}: does not decode: {m}");
                continue;
            }
        };
        let _ = write!(out, "  edit {n} @{at}:");
        if let Some(x) = e.log_number {
            let _ = write!(out, " log_number {x}");
        }
        if let Some(x) = e.next_file_number {
            let _ = write!(out, " next_file {x}");
        }
        if let Some(x) = e.last_sequence {
            let _ = write!(out, " last_seq {x}");
        }
        let _ = writeln!(out);
        for b in &e.blob_added {
            let _ = writeln!(
                out,
                "    + blob {:06}.blob: {} records, {} B",
                b.number, b.count, b.bytes
            );
        }
        for (l, num) in &e.deleted {
            let _ = writeln!(out, "    - L{l} {num:06}.sst");
        }
        for (l, f) in &e.added {
            let _ = writeln!(
                out,
                "    + L{l} {:06}.sst {} B, {} entries ({} deletions), seq {}..={}, [{} .. {}]{}",
                f.number,
                f.size,
                f.num_entries,
                f.num_deletions,
                f.smallest_seq,
                f.largest_seq,
                internal(&f.smallest),
                internal(&f.largest),
                if f.oldest_blob_file > 0 {
                    format!(", oldest blob {:06}", f.oldest_blob_file)
                } else {
                    String::new()
                }
            );
        }
        for g in &e.blob_garbage {
            let _ = writeln!(
                out,
                "    ~ blob {:06}.blob garbage +{} records, +{} B",
                g.number, g.count, g.bytes
            );
        }
    }
    let end = reader.outcome();
    let _ = writeln!(out, "{n} edits; end: {}", outcome(&end));
    judge_log(path, "a MANIFEST", &data, n, end)
}
