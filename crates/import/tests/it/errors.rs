//! Why a file gives no records: every error names the file and the place, and reads as the
//! command prints it.

use crate::*;
use syscost_import::{import_file, Place};

#[test]
fn garbage_and_empty_input_are_rejected() {
    let e = try_import("garbage.txt", ImportFormat::Auto)
        .unwrap_err()
        .to_string();
    assert!(e.contains("garbage.txt"), "{e}");
    assert!(e.contains("line 1"), "{e}");
    let e = import_bytes(
        b"  \n\n",
        "empty.log",
        ImportFormat::Auto,
        &Provenance::default(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "empty.log is empty");
}

#[test]
fn no_result_says_what_was_tried_and_points_at_the_earliest_empty_run() {
    let e = try_import(SEED_002, ImportFormat::Auto).unwrap_err();
    let Error::NoResult {
        file,
        what,
        tried,
        place,
    } = &e
    else {
        panic!("{e:?}");
    };
    assert_eq!(file, SEED_002);
    assert_eq!(*what, ImportFormat::Auto);
    assert_eq!(tried, &ImportFormat::PARSERS);
    let Place::Hint(h) = place else {
        panic!("{place:?}");
    };
    assert_eq!(h.line, 49);
    assert_eq!(h.text, "Benchmarking 100000 syscalls...");

    // One parser asked for: the message names its tool and no list.
    let e = try_import("garbage.txt", ImportFormat::PerfBench).unwrap_err();
    assert!(matches!(
        &e,
        Error::NoResult { tried, place: Place::FirstLine { line: 1, .. }, .. }
            if tried == &[ImportFormat::PerfBench]
    ));
    assert_eq!(
        e.to_string(),
        "no perf bench syscall result found in garbage.txt (no line looks like its output; \
         line 1 reads \"Results of the nightly job\")"
    );
}

#[test]
fn files_that_cannot_be_read_are_named() {
    let prov = Provenance::default();
    let dir = path("seeds");
    let e = import_file(&dir, ImportFormat::Auto, &prov).unwrap_err();
    assert!(matches!(e, Error::Directory { .. }), "{e:?}");
    assert_eq!(e.file(), dir.display().to_string());
    assert!(e
        .to_string()
        .ends_with(" is a directory; give the log files themselves"));

    let missing = path("no-such-log.txt");
    let e = import_file(&missing, ImportFormat::Auto, &prov).unwrap_err();
    match &e {
        Error::Read { source, .. } => assert_eq!(source.kind(), std::io::ErrorKind::NotFound),
        _ => panic!("{e:?}"),
    }
    assert!(e
        .to_string()
        .starts_with(&format!("cannot read {}: ", missing.display())));

    // A device reports no size: the limit still holds while reading.
    let e = import_file("/dev/zero".as_ref(), ImportFormat::Auto, &prov).unwrap_err();
    assert!(
        matches!(&e, Error::TooBig { limit, .. } if *limit == syscost_import::MAX_LOG_BYTES),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("/dev/zero is larger than 32 MiB"));
}

#[test]
fn warnings_name_the_file_the_line_and_the_parser() {
    let imp = try_import("bpf-bench-summary.txt", ImportFormat::Auto).unwrap();
    let [w] = imp.warnings.as_slice() else {
        panic!("{:?}", imp.warnings);
    };
    assert_eq!(w.format, ImportFormat::BpfBench);
    assert_eq!(w.hint.line, 21);
    assert!(
        w.to_string()
            .starts_with("bpf-bench-summary.txt line 21: \"Summary: hits   13.962 ± 0.345M/s"),
        "{w}"
    );
    assert!(
        w.to_string().ends_with(
            "is the summary of rb-libbpf, not a trigger bench (BPF trigger bench); nothing \
             imported from there"
        ),
        "{w}"
    );
}
