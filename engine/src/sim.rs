//! The models a simulation's test bench runs at each clock edge, as the Python package's
//! cocotb sources and sinks do: a driver of frames and a monitor of a DUT's stream, each
//! saying where a frame's octets are at the clocks that carry them (what frame times and
//! PTP checks are stamped from).
//!
//! ```text
//! SimTx  send(frame) ... clock() -> a line block, its XGMII transfer, marks  (LiveTx, or
//!        UsxgmiiTx under rate replication); settings changed between frames
//! SimRx  push(unit | word | block | transfer) -> frames placed at their clocks  (LiveRx in
//!        a view; UsxgmiiRx under rate replication); ordered sets as the bench models see them
//! ```

use crate::fec::{FecLine, FecOptions, FecSummary, Rate};
use crate::live::{LiveError, LiveRx, LiveStatus, LiveTx, RxView, WordTap};
use crate::rx::{FrameCounts, PcsEvent, PcsSummary, ReceivedFrame, RxInput, RxOptions};
use crate::tx::{OrderedSet, TxError, TxOptions};
use crate::usxgmii::{UsxgmiiRx, UsxgmiiTx};
use pcs_core::{Block, ControlChar, XgmiiWord};
use std::collections::VecDeque;

// ----------------------------------------------------------------------------- marks

/// A frame's octet a transmitter marks in the block that carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    /// The `/S/`.
    Start,
    /// The SFD (its first copy under rate replication).
    Sfd,
    /// The first octet after the SFD (the destination address's first; under rate
    /// replication its first copy, after the SFD's column and its copies): where a frame's
    /// timestamp is taken.
    Data,
    /// The `/T/`: the frame is sent.
    End,
}

/// A mark, the frame it belongs to, and its lane in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkAt {
    /// What it marks.
    pub mark: Mark,
    /// The frame's id (as `send` returned it).
    pub id: u64,
    /// Its lane, 0..7.
    pub lane: u8,
}

/// One clock of a transmitter: the line block, the block before scrambling, the transfer it
/// encodes, and the frames' octets marked in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marked {
    /// Its index (0 = the first block handed out).
    pub index: u64,
    /// The line (scrambled) block.
    pub line: Block,
    /// The block before scrambling.
    pub unscrambled: Block,
    /// The XGMII transfer it encodes.
    pub word: XgmiiWord,
    /// The marks, in lane order.
    pub marks: Vec<MarkAt>,
}

// ------------------------------------------------------------------------------------ TX

/// The transmitter behind a [`SimTx`].
enum Line {
    Plain(Box<LiveTx>),
    Replicated(UsxgmiiTx),
}

impl Line {
    fn new(opt: &TxOptions, copies: u32) -> Self {
        match copies {
            0 => Self::Plain(Box::new(LiveTx::new(opt))),
            n => Self::Replicated(UsxgmiiTx::new(opt, n)),
        }
    }

    fn send(&mut self, data: &[u8], fcs: Option<[u8; 4]>) -> Result<u64, TxError> {
        match self {
            Self::Plain(t) => t.send(data, fcs),
            Self::Replicated(t) => t.send(data, fcs),
        }
    }

    fn pending(&self) -> usize {
        match self {
            Self::Plain(t) => t.pending(),
            Self::Replicated(t) => t.pending(),
        }
    }

    fn unstarted(&self) -> usize {
        match self {
            Self::Plain(t) => t.unstarted(),
            Self::Replicated(t) => t.unstarted(),
        }
    }

    fn drop_unstarted(&mut self) -> Vec<u64> {
        match self {
            Self::Plain(t) => t.drop_unstarted(),
            Self::Replicated(t) => t.drop_unstarted(),
        }
    }

    fn set_idle_fill(&mut self, os: Option<OrderedSet>) {
        match self {
            Self::Plain(t) => t.set_idle_fill(os),
            Self::Replicated(t) => t.set_idle_fill(os),
        }
    }

    fn scrambler_state(&self) -> u64 {
        match self {
            Self::Plain(t) => t.scrambler_state(),
            Self::Replicated(t) => t.scrambler_state(),
        }
    }
}

/// The first `/T/` lane of `w` (a block holds at most one frame's end).
fn terminate_lane(w: XgmiiWord) -> u8 {
    (0..8u8)
        .find(|&l| {
            w.is_control(usize::from(l)) && w.octet(usize::from(l)) == ControlChar::TERMINATE.0
        })
        .unwrap_or(7)
}

/// A test bench's transmitter: frames in, one marked line block a clock out. Its settings
/// (IFG, deficit idle count, lane-4 starts, rate replication) change between frames: a
/// change waits until no frame is waiting or under way, then the line goes on with the new
/// settings from the scrambler state it reached (as the bench models rebuild theirs).
pub struct SimTx {
    line: Line,
    opt: TxOptions,
    copies: u32,
    /// Settings given and not yet taken (a frame was under way).
    next: Option<(TxOptions, u32)>,
    idle_fill: Option<OrderedSet>,
    /// The id of the current transmitter's frame 0 (its ids count from 0).
    base: u64,
    next_id: u64,
    /// The frames not started, as given (a restart gives them again).
    unsent: VecDeque<(Vec<u8>, Option<[u8; 4]>)>,
    /// Marks of the plain line still ahead: (octet place, mark, id).
    ahead: VecDeque<(u64, Mark, u64)>,
    handed: u64,
}

impl SimTx {
    /// A transmitter out of reset (`opt.idle_blocks` idle blocks come first), each column sent
    /// `copies + 1` times (0: no rate replication).
    pub fn new(opt: &TxOptions, copies: u32) -> Self {
        Self {
            line: Line::new(opt, copies),
            opt: *opt,
            copies,
            next: None,
            idle_fill: None,
            base: 0,
            next_id: 0,
            unsent: VecDeque::new(),
            ahead: VecDeque::new(),
            handed: 0,
        }
    }

    /// A transmitter out of reset with a FEC below its PCS (none: as [`SimTx::new`]): each
    /// clock is then 66 bits of the FEC's line ([`LiveTx::with_fec`]), its marks on the clock
    /// the FEC took their block from the PCS.
    ///
    /// # Errors
    /// A FEC the rate does not have, or a Clause 108 setting the standard refuses.
    pub fn with_fec(opt: &TxOptions, rate: Rate, fec: &FecOptions) -> Result<Self, String> {
        let mut tx = Self::new(opt, 0);
        tx.line = Line::Plain(Box::new(LiveTx::with_fec(opt, rate, fec)?));
        Ok(tx)
    }

    /// The FEC's line, if there is one.
    pub fn fec(&self) -> Option<&FecLine> {
        match &self.line {
            Line::Plain(tx) => tx.fec(),
            Line::Replicated(_) => None,
        }
    }

    /// The settings in use (`seed`: the scrambler state the current settings started from),
    /// and the copies of each column.
    pub fn options(&self) -> (&TxOptions, u32) {
        match &self.next {
            Some((opt, copies)) => (opt, *copies),
            None => (&self.opt, self.copies),
        }
    }

    /// New settings (their `seed` and `idle_blocks` are not used: the line goes on), taken at
    /// once if no frame is waiting or under way, else once the last of them is sent.
    pub fn configure(&mut self, opt: &TxOptions, copies: u32) {
        self.next = Some((*opt, copies));
        self.settle();
    }

    /// Takes the settings given, if no frame is waiting or under way.
    fn settle(&mut self) {
        if self.line.pending() > 0 {
            return;
        }
        if let Some((opt, copies)) = self.next.take() {
            self.rebuild(&opt, copies);
            self.base = self.next_id;
        }
    }

    /// A new transmitter with `opt`, from the scrambler state reached.
    fn rebuild(&mut self, opt: &TxOptions, copies: u32) {
        self.opt = TxOptions {
            seed: self.line.scrambler_state(),
            idle_blocks: 0,
            ..*opt
        };
        // A FEC goes on below the new settings (no rate replication with it).
        let fec = match &mut self.line {
            Line::Plain(tx) => tx.take_fec(),
            Line::Replicated(_) => None,
        };
        self.copies = if fec.is_some() { 0 } else { copies };
        self.line = Line::new(&self.opt, self.copies);
        if let (Some(f), Line::Plain(tx)) = (fec, &mut self.line) {
            tx.put_fec(f);
        }
        self.line.set_idle_fill(self.idle_fill);
        self.ahead.clear();
    }

    /// The frames given and not started are the last of `unsent`.
    fn trim(&mut self) {
        while self.unsent.len() > self.line.unstarted() {
            self.unsent.pop_front();
        }
    }

    /// The MAC starts over (a reset): the frames under way are dropped (their ids are
    /// returned), the frames waiting go out after, with their ids; settings given are taken.
    pub fn restart(&mut self) -> Vec<u64> {
        self.trim();
        let waiting = std::mem::take(&mut self.unsent);
        let first = self.next_id - waiting.len() as u64;
        let under_way = (self.line.pending() - waiting.len()) as u64;
        let (opt, copies) = self.next.take().unwrap_or((self.opt, self.copies));
        self.rebuild(&opt, copies);
        self.base = first;
        self.next_id = first;
        for (data, fcs) in waiting {
            // They were taken once: they fit.
            let _ = self.send(&data, fcs);
        }
        (first - under_way..first).collect()
    }

    /// Gives the MAC a frame (DA to the end of the payload; with `fcs`, sent as is with that
    /// FCS and no padding). Returns its id (0, 1, ...).
    ///
    /// # Errors
    /// The frame is longer than the MAC sends.
    pub fn send(&mut self, data: &[u8], fcs: Option<[u8; 4]>) -> Result<u64, TxError> {
        self.settle();
        self.trim();
        self.line.send(data, fcs)?;
        self.unsent.push_back((data.to_vec(), fcs));
        let id = self.next_id;
        self.next_id += 1;
        Ok(id)
    }

    /// Frames given and not fully sent.
    pub fn pending(&self) -> usize {
        self.line.pending()
    }

    /// Frames given that have not started (they can still be dropped).
    pub fn unstarted(&self) -> usize {
        self.line.unstarted()
    }

    /// Drops the frames that have not started; returns their ids.
    pub fn drop_unstarted(&mut self) -> Vec<u64> {
        self.unsent.clear();
        let base = self.base;
        self.line
            .drop_unstarted()
            .into_iter()
            .map(|id| base + id)
            .collect()
    }

    /// Sends `os` in place of idle transfers from the next block made on (`None`: idles).
    pub fn set_idle_fill(&mut self, os: Option<OrderedSet>) {
        self.idle_fill = os;
        self.line.set_idle_fill(os);
    }

    /// Blocks handed out so far.
    pub fn blocks(&self) -> u64 {
        self.handed
    }

    /// The scrambler state after the last block handed out (58 bits).
    pub fn scrambler_state(&self) -> u64 {
        self.line.scrambler_state()
    }

    /// The next block (one clock) and the frames' octets marked in it.
    ///
    /// # Errors
    /// The MAC refused the frame whose turn it was (it is dropped; the line stays idle).
    pub fn clock(&mut self) -> Result<Marked, TxError> {
        self.settle();
        let mut b = match &mut self.line {
            Line::Plain(tx) => {
                let c = tx.clock()?;
                let mut marks = Vec::new();
                if let Some((id, lane)) = c.start {
                    marks.push(MarkAt {
                        mark: Mark::Start,
                        id,
                        lane,
                    });
                    // The SFD is 7 octets on, the first octet after it 8.
                    let s = c.index * 8 + u64::from(lane);
                    self.ahead.push_back((s + 7, Mark::Sfd, id));
                    self.ahead.push_back((s + 8, Mark::Data, id));
                }
                while let Some(&(at, mark, id)) = self.ahead.front() {
                    if at / 8 > c.index {
                        break;
                    }
                    self.ahead.pop_front();
                    marks.push(MarkAt {
                        mark,
                        id,
                        lane: (at % 8) as u8,
                    });
                }
                if let Some(id) = c.end {
                    marks.push(MarkAt {
                        mark: Mark::End,
                        id,
                        lane: terminate_lane(c.word),
                    });
                }
                marks.sort_by_key(|m| m.lane);
                Marked {
                    index: c.index,
                    line: c.line,
                    unscrambled: c.unscrambled,
                    word: c.word,
                    marks,
                }
            }
            Line::Replicated(tx) => tx.clock(),
        };
        for m in &mut b.marks {
            m.id += self.base;
        }
        b.index = self.handed;
        self.handed += 1;
        Ok(b)
    }
}

// ------------------------------------------------------------------------------------ RX

/// Where a frame's octets are, as octet places (block * 8 + lane): its `/S/`, its SFD, the
/// first octet after the SFD, and the octet after its last (its `/T/`); `None` where not
/// known (under rate replication, a place the receiver no longer keeps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FramePlaces {
    /// The `/S/`.
    pub start: Option<u64>,
    /// The SFD.
    pub sfd: Option<u64>,
    /// The first octet after the SFD.
    pub data: Option<u64>,
    /// The octet after the frame's last (DA through FCS).
    pub end: Option<u64>,
}

impl FramePlaces {
    /// The places of a frame received in a stream of transfers.
    pub fn of(f: &ReceivedFrame) -> Self {
        let s = f.start.block * 8 + u64::from(f.start.lane);
        Self {
            start: Some(s),
            sfd: Some(s + 7),
            data: Some(s + 8),
            end: Some(s + 8 + f.data.len() as u64),
        }
    }
}

/// An octet's place on the line and the clock that carried it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The line block (the input's block index).
    pub block: u64,
    /// The lane, 0..7.
    pub lane: u8,
    /// The clock (the index of the push) at which the block was complete.
    pub clock: u64,
}

/// A received frame and where its octets were ([`FramePlaces`], with their clocks).
#[derive(Clone, Debug)]
pub struct PlacedFrame {
    /// The frame (DA through FCS, its class, ...); under rate replication, its `start` is the
    /// `/S/`'s place on the line.
    pub frame: ReceivedFrame,
    /// The `/S/`.
    pub start: Option<Place>,
    /// The SFD.
    pub sfd: Option<Place>,
    /// The first octet after the SFD.
    pub data: Option<Place>,
    /// The octet after the frame's last.
    pub end: Option<Place>,
}

/// What a test bench's receiver is given each clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimInput {
    /// 66 serial bits at any offset (a 66-bit serdes interface).
    Units,
    /// A serdes word of 32 or 64 bits.
    Words(u32),
    /// A block at known boundaries.
    Blocks {
        /// The payloads are scrambled.
        scrambled: bool,
        /// The descrambler's start state (`None`: the first block trains it).
        descrambler_state: Option<u64>,
    },
    /// An XGMII transfer.
    Xgmii,
}

/// Ordered sets received, as the bench models' sinks report them (`get_os`,
/// `get_os_match`, `get_idle_match`): the last one until taken, how many times in a row the
/// same one came again, and how many all-control transfers came in a row since one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrderedSetRuns {
    last: Option<OrderedSet>,
    same: u64,
    idles: u64,
}

impl OrderedSetRuns {
    /// One decoded transfer.
    pub fn push(&mut self, w: XgmiiWord) {
        let mut any = false;
        for col in [0usize, 4] {
            let c = w.octet(col);
            if w.is_control(col) && (c == ControlChar::SEQUENCE.0 || c == ControlChar::SIGNAL.0) {
                let os = OrderedSet {
                    signal: c == ControlChar::SIGNAL.0,
                    value: u32::from(w.octet(col + 1)) << 16
                        | u32::from(w.octet(col + 2)) << 8
                        | u32::from(w.octet(col + 3)),
                };
                // as the originals: a repeat counts against the one not taken yet
                if self.last == Some(os) {
                    self.same += 1;
                }
                self.last = Some(os);
                self.idles = 0;
                any = true;
            }
        }
        if !any && w.ctrl == 0xff {
            self.same = 0;
            self.idles += 1;
        }
    }

    /// The last ordered set not taken yet; taking it clears it.
    pub fn take(&mut self) -> Option<OrderedSet> {
        self.last.take()
    }

    /// `(same, idles)`: repeats of the last ordered set in a row, all-control transfers in a
    /// row since one.
    pub fn runs(&self) -> (u64, u64) {
        (self.same, self.idles)
    }
}

/// A test bench's receiver: one unit, word, block or transfer a clock in; frames out, each
/// placed at the clocks that carried its octets.
pub struct SimRx {
    rx: LiveRx,
    input: SimInput,
    opt: RxOptions,
    tap: WordTap,
    os: OrderedSetRuns,
    usx: Option<UsxgmiiRx>,
    clocks: u64,
    /// Below a FEC: `(first block, clock)` of each clock that handed the PCS blocks (a FEC
    /// block or codeword's blocks reach it together, at the clock that completed it).
    fec_clocks: Option<VecDeque<(u64, u64)>>,
}

/// Clocks a receiver below a FEC remembers the blocks of.
const FEC_CLOCKS_KEPT: usize = 1 << 14;

impl SimRx {
    /// A receiver out of reset; serial input is read in `view`.
    pub fn new(opt: &RxOptions, input: SimInput, view: RxView) -> Self {
        let rx_input = match input {
            SimInput::Units | SimInput::Words(_) => RxInput::Serial,
            SimInput::Blocks {
                scrambled,
                descrambler_state,
            } => RxInput::Blocks {
                scrambled,
                descrambler_state,
            },
            SimInput::Xgmii => RxInput::Xgmii,
        };
        let (rx, tap) = LiveRx::tapped(opt, rx_input, view);
        Self {
            rx,
            input,
            opt: *opt,
            tap,
            os: OrderedSetRuns::default(),
            usx: None,
            clocks: 0,
            fec_clocks: None,
        }
    }

    /// Puts a FEC below the PCS of a receiver of units or serdes words, before its first
    /// clock ([`LiveRx::set_fec`]; no FEC: nothing changes). A frame's clocks are then those
    /// at which the FEC handed the PCS its blocks.
    ///
    /// # Errors
    /// As [`LiveRx::set_fec`].
    pub fn set_fec(&mut self, rate: Rate, fec: &FecOptions) -> Result<(), String> {
        self.rx.set_fec(&self.opt, rate, fec)?;
        if self.rx.fec().is_some() {
            self.fec_clocks = Some(VecDeque::new());
        }
        Ok(())
    }

    /// What the FEC saw so far (`None`: no FEC).
    pub fn fec(&self) -> Option<&FecSummary> {
        self.rx.fec()
    }

    /// What it takes.
    pub fn input(&self) -> SimInput {
        self.input
    }

    /// USXGMII rate replication from now on: each column arrives `copies + 1` times; the
    /// frames come from a MAC receiver of their own on one column of each run (0: off).
    pub fn set_replication(&mut self, copies: u32) {
        self.usx = (copies > 0).then(|| UsxgmiiRx::new(&self.opt, copies));
    }

    /// One clock of 66 serial bits (input [`SimInput::Units`]).
    ///
    /// # Errors
    /// Another input, or finished.
    pub fn push_unit(&mut self, unit: Block) -> Result<Vec<PlacedFrame>, LiveError> {
        if self.input != SimInput::Units {
            return Err(LiveError::Input(
                "66-bit units pushed to a receiver of another input",
            ));
        }
        self.rx.push_units(&[unit])?;
        Ok(self.clocked())
    }

    /// One clock of a serdes word (input [`SimInput::Words`]).
    ///
    /// # Errors
    /// Another input, or finished.
    pub fn push_word(&mut self, word: u64) -> Result<Vec<PlacedFrame>, LiveError> {
        let SimInput::Words(width) = self.input else {
            return Err(LiveError::Input(
                "a serdes word pushed to a receiver of another input",
            ));
        };
        self.rx.push_word(width, word)?;
        Ok(self.clocked())
    }

    /// One clock of a block (input [`SimInput::Blocks`]).
    ///
    /// # Errors
    /// Another input, or finished.
    pub fn push_block(&mut self, b: Block) -> Result<Vec<PlacedFrame>, LiveError> {
        self.rx.push_block(b)?;
        Ok(self.clocked())
    }

    /// One clock of an XGMII transfer (input [`SimInput::Xgmii`]).
    ///
    /// # Errors
    /// Another input, or finished.
    pub fn push_xgmii(&mut self, w: XgmiiWord) -> Result<Vec<PlacedFrame>, LiveError> {
        self.rx.push_xgmii(w)?;
        Ok(self.clocked())
    }

    /// After a clock's input: the decoded transfers to the ordered sets (and the
    /// de-replication), the frames placed.
    fn clocked(&mut self) -> Vec<PlacedFrame> {
        self.clocks += 1;
        if let Some(at) = self.fec_clocks.as_mut() {
            let blocks = self.rx.status().blocks;
            if at.back().is_none_or(|&(b, _)| b < blocks) {
                at.push_back((blocks, self.clocks - 1));
                if at.len() > FEC_CLOCKS_KEPT {
                    at.pop_front();
                }
            }
        }
        self.take_words();
        let line = self.line_frames();
        match self.usx.as_mut() {
            // The line's frames are the replicated stream's: the MAC's come from the copies.
            Some(u) => {
                let frames = u.frames();
                self.placed(frames, true)
            }
            None => self.placed(line, false),
        }
    }

    fn take_words(&mut self) {
        let words = self
            .tap
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        for &(block, w) in &words {
            self.os.push(w);
            if let Some(u) = self.usx.as_mut() {
                u.push(block, w);
            }
        }
    }

    /// The frames the line's receiver delivered since the last call.
    fn line_frames(&mut self) -> Vec<(ReceivedFrame, FramePlaces)> {
        self.rx
            .frames()
            .drain(..)
            .map(|f| {
                let at = FramePlaces::of(&f);
                (f, at)
            })
            .collect()
    }

    /// Frames with their places' clocks; a replicated frame's `/S/` is put where it was on
    /// the line.
    fn placed(
        &self,
        frames: Vec<(ReceivedFrame, FramePlaces)>,
        replicated: bool,
    ) -> Vec<PlacedFrame> {
        frames
            .into_iter()
            .map(|(mut frame, at)| {
                if let (true, Some(s)) = (replicated, at.start) {
                    frame.start.block = s / 8;
                    frame.start.lane = (s % 8) as u8;
                }
                PlacedFrame {
                    frame,
                    start: at.start.map(|p| self.place(p)),
                    sfd: at.sfd.map(|p| self.place(p)),
                    data: at.data.map(|p| self.place(p)),
                    end: at.end.map(|p| self.place(p)),
                }
            })
            .collect()
    }

    /// An octet place and the clock of its block.
    fn place(&self, at: u64) -> Place {
        let block = at / 8;
        Place {
            block,
            lane: (at % 8) as u8,
            clock: self.clock_of(block),
        }
    }

    /// The clock at which block `n` was complete: the push that gave its last bit.
    pub fn clock_of(&self, n: u64) -> u64 {
        if let Some(at) = &self.fec_clocks {
            // The first clock whose blocks reach past block n.
            let i = at.partition_point(|&(b, _)| b <= n);
            return at.get(i).or(at.back()).map_or(0, |&(_, c)| c);
        }
        let per_clock = match self.input {
            SimInput::Units => 66,
            SimInput::Words(w) => u64::from(w),
            SimInput::Blocks { .. } | SimInput::Xgmii => return n,
        };
        // The block's first bit: from the lock (or relock) it was received under.
        let pcs = self.rx.pcs();
        let first = pcs
            .relocks
            .iter()
            .rev()
            .chain(pcs.lock_acquired.iter())
            .find(|l| l.block <= n)
            .map_or(66 * n, |l| l.bit_offset + 66 * (n - l.block));
        (first + 65) / per_clock
    }

    /// Clocks pushed so far.
    pub fn clocks(&self) -> u64 {
        self.clocks
    }

    /// The receiver now.
    pub fn status(&self) -> LiveStatus {
        self.rx.status()
    }

    /// What the PCS saw so far.
    pub fn pcs(&self) -> &PcsSummary {
        self.rx.pcs()
    }

    /// Frames received so far, by class (of the line: under rate replication, of the
    /// replicated stream).
    pub fn counts(&self) -> FrameCounts {
        self.rx.counts()
    }

    /// The last errored block counted.
    pub fn last_errored(&self) -> Option<PcsEvent> {
        self.rx.last_errored()
    }

    /// True while the offline view still looks for block lock.
    pub fn searching(&self) -> bool {
        self.rx.searching()
    }

    /// The ordered sets seen.
    pub fn ordered_sets(&mut self) -> &mut OrderedSetRuns {
        &mut self.os
    }

    /// Ends the stream: the PCS summary and the line's frame counts, and the frames the last
    /// blocks completed.
    ///
    /// # Errors
    /// Finished twice.
    pub fn finish(&mut self) -> Result<(PcsSummary, FrameCounts, Vec<PlacedFrame>), LiveError> {
        let (pcs, counts) = self.rx.finish()?;
        self.take_words();
        let line = self.line_frames();
        let frames = match self.usx.take() {
            Some(u) => {
                let (_, _, frames) = u.finish().map_err(|_| LiveError::Finished)?;
                self.placed(frames, true)
            }
            None => self.placed(line, false),
        };
        Ok((pcs, counts, frames))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tx::TxOptions;

    fn tx_opt(ifg: u16) -> TxOptions {
        let mut o = TxOptions {
            idle_blocks: 0,
            ..TxOptions::default()
        };
        o.mac.ifg_octets = ifg;
        o
    }

    /// (mark, id, octet place) of the next `n` blocks.
    fn marks(tx: &mut SimTx, n: usize) -> Vec<(Mark, u64, u64)> {
        let mut out = Vec::new();
        for _ in 0..n {
            let b = tx.clock().unwrap();
            out.extend(
                b.marks
                    .iter()
                    .map(|m| (m.mark, m.id, b.index * 8 + u64::from(m.lane))),
            );
        }
        out
    }

    fn at(m: &[(Mark, u64, u64)], mark: Mark, id: u64) -> u64 {
        m.iter().find(|x| x.0 == mark && x.1 == id).unwrap().2
    }

    /// Frames through a transmitter with `fec` below it, its units moved by `skip` bits, into
    /// a receiver below the same FEC: the frames received, the FEC's summary, the source's
    /// holds.
    fn through_fec(
        fec: &FecOptions,
        skip: u32,
        frames: &[Vec<u8>],
    ) -> (Vec<PlacedFrame>, FecSummary, u64) {
        // Idle blocks first: the receiver's FEC finds its lock (Clause 74 slips a bit a FEC
        // block) and its descrambler trains on them.
        let opt = TxOptions {
            idle_blocks: 3000,
            ..tx_opt(12)
        };
        let mut tx = SimTx::with_fec(&opt, Rate::G25, fec).unwrap();
        for f in frames {
            tx.send(f, None).unwrap();
        }
        let mut rx = SimRx::new(
            &crate::Options::default().rx(),
            SimInput::Units,
            RxView::Receiver,
        );
        rx.set_fec(Rate::G25, fec).unwrap();
        let mut got = Vec::new();
        let mut ends = 0;
        let mut last: u128 = 0;
        for _ in 0..(2 * 1024 * 80 + 4000) {
            let c = tx.clock().unwrap();
            ends += c.marks.iter().filter(|m| m.mark == Mark::End).count();
            let u = u128::from(c.line.sync.to_bits()) | u128::from(c.line.payload) << 2;
            let moved = if skip == 0 {
                u
            } else {
                (last >> (66 - skip) | u << skip) & ((1 << 66) - 1)
            };
            last = u;
            let b = Block {
                sync: pcs_core::SyncHeader::from_bits((moved & 3) as u8),
                payload: (moved >> 2) as u64,
            };
            got.extend(rx.push_unit(b).unwrap());
            if tx.pending() == 0 && got.len() == frames.len() {
                break;
            }
        }
        let held = tx.fec().unwrap().held();
        // Every frame's marks are handed out, if a clock later when the FEC took two blocks.
        assert_eq!(ends, frames.len());
        (got, rx.fec().unwrap().clone(), held)
    }

    #[test]
    fn frames_cross_a_fec_line_from_any_offset_and_rs_holds_the_source_4_blocks_a_period() {
        let frames: Vec<Vec<u8>> = (0..40).map(|i| vec![i as u8; 60 + 97 * i]).collect();
        let rs = FecOptions {
            kind: crate::fec::Fec::Rs,
            rs: fec_core::rs::RsFecConfig {
                lock_markers: 1,
                marker_period_codewords: 4,
                ..fec_core::rs::RsFecConfig::IEEE
            },
            ..FecOptions::default()
        };
        let fc = FecOptions {
            kind: crate::fec::Fec::Fc,
            ..FecOptions::default()
        };
        for (fec, skip) in [(rs, 0), (rs, 29), (fc, 0), (fc, 13)] {
            let (got, s, held) = through_fec(&fec, skip, &frames);
            let lens: Vec<usize> = got.iter().map(|f| f.frame.content().len()).collect();
            let want: Vec<usize> = frames.iter().map(Vec::len).collect();
            assert_eq!(lens, want, "{:?} {skip}", fec.kind);
            for (g, f) in got.iter().zip(&frames) {
                assert!(g.frame.content() == f.as_slice(), "{:?} {skip}", fec.kind);
            }
            assert!(s.clean() && s.corrected_codewords == 0, "{s:?}");
            // Clock places grow with the line.
            assert!(got
                .windows(2)
                .all(|w| w[0].start.map(|p| p.clock) <= w[1].start.map(|p| p.clock)));
            match fec.kind {
                crate::fec::Fec::Rs => {
                    // 4 a marker codeword begun; the transmitter is up to two codewords ahead.
                    let markers = s.markers.unwrap_or(0);
                    assert!(
                        held >= 4 * markers && held <= 4 * (markers + 1),
                        "{held} {markers}"
                    );
                }
                _ => assert_eq!(held, 0),
            }
        }
    }

    #[test]
    fn settings_wait_for_the_frames_given_and_ids_go_on() {
        let mut tx = SimTx::new(&tx_opt(12), 0);
        tx.send(&[1; 100], None).unwrap();
        tx.send(&[2; 100], None).unwrap();
        tx.configure(&tx_opt(40), 0);
        assert_eq!(tx.options().0.mac.ifg_octets, 40, "given");
        let m = marks(&mut tx, 60);
        // the two frames went back to back with the old gap
        assert!(at(&m, Mark::Start, 1) - at(&m, Mark::End, 0) < 16);
        assert_eq!(at(&m, Mark::Sfd, 0), at(&m, Mark::Start, 0) + 7);
        assert_eq!(at(&m, Mark::Data, 1), at(&m, Mark::Start, 1) + 8);
        assert_eq!(tx.send(&[3; 100], None).unwrap(), 2);
        assert_eq!(tx.send(&[4; 100], None).unwrap(), 3);
        let m = marks(&mut tx, 60);
        assert!(at(&m, Mark::Start, 3) - at(&m, Mark::End, 2) >= 40);
    }

    #[test]
    fn a_restart_drops_the_frame_under_way_and_sends_the_waiting_ones_with_their_ids() {
        let mut tx = SimTx::new(&tx_opt(12), 0);
        for i in 0..3u8 {
            tx.send(&[i; 200], None).unwrap();
        }
        let m = marks(&mut tx, 4);
        assert!(m.iter().any(|x| x.0 == Mark::Start && x.1 == 0));
        assert_eq!(tx.restart(), vec![0]);
        let m = marks(&mut tx, 80);
        assert!(!m.iter().any(|x| x.1 == 0));
        assert!(at(&m, Mark::End, 1) < at(&m, Mark::Start, 2));
        assert_eq!(tx.pending(), 0);
        assert_eq!(tx.send(&[9; 60], None).unwrap(), 3);
        assert_eq!(tx.drop_unstarted(), vec![3]);
        assert_eq!(tx.send(&[9; 60], None).unwrap(), 4);
    }

    #[test]
    fn frames_after_lock_have_the_same_clocks_in_both_views() {
        let mut tx = SimTx::new(&tx_opt(12), 0);
        let mut line = Vec::new();
        for i in 0..700u64 {
            if i % 100 == 50 {
                tx.send(&[i as u8; 300], None).unwrap();
            }
            line.push(tx.clock().unwrap().line);
        }
        // 66-bit units moved by 23 bits
        let bits: Vec<bool> = line
            .iter()
            .flat_map(|b| {
                let u = u128::from(b.sync.to_bits()) | u128::from(b.payload) << 2;
                (0..66).map(move |i| (u >> i) & 1 == 1)
            })
            .skip(23)
            .collect();
        let units: Vec<Block> = bits
            .chunks_exact(66)
            .map(|c| {
                let v: u128 = c.iter().enumerate().map(|(i, &b)| u128::from(b) << i).sum();
                Block {
                    sync: pcs_core::SyncHeader::from_bits((v & 3) as u8),
                    payload: (v >> 2) as u64,
                }
            })
            .collect();
        let opt = crate::Options::default().rx();
        let run = |view| {
            let mut rx = SimRx::new(&opt, SimInput::Units, view);
            let mut got = Vec::new();
            for (clock, &u) in units.iter().enumerate() {
                for f in rx.push_unit(u).unwrap() {
                    // delivered at or after the clock of its last octet
                    assert!(f.end.unwrap().clock <= clock as u64 + 1);
                    got.push((f.frame.data.clone(), f.start.unwrap(), f.data.unwrap()));
                }
            }
            got.extend(
                rx.finish()
                    .unwrap()
                    .2
                    .into_iter()
                    .map(|f| (f.frame.data.clone(), f.start.unwrap(), f.data.unwrap())),
            );
            got
        };
        let (offline, receiver) = (run(RxView::Offline), run(RxView::Receiver));
        assert_eq!(offline.len(), 7);
        assert!(receiver.len() >= 5, "{}", receiver.len());
        for r in &receiver {
            let o = offline.iter().find(|o| o.0 == r.0).unwrap();
            assert_eq!((o.1.clock, o.1.lane), (r.1.clock, r.1.lane));
            assert_eq!((o.2.clock, o.2.lane), (r.2.clock, r.2.lane));
        }
        // 23 bits moved: the stream's block m is the line's m + 1, from its bit 43; its last
        // bit, 43 + 66 m + 65, comes in unit m + 1
        let s = offline[0].1;
        assert_eq!(s.clock, s.block + 1);
    }
}
