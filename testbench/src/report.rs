//! Reports a CI system can read: every check of a run is a [`Case`] (a JUnit test case), and
//! each command's JSON document is a serde struct with stable field names (docs/reports.md).

use serde::Serialize;
use std::io::Write;
use std::path::Path;

pub use baser_engine::case::{Case, Outcome};

/// Writes the cases as one JUnit XML test suite named `suite`.
///
/// # Errors
/// The file cannot be written.
pub fn write_junit(path: &Path, suite: &str, cases: &[Case]) -> std::io::Result<()> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut ts = TestSuite::new(suite);
    for c in cases {
        let status = match (&c.outcome, &c.message) {
            (Outcome::Pass, _) => TestCaseStatus::success(),
            (Outcome::Fail, message) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_type("divergence");
                if let Some(m) = message {
                    s.set_message(m.as_str());
                }
                if let Some(d) = &c.detail {
                    s.set_description(d.as_str());
                }
                s
            }
        };
        let mut tc = TestCase::new(c.name.as_str(), status);
        tc.set_classname(format!("baser.{}", c.group));
        ts.add_test_case(tc);
    }
    let mut report = Report::new("baser");
    report.add_test_suite(ts);
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    report
        .serialize(&mut f)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    f.flush()
}

/// Writes a JSON document, pretty-printed.
///
/// # Errors
/// The file cannot be written.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    serde_json::to_writer_pretty(&mut f, value).map_err(std::io::Error::other)?;
    writeln!(f)?;
    f.flush()
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_has_one_testcase_per_case_and_failures_carry_the_message() {
        let dir = std::env::temp_dir().join(format!("baser-junit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.xml");
        let cases = [
            Case::pass("frames", "frame 0 (60 octets)"),
            Case::fail(
                "pcs",
                "no errored blocks",
                "2 blocks entered RX_E",
                Some("block 7: RX_D --C--> RX_E".into()),
            ),
        ];
        write_junit(&path, "baser check", &cases).unwrap();
        let xml = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            xml.contains(
                r#"<testsuite name="baser check" tests="2" skipped="0" errors="0" failures="1">"#
            ),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testcase name="frame 0 (60 octets)" classname="baser.frames""#),
            "{xml}"
        );
        assert!(xml.contains(r#"<failure message="2 blocks entered RX_E" type="divergence">block 7: RX_D --C--&gt; RX_E</failure>"#), "{xml}");
    }

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
