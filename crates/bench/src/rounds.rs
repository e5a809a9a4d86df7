//! The build ÷ floor ratio over rounds, as an interval: one build beside one floor is a draw
//! from a noisy machine (on the 2-vCPU machine the figures in docs/benchmarks.md come from, one
//! binary's ratio ranged 2.4–3.5× within two hours), so `site-bench ratio` measures several
//! rounds and states the median ratio with a distribution-free confidence interval, and
//! whether a goal is met, missed, or not decided by the rounds made.

/// The median of some values with the order-statistic interval around it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub median: f64,
    pub low: f64,
    pub high: f64,
    /// The interval's exact coverage of the true median (≥ the level asked for).
    pub coverage: f64,
    pub n: usize,
}

/// The median of `values` and the narrowest order-statistic interval `[x(l), x(n+1−l)]` whose
/// coverage of the true median is at least `level`: the count of values below the true median
/// is Binomial(n, ½) whatever the distribution, so the coverage is `1 − 2·P(B ≤ l − 1)`. None
/// when no interval reaches the level (fewer than 6 values at 95 %) or a value is not finite.
/// The interval is `syscost_stats::median`'s, the one every crate uses.
pub fn median_interval(values: &[f64], level: f64) -> Option<Interval> {
    use syscost_stats::median::{coverage, lower_rank, median_ci_in};
    if values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let median = median(values)?;
    let n = values.len();
    let l = lower_rank(n, level)?;
    let (low, high) = median_ci_in(&mut values.to_vec(), level)?;
    Some(Interval {
        median,
        low,
        high,
        coverage: coverage(n, l),
        n,
    })
}

/// The median of `values` (the mean of the middle two of an even count); None for none.
pub fn median(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| syscost_stats::median::median(values))
}

/// Whether a ratio is within a goal, by its interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval is at or below the goal.
    Met,
    /// The whole interval is above it.
    Missed,
    /// The interval has the goal inside: more rounds, or a quieter machine, may decide.
    Undecided,
}

impl Verdict {
    pub fn of(iv: &Interval, goal: f64) -> Verdict {
        if iv.high <= goal {
            Verdict::Met
        } else if iv.low > goal {
            Verdict::Missed
        } else {
            Verdict::Undecided
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "missed",
            Verdict::Undecided => "undecided",
        }
    }
}

/// A round's ratio: `None` when the floor took no time the clock could see (that round is left
/// out, not given a made-up ratio).
pub fn ratio(build: f64, floor: f64) -> Option<f64> {
    (floor > 0.0).then(|| build / floor)
}

/// One round's ratio (`None`: left out, see [`ratio`]) and whether the floors ran before the
/// build in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    pub floors_first: bool,
    pub ratio: Option<f64>,
}

/// What `site-bench ratio` (or `pool`) says of one measure over its rounds: rounds left out,
/// the median with its 95 % interval and the verdict against `goal`, and each order's median.
pub fn report(what: &str, rounds: &[Round], goal: f64) -> Vec<String> {
    let mut out = Vec::new();
    let ratios: Vec<f64> = rounds.iter().filter_map(|r| r.ratio).collect();
    if ratios.len() < rounds.len() {
        out.push(format!(
            "{what}: {} of {} rounds left out (a floor too short to time)",
            rounds.len() - ratios.len(),
            rounds.len()
        ));
    }
    out.push(match median_interval(&ratios, 0.95) {
        Some(iv) => format!(
            "{what}: median {:.3}×, {:.1} % interval [{:.3}×, {:.3}×] over {} rounds; ≤ {goal}×: {}",
            iv.median,
            100.0 * iv.coverage,
            iv.low,
            iv.high,
            iv.n,
            Verdict::of(&iv, goal).word(),
        ),
        None => format!(
            "{what}: {} rounds are too few for a 95 % interval (6 at least); ≤ {goal}×: undecided",
            ratios.len()
        ),
    });
    // A drift over the rounds, or an effect of what ran just before, shows as a difference
    // between the two orders' medians.
    let by_order = |floors_first: bool| -> Vec<f64> {
        rounds
            .iter()
            .filter(|r| r.floors_first == floors_first)
            .filter_map(|r| r.ratio)
            .collect()
    };
    let (floors, builds) = (by_order(true), by_order(false));
    if let (Some(f), Some(b)) = (median(&floors), median(&builds)) {
        out.push(format!(
            "  by order: floors first median {f:.3}× ({} rounds), build first median {b:.3}× ({} rounds)",
            floors.len(),
            builds.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranks and coverages from the binomial tables (n = 6: l = 1, 1 − 2/64; n = 10: l = 2,
    /// 1 − 2·11/1024; n = 15: l = 4, 1 − 2·576/32768), on values given out of order.
    #[test]
    fn ranks_and_coverage_are_the_binomial_tables() {
        let v: Vec<f64> = [6.0, 1.0, 5.0, 2.0, 4.0, 3.0].to_vec();
        let iv = median_interval(&v, 0.95).unwrap();
        assert_eq!((iv.median, iv.low, iv.high, iv.n), (3.5, 1.0, 6.0, 6));
        assert!((iv.coverage - (1.0 - 2.0 / 64.0)).abs() < 1e-12);

        let v: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let iv = median_interval(&v, 0.95).unwrap();
        assert_eq!((iv.median, iv.low, iv.high), (5.5, 2.0, 9.0));
        assert!((iv.coverage - (1.0 - 22.0 / 1024.0)).abs() < 1e-12);

        let v: Vec<f64> = (1..=15).map(f64::from).collect();
        let iv = median_interval(&v, 0.95).unwrap();
        assert_eq!((iv.median, iv.low, iv.high), (8.0, 4.0, 12.0));
        assert!((iv.coverage - (1.0 - 2.0 * 576.0 / 32768.0)).abs() < 1e-12);
        assert!(iv.coverage >= 0.95);
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn too_few_or_broken_values_have_no_interval() {
        assert_eq!(median_interval(&[1.0; 5], 0.95), None);
        assert_eq!(median_interval(&[], 0.95), None);
        assert!(median_interval(&[1.0; 6], 0.95).is_some());
        assert_eq!(
            median_interval(&[1.0, 2.0, f64::NAN, 3.0, 4.0, 5.0], 0.95),
            None
        );
        // A lower level needs fewer values.
        assert!(median_interval(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.9).is_some());
    }

    /// Over many draws from a skewed distribution the interval holds the true median at least
    /// as often as it says (up to the draws' own noise).
    #[test]
    fn the_interval_covers_the_median_as_often_as_it_says() {
        let mut rng = syscost_synth::Rng::new(7);
        let (reps, n) = (4000, 11);
        // Exponential(1): median ln 2.
        let truth = std::f64::consts::LN_2;
        let mut hits = 0;
        let mut said = 0.0;
        for _ in 0..reps {
            let v: Vec<f64> = (0..n).map(|_| -(1.0 - rng.f()).ln()).collect();
            let iv = median_interval(&v, 0.95).unwrap();
            said = iv.coverage;
            hits += usize::from(iv.low <= truth && truth <= iv.high);
        }
        let seen = hits as f64 / reps as f64;
        // n = 11: l = 2, coverage 1 − 2·12/2048 ≈ 0.988; binomial noise of 4000 draws ≈ 0.002.
        assert!((said - (1.0 - 24.0 / 2048.0)).abs() < 1e-12);
        assert!((seen - said).abs() < 0.01, "seen {seen}, said {said}");
    }

    #[test]
    fn verdicts_decide_only_outside_the_interval() {
        let iv = |low, high| Interval {
            median: (low + high) / 2.0,
            low,
            high,
            coverage: 0.95,
            n: 10,
        };
        assert_eq!(Verdict::of(&iv(2.5, 2.9), 3.0), Verdict::Met);
        assert_eq!(Verdict::of(&iv(2.5, 3.0), 3.0), Verdict::Met);
        assert_eq!(Verdict::of(&iv(2.9, 3.1), 3.0), Verdict::Undecided);
        assert_eq!(Verdict::of(&iv(3.0, 3.1), 3.0), Verdict::Undecided);
        assert_eq!(Verdict::of(&iv(3.01, 3.4), 3.0), Verdict::Missed);
    }

    #[test]
    fn a_round_without_a_timed_floor_is_left_out_and_counted() {
        assert_eq!(ratio(6.0, 2.0), Some(3.0));
        assert_eq!(ratio(6.0, 0.0), None);
        // Seven rounds, the third's floor untimed: six ratios remain, 2.0 to 2.5.
        let alternating = |ratios: &[Option<f64>]| -> Vec<Round> {
            ratios
                .iter()
                .enumerate()
                .map(|(i, &ratio)| Round {
                    floors_first: i % 2 == 0,
                    ratio,
                })
                .collect()
        };
        let rounds = alternating(&[
            Some(2.0),
            Some(2.4),
            None,
            Some(2.1),
            Some(2.2),
            Some(2.5),
            Some(2.3),
        ]);
        let lines = report("cpu", &rounds, 3.0);
        assert_eq!(
            lines,
            [
                "cpu: 1 of 7 rounds left out (a floor too short to time)",
                "cpu: median 2.250×, 96.9 % interval [2.000×, 2.500×] over 6 rounds; ≤ 3×: met",
                // Floors first: rounds 1, 3 (left out), 5, 7; build first: 2, 4, 6.
                "  by order: floors first median 2.200× (3 rounds), build first median 2.400× (3 rounds)",
            ]
        );
        let lines = report("wall", &alternating(&[Some(3.5), None, Some(3.6)]), 3.0);
        assert_eq!(
            lines[0],
            "wall: 1 of 3 rounds left out (a floor too short to time)"
        );
        assert_eq!(
            lines[1],
            "wall: 2 rounds are too few for a 95 % interval (6 at least); ≤ 3×: undecided"
        );
        assert_eq!(lines.len(), 2, "no build-first round remains: {lines:?}");
    }
}
