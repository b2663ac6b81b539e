//! Reports a CI system can read: every check of a run is a [`Case`] (a JUnit test case), and
//! each command's JSON document is a serde struct with stable field names (docs/reports.md).
//! The writers of both, for every door.

use serde::Serialize;
use std::io::Write;
use std::path::Path;

pub use baser_engine::case::{Case, Outcome};

/// Writes the cases as one JUnit XML test suite named `suite`.
///
/// # Errors
/// The file cannot be written.
pub fn write_junit(path: &Path, suite: &str, cases: &[Case]) -> std::io::Result<()> {
    write_junit_with(path, suite, cases, &[])
}

/// As [`write_junit`], the suite with `properties` (name, value: the run's counters, as the
/// FEC's `fec.corrected_codewords`).
///
/// # Errors
/// The file cannot be written.
pub fn write_junit_with(
    path: &Path,
    suite: &str,
    cases: &[Case],
    properties: &[(String, String)],
) -> std::io::Result<()> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut ts = TestSuite::new(suite);
    ts.add_properties(properties.iter().map(|(k, v)| (k.as_str(), v.as_str())));
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
}
