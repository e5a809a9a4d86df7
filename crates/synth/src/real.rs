//! Records with the size and shape of a real default run: a committed run of `syscost run` is
//! the template, and each generated record is that run moved to another machine, kernel and
//! date, its times scaled by the machine's speed with run-to-run noise. Every scenario, note,
//! parameter and text of the real run is kept, so pages and files are as large as real ones.

use crate::{machines, mitigations, Rng, KERNELS};
use syscost_record::{migrate, with_id, RunRecord, SourceKind, Status};

/// A full default run (`syscost run`, getpid, 30 s budget) of this project's reference VM.
const TEMPLATE: &str =
    include_str!("../../../data/runs/x86_64/6.18.44-fc-v1045/2c3698776bcbf7f2.json");

fn template() -> RunRecord {
    // The template is committed and validated by the tests; failing here is a build defect.
    serde_json::from_str(TEMPLATE).expect("the committed template record parses")
}

/// `n` real-size records, deterministic for a seed. Machines scale with `n` as in
/// [`crate::generate`].
pub fn generate_real(n: usize, seed: u64) -> impl Iterator<Item = RunRecord> {
    let mut rng = Rng::new(seed);
    let ms = machines(&mut rng, (n / 50).clamp(4, 400));
    let base = template();
    (0..n).map(move |i| {
        let m = &ms[rng.below(ms.len())];
        let k = rng.below(KERNELS.len());
        let mut r = base.clone();
        let upstream = KERNELS[k];
        let release = match rng.below(3) {
            _ if upstream.contains("-rc") => upstream.to_string(),
            0 => upstream.to_string(),
            1 => format!("{upstream}.0-{}-generic", 10 + rng.below(90)),
            _ => format!("{upstream}.{}", 1 + rng.below(9)),
        };
        // Machines of one CPU model, virtualisation and mitigation state (one series) are
        // equally fast; newer kernels a little cheaper, so trends have a slope; 1 % noise.
        let kind = format!("{}{:?}{}", m.cpu, m.virt, m.mitigated);
        let h = kind
            .bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        let speed = 0.6 + (h % 1000) as f64 / 1000.0;
        let scale =
            speed * (1.0 - 0.15 * k as f64 / KERNELS.len() as f64) * (1.0 + 0.01 * rng.normal());
        scale_times(&mut r, scale.max(0.05));
        let c = &mut r.environment.comparability;
        c.arch = m.arch.to_string();
        c.kernel_release = release;
        c.kernel_version = Some(format!("#1 SMP PREEMPT_DYNAMIC synthetic {i}"));
        c.cpu.model_name = Some(m.cpu.to_string());
        c.cpu.vendor = Some(m.vendor.to_string());
        c.virtualization.kind = m.virt.0.to_string();
        c.virtualization.hypervisor = m.virt.1.map(str::to_string);
        c.mitigations = mitigations(m.arch, m.mitigated);
        r.environment.incidental.machine_hash = Some(m.hash[..12].to_string());
        let day = k * 90 + rng.below(90);
        let (y, mo, d) = crate::civil(18262 + day as i64);
        r.source.kind = SourceKind::Synthetic;
        r.source.date = Some(format!(
            "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
            rng.below(24),
            rng.below(60),
            rng.below(60)
        ));
        r.source.note = Some(format!("synthetic real-size record {i}"));
        // Scaled numbers are rounded again by their intervals.
        migrate(with_id(r))
    })
}

/// Multiplies every time in the record by `s` (and divides the throughputs): what the same run
/// on a machine `s` times slower would have recorded. Percentages, counts and verdicts stay.
fn scale_times(r: &mut RunRecord, s: f64) {
    let t = |x: &mut f64| *x *= s;
    let o = |x: &mut Option<f64>| {
        if let Some(v) = x {
            *v *= s
        }
    };
    for res in &mut r.results {
        if res.status != Status::Measured {
            continue;
        }
        for x in [
            &mut res.median_ns,
            &mut res.ci_low_ns,
            &mut res.ci_high_ns,
            &mut res.mad_ns,
            &mut res.min_ns,
            &mut res.p90_ns,
        ] {
            o(x);
        }
        if let Some(ov) = &mut res.overhead {
            t(&mut ov.median_ns);
            o(&mut ov.ci_low_ns);
            o(&mut ov.ci_high_ns);
        }
        if let Some(th) = &mut res.throughput_mops {
            th.median /= s;
            for v in [&mut th.ci_low, &mut th.ci_high].into_iter().flatten() {
                *v /= s
            }
        }
    }
    for x in &mut r.summary.targets {
        t(&mut x.median_ns);
        o(&mut x.half_width_ns);
        t(&mut x.target_ns);
    }
    for e in &mut r.estimates {
        t(&mut e.median_ns);
        o(&mut e.ci_low_ns);
        o(&mut e.ci_high_ns);
    }
    for e in &mut r.expectations {
        t(&mut e.lhs_ns);
        t(&mut e.rhs_ns);
        t(&mut e.tolerance_ns);
        o(&mut e.diff_median_ns);
        o(&mut e.diff_ci_low_ns);
        o(&mut e.diff_ci_high_ns);
        o(&mut e.systematic_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_size_records_are_valid_varied_and_as_large_as_the_template() {
        let base = template();
        assert!(syscost_record::validate(&base).is_empty());
        let rs: Vec<RunRecord> = generate_real(40, 5).collect();
        assert_eq!(
            rs,
            generate_real(40, 5).collect::<Vec<_>>(),
            "deterministic"
        );
        let tsize = crate::to_file_bytes(&base).len();
        for r in &rs {
            let problems = syscost_record::validate(r);
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!(r.source.kind, SourceKind::Synthetic);
            assert_eq!(r.results.len(), base.results.len());
            let size = crate::to_file_bytes(r).len();
            assert!(size * 10 > tsize * 9, "{size} vs {tsize}");
        }
        let ids: std::collections::BTreeSet<_> = rs.iter().map(|r| r.id.clone()).collect();
        assert_eq!(ids.len(), rs.len());
        let kernels: std::collections::BTreeSet<_> = rs
            .iter()
            .map(|r| r.environment.comparability.kernel_release.clone())
            .collect();
        assert!(kernels.len() > 5);
    }
}
