//! `baser check --xgmii IN.xgmii --dut DUT.b66`: the PCS-only check. The files are read here;
//! the comparison is the engine's [`PcsChecker`].

use crate::format::b66::{B66Reader, Scrambling};
use crate::format::xgmii::XgmiiReader;
use crate::format::InputError;
use crate::report::Case;
use baser_engine::pcs_check::{BlockDivergence, PcsCheckCounts, PcsChecker};
use baser_engine::Profile;
use serde::Serialize;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// What to compare.
#[derive(Clone, Debug)]
pub struct PcsCheckOptions {
    /// The XGMII input both sides were given.
    pub xgmii: PathBuf,
    /// The DUT's blocks.
    pub dut: PathBuf,
    /// Compatibility profile of the model.
    pub profile: Profile,
    /// Leading DUT blocks to skip (pipeline latency of the dump).
    pub dut_offset: u64,
    /// How many divergences to keep in detail.
    pub max_report: usize,
}

/// The JSON document of a PCS check (fields documented in docs/reports.md).
#[derive(Clone, Debug, Serialize)]
pub struct PcsCheckReport {
    /// `"pcs"`.
    pub check: &'static str,
    /// `"pass"` or `"fail"`.
    pub verdict: &'static str,
    /// The XGMII input.
    pub xgmii: String,
    /// The DUT file.
    pub dut: String,
    /// Profile used.
    pub profile: String,
    /// Whether the DUT file was scrambled, and the descrambler's start state.
    pub dut_scrambled: bool,
    /// The counts.
    #[serde(flatten)]
    pub counts: PcsCheckCounts,
    /// The first divergences, at most `max_report`.
    pub divergences: Vec<BlockDivergence>,
}

/// Runs the check.
///
/// # Errors
/// An input cannot be read or parsed.
pub fn run(opt: &PcsCheckOptions) -> Result<(PcsCheckReport, Vec<Case>), InputError> {
    let open = |p: &Path| {
        std::fs::File::open(p)
            .map(|f| BufReader::with_capacity(1 << 16, f))
            .map_err(|e| InputError::io(p, &e))
    };
    let input = XgmiiReader::new(open(&opt.xgmii)?, &opt.xgmii);
    let mut dut = B66Reader::new(open(&opt.dut)?, &opt.dut)?;
    let header = dut.header();
    let scrambled = header.scrambling == Scrambling::Scrambled;
    let mut check = PcsChecker::new(
        opt.profile,
        scrambled,
        header.scrambler_state,
        opt.max_report,
    );
    for _ in 0..opt.dut_offset {
        match dut.next() {
            None => break,
            Some(b) => check.skip_dut(b?),
        }
    }
    for word in input {
        let word = word?;
        let block = dut.next().transpose()?;
        check.push(word, block, dut.line_no());
    }
    for b in dut.by_ref() {
        check.extra_dut(b?);
    }
    let counts = check.counts;
    let mut cases = Vec::new();
    // The verdict comes from the counts; the divergence list only adds detail (it may be
    // empty with --max-report 0).
    match (counts.blocks_divergent, check.divergences.first()) {
        (0, _) => cases.push(Case::pass("pcs", "blocks bit exact")),
        (n, Some(d)) => cases.push(Case::fail(
            "pcs",
            "blocks bit exact",
            format!(
                "{n} of {} blocks differ; first at block {} (DUT line {}), {}",
                counts.blocks_compared, d.block, d.dut_line, d.field
            ),
            Some(format!(
                "input  {}  ({})\nmodel  {}   {}\nDUT    {}",
                d.input, d.input_lanes, d.model, d.tx_arrow, d.dut
            )),
        )),
        (n, None) => cases.push(Case::fail(
            "pcs",
            "blocks bit exact",
            format!(
                "{n} of {} blocks differ (details not kept: --max-report 0)",
                counts.blocks_compared
            ),
            None,
        )),
    }
    if counts.dut_missing_blocks + counts.dut_extra_blocks == 0 {
        cases.push(Case::pass("pcs", "stream length"));
    } else {
        cases.push(Case::fail(
            "pcs",
            "stream length",
            format!(
                "input has {} transfers, DUT has {} blocks after skipping {}",
                check.transfers(),
                counts.blocks_compared + counts.dut_extra_blocks,
                opt.dut_offset
            ),
            None,
        ));
    }
    let rep = PcsCheckReport {
        check: "pcs",
        verdict: if counts.passed() { "pass" } else { "fail" },
        xgmii: opt.xgmii.display().to_string(),
        dut: opt.dut.display().to_string(),
        profile: opt.profile.name().into(),
        dut_scrambled: scrambled,
        counts,
        divergences: check.divergences,
    };
    Ok((rep, cases))
}
