//! The model one clock at a time, for a simulator that calls it every cycle (the C ABI and its
//! SystemVerilog package; the Python package's models).
//!
//! ```text
//! LiveTx:    send(frame) ... clock() -> one line block a clock   (TxChain, flushed per transfer)
//!            clocks(n) -> n blocks at once (an idle stretch made in one go)
//! SerdesTx:  LiveTx's line -> 66-bit units / gearbox words from any bit offset, moved by slips
//! LiveCheck: expect(frame) ... push(DUT block) -> divergences as they happen   (RxChain)
//!            push_blocks(n): the same, the batch cut where frames end
//!            frames(): push_delivered(octets, error) -> a frame interface's frames judged alike
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
use crate::fec::{FecDecoder, FecLine, FecOptions, FecSummary, Rate};
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

mod view;
pub use view::{RxView, WordTap, MAX_HELD_CLOCKS};

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

impl Default for TxClock {
    fn default() -> Self {
        Self {
            index: 0,
            line: Block::IDLE,
            unscrambled: Block::IDLE,
            word: XgmiiWord::IDLE,
            start: None,
            sfd: None,
            end: None,
        }
    }
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
    /// The blocks before scrambling are wanted (the encoder's per-block path makes them).
    unscrambled: bool,
}

impl TxSink for Queue {
    fn forms(&self) -> TxForms {
        TxForms {
            words: true,
            unscrambled: self.unscrambled,
            serial: false,
            line: true,
        }
    }

    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        let unscrambled = b.unscrambled.unwrap_or_default();
        let blocks = b.words.iter().zip(b.line).enumerate();
        self.blocks.extend(blocks.map(|(i, (w, l))| {
            let u = unscrambled.get(i).copied().unwrap_or(*l);
            (*w, *l, u)
        }));
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

/// The lanes of `w` holding a `/T/`, as a lane mask.
fn terminate_lanes(w: XgmiiWord) -> u8 {
    let mut lanes = 0u8;
    for (l, o) in w.data.to_le_bytes().iter().enumerate() {
        lanes |= u8::from(*o == ControlChar::TERMINATE.0) << l;
    }
    lanes & w.ctrl
}

/// The clock of `out` (whose first is block `first`) that hands out block `block`.
fn slot_of(out: &mut [TxClock], first: u64, block: u64) -> Option<&mut TxClock> {
    out.get_mut(usize::try_from(block.checked_sub(first)?).ok()?)
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
    /// The FEC below the PCS ([`LiveTx::with_fec`]): a clock is then 66 line bits of it.
    fec: Option<Box<FecLine>>,
    /// Clocks of the FEC's line handed out.
    fec_clocks: u64,
    /// Marks of the blocks the FEC took and not handed out yet: a clock hands out at most one
    /// of each kind (the FEC takes two blocks in a clock at times, and its first codeword's
    /// at once).
    fec_marks: Box<FecMarks>,
}

/// Marks of blocks a FEC took from the source, each handed out with a clock of its line.
#[derive(Default)]
struct FecMarks {
    starts: VecDeque<(u64, u8)>,
    sfds: VecDeque<u64>,
    ends: VecDeque<u64>,
}

impl LiveTx {
    /// A model out of reset; `opt.idle_blocks` idle transfers come first.
    pub fn new(opt: &TxOptions) -> Self {
        Self::with_forms(opt, true)
    }

    /// [`LiveTx::new`] that hands out line blocks only ([`TxClock::unscrambled`] is the line
    /// block): the encoder's batch path, for a door that hands out scrambled blocks.
    pub fn line_only(opt: &TxOptions) -> Self {
        Self::with_forms(opt, false)
    }

    fn with_forms(opt: &TxOptions, unscrambled: bool) -> Self {
        Self {
            chain: TxChain::new(
                opt,
                Queue {
                    blocks: VecDeque::new(),
                    unscrambled,
                },
            ),
            waiting: VecDeque::new(),
            marks: VecDeque::new(),
            next_id: 0,
            handed: 0,
            scrambler: opt.seed,
            opt: *opt,
            unit: 0,
            unit_left: 0,
            fec: None,
            fec_clocks: 0,
            fec_marks: Box::default(),
        }
    }

    /// [`LiveTx::new`] with a FEC below the PCS (none: as [`LiveTx::new`]): each clock hands
    /// out 66 bits of the FEC's line (a [`TxClock`]'s `line` and `unscrambled` are then those
    /// bits as a unit, bit 0 first: `sync` the first 2, `payload` the next 64, at no block
    /// boundary), and the events of the PCS blocks the FEC took from the source in it; its
    /// `word` is idle. Serial words ([`LiveTx::next_word`]) and the serdes ([`SerdesTx`]) carry
    /// the FEC's line. The source is held for the RS-FEC marker ([`FecLine`]).
    ///
    /// # Errors
    /// A FEC the rate does not have (RS-FEC needs 25G), or a Clause 108 setting the standard
    /// refuses.
    pub fn with_fec(opt: &TxOptions, rate: Rate, fec: &FecOptions) -> Result<Self, String> {
        fec.check(rate)?;
        let mut tx = Self::line_only(opt);
        tx.fec = FecLine::new(fec)?.map(Box::new);
        Ok(tx)
    }

    /// The FEC's line, if there is one: blocks taken, source held, codewords made.
    pub fn fec(&self) -> Option<&FecLine> {
        self.fec.as_deref()
    }

    /// Takes the FEC's line away (to carry it on below a model with new settings:
    /// [`LiveTx::put_fec`]).
    pub fn take_fec(&mut self) -> Option<Box<FecLine>> {
        self.fec.take()
    }

    /// Puts a FEC's line below this model, as [`LiveTx::take_fec`] took it: its codewords go
    /// on where they were.
    pub fn put_fec(&mut self, fec: Box<FecLine>) {
        self.fec = Some(fec);
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

    /// Makes the next transfers: the next waiting frame, or `idle` idle transfers (a batch's
    /// idle stretch in one go).
    fn refill(&mut self, idle: u64) -> Result<(), TxError> {
        // The queue is empty: its first block after the flush is the next one handed out.
        let first = self.handed;
        match self.waiting.pop_front() {
            Some((id, data, fcs)) => {
                let start = self.chain.frame(&data, fcs)?;
                self.chain.flush();
                let q = &self.chain_queue().blocks;
                let from = start.block.saturating_sub(first) as usize;
                // The /T/ after the /S/: the block the frame ends in, the last block holding a
                // /T/ (the queue held nothing before the frame), found from the end.
                let end = q
                    .iter()
                    .enumerate()
                    .skip(from)
                    .rev()
                    .find(|(i, (w, _, _))| {
                        let after_start = if first + *i as u64 == start.block {
                            !((2u16 << start.lane) - 1) as u8
                        } else {
                            0xff
                        };
                        terminate_lanes(*w) & after_start != 0
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
                self.chain.idle(idle.max(1));
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
        let mut c = TxClock::default();
        self.clocks(std::slice::from_mut(&mut c))?;
        Ok(c)
    }

    /// The next `out.len()` blocks, made together: an idle stretch in one go, so a batch costs
    /// less than as many [`LiveTx::clock`]s. The same blocks as that many clocks when every
    /// frame is given before the call; a frame given later starts after them.
    ///
    /// # Errors
    /// As [`LiveTx::clock`] (the blocks before the refused frame are lost).
    pub fn clocks(&mut self, out: &mut [TxClock]) -> Result<(), TxError> {
        let Some(mut fec) = self.fec.take() else {
            return self.pcs_clocks(out);
        };
        let r = out
            .iter_mut()
            .try_for_each(|slot| self.fec_clock(&mut fec, slot));
        self.fec = Some(fec);
        r
    }

    /// One clock of the FEC's line: 66 bits, with the events of the blocks taken in it.
    fn fec_clock(&mut self, fec: &mut FecLine, slot: &mut TxClock) -> Result<(), TxError> {
        let bits = fec.bits(66, || {
            let mut c = TxClock::default();
            self.pcs_clocks(std::slice::from_mut(&mut c))?;
            let m = &mut self.fec_marks;
            m.starts.extend(c.start);
            m.sfds.extend(c.sfd);
            m.ends.extend(c.end);
            Ok(c.line)
        })?;
        let m = &mut self.fec_marks;
        let marks = TxClock {
            start: m.starts.pop_front(),
            sfd: m.sfds.pop_front(),
            end: m.ends.pop_front(),
            ..TxClock::default()
        };
        let unit = Block {
            sync: pcs_core::SyncHeader::from_bits((bits & 3) as u8),
            payload: (bits >> 2) as u64,
        };
        *slot = TxClock {
            index: self.fec_clocks,
            line: unit,
            unscrambled: unit,
            ..marks
        };
        self.fec_clocks += 1;
        Ok(())
    }

    /// [`LiveTx::clocks`] of the PCS: line blocks.
    fn pcs_clocks(&mut self, out: &mut [TxClock]) -> Result<(), TxError> {
        let mut rest = out;
        while !rest.is_empty() {
            let mut refused = None;
            while self.chain_queue().blocks.is_empty() {
                if let Err(e) = self.refill(rest.len() as u64) {
                    refused = Some(e);
                }
            }
            if let Some(e) = refused {
                return Err(e);
            }
            // Hand out what is made, in place.
            let n = rest.len().min(self.chain_queue().blocks.len());
            let (now, later) = rest.split_at_mut(n);
            self.hand_out(now);
            rest = later;
        }
        Ok(())
    }

    /// The next `out.len()` blocks made (the queue holds that many), into `out`, with their
    /// events: the marks are looked at once a batch, not once a block.
    fn hand_out(&mut self, out: &mut [TxClock]) {
        let first = self.handed;
        let q = &mut self.chain.sink_mut().blocks;
        let n = out.len().min(q.len());
        for (i, (slot, (word, line, unscrambled))) in out.iter_mut().zip(q.drain(..n)).enumerate() {
            *slot = TxClock {
                index: first + i as u64,
                line,
                unscrambled,
                word,
                start: None,
                sfd: None,
                end: None,
            };
        }
        let next = first + n as u64;
        self.handed = next;
        if let Some(last) = out.get(n.wrapping_sub(1)) {
            self.scrambler = last.line.payload >> 6;
        }
        // The marks are in the order of their frames: of those that start before `next`, set
        // the events that fall in this batch.
        let out = out.get_mut(..n).unwrap_or_default();
        for m in self.marks.iter().take_while(|m| m.start.block < next) {
            if let Some(s) = slot_of(out, first, m.start.block) {
                s.start = Some((m.id, m.start.lane));
            }
            if let Some(s) = slot_of(out, first, m.sfd) {
                s.sfd = Some(m.id);
            }
            if let Some(s) = slot_of(out, first, m.end) {
                s.end = Some(m.id);
            }
        }
        while self.marks.front().is_some_and(|m| m.end < next) {
            self.marks.pop_front();
        }
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

// -------------------------------------------------------------------------------- serdes

/// Which line bits of a 66-bit unit are its `header` and its `data` ([`SerdesForm::Units`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitOrder {
    /// `header` the unit's first 2 line bits, `data` the next 64: at the block boundary, the
    /// sync header and payload of one block.
    HeaderFirst,
    /// `data` the unit's first 64 line bits, `header` the last 2.
    DataFirst,
}

/// What a serdes hands a receiver each clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SerdesForm {
    /// One 66-bit unit a clock: the receiver's bit slip moves the unit boundary through the
    /// line until it is the block boundary (a 64b/66b receiver without a gearbox of its own).
    Units(UnitOrder),
    /// A 64b/66b gearbox's 64-bit words: 32 blocks in a sequence of 33 clocks, clock 32
    /// carrying nothing (`data_valid` and `header_valid` low); each other clock a header and a
    /// 64-bit payload.
    Gearbox64,
    /// A 64b/66b gearbox's 32-bit words: 32 blocks in a sequence of 66 clocks, a block over
    /// two clocks (the header with the first 32 payload bits, `header_valid` high, then the
    /// last 32), clocks 64 and 65 carrying nothing.
    Gearbox32,
}

impl SerdesForm {
    /// Clocks in one gearbox sequence (1 for units).
    pub fn sequence_length(self) -> u32 {
        match self {
            Self::Units(_) => 1,
            Self::Gearbox64 => 33,
            Self::Gearbox32 => 66,
        }
    }
}

/// One clock of a serdes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SerdesWord {
    /// The 2 header bits (bit 0 first on the line), when `header_valid`.
    pub header: u8,
    /// The data bits (bit 0 first on the line; 32 of them for [`SerdesForm::Gearbox32`]).
    pub data: u64,
    /// The clock carries data bits.
    pub data_valid: bool,
    /// The clock carries a header.
    pub header_valid: bool,
    /// The clock's place in the gearbox sequence (0 for units).
    pub sequence: u32,
}

/// Where a serdes is in the line: its next line bit, its sequence clock, a slip not yet made.
#[derive(Clone, Copy, Debug, Default)]
struct SerdesState {
    pos: u64,
    sequence: u32,
    slip: bool,
}

/// The 66 line bits of a block, bit 0 first.
fn unit_of(b: Block) -> u128 {
    u128::from(b.sync.to_bits()) | u128::from(b.payload) << 2
}

/// A serdes between the TX model and a receiver that finds block lock by bit slip: the
/// model's line bits cut into units (or gearbox words) from any bit offset; each slip the
/// receiver asks for drops one line bit at the next unit, so the unit boundary moves one bit
/// towards the block boundary. From offset `k`, `k` slips align the units with the blocks.
///
/// A batch of words can be taken back: [`SerdesTx::keep`] says how many went on the wire,
/// the rest are made again by the next call (after a slip that came in between).
///
/// Spec: IEEE 802.3 §49.2.9, Fig. 49-14 (the `SLIP` a receiver's lock search asks for).
pub struct SerdesTx {
    form: SerdesForm,
    /// Line units from line bit `base` on; the first is the filler in front of the line.
    line: Vec<u128>,
    base: u64,
    state: SerdesState,
    /// The state before the last batch, and its length (`keep` goes back to it).
    batch: (SerdesState, usize),
    /// Blocks taken from the TX model, a few at a time.
    made: Vec<TxClock>,
}

/// Blocks a serdes takes from the TX model at a time.
const SERDES_AHEAD: usize = 16;

/// Bits in front of the line, while the offset lasts: ones (a receiver sees invalid headers
/// `11` there).
const FILLER: u128 = (1 << 66) - 1;

impl SerdesTx {
    /// A serdes whose first unit starts `offset` (0..65, taken modulo 66) bits before the first
    /// block: its first `offset` bits are filler, and the block boundary is its bit `offset`.
    pub fn new(form: SerdesForm, offset: u32) -> Self {
        Self {
            form,
            line: vec![FILLER],
            base: 0,
            state: SerdesState {
                pos: 66 - u64::from(offset % 66),
                sequence: 0,
                slip: false,
            },
            batch: (SerdesState::default(), 0),
            made: Vec::new(),
        }
    }

    /// Its form.
    pub fn form(&self) -> SerdesForm {
        self.form
    }

    /// Where the block boundary is in the next unit (0: aligned), counted as the starting
    /// offset is.
    pub fn offset(&self) -> u32 {
        ((66 - self.state.pos % 66) % 66) as u32
    }

    /// `n` (at most 66) line bits from line bit `at`, the line made as far as needed.
    #[inline]
    fn bits(&mut self, tx: &mut LiveTx, at: u64, n: u32) -> Result<u128, TxError> {
        while self.base + 66 * self.line.len() as u64 <= at + u64::from(n) {
            // A few blocks at a time: a batch of the TX model costs less than its clocks.
            self.made.resize(SERDES_AHEAD, TxClock::default());
            tx.clocks(&mut self.made)?;
            self.line.extend(self.made.iter().map(|c| unit_of(c.line)));
        }
        let off = at - self.base;
        let i = (off / 66) as usize;
        let sh = (off % 66) as u32;
        let lo = self.line.get(i).copied().unwrap_or(0) >> sh;
        let hi = match sh {
            0 => 0,
            _ => self.line.get(i + 1).copied().unwrap_or(0) << (66 - sh),
        };
        Ok((lo | hi) & ((1u128 << n) - 1))
    }

    /// One clock's place in the line: (its first line bit, how many, header first); the
    /// state moves on.
    #[inline]
    fn step(&mut self) -> (u64, u32, bool) {
        let seq = self.state.sequence;
        let (bits, header_first) = match self.form {
            SerdesForm::Units(UnitOrder::HeaderFirst) => (66, true),
            SerdesForm::Units(UnitOrder::DataFirst) => (66, false),
            SerdesForm::Gearbox64 if seq < 32 => (66, true),
            SerdesForm::Gearbox32 if seq < 64 && seq.is_multiple_of(2) => (34, true),
            SerdesForm::Gearbox32 if seq < 64 => (32, false),
            SerdesForm::Gearbox64 | SerdesForm::Gearbox32 => (0, false),
        };
        if (bits == 66 || bits == 34) && self.state.slip {
            self.state.pos += 1;
            self.state.slip = false;
        }
        let at = self.state.pos;
        self.state.pos += u64::from(bits);
        self.state.sequence = if self.form.sequence_length() == 1 {
            0
        } else {
            (seq + 1) % self.form.sequence_length()
        };
        (at, bits, header_first)
    }

    /// One clock.
    #[inline]
    fn word(&mut self, tx: &mut LiveTx) -> Result<SerdesWord, TxError> {
        let seq = self.state.sequence;
        let (at, bits, header_first) = self.step();
        let v = match bits {
            0 => 0,
            n => self.bits(tx, at, n)?,
        };
        let (header, data) = match (bits, header_first) {
            (66 | 34, true) => ((v & 3) as u8, (v >> 2) as u64),
            (66, false) => ((v >> 64) as u8, v as u64),
            _ => (0, v as u64),
        };
        Ok(SerdesWord {
            header,
            data,
            data_valid: bits != 0,
            header_valid: bits == 66 || bits == 34,
            sequence: seq,
        })
    }

    /// The next `out.len()` clocks; `slip`: the receiver asked for a bit slip before the
    /// first of them (it is made at the next unit).
    ///
    /// # Errors
    /// As [`LiveTx::clock`].
    pub fn words(
        &mut self,
        tx: &mut LiveTx,
        slip: bool,
        out: &mut [SerdesWord],
    ) -> Result<(), TxError> {
        // Units wholly before the next bit are not needed again.
        let done = ((self.state.pos - self.base) / 66) as usize;
        let done = done.min(self.line.len().saturating_sub(1));
        if done > 0 {
            self.line.drain(..done);
            self.base += 66 * done as u64;
        }
        self.state.slip |= slip;
        self.batch = (self.state, out.len());
        for w in out.iter_mut() {
            *w = self.word(tx)?;
        }
        Ok(())
    }

    /// Of the words the last [`SerdesTx::words`] made, only the first `k` went on the wire:
    /// the next call goes on from there.
    pub fn keep(&mut self, k: usize) {
        let (start, made) = std::mem::replace(&mut self.batch, (self.state, 0));
        if k < made {
            self.state = start;
            for _ in 0..k {
                self.step();
            }
        }
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
    /// The decoded transfers, kept when asked ([`LiveRx::tapped`]).
    pub words: Option<WordTap>,
}

impl RxSink for FrameQueue {
    fn wants_words(&self) -> bool {
        self.words.is_some()
    }

    fn words(
        &mut self,
        first: u64,
        words: &[XgmiiWord],
        _: Option<&[Block]>,
    ) -> std::io::Result<()> {
        if let Some(Ok(mut kept)) = self.words.as_ref().map(|t| t.lock()) {
            kept.extend((first..).zip(words.iter().copied()));
        }
        Ok(())
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
    /// The offline view while it looks for block lock ([`RxView::Offline`]).
    search: Option<Box<view::LockSearch>>,
    /// The FEC below the PCS ([`LiveRx::set_fec`]).
    fec: Option<Box<FecFront>>,
}

/// The FEC below a live receiver: serial bits in (66-bit units packed into bytes), the blocks
/// of each FEC block or codeword decoded while locked out, to a chain made for blocks.
struct FecFront {
    decoder: FecDecoder,
    packer: pcs_core::TxGearbox<u8>,
    blocks: Vec<Block>,
    /// The frames each uncorrectable unit hit, named in the summary as they arrive.
    hits: crate::fec::Hits,
}

impl FecFront {
    /// Serial bytes through the decoder; its blocks into `chain`; the frames they complete
    /// named in the uncorrectable units they had a block in.
    fn bytes(&mut self, chain: &mut RxChain<FrameQueue>, bytes: &[u8]) {
        let Self {
            decoder,
            blocks,
            hits,
            ..
        } = self;
        let before = decoder.summary().uncorrectable.len();
        blocks.clear();
        decoder.push_bytes(bytes, |b| blocks.extend_from_slice(b));
        hits.open(decoder.summary(), before);
        let queued = chain.sink_mut().frames.len();
        chain.push_blocks(blocks);
        let frames = &chain.sink_mut().frames;
        if frames.len() > queued && decoder.summary().uncorrected_codewords > 0 {
            for f in frames.range(queued..) {
                hits.frame(f.index, f.start, f.len);
            }
            hits.name(decoder.summary_mut());
        }
    }

    /// 66-bit units (any boundary) through the decoder.
    fn units(&mut self, chain: &mut RxChain<FrameQueue>, units: &[Block]) {
        let mut bytes = Vec::with_capacity(units.len() * 9);
        for &u in units {
            bytes.extend_from_slice(self.packer.push_block(u).as_slice());
        }
        self.bytes(chain, &bytes);
    }
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
            search: None,
            fec: None,
        }
    }

    /// Puts a FEC below the PCS of a model made for serial input, before its first clock (no
    /// FEC: nothing changes): the FEC finds its boundary from any bit offset and hands the
    /// PCS the blocks of each FEC block or codeword decoded while locked (its block lock is
    /// the FEC's; the view does not apply). `opt` are the options the model was made with.
    ///
    /// # Errors
    /// A FEC the rate does not have, a Clause 108 setting the standard refuses, a model made
    /// for blocks or XGMII transfers, or one already given input.
    pub fn set_fec(&mut self, opt: &RxOptions, rate: Rate, fec: &FecOptions) -> Result<(), String> {
        fec.check(rate)?;
        let Some(decoder) = FecDecoder::new(fec, opt.max_events)? else {
            return Ok(());
        };
        if !matches!(self.input, RxInput::Serial) {
            return Err(format!(
                "a {} FEC sits below a serial line: the model takes serial input",
                fec.kind
            ));
        }
        let chain = self.chain.as_mut().ok_or_else(|| "finished".to_string())?;
        if chain.blocks_received() > 0 || self.search.as_ref().is_some_and(|s| s.started()) {
            return Err("the FEC is set before the first clock".into());
        }
        let queue = std::mem::take(chain.sink_mut());
        let input = RxInput::Blocks {
            scrambled: true,
            descrambler_state: None,
        };
        self.chain = Some(RxChain::new(opt, input, queue));
        self.search = None;
        self.fec = Some(Box::new(FecFront {
            decoder,
            packer: pcs_core::TxGearbox::new(),
            blocks: Vec::new(),
            hits: crate::fec::Hits::default(),
        }));
        Ok(())
    }

    /// What the FEC saw so far (`None`: no FEC).
    pub fn fec(&self) -> Option<&FecSummary> {
        self.fec.as_ref().map(|f| f.decoder.summary())
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
        self.push_blocks(&[b])
    }

    /// 66-bit blocks, one a clock (block input): the chain's batch path takes them together.
    ///
    /// # Errors
    /// As [`LiveRx::push_block`].
    pub fn push_blocks(&mut self, blocks: &[Block]) -> Result<(), LiveError> {
        if !matches!(self.input, RxInput::Blocks { .. }) {
            return Err(LiveError::Input(
                "a block pushed to a model made for serial words or XGMII transfers",
            ));
        }
        self.chain()?.push_blocks(blocks);
        Ok(())
    }

    /// One serdes word of `width` bits (32 or 64; bit 0 first on the wire).
    ///
    /// # Errors
    /// Another width; the model takes blocks or XGMII transfers, or was finished.
    pub fn push_word(&mut self, width: u32, word: u64) -> Result<(), LiveError> {
        self.push_words(width, &[word])
    }

    /// Serdes words of `width` bits, one a clock.
    ///
    /// # Errors
    /// As [`LiveRx::push_word`].
    pub fn push_words(&mut self, width: u32, words: &[u64]) -> Result<(), LiveError> {
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
        let mut bytes = Vec::with_capacity(words.len() * n);
        for w in words {
            bytes.extend_from_slice(w.to_le_bytes().get(..n).unwrap_or_default());
        }
        self.serial_bytes(&bytes)?;
        Ok(())
    }

    /// One XGMII transfer.
    ///
    /// # Errors
    /// The model takes blocks or serial words, or was finished.
    pub fn push_xgmii(&mut self, w: XgmiiWord) -> Result<(), LiveError> {
        self.push_transfers(&[w])
    }

    /// XGMII transfers, one a clock.
    ///
    /// # Errors
    /// As [`LiveRx::push_xgmii`].
    pub fn push_transfers(&mut self, words: &[XgmiiWord]) -> Result<(), LiveError> {
        if self.input != RxInput::Xgmii {
            return Err(LiveError::Input(
                "an XGMII transfer pushed to a model made for blocks or serial words",
            ));
        }
        self.chain()?.push_xgmii(words);
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
        self.end_search();
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

/// The offset of the first octet where a received frame whose content is right differs from
/// the frame the model sends: its FCS, or its end.
fn fcs_difference(e: &Expected, f: &ReceivedFrame) -> Option<usize> {
    let mut full = judge::padded(&e.data).into_owned();
    let fcs = mac_core::frame::fcs_padded_with::<crate::fcs::FastFcs>(&full, 0);
    full.extend_from_slice(&fcs.to_le_bytes());
    Some(judge::first_difference(&full, &f.data)?.offset)
}

/// A divergence the live checker found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// The block of the DUT's stream where it is (0 = the first block pushed): the invalid
    /// header's block, the block of the first differing octet, the `/S/` of a frame in error.
    /// For a frames checker ([`LiveCheck::frames`]), the beat.
    pub block: u64,
    /// The block whose push found it (a frame is judged when the MAC delivers it, one block
    /// after its `/T/`; a delivered frame at its last beat).
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

/// What the checker's positions count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Positions {
    /// Blocks (transfers, for XGMII input) of the DUT's stream; the receiver decides a block
    /// `delay` blocks after it arrives (1: the decoder looks at the next block's type).
    Line { delay: u64 },
    /// Beats of the DUT's frame interface, `octets` to a full beat.
    Beats { octets: u32 },
}

/// Frames a DUT delivered, framed for the model's MAC receiver (a frames checker): one
/// transmitter and one receiver for the run, so every frame is classified by the same MAC.
struct Framer {
    mac: crate::fcs::MacTx,
    octets: Vec<u8>,
    words: Vec<XgmiiWord>,
}

/// Marks the last octet before the frame's `/T/` as an error character `/E/`.
fn mark_error(words: &mut [XgmiiWord]) {
    let end = words
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, w)| {
            let t = terminate_lanes(*w);
            (t != 0).then(|| i * 8 + t.trailing_zeros() as usize)
        })
        .unwrap_or(0);
    let Some(at) = end.checked_sub(1) else { return };
    if let Some(w) = words.get_mut(at / 8) {
        let lane = at % 8;
        w.data = (w.data & !(0xff << (8 * lane))) | u64::from(ControlChar::ERROR.0) << (8 * lane);
        w.ctrl |= 1 << lane;
    }
}

/// Where frames end in the DUT's stream, seen ahead of the receiver: a batch is cut so that
/// the block (transfer) at which the receiver delivers a frame is the last of a piece, and
/// the frame is found there, as pushes one at a time find it.
struct Ends {
    /// Block input: a descrambler of its own (self-synchronizing: right from the second
    /// block), `None` for unscrambled blocks.
    descrambler: Option<pcs_core::Descrambler>,
    in_frame: bool,
    /// Block input: the next block is the one after a frame's end.
    cut_next: bool,
}

impl Ends {
    /// Whether a frame under way ends in block `b`: any control block ends it.
    fn block(&mut self, b: Block) -> bool {
        let payload = match &mut self.descrambler {
            Some(d) => d.descramble(b.payload),
            None => b.payload,
        };
        if b.sync != pcs_core::SyncHeader::CONTROL {
            return false;
        }
        // Table 49-7: the block types holding a /S/.
        let ended = self.in_frame;
        self.in_frame = matches!(payload as u8, 0x78 | 0x33 | 0x66);
        ended
    }

    /// Whether a frame under way ends in transfer `w`: any control character ends it.
    fn transfer(&mut self, w: XgmiiWord) -> bool {
        if w.ctrl == 0 {
            return false;
        }
        let start = (0..8)
            .rev()
            .find(|&l| w.is_control(l) && w.octet(l) == ControlChar::START.0);
        let ended = self.in_frame;
        self.in_frame = start.is_some_and(|l| w.ctrl >> l == 1);
        ended
    }
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
    positions: Positions,
    framer: Option<Framer>,
    ends: Ends,
}

impl LiveCheck {
    /// Puts a FEC below the PCS of a checker of a serial line, before its first clock
    /// ([`LiveRx::set_fec`]); [`LiveCheck::finish`] then adds the FEC's checks and summary.
    ///
    /// # Errors
    /// As [`LiveRx::set_fec`].
    pub fn set_fec(&mut self, opt: &RxOptions, rate: Rate, fec: &FecOptions) -> Result<(), String> {
        self.rx.set_fec(opt, rate, fec)
    }

    /// The receiver it runs (its PCS summary, counts, status and FEC).
    pub fn receiver(&self) -> &LiveRx {
        &self.rx
    }

    /// A checker out of reset; `names` are the expected frames' and the DUT's names in the
    /// reports.
    pub fn new(opt: &RxOptions, input: RxInput, names: (String, String)) -> Self {
        let delay = u64::from(input != RxInput::Xgmii);
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
            positions: Positions::Line { delay },
            framer: None,
            ends: Ends {
                descrambler: matches!(
                    input,
                    RxInput::Blocks {
                        scrambled: true,
                        ..
                    }
                )
                .then(pcs_core::Descrambler::default),
                in_frame: false,
                cut_next: false,
            },
        }
    }

    /// A frames checker: it takes the frames a DUT delivers on a frame interface (octets
    /// and an error flag, [`LiveCheck::push_delivered`]) rather than a line, and judges them
    /// as [`LiveCheck::new`]'s checker judges the frames of a stream. Positions count beats of
    /// `beat_octets` octets (8 for a 64-bit AXI stream).
    pub fn frames(opt: &RxOptions, names: (String, String), beat_octets: u32) -> Self {
        let mut c = Self::new(opt, RxInput::Xgmii, names);
        c.positions = Positions::Beats {
            octets: beat_octets.max(1),
        };
        c.framer = Some(Framer {
            mac: crate::fcs::MacTx::with_engine(mac_core::tx::TxConfig::default()),
            octets: Vec::new(),
            words: Vec::new(),
        });
        c
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

    /// Blocks pushed so far.
    fn blocks(&self) -> u64 {
        self.rx.status().blocks
    }

    /// One DUT block; returns the divergences it revealed.
    ///
    /// # Errors
    /// As [`LiveRx::push_block`].
    pub fn push_block(&mut self, b: Block) -> Result<usize, LiveError> {
        self.push_blocks(&[b])
    }

    /// DUT blocks, one a clock, taken together (the RX chain's batch path): the same
    /// divergences as [`LiveCheck::push_block`] one at a time, found at the same blocks up to
    /// the first (the batch is cut where frames end, and at each invalid header); after it,
    /// the blocks go one at a time. Of the divergences found with the first, one in a frame
    /// whose end a corrupted block hid may be found later, within the batch. Returns the
    /// divergences they revealed.
    ///
    /// # Errors
    /// As [`LiveRx::push_block`].
    pub fn push_blocks(&mut self, blocks: &[Block]) -> Result<usize, LiveError> {
        let before = self.count;
        let mut from = 0;
        for (i, &b) in blocks.iter().enumerate() {
            // The block after a frame's end ends a piece: the frame is delivered there.
            let end_here = std::mem::take(&mut self.ends.cut_next);
            self.ends.cut_next = self.ends.block(b);
            // A block with an invalid header goes on its own: it is found at it. After the
            // first divergence, every block does (a corrupted stream may end frames where
            // `ends` does not see it).
            if !b.sync.is_valid() {
                self.push_piece(blocks.get(from..i).unwrap_or_default())?;
                self.push_piece(blocks.get(i..=i).unwrap_or_default())?;
                from = i + 1;
            } else if end_here || self.count > 0 {
                self.push_piece(blocks.get(from..=i).unwrap_or_default())?;
                from = i + 1;
            }
        }
        self.push_piece(blocks.get(from..).unwrap_or_default())?;
        Ok((self.count - before) as usize)
    }

    /// Blocks with no frame delivered before the last.
    fn push_piece(&mut self, piece: &[Block]) -> Result<(), LiveError> {
        if !piece.is_empty() {
            let first = self.blocks();
            self.rx.push_blocks(piece)?;
            self.scan(first, true);
        }
        Ok(())
    }

    /// One DUT serdes word.
    ///
    /// # Errors
    /// As [`LiveRx::push_word`].
    pub fn push_word(&mut self, width: u32, word: u64) -> Result<usize, LiveError> {
        self.push_words(width, &[word])
    }

    /// DUT serdes words, one a clock, taken together. Up to the first divergence, a frame is
    /// found one block after its end and an invalid header at the last block of the batch;
    /// from then on, the words go one at a time, found as [`LiveCheck::push_word`] finds them.
    ///
    /// # Errors
    /// As [`LiveRx::push_word`].
    pub fn push_words(&mut self, width: u32, words: &[u64]) -> Result<usize, LiveError> {
        let before = self.count;
        if self.count == 0 {
            let first = self.blocks();
            self.rx.push_words(width, words)?;
            self.scan(first, false);
        } else {
            for w in words {
                let first = self.blocks();
                self.rx.push_words(width, std::slice::from_ref(w))?;
                self.scan(first, true);
            }
        }
        Ok((self.count - before) as usize)
    }

    /// One DUT XGMII transfer.
    ///
    /// # Errors
    /// As [`LiveRx::push_xgmii`].
    pub fn push_xgmii(&mut self, w: XgmiiWord) -> Result<usize, LiveError> {
        self.push_transfers(&[w])
    }

    /// DUT XGMII transfers, one a clock, taken together.
    ///
    /// # Errors
    /// As [`LiveRx::push_xgmii`].
    pub fn push_transfers(&mut self, words: &[XgmiiWord]) -> Result<usize, LiveError> {
        if self.framer.is_some() {
            return Err(LiveError::Input(
                "XGMII transfers pushed to a checker made for delivered frames",
            ));
        }
        let before = self.count;
        let mut from = 0;
        for (i, &w) in words.iter().enumerate() {
            if self.ends.transfer(w) || i + 1 == words.len() || self.count > 0 {
                let first = self.blocks();
                self.rx
                    .push_transfers(words.get(from..=i).unwrap_or_default())?;
                self.scan(first, true);
                from = i + 1;
            }
        }
        Ok((self.count - before) as usize)
    }

    /// Divergences found so far (all counted; the first [`MAX_KEPT`] kept).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The divergences kept, in the order found.
    pub fn divergences(&self) -> &[Divergence] {
        &self.divergences
    }

    /// The kept divergence earliest in the DUT's stream (the smallest block; of two at one
    /// block, the one found first).
    pub fn earliest(&self) -> Option<&Divergence> {
        self.divergences
            .iter()
            .min_by_key(|d| (d.block, d.found_at))
    }

    /// What its positions count: `"block"` (blocks, or transfers of XGMII input), or
    /// `"beat"` for a frames checker.
    pub fn unit(&self) -> &'static str {
        match self.positions {
            Positions::Line { .. } => "block",
            Positions::Beats { .. } => "beat",
        }
    }

    /// The latest divergence found.
    pub fn last(&self) -> Option<&Divergence> {
        self.last.as_ref()
    }

    /// The receiver now.
    pub fn status(&self) -> LiveStatus {
        self.rx.status()
    }

    /// Octets after the SFD (DA through FCS) of received frame `index`, kept when it took
    /// part in a divergence or came after one (the frames settled before any are not).
    pub fn received_length(&self, index: u64) -> Option<usize> {
        self.received
            .iter()
            .find(|f| f.index == index)
            .map(|f| f.len)
    }

    fn diverged(&mut self, block: u64, found_at: u64, expected_frame: Option<u64>, what: String) {
        let d = Divergence {
            block,
            found_at,
            expected_frame,
            what,
        };
        self.count += 1;
        if self.divergences.len() < MAX_KEPT {
            self.divergences.push(d.clone());
        }
        self.last = Some(d);
    }

    /// The decision delay of the line (0 for delivered frames).
    fn delay(&self) -> u64 {
        match self.positions {
            Positions::Line { delay } => delay,
            Positions::Beats { .. } => 0,
        }
    }

    /// Where a frame from the line is delivered: the block after the one holding the
    /// octet that ends it (its `/T/`), for block and serial input; that block for XGMII.
    fn delivered_at(&self, f: &ReceivedFrame) -> u64 {
        let end = f.start.block * 8 + u64::from(f.start.lane) + 8 + f.len as u64;
        end / 8 + self.delay()
    }

    /// Looks at what the pushes since block `first` changed; returns the divergences found.
    /// Each is found at its own block (`first` at the earliest, the last block pushed at the
    /// latest); frames at the last block when `cut` (the pieces end where frames are
    /// delivered), else where their end says.
    fn scan(&mut self, first: u64, cut: bool) -> usize {
        let before = self.count;
        let now = self.blocks().saturating_sub(1);
        let at = |natural: u64| natural.max(first).min(now);
        let delay = self.delay();
        let pcs = self.rx.pcs();
        let mut found: Vec<(u64, u64, String)> = Vec::new();
        if pcs.invalid_headers > self.seen.invalid_headers {
            let n = pcs.invalid_headers - self.seen.invalid_headers;
            found.push((
                now,
                now,
                if n == 1 {
                    "invalid sync header while locked (49.2.4.3)".to_string()
                } else {
                    format!("{n} invalid sync headers while locked (49.2.4.3)")
                },
            ));
        }
        for e in pcs.e_transitions.iter().skip(self.seen.e_listed) {
            found.push((
                e.block,
                at(e.block + delay),
                format!("block into RX_E: {}", e.what),
            ));
        }
        let listed = pcs.e_transitions.len().saturating_sub(self.seen.e_listed) as u64;
        let unlisted = (pcs.errored_blocks - self.seen.errored).saturating_sub(listed);
        if unlisted > 0 {
            found.push((now, now, format!("{unlisted} blocks into RX_E")));
        }
        for &b in pcs.lock_losses.iter().skip(self.seen.lock_losses) {
            found.push((b, at(b), "block lock lost (49.2.14)".into()));
        }
        for &b in pcs.hi_ber_episodes.iter().skip(self.seen.hi_ber) {
            found.push((b, at(b), "hi_ber rose (49.2.13)".into()));
        }
        // A fault the RS reports after block lock (before it, a receiver's decoder sends
        // /LF/ by design: Fig. 49-17's LBLOCK_R); a fault clearing is no divergence.
        let locked_at = pcs.lock_acquired.map(|l| l.block);
        for c in pcs.link_fault_changes.iter().skip(self.seen.link_changes) {
            let to_fault = !c.what.ends_with(&LinkStatus::default().to_string());
            if to_fault && locked_at.is_some_and(|l| c.block >= l) {
                found.push((c.block, at(c.block + delay), c.what.clone()));
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
        for (block, found_at, what) in found {
            self.diverged(block, found_at, None, what);
        }
        while let Some(f) = self.rx.frames().pop_front() {
            let found_at = if cut { now } else { at(self.delivered_at(&f)) };
            self.take(f, found_at);
        }
        (self.count - before) as usize
    }

    /// One received frame, delivered at `found_at`: judged, then kept for the final judge
    /// (or settled).
    fn take(&mut self, f: ReceivedFrame, found_at: u64) {
        let before = self.count;
        self.judge(&f, found_at);
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
        let now = self.blocks().saturating_sub(1);
        self.take(f, now);
        (self.count - before) as usize
    }

    /// A frame the DUT delivered on its frame interface (a frames checker,
    /// [`LiveCheck::frames`]): its octets from the destination address on, with the FCS
    /// (`fcs_included`) or without it (the DUT checked and removed it; the model appends the
    /// right one); `error`: the DUT marked the frame bad (it is received with an error
    /// character before its end: class `error_character`, unless the octets make it worse).
    /// The model's MAC receiver classifies it, as it does a frame from a line. `beats`: its
    /// first and last beat (the positions of its octets, and where it is judged). Returns the
    /// divergences it revealed.
    ///
    /// # Errors
    /// The checker was made for a line ([`LiveCheck::new`]), or was finished.
    pub fn push_delivered(
        &mut self,
        data: &[u8],
        fcs_included: bool,
        error: bool,
        beats: (u64, u64),
    ) -> Result<usize, LiveError> {
        let mut fr = self.framer.take().ok_or(LiveError::Input(
            "a delivered frame pushed to a checker made for a line (blocks, words or transfers)",
        ))?;
        let got = self.frame_delivered(&mut fr, data, fcs_included, error);
        self.framer = Some(fr);
        let mut f = got?;
        let before = self.count;
        f.index = self.settled.len() as u64 + self.received.len() as u64;
        f.start = Placement {
            block: beats.0,
            lane: 0,
        };
        self.take(f, beats.1);
        Ok((self.count - before) as usize)
    }

    /// `data` as the model's MAC receives it, framed by `fr`'s transmitter.
    fn frame_delivered(
        &mut self,
        fr: &mut Framer,
        data: &[u8],
        fcs_included: bool,
        error: bool,
    ) -> Result<ReceivedFrame, LiveError> {
        fr.octets.clear();
        fr.octets.extend_from_slice(data);
        if !fcs_included {
            let fcs = mac_core::frame::fcs_padded_with::<crate::fcs::FastFcs>(data, 0);
            fr.octets.extend_from_slice(&fcs.to_le_bytes());
        }
        fr.words.clear();
        fr.words
            .resize(fr.mac.words_needed(fr.octets.len()) + 4, XgmiiWord::IDLE);
        if let Ok(n) = fr.mac.encode_frame_with_fcs(&fr.octets, &mut fr.words) {
            fr.words.truncate(n);
            if error {
                mark_error(&mut fr.words);
            }
            fr.words.extend_from_slice(&[XgmiiWord::IDLE; 2]);
            self.rx.push_transfers(&fr.words)?;
            if let Some(f) = self.rx.frames().pop_front() {
                return Ok(f);
            }
        }
        // Longer than the MAC sends.
        let class = if fr.octets.len() > mac_core::frame::MAX_FRAME_OCTETS {
            mac_core::rx::RxClass::FrameTooLong
        } else {
            mac_core::rx::RxClass::Truncated
        };
        Ok(ReceivedFrame {
            index: 0,
            class,
            data: fr.octets.clone(),
            len: fr.octets.len(),
            fcs_ok: false,
            start: Placement::default(),
            gap_octets: None,
            link_down: false,
        })
    }

    /// Octet `offset` of frame `f` in the DUT's positions: (block or beat, lane or octet).
    fn place(&self, f: &ReceivedFrame, offset: usize) -> (u64, u8) {
        match self.positions {
            Positions::Line { .. } => {
                let octet = f.start.block * 8 + u64::from(f.start.lane) + 8 + offset as u64;
                (octet / 8, (octet % 8) as u8)
            }
            Positions::Beats { octets } => {
                let w = octets as usize;
                (f.start.block + (offset / w) as u64, (offset % w) as u8)
            }
        }
    }

    /// How messages name frame `f`.
    fn name(&self, f: &ReceivedFrame) -> String {
        match self.positions {
            Positions::Line { .. } => format!(
                "DUT frame {} (block {} lane {}, {} octets with FCS)",
                f.index, f.start.block, f.start.lane, f.len
            ),
            Positions::Beats { .. } => format!(
                "DUT frame {} (beat {}, {} octets with FCS)",
                f.index, f.start.block, f.len
            ),
        }
    }

    /// One received frame against the next expected frames.
    fn judge(&mut self, f: &ReceivedFrame, found_at: u64) {
        // (how messages name the frame, `self.name(f)`, is made only for a divergence: a
        // good frame costs no formatting)
        let beats = matches!(self.positions, Positions::Beats { .. });
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
                    let at = self.name(f);
                    let first = self.expected.get(self.next).map_or(0, |x| x.index);
                    self.diverged(
                        f.start.block,
                        found_at,
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
                    let at = self.name(f);
                    // The content is right: where is the FCS (or the frame's end) wrong?
                    let block = self
                        .expected
                        .get(e)
                        .and_then(|x| fcs_difference(x, f))
                        .map_or(f.start.block, |o| self.place(f, o).0);
                    self.diverged(
                        block,
                        found_at,
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
                    let at = self.name(f);
                    let index = e.index;
                    let d = judge::first_difference(&judge::padded(&e.data), c);
                    let (block, what) = match d {
                        Some(d) => {
                            let (b, l) = self.place(f, d.offset);
                            let pos = if beats {
                                format!("DUT beat {b} octet {l}")
                            } else {
                                format!("DUT block {b} lane {l}")
                            };
                            (
                                b,
                                format!(
                                    "{at} differs from expected frame {index}: first at octet {} ({pos}): expected {}, got {}; {} octets expected, {} received; MAC class {class}",
                                    d.offset,
                                    d.expected.map_or("(end)".into(), |x| format!("0x{x:02x}")),
                                    d.actual.map_or("(end)".into(), |x| format!("0x{x:02x}")),
                                    e.data.len().max(60),
                                    c.len(),
                                ),
                            )
                        }
                        None => (
                            f.start.block,
                            format!("{at}: expected frame {index} received with MAC class {class}"),
                        ),
                    };
                    self.diverged(block, found_at, Some(index), what);
                    self.next += 1;
                }
                None => {
                    let at = self.name(f);
                    self.diverged(
                        f.start.block,
                        found_at,
                        None,
                        format!("{at}: unexpected, class {class} (no expected frame is left)"),
                    );
                }
            },
        }
    }

    /// Ends the run: the last block decided, then the one judge over every frame (reordered,
    /// corrupted and missing frames too). Returns `baser check --frames`' report and checks.
    ///
    /// # Errors
    /// Finished twice.
    pub fn finish(&mut self) -> Result<(FrameCheckReport, Vec<Case>), LiveError> {
        let first = self.blocks();
        let (pcs, counts) = self.rx.finish()?;
        self.scan(first, true);
        let mut cmp = judge::compare(self.expected.make_contiguous(), &self.received);
        if let Positions::Beats { octets } = self.positions {
            // The judge places octets on a line; here they are in beats.
            for r in &mut cmp.frames {
                if let (Some(d), Some(start)) = (r.first_difference.as_mut(), r.start_block) {
                    d.block = Some(start + (d.offset / octets as usize) as u64);
                    d.lane = Some((d.offset % octets as usize) as u8);
                }
            }
        }
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
        let (mut report, mut cases) = frame_check(FrameCheckInput {
            expected_name: self.names.0.clone(),
            dut_name: self.names.1.clone(),
            profile: self.profile,
            expected: self.given as usize,
            counts: &counts,
            pcs,
            cmp,
            blocks: None,
            outcomes: Vec::new(),
        });
        // Below a FEC: its checks (lock, no uncorrectable unit) join the verdict.
        if let Some(f) = self.rx.fec() {
            report.add_fec(&mut cases, f.clone(), None);
        }
        Ok((report, cases))
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

    /// A line with faults (dropped, corrupted, repeated blocks and invalid headers) after
    /// `fill` reset-fill blocks, and the frames sent.
    fn faulty_line(lens: &[usize], faults: &[(u64, u8)], fill: usize) -> Vec<Block> {
        let mut tx = LiveTx::new(&tx_opt());
        for (i, &l) in lens.iter().enumerate() {
            tx.send(&frame(l, i as u8), None).unwrap();
        }
        let mut line = vec![
            Block {
                sync: SyncHeader::from_bits(0),
                payload: 0
            };
            fill
        ];
        let mut tail = 3;
        let mut i = 0u64;
        while tail > 0 {
            if tx.pending() == 0 {
                tail -= 1;
            }
            let b = tx.clock().unwrap().line;
            match faults.iter().find(|(at, _)| *at == i).map(|f| f.1) {
                Some(0) => {}
                Some(1) => line.push(Block {
                    payload: b.payload ^ 0x10_0000,
                    ..b
                }),
                Some(2) => {
                    line.push(b);
                    line.push(b);
                }
                Some(_) => line.push(Block {
                    sync: SyncHeader::from_bits(3),
                    ..b
                }),
                None => line.push(b),
            }
            i += 1;
        }
        line
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Blocks pushed in batches of any size give the divergences of blocks pushed one at
        /// a time: the same count, blocks, places found and messages.
        #[test]
        fn batches_find_what_single_pushes_find(
            lens in proptest::collection::vec(1usize..400, 1..8),
            faults in proptest::collection::vec((0u64..300, 0u8..4), 0..4),
            fill in 0usize..5,
            cuts in proptest::collection::vec(1usize..100, 1..20),
        ) {
            let line = faulty_line(&lens, &faults, fill);
            let make = || {
                let mut c = LiveCheck::new(&rx_opt(), blocks_input(), ("e".into(), "d".into()));
                for (i, &l) in lens.iter().enumerate() {
                    c.expect(&frame(l, i as u8));
                }
                c
            };
            let mut one = make();
            let mut returned_one = 0;
            for &b in &line {
                returned_one += one.push_block(b).unwrap();
            }
            let mut batched = make();
            let mut returned = 0;
            let mut rest = line.as_slice();
            for &k in cuts.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (a, b) = rest.split_at(k.min(rest.len()));
                returned += batched.push_blocks(a).unwrap();
                rest = b;
            }
            prop_assert_eq!(returned, returned_one);
            prop_assert_eq!(batched.count(), one.count());
            let (a, b) = (batched.divergences(), one.divergences());
            prop_assert_eq!(a.first(), b.first());
            // The rest: the same, but one found with the first may be found later.
            let key = |d: &Divergence| (d.block, d.what.clone(), d.expected_frame);
            let mut a: Vec<_> = a.iter().map(|d| (key(d), d.found_at)).collect();
            let mut b: Vec<_> = b.iter().map(|d| (key(d), d.found_at)).collect();
            a.sort();
            b.sort();
            prop_assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                prop_assert_eq!(&x.0, &y.0);
                prop_assert!(x.1 >= y.1, "{:?} found before {:?}", x, y);
            }
            let (a, _) = batched.finish().unwrap();
            let (b, _) = one.finish().unwrap();
            prop_assert_eq!(serde_json::to_value(&a).unwrap(), serde_json::to_value(&b).unwrap());
        }

        /// XGMII transfers in batches: the same divergences as one at a time.
        #[test]
        fn transfer_batches_find_what_single_pushes_find(
            lens in proptest::collection::vec(1usize..300, 1..6),
            flip in proptest::option::of(0usize..200),
            cut in 1usize..70,
        ) {
            let mut tx = LiveTx::new(&tx_opt());
            for (i, &l) in lens.iter().enumerate() {
                tx.send(&frame(l, i as u8), None).unwrap();
            }
            let mut words = Vec::new();
            while tx.pending() > 0 || words.len() < 20 {
                words.push(tx.clock().unwrap().word);
            }
            if let Some(w) = flip.and_then(|i| words.get_mut(i)) {
                w.data ^= 1 << 20;
            }
            let make = || {
                let mut c = LiveCheck::new(&rx_opt(), RxInput::Xgmii, ("e".into(), "d".into()));
                for (i, &l) in lens.iter().skip(1).enumerate() {
                    c.expect(&frame(l, i as u8 + 1));
                }
                c
            };
            let mut one = make();
            for &w in &words {
                one.push_xgmii(w).unwrap();
            }
            let mut batched = make();
            for piece in words.chunks(cut) {
                batched.push_transfers(piece).unwrap();
            }
            prop_assert!(one.count() > 0, "frame 0 is not expected");
            prop_assert_eq!(batched.divergences().first(), one.divergences().first());
            prop_assert_eq!(batched.count(), one.count());
        }

        /// A batch of clocks is the blocks of as many single clocks, frames given up front.
        #[test]
        fn clocks_in_a_batch_are_single_clocks(
            lens in proptest::collection::vec(1usize..700, 0..6),
            batch in 1usize..100,
        ) {
            let opt = tx_opt();
            let mut a = LiveTx::new(&opt);
            let mut b = LiveTx::new(&opt);
            for (i, &l) in lens.iter().enumerate() {
                a.send(&frame(l, i as u8), None).unwrap();
                b.send(&frame(l, i as u8), None).unwrap();
            }
            let mut got = vec![TxClock::default(); batch];
            let (mut starts, mut sfds, mut ends) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..(4000 / batch + 2) {
                a.clocks(&mut got).unwrap();
                for g in &got {
                    prop_assert_eq!(*g, b.clock().unwrap());
                    starts.extend(g.start.map(|(id, _)| id));
                    sfds.extend(g.sfd);
                    ends.extend(g.end);
                }
            }
            prop_assert_eq!(a.pending(), 0);
            // Each frame's /S/, SFD and /T/ are marked once, in order, whatever the batch.
            let ids: Vec<u64> = (0..lens.len() as u64).collect();
            prop_assert_eq!(&starts, &ids);
            prop_assert_eq!(&sfds, &ids);
            prop_assert_eq!(&ends, &ids);
        }

        /// Serdes words taken back and made again equal the words made once.
        #[test]
        fn serdes_words_taken_back_are_made_again_alike(
            form in prop_oneof![
                Just(SerdesForm::Units(UnitOrder::HeaderFirst)),
                Just(SerdesForm::Units(UnitOrder::DataFirst)),
                Just(SerdesForm::Gearbox64),
                Just(SerdesForm::Gearbox32),
            ],
            offset in 0u32..66,
            plan in proptest::collection::vec((1usize..70, 0usize..70, any::<bool>()), 1..12),
        ) {
            let opt = tx_opt();
            let (mut ta, mut tb) = (LiveTx::new(&opt), LiveTx::new(&opt));
            for (i, l) in [300usize, 64, 1000].iter().enumerate() {
                ta.send(&frame(*l, i as u8), None).unwrap();
                tb.send(&frame(*l, i as u8), None).unwrap();
            }
            let (mut a, mut b) = (SerdesTx::new(form, offset), SerdesTx::new(form, offset));
            let mut slip = false;
            for &(n, keep, next_slip) in &plan {
                let keep = keep.min(n);
                // a: a batch of n, of which `keep` are kept; b: those `keep` one at a time.
                let mut wa = vec![SerdesWord::default(); n];
                a.words(&mut ta, slip, &mut wa).unwrap();
                a.keep(keep);
                for (k, w) in wa.iter().take(keep).enumerate() {
                    let mut one = [SerdesWord::default()];
                    b.words(&mut tb, slip && k == 0, &mut one).unwrap();
                    prop_assert_eq!(one[0], *w);
                }
                // Nothing on the wire: the slip is still to be made (a keeps it, b gets it).
                if keep > 0 {
                    slip = next_slip;
                }
            }
        }
    }

    /// A receiver that slips as IEEE Fig. 49-14 does (one invalid header while unlocked: slip,
    /// then `wait` clocks; 64 valid headers in a row: lock), on units or 64-bit gearbox words.
    fn lock_by_slips(form: SerdesForm, offset: u32, wait: u32) -> (u32, u64, Vec<Block>) {
        let opt = TxOptions {
            idle_blocks: 4096,
            ..tx_opt()
        };
        let mut tx = LiveTx::new(&opt);
        let mut check = LiveTx::new(&opt);
        let mut s = SerdesTx::new(form, offset);
        let (mut slip, mut slips, mut good, mut hold) = (false, 0, 0, 0);
        let mut after = Vec::new();
        let mut w = [SerdesWord::default()];
        for clock in 0..8000u64 {
            s.words(&mut tx, slip, &mut w).unwrap();
            slip = false;
            let w = w[0];
            if !w.header_valid {
                continue;
            }
            if good >= 64 {
                after.push(Block {
                    sync: SyncHeader::from_bits(w.header),
                    payload: w.data,
                });
                if after.len() == 200 {
                    // The units after lock are the line's blocks, from some block on.
                    let first = after.first().copied();
                    let mut skipped = 0;
                    while Some(check.clock().unwrap().line) != first && skipped < 9000 {
                        skipped += 1;
                    }
                    for (i, b) in after.iter().enumerate().skip(1) {
                        assert_eq!(*b, check.clock().unwrap().line, "unit {i} after lock");
                    }
                    return (slips, clock, after);
                }
                continue;
            }
            if hold > 0 {
                hold -= 1;
                continue;
            }
            if w.header == 1 || w.header == 2 {
                good += 1;
            } else {
                good = 0;
                slip = true;
                slips += 1;
                hold = wait;
            }
        }
        panic!("no lock from offset {offset} ({form:?}): {slips} slips");
    }

    #[test]
    fn a_slipping_receiver_locks_from_every_offset() {
        let mut worst = 0;
        for offset in 0..66 {
            for form in [
                SerdesForm::Units(UnitOrder::HeaderFirst),
                SerdesForm::Gearbox64,
            ] {
                let (slips, clock, _) = lock_by_slips(form, offset, 32);
                assert!(slips >= offset % 66, "offset {offset}: {slips} slips");
                worst = worst.max(clock);
            }
        }
        // 65 slips with 32 clocks after each, and 64 good headers: within the default idle
        // stretch of a serdes source (4096 blocks).
        assert!(worst < 4096, "lock took {worst} clocks");
    }

    #[test]
    fn gearbox_words_carry_the_line_in_their_sequence() {
        for (form, width) in [(SerdesForm::Gearbox64, 64), (SerdesForm::Gearbox32, 32)] {
            let mut tx = LiveTx::new(&tx_opt());
            let mut check = LiveTx::new(&tx_opt());
            tx.send(&frame(500, 1), None).unwrap();
            check.send(&frame(500, 1), None).unwrap();
            let mut s = SerdesTx::new(form, 0);
            let mut w = vec![SerdesWord::default(); 3 * form.sequence_length() as usize];
            s.words(&mut tx, false, &mut w).unwrap();
            let mut bits: Vec<bool> = Vec::new();
            for (i, x) in w.iter().enumerate() {
                let seq = i as u32 % form.sequence_length();
                assert_eq!(x.sequence, seq);
                let stall = if width == 64 { seq == 32 } else { seq >= 64 };
                assert_eq!(x.data_valid, !stall, "clock {i}");
                assert_eq!(
                    x.header_valid,
                    !stall && (width == 64 || seq.is_multiple_of(2))
                );
                if x.header_valid {
                    bits.extend((0..2).map(|k| x.header >> k & 1 == 1));
                }
                if x.data_valid {
                    bits.extend((0..width).map(|k| x.data >> k & 1 == 1));
                }
            }
            let mut want = Vec::new();
            while want.len() < bits.len() {
                let u = unit_of(check.clock().unwrap().line);
                want.extend((0..66).map(|k| u >> k & 1 == 1));
            }
            assert_eq!(bits, want[..bits.len()], "{form:?}");
            assert_eq!(bits.len(), 66 * 32 * 3);
        }
    }

    /// Frames a DUT delivers (octets, with or without FCS, an error flag) are judged as a
    /// line's frames are, at their beats.
    #[test]
    fn delivered_frames_are_judged_at_their_beats() {
        let frames: Vec<Vec<u8>> = (0..6).map(|i| frame(100 + 37 * i, i as u8)).collect();
        let mut c = LiveCheck::frames(&rx_opt(), ("e".into(), "d".into()), 8);
        for f in &frames {
            c.expect(f);
        }
        let beat = std::cell::Cell::new(0u64);
        let push = |c: &mut LiveCheck, data: &[u8], fcs: bool, error: bool| {
            let (b, n) = (beat.get(), data.len().div_ceil(8) as u64);
            beat.set(b + n + 3);
            c.push_delivered(data, fcs, error, (b, b + n - 1)).unwrap()
        };
        // 0: good, FCS stripped; 1: good, FCS included.
        assert_eq!(push(&mut c, &frames[0], false, false), 0);
        let mut with_fcs = frames[1].clone();
        let fcs = mac_core::frame::fcs_padded_with::<crate::fcs::FastFcs>(&frames[1], 0);
        with_fcs.extend_from_slice(&fcs.to_le_bytes());
        assert_eq!(push(&mut c, &with_fcs, true, false), 0);
        // 2: octet 21 wrong, found at its last beat, placed in beat (start + 2) octet 5.
        let start = beat.get();
        let mut bad = frames[2].clone();
        bad[21] ^= 0x40;
        assert_eq!(push(&mut c, &bad, false, false), 1);
        let d = c.last().unwrap().clone();
        assert_eq!(d.block, start + 2, "{d:?}");
        assert_eq!(d.found_at, start + (bad.len() as u64).div_ceil(8) - 1);
        assert!(
            d.what.contains("DUT beat") && d.what.contains("octet 5"),
            "{}",
            d.what
        );
        // 3: flagged bad by the DUT; 4: missing; 5: 8 octets short.
        assert_eq!(push(&mut c, &frames[3], false, true), 1);
        assert!(
            c.last().unwrap().what.contains("error_character"),
            "{:?}",
            c.last()
        );
        let short = &frames[5][..frames[5].len() - 8];
        assert_eq!(push(&mut c, short, false, false), 1);
        assert!(
            c.last().unwrap().what.contains("received"),
            "{:?}",
            c.last()
        );
        let (rep, _) = c.finish().unwrap();
        assert_eq!(rep.verdict, "fail");
        assert_eq!(rep.summary.matched, 2);
        let corrupted = rep.frames.iter().find(|f| f.expected_index == 2).unwrap();
        assert_eq!(
            corrupted.first_difference.as_ref().unwrap().block,
            Some(start + 2)
        );
        assert_eq!(corrupted.first_difference.as_ref().unwrap().lane, Some(5));
        let r = rep.frames.iter().find(|f| f.expected_index == 5).unwrap();
        assert_eq!(
            c.received_length(r.received_index.unwrap()),
            Some(short.len() + 4)
        );
        // Blocks are refused.
        assert!(c.push_transfers(&[XgmiiWord::IDLE]).is_err());
    }

    /// A flipped bit in a frame's last data block makes the /T/ block after it go into
    /// RX_E (found first); the frame is judged later. The earliest divergence is the frame's.
    #[test]
    fn the_earliest_divergence_is_not_the_first_found() {
        let mut tx = LiveTx::new(&tx_opt());
        let mut chk = LiveCheck::new(&rx_opt(), blocks_input(), ("e".into(), "d".into()));
        for i in 0..3u8 {
            tx.send(&frame(200, i), None).unwrap();
            chk.expect(&frame(200, i));
        }
        let clocks: Vec<TxClock> = (0..120).map(|_| tx.clock().unwrap()).collect();
        let t = clocks.iter().find(|c| c.end == Some(0)).unwrap().index;
        for c in &clocks {
            let mut b = c.line;
            if c.index == t - 1 {
                b.payload ^= 1 << 60; // descrambled, it also flips bits of the /T/ block
            }
            chk.push_block(b).unwrap();
        }
        let first_found = chk.divergences().first().cloned().unwrap();
        let earliest = chk.earliest().cloned().unwrap();
        assert_eq!(earliest.block, t - 1, "{:?}", chk.divergences());
        assert!(first_found.found_at <= earliest.found_at);
    }
}
