//! Writing records in their file form (`syscost_record::to_file_json`). A file is replaced
//! atomically (a temporary file in its directory, fsync, rename), so an interrupted or failing
//! write never leaves a half-written file at the destination; and only a regular file is ever
//! replaced. `-o` follows a symbolic link to the file it names, and writes into a character
//! device or a FIFO (`-o /dev/null`, `-o /dev/stdout`, a named pipe) instead of replacing it.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use syscost_record::{with_id, RunRecord};

/// A record that could not be written; says which path and why.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{}: not a file path", .0.display())]
    NotAFile(PathBuf),
    /// Something other than a regular file, a character device or a FIFO is there: it is
    /// never replaced.
    #[error("{}{}: is {kind}, not a file; it is not replaced", path.display(), via(.path, .target))]
    NotReplaced {
        path: PathBuf,
        target: PathBuf,
        kind: &'static str,
    },
    #[error("cannot write {}{}: {source}", path.display(), via(.path, .target))]
    Write {
        path: PathBuf,
        target: PathBuf,
        source: io::Error,
    },
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir { dir: PathBuf, source: io::Error },
}

/// ` (→ target)` when a link led elsewhere.
fn via(path: &Path, target: &Path) -> String {
    if path == target {
        String::new()
    } else {
        format!(" (a link to {})", target.display())
    }
}

fn write_error(path: &Path, target: &Path, source: io::Error) -> WriteError {
    WriteError::Write {
        path: path.to_path_buf(),
        target: target.to_path_buf(),
        source,
    }
}

/// The record as it is stored in a file (the one form `syscost-site check` accepts).
pub use syscost_record::to_file_json;

/// What a destination path leads to, its symbolic links followed.
#[derive(Debug, PartialEq)]
enum Dest {
    /// A regular file, or nothing yet: replaced (or created) atomically.
    File(PathBuf),
    /// A character device or a FIFO: written into, never replaced.
    Stream(PathBuf),
}

/// Most symbolic links followed, as the kernel's own limit (`ELOOP` after 40).
const MAX_LINKS: usize = 40;

/// Follows `path` through its symbolic links to what it names. Errors for anything that is
/// neither a regular file nor a stream, and for a path that cannot be looked up (a name
/// longer than the file system takes, a component that is a file, a loop of links).
fn destination(path: &Path) -> Result<Dest, WriteError> {
    let mut p = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        let meta = match fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Dest::File(p)),
            Err(e) => return Err(write_error(path, &p, e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            let to = fs::read_link(&p).map_err(|e| write_error(path, &p, e))?;
            p = match p.parent() {
                Some(dir) if to.is_relative() => dir.join(to),
                _ => to,
            };
            continue;
        }
        if ft.is_file() {
            return Ok(Dest::File(p));
        }
        if ft.is_char_device() || ft.is_fifo() {
            return Ok(Dest::Stream(p));
        }
        let kind = if ft.is_dir() {
            "a directory"
        } else if ft.is_block_device() {
            "a block device"
        } else if ft.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        return Err(WriteError::NotReplaced {
            path: path.to_path_buf(),
            target: p,
            kind,
        });
    }
    Err(write_error(
        path,
        &p,
        io::Error::other(format!("more than {MAX_LINKS} symbolic links")),
    ))
}

/// The directory a file is created in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A temporary file's name in `dir`: short whatever the destination's name (a name near the
/// file system's limit must still have a temporary beside it), unique within this process.
fn temp_in(dir: &Path) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".syscost.{}.{n}.tmp", std::process::id()))
}

/// Writes `bytes` to `path` atomically: a temporary file in its directory, renamed over it.
/// Only a regular file (or nothing) at `path` itself is replaced — a link, a device, a FIFO or
/// a directory there is an error. Errors name the path.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    if path.file_name().is_none() {
        return Err(WriteError::NotAFile(path.to_path_buf()));
    }
    // What is there now: its permissions are kept; anything but a regular file stays.
    let mode = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => Some(m.permissions().mode()),
        Ok(m) => {
            return Err(WriteError::NotReplaced {
                path: path.to_path_buf(),
                target: path.to_path_buf(),
                kind: if m.file_type().is_symlink() {
                    "a symbolic link"
                } else if m.is_dir() {
                    "a directory"
                } else {
                    "not a regular file"
                },
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(write_error(path, path, e)),
    };
    let dir = dir_of(path);
    let tmp = temp_in(dir);
    let result = (|| -> io::Result<()> {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        if let Some(mode) = mode {
            f.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        // Make the rename itself durable.
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        write_error(path, path, e)
    })
}

/// Writes `bytes` where `-o PATH` says: the regular file it names (through its symbolic
/// links) replaced atomically in its own directory, or a character device or FIFO written
/// into. Anything else is an error, and nothing is replaced.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    match destination(path)? {
        Dest::File(target) => write_atomic(&target, bytes).map_err(|e| match e {
            WriteError::Write { source, .. } => write_error(path, &target, source),
            other => other,
        }),
        Dest::Stream(target) => fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
            .map_err(|e| write_error(path, &target, e)),
    }
}

/// Makes sure a record can be written into `dir` (created if missing) before anything is
/// measured: a file is created there and removed. Errors name the directory.
pub fn check_writable_dir(dir: &Path) -> Result<(), WriteError> {
    fs::create_dir_all(dir).map_err(|e| WriteError::CreateDir {
        dir: dir.to_path_buf(),
        source: e,
    })?;
    let probe = temp_in(dir);
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| fs::remove_file(&probe))
        .map_err(|e| write_error(dir, dir, e))
}

/// Makes sure `-o PATH` can be written, as [`write_output`] will, before anything is
/// measured: what it leads to is a regular file or nothing (its name one the file system
/// takes, and its directory one that takes the temporary file), or a character device or FIFO
/// this process may write to. Nothing is opened that could block (a FIFO without a reader).
pub fn check_writable_file(path: &Path) -> Result<(), WriteError> {
    if path.file_name().is_none() {
        return Err(WriteError::NotAFile(path.to_path_buf()));
    }
    match destination(path)? {
        Dest::File(target) => {
            let dir = dir_of(&target);
            if !dir.is_dir() {
                return Err(write_error(
                    path,
                    &target,
                    io::Error::new(io::ErrorKind::NotFound, "its directory does not exist"),
                ));
            }
            check_writable_dir(dir).map_err(|e| match e {
                WriteError::Write { source, .. } => write_error(path, &target, source),
                other => other,
            })
        }
        Dest::Stream(target) => {
            crate::sys::query::writable(&target).map_err(|e| write_error(path, &target, e))
        }
    }
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
    fn a_link_is_followed_and_its_target_replaced_in_its_own_directory() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        let target = b.join("r.json");
        fs::write(&target, b"old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        // A chain: a/first -> a/second -> ../b/r.json (relative to each link's directory).
        symlink("../b/r.json", a.join("second")).unwrap();
        symlink(a.join("second"), a.join("first")).unwrap();
        check_writable_file(&a.join("first")).unwrap();
        write_output(&a.join("first"), b"new").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert!(fs::symlink_metadata(a.join("first")).unwrap().is_symlink());
        assert!(fs::symlink_metadata(a.join("second")).unwrap().is_symlink());
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "the replaced file keeps its permissions");
        // Nothing was left in either directory.
        assert_eq!(fs::read_dir(&a).unwrap().count(), 2);
        assert_eq!(fs::read_dir(&b).unwrap().count(), 1);
        // A link to nothing yet: the file is created where it points.
        symlink("../b/new.json", a.join("dangling")).unwrap();
        write_output(&a.join("dangling"), b"x").unwrap();
        assert_eq!(fs::read(b.join("new.json")).unwrap(), b"x");
    }

    #[test]
    fn a_fifo_is_written_into_and_stays_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        // mkfifo(1) (coreutils): no unsafe code outside sys/, tests included.
        let made = std::process::Command::new("mkfifo")
            .args(["-m", "600"])
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Checking it opens nothing: no reader is needed yet.
        check_writable_file(&fifo).unwrap();
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_output(&fifo, b"record").unwrap();
        assert_eq!(reader.join().unwrap(), b"record");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn nothing_but_a_regular_file_is_replaced() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        fs::create_dir_all(&sub).unwrap();
        symlink(&sub, dir.path().join("to-dir")).unwrap();
        for p in [sub.clone(), dir.path().join("to-dir")] {
            let e = check_writable_file(&p).unwrap_err().to_string();
            assert!(e.contains("is a directory, not a file"), "{e}");
            assert!(write_output(&p, b"x").is_err());
            assert!(sub.is_dir());
        }
        // A loop of links is named, not followed for ever.
        symlink("loop2", dir.path().join("loop1")).unwrap();
        symlink("loop1", dir.path().join("loop2")).unwrap();
        let e = check_writable_file(&dir.path().join("loop1"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("loop1") && e.contains("symbolic links"), "{e}");
        // `--save` writes only the file at its own path: a link there is not replaced.
        let real = dir.path().join("real.json");
        fs::write(&real, b"keep").unwrap();
        symlink(&real, dir.path().join("r.json")).unwrap();
        let e = write_atomic(&dir.path().join("r.json"), b"x").unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        assert_eq!(fs::read(&real).unwrap(), b"keep");
    }

    #[test]
    fn a_name_longer_than_the_file_system_takes_is_found_by_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join(format!("{}.json", "x".repeat(295)));
        let e = check_writable_file(&long).unwrap_err().to_string();
        assert!(
            e.contains("name too long") || e.contains("File name too long"),
            "{e}"
        );
        // A name just within the limit takes its temporary file beside it.
        let ok = dir.path().join(format!("{}.json", "y".repeat(250)));
        check_writable_file(&ok).unwrap();
        write_output(&ok, b"x").unwrap();
        assert_eq!(fs::read(&ok).unwrap(), b"x");
    }

    #[test]
    fn atomic_write_to_missing_dir_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/r.json");
        let e = write_atomic(&p, b"x").unwrap_err().to_string();
        assert!(e.contains("no/such/dir/r.json"), "{e}");
    }
}
