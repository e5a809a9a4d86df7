//! BPF trigger bench summaries and tables.

use crate::*;

#[test]
fn bpf_bench_summaries_use_the_per_producer_rate() {
    let imp = try_import("bpf-bench-summary.txt", ImportFormat::BpfBench).unwrap();
    let r = &imp.records[0];
    assert_eq!(imp.records.len(), 1);
    assert_eq!(ids(r), ["native", "bpf.rawtp", "bpf.fentry"]);
    assert_close(median(r, "native"), 1000.0 / 9.298);
    assert_close(median(r, "bpf.rawtp"), 1000.0 / 8.481);
    assert_eq!(
        r.result("bpf.rawtp")
            .unwrap()
            .throughput_mops
            .as_ref()
            .unwrap()
            .median,
        16.962
    );
    assert_close(median(r, "bpf.fentry"), 1000.0 / 9.050);
    assert!(has_note(r, "several producers"));
    // The ring-buffer bench's summary is not a trigger bench: reported, not imported.
    assert!(has_note(r, "rb-libbpf, not a trigger bench"));
    assert!(
        imp.warnings.iter().any(|w| w.hint.line == 21),
        "{:?}",
        imp.warnings
    );
}

#[test]
fn bpf_bench_6_10_keeps_in_kernel_rows_apart() {
    let r = one("bpf-bench-6.10-table.txt");
    assert_close(median(&r, "native"), 1000.0 / 19.721);
    assert_eq!(
        r.result("native").unwrap().params["bench"],
        "trig-syscall-count"
    );
    for id in [
        "bpf.kdriver.fentry",
        "bpf.kdriver.kprobe_multi",
        "bpf.kdriver.kretprobe_multi",
    ] {
        let res = r.result(id).unwrap();
        assert!(res.overhead.is_none(), "{id} is not a syscall cost");
    }
    assert_close(median(&r, "bpf.kdriver.tp"), 1000.0 / 58.531);
    assert_close(median(&r, "bpf.uprobe"), 1000.0 / 3.123);
    assert_close(median(&r, "bpf.uretprobe"), 1000.0 / 1.903);
    assert!(r.result("bpf.fentry").is_none());
    assert!(r.result("bpf.kprobe_multi_all").is_some());
    assert!(has_note(&r, "trig-kprobe-multi-all is not a bench name"));
    assert!(has_note(&r, "Linux 6.10+"));
    assert_eq!(r.results.len(), 15);
}
