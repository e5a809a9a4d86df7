//! `site-bench synth`: same seed, same files; never into a directory named `data`.

use std::process::Command;

fn site_bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_site-bench"))
        .args(args)
        .output()
        .expect("run site-bench")
}

#[test]
fn synth_writes_records_and_refuses_data() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("records");
    let o = site_bench(&[
        "synth",
        "--runs",
        "5",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("wrote 5 synthetic records"));
    assert!(out.join("runs").is_dir());

    let data = tmp.path().join("data");
    let o = site_bench(&["synth", "--runs", "1", "--out", data.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("refusing to write synthetic records"));
    assert!(!data.exists());
}

#[test]
fn both_floors_parse_every_record_and_count_the_unreadable() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("records");
    let o = site_bench(&["synth", "--runs", "7", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // One record that cannot be parsed.
    let bad = out.join("runs/x86_64/6.1/0000000000000000.json");
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    std::fs::write(&bad, "{").unwrap();
    for (floor, says) in [
        ("parse", "parsed 7 records ("),
        ("parse-all", "parsed 7 records on "),
    ] {
        let o = site_bench(&["--child", floor, "--data", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.starts_with(says), "{floor}: {text}");
        assert!(text.contains("(1 unreadable)"), "{floor}: {text}");
    }
}
