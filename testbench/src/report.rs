//! The command's human summary of a run's [`Case`]s; the JSON and JUnit writers are the files
//! crate's ([`baser_files::report`]), re-exported here for the commands.

use baser_engine::fec::FecSummary;
use std::io::Write;

pub use baser_files::report::{write_json, write_junit, write_junit_with, Case, Outcome};

/// Writes the human summary of the failing cases: at most `limit` of them, with detail.
pub fn write_failures(out: &mut impl Write, cases: &[Case], limit: usize) -> std::io::Result<()> {
    let failed: Vec<&Case> = cases.iter().filter(|c| c.failed()).collect();
    for c in failed.iter().take(limit) {
        writeln!(
            out,
            "FAIL {}: {}: {}",
            c.group,
            c.name,
            c.message.as_deref().unwrap_or("")
        )?;
        if let Some(d) = &c.detail {
            for line in d.lines() {
                writeln!(out, "     {line}")?;
            }
        }
    }
    if failed.len() > limit {
        writeln!(
            out,
            "... and {} more failures (raise --max-report, or see --json)",
            failed.len() - limit
        )?;
    }
    Ok(())
}

/// With `-v`: one `PASS group: name` line per passing case (the failures follow from
/// [`write_failures`]).
///
/// # Errors
/// The writer failed.
pub fn write_passes(out: &mut impl Write, cases: &[Case]) -> std::io::Result<()> {
    for c in cases.iter().filter(|c| !c.failed()) {
        writeln!(out, "PASS {}: {}", c.group, c.name)?;
    }
    Ok(())
}

/// The FEC's counts in one line (decode's and check's text summaries).
pub fn fec_line(f: &FecSummary) -> String {
    let unit = f.kind.unit();
    let lock = match f.lock.acquired_at_bit {
        Some(b) if f.lock.offline => format!(
            "lock at bit {b} (offline: boundary found first, held from there), {} loss(es)",
            f.lock.losses
        ),
        Some(b) => format!("lock at bit {b}, {} loss(es)", f.lock.losses),
        None => "NO LOCK".to_string(),
    };
    let symbols = f
        .corrected_symbols
        .map_or(String::new(), |s| format!("{s} symbols, "));
    format!(
        "fec: {} ({}): {lock}; {} {unit}s, {} corrected ({symbols}{} bits), {} uncorrectable{}",
        f.kind,
        f.clause,
        f.codewords,
        f.corrected_codewords,
        f.corrected_bits,
        f.uncorrected_codewords,
        f.hi_ser_episodes
            .filter(|&h| h > 0)
            .map_or(String::new(), |h| format!(", hi_ser {h} time(s)"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_summary_is_limited() {
        let cases: Vec<Case> = (0..5)
            .map(|i| Case::fail("frames", format!("frame {i}"), "missing", None))
            .collect();
        let mut out = Vec::new();
        write_failures(&mut out, &cases, 2).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text, "FAIL frames: frame 0: missing\nFAIL frames: frame 1: missing\n... and 3 more failures (raise --max-report, or see --json)\n");
    }
}
