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
