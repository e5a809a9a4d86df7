//! The formats the importer reads, by name.

/// Which benchmark's output a log holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Try every parser and keep what each finds.
    Auto,
    /// tools/testing/selftests/seccomp/seccomp_benchmark.
    KselftestSeccomp,
    /// tools/testing/selftests/syscall_user_dispatch/sud_benchmark.
    KselftestSud,
    /// tools/testing/selftests/bpf/bench trig-*.
    BpfBench,
    /// perf bench syscall.
    PerfBench,
}

impl Format {
    /// The formats that have a parser, in the order `auto` tries them.
    pub const PARSERS: [Format; 4] = [
        Format::KselftestSeccomp,
        Format::KselftestSud,
        Format::BpfBench,
        Format::PerfBench,
    ];

    /// The format's name: `source.format` of its records and the `--format` value.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::KselftestSeccomp => "kselftest-seccomp",
            Format::KselftestSud => "kselftest-sud",
            Format::BpfBench => "bpf-bench",
            Format::PerfBench => "perf-bench",
        }
    }

    /// What printed the output, for messages ("no {tool} result found"); for `Auto`, any
    /// benchmark the importer supports.
    pub const fn tool(self) -> &'static str {
        match self {
            Format::Auto => "supported benchmark",
            Format::KselftestSeccomp => "seccomp_benchmark",
            Format::KselftestSud => "sud_benchmark",
            Format::BpfBench => "BPF trigger bench",
            Format::PerfBench => "perf bench syscall",
        }
    }

    /// The parsers a log of this format goes through: its own, or all of them for `Auto`.
    pub fn parsers(self) -> Vec<Format> {
        Format::PARSERS
            .into_iter()
            .filter(|&f| self == Format::Auto || f == self)
            .collect()
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
