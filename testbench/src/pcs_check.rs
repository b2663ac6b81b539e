//! `baser check --xgmii IN.xgmii --dut DUT.b66`: the PCS-only check. The files are read here;
//! the comparison is the engine's [`PcsChecker`].

use crate::report::Case;
pub use baser_engine::pcs_check::WindowBlock;
use baser_engine::pcs_check::{
    find_latency, latency_starts, BlockDivergence, PcsCheckCounts, PcsChecker,
};
use baser_engine::Profile;
use baser_files::b66::{B66Reader, Scrambling};
use baser_files::xgmii::XgmiiReader;
use baser_files::InputError;
use pcs_core::{Block, XgmiiWord};
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
    /// Leading DUT blocks to skip (pipeline latency of the dump); None: found by search.
    pub dut_offset: Option<u64>,
    /// Reset fill is not skipped.
    pub strict_start: bool,
    /// How many divergences to keep in detail.
    pub max_report: usize,
    /// Keep the blocks around the first divergence ([`PcsCheckReport::window`], for the HTML
    /// report).
    pub window: bool,
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
    /// DUT blocks skipped before the compared window: its latency (`dut_offset`), and whether
    /// it was found by search (`true`) or given.
    pub dut_offset: u64,
    /// The offset was found by searching 0..=64 blocks.
    pub dut_offset_found: bool,
    /// Leading all-zero blocks with header 0 skipped as reset fill.
    pub dut_reset_fill_blocks: u64,
    /// The first divergences, at most `max_report`.
    pub divergences: Vec<BlockDivergence>,
    /// The blocks around the first divergence (with [`PcsCheckOptions::window`]; not in the
    /// JSON).
    #[serde(skip)]
    pub window: Vec<WindowBlock>,
}

/// Input transfers (and DUT blocks beyond them) read ahead to find the DUT's latency.
const SEARCH_WINDOW: usize = 16_384;
/// Largest latency searched, blocks.
const MAX_LATENCY: usize = 64;

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
    let mut input = XgmiiReader::new(open(&opt.xgmii)?, &opt.xgmii);
    let mut dut = B66Reader::new(open(&opt.dut)?, &opt.dut)?;
    let header = dut.header();
    let scrambled = header.scrambling == Scrambling::Scrambled;
    // Reset fill: leading all-zero blocks with header 0, skipped (their lines still count).
    let reset_fill = Block {
        sync: pcs_core::SyncHeader::from_bits(0),
        payload: 0,
    };
    let mut fill = 0u64;
    let mut first = None;
    for b in dut.by_ref() {
        let b = b?;
        if !opt.strict_start && b == reset_fill {
            fill += 1;
            continue;
        }
        first = Some((b, dut.line_no()));
        break;
    }
    // Read ahead: the input's first transfers (those the DUT got in reset included) and the
    // DUT's first blocks after the fill.
    let mut ahead_in: Vec<XgmiiWord> = Vec::new();
    for w in input.by_ref().take(SEARCH_WINDOW + fill as usize) {
        ahead_in.push(w?);
    }
    let mut ahead_dut: Vec<(Block, u64)> = first.into_iter().collect();
    while ahead_dut.len() < SEARCH_WINDOW + MAX_LATENCY {
        let Some(b) = dut.next() else {
            break;
        };
        ahead_dut.push((b?, dut.line_no()));
    }
    let (offset, found) = match opt.dut_offset {
        Some(k) => (k, false),
        None => {
            let blocks: Vec<Block> = ahead_dut.iter().map(|(b, _)| *b).collect();
            let found = find_latency(
                opt.profile,
                &ahead_in,
                &blocks,
                fill as usize,
                scrambled,
                MAX_LATENCY,
            );
            (found.map_or(0, |(k, _)| k), found.is_some())
        }
    };
    let (in_skip, dut_skip) = latency_starts(offset as usize, fill as usize);
    let mut check = PcsChecker::new(
        opt.profile,
        scrambled,
        header.scrambler_state,
        opt.max_report,
    );
    check.allow_shortfall(offset);
    check.skip_input(in_skip as u64);
    if opt.window {
        check.keep_window();
    }
    let mut dut_blocks = ahead_dut.into_iter().map(Ok).chain(std::iter::from_fn(|| {
        dut.next().map(|b| b.map(|b| (b, dut.line_no())))
    }));
    for _ in 0..dut_skip {
        match dut_blocks.next() {
            None => break,
            Some(b) => {
                check.skip_dut(b?.0);
            }
        }
    }
    let words = ahead_in.into_iter().skip(in_skip).map(Ok).chain(input);
    for word in words {
        let word = word?;
        match dut_blocks.next().transpose()? {
            Some((b, line)) => check.push(word, Some(b), line),
            None => check.push(word, None, 0),
        }
    }
    for b in dut_blocks {
        check.extra_dut(b?.0);
    }
    let cases = cases_of(&check, offset, fill);
    let counts = check.counts;
    let rep = PcsCheckReport {
        check: "pcs",
        verdict: if counts.passed() { "pass" } else { "fail" },
        xgmii: opt.xgmii.display().to_string(),
        dut: opt.dut.display().to_string(),
        profile: opt.profile.name().into(),
        dut_scrambled: scrambled,
        counts,
        dut_offset: offset,
        dut_offset_found: found,
        dut_reset_fill_blocks: fill,
        window: check.take_window(),
        divergences: check.divergences,
    };
    Ok((rep, cases))
}

/// The check's cases: blocks bit exact, and the stream's length. The verdict comes from the
/// counts; the divergence list only adds detail (it may be empty with --max-report 0).
fn cases_of(check: &PcsChecker, offset: u64, fill: u64) -> Vec<Case> {
    let counts = check.counts;
    let mut cases = Vec::new();
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
    if counts.length_ok() {
        cases.push(Case::pass("pcs", "stream length"));
    } else {
        cases.push(Case::fail(
            "pcs",
            "stream length",
            format!(
                "input has {} transfers, DUT has {} blocks after skipping {offset}{}",
                check.transfers(),
                counts.blocks_compared + counts.dut_extra_blocks,
                if fill > 0 {
                    format!(" and {fill} blocks of reset fill")
                } else {
                    String::new()
                }
            ),
            None,
        ));
    }
    cases
}
