//! The `baser` subcommands: argument structs and their implementations. `main.rs` only parses
//! and maps results to exit codes.

use crate::format::InputError;
use crate::pcs_check::PcsCheckReport;
use crate::report::{self, Case};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Verbosity from `--quiet` / `-v`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Output {
    /// Errors only.
    pub quiet: bool,
    /// Extra detail.
    pub verbose: u8,
}

/// Exit 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Exit 0.
    Pass,
    /// Exit 1: the DUT diverged (or a decoded stream held errors).
    Fail,
}

/// Exit 2: bad usage or unreadable input.
#[derive(Debug)]
pub enum Error {
    /// The command line does not make sense.
    Usage(String),
    /// An input file is unreadable or malformed.
    Input(InputError),
    /// An output file cannot be written.
    Output(PathBuf, std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(m) => write!(f, "{m}"),
            Self::Input(e) => write!(f, "{e}"),
            Self::Output(p, e) => write!(f, "{}: cannot write: {e}", p.display()),
        }
    }
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        Self::Input(e)
    }
}

/// What a stream file holds, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// pcap or pcapng frames.
    Frames,
    /// `.xgmii` text.
    Xgmii,
    /// `.b66` text.
    B66,
    /// `.bits` binary.
    Bits,
}

/// The kind of a file by its extension.
///
/// # Errors
/// An extension baser does not read.
pub fn kind_of(path: &Path) -> Result<Kind, Error> {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("pcap" | "pcapng" | "cap") => Ok(Kind::Frames),
        Some("xgmii") => Ok(Kind::Xgmii),
        Some("b66") => Ok(Kind::B66),
        Some("bits") => Ok(Kind::Bits),
        _ => Err(Error::Usage(format!(
            "{}: unknown file kind: expected .pcap, .pcapng, .xgmii, .b66 or .bits",
            path.display()
        ))),
    }
}

/// Where reports go.
#[derive(Clone, Debug, Default)]
pub struct Reports {
    /// JSON report file.
    pub json: Option<PathBuf>,
    /// JUnit XML file.
    pub junit: Option<PathBuf>,
    /// Divergences shown in detail.
    pub max_report: usize,
}

impl Reports {
    /// Writes the JSON and JUnit reports that were asked for.
    ///
    /// # Errors
    /// A report file cannot be written.
    pub fn write<T: serde::Serialize>(&self, suite: &str, json: &T, cases: &[Case]) -> Result<(), Error> {
        if let Some(p) = &self.json {
            report::write_json(p, json).map_err(|e| Error::Output(p.clone(), e))?;
        }
        if let Some(p) = &self.junit {
            report::write_junit(p, suite, cases).map_err(|e| Error::Output(p.clone(), e))?;
        }
        Ok(())
    }
}

/// Prints the PCS check's summary and writes its reports.
///
/// # Errors
/// A report file cannot be written.
pub fn finish_pcs_check(rep: &PcsCheckReport, cases: &[Case], reports: &Reports, out: Output) -> Result<Verdict, Error> {
    reports.write("baser check --xgmii", rep, cases)?;
    let failed = cases.iter().any(Case::failed);
    if !out.quiet {
        let stdout = std::io::stdout();
        let mut o = stdout.lock();
        let _ = writeln!(
            o,
            "baser check (PCS): {} -> model vs {} ({}, profile {})",
            rep.xgmii,
            rep.dut,
            if rep.dut_scrambled { "descrambled" } else { "unscrambled" },
            rep.profile
        );
        let _ = writeln!(
            o,
            "  {} blocks compared, {} differ; DUT missing {} blocks, extra {}",
            rep.blocks_compared, rep.blocks_divergent, rep.dut_missing_blocks, rep.dut_extra_blocks
        );
        let _ = report::write_failures(&mut o, cases, reports.max_report.max(1));
        for d in rep.divergences.iter().skip(1).take(reports.max_report.saturating_sub(1)) {
            let _ = writeln!(o, "  also block {} (DUT line {}): {}", d.block, d.dut_line, d.field);
        }
        let _ = writeln!(o, "{}", if failed { "FAIL" } else { "PASS" });
    }
    Ok(if failed { Verdict::Fail } else { Verdict::Pass })
}
