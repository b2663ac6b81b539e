//! The model one clock at a time, for a simulator that calls it every cycle (the C ABI and its
//! SystemVerilog package; the Python package's models).
//!
//! ```text
//! LiveTx:    send(frame) ... clock() -> one line block a clock   (TxChain, flushed per transfer)
//! LiveCheck: expect(frame) ... push(DUT block) -> divergences as they happen   (RxChain)
//!            finish() -> the frame check of `baser check --frames`   (frame_check)
//! ```
//!
//! [`LiveTx`] runs the engine's [`TxChain`]: when the line needs a transfer and a frame is
//! waiting, the MAC takes the frame at once (back to back with the previous one, with the gap
//! and the deficit idle count of a continuous stream); else it sends one idle transfer. The
//! chain is flushed after each, so a block is handed out the clock it is asked for.
//!
//! [`LiveCheck`] runs the engine's [`RxChain`] on the DUT's stream and judges each frame the
//! moment the MAC delivers it, against the next expected frame in order; PCS events (an
//! invalid sync header, a block into `RX_E`, lock loss, `hi_ber`) are divergences at their
//! block. The live verdicts point at the cycle; the verdict of record is [`LiveCheck::finish`]:
//! the one judge over the whole run (reordered, corrupted, missing frames), exactly what
//! `baser check --frames` says of the same stream.

use crate::case::Case;
use crate::frame_check::{frame_check, FrameCheckInput, FrameCheckReport};
use crate::judge::{self, Expected};
use crate::rx::{
    class_name, FrameRef, LinkStatus, PcsSummary, ReceivedFrame, RxChain, RxInput, RxOptions,
    RxSink,
};
use crate::tx::{Placement, TxBatch, TxChain, TxError, TxForms, TxOptions, TxSink};
use pcs_core::{Block, ControlChar, XgmiiWord};
use serde::Serialize;
use std::collections::VecDeque;

// ------------------------------------------------------------------------------------ TX

/// Event bits of a block [`LiveTx::clock`] hands out.
pub mod event {
    /// A frame's `/S/` is in this block.
    pub const START: u8 = 1;
    /// A frame's SFD is in this block.
    pub const SFD: u8 = 2;
    /// A frame's `/T/` is in this block: the frame is sent.
    pub const END: u8 = 4;
}

/// One clock of the TX model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxClock {
    /// Its index (0 = the first block handed out).
    pub index: u64,
    /// The line (scrambled) block.
    pub line: Block,
    /// The block before scrambling.
    pub unscrambled: Block,
    /// The XGMII transfer it encodes.
    pub word: XgmiiWord,
    /// The frame whose `/S/` is in this block, and its lane.
    pub start: Option<(u64, u8)>,
    /// The frame whose SFD is in this block.
    pub sfd: Option<u64>,
    /// The frame whose `/T/` is in this block (it is sent).
    pub end: Option<u64>,
}

impl TxClock {
    /// The [`event`] bits of this block.
    pub fn events(&self) -> u8 {
        (if self.start.is_some() {
            event::START
        } else {
            0
        }) | (if self.sfd.is_some() { event::SFD } else { 0 })
            | (if self.end.is_some() { event::END } else { 0 })
    }
}

/// Keeps the chain's blocks until they are handed out.
#[derive(Default)]
struct Queue {
    blocks: VecDeque<(XgmiiWord, Block, Block)>,
}

impl TxSink for Queue {
    fn forms(&self) -> TxForms {
        TxForms {
            words: true,
            unscrambled: true,
            serial: false,
            line: true,
        }
    }

    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        let unscrambled = b.unscrambled.unwrap_or_default();
        for (i, (w, l)) in b.words.iter().zip(b.line).enumerate() {
            let u = unscrambled.get(i).copied().unwrap_or(*l);
            self.blocks.push_back((*w, *l, u));
        }
        Ok(())
    }
}

/// Where a frame goes: blocks of its `/S/`, SFD and `/T/`.
#[derive(Clone, Copy, Debug)]
struct Marks {
    id: u64,
    start: Placement,
    sfd: u64,
    end: u64,
}

/// The TX chain one block a clock.
pub struct LiveTx {
    chain: TxChain<Queue>,
    waiting: VecDeque<(u64, Vec<u8>, Option<[u8; 4]>)>,
    marks: VecDeque<Marks>,
    next_id: u64,
    handed: u64,
    scrambler: u64,
    opt: TxOptions,
    /// Serial words: the block being handed out, and its bits not yet handed out.
    unit: u128,
    unit_left: u32,
}

impl LiveTx {
    /// A model out of reset; `opt.idle_blocks` idle transfers come first.
    pub fn new(opt: &TxOptions) -> Self {
        Self {
            chain: TxChain::new(opt, Queue::default()),
            waiting: VecDeque::new(),
            marks: VecDeque::new(),
            next_id: 0,
            handed: 0,
            scrambler: opt.seed,
            opt: *opt,
            unit: 0,
            unit_left: 0,
        }
    }

    /// Gives the MAC a frame (DA to the end of the payload; with `fcs`, sent as is with that
    /// FCS and no padding). It starts as soon as the gap allows. Returns its id (0, 1, ...).
    ///
    /// # Errors
    /// The frame is longer than the MAC sends (refused now, not when its turn comes).
    pub fn send(&mut self, data: &[u8], fcs: Option<[u8; 4]>) -> Result<u64, TxError> {
        let len = data.len() + 4;
        let limit = mac_core::frame::MAX_FRAME_OCTETS;
        if len > limit {
            return Err(TxError::FrameTooLong { len });
        }
        let id = self.next_id;
        self.next_id += 1;
        self.waiting.push_back((id, data.to_vec(), fcs));
        Ok(id)
    }

    /// Frames given and not fully sent.
    pub fn pending(&self) -> usize {
        self.waiting.len() + self.marks.len()
    }

    /// Frames given whose blocks the chain has not made yet (they can still be dropped).
    pub fn unstarted(&self) -> usize {
        self.waiting.len()
    }

    /// Drops the frames the chain has not started; returns their ids.
    pub fn drop_unstarted(&mut self) -> Vec<u64> {
        self.waiting.drain(..).map(|(id, _, _)| id).collect()
    }

    /// Blocks handed out so far.
    pub fn blocks(&self) -> u64 {
        self.handed
    }

    /// The scrambler state after the last block handed out (58 bits, bit 57 the newest line
    /// bit): the seed of a model that carries the line on.
    pub fn scrambler_state(&self) -> u64 {
        self.scrambler
    }

    /// The settings it was made with.
    pub fn options(&self) -> &TxOptions {
        &self.opt
    }

    /// Sends `os` in place of idle columns from the next transfer made on (`None`: idles).
    pub fn set_idle_fill(&mut self, os: Option<crate::tx::OrderedSet>) {
        self.chain.set_idle_fill(os);
    }

    /// Makes the next transfers: the next waiting frame, or one idle.
    fn refill(&mut self) -> Result<(), TxError> {
        // The queue is empty: its first block after the flush is the next one handed out.
        let first = self.handed;
        match self.waiting.pop_front() {
            Some((id, data, fcs)) => {
                let start = self.chain.frame(&data, fcs)?;
                self.chain.flush();
                let q = &self.chain_queue().blocks;
                let from = (start.block - first) as usize;
                let s = start.block * 8 + u64::from(start.lane);
                // The /T/ after the /S/: the block the frame ends in.
                let end = q
                    .iter()
                    .enumerate()
                    .skip(from)
                    .find(|(i, (w, _, _))| {
                        (0..8).any(|l| {
                            (first + *i as u64) * 8 + l as u64 > s
                                && w.is_control(l)
                                && w.octet(l) == ControlChar::TERMINATE.0
                        })
                    })
                    .map_or(start.block, |(i, _)| first + i as u64);
                self.marks.push_back(Marks {
                    id,
                    start,
                    sfd: start.sfd_block(),
                    end,
                });
            }
            None => {
                self.chain.idle(1);
                self.chain.flush();
            }
        }
        Ok(())
    }

    fn chain_queue(&mut self) -> &mut Queue {
        self.chain.sink_mut()
    }

    /// The next block (one clock).
    ///
    /// # Errors
    /// The MAC refused the frame whose turn it was (it is dropped; the line stays idle).
    pub fn clock(&mut self) -> Result<TxClock, TxError> {
        let mut refused = None;
        while self.chain_queue().blocks.is_empty() {
            if let Err(e) = self.refill() {
                refused = Some(e);
            }
        }
        if let Some(e) = refused {
            return Err(e);
        }
        let (word, line, unscrambled) = self.chain_queue().blocks.pop_front().unwrap_or((
            XgmiiWord::IDLE,
            Block::IDLE,
            Block::IDLE,
        ));
        let index = self.handed;
        self.handed += 1;
        self.scrambler = line.payload >> 6;
        let mut clock = TxClock {
            index,
            line,
            unscrambled,
            word,
            start: None,
            sfd: None,
            end: None,
        };
        for m in &self.marks {
            if m.start.block > index {
                break;
            }
            if m.start.block == index {
                clock.start = Some((m.id, m.start.lane));
            }
            if m.sfd == index {
                clock.sfd = Some(m.id);
            }
            if m.end == index {
                clock.end = Some(m.id);
            }
        }
        while self.marks.front().is_some_and(|m| m.end <= index) {
            self.marks.pop_front();
        }
        Ok(clock)
    }

    /// The next `width` line bits (32 or 64), bit 0 first on the wire: a serdes word. Blocks
    /// are made as the bits are needed.
    ///
    /// # Errors
    /// As [`LiveTx::clock`]; a width other than 32 or 64 is refused.
    pub fn next_word(&mut self, width: u32) -> Result<u64, LiveError> {
        if width != 32 && width != 64 {
            return Err(LiveError::Width(width));
        }
        let mut w = 0u64;
        let mut got = 0;
        while got < width {
            if self.unit_left == 0 {
                let b = self.clock().map_err(LiveError::Tx)?.line;
                self.unit = u128::from(b.sync.to_bits()) | u128::from(b.payload) << 2;
                self.unit_left = 66;
            }
            let take = (width - got).min(self.unit_left);
            let bits = (self.unit >> (66 - self.unit_left)) & ((1u128 << take) - 1);
            w |= (bits as u64) << got;
            got += take;
            self.unit_left -= take;
        }
        Ok(w)
    }
}

/// A call a live model cannot take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveError {
    /// A serdes word of this width is not supported.
    Width(u32),
    /// The TX chain refused a frame.
    Tx(TxError),
    /// The call does not fit the model's input (a block to an XGMII model, ...).
    Input(&'static str),
    /// The model was finished.
    Finished,
}

impl std::fmt::Display for LiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Width(w) => write!(f, "a serdes word of {w} bits: expected 32 or 64"),
            Self::Tx(e) => e.fmt(f),
            Self::Input(m) => f.write_str(m),
            Self::Finished => f.write_str("the model was finished"),
        }
    }
}

// ------------------------------------------------------------------------------------ RX

/// Received frames, kept until they are taken.
#[derive(Default)]
pub struct FrameQueue {
    /// The frames, oldest first.
    pub frames: VecDeque<ReceivedFrame>,
}

impl RxSink for FrameQueue {
    fn wants_words(&self) -> bool {
        false
    }

    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        self.frames.push_back(f.to_owned());
        Ok(())
    }
}

/// Block lock, `hi_ber`, link fault, blocks received: the receiver now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LiveStatus {
    /// Blocks (transfers, for XGMII input) received.
    pub blocks: u64,
    /// Block lock (given for block input).
    pub block_lock: bool,
    /// `hi_ber`.
    pub hi_ber: bool,
    /// The RS link fault status.
    pub link_fault: LinkStatus,
}

/// The RX chain one clock at a time: the engine's [`RxChain`], and the frames it delivered.
pub struct LiveRx {
    chain: Option<RxChain<FrameQueue>>,
    input: RxInput,
    /// The summary and counts at the end (set by [`LiveRx::finish`]).
    summary: PcsSummary,
    counts: crate::rx::FrameCounts,
    /// The frames delivered, once finished.
    tail: VecDeque<ReceivedFrame>,
}

impl LiveRx {
    /// A model out of reset for `input` (serial input is taken as a receiver sees it:
    /// [`RxInput::Serial`]).
    pub fn new(opt: &RxOptions, input: RxInput) -> Self {
        Self {
            chain: Some(RxChain::new(opt, input, FrameQueue::default())),
            input,
            summary: PcsSummary::default(),
            counts: crate::rx::FrameCounts::default(),
            tail: VecDeque::new(),
        }
    }

    fn chain(&mut self) -> Result<&mut RxChain<FrameQueue>, LiveError> {
        self.chain.as_mut().ok_or(LiveError::Finished)
    }

    /// The input it was made for.
    pub fn input(&self) -> RxInput {
        self.input
    }

    /// One 66-bit block (block input).
    ///
    /// # Errors
    /// The model takes serial words or XGMII transfers, or was finished.
    pub fn push_block(&mut self, b: Block) -> Result<(), LiveError> {
        if !matches!(self.input, RxInput::Blocks { .. }) {
            return Err(LiveError::Input(
                "a block pushed to a model made for serial words or XGMII transfers",
            ));
        }
        self.chain()?.push_blocks(&[b]);
        Ok(())
    }

    /// One serdes word of `width` bits (32 or 64; bit 0 first on the wire).
    ///
    /// # Errors
    /// Another width; the model takes blocks or XGMII transfers, or was finished.
    pub fn push_word(&mut self, width: u32, word: u64) -> Result<(), LiveError> {
        if !matches!(self.input, RxInput::Serial | RxInput::SerialAligned { .. }) {
            return Err(LiveError::Input(
                "a serdes word pushed to a model made for blocks or XGMII transfers",
            ));
        }
        let n = match width {
            32 => 4,
            64 => 8,
            w => return Err(LiveError::Width(w)),
        };
        let bytes = word.to_le_bytes();
        self.chain()?.push_bytes(bytes.get(..n).unwrap_or_default());
        Ok(())
    }

    /// One XGMII transfer.
    ///
    /// # Errors
    /// The model takes blocks or serial words, or was finished.
    pub fn push_xgmii(&mut self, w: XgmiiWord) -> Result<(), LiveError> {
        if self.input != RxInput::Xgmii {
            return Err(LiveError::Input(
                "an XGMII transfer pushed to a model made for blocks or serial words",
            ));
        }
        self.chain()?.push_xgmii(&[w]);
        Ok(())
    }

    /// The frames delivered and not taken yet, oldest first.
    pub fn frames(&mut self) -> &mut VecDeque<ReceivedFrame> {
        match self.chain.as_mut() {
            Some(c) => &mut c.sink_mut().frames,
            None => &mut self.tail,
        }
    }

    /// What the PCS saw so far (after [`LiveRx::finish`]: the whole summary).
    pub fn pcs(&self) -> &PcsSummary {
        self.chain.as_ref().map_or(&self.summary, RxChain::pcs)
    }

    /// Frames received so far, by class.
    pub fn counts(&self) -> crate::rx::FrameCounts {
        self.chain
            .as_ref()
            .map_or_else(|| self.counts.clone(), RxChain::counts)
    }

    /// The receiver now.
    pub fn status(&self) -> LiveStatus {
        match &self.chain {
            Some(c) => LiveStatus {
                blocks: c.blocks_received(),
                block_lock: c.block_lock(),
                hi_ber: c.hi_ber(),
                link_fault: c.link_fault(),
            },
            None => {
                let s = self.pcs();
                LiveStatus {
                    blocks: s.blocks,
                    block_lock: s.lock_acquired.is_some() && s.lock_losses.len() <= s.relocks.len(),
                    hi_ber: s.hi_ber_episodes.len() > s.hi_ber_clears.len(),
                    link_fault: s.link_fault,
                }
            }
        }
    }

    /// True once finished.
    pub fn finished(&self) -> bool {
        self.chain.is_none()
    }

    /// Ends the stream (the last block is decided; frames it completes join
    /// [`LiveRx::frames`]). Returns the summary and the frame counts.
    ///
    /// # Errors
    /// Finished twice.
    pub fn finish(&mut self) -> Result<(PcsSummary, crate::rx::FrameCounts), LiveError> {
        let chain = self.chain.take().ok_or(LiveError::Finished)?;
        // The sink keeps frames in memory: it cannot fail.
        let (pcs, counts, queue) = chain.finish().map_err(|_| LiveError::Finished)?;
        self.summary = pcs.clone();
        self.counts = counts.clone();
        self.tail = queue.frames;
        Ok((pcs, counts))
    }
}

// ---------------------------------------------------------------------------------- check

/// A frame a DUT delivered as octets (DA through FCS, no preamble), as the model's MAC
/// receiver classifies it: it is framed (`/S/`, preamble, SFD, the octets, `/T/`) and
/// received by the RX chain with `opt`, so a test bench's own sink and the stream's frames
/// are judged by one MAC.
pub fn received_from_octets(data: &[u8], opt: &RxOptions) -> ReceivedFrame {
    let mut mac = crate::fcs::MacTx::with_engine(mac_core::tx::TxConfig::default());
    let mut words = vec![XgmiiWord::IDLE; mac.words_needed(data.len()) + 4];
    let n = mac.encode_frame_with_fcs(data, &mut words).unwrap_or(0);
    words.truncate(n);
    words.extend_from_slice(&[XgmiiWord::IDLE; 2]);
    let mut rx = RxChain::new(opt, RxInput::Xgmii, Vec::<ReceivedFrame>::new());
    rx.push_xgmii(&words);
    let mut frames = rx.finish().map(|(_, _, f)| f).unwrap_or_default();
    frames.pop().unwrap_or(ReceivedFrame {
        index: 0,
        class: mac_core::rx::RxClass::Truncated,
        data: data.to_vec(),
        len: data.len(),
        fcs_ok: false,
        start: Placement::default(),
        gap_octets: None,
        link_down: false,
    })
}

/// The DUT block of the first octet where a received frame whose content is right differs
/// from the frame the model sends: its FCS, or its end.
fn fcs_difference(e: &Expected, f: &ReceivedFrame) -> Option<u64> {
    let mut full = judge::padded(&e.data).into_owned();
    let fcs = mac_core::frame::fcs_padded_with::<crate::fcs::FastFcs>(&full, 0);
    full.extend_from_slice(&fcs.to_le_bytes());
    let d = judge::first_difference(&full, &f.data)?;
    // The /S/ octet, six preamble octets and the SFD come before the destination address.
    Some((f.start.block * 8 + u64::from(f.start.lane) + 8 + d.offset as u64) / 8)
}

/// A divergence the live checker found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// The block of the DUT's stream where it is (0 = the first block pushed): the invalid
    /// header's block, the block of the first differing octet, the `/S/` of a frame in error.
    pub block: u64,
    /// The block whose push found it (a frame is judged when the MAC delivers it, one block
    /// after its `/T/`).
    pub found_at: u64,
    /// The expected frame it concerns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_frame: Option<u64>,
    /// What happened, one line.
    pub what: String,
}

/// Divergences kept (the count goes on).
pub const MAX_KEPT: usize = 1000;

/// Expected frames ahead of the next one a frame is looked for among (a frame found there
/// means the ones before it were lost).
const LOOKAHEAD: usize = 64;

/// The PCS counters the checker has seen.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    invalid_headers: u64,
    errored: u64,
    e_listed: usize,
    lock_losses: usize,
    hi_ber: usize,
    link_changes: usize,
}

/// The live checker: expected frames in, the DUT's stream in, divergences as they happen.
pub struct LiveCheck {
    rx: LiveRx,
    profile: crate::profile::Profile,
    /// Expected frames not settled, oldest first.
    expected: VecDeque<Expected>,
    /// Expected frames given so far.
    given: u64,
    /// The next expected frame a received frame is compared with (in `expected`).
    next: usize,
    /// Received frames not settled.
    received: Vec<ReceivedFrame>,
    /// The settled frames: every one so far matched its expected frame in order with class
    /// ok, before any divergence. Only their length and place are kept (memory stays flat
    /// over a long run of good frames); their verdict is what the judge would give.
    settled: Vec<(usize, crate::tx::Placement)>,
    divergences: Vec<Divergence>,
    last: Option<Divergence>,
    count: u64,
    seen: Seen,
    names: (String, String),
}

impl LiveCheck {
    /// A checker out of reset; `names` are the expected frames' and the DUT's names in the
    /// reports.
    pub fn new(opt: &RxOptions, input: RxInput, names: (String, String)) -> Self {
        Self {
            rx: LiveRx::new(opt, input),
            profile: opt.profile,
            expected: VecDeque::new(),
            given: 0,
            next: 0,
            received: Vec::new(),
            settled: Vec::new(),
            divergences: Vec::new(),
            last: None,
            count: 0,
            seen: Seen::default(),
            names,
        }
    }

    /// An expected frame (DA to the end of the payload, as given to the TX model), in the
    /// order they must arrive. Returns its index.
    pub fn expect(&mut self, data: &[u8]) -> u64 {
        let index = self.given;
        self.given += 1;
        self.expected.push_back(Expected {
            index,
            data: data.to_vec(),
        });
        index
    }

    /// One DUT block; returns the divergences it revealed.
    ///
    /// # Errors
    /// As [`LiveRx::push_block`].
    pub fn push_block(&mut self, b: Block) -> Result<usize, LiveError> {
        self.rx.push_block(b)?;
        Ok(self.scan())
    }

    /// One DUT serdes word.
    ///
    /// # Errors
    /// As [`LiveRx::push_word`].
    pub fn push_word(&mut self, width: u32, word: u64) -> Result<usize, LiveError> {
        self.rx.push_word(width, word)?;
        Ok(self.scan())
    }

    /// One DUT XGMII transfer.
    ///
    /// # Errors
    /// As [`LiveRx::push_xgmii`].
    pub fn push_xgmii(&mut self, w: XgmiiWord) -> Result<usize, LiveError> {
        self.rx.push_xgmii(w)?;
        Ok(self.scan())
    }

    /// Divergences found so far (all counted; the first [`MAX_KEPT`] kept).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The divergences kept, in the order found.
    pub fn divergences(&self) -> &[Divergence] {
        &self.divergences
    }

    /// The latest divergence found.
    pub fn last(&self) -> Option<&Divergence> {
        self.last.as_ref()
    }

    /// The receiver now.
    pub fn status(&self) -> LiveStatus {
        self.rx.status()
    }

    fn diverged(&mut self, block: u64, expected_frame: Option<u64>, what: String) {
        let now = self.rx.status().blocks.saturating_sub(1);
        let d = Divergence {
            block,
            found_at: now,
            expected_frame,
            what,
        };
        self.count += 1;
        if self.divergences.len() < MAX_KEPT {
            self.divergences.push(d.clone());
        }
        self.last = Some(d);
    }

    /// Looks at what the last push changed; returns the divergences found.
    fn scan(&mut self) -> usize {
        let before = self.count;
        let now = self.rx.status().blocks.saturating_sub(1);
        let pcs = self.rx.pcs();
        let mut found: Vec<(u64, String)> = Vec::new();
        if pcs.invalid_headers > self.seen.invalid_headers {
            let n = pcs.invalid_headers - self.seen.invalid_headers;
            found.push((
                now,
                if n == 1 {
                    "invalid sync header while locked (49.2.4.3)".to_string()
                } else {
                    format!("{n} invalid sync headers while locked (49.2.4.3)")
                },
            ));
        }
        for e in pcs.e_transitions.iter().skip(self.seen.e_listed) {
            found.push((e.block, format!("block into RX_E: {}", e.what)));
        }
        let listed = pcs.e_transitions.len().saturating_sub(self.seen.e_listed) as u64;
        let unlisted = (pcs.errored_blocks - self.seen.errored).saturating_sub(listed);
        if unlisted > 0 {
            found.push((now, format!("{unlisted} blocks into RX_E")));
        }
        for &b in pcs.lock_losses.iter().skip(self.seen.lock_losses) {
            found.push((b, "block lock lost (49.2.14)".into()));
        }
        for &b in pcs.hi_ber_episodes.iter().skip(self.seen.hi_ber) {
            found.push((b, "hi_ber rose (49.2.13)".into()));
        }
        // A fault the RS reports after block lock (before it, a receiver's decoder sends
        // /LF/ by design: Fig. 49-17's LBLOCK_R); a fault clearing is no divergence.
        let locked_at = pcs.lock_acquired.map(|l| l.block);
        for c in pcs.link_fault_changes.iter().skip(self.seen.link_changes) {
            let to_fault = !c.what.ends_with(&LinkStatus::default().to_string());
            if to_fault && locked_at.is_some_and(|l| c.block >= l) {
                found.push((c.block, c.what.clone()));
            }
        }
        self.seen = Seen {
            invalid_headers: pcs.invalid_headers,
            errored: pcs.errored_blocks,
            e_listed: pcs.e_transitions.len(),
            lock_losses: pcs.lock_losses.len(),
            hi_ber: pcs.hi_ber_episodes.len(),
            link_changes: pcs.link_fault_changes.len(),
        };
        for (block, what) in found {
            self.diverged(block, None, what);
        }
        while let Some(f) = self.rx.frames().pop_front() {
            self.take(f);
        }
        (self.count - before) as usize
    }

    /// One received frame: judged, then kept for the final judge (or settled).
    fn take(&mut self, f: ReceivedFrame) {
        let before = self.count;
        self.judge(&f);
        // In order, good, and nothing before it went wrong: settled.
        if self.count == before && self.count == 0 && self.next == 1 && self.received.is_empty() {
            if let Some(e) = self.expected.pop_front() {
                self.settled.push((e.data.len(), f.start));
                self.next = 0;
                return;
            }
        }
        self.received.push(f);
    }

    /// A frame a DUT delivered by other means (a test bench's own sink: a scoreboard),
    /// judged as the frames of the stream are; returns the divergences it revealed. Its
    /// `index` is set to its arrival order.
    pub fn push_frame(&mut self, mut f: ReceivedFrame) -> usize {
        let before = self.count;
        f.index = self.settled.len() as u64 + self.received.len() as u64;
        self.take(f);
        (self.count - before) as usize
    }

    /// One received frame against the next expected frames.
    fn judge(&mut self, f: &ReceivedFrame) {
        let at = format!(
            "DUT frame {} (block {} lane {}, {} octets with FCS)",
            f.index, f.start.block, f.start.lane, f.len
        );
        let c = f.content();
        let same = |e: &Expected| *judge::padded(&e.data) == *c || e.data == c;
        let found = self
            .expected
            .iter()
            .skip(self.next)
            .take(LOOKAHEAD)
            .position(same);
        let class = class_name(f.class);
        match found {
            Some(k) => {
                let e = self.next + k;
                let index = self.expected.get(e).map(|x| x.index);
                if k > 0 {
                    let first = self.expected.get(self.next).map_or(0, |x| x.index);
                    self.diverged(
                        f.start.block,
                        Some(first),
                        format!(
                            "expected frame{} {}{} missing: {at} is expected frame {}",
                            if k > 1 { "s" } else { "" },
                            first,
                            if k > 1 {
                                format!("..{}", first + k as u64 - 1)
                            } else {
                                String::new()
                            },
                            index.unwrap_or(0)
                        ),
                    );
                }
                if class != "ok" {
                    // The content is right: where is the FCS (or the frame's end) wrong?
                    let block = self
                        .expected
                        .get(e)
                        .and_then(|x| fcs_difference(x, f))
                        .unwrap_or(f.start.block);
                    self.diverged(
                        block,
                        index,
                        format!(
                            "{at}: expected frame {} received with MAC class {class}",
                            index.unwrap_or(0)
                        ),
                    );
                }
                self.next = e + 1;
            }
            None => match self.expected.get(self.next) {
                Some(e) => {
                    let index = e.index;
                    let d = judge::difference(&judge::padded(&e.data), f);
                    let (block, what) = match d {
                        Some(d) => (
                            d.block.unwrap_or(f.start.block),
                            format!(
                                "{at} differs from expected frame {index}: first at octet {} (DUT block {} lane {}): expected {}, got {}; MAC class {class}",
                                d.offset,
                                d.block.unwrap_or(0),
                                d.lane.unwrap_or(0),
                                d.expected.map_or("(end)".into(), |x| format!("0x{x:02x}")),
                                d.actual.map_or("(end)".into(), |x| format!("0x{x:02x}")),
                            ),
                        ),
                        None => (
                            f.start.block,
                            format!("{at}: expected frame {index} received with MAC class {class}"),
                        ),
                    };
                    self.diverged(block, Some(index), what);
                    self.next += 1;
                }
                None => self.diverged(
                    f.start.block,
                    None,
                    format!("{at}: unexpected, class {class} (no expected frame is left)"),
                ),
            },
        }
    }

    /// Ends the run: the last block decided, then the one judge over every frame (reordered,
    /// corrupted and missing frames too). Returns `baser check --frames`' report and checks.
    ///
    /// # Errors
    /// Finished twice.
    pub fn finish(&mut self) -> Result<(FrameCheckReport, Vec<Case>), LiveError> {
        let (pcs, counts) = self.rx.finish()?;
        self.scan();
        let mut cmp = judge::compare(self.expected.make_contiguous(), &self.received);
        let settled =
            self.settled
                .iter()
                .enumerate()
                .map(|(i, &(length, at))| judge::FrameResult {
                    expected_index: i as u64,
                    length,
                    status: judge::Status::Matched,
                    received_index: Some(i as u64),
                    class: Some("ok"),
                    start_block: Some(at.block),
                    start_lane: Some(at.lane),
                    first_difference: None,
                });
        cmp.frames = settled.chain(cmp.frames).collect();
        Ok(frame_check(FrameCheckInput {
            expected_name: self.names.0.clone(),
            dut_name: self.names.1.clone(),
            profile: self.profile,
            expected: self.given as usize,
            counts: &counts,
            pcs,
            cmp,
            blocks: None,
            outcomes: Vec::new(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tx::VecSink;
    use pcs_core::SyncHeader;
    use proptest::prelude::*;

    fn frame(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    fn tx_opt() -> TxOptions {
        TxOptions {
            // A receiver trains its descrambler on the first block; frames come after.
            idle_blocks: 3,
            seed: 0x2aa_5555_1234_5678 & ((1 << 58) - 1),
            ..TxOptions::default()
        }
    }

    /// The batch chain's line blocks for a script of frames and idle runs.
    fn batch(opt: &TxOptions, script: &[(usize, u64)], total: usize) -> Vec<Block> {
        let mut c = TxChain::new(opt, VecSink::default());
        for (i, &(len, idle)) in script.iter().enumerate() {
            c.frame(&frame(len, i as u8), None).unwrap();
            c.idle(idle);
        }
        c.idle(total as u64);
        let (s, _) = c.end().unwrap();
        s.lines.into_iter().take(total).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Frames given up front come out back to back, as the batch chain sends them.
        #[test]
        fn frames_given_up_front_equal_the_batch_chain(lens in proptest::collection::vec(1usize..1600, 1..12)) {
            let opt = tx_opt();
            let mut live = LiveTx::new(&opt);
            for (i, &l) in lens.iter().enumerate() {
                live.send(&frame(l, i as u8), None).unwrap();
            }
            let total = lens.iter().map(|l| l / 8 + 6).sum::<usize>() + 8;
            let got: Vec<Block> = (0..total).map(|_| live.clock().unwrap().line).collect();
            let script: Vec<(usize, u64)> = lens.iter().map(|&l| (l, 0)).collect();
            prop_assert_eq!(got, batch(&opt, &script, total));
            prop_assert_eq!(live.pending(), 0);
        }

        /// A frame given after the line went idle for a while is the batch chain's frame after
        /// as many idle transfers; events name the right blocks.
        #[test]
        fn frames_given_late_equal_the_batch_chain_with_idles(script in proptest::collection::vec((1usize..700, 0u64..5), 1..8)) {
            let opt = tx_opt();
            let mut live = LiveTx::new(&opt);
            let mut got = Vec::new();
            let mut words = Vec::new();
            let mut events = Vec::new();
            for (i, &(len, idle)) in script.iter().enumerate() {
                let id = live.send(&frame(len, i as u8), None).unwrap();
                loop {
                    let c = live.clock().unwrap();
                    got.push(c.line);
                    words.push(c.word);
                    if c.events() != 0 {
                        events.push((c.index, c.events(), c.start));
                    }
                    if let Some(e) = c.end {
                        prop_assert_eq!(e, id);
                        break;
                    }
                }
                for _ in 0..idle {
                    let c = live.clock().unwrap();
                    got.push(c.line);
                    words.push(c.word);
                }
            }
            let n = got.len();
            prop_assert_eq!(&got, &batch(&opt, &script, n));
            // Every START is an /S/ in its lane, every END holds a /T/.
            for (i, ev, start) in events {
                let w = words[i as usize];
                if let Some((_, lane)) = start {
                    prop_assert!(w.is_control(lane as usize) && w.octet(lane as usize) == ControlChar::START.0);
                }
                if ev & event::END != 0 {
                    prop_assert!((0..8).any(|l| w.is_control(l) && w.octet(l) == ControlChar::TERMINATE.0));
                }
            }
        }

        /// Serdes words are the line blocks' bits in order.
        #[test]
        fn serdes_words_are_the_line_bits(width in prop_oneof![Just(32u32), Just(64u32)], lens in proptest::collection::vec(1usize..300, 1..5)) {
            let opt = tx_opt();
            let mut a = LiveTx::new(&opt);
            let mut b = LiveTx::new(&opt);
            for (i, &l) in lens.iter().enumerate() {
                a.send(&frame(l, i as u8), None).unwrap();
                b.send(&frame(l, i as u8), None).unwrap();
            }
            let words: Vec<u64> = (0..200).map(|_| a.next_word(width).unwrap()).collect();
            let mut bits = Vec::new();
            for w in &words {
                bits.extend((0..width).map(|i| (w >> i) & 1 == 1));
            }
            let mut want = Vec::new();
            while want.len() < bits.len() {
                let l = b.clock().unwrap().line;
                want.push(l.sync.to_bits() & 1 == 1);
                want.push(l.sync.to_bits() >> 1 == 1);
                want.extend((0..64).map(|i| (l.payload >> i) & 1 == 1));
            }
            want.truncate(bits.len());
            prop_assert_eq!(bits, want);
        }
    }

    fn rx_opt() -> RxOptions {
        crate::Options::default().rx()
    }

    fn blocks_input() -> RxInput {
        RxInput::Blocks {
            scrambled: true,
            descrambler_state: None,
        }
    }

    /// A run through a checker: `fill` reset-fill blocks, then the TX model's blocks, each
    /// passed through `fault(index_after_fill, block)`.
    fn run(
        lens: &[usize],
        fill: usize,
        fault: impl Fn(u64, Block) -> Block,
        expect: &[usize],
    ) -> (LiveCheck, Vec<TxClock>) {
        let mut tx = LiveTx::new(&tx_opt());
        let mut chk = LiveCheck::new(&rx_opt(), blocks_input(), ("e".into(), "d".into()));
        for (i, &l) in lens.iter().enumerate() {
            tx.send(&frame(l, i as u8), None).unwrap();
        }
        for &i in expect {
            chk.expect(&frame(lens[i], i as u8));
        }
        let fill_block = Block {
            sync: SyncHeader::from_bits(0),
            payload: 0,
        };
        for _ in 0..fill {
            chk.push_block(fill_block).unwrap();
        }
        let mut clocks = Vec::new();
        while tx.pending() > 0 || clocks.len() < 40 {
            let c = tx.clock().unwrap();
            chk.push_block(fault(c.index, c.line)).unwrap();
            clocks.push(c);
        }
        for _ in 0..4 {
            let c = tx.clock().unwrap();
            chk.push_block(c.line).unwrap();
        }
        (chk, clocks)
    }

    #[test]
    fn a_correct_stream_with_reset_fill_and_an_unknown_scrambler_passes() {
        let lens = [60, 61, 100, 1514, 64, 9, 300];
        let all: Vec<usize> = (0..lens.len()).collect();
        let (mut chk, _) = run(&lens, 17, |_, b| b, &all);
        assert_eq!(chk.count(), 0, "{:?}", chk.divergences());
        let (rep, cases) = chk.finish().unwrap();
        assert_eq!(rep.verdict, "pass", "{cases:?}");
        assert_eq!(rep.summary.matched, lens.len());
        assert_eq!(rep.pcs.reset_fill_blocks, 17);
        assert!(chk.finish().is_err(), "finished twice");
    }

    #[test]
    fn a_flipped_payload_bit_is_found_at_its_block() {
        let lens = [100, 200, 300];
        let all: Vec<usize> = (0..3).collect();
        // Find the blocks of frame 1 first, from a clean run.
        let (_, clocks) = run(&lens, 0, |_, b| b, &all);
        let start = clocks
            .iter()
            .find(|c| c.start.is_some_and(|(id, _)| id == 1))
            .unwrap()
            .index;
        let target = start + 5; // a data block inside frame 1
        let fill = 3u64;
        let (mut chk, _) = run(
            &lens,
            fill as usize,
            |i, mut b| {
                if i == target {
                    b.payload ^= 1 << 20; // bit 20 is octet 2's bit 4 (before descrambling)
                }
                b
            },
            &all,
        );
        let first = chk.divergences().first().cloned().expect("a divergence");
        assert_eq!(first.block, fill + target, "{first:?}");
        assert_eq!(first.expected_frame, Some(1));
        assert!(
            first.what.contains("differs from expected frame 1"),
            "{}",
            first.what
        );
        assert!(first.found_at > first.block);
        let (rep, _) = chk.finish().unwrap();
        assert_eq!(rep.verdict, "fail");
        assert_eq!(rep.summary.corrupted, 1);
    }

    #[test]
    fn an_invalid_header_is_found_at_its_block_and_a_missing_frame_when_the_next_arrives() {
        let lens = [100, 200, 300];
        let (mut chk, _) = run(
            &lens,
            0,
            |i, mut b| {
                if i == 10 {
                    b.sync = SyncHeader::from_bits(3);
                }
                b
            },
            &[0, 1, 1, 2],
        );
        let d = chk.divergences();
        assert_eq!(d[0].block, 10, "{d:?}");
        assert_eq!(d[0].found_at, 10);
        assert!(d[0].what.contains("invalid sync header"), "{}", d[0].what);
        // Expected frame 2 (a second copy of record 1) never came: frame 2 arrived first.
        assert!(
            d.iter()
                .any(|x| x.what.contains("expected frame 2 missing")),
            "{d:?}"
        );
        let (rep, _) = chk.finish().unwrap();
        assert_eq!(rep.verdict, "fail");
        assert_eq!(rep.summary.missing, 1);
        assert_eq!(rep.pcs.invalid_headers, 1);
    }

    #[test]
    fn an_unexpected_frame_and_a_wrong_input_are_reported() {
        let (mut chk, _) = run(&[80, 90], 0, |_, b| b, &[0]);
        assert_eq!(chk.count(), 1);
        assert!(chk.last().unwrap().what.contains("unexpected"));
        assert!(matches!(
            chk.push_xgmii(XgmiiWord::IDLE),
            Err(LiveError::Input(_))
        ));
        let mut tx = LiveTx::new(&tx_opt());
        assert_eq!(tx.next_word(48), Err(LiveError::Width(48)));
        assert!(tx.send(&[0; 20000], None).is_err());
    }

    /// The block after the reset fill trains the descrambler; its header is still tested.
    #[test]
    fn an_invalid_header_on_the_training_block_is_found() {
        for bad in [0u8, 3] {
            let (mut chk, _) = run(
                &[100],
                5,
                |i, mut b| {
                    if i == 0 {
                        b.sync = SyncHeader::from_bits(bad);
                        b.payload |= 1;
                    }
                    b
                },
                &[0],
            );
            let first = chk.divergences().first().cloned().expect("a divergence");
            assert_eq!(first.block, 5, "{first:?}");
            assert!(first.what.contains("invalid sync header"), "{first:?}");
            let (rep, _) = chk.finish().unwrap();
            assert_eq!((rep.verdict, rep.pcs.invalid_headers), ("fail", 1));
        }
    }

    /// A frame whose FCS alone is wrong is named at the block of the wrong FCS octet.
    #[test]
    fn a_wrong_fcs_is_found_at_its_block() {
        // Unscrambled blocks: a flipped bit stays where it is.
        let mut tx = LiveTx::new(&tx_opt());
        let mut chk = LiveCheck::new(
            &rx_opt(),
            RxInput::Blocks {
                scrambled: false,
                descrambler_state: None,
            },
            ("e".into(), "d".into()),
        );
        for i in 0..2u8 {
            tx.send(&frame(100, i), None).unwrap();
            chk.expect(&frame(100, i));
        }
        // Frame 0: /S/ in block 3 lane 0, DA at octet 32, 104 octets with FCS: its FCS is
        // octets 132..135, lanes 4..7 of block 16.
        for _ in 0..60 {
            let c = tx.clock().unwrap();
            let mut b = c.unscrambled;
            if c.index == 16 {
                b.payload ^= 1 << 45; // lane 5: FCS octet 1
            }
            chk.push_block(b).unwrap();
        }
        let first = chk.divergences().first().cloned().expect("a divergence");
        assert!(first.what.contains("fcs_error"), "{first:?}");
        assert_eq!(first.block, 16, "{first:?}");
        assert_eq!(chk.count(), 1);
        assert_eq!(chk.finish().unwrap().0.verdict, "fail");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// The report at the end equals the judge over the whole run (the settled frames
        /// included), whatever the faults: dropped, corrupted and repeated blocks.
        #[test]
        fn the_final_report_equals_the_judge_over_the_whole_run(
            lens in proptest::collection::vec(1usize..400, 1..10),
            faults in proptest::collection::vec((0u64..400, 0u8..3), 0..3),
        ) {
            let mut tx = LiveTx::new(&tx_opt());
            for (i, &l) in lens.iter().enumerate() {
                tx.send(&frame(l, i as u8), None).unwrap();
            }
            let mut line = Vec::new();
            let mut tail = 3;
            while tail > 0 {
                if tx.pending() == 0 { tail -= 1; }
                let b = tx.clock().unwrap().line;
                let i = line.len() as u64;
                match faults.iter().find(|(at, _)| *at == i).map(|f| f.1) {
                    Some(0) => {}                                // dropped
                    Some(1) => line.push(Block { payload: b.payload ^ 0x10_0000, ..b }),
                    Some(_) => { line.push(b); line.push(b); }   // repeated
                    None => line.push(b),
                }
            }
            let mut chk = LiveCheck::new(&rx_opt(), blocks_input(), ("e".into(), "d".into()));
            for (i, &l) in lens.iter().enumerate() {
                chk.expect(&frame(l, i as u8));
            }
            for &b in &line {
                chk.push_block(b).unwrap();
            }
            let (live, _) = chk.finish().unwrap();
            let mut rx = RxChain::new(&rx_opt(), blocks_input(), Vec::<ReceivedFrame>::new());
            rx.push_blocks(&line);
            let (_, _, received) = rx.finish().unwrap();
            let expected: Vec<Expected> = lens.iter().enumerate()
                .map(|(i, &l)| Expected { index: i as u64, data: frame(l, i as u8) }).collect();
            let whole = judge::compare(&expected, &received);
            prop_assert_eq!(
                serde_json::to_value(&live.frames).unwrap(),
                serde_json::to_value(&whole.frames).unwrap()
            );
            prop_assert_eq!(
                serde_json::to_value(&live.extra_frames).unwrap(),
                serde_json::to_value(&whole.extra).unwrap()
            );
            prop_assert_eq!(live.summary.expected, lens.len());
        }
    }

    /// Frames given by a test bench (a scoreboard) are judged as the stream's are.
    #[test]
    fn frames_pushed_directly_are_judged_and_reported() {
        let mut chk = LiveCheck::new(&rx_opt(), RxInput::Xgmii, ("e".into(), "d".into()));
        let frames: Vec<Vec<u8>> = (0..4).map(|i| frame(80 + i, i as u8)).collect();
        for f in &frames {
            chk.expect(f);
        }
        let rf = |data: &[u8], ok: bool| {
            let mut d = data.to_vec();
            let fcs = mac_core::frame::fcs_padded_with::<crate::fcs::FastFcs>(data, 0);
            d.extend_from_slice(&(if ok { fcs } else { !fcs }).to_le_bytes());
            ReceivedFrame {
                index: 0,
                class: if ok {
                    mac_core::rx::RxClass::Ok
                } else {
                    mac_core::rx::RxClass::FrameCheckSequenceError
                },
                len: d.len(),
                data: d,
                fcs_ok: ok,
                start: crate::tx::Placement::default(),
                gap_octets: None,
                link_down: false,
            }
        };
        // The MAC's classification of octets: good, a bad FCS, a runt.
        let good = received_from_octets(&rf(&frames[0], true).data, &rx_opt());
        assert_eq!((good.class, good.len), (mac_core::rx::RxClass::Ok, 84));
        let bad = received_from_octets(&rf(&frames[0], false).data, &rx_opt());
        assert_eq!(bad.class, mac_core::rx::RxClass::FrameCheckSequenceError);
        let short = received_from_octets(&rf(&frames[0][..40], true).data, &rx_opt());
        assert_eq!(short.class, mac_core::rx::RxClass::Runt);
        assert_eq!(chk.push_frame(rf(&frames[0], true)), 0);
        assert_eq!(chk.push_frame(rf(&frames[2], true)), 1, "frame 1 missing");
        assert_eq!(chk.push_frame(rf(&frames[3], false)), 1, "a bad FCS");
        let (rep, _) = chk.finish().unwrap();
        assert_eq!(rep.verdict, "fail");
        assert_eq!((rep.summary.matched, rep.summary.missing), (3, 1));
        assert_eq!(rep.summary.bad_class, 1);
    }
}
