//! `baser gen --suite DIR`: the conformance catalogue written for a bench that cannot run
//! the Python package (a SystemVerilog bench replays it through the DPI-C package): per case
//! its line or frames and its expected outcome, and `index.json` (`baser_files::suite`).

use crate::command::{Error, Output, Verdict};
use baser_engine::conformance::{self, Kind, Params};
use baser_engine::fec::{Fec, Rate};
use std::path::Path;

/// What `--suite` takes from the rest of `gen`'s options.
pub struct SuiteArgs<'a> {
    /// The folder.
    pub dir: &'a Path,
    /// The cases (empty: all).
    pub cases: &'a [String],
    /// The line rate and FEC (10g, none: the catalogue's line).
    pub rate: Rate,
    /// The FEC below the PCS.
    pub fec: Fec,
    /// The receiver's largest good frame, FCS included.
    pub max_frame_length: u16,
    /// The DUT's BER timer in blocks (None: the standard's at the rate).
    pub ber_window_blocks: Option<usize>,
    /// The DUT's PRBS31 is the complement of the LFSR's output.
    pub prbs31_inverted: bool,
}

/// Writes the suite.
///
/// # Errors
/// A FEC (the catalogue is BASE-R without a FEC so far), a BER timer the cases cannot take,
/// an unknown case or one of another rate, a folder that cannot be written.
pub fn suite(a: &SuiteArgs<'_>, out: Output) -> Result<Verdict, Error> {
    if a.fec != Fec::None {
        return Err(Error::Usage(format!(
            "--suite with --fec {}: the catalogue's cases are BASE-R without a FEC so far (--fec none)",
            a.fec
        )));
    }
    let params = Params {
        max_frame_length: usize::from(a.max_frame_length),
        ber_window_blocks: a
            .ber_window_blocks
            .unwrap_or(conformance::standard_ber_window_blocks(a.rate)),
        rate: a.rate,
        prbs31_inverted: a.prbs31_inverted,
    };
    let window = |e: String| {
        Error::Usage(format!(
            "--ber-window-blocks {}: {e}",
            params.ber_window_blocks
        ))
    };
    params.ber_timer().map_err(window)?;
    let chosen = conformance::cases_at(a.rate)
        .filter(|c| a.cases.is_empty() || a.cases.iter().any(|n| n == c.name));
    for c in chosen.filter(|c| !c.standard_ber_timer) {
        conformance::applies(c, &params).map_err(|e| window(format!("{}: {e}", c.name)))?;
    }
    let made_by = format!(
        "made by baser {} gen --suite (the conformance catalogue, docs/conformance.md)",
        env!("CARGO_PKG_VERSION")
    );
    let index = baser_files::suite::write(a.dir, a.cases, &params, &made_by).map_err(|e| {
        if e.message.starts_with("no case") {
            Error::Usage(format!("--cases: {}", e.message))
        } else {
            Error::Input(e)
        }
    })?;
    if !out.quiet {
        let count = |p: &dyn Fn(&baser_files::suite::SuiteCase) -> bool| {
            index.cases.iter().filter(|c| p(c)).count()
        };
        let rx = count(&|c| c.kind == Kind::Rx && !c.test_pattern);
        let tx = count(&|c| c.kind == Kind::Tx && !c.test_pattern);
        let pattern = count(&|c| c.test_pattern);
        println!(
            "baser gen --suite: {} cases at {} ({rx} receive, {tx} transmit, {pattern} test-pattern) -> {}",
            index.cases.len(),
            index.rate,
            a.dir.join("index.json").display()
        );
        for c in &index.cases {
            println!("  {:24} {:28} {}", c.name, c.clause, c.stream);
        }
    }
    Ok(Verdict::Pass)
}
