//! Writing records in their file form (`syscost_record::to_file_json`), atomically (temp file in the same directory, fsync, rename), so
//! an interrupted or failing write never leaves a half-written file at the destination.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use syscost_record::{with_id, RunRecord};

/// A record that could not be written; says which path and why.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{}: not a file path", .0.display())]
    NotAFile(PathBuf),
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir { dir: PathBuf, source: io::Error },
}

/// The record as it is stored in a file (the one form `syscost-site check` accepts).
pub use syscost_record::to_file_json;

/// Writes `bytes` to `path` atomically. Errors name the path.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| WriteError::NotAFile(path.to_path_buf()))?;
    let tmp = dir.join(format!(
        ".{}.tmp.{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> io::Result<()> {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        // Make the rename itself durable.
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        WriteError::Write {
            path: path.to_path_buf(),
            source: e,
        }
    })
}

/// Makes sure a record can be written into `dir` (created if missing) before anything is
/// measured: a file is created there and removed. Errors name the directory.
pub fn check_writable_dir(dir: &Path) -> Result<(), WriteError> {
    fs::create_dir_all(dir).map_err(|e| WriteError::CreateDir {
        dir: dir.to_path_buf(),
        source: e,
    })?;
    let probe = dir.join(format!(".syscost-probe.{}", std::process::id()));
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| fs::remove_file(&probe))
        .map_err(|e| WriteError::Write {
            path: dir.to_path_buf(),
            source: e,
        })
}

/// Makes sure `path` can be written (atomically, as [`write_atomic`] does) before anything is
/// measured: its directory must exist and take a new file, and it must not be a directory.
pub fn check_writable_file(path: &Path) -> Result<(), WriteError> {
    if path.is_dir() || path.file_name().is_none() {
        return Err(WriteError::NotAFile(path.to_path_buf()));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(WriteError::Write {
            path: path.to_path_buf(),
            source: io::Error::new(io::ErrorKind::NotFound, "its directory does not exist"),
        });
    }
    check_writable_dir(dir).map_err(|e| match e {
        WriteError::Write { source, .. } => WriteError::Write {
            path: path.to_path_buf(),
            source,
        },
        other => other,
    })
}

/// Saves under `dir/runs/<arch>/<kernel>/<id>.json` and returns the path. The id is the content
/// hash, so saving the same record twice writes the same file.
pub fn save_record(dir: &Path, record: RunRecord) -> Result<(PathBuf, RunRecord), WriteError> {
    let record = with_id(record);
    let path = dir.join(record.canonical_path());
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| WriteError::CreateDir {
            dir: parent.to_path_buf(),
            source: e,
        })?;
    }
    write_atomic(&path, to_file_json(&record).as_bytes())?;
    Ok((path, record))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "temp file left behind");
    }

    #[test]
    fn destinations_are_checked_without_leaving_anything() {
        let dir = tempfile::tempdir().unwrap();
        check_writable_file(&dir.path().join("r.json")).unwrap();
        check_writable_dir(&dir.path().join("data/runs/x86_64/6.8")).unwrap();
        assert!(dir.path().join("data/runs/x86_64/6.8").is_dir());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "only data/");
        let e = check_writable_file(&dir.path().join("no/such/r.json")).unwrap_err();
        assert!(e.to_string().contains("no/such/r.json"), "{e}");
        assert!(check_writable_file(dir.path()).is_err(), "a directory");
    }

    #[test]
    fn atomic_write_to_missing_dir_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/r.json");
        let e = write_atomic(&p, b"x").unwrap_err().to_string();
        assert!(e.contains("no/such/dir/r.json"), "{e}");
    }
}
