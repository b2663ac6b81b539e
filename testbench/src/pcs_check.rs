//! `baser check --xgmii IN.xgmii --dut DUT.b66`: the PCS-only check. The model encodes the
//! same XGMII input the DUT was given; the DUT's blocks must equal the model's bit for bit
//! (after descrambling, when the DUT's file is scrambled).

use crate::describe;
use crate::format::b66::{B66Reader, Scrambling};
use crate::format::xgmii::XgmiiReader;
use crate::format::InputError;
use crate::profile::Profile;
use crate::report::Case;
use pcs_core::encode::Encoder;
use pcs_core::scramble::{Descrambler, DEFAULT_STATE};
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
    /// Leading DUT blocks to skip (pipeline latency of the dump).
    pub dut_offset: u64,
    /// How many divergences to keep in detail.
    pub max_report: usize,
}

/// One divergent block.
#[derive(Clone, Debug, Serialize)]
pub struct BlockDivergence {
    /// 0-based block index (= 0-based transfer index of the input).
    pub block: u64,
    /// 1-based line of the DUT file.
    pub dut_line: u64,
    /// The input transfer, `.xgmii` form.
    pub input: String,
    /// The model's block, `.b66` form (unscrambled).
    pub model: String,
    /// The DUT's block, descrambled.
    pub dut: String,
    /// The transmit state machine's arrow for this block.
    pub tx_arrow: String,
    /// The first differing payload bit and the field it is in (absent when only the header
    /// differs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_bit: Option<u32>,
    /// The field holding the first differing bit.
    pub field: String,
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
    /// Blocks compared.
    pub blocks_compared: u64,
    /// Blocks that differ.
    pub blocks_divergent: u64,
    /// Input transfers without a DUT block.
    pub dut_missing_blocks: u64,
    /// DUT blocks beyond the input.
    pub dut_extra_blocks: u64,
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
    let mut input = XgmiiReader::new(open(&opt.xgmii)?, &opt.xgmii);
    let mut dut = B66Reader::new(open(&opt.dut)?, &opt.dut)?;
    let header = dut.header();
    let scrambled = header.scrambling == Scrambling::Scrambled;
    let mut descrambler = Descrambler::new(header.scrambler_state.unwrap_or(DEFAULT_STATE));
    let mut encoder = Encoder::new(opt.profile.encoder());
    let mut rep = PcsCheckReport {
        check: "pcs",
        verdict: "pass",
        xgmii: opt.xgmii.display().to_string(),
        dut: opt.dut.display().to_string(),
        profile: opt.profile.name().into(),
        dut_scrambled: scrambled,
        blocks_compared: 0,
        blocks_divergent: 0,
        dut_missing_blocks: 0,
        dut_extra_blocks: 0,
        divergences: Vec::new(),
    };
    let mut next_dut = |d: &mut B66Reader<_>| -> Result<Option<Block>, InputError> {
        match d.next() {
            None => Ok(None),
            Some(Err(e)) => Err(e),
            Some(Ok(b)) if scrambled => Ok(Some(Block {
                sync: b.sync,
                payload: descrambler.descramble(b.payload),
            })),
            Some(Ok(b)) => Ok(Some(b)),
        }
    };
    for _ in 0..opt.dut_offset {
        if next_dut(&mut dut)?.is_none() {
            break;
        }
    }
    let mut index = 0u64;
    for word in input.by_ref() {
        let word: XgmiiWord = word?;
        let ev = encoder.step_event(word);
        match next_dut(&mut dut)? {
            None => rep.dut_missing_blocks += 1,
            Some(d) => {
                rep.blocks_compared += 1;
                if d != ev.block {
                    rep.blocks_divergent += 1;
                    if rep.divergences.len() < opt.max_report {
                        let bit = describe::differing_bit(ev.block.payload, d.payload);
                        rep.divergences.push(BlockDivergence {
                            block: index,
                            dut_line: dut.line_no(),
                            input: word.to_string(),
                            model: describe::block(ev.block),
                            dut: describe::block(d),
                            tx_arrow: format!(
                                "{} --{:?}--> {}",
                                ev.from.name(),
                                ev.class,
                                ev.to.name()
                            ),
                            first_bit: bit,
                            field: match bit {
                                Some(b) => describe::field_of_bit(ev.block, b),
                                None => "sync header".into(),
                            },
                        });
                    }
                }
            }
        }
        index += 1;
    }
    while next_dut(&mut dut)?.is_some() {
        rep.dut_extra_blocks += 1;
    }
    let mut cases = Vec::new();
    match rep.divergences.first() {
        None => cases.push(Case::pass("pcs", "blocks bit exact")),
        Some(d) => cases.push(Case::fail(
            "pcs",
            "blocks bit exact",
            format!(
                "{} of {} blocks differ; first at block {} (DUT line {}), {}",
                rep.blocks_divergent, rep.blocks_compared, d.block, d.dut_line, d.field
            ),
            Some(format!(
                "input  {}  ({})\nmodel  {}   {}\nDUT    {}",
                d.input,
                describe::lanes(parse_word(&d.input)),
                d.model,
                d.tx_arrow,
                d.dut
            )),
        )),
    }
    if rep.dut_missing_blocks + rep.dut_extra_blocks == 0 {
        cases.push(Case::pass("pcs", "stream length"));
    } else {
        cases.push(Case::fail(
            "pcs",
            "stream length",
            format!(
                "input has {} transfers, DUT has {} blocks after skipping {}",
                index,
                rep.blocks_compared + rep.dut_extra_blocks,
                opt.dut_offset
            ),
            None,
        ));
    }
    if cases.iter().any(Case::failed) {
        rep.verdict = "fail";
    }
    Ok((rep, cases))
}

fn parse_word(s: &str) -> XgmiiWord {
    crate::format::xgmii::parse_line(s.as_bytes()).unwrap_or_default()
}
