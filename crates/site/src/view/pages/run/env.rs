//! The page of what a machine's runs share: its facts and settings, named by a hash of
//! its content.

use super::*;

/// What the runs of one machine share, said once: the machine's facts as measured, how the
/// runs were taken, and the scenarios they skipped with the reasons. Its name is a hash of its
/// content, so every run whose shared facts are identical links to the same page, and a page
/// never changes under a link.
#[derive(Serialize)]
pub struct EnvPage {
    pub(super) root: String,
    pub(super) title: String,
    pub(super) id: String,
    pub(super) arch: String,
    pub(super) cpu: String,
    pub(super) virt: String,
    /// Its series' kernel versions, each leading to its runs against each other and to the
    /// other machines measured on it; none for a run on no version axis (its series has no
    /// page).
    pub(super) series_href: Option<String>,
    pub(super) facts: Vec<(String, String)>,
    pub(super) skipped: Vec<SkippedGroup>,
}

impl EnvPage {
    /// Its site path.
    pub fn path(&self) -> String {
        format!("env/{}.html", self.id)
    }
}

/// The shared page of a run (see [`EnvPage`]).
pub fn environment(r: &RunRecord, info: &RunInfo) -> EnvPage {
    use sha2::{Digest, Sha256};
    let c = &r.environment.comparability;
    let mut page = EnvPage {
        root: "../".to_string(),
        title: String::new(),
        id: String::new(),
        arch: c.arch.clone(),
        cpu: info.series.cpu.clone(),
        virt: info.series.virt.clone(),
        series_href: info
            .is_placed()
            .then(|| format!("../{}#versions", Links.series(&info.series))),
        facts: shared_facts(r, info),
        skipped: groups(r, Status::Skipped),
    };
    let mut h = Sha256::new();
    let series = page.series_href.as_deref().unwrap_or_default();
    for part in [&page.arch, &page.cpu, &page.virt, series] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    for (k, v) in &page.facts {
        h.update(k.as_bytes());
        h.update([1]);
        h.update(v.as_bytes());
        h.update([0]);
    }
    for g in &page.skipped {
        h.update(g.ids.as_bytes());
        h.update([1]);
        h.update(g.reason.as_bytes());
        h.update([0]);
    }
    page.id = h.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    page.title = format!("Machine and settings {}", page.id);
    page
}

/// What [`environment`] makes a run's shared page from, hashed: exactly the parts of the
/// record and of its summary that the page says. Runs with the same key have the same page,
/// so a build makes each page once rather than once a run (hundreds of runs share one); a
/// debug build checks every run's page against its key's.
pub fn environment_key(r: &RunRecord, info: &RunInfo) -> Key {
    let c = &r.environment.comparability;
    let cpu = &c.cpu;
    let inc = &r.environment.incidental;
    let s = &r.settings;
    let src = &r.source;
    let mut h = Inputs(Streamed::default());
    h.text(&info.series.id());
    h.num(u64::from(info.is_placed()));
    for t in [&c.arch, &info.series.cpu, &info.series.virt]
        .into_iter()
        .chain([&info.series.mitigations, &info.series.flags])
        .chain([&src.tool])
    {
        h.text(t);
    }
    for t in [
        &cpu.microcode,
        &c.bpf_jit_enable,
        &c.bpf_jit_harden,
        &inc.machine_hash,
        &inc.clocksource,
        &inc.governor,
        &src.commit,
        &src.format,
    ] {
        h.opt(t.as_deref());
    }
    for n in [cpu.logical_cpus, cpu.physical_cores, s.cpu] {
        h.num(n.map_or(u64::MAX, u64::from));
    }
    h.num(cpu.smt.map_or(2, u64::from));
    for x in [Some(s.confidence), s.budget_s, s.target_ci_pct, s.sample_ms] {
        h.num(x.map_or(u64::MAX, f64::to_bits));
    }
    for list in [&s.only, &s.skip] {
        h.num(list.len() as u64);
        list.iter().for_each(|t| h.text(t));
    }
    h.num(src.kind as u64);
    h.num(src.method as u64);
    h.num(u64::from(r.schema));
    for x in r.results.iter().filter(|x| x.status == Status::Skipped) {
        h.text(&x.id);
        h.opt(x.reason.as_deref());
    }
    h.0.key()
}

/// The inputs of a page, each told from the next.
pub(super) struct Inputs(Streamed);

impl Inputs {
    pub(super) fn text(&mut self, t: &str) {
        self.num(t.len() as u64);
        self.0.update(t.as_bytes());
    }

    pub(super) fn opt(&mut self, t: Option<&str>) {
        match t {
            Some(t) => self.text(t),
            None => self.num(u64::MAX),
        }
    }

    pub(super) fn num(&mut self, n: u64) {
        self.0.update(&n.to_le_bytes());
    }
}

/// Label/value rows without the ones that have nothing to say.
pub(super) fn facts<'a>(
    rows: impl IntoIterator<Item = (&'a str, String)>,
) -> Vec<(String, String)> {
    rows.into_iter()
        .filter(|(_, v)| !v.trim().is_empty())
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// This run's own facts: under what load it ran, how long and why it stopped, its log and
/// whatever else its source recorded. What it shares with other runs of its machine is on its [`EnvPage`].
pub(super) fn own_facts(r: &RunRecord) -> Vec<(String, String)> {
    let inc = &r.environment.incidental;
    let sm = &r.summary;
    let src = &r.source;
    // `{:.2}` each, without the exact float path (`format::fixed`).
    let load = |l: &Option<[f64; 3]>| {
        let mut s = String::new();
        for (i, x) in l.iter().flatten().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            format::fixed_into(&mut s, *x, 2);
        }
        s
    };
    facts([
        ("load average at start / end", {
            let (a, b) = (load(&inc.loadavg_start), load(&inc.loadavg_end));
            if a.is_empty() && b.is_empty() {
                String::new()
            } else {
                format!("{a} / {b}")
            }
        }),
        (
            "rounds, duration",
            // Absent, not zero: most imported logs never say how long they ran.
            format!(
                "{}, {}",
                sm.rounds,
                sm.duration_s
                    .map(|d| format::fixed(d, 1) + " s")
                    .unwrap_or_else(|| "duration not recorded".to_string())
            ),
        ),
        (
            "stopped because",
            match sm.stop_reason {
                StopReason::Target => "every CI reached the target",
                StopReason::Budget => "the time budget was spent",
                StopReason::Complete => "one pass per scenario",
            }
            .to_string(),
        ),
        ("log SHA-256", opt(&src.text_sha256)),
        ("note", opt(&src.note)),
    ])
    .into_iter()
    // What else the source recorded (an import's calibration time, its totals) is the run's.
    .chain(inc.other.iter().map(|(k, v)| (k.clone(), v.clone())))
    .collect()
}

/// What a run shares with the other runs of its machine, usually: the machine's facts beyond
/// the lead line (what decides comparability, and what was incidental), the settings, and the
/// tool. The kernel command line, configuration and mitigation texts are in the raw record.
pub(super) fn shared_facts(r: &RunRecord, info: &RunInfo) -> Vec<(String, String)> {
    let c = &r.environment.comparability;
    let cpu = &c.cpu;
    let inc = &r.environment.incidental;
    let s = &r.settings;
    let src = &r.source;
    let num = |x: Option<u32>| x.map(|x| x.to_string()).unwrap_or_default();
    let method = match src.method {
        Method::Interleaved => "interleaved rounds, paired differences",
        Method::Sequential => "sequential (the kernel seccomp_benchmark method)",
        Method::External => "as done by the imported tool",
    };
    let mut rows = facts([
        ("microcode", opt(&cpu.microcode)),
        (
            "logical CPUs / cores / SMT",
            format!(
                "{} / {} / {}",
                num(cpu.logical_cpus),
                num(cpu.physical_cores),
                cpu.smt
                    .map(|x| if x { "on" } else { "off" })
                    .unwrap_or_default()
            ),
        ),
        (
            "CPU vulnerabilities",
            info.series.mitigations.replace('\n', "; "),
        ),
        ("cost-relevant boot parameters", info.series.flags.clone()),
        (
            "BPF JIT enable / harden",
            match (&c.bpf_jit_enable, &c.bpf_jit_harden) {
                (None, None) => String::new(),
                (a, b) => format!("{} / {}", opt(a), opt(b)),
            },
        ),
        ("machine", opt(&inc.machine_hash)),
        ("clock source", opt(&inc.clocksource)),
        ("CPU governor", opt(&inc.governor)),
        ("confidence", format!("{}%", s.confidence * 100.0)),
        (
            "budget / CI target",
            match (s.budget_s, s.target_ci_pct) {
                (None, None) => String::new(),
                (b, t) => format!(
                    "{} / {}",
                    b.map(|b| format!("{b} s")).unwrap_or_default(),
                    t.map(|t| format!("±{t} %")).unwrap_or_default()
                ),
            },
        ),
        ("pinned CPU", num(s.cpu)),
        (
            "sample length",
            s.sample_ms.map(|b| format!("{b} ms")).unwrap_or_default(),
        ),
        ("only", s.only.join(", ")),
        ("skip", s.skip.join(", ")),
        ("source", provenance_text(src)),
        ("tool", src.tool.clone()),
        ("commit", opt(&src.commit)),
        ("method", method.to_string()),
        ("log format", opt(&src.format)),
        ("schema", r.schema.to_string()),
    ]);
    rows.retain(|(_, v)| v != " /  / ");
    rows
}

pub(super) fn provenance_text(src: &Source) -> String {
    match src.kind {
        SourceKind::Collected => format!("collected by {}", src.tool),
        SourceKind::Import => format!(
            "imported by {} from a published log{}",
            src.tool,
            src.format
                .as_ref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default()
        ),
        SourceKind::Synthetic => {
            format!("generated by {} (synthetic, not a measurement)", src.tool)
        }
    }
}

/// How the kernel is known when the log itself does not print it.
pub(super) fn stated_kernel(r: &RunRecord) -> Option<&'static str> {
    let k = r.source.stated.as_ref()?.kernel.as_ref()?;
    Some(if k.approximate {
        "stated only approximately by the source: a version of its own, never the point of a measured one"
    } else {
        "as stated by the source"
    })
}

/// The facts the source of an imported log states outside the log.
pub(super) fn stated(r: &RunRecord) -> Vec<(String, String)> {
    let Some(st) = &r.source.stated else {
        return Vec::new();
    };
    facts([
        (
            "kernel",
            st.kernel
                .as_ref()
                .map(|k| {
                    if k.approximate {
                        format!("around {} (approximate)", k.release)
                    } else {
                        k.release.clone()
                    }
                })
                .unwrap_or_default(),
        ),
        ("architecture", opt(&st.arch)),
        ("machine", opt(&st.machine)),
        ("date", opt(&st.date)),
        ("where the source says so", opt(&st.stated_in)),
    ])
}
