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
    fn atomic_write_to_missing_dir_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/r.json");
        let e = write_atomic(&p, b"x").unwrap_err().to_string();
        assert!(e.contains("no/such/dir/r.json"), "{e}");
    }
}
