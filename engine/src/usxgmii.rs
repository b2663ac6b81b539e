//! USXGMII rate replication: a MAC slower than 10 Gb/s over a 10G XGMII and 10GBASE-R line.
//!
//! Below 10 Gb/s each 4-octet column of the MAC's transfers goes over the line `copies + 1`
//! times (9 copies for 1 Gb/s, 99 for 100 Mb/s; for 2.5 and 5 Gb/s, 3 and 1), and the receiver
//! keeps one column of each run. The rules are those of the taxi test-bench models
//! (`tb/baser.py`), whose benches check a DUT's PTP timestamps against them to 10 ps:
//!
//! ```text
//! TX  frames -> UsxgmiiTx: the MAC's columns, each sent copies + 1 times -> PcsTx -> blocks
//!     a copy of the /S/ column carries 0xaa for the /S/; a copy of the /T/ column is idles;
//!     the gap (IFG, deficit idle count) is counted in the columns the MAC sends, not in the
//!     copies: after a /T/ in block lane k, ifg - (8 - k) octets are still owed, one column
//!     of them paid at each column the MAC sends after that block
//!     with an odd count of copies (an even count of columns a run), a run starts in the
//!     first column of a block (the second with every /S/ in lane 4)
//! RX  decoded transfers -> Dereplicator: one column of each run, again from a /S/
//!     -> RxChain (XGMII) -> frames, each octet's place on the line known
//! ```
//!
//! The frame times a test bench stamps follow from the marks: the first octet after the SFD
//! is the DA's first copy, which comes after the last copy of the SFD's column (taxi's
//! `sim_time_sfd` at both ends).

use crate::fcs::FastFcs;
use crate::live::FrameQueue;
use crate::rx::{FrameCounts, PcsSummary, ReceivedFrame, RxChain, RxInput, RxOptions};
use crate::sim::{FramePlaces, Mark, MarkAt, Marked};
use crate::tx::{OrderedSet, TxError, TxOptions};
use mac_core::frame::{fcs_padded_with, Padding, MAX_FRAME_OCTETS, PREAMBLE_OCTET, SFD};
use mac_core::tx::DicMode;
use pcs_core::PcsTx;
use pcs_core::{ControlChar, XgmiiWord};
use std::collections::VecDeque;

/// The octet a copy of the `/S/` column carries in the `/S/`'s lane (a preamble octet's
/// pattern, as the originals send it).
const START_COPY: u8 = 0xaa;

// ------------------------------------------------------------------------------------ TX

/// A frame on its way: its octets from the first preamble octet (which the `/S/` stands in
/// for) to the FCS, and how far it went.
#[derive(Debug)]
struct Sending {
    id: u64,
    octets: Vec<u8>,
    /// The next octet (a copy column goes back 4).
    offset: usize,
    /// The `/S/` is still to go.
    start: bool,
    /// Before the SFD's last copy.
    in_preamble: bool,
    sfd_marked: bool,
    data_marked: bool,
}

/// The transmitter under rate replication: a MAC whose columns are each sent `copies + 1`
/// times, and the PCS after it, one line block a clock.
#[derive(Debug)]
pub struct UsxgmiiTx {
    copies: u32,
    ifg: i64,
    dic: DicMode,
    lane4: bool,
    padding: Padding,
    waiting: VecDeque<(u64, Vec<u8>)>,
    next_id: u64,
    sending: Option<Sending>,
    /// Gap octets still owed, and the deficit idle count (octets of gaps made shorter).
    ifg_owed: i64,
    deficit: i64,
    /// The block holds a `/T/`: no decision at its second column.
    in_term: bool,
    /// Copies of the current column still to send.
    copies_left: u32,
    pcs: PcsTx,
    idle_fill: Option<OrderedSet>,
    /// Idle blocks still to send before anything else.
    hold: u64,
    handed: u64,
    scrambler: u64,
}

impl UsxgmiiTx {
    /// A transmitter out of reset sending each column `copies + 1` times (0: no replication,
    /// the MAC's columns as they are).
    pub fn new(opt: &TxOptions, copies: u32) -> Self {
        Self {
            copies,
            ifg: i64::from(opt.mac.ifg_octets),
            dic: opt.mac.dic,
            lane4: opt.mac.start_lanes == mac_core::tx::StartLanes::Lane4,
            padding: opt.mac.padding,
            waiting: VecDeque::new(),
            next_id: 0,
            sending: None,
            ifg_owed: 0,
            deficit: 0,
            in_term: false,
            copies_left: 0,
            pcs: PcsTx::new(opt.profile.encoder(), opt.seed),
            idle_fill: None,
            hold: opt.idle_blocks,
            handed: 0,
            scrambler: opt.seed,
        }
    }

    /// Copies after each column.
    pub fn copies(&self) -> u32 {
        self.copies
    }

    /// Gives the MAC a frame (DA to the end of the payload; with `fcs`, sent as is with that
    /// FCS and no padding). It starts at the first column the gap allows. Returns its id.
    ///
    /// # Errors
    /// The frame is longer than the MAC sends.
    pub fn send(&mut self, data: &[u8], fcs: Option<[u8; 4]>) -> Result<u64, TxError> {
        let len = data.len() + 4;
        if len > MAX_FRAME_OCTETS {
            return Err(TxError::FrameTooLong { len });
        }
        let pad = if fcs.is_some() {
            0
        } else {
            self.padding.pad_octets(data.len())
        };
        let mut octets = Vec::with_capacity(8 + data.len() + pad + 4);
        octets.extend_from_slice(&[PREAMBLE_OCTET; 7]);
        octets.push(SFD);
        octets.extend_from_slice(data);
        octets.resize(octets.len() + pad, 0);
        let fcs = fcs.unwrap_or_else(|| fcs_padded_with::<FastFcs>(data, pad).to_le_bytes());
        octets.extend_from_slice(&fcs);
        let id = self.next_id;
        self.next_id += 1;
        self.waiting.push_back((id, octets));
        Ok(id)
    }

    /// Frames given and not fully sent.
    pub fn pending(&self) -> usize {
        self.waiting.len() + usize::from(self.sending.is_some())
    }

    /// Frames given that have not started.
    pub fn unstarted(&self) -> usize {
        self.waiting.len()
    }

    /// Drops the frames that have not started; returns their ids.
    pub fn drop_unstarted(&mut self) -> Vec<u64> {
        self.waiting.drain(..).map(|(id, _)| id).collect()
    }

    /// Sends `os` in place of idle transfers from the next block on (`None`: idles).
    pub fn set_idle_fill(&mut self, os: Option<OrderedSet>) {
        self.idle_fill = os;
    }

    /// Blocks handed out so far.
    pub fn blocks(&self) -> u64 {
        self.handed
    }

    /// The scrambler state after the last block handed out.
    pub fn scrambler_state(&self) -> u64 {
        self.scrambler
    }

    /// At a column the MAC sends: pay a column of the gap, or start the next frame.
    fn decide(&mut self, lane: usize) {
        if !lane.is_multiple_of(4)
            || self.copies_left != 0
            || (self.lane4 && lane == 0)
            || self.in_term
            || self.hold > 0
        {
            return;
        }
        let dic = self.dic != DicMode::Off;
        if self.ifg_owed + self.deficit > 3 || (!dic && self.ifg_owed > 0) {
            self.ifg_owed -= 4;
            if self.ifg_owed < 0 {
                if dic {
                    self.deficit = (self.deficit + self.ifg_owed).max(0);
                }
                self.ifg_owed = 0;
            }
        } else if self.sending.is_none() {
            match self.waiting.pop_front() {
                Some((id, octets)) => {
                    if dic {
                        self.deficit = (self.deficit + self.ifg_owed).max(0);
                    }
                    self.ifg_owed = 0;
                    self.sending = Some(Sending {
                        id,
                        octets,
                        offset: 0,
                        start: true,
                        in_preamble: true,
                        sfd_marked: false,
                        data_marked: false,
                    });
                }
                None => {
                    // Idle: the gap is paid; the count starts over unless it is strict.
                    if self.dic != DicMode::Strict {
                        self.deficit = 0;
                    }
                    self.ifg_owed = 0;
                }
            }
        }
    }

    /// The octet of `lane` (data, control), and its marks.
    fn lane(&mut self, lane: usize, marks: &mut Vec<MarkAt>) -> (u8, bool) {
        let (copies, copying) = (self.copies, self.copies_left);
        let Some(f) = self.sending.as_mut() else {
            return (ControlChar::IDLE.0, true);
        };
        let at = |mark, id| MarkAt {
            mark,
            id,
            lane: lane as u8,
        };
        let out = if f.start {
            f.start = false;
            marks.push(at(Mark::Start, f.id));
            (ControlChar::START.0, true)
        } else if let Some(&octet) = f.octets.get(f.offset) {
            if !f.in_preamble && !f.data_marked {
                f.data_marked = true;
                marks.push(at(Mark::Data, f.id));
            }
            if f.in_preamble && octet == SFD {
                if !f.sfd_marked {
                    f.sfd_marked = true;
                    marks.push(at(Mark::Sfd, f.id));
                }
                // The preamble ends with the SFD's last copy.
                if copies == 0 || copying == 1 {
                    f.in_preamble = false;
                }
            }
            if f.offset == 0 {
                (START_COPY, false)
            } else {
                (octet, false)
            }
        } else {
            marks.push(at(Mark::End, f.id));
            self.in_term = true;
            self.ifg_owed = (self.ifg - (8 - lane as i64)).max(0);
            self.sending = None;
            return (ControlChar::TERMINATE.0, true);
        };
        f.offset += 1;
        out
    }

    /// At the end of a column: the next column is a copy, or the MAC's next.
    fn column_end(&mut self, lane: usize) {
        if lane % 4 != 3 {
            return;
        }
        if self.copies_left > 0 {
            self.copies_left -= 1;
        } else if self.copies > 0 && (self.copies.is_multiple_of(2) || (lane == 3) != self.lane4) {
            self.copies_left = self.copies;
        }
        if self.copies_left > 0 {
            if let Some(f) = self.sending.as_mut() {
                f.offset = f.offset.saturating_sub(4);
            }
        }
    }

    /// The next block (one clock), with the marks of the frames' octets in it.
    pub fn clock(&mut self) -> Marked {
        let mut marks = Vec::new();
        let mut word = XgmiiWord::IDLE;
        for lane in 0..8 {
            self.decide(lane);
            let (octet, control) = self.lane(lane, &mut marks);
            let shift = 8 * lane;
            word.data = (word.data & !(0xff << shift)) | u64::from(octet) << shift;
            word.ctrl = (word.ctrl & !(1 << lane)) | u8::from(control) << lane;
            self.column_end(lane);
        }
        self.in_term = false;
        self.hold = self.hold.saturating_sub(1);
        if let Some(os) = self.idle_fill {
            word = os.fill(word);
        }
        let (line, ev) = self.pcs.step(word);
        let index = self.handed;
        self.handed += 1;
        self.scrambler = line.payload >> 6;
        Marked {
            index,
            line,
            unscrambled: ev.block,
            word,
            marks,
        }
    }
}

// ------------------------------------------------------------------------------------ RX

/// The receiver's half of replication: of each run of a column and its copies, the first is
/// kept; a `/S/` starts the runs again (the receiver finds the runs' phase on a frame's
/// start, as the originals do).
#[derive(Clone, Copy, Debug)]
pub struct Dereplicator {
    copies: u32,
    skip: u32,
}

impl Dereplicator {
    /// Keeps one column of each `copies + 1`.
    pub fn new(copies: u32) -> Self {
        Self { copies, skip: 0 }
    }

    /// The lanes of one line transfer to keep, in order: `keep(lane)` for each.
    pub fn push(&mut self, w: XgmiiWord, mut keep: impl FnMut(usize)) {
        for lane in 0..8 {
            if self.copies > 0 && w.is_control(lane) && w.octet(lane) == ControlChar::START.0 {
                self.skip = 0;
            }
            let column_end = lane % 4 == 3;
            if self.skip > 0 {
                if column_end {
                    self.skip -= 1;
                }
                continue;
            }
            if self.copies > 0 && column_end {
                self.skip = self.copies;
            }
            keep(lane);
        }
    }
}

/// A received frame and its octets' places on the line.
pub type Placed = (ReceivedFrame, FramePlaces);

/// MAC transfers whose lanes' line places are kept (a frame looks back at most this far).
const PLACES_KEPT: usize = (MAX_FRAME_OCTETS + 64) / 8 + 64;

/// The receiver under rate replication: the line's decoded transfers de-replicated into the
/// MAC's transfers, a MAC receiver of their own (the RX chain on XGMII), and each frame's
/// octets placed on the line.
pub struct UsxgmiiRx {
    derep: Dereplicator,
    chain: RxChain<FrameQueue>,
    /// Kept lanes not yet a whole transfer: octet, control, line place (block * 8 + lane).
    lanes: Vec<(u8, bool, u64)>,
    /// The line places of the lanes of the MAC's transfers from transfer `base` on.
    places: VecDeque<[u64; 8]>,
    base: u64,
}

impl UsxgmiiRx {
    /// A receiver out of reset keeping one column of each `copies + 1`.
    pub fn new(opt: &RxOptions, copies: u32) -> Self {
        Self {
            derep: Dereplicator::new(copies),
            chain: RxChain::new(opt, RxInput::Xgmii, FrameQueue::default()),
            lanes: Vec::with_capacity(8),
            places: VecDeque::new(),
            base: 0,
        }
    }

    /// One decoded transfer of the line, the line's block `block`.
    pub fn push(&mut self, block: u64, w: XgmiiWord) {
        let mut kept = [0usize; 8];
        let mut n = 0;
        self.derep.push(w, |lane| {
            if let Some(k) = kept.get_mut(n) {
                *k = lane;
                n += 1;
            }
        });
        for &lane in kept.get(..n).unwrap_or_default() {
            self.lanes
                .push((w.octet(lane), w.is_control(lane), block * 8 + lane as u64));
            if self.lanes.len() == 8 {
                self.transfer();
            }
        }
    }

    /// The 8 kept lanes as one MAC transfer.
    fn transfer(&mut self) {
        let mut w = XgmiiWord { data: 0, ctrl: 0 };
        let mut at = [0u64; 8];
        for (i, &(octet, control, place)) in self.lanes.iter().enumerate() {
            w.data |= u64::from(octet) << (8 * i);
            w.ctrl |= u8::from(control) << i;
            if let Some(a) = at.get_mut(i) {
                *a = place;
            }
        }
        self.lanes.clear();
        self.places.push_back(at);
        if self.places.len() > PLACES_KEPT {
            self.places.pop_front();
            self.base += 1;
        }
        self.chain.push_xgmii(&[w]);
    }

    /// The line place of the MAC's octet `at` (transfer * 8 + lane), while it is kept.
    fn place(&self, at: u64) -> Option<u64> {
        let i = usize::try_from((at / 8).checked_sub(self.base)?).ok()?;
        self.places.get(i)?.get((at % 8) as usize).copied()
    }

    fn placed(&self, f: ReceivedFrame) -> (ReceivedFrame, FramePlaces) {
        let mac = FramePlaces::of(&f);
        let line = FramePlaces {
            start: mac.start.and_then(|p| self.place(p)),
            sfd: mac.sfd.and_then(|p| self.place(p)),
            data: mac.data.and_then(|p| self.place(p)),
            end: mac.end.and_then(|p| self.place(p)),
        };
        (f, line)
    }

    /// The frames the MAC delivered since the last call, placed on the line.
    pub fn frames(&mut self) -> Vec<Placed> {
        let frames: Vec<ReceivedFrame> = self.chain.sink_mut().frames.drain(..).collect();
        frames.into_iter().map(|f| self.placed(f)).collect()
    }

    /// Ends reception: the MAC's frame counts and the frames the last transfers completed.
    ///
    /// # Errors
    /// Never in practice (the sink keeps frames in memory).
    pub fn finish(mut self) -> std::io::Result<(PcsSummary, FrameCounts, Vec<Placed>)> {
        let mut out = self.frames();
        let (pcs, counts, queue) = std::mem::replace(
            &mut self.chain,
            RxChain::new(&RxOptions::default(), RxInput::Xgmii, FrameQueue::default()),
        )
        .finish()?;
        out.extend(queue.frames.into_iter().map(|f| self.placed(f)));
        Ok((pcs, counts, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::LiveTx;
    use mac_core::tx::{StartLanes, TxConfig};
    use proptest::prelude::*;

    fn frame(len: usize, seed: u8) -> Vec<u8> {
        (0..len).map(|i| (i as u8).wrapping_mul(7) ^ seed).collect()
    }

    fn opt(ifg: u16, dic: DicMode, lane4: bool) -> TxOptions {
        TxOptions {
            mac: TxConfig {
                ifg_octets: ifg,
                dic,
                start_lanes: if lane4 {
                    StartLanes::Lane4
                } else {
                    StartLanes::Both
                },
                ..TxConfig::default()
            },
            idle_blocks: 0,
            ..TxOptions::default()
        }
    }

    fn columns(w: XgmiiWord) -> [(u32, u8); 2] {
        [
            (w.data as u32, w.ctrl & 0xf),
            ((w.data >> 32) as u32, w.ctrl >> 4),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Without copies the column machine is the MAC: the same line as the live TX model
        /// (IFG, deficit idle count reset when idle, or off), frames given together or after
        /// idle time. (Below 8 octets the two differ: the MAC puts a `/S/` in a later transfer
        /// than its `/T/` and keeps the deficit it counted; taxi's model counts the rest of the
        /// `/T/`'s block as gap paid.)
        #[test]
        fn without_copies_it_sends_what_the_mac_sends(
            script in proptest::collection::vec((1usize..300, 0u64..4), 1..8),
            ifg in prop_oneof![Just(8u16), Just(9), Just(10), Just(11), Just(12), Just(13), Just(20)],
            dic in prop_oneof![Just(DicMode::ResetOnIdle), Just(DicMode::Off)],
        ) {
            let o = opt(ifg, dic, false);
            let mut mac = LiveTx::new(&o);
            let mut usx = UsxgmiiTx::new(&o, 0);
            for (i, &(len, idle)) in script.iter().enumerate() {
                let f = frame(len.max(60), i as u8);
                mac.send(&f, None).unwrap();
                usx.send(&f, None).unwrap();
                while mac.pending() > 0 || usx.pending() > 0 {
                    let (a, b) = (mac.clock().unwrap(), usx.clock());
                    prop_assert_eq!(a.line, b.line, "block {}", a.index);
                    let start = b.marks.iter().find(|m| m.mark == Mark::Start).map(|m| (m.id, m.lane));
                    prop_assert_eq!(a.start, start);
                }
                for _ in 0..idle {
                    prop_assert_eq!(mac.clock().unwrap().line, usx.clock().line);
                }
            }
        }

        /// With copies, every column of the MAC's stream is sent copies + 1 times (a copy of
        /// the /S/ column with 0xaa for the /S/, of the /T/ column idles), and what a
        /// receiver keeps of it is the MAC's stream: the frames come back whole.
        #[test]
        fn copies_come_back_as_the_macs_frames(
            lens in proptest::collection::vec(1usize..400, 1..6),
            copies in prop_oneof![Just(1u32), Just(2), Just(3), Just(4), Just(9)],
            ifg in prop_oneof![Just(0u16), Just(1), Just(12)],
            lane4 in any::<bool>(),
        ) {
            let o = opt(ifg, DicMode::ResetOnIdle, lane4);
            let mut usx = UsxgmiiTx::new(&o, copies);
            let frames: Vec<Vec<u8>> = lens.iter().enumerate().map(|(i, &l)| frame(l, i as u8)).collect();
            for f in &frames {
                usx.send(f, None).unwrap();
            }
            let mut rx = UsxgmiiRx::new(&crate::Options::default().rx(), copies);
            let mut cols = Vec::new();
            let mut n = 0u64;
            while usx.pending() > 0 || n < 8 {
                let b = usx.clock();
                cols.extend(columns(b.word));
                rx.push(b.index, b.word);
                if usx.pending() == 0 { n += 1; }
            }
            for _ in 0..(copies as usize + 2) {
                let b = usx.clock();
                rx.push(b.index, b.word);
            }
            let (_, _, got) = rx.finish().unwrap();
            let got: Vec<Vec<u8>> = got.iter().map(|(f, _)| f.content().to_vec()).collect();
            let want: Vec<Vec<u8>> = frames.iter().map(|f| crate::judge::padded(f).into_owned()).collect();
            prop_assert_eq!(got, want);
            // Every /S/ column is followed by its copies, each with 0xaa for the /S/.
            for (i, &(d, c)) in cols.iter().enumerate() {
                if c & 1 == 1 && d & 0xff == 0xfb {
                    for k in 1..=copies as usize {
                        if let Some(&(cd, cc)) = cols.get(i + k) {
                            prop_assert_eq!((cd, cc), ((d & !0xff) | 0xaa, c & !1));
                        }
                    }
                }
            }
        }
    }

    /// taxi's `sim_time_sfd` is the DA's first octet, after the SFD column's last copy: at
    /// 1 Gb/s (9 copies) that is 10 columns after the SFD's first copy.
    #[test]
    fn the_data_mark_is_after_the_sfd_columns_last_copy() {
        for (copies, lane4) in [(9u32, false), (9, true), (4, false), (1, false), (3, true)] {
            let mut usx = UsxgmiiTx::new(&opt(12, DicMode::ResetOnIdle, lane4), copies);
            usx.send(&frame(100, 1), None).unwrap();
            let mut at = std::collections::HashMap::new();
            for _ in 0..200 {
                let b = usx.clock();
                for m in b.marks {
                    at.insert(m.mark, b.index * 8 + u64::from(m.lane));
                }
            }
            let (s, sfd, data) = (at[&Mark::Start], at[&Mark::Sfd], at[&Mark::Data]);
            assert_eq!(s % 4, 0, "{copies}");
            // /S/ column, its copies, then the SFD's column (SFD in its lane 3)
            assert_eq!(sfd, s + 4 * (u64::from(copies) + 1) + 3, "{copies} {lane4}");
            assert_eq!(data, sfd + 1 + 4 * u64::from(copies), "{copies} {lane4}");
            assert!(at[&Mark::End] > data);
        }
    }

    /// The gap is counted in the MAC's columns: at IFG 12 with 9 copies, a /T/ in lane k
    /// owes 12 - (8 - k) octets after its block; copies are not counted.
    #[test]
    fn the_gap_counts_only_the_macs_columns() {
        let mut usx = UsxgmiiTx::new(&opt(12, DicMode::Off, false), 9);
        // 60 + 4 octets + 8 of preamble: 72, the /T/ in the 19th column's lane 0.
        usx.send(&frame(60, 1), None).unwrap();
        usx.send(&frame(60, 2), None).unwrap();
        let mut cols = Vec::new();
        for _ in 0..400 {
            cols.extend(columns(usx.clock().word));
        }
        let t = cols
            .iter()
            .position(|&(d, c)| c & 1 == 1 && d & 0xff == 0xfd);
        let s2 = cols
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, &(d, c))| c & 1 == 1 && d & 0xff == 0xfb);
        let (t, (s2, _)) = (t.unwrap(), s2.unwrap());
        // The /T/ column (lane 0 of a block), its 9 copies, then the MAC's columns: 12 - 8 =
        // 4 octets owed, one column; the next /S/ in the column after it.
        assert_eq!(t % 2, 0);
        assert_eq!(s2 - t, 10 + 10, "{t} {s2}");
    }

    #[test]
    fn the_dereplicator_keeps_the_first_column_of_each_run_from_a_start() {
        let mut d = Dereplicator::new(1);
        let s = XgmiiWord {
            data: 0x5555_55fb_0707_0707,
            ctrl: 0x1f,
        };
        let mut kept = Vec::new();
        d.push(XgmiiWord::IDLE, |l| kept.push(l));
        // lanes 4..7 are the copy of lanes 0..3
        assert_eq!(kept, [0, 1, 2, 3]);
        kept.clear();
        d.push(s, |l| kept.push(l));
        // lanes 0..3 start a run; the /S/ in lane 4 starts one again (the phase is found on
        // a start)
        assert_eq!(kept, [0, 1, 2, 3, 4, 5, 6, 7]);
        kept.clear();
        // a copy of the column before, then the /S/ again
        d.push(s, |l| kept.push(l));
        assert_eq!(kept, [4, 5, 6, 7]);
    }
}
