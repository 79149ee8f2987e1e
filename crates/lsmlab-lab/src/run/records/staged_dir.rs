//! An output directory built beside its final place (`OUT.partial`) and renamed into place
//! last, as runs are (`runs/ID.partial/`): a command that fails part way leaves no `OUT`, so
//! running it again just works. Used by `lsmlab merge`.

use lsmlab_drivers::error::{CliError, CliResult};
use std::path::{Path, PathBuf};

/// A directory being built; removed on drop unless `commit` renamed it into place.
pub struct Staged {
    tmp: PathBuf,
    out: PathBuf,
    /// `out` was an empty directory before (kept as such when the command fails).
    out_was_empty_dir: bool,
    committed: bool,
}

fn io(p: &Path, e: std::io::Error) -> CliError {
    CliError::new(format!("{}: {e}", p.display()))
}

/// `OUT.partial` beside `OUT`.
fn partial_of(out: &Path) -> CliResult<PathBuf> {
    let name = out
        .file_name()
        .ok_or_else(|| CliError::new(format!("--out {}: not a directory name", out.display())))?;
    let mut partial = name.to_os_string();
    partial.push(".partial");
    Ok(out.with_file_name(partial))
}

impl Staged {
    /// Starts `out`: refused when it exists and is not an empty directory; a `OUT.partial`
    /// left by a killed earlier attempt is removed.
    pub fn new(out: &Path) -> CliResult<Staged> {
        let out_was_empty_dir = match std::fs::read_dir(out) {
            Ok(mut rd) => {
                if rd.next().is_some() {
                    return Err(CliError::new(format!(
                        "--out {}: already exists and is not empty; give a new directory",
                        out.display()
                    )));
                }
                true
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(io(out, e)),
        };
        let tmp = partial_of(out)?;
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
        }
        std::fs::create_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
        Ok(Staged {
            tmp,
            out: out.to_path_buf(),
            out_was_empty_dir,
            committed: false,
        })
    }

    /// Where to build.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Renames the directory built into place.
    pub fn commit(mut self) -> CliResult<PathBuf> {
        if self.out_was_empty_dir {
            std::fs::remove_dir(&self.out).map_err(|e| io(&self.out, e))?;
        }
        std::fs::rename(&self.tmp, &self.out).map_err(|e| {
            CliError::new(format!(
                "renaming {} to {}: {e}",
                self.tmp.display(),
                self.out.display()
            ))
        })?;
        self.committed = true;
        Ok(self.out.clone())
    }

    /// Undoes a `commit` whose directory a later step could not finish: `out` removed (an
    /// empty directory again when it was one).
    pub fn undo(out: &Path, was_empty_dir: bool) {
        let _ = std::fs::remove_dir_all(out);
        if was_empty_dir {
            let _ = std::fs::create_dir(out);
        }
    }

    /// Whether `out` was an empty directory before (for `undo`).
    pub fn out_was_empty_dir(&self) -> bool {
        self.out_was_empty_dir
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_stage_leaves_nothing_and_a_committed_one_is_in_place() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("merged");
        {
            let s = Staged::new(&out).unwrap();
            std::fs::write(s.path().join("x"), "1").unwrap();
            assert!(d.path().join("merged.partial/x").is_file());
        }
        assert!(!out.exists() && !d.path().join("merged.partial").exists());
        let s = Staged::new(&out).unwrap();
        std::fs::write(s.path().join("x"), "2").unwrap();
        assert_eq!(s.commit().unwrap(), out);
        assert_eq!(std::fs::read_to_string(out.join("x")).unwrap(), "2");
        assert!(!d.path().join("merged.partial").exists());
        // Not over a directory that holds something.
        let e = Staged::new(&out).err().unwrap();
        assert!(e.0.contains("already exists and is not empty"), "{e}");
        // Over an empty one, and over what a killed attempt left.
        let empty = d.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        std::fs::create_dir_all(d.path().join("empty.partial/runs")).unwrap();
        let s = Staged::new(&empty).unwrap();
        assert!(s.out_was_empty_dir());
        assert!(
            !s.path().join("runs").exists(),
            "a stale partial is cleared"
        );
        std::fs::write(s.path().join("y"), "3").unwrap();
        s.commit().unwrap();
        assert!(empty.join("y").is_file());
        Staged::undo(&empty, true);
        assert!(empty.is_dir() && std::fs::read_dir(&empty).unwrap().next().is_none());
    }
}
