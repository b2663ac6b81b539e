//! The bit-exact PCS check: the model encodes the XGMII input the DUT was given; the DUT's
//! blocks must equal the model's bit for bit (after descrambling, when the DUT's are
//! scrambled). Streaming: one input transfer and one DUT block at a time.

use crate::describe;
use crate::profile::Profile;
use pcs_core::encode::Encoder;
use pcs_core::scramble::{Descrambler, DEFAULT_STATE};
use pcs_core::{Block, XgmiiWord};
use serde::Serialize;

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
    /// The input transfer's lanes, described.
    #[serde(skip)]
    pub input_lanes: String,
}

/// The counts of a PCS check so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PcsCheckCounts {
    /// Blocks compared.
    pub blocks_compared: u64,
    /// Blocks that differ.
    pub blocks_divergent: u64,
    /// Input transfers without a DUT block.
    pub dut_missing_blocks: u64,
    /// DUT blocks beyond the input.
    pub dut_extra_blocks: u64,
    /// Missing DUT blocks at the end that are not a failure: the DUT's latency (the last
    /// input transfers were still in its pipeline when the dump ended).
    pub latency_shortfall_allowed: u64,
    /// A DUT block compared by its sync header only, because it trained the descrambler (no
    /// scrambler state given and no DUT block before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trained_at: Option<u64>,
}

impl PcsCheckCounts {
    /// The verdict: every block equal and both streams equally long. Derived from the counts
    /// alone, never from what a report limit kept.
    pub fn passed(&self) -> bool {
        self.blocks_divergent == 0 && self.length_ok()
    }

    /// Both streams equally long, but for the DUT latency's shortfall.
    pub fn length_ok(&self) -> bool {
        self.dut_missing_blocks <= self.latency_shortfall_allowed && self.dut_extra_blocks == 0
    }
}

/// The streaming checker.
#[derive(Clone, Debug)]
pub struct PcsChecker {
    encoder: Encoder,
    descrambler: Option<Descrambler>,
    /// The next DUT block trains the descrambler (compared by its header only).
    train_next: bool,
    max_report: usize,
    index: u64,
    /// The counts.
    pub counts: PcsCheckCounts,
    /// The first divergences, at most `max_report`.
    pub divergences: Vec<BlockDivergence>,
}

impl PcsChecker {
    /// A checker; `dut_scrambled` with the descrambler's start state (`None`: unknown, the
    /// first DUT block, skipped or compared, trains it).
    pub fn new(
        profile: Profile,
        dut_scrambled: bool,
        scrambler_state: Option<u64>,
        max_report: usize,
    ) -> Self {
        Self {
            encoder: Encoder::new(profile.encoder()),
            descrambler: dut_scrambled
                .then(|| Descrambler::new(scrambler_state.unwrap_or(DEFAULT_STATE))),
            train_next: dut_scrambled && scrambler_state.is_none(),
            max_report,
            index: 0,
            counts: PcsCheckCounts::default(),
            divergences: Vec::new(),
        }
    }

    /// A DUT block before the compared window (its latency): not compared. With a given
    /// scrambler state it is descrambled (the state is the file's, before its first block);
    /// without one the first compared block trains the descrambler (blocks of a pipeline's
    /// reset state are no scrambled predecessors).
    pub fn skip_dut(&mut self, b: Block) {
        if self.train_next {
            return;
        }
        if let Some(d) = self.descrambler.as_mut() {
            d.descramble(b.payload);
        }
    }

    /// Allows `n` DUT blocks missing at the end (the DUT's latency).
    pub fn allow_shortfall(&mut self, n: u64) {
        self.counts.latency_shortfall_allowed = n;
    }

    /// One input transfer and the DUT's block for it (`None`: the DUT's stream ended);
    /// `dut_line` names the DUT's block in reports.
    pub fn push(&mut self, word: XgmiiWord, dut: Option<Block>, dut_line: u64) {
        let ev = self.encoder.step_event(word);
        match dut {
            None => self.counts.dut_missing_blocks += 1,
            Some(b) => {
                let training = std::mem::take(&mut self.train_next);
                let mut d = self.descramble(b);
                if training {
                    // The descrambler knows nothing before this block: its payload cannot be
                    // judged, its header can.
                    self.counts.trained_at = Some(self.index);
                    d.payload = ev.block.payload;
                }
                self.counts.blocks_compared += 1;
                if d != ev.block {
                    self.counts.blocks_divergent += 1;
                    if self.divergences.len() < self.max_report {
                        let bit = describe::differing_bit(ev.block.payload, d.payload);
                        self.divergences.push(BlockDivergence {
                            block: self.index,
                            dut_line,
                            input: word.to_string(),
                            model: describe::block(ev.block),
                            dut: describe::block(d),
                            tx_arrow: format!(
                                "{} --{}--> {}",
                                ev.from.name(),
                                ev.class.letter(),
                                ev.to.name()
                            ),
                            first_bit: bit,
                            field: match bit {
                                Some(b) => describe::field_of_bit(ev.block, b),
                                None => "sync header".into(),
                            },
                            input_lanes: describe::lanes(word),
                        });
                    }
                }
            }
        }
        self.index += 1;
    }

    /// A DUT block beyond the input.
    pub fn extra_dut(&mut self, b: Block) {
        self.train_next = false;
        self.descramble(b);
        self.counts.dut_extra_blocks += 1;
    }

    fn descramble(&mut self, b: Block) -> Block {
        match self.descrambler.as_mut() {
            Some(d) => Block {
                sync: b.sync,
                payload: d.descramble(b.payload),
            },
            None => b,
        }
    }

    /// Input transfers seen.
    pub fn transfers(&self) -> u64 {
        self.index
    }
}

/// Finds the DUT's latency: the offset `k` in `0..=max` at which `dut[k..]` equals the model's
/// encoding of `input` best (fewest differing blocks among those compared; when `scrambled`
/// the first compared block of each offset trains the descrambler). Returns the
/// offset and how many blocks differed there, or `None` when nothing could be compared.
pub fn find_latency(
    profile: Profile,
    input: &[XgmiiWord],
    dut: &[Block],
    scrambled: bool,
    max: usize,
) -> Option<(u64, u64)> {
    // Every offset is judged on the same number of blocks, so that a late offset with few
    // blocks left cannot win by comparing little.
    let max = max.min(dut.len() / 2);
    let window = input.len().min(dut.len().saturating_sub(max));
    if window < 2 {
        return None;
    }
    let mut best: Option<(u64, u64)> = None;
    for k in 0..=max {
        let mut c = PcsChecker::new(profile, scrambled, None, 0);
        let dut = dut.get(k..k + window).unwrap_or_default();
        for (w, b) in input.iter().zip(dut) {
            c.push(*w, Some(*b), 0);
        }
        let bad = c.counts.blocks_divergent;
        // Fewest divergent; among equals, the smallest offset.
        if best.is_none_or(|(_, b)| bad < b) {
            best = Some((k as u64, bad));
        }
        if bad == 0 {
            break;
        }
    }
    best
}

/// The `--blocks` comparison of a frame check: the model's encoding of the expected frames
/// against the DUT's (descrambled) blocks, aligned at the first start block of each.
#[derive(Clone, Debug, Serialize)]
pub struct BlockComparison {
    /// Index of the first start block in the model's stream and the DUT's (alignment).
    pub aligned_at: (u64, u64),
    /// Blocks compared after alignment.
    pub compared: u64,
    /// Blocks that differ.
    pub divergent: u64,
    /// The first divergence: block index in the DUT stream, both sides described.
    pub first: Option<(u64, String, String)>,
}

/// Encodes `expected` frames (without FCS) with the model and compares its unscrambled blocks
/// with the DUT's, aligned at the first start block of each.
///
/// # Errors
/// An expected frame the MAC cannot send (its index among `expected` and why).
pub fn compare_frame_blocks(
    expected: &[&[u8]],
    dut: &[Block],
    profile: Profile,
) -> Result<BlockComparison, (usize, crate::tx::TxError)> {
    use crate::tx::{TxChain, TxOptions, VecSink};
    let opt = TxOptions {
        mac: mac_core::tx::TxConfig {
            dic: profile.dic(),
            ..mac_core::tx::TxConfig::default()
        },
        profile,
        seed: DEFAULT_STATE,
        idle_blocks: 0,
    };
    let mut chain = TxChain::new(&opt, VecSink::default());
    for (i, e) in expected.iter().enumerate() {
        chain.frame(e, None).map_err(|m| (i, m))?;
    }
    let model = chain
        .finish()
        .map_err(|_| (expected.len(), crate::tx::TxError::Sink))?
        .0
        .blocks;
    let is_start =
        |b: &Block| pcs_core::block::decode_block(*b).class == pcs_core::BlockClass::Start;
    let m0 = model.iter().position(is_start).unwrap_or(0);
    let d0 = dut.iter().position(is_start).unwrap_or(0);
    let mut cmp = BlockComparison {
        aligned_at: (m0 as u64, d0 as u64),
        compared: 0,
        divergent: 0,
        first: None,
    };
    let pairs = model.iter().skip(m0).zip(dut.iter().skip(d0));
    for (k, (m, d)) in pairs.enumerate() {
        cmp.compared += 1;
        if m != d {
            cmp.divergent += 1;
            if cmp.first.is_none() {
                cmp.first = Some(((d0 + k) as u64, describe::block(*m), describe::block(*d)));
            }
        }
    }
    Ok(cmp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcs_core::pcs::PcsTx;

    #[test]
    fn the_latency_is_found_and_its_shortfall_allowed() {
        use crate::tx::{TxChain, TxOptions, VecSink};
        let mut c = TxChain::new(&TxOptions::default(), VecSink::default());
        for i in 0..20u8 {
            c.frame(&vec![i; 60 + usize::from(i) * 7], None).unwrap();
        }
        let sent = c.finish().unwrap().0;
        // A DUT 4 blocks late: 4 blocks of its reset state first, and the dump ends 4 blocks
        // early. Its scrambler state is unknown to the checker.
        let mut dut = vec![Block::IDLE; 4];
        dut.extend_from_slice(&sent.lines[..sent.lines.len() - 4]);
        assert_eq!(
            find_latency(Profile::Ieee, &sent.words[..300], &dut[..364], true, 64),
            Some((4, 0))
        );
        let mut chk = PcsChecker::new(Profile::Ieee, true, None, 10);
        for b in &dut[..4] {
            chk.skip_dut(*b);
        }
        chk.allow_shortfall(4);
        let mut rest = dut[4..].iter();
        for w in &sent.words {
            chk.push(*w, rest.next().copied(), 0);
        }
        assert_eq!(chk.counts.blocks_divergent, 0);
        assert_eq!(chk.counts.dut_missing_blocks, 4);
        assert!(chk.counts.passed());
        // One block short more than the latency fails.
        chk.counts.dut_missing_blocks += 1;
        assert!(!chk.counts.passed());
        // Without a skipped block, the first compared block trains the descrambler.
        let mut chk = PcsChecker::new(Profile::Ieee, true, None, 10);
        for (w, b) in sent.words.iter().zip(&sent.lines) {
            chk.push(*w, Some(*b), 0);
        }
        assert_eq!(chk.counts.trained_at, Some(0));
        assert!(chk.counts.passed());
    }

    #[test]
    fn the_verdict_comes_from_the_counts_even_with_no_detail_kept() {
        let words = [XgmiiWord::IDLE; 10];
        let mut enc = Encoder::new(Default::default());
        let mut blocks: Vec<Block> = words.iter().map(|w| enc.step_event(*w).block).collect();
        blocks[4].payload ^= 1 << 20;
        for keep in [0, 1, 10] {
            let mut c = PcsChecker::new(Profile::Ieee, false, None, keep);
            for (i, (w, b)) in words.iter().zip(&blocks).enumerate() {
                c.push(*w, Some(*b), i as u64 + 1);
            }
            assert_eq!(c.counts.blocks_divergent, 1);
            assert!(!c.counts.passed());
            assert_eq!(c.divergences.len(), keep.min(1));
        }
        // Scrambled: one line bit flip is three descrambled bit errors (x^39, x^58).
        let mut tx = PcsTx::new(Default::default(), DEFAULT_STATE);
        let mut line: Vec<Block> = words.iter().map(|w| tx.step(*w).0).collect();
        line[4].payload ^= 1 << 2;
        let mut c = PcsChecker::new(Profile::Ieee, true, None, 0);
        for (w, b) in words.iter().zip(&line) {
            c.push(*w, Some(*b), 0);
        }
        assert_eq!(c.counts.blocks_divergent, 1);
        // Equal streams pass; a missing block does not.
        let mut c = PcsChecker::new(Profile::Ieee, false, None, 10);
        let mut enc = Encoder::new(Default::default());
        for w in &words {
            c.push(*w, Some(enc.step_event(*w).block), 0);
        }
        assert!(c.counts.passed());
        c.push(XgmiiWord::IDLE, None, 0);
        assert!(!c.counts.passed());
    }
}
