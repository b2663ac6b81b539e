//! The bit-exact PCS check: the model encodes the XGMII input the DUT was given; the DUT's
//! blocks must equal the model's bit for bit (after descrambling, when the DUT's are
//! scrambled). Streaming: one input transfer and one DUT block at a time.

use crate::describe;
use crate::profile::Profile;
use crate::rx::RxSink;
use crate::tx::{TxBatch, TxChain, TxError, TxForms, TxOptions, TxSink};
use pcs_core::Encoder;
use pcs_core::{Block, XgmiiWord};
use pcs_core::{Descrambler, SCRAMBLER_DEFAULT_STATE};
use serde::Serialize;
use std::collections::HashMap;

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
/// One block of the window around the first divergence: the model's and the DUT's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowBlock {
    /// Block index (= input transfer index).
    pub block: u64,
    /// 1-based line of the DUT file (0: the DUT's stream had ended).
    pub dut_line: u64,
    /// The input transfer.
    pub input: XgmiiWord,
    /// The model's block (unscrambled).
    pub model: Block,
    /// The DUT's block, descrambled (`None`: its stream had ended); the block that trained
    /// the descrambler carries the model's payload (only its header is judged).
    pub dut: Option<Block>,
}

/// Blocks kept before and after the first divergent one ([`PcsChecker::keep_window`]).
pub const WINDOW_BLOCKS: usize = 3;

/// The blocks around the first divergence, as they are compared.
#[derive(Clone, Debug, Default)]
struct Window {
    kept: std::collections::VecDeque<WindowBlock>,
    /// Blocks still to keep after the first divergence (`None`: none seen yet).
    after: Option<usize>,
}

impl Window {
    fn push(&mut self, w: WindowBlock, divergent: bool) {
        if self.after == Some(0) {
            return;
        }
        self.kept.push_back(w);
        match self.after.as_mut() {
            Some(n) => *n -= 1,
            None if divergent => self.after = Some(WINDOW_BLOCKS),
            None => {
                if self.kept.len() > WINDOW_BLOCKS {
                    self.kept.pop_front();
                }
            }
        }
    }
}

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
    window: Option<Window>,
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
                .then(|| Descrambler::new(scrambler_state.unwrap_or(SCRAMBLER_DEFAULT_STATE))),
            train_next: dut_scrambled && scrambler_state.is_none(),
            max_report,
            index: 0,
            counts: PcsCheckCounts::default(),
            divergences: Vec::new(),
            window: None,
        }
    }

    /// Keeps the blocks around the first divergence ([`PcsChecker::take_window`]): for a
    /// report that shows them lane by lane.
    pub fn keep_window(&mut self) {
        self.window = Some(Window::default());
    }

    /// The blocks kept around the first divergence (empty when none diverged, or when
    /// [`PcsChecker::keep_window`] was not called).
    pub fn take_window(&mut self) -> Vec<WindowBlock> {
        match self.window.take() {
            Some(w) if w.after.is_some() => w.kept.into(),
            _ => Vec::new(),
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

    /// Input transfers the DUT received in reset: not encoded, not compared; the block
    /// numbers of reports stay input positions.
    pub fn skip_input(&mut self, n: u64) {
        self.index += n;
    }

    /// Allows `n` DUT blocks missing at the end (the DUT's latency).
    pub fn allow_shortfall(&mut self, n: u64) {
        self.counts.latency_shortfall_allowed = n;
    }

    /// One input transfer and the DUT's block for it (`None`: the DUT's stream ended);
    /// `dut_line` names the DUT's block in reports.
    pub fn push(&mut self, word: XgmiiWord, dut: Option<Block>, dut_line: u64) {
        let ev = self.encoder.step(word);
        let divergent_before = self.counts.blocks_divergent;
        let mut seen = None;
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
                seen = Some(d);
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
        if let Some(w) = self.window.as_mut() {
            w.push(
                WindowBlock {
                    block: self.index,
                    dut_line,
                    input: word,
                    model: ev.block,
                    dut: seen,
                },
                self.counts.blocks_divergent > divergent_before,
            );
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

/// Finds the DUT's latency: the offset `k` in `0..=max` at which the DUT's blocks equal the
/// model's encoding of `input` best. `dut` holds the DUT's blocks after `fill` blocks of reset
/// fill, which keep their places: DUT block `i` (counting the fill) is input transfer `i - k`,
/// and input transfers the DUT received while still in reset are not compared. Every offset is
/// judged on the same number of blocks (fewest differing wins, the smallest on a tie; when
/// `scrambled` the first compared block trains the descrambler). Returns the offset and how
/// many blocks differed there, or `None` when too little could be compared.
pub fn find_latency(
    profile: Profile,
    input: &[XgmiiWord],
    dut: &[Block],
    fill: usize,
    scrambled: bool,
    max: usize,
) -> Option<(u64, u64)> {
    let max = max.min(dut.len() / 2);
    let window = input
        .len()
        .saturating_sub(fill)
        .min(dut.len().saturating_sub(max));
    if window < 2 {
        return None;
    }
    let mut best: Option<(u64, u64)> = None;
    for k in 0..=max {
        let (in_start, dut_start) = latency_starts(k, fill);
        let mut c = PcsChecker::new(profile, scrambled, None, 0);
        let input = input.get(in_start..in_start + window).unwrap_or_default();
        let dut = dut.get(dut_start..dut_start + window).unwrap_or_default();
        for (w, b) in input.iter().zip(dut) {
            c.push(*w, Some(*b), 0);
        }
        let bad = c.counts.blocks_divergent;
        if best.is_none_or(|(_, b)| bad < b) {
            best = Some((k as u64, bad));
        }
        if bad == 0 {
            break;
        }
    }
    best
}

/// Where comparing starts for a latency `k` after `fill` blocks of reset fill: the first input
/// transfer compared and the first DUT block after the fill compared (DUT block `i` is input
/// transfer `i - k`; the first DUT block that is neither fill nor latency is `max(fill, k)`).
pub fn latency_starts(k: usize, fill: usize) -> (usize, usize) {
    let start = fill.max(k);
    (start - k, start - fill)
}

/// The `--blocks` comparison of a frame check: frame by frame, the model's encoding of each
/// expected frame against the DUT's (descrambled) blocks of the frame in the same place,
/// from its start block to its terminate block. The gaps between frames are the DUT's choice,
/// judged apart by the IFG and deficit idle count rule ([`GapCheck`]).
#[derive(Clone, Debug, Serialize)]
pub struct BlockComparison {
    /// Frames (start .. terminate runs) in the model's stream and in the DUT's.
    pub frames: (u64, u64),
    /// Blocks compared (inside frames paired in order).
    pub compared: u64,
    /// Blocks that differ in the frames paired (a longer frame's extra blocks included).
    pub divergent: u64,
    /// Frames without a partner (model, DUT): missing or extra frames, which the frame check
    /// reports.
    pub unpaired: (u64, u64),
    /// The first divergence: block index in the DUT stream, both sides described.
    pub first: Option<(u64, String, String)>,
    /// The gaps between the DUT's frames against the rule of §46.3.1.4.
    pub gaps: GapCheck,
}

/// The DUT's inter-frame gaps against the deficit idle count rule (§46.3.1.4): with the
/// count `d` (0..=3) before a gap, the gap (octets from the `/T/`, counted as the first, to
/// the next `/S/`) may be at most 3 - `d` octets shorter than the IFG; a shorter gap adds the
/// difference to `d`, a longer one takes it off (down to 0). After a violation the count
/// starts again from 0.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GapCheck {
    /// The IFG the rule was applied with, octets.
    pub ifg: u16,
    /// Gaps measured.
    pub gaps: u64,
    /// Shortest and longest gap.
    pub min: Option<u64>,
    /// Longest gap.
    pub max: Option<u64>,
    /// Gaps shorter than the rule allows.
    pub violations: u64,
    /// The first violation: the frame after the gap (0-based among the DUT's frames), the gap,
    /// and the deficit idle count before it.
    pub first: Option<(u64, u64, u8)>,
}

/// The deficit idle count of §46.3.1.4 followed gap by gap, as a receiver sees a
/// transmitter's gaps (the one rule of [`GapCheck`] and of the coverage's `dic` bins).
#[derive(Clone, Copy, Debug, Default)]
pub struct Deficit {
    ifg: u64,
    d: u64,
}

impl Deficit {
    /// Before the first gap, with this IFG (octets).
    pub fn new(ifg: u16) -> Self {
        Self {
            ifg: u64::from(ifg),
            d: 0,
        }
    }

    /// One gap of `g` octets: the count after it, or `Err(count before it)` when the gap is
    /// shorter than the rule allows (the count then starts again from 0: one short gap is one
    /// violation).
    pub fn gap(&mut self, g: u64) -> Result<u64, u64> {
        let d = self.d;
        if g + 3 < self.ifg + d {
            self.d = 0;
            return Err(d);
        }
        self.d = (self.ifg + d).saturating_sub(g);
        Ok(self.d)
    }
}

impl GapCheck {
    /// Applies the rule to the gaps in order.
    pub fn of(ifg: u16, gaps: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut c = Self {
            ifg,
            ..Self::default()
        };
        let mut deficit = Deficit::new(ifg);
        for (frame, g) in gaps {
            c.gaps += 1;
            c.min = Some(c.min.map_or(g, |m| m.min(g)));
            c.max = Some(c.max.map_or(g, |m| m.max(g)));
            if let Err(d) = deficit.gap(g) {
                c.violations += 1;
                if c.first.is_none() {
                    c.first = Some((frame, g, d as u8));
                }
            }
        }
        c
    }
}

/// Cuts a stream of blocks into frame runs as the blocks come: a start block opens a run, a
/// terminate block closes it, and a start block while a run is open closes that run before
/// it; at the end, an open run ends with the last block.
#[derive(Default)]
struct RunCutter {
    /// The open run: its first block's index, and its blocks.
    open: Option<(usize, Vec<Block>)>,
    /// Blocks taken.
    at: usize,
}

impl RunCutter {
    /// Takes the next block; returns the run it closes (first block index, blocks).
    fn push(&mut self, b: Block) -> Option<(usize, Vec<Block>)> {
        use pcs_core::BlockClass;
        let i = self.at;
        self.at += 1;
        match pcs_core::block_class(b) {
            BlockClass::Start => self.open.replace((i, vec![b])),
            BlockClass::Terminate => {
                let mut run = self.open.take()?;
                run.1.push(b);
                Some(run)
            }
            _ => {
                if let Some((_, r)) = self.open.as_mut() {
                    r.push(b);
                }
                None
            }
        }
    }

    /// The stream ended: the open run, if any.
    fn end(&mut self) -> Option<(usize, Vec<Block>)> {
        self.open.take()
    }
}

/// Octet position of the `/S/` of a start block and of the `/T/` of a terminate block.
fn lane_of(b: Block, c: u8) -> u64 {
    let w = pcs_core::decode_block(b).word;
    (0..8)
        .find(|&l| w.is_control(l) && w.octet(l) == c)
        .unwrap_or(0) as u64
}

/// The model's unscrambled blocks, as the TX chain hands them over.
#[derive(Default)]
struct Unscrambled(Vec<Block>);

impl TxSink for Unscrambled {
    fn forms(&self) -> TxForms {
        TxForms {
            words: false,
            unscrambled: true,
            serial: false,
            line: false,
        }
    }

    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        self.0.extend_from_slice(b.unscrambled.unwrap_or_default());
        Ok(())
    }
}

/// The model's encoding of one expected frame at a time, with its `/S/` in lane 0 or lane 4:
/// a chain for each, idle between frames so that each starts afresh in its lane.
struct FrameModel {
    opt: TxOptions,
    /// The chain whose frames start in lane 0, and the one whose start in lane 4.
    chains: [Option<TxChain<Unscrambled>>; 2],
}

impl FrameModel {
    /// Idle transfers after each frame: more than the longest gap a frame owes (IFG 12 and a
    /// deficit idle count of 3), so the next frame's `/S/` goes where its chain puts it.
    const IDLE_AFTER: u64 = 2;

    fn new(profile: Profile) -> Self {
        Self {
            opt: TxOptions {
                mac: mac_core::tx::TxConfig {
                    dic: profile.dic(),
                    ..mac_core::tx::TxConfig::default()
                },
                profile,
                seed: SCRAMBLER_DEFAULT_STATE,
                idle_blocks: 0,
            },
            chains: [None, None],
        }
    }

    /// The blocks of `frame` (without FCS: the MAC pads it and appends its FCS) from its
    /// start block to its terminate block, its `/S/` in lane 4 when `lane` is 4 or more and
    /// in lane 0 otherwise.
    fn run(&mut self, frame: &[u8], lane: u64) -> Result<Vec<Block>, TxError> {
        let Self { opt, chains } = self;
        let lane4 = lane >= 4;
        let chain = chains
            .get_mut(usize::from(lane4))
            .ok_or(TxError::Sink)?
            .get_or_insert_with(|| {
                let mut o = *opt;
                if lane4 {
                    o.mac.start_lanes = mac_core::tx::StartLanes::Lane4;
                }
                TxChain::new(&o, Unscrambled::default())
            });
        let sent = chain.frame(frame, None);
        chain.idle(Self::IDLE_AFTER);
        chain.flush();
        let blocks = std::mem::take(&mut chain.sink_mut().0);
        sent?;
        let mut cut = RunCutter::default();
        Ok(blocks
            .into_iter()
            .find_map(|b| cut.push(b))
            .map(|(_, run)| run)
            .unwrap_or_default())
    }
}

/// Encodes `expected` frames (without FCS) with the model and compares its unscrambled blocks
/// with the DUT's frame by frame; measures the DUT's gaps against `ifg` with the deficit idle
/// count. `pairs` (expected frame index, start block of the DUT's frame) says which DUT frame
/// is which expected one (the frame judge's verdict); without it they pair in order.
///
/// # Errors
/// An expected frame the MAC cannot send (its index among `expected` and why).
pub fn compare_frame_blocks(
    expected: &[&[u8]],
    dut: &[Block],
    profile: Profile,
    ifg: u16,
    pairs: Option<&[(usize, u64)]>,
) -> Result<BlockComparison, (usize, TxError)> {
    let mut c = FrameBlocks::new(expected, profile, ifg, pairs);
    c.push(dut);
    c.finish()
}

/// [`compare_frame_blocks`] with the DUT's blocks given as they come (it is an [`RxSink`]
/// that wants the descrambled blocks): each DUT frame is compared when its run ends with the
/// model's encoding of the expected frame paired with it, encoded then, on its own, with its
/// `/S/` in the lane of the DUT's (where a frame starts after idle time is the transmitter's
/// choice: §46.3.1.4 bounds a gap from below only, and the gaps are judged apart). It holds
/// the frame being cut and a few numbers per frame, never a stream.
pub struct FrameBlocks<'a> {
    expected: &'a [&'a [u8]],
    ifg: u16,
    model: FrameModel,
    /// The expected frames the model has encoded.
    encoded: Vec<bool>,
    /// The first expected frame (by index) the model could not send, and why.
    error: Option<(usize, TxError)>,
    /// The pairs (their place among the pairs, the expected frame) by their DUT start block;
    /// `None`: in order.
    pairs: Option<HashMap<u64, Vec<(usize, usize)>>>,
    dut_cut: RunCutter,
    /// The DUT's runs so far.
    druns: usize,
    /// Pairs whose two runs were found.
    matched: usize,
    /// The previous DUT run's end, in octets from the stream's start.
    last_end: Option<u64>,
    gaps: Vec<(u64, u64)>,
    compared: u64,
    divergent: u64,
    /// The first divergence of the earliest pair that has one.
    first: Option<(usize, (u64, String, String))>,
}

impl<'a> FrameBlocks<'a> {
    /// Ready for the DUT's blocks from its stream's first on.
    pub fn new(
        expected: &'a [&'a [u8]],
        profile: Profile,
        ifg: u16,
        pairs: Option<&[(usize, u64)]>,
    ) -> Self {
        Self {
            expected,
            ifg,
            model: FrameModel::new(profile),
            encoded: vec![false; expected.len()],
            error: None,
            pairs: pairs.map(|p| {
                let mut by_start: HashMap<u64, Vec<(usize, usize)>> = HashMap::new();
                for (k, &(m, start)) in p.iter().enumerate() {
                    by_start.entry(start).or_default().push((k, m));
                }
                by_start
            }),
            dut_cut: RunCutter::default(),
            druns: 0,
            matched: 0,
            last_end: None,
            gaps: Vec::new(),
            compared: 0,
            divergent: 0,
            first: None,
        }
    }

    /// The DUT's next blocks.
    pub fn push(&mut self, blocks: &[Block]) {
        for &b in blocks {
            if let Some((start, run)) = self.dut_cut.push(b) {
                self.dut_run(start, &run);
            }
        }
    }

    /// The comparison, once the DUT's stream has ended.
    ///
    /// # Errors
    /// As [`compare_frame_blocks`].
    pub fn finish(mut self) -> Result<BlockComparison, (usize, TxError)> {
        if let Some((start, run)) = self.dut_cut.end() {
            self.dut_run(start, &run);
        }
        // The expected frames no DUT frame needed: the model must be able to send them too.
        for m in 0..self.expected.len() {
            if !self.encoded.get(m).copied().unwrap_or(true) {
                self.model_run(m, 0);
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let (m, d) = (self.expected.len(), self.druns);
        Ok(BlockComparison {
            frames: (m as u64, d as u64),
            compared: self.compared,
            divergent: self.divergent,
            unpaired: (
                m.saturating_sub(self.matched) as u64,
                d.saturating_sub(self.matched) as u64,
            ),
            first: self.first.map(|(_, f)| f),
            gaps: GapCheck::of(self.ifg, self.gaps),
        })
    }

    /// The model's run for expected frame `m` with its `/S/` in `lane` (`None`: no such
    /// frame, or the model cannot send it: the error is kept).
    fn model_run(&mut self, m: usize, lane: u64) -> Option<Vec<Block>> {
        let frame = self.expected.get(m)?;
        if let Some(e) = self.encoded.get_mut(m) {
            *e = true;
        }
        match self.model.run(frame, lane) {
            Ok(run) => Some(run),
            Err(e) => {
                if self.error.as_ref().is_none_or(|(i, _)| m < *i) {
                    self.error = Some((m, e));
                }
                None
            }
        }
    }

    /// A DUT run ended: its gap to the one before, and its comparison with its model run.
    fn dut_run(&mut self, start: usize, d: &[Block]) {
        let df = self.druns;
        self.druns += 1;
        // The gap from the last run's /T/ to this /S/.
        let lane = d.first().map_or(0, |b| lane_of(*b, 0xfb));
        let s_at = start as u64 * 8 + lane;
        if let Some(t_at) = self.last_end {
            self.gaps.push((df as u64, s_at.saturating_sub(t_at)));
        }
        let end = (start + d.len()).saturating_sub(1) as u64;
        self.last_end = Some(end * 8 + d.last().map_or(0, |b| lane_of(*b, 0xfd)));
        // Which expected frame it is.
        // (A start block begins one DUT run only: its pairs are taken.)
        let paired = match self.pairs.as_mut() {
            Some(p) => p.remove(&(start as u64)).unwrap_or_default(),
            None => vec![(df, df)],
        };
        for (place, m) in paired {
            let model = self.model_run(m, lane);
            if self.pairs.is_none() && model.is_none() {
                return;
            }
            self.matched += 1;
            self.compare(place, start, &model.unwrap_or_default(), d);
        }
    }

    /// Compares model run `m` with the DUT's run `d` at `start`, pair `place`.
    fn compare(&mut self, place: usize, start: usize, m: &[Block], d: &[Block]) {
        for k in 0..m.len().max(d.len()) {
            let (mb, db) = (m.get(k).copied(), d.get(k).copied());
            if mb.is_some() && db.is_some() {
                self.compared += 1;
            }
            if mb != db {
                self.divergent += 1;
                if self.first.as_ref().is_none_or(|(p, _)| place < *p) {
                    self.first = Some((
                        place,
                        (
                            (start + k) as u64,
                            mb.map_or(
                                "(no block: the model's frame ended)".into(),
                                describe::block,
                            ),
                            db.map_or("(no block: the DUT's frame ended)".into(), describe::block),
                        ),
                    ));
                }
            }
        }
    }
}

impl RxSink for FrameBlocks<'_> {
    fn wants_blocks(&self) -> bool {
        true
    }

    fn words(
        &mut self,
        _first: u64,
        _words: &[XgmiiWord],
        blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        if let Some(b) = blocks {
            self.push(b);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcs_core::PcsTx;

    #[test]
    fn the_dic_rule_allows_exactly_the_gaps_of_46_3_1_4() {
        // IFG 12: the model's own gaps (10, 11, 12, 13, 14 ... with the count in 0..=3) pass.
        let g = GapCheck::of(12, [(1, 9), (2, 15), (3, 12), (4, 10), (5, 11)]);
        assert_eq!((g.violations, g.min, g.max), (0, Some(9), Some(15)));
        // 9 then 11: the count would reach 4.
        let g = GapCheck::of(12, [(1, 9), (2, 11)]);
        assert_eq!((g.violations, g.first), (1, Some((2, 11, 3))));
        // Long idle time takes the count back to 0.
        let g = GapCheck::of(12, [(1, 9), (2, 100), (3, 9)]);
        assert_eq!(g.violations, 0);
        // 8 is never allowed.
        assert_eq!(GapCheck::of(12, [(1, 8)]).violations, 1);
    }

    #[test]
    fn frames_are_compared_in_place_whatever_the_gaps() {
        use crate::tx::{TxChain, TxOptions, VecSink};
        let frames: Vec<Vec<u8>> = (0..12u8)
            .map(|i| vec![i; 60 + usize::from(i) * 5])
            .collect();
        let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        // The DUT: the same frames with 3 idle transfers more after every third frame.
        let mut c = TxChain::new(&TxOptions::default(), VecSink::default());
        for (i, f) in frames.iter().enumerate() {
            c.frame(f, None).unwrap();
            if i % 3 == 2 {
                c.idle(3);
            }
        }
        let dut = c.finish().unwrap().0.blocks;
        let cmp = compare_frame_blocks(&refs, &dut, Profile::Ieee, 12, None).unwrap();
        assert_eq!(cmp.frames, (12, 12));
        assert_eq!(cmp.divergent, 0, "{:?}", cmp.first);
        assert!(cmp.compared > 12);
        assert_eq!((cmp.gaps.gaps, cmp.gaps.violations), (11, 0));
        // Paired by the judge's DUT start blocks: frame 5 is named at a block where no frame
        // starts, so it and its DUT frame stay unpaired.
        let mut cut = RunCutter::default();
        let starts: Vec<u64> = dut
            .iter()
            .filter_map(|&b| cut.push(b).map(|r| r.0 as u64))
            .collect();
        let pairs: Vec<(usize, u64)> = (0..12)
            .map(|i| (i, if i == 5 { 1 } else { starts[i] }))
            .collect();
        let paired = compare_frame_blocks(&refs, &dut, Profile::Ieee, 12, Some(&pairs)).unwrap();
        assert_eq!(paired.unpaired, (1, 1));
        assert_eq!(paired.divergent, 0);
        assert!(paired.compared < cmp.compared && paired.compared > 0);
        // Given in pieces of any size, as a decode hands them over: the same comparison.
        for piece in [1, 7, 64, 1000] {
            let mut c = FrameBlocks::new(&refs, Profile::Ieee, 12, Some(&pairs));
            for p in dut.chunks(piece) {
                c.push(p);
            }
            let c = c.finish().unwrap();
            assert_eq!(format!("{c:?}"), format!("{paired:?}"), "pieces of {piece}");
        }
        // Paired out of order (frames 2 and 7 swapped): the first divergence is the one of the
        // earliest pair (frame 2, paired with the DUT's frame 7), not the earliest in the
        // stream.
        let mut swapped = pairs.clone();
        swapped[2].1 = starts[7];
        swapped[7].1 = starts[2];
        // (And frame 9, later in the stream, changed too.)
        let mut dut9 = dut.clone();
        dut9[starts[9] as usize + 2].payload ^= 1;
        let sw = compare_frame_blocks(&refs, &dut9, Profile::Ieee, 12, Some(&swapped)).unwrap();
        assert!(sw.divergent > 0);
        let first = sw.first.map_or(0, |f| f.0);
        assert!((starts[7]..starts[8]).contains(&first), "{first}");
        // A flipped payload bit in a data block is found at its DUT block.
        let mut bad = dut.clone();
        let at = bad
            .iter()
            .rposition(|b| b.sync == pcs_core::SyncHeader::DATA)
            .unwrap();
        bad[at].payload ^= 1 << 30;
        let cmp = compare_frame_blocks(&refs, &bad, Profile::Ieee, 12, None).unwrap();
        assert_eq!(cmp.divergent, 1);
        assert_eq!(cmp.first.map(|f| f.0), Some(at as u64));
    }

    /// An RTL-like transmit stream: `frames` sent back to back by the model's MAC, and after
    /// some of them (a source that ran dry) idle time of 2 to 6 transfers and 0 or 4 octets
    /// more, so that the next frame starts in lane 0 or lane 4 as the transmitter chooses.
    /// Returns the transfers and the unscrambled blocks.
    fn with_idle_gaps(frames: &[Vec<u8>], seed: u64) -> (Vec<XgmiiWord>, Vec<Block>) {
        use crate::tx::{TxChain, TxOptions, VecSink};
        let mut c = TxChain::new(
            &TxOptions {
                idle_blocks: 2,
                ..TxOptions::default()
            },
            VecSink::default(),
        );
        for f in frames {
            c.frame(f, None).unwrap();
        }
        let words = c.finish().unwrap().0.words;
        // The stream octet by octet (octet, control), with idle octets put in after the
        // transfer that ends some frames.
        let mut x = seed | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let idle = (0x07u8, true);
        let mut octets = Vec::new();
        for w in &words {
            let lanes: Vec<(u8, bool)> = (0..8).map(|l| (w.octet(l), w.is_control(l))).collect();
            octets.extend_from_slice(&lanes);
            if lanes.contains(&(0xfd, true)) && next() % 3 == 0 {
                let n = 8 * (2 + next() % 5) + 4 * (next() % 2);
                octets.extend(std::iter::repeat_n(idle, n as usize));
            }
        }
        while octets.len() % 8 != 0 {
            octets.push(idle);
        }
        let dut: Vec<XgmiiWord> = octets
            .chunks(8)
            .map(|t| {
                let mut w = XgmiiWord { data: 0, ctrl: 0 };
                for (l, &(o, c)) in t.iter().enumerate() {
                    w.data |= u64::from(o) << (8 * l);
                    w.ctrl |= u8::from(c) << l;
                }
                w
            })
            .collect();
        let mut c = TxChain::new(
            &TxOptions {
                idle_blocks: 0,
                ..TxOptions::default()
            },
            VecSink::default(),
        );
        c.words(&dut);
        let blocks = c.finish().unwrap().0.blocks;
        (dut, blocks)
    }

    #[test]
    fn each_frame_is_compared_from_the_lane_the_dut_started_it_in() {
        // Frames of every length a test sends, some after idle time (lane 0 or 4 starts the
        // back-to-back model would not choose).
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let frames: Vec<Vec<u8>> = (0..200)
            .map(|i| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let len = 60 + (x >> 33) as usize % 1455;
                (0..len).map(|k| (k * 7 + i) as u8).collect()
            })
            .collect();
        let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        for seed in [1, 2, 3] {
            let (words, dut) = with_idle_gaps(&frames, seed);
            let starts: Vec<(usize, usize)> = words
                .iter()
                .enumerate()
                .flat_map(|(i, w)| {
                    (0..8)
                        .filter(move |&l| w.is_control(l) && w.octet(l) == 0xfb)
                        .map(move |l| (i, l))
                })
                .collect();
            assert_eq!(starts.len(), 200);
            assert!(starts.iter().any(|s| s.1 == 4) && starts.iter().any(|s| s.1 == 0));
            let cmp = compare_frame_blocks(&refs, &dut, Profile::Ieee, 12, None).unwrap();
            assert_eq!(cmp.frames, (200, 200));
            assert_eq!(cmp.divergent, 0, "seed {seed}: {:?}", cmp.first);
            assert_eq!(cmp.unpaired, (0, 0));
            assert_eq!((cmp.gaps.gaps, cmp.gaps.violations), (199, 0));
            assert!(cmp.gaps.max > Some(20));
            // A flipped payload bit inside a frame is still found at its block, and only it.
            let mut bad = dut.clone();
            let at = starts[starts.len() / 2].0 + 3;
            assert_eq!(bad[at].sync, pcs_core::SyncHeader::DATA);
            bad[at].payload ^= 1 << 21;
            let cmp = compare_frame_blocks(&refs, &bad, Profile::Ieee, 12, None).unwrap();
            assert_eq!(cmp.divergent, 1);
            assert_eq!(cmp.first.map(|f| f.0), Some(at as u64));
        }
    }

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
            find_latency(Profile::Ieee, &sent.words[..300], &dut[..364], 0, true, 64),
            Some((4, 0))
        );
        // Reset fill keeps its places: 10 blocks of fill, latency 2, the dump starting with
        // the input. The DUT's first real block is input transfer 8.
        let mut filled = vec![
            Block {
                sync: pcs_core::SyncHeader::from_bits(0),
                payload: 0
            };
            10
        ];
        filled.extend_from_slice(&sent.lines[8..]);
        assert_eq!(
            find_latency(Profile::Ieee, &sent.words, &filled[10..], 10, true, 64),
            Some((2, 0))
        );
        assert_eq!(latency_starts(2, 10), (8, 0));
        assert_eq!(latency_starts(12, 10), (0, 2));
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
    fn the_window_holds_the_blocks_around_the_first_divergence() {
        let words = [XgmiiWord::IDLE; 12];
        let mut enc = Encoder::new(Default::default());
        let mut blocks: Vec<Block> = words.iter().map(|w| enc.step(*w).block).collect();
        blocks[5].payload ^= 1 << 9;
        blocks[9].payload ^= 1 << 9;
        let mut c = PcsChecker::new(Profile::Ieee, false, None, 10);
        c.keep_window();
        for (i, (w, b)) in words.iter().zip(&blocks).enumerate() {
            c.push(*w, Some(*b), i as u64 + 1);
        }
        let w = c.take_window();
        assert_eq!(
            w.iter().map(|x| x.block).collect::<Vec<_>>(),
            [2, 3, 4, 5, 6, 7, 8]
        );
        assert_eq!(w[3].dut, Some(blocks[5]));
        assert_ne!(w[3].dut, Some(w[3].model));
        assert_eq!((w[0].dut_line, w[0].dut), (3, Some(w[0].model)));
        // No divergence, no window; no keep_window, no window.
        let mut c = PcsChecker::new(Profile::Ieee, false, None, 10);
        c.keep_window();
        c.push(XgmiiWord::IDLE, Some(Block::IDLE), 1);
        assert!(c.take_window().is_empty());
    }

    #[test]
    fn the_verdict_comes_from_the_counts_even_with_no_detail_kept() {
        let words = [XgmiiWord::IDLE; 10];
        let mut enc = Encoder::new(Default::default());
        let mut blocks: Vec<Block> = words.iter().map(|w| enc.step(*w).block).collect();
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
        let mut tx = PcsTx::new(Default::default(), SCRAMBLER_DEFAULT_STATE);
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
            c.push(*w, Some(enc.step(*w).block), 0);
        }
        assert!(c.counts.passed());
        c.push(XgmiiWord::IDLE, None, 0);
        assert!(!c.counts.passed());
    }
}
