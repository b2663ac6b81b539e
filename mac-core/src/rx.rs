//! MAC receive + RS: XGMII words -> frames, each classified the way a careful MAC and its
//! statistics counters would.
//!
//! ```text
//!            /S/ in lane 0|4           7 octets (55 x6, d5)          /T/
//!  IDLE ----------------------> PREAMBLE ----------------> DATA ----------> IDLE (report)
//!    ^  /S/ elsewhere: counted      | control char other than /E/: report (truncated);
//!    |  as misaligned, ignored      | /S/ in lane 0|4 reports and starts the next frame
//!    +------------------------------+  /E/: marks the frame, reception goes on
//! ```
//!
//! Classes, first match wins (see [`RxClass`]): `/E/` seen > ended by a control character
//! other than `/T/` > bad or incomplete preamble/SFD > longer than the maximum > shorter than
//! 64 octets (runt if the FCS is good, fragment if not) > bad FCS > ok. Lengths count DA
//! through FCS. Any gap is accepted, including the 5-octet minimum of §46.2.1 and less.
//!
//! Spec: IEEE 802.3 §4.2.4.2, §4.2.9, §46.2.1, §46.3.2, §46.3.3.

use pcs_core::{ControlChar, XgmiiWord};

use crate::control::{MacControl, OPCODE_PAUSE, OPCODE_PFC};
use crate::frame::{
    ether_type, AddressKind, FcsEngine, MaxFrameLength, TableFcs, FCS_RESIDUE, MAX_FRAME_OCTETS,
    MIN_FRAME_OCTETS, PREAMBLE_OCTET, SFD, TPID_VLAN,
};
use crate::stats::RxStats;
use crate::tx::{START_LANE0_WORD, START_LANE4_WORD};

/// A packet the reconciliation sublayer hands the MAC whole (see [`MacRx::take_packet`]):
/// where its `/S/` was, the seven octets after it, and how much of the frame's buffer it
/// filled. The PCS's packet decoder makes one from a run of blocks; the engine passes it on.
///
/// Spec: IEEE 802.3 §46.3.2 (start in lane 0 or 4), §46.3.3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxPacket {
    /// The lane of its `/S/`: 0, or 4 after four idles.
    pub start_lane: u8,
    /// The seven data octets after the `/S/` (a frame's preamble and SFD), the first in bits
    /// 7..0.
    pub lead: u64,
    /// The data octets after those, up to the `/T/`, written at the start of the buffer.
    pub octets: usize,
    /// The transfers the packet stands for: the start's, the data transfers, and, when it
    /// `ended`, the terminate's and the idles after it.
    pub transfers: usize,
    /// The terminate was seen: the packet ended.
    pub ended: bool,
}

/// Lanes 0..3 of the transfer after a lane-4 start: three preamble octets and the SFD.
const PREAMBLE_TAIL: u32 = 0xd555_5555;

/// The seven octets after `/S/` in a frame: six preamble octets and the SFD, lane order.
const PREAMBLE_AND_SFD: u64 = 0x00d5_5555_5555_5555;

/// How a received frame (one per aligned `/S/`) is classified.
///
/// Spec: IEEE 802.3 §4.2.4.2, §4.2.9 (frameCheckError, frameTooLong), §46.3.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RxClass {
    /// 64 ..= maximum octets, good FCS, clean framing.
    Ok,
    /// 64 ..= maximum octets, bad FCS.
    FrameCheckSequenceError,
    /// Shorter than 64 octets with a good FCS (RMON undersize).
    // reading: runt = < 64 octets (FCS included) and good FCS; fragment = < 64 and bad FCS.
    Runt,
    /// Shorter than 64 octets with a bad FCS (RMON fragment).
    Fragment,
    /// Longer than the configured maximum, whatever its FCS (a jabber if the FCS is bad too).
    // reading: too long takes precedence over a bad FCS; the FCS verdict is still reported.
    FrameTooLong,
    /// An `/E/` inside the frame (preamble included).
    ErrorCharacter,
    /// Ended by a control character other than `/T/` (an `/S/`, `/I/`, ordered set, ...).
    Truncated,
    /// Preamble octets other than `0x55`, an SFD other than `0xd5`, or a `/T/` before the SFD.
    BadPreamble,
}

impl RxClass {
    /// True for [`RxClass::Ok`].
    ///
    /// Spec: IEEE 802.3 §4.2.4.2.
    #[must_use]
    pub const fn is_ok(self) -> bool {
        matches!(self, Self::Ok)
    }
}

/// Where a frame's `/S/` was: transfer index since the receiver started, and lane (0 or 4).
///
/// Spec: IEEE 802.3 §46.3.1.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StartPosition {
    /// Index of the 64-bit transfer holding the `/S/`.
    pub word: u64,
    /// Lane of the `/S/` (0 or 4).
    pub lane: u8,
}

impl StartPosition {
    /// Octet index in the stream (`8 * word + lane`).
    ///
    /// Spec: IEEE 802.3 §46.3.1.2.
    #[must_use]
    pub const fn octet(self) -> u64 {
        self.word.wrapping_mul(8).wrapping_add(self.lane as u64)
    }
}

/// What ended a frame.
///
/// Spec: IEEE 802.3 §46.3.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FrameEnd {
    /// `/T/`.
    Terminate,
    /// Another control character (the frame is [`RxClass::Truncated`] or
    /// [`RxClass::ErrorCharacter`]).
    Control(ControlChar),
}

/// Receiver configuration.
///
/// Spec: IEEE 802.3 §4.2.4.2.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxConfig {
    /// Frames longer than this (FCS included) are [`RxClass::FrameTooLong`]. Limits above the
    /// receive buffer are capped at its size.
    pub max_frame_length: MaxFrameLength,
}

/// One received frame, handed to the callback of [`MacRx::push`].
///
/// Spec: IEEE 802.3 §4.2.9 (ReceiveFrame), §46.3.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxFrame<'a> {
    /// The classification.
    pub class: RxClass,
    /// Octets received after the SFD (DA through FCS), up to the buffer size.
    pub data: &'a [u8],
    /// Octets received after the SFD, including any beyond the buffer.
    pub len: usize,
    /// CRC over all `len` octets equals the residue.
    pub fcs_ok: bool,
    /// Where the `/S/` was.
    pub start: StartPosition,
    /// Octets from the previous frame's end (`/T/` or other ending character, counted as the
    /// first gap octet) to this `/S/`; `None` for the first frame.
    pub gap_octets: Option<u64>,
    /// What ended it.
    pub end: FrameEnd,
    /// The MAC Control content of a good frame of type 0x8808.
    pub control: Option<MacControl>,
}

/// Receive state.
///
/// Spec: IEEE 802.3 §46.3.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RxState {
    /// Between frames.
    Idle,
    /// After `/S/`, `seen` of the 7 preamble/SFD octets received.
    Preamble {
        /// Octets after the `/S/` so far (0..=6).
        seen: u8,
    },
    /// After the SFD.
    Data,
}

/// The MAC receive path and the receive half of the RS. `N` is the frame buffer size
/// (16 KiB by default); longer frames are still delimited, counted and FCS-checked.
///
/// Spec: IEEE 802.3 §4.2.4.2, §46.3.3.
#[derive(Clone)]
pub struct MacRx<const N: usize = MAX_FRAME_OCTETS, E: FcsEngine = TableFcs> {
    config: RxConfig,
    state: RxState,
    /// The first `N` octets after the SFD; `buf[..len.min(N)]` is valid.
    buf: [u8; N],
    len: usize,
    /// CRC over the octets that did not fit in `buf`, seeded with `buf`.
    overflow: Option<E::Digest>,
    preamble_ok: bool,
    error_char: bool,
    start: StartPosition,
    word_index: u64,
    last_end_octet: Option<u64>,
    stats: RxStats,
}

impl<const N: usize, E: FcsEngine> core::fmt::Debug for MacRx<N, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MacRx")
            .field("config", &self.config)
            .field("state", &self.state)
            .field("len", &self.len)
            .field("start", &self.start)
            .field("word_index", &self.word_index)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "defmt")]
impl<const N: usize, E: FcsEngine> defmt::Format for MacRx<N, E> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "MacRx {{ state: {}, len: {}, start: {}, stats: {} }}",
            self.state,
            self.len,
            self.start,
            self.stats
        );
    }
}

impl<const N: usize> Default for MacRx<N> {
    fn default() -> Self {
        Self::new(RxConfig::default())
    }
}

impl<const N: usize> MacRx<N> {
    /// A receiver waiting for the first `/S/`, with the default FCS engine.
    ///
    /// Spec: IEEE 802.3 §46.3.3.
    #[must_use]
    pub fn new(config: RxConfig) -> Self {
        Self::with_engine(config)
    }
}

impl<const N: usize, E: FcsEngine> MacRx<N, E> {
    /// A receiver waiting for the first `/S/`, checking the FCS with engine `E`.
    ///
    /// Spec: IEEE 802.3 §46.3.3.
    #[must_use]
    pub fn with_engine(config: RxConfig) -> Self {
        Self {
            config,
            state: RxState::Idle,
            buf: [0; N],
            len: 0,
            overflow: None,
            preamble_ok: true,
            error_char: false,
            start: StartPosition::default(),
            word_index: 0,
            last_end_octet: None,
            stats: RxStats::default(),
        }
    }

    /// The counters.
    ///
    /// Spec: IEEE 802.3 §30.3.1.1.
    #[must_use]
    pub const fn stats(&self) -> &RxStats {
        &self.stats
    }

    /// The receive state.
    ///
    /// Spec: IEEE 802.3 §46.3.3.
    #[must_use]
    pub const fn state(&self) -> RxState {
        self.state
    }

    /// Transfers pushed so far.
    ///
    /// Spec: IEEE 802.3 §46.3.3.
    #[must_use]
    pub const fn words_seen(&self) -> u64 {
        self.word_index
    }

    /// The configuration.
    ///
    /// Spec: IEEE 802.3 §4.2.4.2.1.
    #[must_use]
    pub const fn config(&self) -> &RxConfig {
        &self.config
    }

    /// Receives a slice of transfers; see [`MacRx::push`].
    ///
    /// Spec: IEEE 802.3 §46.3.3.
    pub fn push_slice(&mut self, words: &[XgmiiWord], mut on_frame: impl FnMut(&RxFrame<'_>)) {
        let mut rest = words;
        while let Some((&first, tail)) = rest.split_first() {
            if self.state == RxState::Data && first.ctrl == 0 {
                // A run of data transfers inside a frame: copied straight into the buffer.
                let run = self.copy_data_run(rest);
                if let Some(after) = rest.get(run..).filter(|_| run > 0) {
                    rest = after;
                    continue;
                }
            }
            self.push(first, &mut on_frame);
            rest = tail;
        }
    }

    /// Copies the leading all-data transfers of `words` that fit in the buffer; returns how
    /// many.
    fn copy_data_run(&mut self, words: &[XgmiiWord]) -> usize {
        if self.overflow.is_some() {
            return 0;
        }
        let Some(free) = self.buf.get_mut(self.len..) else {
            return 0;
        };
        let mut run = 0;
        for (dst, w) in free.chunks_exact_mut(8).zip(words) {
            if w.ctrl != 0 {
                break;
            }
            if let Some(dst) = dst.first_chunk_mut::<8>() {
                *dst = w.data.to_le_bytes();
            }
            run += 1;
        }
        self.len += 8 * run;
        self.word_index = self.word_index.wrapping_add(run as u64);
        run
    }

    /// A run of all-data transfers inside a frame, written straight into the frame's buffer:
    /// `fill` is given the free room, a whole number of transfers of 8 octets; it writes
    /// transfers into it (lane 0 first) and returns how many. The receiver takes them as
    /// [`MacRx::push`] takes as many all-data transfers. Returns how many it took: 0, without
    /// calling `fill`, when it is not inside a frame's data or its buffer is full (the
    /// transfers then go to [`MacRx::push`]).
    ///
    /// Spec: IEEE 802.3 §46.3.3, §4.2.4.2.1.
    pub fn take_data_run(&mut self, fill: impl FnOnce(&mut [u8]) -> usize) -> usize {
        if self.state != RxState::Data || self.overflow.is_some() {
            return 0;
        }
        let Some(free) = self.buf.get_mut(self.len..) else {
            return 0;
        };
        let whole = free.len() / 8;
        let Some(room) = free.get_mut(..8 * whole).filter(|r| !r.is_empty()) else {
            return 0;
        };
        let n = fill(room).min(whole);
        self.len += 8 * n;
        self.word_index = self.word_index.wrapping_add(n as u64);
        n
    }

    /// A whole packet written straight into the frame's buffer, with the idle transfers after
    /// it: `fill` is given the buffer; it writes the data octets after the seven that follow
    /// the `/S/` (lane 0 first) and says where the `/S/` was, what those seven octets were,
    /// how many octets it wrote, and how many transfers the packet and its idles stand for.
    /// The receiver takes them as [`MacRx::push`] takes those transfers: the preamble and
    /// SFD checked, the frame reported to `on_frame` at its `/T/`. Returns the transfers
    /// taken: 0, without calling `fill`, unless it is between frames (the transfers then go
    /// to [`MacRx::push`]), and 0 when `fill` gives `None`.
    ///
    /// Spec: IEEE 802.3 §46.3.2, §46.3.3, §4.2.4.2.
    pub fn take_packet(
        &mut self,
        fill: impl FnOnce(&mut [u8]) -> Option<RxPacket>,
        mut on_frame: impl FnMut(&RxFrame<'_>),
    ) -> usize {
        if self.state != RxState::Idle {
            return 0;
        }
        let Some(p) = fill(&mut self.buf) else {
            return 0;
        };
        self.begin(StartPosition {
            word: self.word_index,
            lane: p.start_lane,
        });
        self.preamble_ok = p.lead == PREAMBLE_AND_SFD;
        self.state = RxState::Data;
        self.len = p.octets.min(N);
        if p.ended {
            // The /T/ follows the octets: the start's transfer holds the /S/ and seven octets.
            let end = u64::from(p.start_lane) + 8 + p.octets as u64;
            let end_octet = self.word_index.wrapping_mul(8).wrapping_add(end);
            self.finish(FrameEnd::Terminate, end_octet, &mut on_frame);
        }
        self.word_index = self.word_index.wrapping_add(p.transfers as u64);
        p.transfers
    }

    /// Receives one 64-bit transfer. Each frame that ends in it is handed to `on_frame`
    /// (there can be up to three: a frame ended in lane 0 by an `/S/`, a frame of `/S/` +
    /// three preamble octets ended by an `/S/` in lane 4, and one ended later in lanes 5..7).
    ///
    /// Spec: IEEE 802.3 §46.3.3, §4.2.4.2.
    #[inline]
    pub fn push(&mut self, word: XgmiiWord, mut on_frame: impl FnMut(&RxFrame<'_>)) {
        match self.state {
            RxState::Data if word.ctrl == 0 => self.take_data_word(word.data),
            RxState::Idle if word == XgmiiWord::IDLE => {}
            RxState::Idle if word == START_LANE0_WORD => {
                // The usual start: /S/ in lane 0 and a correct preamble and SFD.
                self.begin(StartPosition {
                    word: self.word_index,
                    lane: 0,
                });
                self.state = RxState::Data;
            }
            RxState::Idle if word == START_LANE4_WORD => {
                // The other start a DIC transmitter sends: /S/ and three preamble octets in
                // lanes 4..7, the rest of the preamble and the SFD in the next transfer.
                self.begin(StartPosition {
                    word: self.word_index,
                    lane: 4,
                });
                self.state = RxState::Preamble { seen: 3 };
            }
            RxState::Preamble { seen: 3 }
                if word.ctrl == 0 && word.data as u32 == PREAMBLE_TAIL =>
            {
                self.state = RxState::Data;
                self.take_data_lanes(word.data, 4, 8);
            }
            RxState::Idle | RxState::Preamble { .. } | RxState::Data => {
                self.lanes_from(word, 0, &mut on_frame);
            }
        }
        self.word_index = self.word_index.wrapping_add(1);
    }

    /// Lanes `lane..8` of a transfer that is not all data in `DATA`: runs of data octets are
    /// copied at once, and between frames only `/S/` characters are looked at.
    fn lanes_from(
        &mut self,
        word: XgmiiWord,
        first: usize,
        on_frame: &mut impl FnMut(&RxFrame<'_>),
    ) {
        let mut lane = first;
        while lane < 8 {
            match self.state {
                RxState::Data => {
                    let rest = word.ctrl.checked_shr(lane as u32).unwrap_or(0);
                    let next_ctrl = if rest == 0 {
                        8
                    } else {
                        lane + rest.trailing_zeros() as usize
                    };
                    self.take_data_lanes(word.data, lane, next_ctrl);
                    if next_ctrl >= 8 {
                        return;
                    }
                    self.lane(word, next_ctrl, on_frame);
                    lane = next_ctrl + 1;
                }
                RxState::Idle => {
                    let Some(start) = first_start(word, lane) else {
                        return;
                    };
                    self.lane(word, start, on_frame);
                    lane = start + 1;
                }
                RxState::Preamble { .. } => {
                    self.lane(word, lane, on_frame);
                    lane += 1;
                }
            }
        }
    }

    /// The octets received so far that fit in the buffer.
    #[inline]
    fn data(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&self.buf)
    }

    /// The reference path: every lane through the per-lane state machine, no shortcuts.
    #[cfg(test)]
    fn push_lane_by_lane(&mut self, word: XgmiiWord, mut on_frame: impl FnMut(&RxFrame<'_>)) {
        for lane in 0..8 {
            self.lane(word, lane, &mut on_frame);
        }
        self.word_index = self.word_index.wrapping_add(1);
    }

    #[inline]
    fn take_data_word(&mut self, data: u64) {
        let bytes = data.to_le_bytes();
        let slot = self
            .buf
            .get_mut(self.len..)
            .and_then(|rest| rest.first_chunk_mut::<8>());
        match slot {
            Some(slot) => {
                *slot = bytes;
                self.len += 8;
            }
            None => {
                for b in bytes {
                    self.take_data_octet(b);
                }
            }
        }
    }

    /// The data octets of lanes `from..to` of a transfer (`from <= to <= 8`).
    #[inline]
    fn take_data_lanes(&mut self, data: u64, from: usize, to: usize) {
        let count = to.saturating_sub(from);
        let octets = data.checked_shr(8 * from as u32).unwrap_or(0);
        // Room for a whole word: the octets are written as one (those past `count` are
        // beyond `len`, and overwritten or never read).
        let slot = self
            .buf
            .get_mut(self.len..)
            .and_then(|rest| rest.first_chunk_mut::<8>())
            .filter(|_| self.overflow.is_none());
        match slot {
            Some(slot) => {
                *slot = octets.to_le_bytes();
                self.len += count;
            }
            None => {
                for b in octets.to_le_bytes().into_iter().take(count) {
                    self.take_data_octet(b);
                }
            }
        }
    }

    #[inline]
    fn take_data_octet(&mut self, b: u8) {
        if let Some(d) = &mut self.overflow {
            E::update(d, &[b]);
        } else if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
        } else {
            let mut d = E::digest();
            E::update(&mut d, &self.buf);
            E::update(&mut d, &[b]);
            self.overflow = Some(d);
        }
        self.len = self.len.saturating_add(1);
    }

    fn lane(&mut self, word: XgmiiWord, lane: usize, on_frame: &mut impl FnMut(&RxFrame<'_>)) {
        let octet = word.octet(lane);
        if !word.is_control(lane) {
            match self.state {
                RxState::Idle => {}
                RxState::Preamble { seen } => {
                    let expected = if seen < 6 { PREAMBLE_OCTET } else { SFD };
                    if octet != expected {
                        self.preamble_ok = false;
                    }
                    self.state = if seen >= 6 {
                        RxState::Data
                    } else {
                        RxState::Preamble { seen: seen + 1 }
                    };
                }
                RxState::Data => self.take_data_octet(octet),
            }
            return;
        }
        let c = ControlChar(octet);
        let pos = self.word_index.wrapping_mul(8).wrapping_add(lane as u64);
        let in_frame = !matches!(self.state, RxState::Idle);
        if c == ControlChar::ERROR && in_frame {
            self.error_char = true;
            return;
        }
        if in_frame {
            let end = if c == ControlChar::TERMINATE {
                FrameEnd::Terminate
            } else {
                FrameEnd::Control(c)
            };
            self.finish(end, pos, on_frame);
        }
        if c == ControlChar::START {
            if lane == 0 || lane == 4 {
                self.begin(StartPosition {
                    word: self.word_index,
                    lane: lane as u8,
                });
            } else {
                self.stats.misaligned_starts += 1;
            }
        }
    }

    fn begin(&mut self, start: StartPosition) {
        self.stats.starts += 1;
        self.state = RxState::Preamble { seen: 0 };
        self.len = 0;
        self.overflow = None;
        self.preamble_ok = true;
        self.error_char = false;
        self.start = start;
    }

    fn finish(&mut self, end: FrameEnd, end_octet: u64, on_frame: &mut impl FnMut(&RxFrame<'_>)) {
        let sfd_seen = matches!(self.state, RxState::Data);
        self.state = RxState::Idle;
        let fcs_ok = match self.overflow.take() {
            Some(d) => E::finalize(d) == FCS_RESIDUE,
            None => self.len >= 4 && E::fcs_good(self.data()),
        };
        let max = self
            .config
            .max_frame_length
            .limit_for(self.data())
            .min(N.max(MIN_FRAME_OCTETS));
        let class = if self.error_char {
            RxClass::ErrorCharacter
        } else if end != FrameEnd::Terminate {
            RxClass::Truncated
        } else if !sfd_seen || !self.preamble_ok {
            RxClass::BadPreamble
        } else if self.len > max {
            RxClass::FrameTooLong
        } else if self.len < MIN_FRAME_OCTETS {
            if fcs_ok {
                RxClass::Runt
            } else {
                RxClass::Fragment
            }
        } else if !fcs_ok {
            RxClass::FrameCheckSequenceError
        } else {
            RxClass::Ok
        };
        let control = if class.is_ok() {
            MacControl::parse(self.data())
        } else {
            None
        };
        self.count(class, fcs_ok, control);
        let gap_octets = self
            .last_end_octet
            .map(|e| self.start.octet().wrapping_sub(e));
        self.last_end_octet = Some(end_octet);
        on_frame(&RxFrame {
            class,
            data: self.data(),
            len: self.len,
            fcs_ok,
            start: self.start,
            gap_octets,
            end,
            control,
        });
    }

    // Inlined into the packet door: a call per frame was 1.5 % of the receive chain's
    // instructions at 64 octets (docs/speed.md).
    #[inline(always)]
    fn count(&mut self, class: RxClass, fcs_ok: bool, control: Option<MacControl>) {
        let s = &mut self.stats;
        match class {
            RxClass::Ok => {
                let data = self.buf.get(..self.len).unwrap_or(&self.buf);
                let kind = AddressKind::of_frame(data);
                let tagged = ether_type(data) == Some(TPID_VLAN);
                s.frames_received_ok += 1;
                s.octets_received_ok += self.len as u64;
                match kind {
                    Some(AddressKind::Multicast) => s.multicast_frames_received_ok += 1,
                    Some(AddressKind::Broadcast) => s.broadcast_frames_received_ok += 1,
                    Some(AddressKind::Unicast) | None => {}
                }
                if tagged {
                    s.vlan_tagged_frames_received_ok += 1;
                }
                if let Some(mc) = control {
                    s.mac_control_frames_received += 1;
                    match mc.opcode() {
                        OPCODE_PAUSE => s.pause_mac_ctrl_frames_received += 1,
                        OPCODE_PFC => s.pfc_frames_received += 1,
                        _ => s.unsupported_opcodes_received += 1,
                    }
                }
                return;
            }
            RxClass::FrameCheckSequenceError => s.frame_check_sequence_errors += 1,
            RxClass::Runt => s.undersize_frames += 1,
            RxClass::Fragment => s.fragments += 1,
            RxClass::FrameTooLong => {
                s.frame_too_long_errors += 1;
                if !fcs_ok {
                    s.jabbers += 1;
                }
            }
            RxClass::ErrorCharacter => s.symbol_error_frames += 1,
            RxClass::Truncated => s.truncated_frames += 1,
            RxClass::BadPreamble => s.bad_preamble_frames += 1,
        }
        s.frames_received_bad += 1;
    }
}

/// The first lane from `from` on with a `/S/` control character, all lanes at once: the zero
/// octets of `data ^ /S/` (exactly, with no carry between octets) among the control lanes.
#[inline]
fn first_start(word: XgmiiWord, from: usize) -> Option<usize> {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word.data ^ u64::from_le_bytes([ControlChar::START.0; 8]);
    // Bit 7 of each octet: set when the octet of x is zero.
    let zero = !((x & LOW7).wrapping_add(LOW7) | x | LOW7);
    // Octet i's bit 7 to bit i.
    let lanes = (zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    let hits = lanes as u8 & word.ctrl & 0xffu8.checked_shl(from as u32).unwrap_or(0);
    (hits != 0).then(|| hits.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::MacControl;
    use crate::frame::fcs;
    use crate::tx::{DicMode, MacTx, TxConfig, START_LANE0_WORD};
    use pcs_core::{decode_block, encode_word};
    use pcs_core::{Block, Lane};
    use pcs_core::{Descrambler, Scrambler};
    use proptest::prelude::*;
    use std::vec::Vec;

    #[derive(Debug, Clone, PartialEq)]
    struct Got {
        class: RxClass,
        data: Vec<u8>,
        len: usize,
        start: StartPosition,
        gap: Option<u64>,
        control: Option<MacControl>,
    }

    fn receive<const N: usize>(rx: &mut MacRx<N>, words: &[XgmiiWord]) -> Vec<Got> {
        let mut got = Vec::new();
        rx.push_slice(words, |f| {
            got.push(Got {
                class: f.class,
                data: f.data.to_vec(),
                len: f.len,
                start: f.start,
                gap: f.gap_octets,
                control: f.control,
            })
        });
        got
    }

    /// Builds XGMII words from a lane list: `Ok(data)` or `Err(control)`.
    fn lanes(items: &[Result<u8, u8>]) -> Vec<XgmiiWord> {
        let mut v: Vec<Lane> = items
            .iter()
            .map(|i| match *i {
                Ok(d) => Lane::Data(d),
                Err(c) => Lane::Control(ControlChar(c)),
            })
            .collect();
        while v.len() % 8 != 0 {
            v.push(Lane::Control(ControlChar::IDLE));
        }
        v.chunks(8)
            .map(|c| XgmiiWord::from_lanes(c.try_into().unwrap()))
            .collect()
    }

    const S: Result<u8, u8> = Err(0xfb);
    const T: Result<u8, u8> = Err(0xfd);
    const E: Result<u8, u8> = Err(0xfe);
    const I: Result<u8, u8> = Err(0x07);

    fn with_fcs(frame: &[u8]) -> Vec<u8> {
        let mut f = frame.to_vec();
        f.extend_from_slice(&fcs(frame).to_le_bytes());
        f
    }

    /// `/S/`, preamble, SFD, `body` as data, then `end`.
    fn framed(body: &[u8], end: Result<u8, u8>) -> Vec<Result<u8, u8>> {
        let mut v = vec![S];
        v.extend([Ok(0x55); 6]);
        v.push(Ok(0xd5));
        v.extend(body.iter().map(|&b| Ok(b)));
        v.push(end);
        v
    }

    fn classes(items: &[Result<u8, u8>]) -> Vec<RxClass> {
        let mut rx = MacRx::<2048>::default();
        receive(&mut rx, &lanes(items))
            .into_iter()
            .map(|g| g.class)
            .collect()
    }

    fn good(len: usize) -> Vec<u8> {
        with_fcs(&(0..len - 4).map(|i| i as u8).collect::<Vec<_>>())
    }

    #[test]
    fn only_ok_is_ok_and_the_receiver_counts_transfers() {
        use RxClass as C;
        for c in [
            C::FrameCheckSequenceError,
            C::Runt,
            C::Fragment,
            C::FrameTooLong,
            C::ErrorCharacter,
            C::Truncated,
            C::BadPreamble,
        ] {
            assert!(!c.is_ok(), "{c:?}");
        }
        assert!(C::Ok.is_ok());
        let mut rx = MacRx::<2048>::default();
        let words = lanes(&framed(&good(100), T));
        assert_eq!(receive(&mut rx, &words).len(), 1);
        assert_eq!(rx.words_seen(), words.len() as u64);
        let d = std::format!("{rx:?}");
        assert!(d.starts_with("MacRx {") && d.contains("word_index"), "{d}");
    }

    /// Near misses of the lane-4 start's fast path (the second transfer must be all data with
    /// the preamble tail in lanes 0..3): the tail with a control character in any lane, or
    /// with one wrong octet, must take the lane-by-lane path and give its result.
    #[test]
    fn near_misses_of_the_lane4_preamble_fast_path_take_the_reference() {
        let body = XgmiiWord::from_data(0x0706_0504_0302_0100);
        let tail = XgmiiWord::from_data(0x1234_5678_0000_0000 | u64::from(PREAMBLE_TAIL));
        let mut seconds = std::vec![tail];
        for lane in 0..8 {
            for c in [0xfd, 0xfe, 0x07, 0xfb] {
                seconds.push(tail.with_lane(lane, Lane::Control(ControlChar(c))));
            }
        }
        for lane in 0..4 {
            seconds.push(tail.with_lane(lane, Lane::Data(0x57)));
        }
        for second in seconds {
            let words = [
                XgmiiWord::IDLE,
                crate::tx::START_LANE4_WORD,
                second,
                body,
                body,
                body,
                body,
                body,
                body,
                body,
                XgmiiWord::from_lanes([
                    Lane::Control(ControlChar(0xfd)),
                    Lane::Control(ControlChar::IDLE),
                    Lane::Control(ControlChar::IDLE),
                    Lane::Control(ControlChar::IDLE),
                    Lane::Control(ControlChar::IDLE),
                    Lane::Control(ControlChar::IDLE),
                    Lane::Control(ControlChar::IDLE),
                    Lane::Control(ControlChar::IDLE),
                ]),
            ];
            let mut fast = MacRx::<256>::default();
            let mut slow = MacRx::<256>::default();
            let mut a = Vec::new();
            let mut b = Vec::new();
            fast.push_slice(&words, |f| {
                a.push((f.class, f.data.to_vec(), f.len, f.start))
            });
            for &w in &words {
                slow.push_lane_by_lane(w, |f| b.push((f.class, f.data.to_vec(), f.len, f.start)));
            }
            assert_eq!(a, b, "{second:?}");
            assert_eq!(fast.stats(), slow.stats(), "{second:?}");
            // Only the clean tail makes a frame of the body's octets after the SFD.
            if second == tail {
                assert_eq!(a.len(), 1);
                assert_eq!(&a[0].1[..4], &[0x78, 0x56, 0x34, 0x12]);
            }
        }
    }

    #[test]
    fn a_start_is_found_only_in_a_control_lane_and_from_the_lane_asked() {
        let idle = XgmiiWord::IDLE;
        let start_in = |lane: usize| idle.with_lane(lane, Lane::Control(ControlChar::START));
        for lane in 0..8 {
            assert_eq!(first_start(start_in(lane), 0), Some(lane));
            assert_eq!(first_start(start_in(lane), lane), Some(lane));
            assert_eq!(first_start(start_in(lane), lane + 1), None);
        }
        // A data octet 0xfb is not a start, and an octet 0xfa above it (one more than 0xfb
        // less a borrow) is not one either.
        let w = idle
            .with_lane(1, Lane::Data(0xfb))
            .with_lane(2, Lane::Control(ControlChar(0xfa)));
        assert_eq!(first_start(w, 0), None);
        let w = w.with_lane(6, Lane::Control(ControlChar::START));
        assert_eq!(first_start(w, 0), Some(6));
        assert_eq!(first_start(XgmiiWord::from_data(u64::MAX), 0), None);
        assert_eq!(
            first_start(XgmiiWord::new(u64::from_le_bytes([0xfb; 8]), 0xa5), 1),
            Some(2)
        );
    }

    #[test]
    fn good_frame_is_ok() {
        assert_eq!(classes(&framed(&good(64), T)), [RxClass::Ok]);
        assert_eq!(classes(&framed(&good(1518), T)), [RxClass::Ok]);
    }

    #[test]
    fn bad_fcs_is_fcs_error() {
        let mut f = good(100);
        f[20] ^= 0x10;
        assert_eq!(classes(&framed(&f, T)), [RxClass::FrameCheckSequenceError]);
    }

    #[test]
    fn short_good_fcs_is_runt_and_short_bad_fcs_is_fragment() {
        assert_eq!(classes(&framed(&good(63), T)), [RxClass::Runt]);
        let mut f = good(40);
        f[0] ^= 1;
        assert_eq!(classes(&framed(&f, T)), [RxClass::Fragment]);
        assert_eq!(classes(&framed(&[], T)), [RxClass::Fragment]);
    }

    #[test]
    fn longer_than_max_is_too_long_even_with_bad_fcs() {
        assert_eq!(classes(&framed(&good(1519), T)), [RxClass::FrameTooLong]);
        let mut f = good(1600);
        f[3] ^= 1;
        let mut rx = MacRx::<2048>::default();
        let got = receive(&mut rx, &lanes(&framed(&f, T)));
        assert_eq!(got[0].class, RxClass::FrameTooLong);
        assert_eq!(rx.stats().jabbers, 1);
        assert_eq!(rx.stats().frame_too_long_errors, 1);
    }

    #[test]
    fn q_tagged_frame_may_be_1522_octets() {
        let mut body: Vec<u8> = vec![0; 1518];
        body[12] = 0x81;
        body[13] = 0x00;
        assert_eq!(classes(&framed(&with_fcs(&body), T)), [RxClass::Ok]);
        body.push(0);
        assert_eq!(
            classes(&framed(&with_fcs(&body), T)),
            [RxClass::FrameTooLong]
        );
    }

    #[test]
    fn configured_maximum_applies() {
        for (max, len, class) in [
            (MaxFrameLength::Envelope, 2000, RxClass::Ok),
            (MaxFrameLength::Envelope, 2001, RxClass::FrameTooLong),
            (MaxFrameLength::Jumbo, 9018, RxClass::Ok),
            (MaxFrameLength::Jumbo, 9019, RxClass::FrameTooLong),
            (MaxFrameLength::Octets(100), 101, RxClass::FrameTooLong),
        ] {
            let mut rx = MacRx::<16384>::new(RxConfig {
                max_frame_length: max,
            });
            let got = receive(&mut rx, &lanes(&framed(&good(len), T)));
            assert_eq!(got[0].class, class, "{max:?} {len}");
        }
    }

    #[test]
    fn error_character_inside_frame_is_reported() {
        let mut items = framed(&good(80), T);
        items.insert(30, E);
        assert_eq!(classes(&items), [RxClass::ErrorCharacter]);
        // /E/ in the preamble too.
        let mut items = framed(&good(80), T);
        items.insert(3, E);
        assert_eq!(classes(&items), [RxClass::ErrorCharacter]);
    }

    #[test]
    fn other_control_character_truncates_the_frame() {
        for c in [0x07u8, 0x9c, 0x1c, 0x06, 0x00] {
            assert_eq!(
                classes(&framed(&good(80), Err(c))),
                [RxClass::Truncated],
                "0x{c:02x}"
            );
        }
    }

    #[test]
    fn bad_preamble_or_sfd_is_reported() {
        let mut items = framed(&good(80), T);
        items[3] = Ok(0x54);
        assert_eq!(classes(&items), [RxClass::BadPreamble]);
        let mut items = framed(&good(80), T);
        items[7] = Ok(0xd4);
        assert_eq!(classes(&items), [RxClass::BadPreamble]);
        // /T/ before the SFD.
        assert_eq!(classes(&[S, Ok(0x55), Ok(0x55), T]), [RxClass::BadPreamble]);
    }

    #[test]
    fn start_in_lane_4_is_received() {
        let mut items = vec![I, I, I, I];
        items.extend(framed(&good(64), T));
        let mut rx = MacRx::<2048>::default();
        let got = receive(&mut rx, &lanes(&items));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].class, RxClass::Ok);
        assert_eq!(got[0].start, StartPosition { word: 0, lane: 4 });
    }

    #[test]
    fn misaligned_start_starts_nothing() {
        let mut items = vec![I, I];
        items.extend(framed(&good(64), T));
        let mut rx = MacRx::<2048>::default();
        assert!(receive(&mut rx, &lanes(&items)).is_empty());
        assert_eq!(rx.stats().misaligned_starts, 1);
        assert_eq!(rx.stats().starts, 0);
    }

    #[test]
    fn good_frame_after_bad_ones_is_received() {
        // A frame cut by a new /S/ in lane 0, then a good one; a fragment ended by /E/+/I/.
        let mut items = framed(&good(70)[..20], I);
        items.pop(); // no ending character: the next /S/ ends it
        while items.len() % 8 != 0 {
            items.push(Ok(0));
        }
        items.extend(framed(&good(64), T));
        items.extend([I, I, I]);
        let mut items2 = framed(&good(64)[..30], E);
        items2.push(I);
        items.extend(items2);
        while items.len() % 4 != 0 {
            items.push(I);
        }
        items.extend([I, I, I, I]);
        items.extend(framed(&good(100), T));
        assert_eq!(
            classes(&items),
            [
                RxClass::Truncated,
                RxClass::Ok,
                RxClass::ErrorCharacter,
                RxClass::Ok
            ]
        );
    }

    #[test]
    fn three_frames_can_end_in_one_transfer() {
        // Frame in progress; /S/ in lane 0 ends it, /S/ in lane 4 ends that, /T/ in lane 6.
        let mut items = framed(&good(64)[..16], I);
        items.pop();
        items.extend([S, Ok(0x55), Ok(0x55), Ok(0x55), S, Ok(0x55), T, I]);
        let mut rx = MacRx::<2048>::default();
        let got = receive(&mut rx, &lanes(&items));
        let c: Vec<_> = got.iter().map(|g| g.class).collect();
        assert_eq!(
            c,
            [RxClass::Truncated, RxClass::Truncated, RxClass::BadPreamble]
        );
        assert_eq!(got[2].gap, Some(0));
        assert_eq!(rx.stats().starts, 3);
    }

    #[test]
    fn five_octet_gap_is_accepted() {
        // 64-octet frame, /T/ in lane 0 (word 9); next /S/ 5 octets later is misaligned, so use
        // a frame whose /T/ lands in lane 3: 8 + 67 = 75 -> /T/ at lane 3, /S/ at lane 0 of
        // the next word = gap 5.
        let mut items = framed(&good(67), T);
        while items.len() % 8 != 0 {
            items.push(I);
        }
        items.extend(framed(&good(64), T));
        let mut rx = MacRx::<2048>::default();
        let got = receive(&mut rx, &lanes(&items));
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|g| g.class == RxClass::Ok));
        assert_eq!(got[1].gap, Some(5));
    }

    #[test]
    fn frames_beyond_the_buffer_are_still_fcs_checked() {
        let f = good(300);
        let mut rx = MacRx::<128>::new(RxConfig {
            max_frame_length: MaxFrameLength::Octets(1000),
        });
        let got = receive(&mut rx, &lanes(&framed(&f, T)));
        assert_eq!(got[0].class, RxClass::FrameTooLong); // capped at the buffer size
        assert_eq!(got[0].len, 300);
        assert_eq!(got[0].data, &f[..128]);
        assert_eq!(rx.stats().jabbers, 0); // FCS verified over all 300 octets
    }

    #[test]
    fn pause_and_pfc_frames_are_counted() {
        let mut tx = MacTx::default();
        let mut rx = MacRx::<2048>::default();
        let mut out = [XgmiiWord::default(); 64];
        let mut frame = [0u8; 60];
        for mc in [
            MacControl::Pause { quanta: 7 },
            MacControl::Pfc {
                class_enable: 3,
                timers: [9; 8],
            },
            MacControl::Other { opcode: 0x0002 },
        ] {
            mc.write([2, 0, 0, 0, 0, 1], &mut frame).unwrap();
            let n = tx.encode_frame(&frame, &mut out).unwrap();
            let got = receive(&mut rx, &out[..n]);
            assert_eq!(got.len(), 1);
            assert_eq!(got[0].control, Some(mc));
        }
        let s = rx.stats();
        assert_eq!(s.mac_control_frames_received, 3);
        assert_eq!(s.pause_mac_ctrl_frames_received, 1);
        assert_eq!(s.pfc_frames_received, 1);
        assert_eq!(s.unsupported_opcodes_received, 1);
        assert_eq!(s.multicast_frames_received_ok, 3);
        let t = tx.stats();
        assert_eq!(t.mac_control_frames_transmitted, 3);
        assert_eq!(t.pause_mac_ctrl_frames_transmitted, 1);
        assert_eq!(t.pfc_frames_transmitted, 1);
    }

    #[test]
    fn octets_received_ok_count_da_through_fcs() {
        let mut rx = MacRx::<2048>::default();
        receive(&mut rx, &lanes(&framed(&good(100), T)));
        assert_eq!(rx.stats().octets_received_ok, 100);
        assert_eq!(rx.stats().frames_received_ok, 1);
    }

    /// TX a sequence with idle words in between; returns the words and the expected frames.
    fn transmit(
        frames: &[Vec<u8>],
        idles: &[usize],
        dic: DicMode,
    ) -> (Vec<XgmiiWord>, Vec<Vec<u8>>) {
        let mut tx = MacTx::new(TxConfig {
            dic,
            ..TxConfig::default()
        });
        let mut words = Vec::new();
        let mut expected = Vec::new();
        for (f, &k) in frames
            .iter()
            .zip(idles.iter().chain(core::iter::repeat(&0)))
        {
            let mut out = vec![XgmiiWord::default(); tx.words_needed(f.len())];
            let n = tx.encode_frame(f, &mut out).unwrap();
            words.extend_from_slice(&out[..n]);
            let mut gap = vec![XgmiiWord::default(); k];
            tx.idle(&mut gap);
            words.extend(gap);
            let mut e = f.clone();
            e.resize(e.len().max(60), 0);
            expected.push(with_fcs(&e));
        }
        (words, expected)
    }

    const JUMBO: RxConfig = RxConfig {
        max_frame_length: MaxFrameLength::Jumbo,
    };

    fn arb_frames() -> impl Strategy<Value = Vec<Vec<u8>>> {
        proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..1600), 1..12)
    }

    fn arb_dic() -> impl Strategy<Value = DicMode> {
        prop_oneof![
            Just(DicMode::Strict),
            Just(DicMode::ResetOnIdle),
            Just(DicMode::Off)
        ]
    }

    proptest! {
        #[test]
        fn mac_tx_to_mac_rx_is_identity(
            frames in arb_frames(),
            idles in proptest::collection::vec(0usize..3, 12),
            dic in arb_dic(),
        ) {
            let (words, expected) = transmit(&frames, &idles, dic);
            let mut rx = MacRx::<2048>::new(JUMBO);
            let got = receive(&mut rx, &words);
            prop_assert_eq!(got.len(), expected.len());
            for (g, e) in got.iter().zip(&expected) {
                prop_assert_eq!(g.class, RxClass::Ok);
                prop_assert_eq!(&g.data, e);
                prop_assert!(g.start.lane == 0 || g.start.lane == 4);
                if let Some(gap) = g.gap {
                    prop_assert!(gap >= 9);
                }
            }
            prop_assert_eq!(rx.stats().frames_received_ok, frames.len() as u64);
        }

        #[test]
        fn mac_tx_pcs_encode_decode_mac_rx_is_identity(
            frames in arb_frames(),
            idles in proptest::collection::vec(0usize..3, 12),
            seed in any::<u64>(),
        ) {
            let (words, expected) = transmit(&frames, &idles, DicMode::Strict);
            let mut scr = Scrambler::new(seed);
            let mut des = Descrambler::new(0);
            let mut rx = MacRx::<2048>::new(JUMBO);
            let mut got = Vec::new();
            // Prime the descrambler (self-synchronising after 58 bits) with one idle block.
            let idle = encode_word(XgmiiWord::IDLE).block;
            des.descramble(scr.scramble(idle.payload));
            for w in &words {
                let enc = encode_word(*w);
                prop_assert!(enc.error.is_none());
                let line = scr.scramble(enc.block.payload);
                let dec = decode_block(Block { sync: enc.block.sync, payload: des.descramble(line) });
                prop_assert!(dec.error.is_none());
                prop_assert_eq!(dec.word, *w);
                rx.push(dec.word, |f| got.push((f.class, f.data.to_vec())));
            }
            prop_assert_eq!(got.len(), expected.len());
            for ((c, d), e) in got.iter().zip(&expected) {
                prop_assert_eq!(*c, RxClass::Ok);
                prop_assert_eq!(d, e);
            }
        }

        #[test]
        fn word_fast_paths_equal_the_lane_by_lane_reference(
            words in proptest::collection::vec((any::<u64>(), any::<u8>(), 0u8..6), 0..400),
        ) {
            // Mostly well-formed traffic with random damage: pick per word from a few shapes.
            let words: Vec<XgmiiWord> = words
                .into_iter()
                .map(|(d, c, shape)| match shape {
                    0 => XgmiiWord::from_data(d),
                    1 => START_LANE0_WORD,
                    2 => XgmiiWord::IDLE,
                    3 => crate::tx::START_LANE4_WORD,
                    4 => {
                        let lane = usize::from(c % 8);
                        XgmiiWord::from_data(d)
                            .with_lane(lane, Lane::Control(ControlChar([0xfd, 0xfe, 0xfb, 0x07][usize::from(c >> 6)])))
                    }
                    _ => XgmiiWord::new(d, c),
                })
                .collect();
            let mut fast = MacRx::<256>::default();
            let mut slow = MacRx::<256>::default();
            let mut a = Vec::new();
            let mut b = Vec::new();
            fast.push_slice(&words, |f| a.push((f.class, f.data.to_vec(), f.len, f.start, f.gap_octets, f.end)));
            for &w in &words {
                slow.push_lane_by_lane(w, |f| b.push((f.class, f.data.to_vec(), f.len, f.start, f.gap_octets, f.end)));
            }
            prop_assert_eq!(a, b);
            prop_assert_eq!(fast.stats(), slow.stats());
        }

        #[test]
        fn data_runs_taken_whole_equal_their_transfers(
            words in proptest::collection::vec((any::<u64>(), 0u8..4), 0..400),
            caps in proptest::collection::vec(0usize..40, 1..8),
        ) {
            // Frames (some past the 256-octet buffer) and idles; some starts out of place.
            let words: Vec<XgmiiWord> = words
                .into_iter()
                .map(|(d, shape)| match shape {
                    0 | 1 => XgmiiWord::from_data(d),
                    2 => [START_LANE0_WORD, crate::tx::START_LANE4_WORD][usize::from(d as u8 & 1)],
                    _ => XgmiiWord::new(0x0707_0707_07fd_0000 | d & 0xffff, 0xfc),
                })
                .collect();
            let mut fast = MacRx::<256>::default();
            let mut slow = MacRx::<256>::default();
            let mut a = Vec::new();
            let mut b = Vec::new();
            let (mut i, mut c, mut taken) = (0, 0, 0);
            while i < words.len() {
                // The leading data transfers, offered as a run of at most `cap`.
                let cap = caps[c % caps.len()];
                c += 1;
                let run: Vec<XgmiiWord> =
                    words[i..].iter().take_while(|w| w.ctrl == 0).take(cap).copied().collect();
                // Inside a frame's data, as many as fit; else none.
                let fits = (256 - fast.len.min(256)) / 8;
                let expect = if fast.state == RxState::Data && fast.overflow.is_none() {
                    run.len().min(fits)
                } else {
                    0
                };
                let took = fast.take_data_run(|room| {
                    assert_eq!(room.len(), 8 * fits);
                    assert_eq!(room.len() % 8, 0);
                    let mut k = 0;
                    for (dst, w) in room.chunks_exact_mut(8).zip(&run) {
                        dst.copy_from_slice(&w.data.to_le_bytes());
                        k += 1;
                    }
                    k
                });
                prop_assert_eq!(took, expect);
                taken += took;
                i += took;
                if let Some(&w) = words.get(i) {
                    fast.push(w, |f| a.push((f.class, f.data.to_vec(), f.len, f.start, f.gap_octets, f.end)));
                    i += 1;
                }
            }
            slow.push_slice(&words, |f| b.push((f.class, f.data.to_vec(), f.len, f.start, f.gap_octets, f.end)));
            prop_assert_eq!(a, b);
            prop_assert_eq!(fast.stats(), slow.stats());
            prop_assert_eq!(fast.word_index, slow.word_index);
            // Nothing is taken outside a frame's data.
            prop_assert!(taken <= words.iter().filter(|w| w.ctrl == 0).count());
        }

        #[test]
        fn packets_taken_whole_equal_their_transfers(
            packets in proptest::collection::vec((proptest::bool::ANY, 0u8..6, 0usize..320, 0usize..3, any::<u64>()), 0..40),
        ) {
            // Packets as a PCS's packet door gives them: a start in lane 0 or 4, seven octets
            // (the preamble and SFD, or not), data with a good FCS or not, and a /T/ then
            // idles, or no end (the octets up to a transfer boundary); some past the buffer.
            let mut words = Vec::new();
            let mut offers = Vec::new();
            for &(lane4, shape, len, idles, seed) in &packets {
                let start_lane = if lane4 { 4u8 } else { 0 };
                let lead = if shape == 0 { seed & 0x00ff_ffff_ffff_ffff } else { PREAMBLE_AND_SFD };
                let mut data: Vec<u8> = (0..len).map(|i| (seed >> (i % 57)) as u8 ^ i as u8).collect();
                if shape >= 3 && len >= 4 {
                    data = with_fcs(&data[..len - 4]);
                }
                let ended = shape != 1;
                if !ended {
                    // Up to a transfer boundary: the start's transfer, then whole ones.
                    let s = usize::from(start_lane) + 8;
                    let whole = ((s + data.len()) / 8 * 8).max(s.next_multiple_of(8));
                    data.resize(whole - s, 0x5a);
                }
                let mut items: Vec<Result<u8, u8>> = vec![I; usize::from(start_lane)];
                items.push(S);
                items.extend(lead.to_le_bytes()[..7].iter().map(|&o| Ok(o)));
                items.extend(data.iter().map(|&o| Ok(o)));
                if ended {
                    items.push(T);
                }
                let mut w = lanes(&items);
                if ended {
                    w.extend(core::iter::repeat_n(XgmiiWord::IDLE, idles));
                }
                let p = RxPacket { start_lane, lead, octets: data.len(), transfers: w.len(), ended };
                offers.push((words.len(), p, data));
                words.extend(w);
                if !ended {
                    // The rest of a packet left open comes as transfers: more data, a /T/.
                    words.extend(lanes(&[Ok(1), Ok(2), T]));
                }
            }
            let mut fast = MacRx::<256>::default();
            let mut slow = MacRx::<256>::default();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut at = 0;
            for (from, p, data) in offers {
                fast.push_slice(&words[at..from], |f| a.push((f.class, f.data.to_vec(), f.len, f.start, f.gap_octets, f.end)));
                at = from;
                // Taken whole between frames when the octets fit; else not, and `fill` is
                // not called outside a frame's gap.
                let idle = fast.state == RxState::Idle;
                let took = fast.take_packet(
                    |room| {
                        assert!(idle, "asked only between frames");
                        room.get_mut(..data.len()).map(|r| {
                            r.copy_from_slice(&data);
                            p
                        })
                    },
                    |f| a.push((f.class, f.data.to_vec(), f.len, f.start, f.gap_octets, f.end)),
                );
                let expect = if idle && data.len() <= 256 { p.transfers } else { 0 };
                prop_assert_eq!(took, expect);
                at += took;
                if took > 0 && !p.ended {
                    // Inside the frame left open: no packet is taken.
                    prop_assert_eq!(fast.take_packet(|_| panic!("asked inside a frame"), |_| {}), 0);
                }
            }
            fast.push_slice(&words[at..], |f| a.push((f.class, f.data.to_vec(), f.len, f.start, f.gap_octets, f.end)));
            slow.push_slice(&words, |f| b.push((f.class, f.data.to_vec(), f.len, f.start, f.gap_octets, f.end)));
            prop_assert_eq!(a, b);
            prop_assert_eq!(fast.stats(), slow.stats());
            prop_assert_eq!(fast.word_index, slow.word_index);
            prop_assert_eq!(fast.state, slow.state);
        }

        #[test]
        fn arbitrary_xgmii_never_panics_and_accounts_for_every_start(
            words in proptest::collection::vec((any::<u64>(), any::<u8>()), 0..400),
            bias in 0u8..4,
        ) {
            // Bias towards interesting control characters so frames actually form.
            let words: Vec<XgmiiWord> = words
                .into_iter()
                .map(|(d, c)| {
                    let mut w = XgmiiWord::new(d, c);
                    if bias > 0 {
                        for lane in 0..8 {
                            if w.is_control(lane) {
                                let pick = [0x07, 0xfb, 0xfd, 0xfe][(w.octet(lane) as usize + lane) % 4];
                                w = w.with_lane(lane, Lane::Control(ControlChar(pick)));
                            }
                        }
                    }
                    w
                })
                .collect();
            let mut rx = MacRx::<256>::default();
            let mut reported = 0u64;
            rx.push_slice(&words, |f| {
                reported += 1;
                assert!(f.data.len() <= 256 && f.data.len() <= f.len);
            });
            let aligned: u64 = words
                .iter()
                .map(|w| [0usize, 4].iter().filter(|&&l| w.is_control(l) && w.octet(l) == 0xfb).count() as u64)
                .sum();
            let all: u64 = words
                .iter()
                .map(|w| (0..8).filter(|&l| w.is_control(l) && w.octet(l) == 0xfb).count() as u64)
                .sum();
            let s = *rx.stats();
            let open = u64::from(rx.state() != RxState::Idle);
            prop_assert_eq!(s.starts, aligned);
            prop_assert_eq!(s.misaligned_starts, all - aligned);
            prop_assert_eq!(reported + open, aligned);
            prop_assert_eq!(s.frames_received_ok + s.frames_received_bad, reported);
        }
    }
}
