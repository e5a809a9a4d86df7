//! `site-bench pool`: the rounds of several saved `site-bench ratio` outputs as one set. Sets
//! made hours apart guard better against the machine's drift than more rounds in one (a set's
//! rounds are not independent draws), so a verdict may be planned over several sets; this
//! states it with the same interval and verdict as `ratio` does, from what `ratio` printed.
//!
//! It reads the ratios as printed (three decimals): a pooled median can differ from one
//! computed from unrounded ratios in the third decimal.

use crate::rounds::Round;

/// The rounds of one saved `site-bench ratio` output.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    /// How many threads the wall floor (and the build) ran on, from the table's header.
    pub jobs: usize,
    pub cpu: Vec<Round>,
    pub wall: Vec<Round>,
}

/// Why a saved output cannot be pooled.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ParseError {
    #[error("line {line}: {why}")]
    Row { line: usize, why: RowError },
    #[error("no table of rounds (not what `site-bench ratio` prints)")]
    NoTable,
    #[error("no rounds in the table")]
    NoRounds,
}

/// What is wrong with one line of a saved output.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RowError {
    #[error("a header without the wall floor's thread count")]
    NoThreadCount,
    #[error("a second table")]
    SecondTable,
    #[error("a round before the table's header")]
    BeforeHeader,
    #[error("{0} cells, a round has 7")]
    Cells(usize),
    #[error("{0:?} ran first: neither \"floors\" nor \"build\"")]
    FirstRan(String),
    #[error("{0:?} is not a ratio (a number and ×, or —)")]
    NotRatio(String),
    #[error("{0:?} is not a ratio above 0")]
    NotPositive(String),
}

/// The cells of a table row `| a | b | … |`, trimmed; None for any other line.
fn cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

/// The thread count in the header's wall-floor column (`floor, 2 threads: wall`).
fn jobs_of(header: &[&str]) -> Option<usize> {
    let cell = header.get(3)?;
    let n = cell.strip_prefix("floor, ")?.split_once(' ')?.0;
    n.parse().ok().filter(|&n| n > 0)
}

/// A ratio cell: `2.781×`, or `—` for a round left out.
fn ratio_cell(cell: &str) -> Result<Option<f64>, RowError> {
    if cell == "—" {
        return Ok(None);
    }
    let v = cell
        .strip_suffix('×')
        .and_then(|n| n.parse::<f64>().ok())
        .ok_or_else(|| RowError::NotRatio(cell.to_string()))?;
    if v.is_finite() && v > 0.0 {
        Ok(Some(v))
    } else {
        Err(RowError::NotPositive(cell.to_string()))
    }
}

/// The rounds of `text`, what `site-bench ratio` printed (other lines, such as the summary or
/// notes around it, are ignored).
pub fn parse(text: &str) -> Result<Saved, ParseError> {
    // The thread count of the table's header, once it is read.
    let mut jobs: Option<usize> = None;
    let (mut cpu, mut wall) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        let row = |why: RowError| ParseError::Row { line: i + 1, why };
        let Some(c) = cells(line) else { continue };
        if c.first() == Some(&"round") {
            let n = jobs_of(&c).ok_or_else(|| row(RowError::NoThreadCount))?;
            if jobs.is_some() {
                return Err(row(RowError::SecondTable));
            }
            jobs = Some(n);
            continue;
        }
        // The separator row, or a row of another table.
        if c.first().is_none_or(|r| r.parse::<u32>().is_err()) {
            continue;
        }
        if jobs.is_none() {
            return Err(row(RowError::BeforeHeader));
        }
        if c.len() != 7 {
            return Err(row(RowError::Cells(c.len())));
        }
        let floors_first = match c[1] {
            "floors" => true,
            "build" => false,
            other => return Err(row(RowError::FirstRan(other.to_string()))),
        };
        cpu.push(Round {
            floors_first,
            ratio: ratio_cell(c[5]).map_err(row)?,
        });
        wall.push(Round {
            floors_first,
            ratio: ratio_cell(c[6]).map_err(row)?,
        });
    }
    let jobs = jobs.ok_or(ParseError::NoTable)?;
    if cpu.is_empty() {
        return Err(ParseError::NoRounds);
    }
    Ok(Saved { jobs, cpu, wall })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAVED: &str = "load average before: 0.56
| round | first | floor, 1 thread: CPU | floor, 2 threads: wall | build: CPU (wall) | ÷ floor: CPU | ÷ 2-thread floor: wall |
|---:|---|---:|---:|---:|---:|---:|
| 1 | floors | 12.95 s | 6.85 s | 34.82 s (18.49 s) | 2.689× | 2.698× |
| 2 | build | 13.32 s | 6.55 s | 36.01 s (19.20 s) | 2.702× | 2.929× |
| 3 | floors | 0.00 s | 6.78 s | 35.03 s (18.48 s) | — | 2.726× |
load average after: 1.38
build CPU ÷ 1-thread floor CPU: 2 rounds are too few for a 95 % interval (6 at least); ≤ 3×: undecided
";

    #[test]
    fn reads_each_rounds_order_and_ratios_and_keeps_left_out_rounds() {
        let s = parse(SAVED).unwrap();
        assert_eq!(s.jobs, 2);
        let r = |floors_first, ratio| Round {
            floors_first,
            ratio,
        };
        assert_eq!(
            s.cpu,
            [r(true, Some(2.689)), r(false, Some(2.702)), r(true, None)]
        );
        assert_eq!(
            s.wall,
            [
                r(true, Some(2.698)),
                r(false, Some(2.929)),
                r(true, Some(2.726))
            ]
        );
    }

    #[test]
    fn a_damaged_row_is_named_by_line_and_reason() {
        let broken = SAVED.replace("| 2.702× |", "| 2.702 |");
        assert_eq!(
            parse(&broken),
            Err(ParseError::Row {
                line: 5,
                why: RowError::NotRatio("2.702".to_string())
            })
        );
        let broken = SAVED.replace("| 2 | build |", "| 2 | both |");
        assert!(
            matches!(parse(&broken), Err(ParseError::Row { line: 5, why }) if why == RowError::FirstRan("both".to_string()))
        );
        let broken = SAVED.replace("| 2.698× |", "| 2.698× | 1 |");
        assert!(
            matches!(parse(&broken), Err(ParseError::Row { line: 4, why }) if why == RowError::Cells(8))
        );
        let broken = SAVED.replace("| 2.689× |", "| -2.689× |");
        assert!(
            matches!(parse(&broken), Err(ParseError::Row { line: 4, why }) if matches!(why, RowError::NotPositive(_)))
        );
    }

    #[test]
    fn text_without_rounds_is_refused() {
        assert_eq!(parse("nothing measured\n"), Err(ParseError::NoTable));
        let header_only: String = SAVED.lines().take(3).map(|l| format!("{l}\n")).collect();
        assert_eq!(parse(&header_only), Err(ParseError::NoRounds));
        let no_header: String = SAVED
            .lines()
            .filter(|l| !l.starts_with("| round"))
            .map(|l| format!("{l}\n"))
            .collect();
        // Line 2 is the separator; the first round, line 3, has no header above it.
        assert_eq!(
            parse(&no_header),
            Err(ParseError::Row {
                line: 3,
                why: RowError::BeforeHeader
            })
        );
        let twice = format!("{SAVED}{SAVED}");
        assert!(
            matches!(parse(&twice), Err(ParseError::Row { why, .. }) if why == RowError::SecondTable)
        );
    }
}
