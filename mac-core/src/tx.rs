//! MAC transmit + RS: frames -> XGMII words, with the inter-frame gap and the deficit idle
//! count (DIC) that keeps every `/S/` in lane 0 of a 32-bit column (lane 0 or 4 of a 64-bit
//! transfer).
//!
//! ```text
//! lane:    0    1    2    3    4    5    6    7
//! word 0:  /S/  55   55   55   55   55   55   d5      ctrl 0x01  (start in lane 0)
//! word 1:  DA0  DA1  ...                              ctrl 0x00
//! ...      ...  FCS0 FCS1 FCS2 FCS3 /T/  /I/  /I/     ctrl 0xe0  (FCS LSB first, then /T/)
//!          /I/  /I/  /I/  /I/  /S/  55   55   55      ctrl 0x1f  (next start in lane 4)
//! ```
//!
//! Gap accounting: the gap is the number of octet slots from the one after the last FCS octet
//! up to (not including) the next `/S/`; the `/T/` is the first gap octet. With the deficit
//! idle count, the RS deletes idles to bring the next `/S/` back to the start of a column
//! while the count (idles deleted minus idles inserted) stays within 0..=3, and otherwise
//! inserts idles up to the following column start; the gap is then 9..=15 octets with a
//! long-run mean of the configured IFG (12).
//!
//! Spec: IEEE 802.3 §4.2.3.2, §46.2.1, §46.3.1.2, §46.3.1.4, §46.3.1.5.

use pcs_core::load_le;
use pcs_core::{ControlChar, XgmiiWord};

use crate::control::{MacControl, OPCODE_PAUSE, OPCODE_PFC};
use crate::frame::{
    ether_type, fcs_padded_with, AddressKind, FcsEngine, Padding, TableFcs, FCS_OCTETS,
    MAX_FRAME_OCTETS, PREAMBLE_OCTET, PREAMBLE_SFD_OCTETS, SFD, TPID_VLAN,
};
use crate::stats::TxStats;

/// `/S/`, six preamble octets and the SFD, starting in lane 0.
///
/// Spec: IEEE 802.3 §46.3.1.2, Figure 46-5.
pub const START_LANE0_WORD: XgmiiWord = XgmiiWord {
    data: 0xd555_5555_5555_55fb,
    ctrl: 0x01,
};

/// Four idles, then `/S/` and three preamble octets: a start in lane 4. The next transfer
/// begins with `55 55 55 d5`.
///
/// Spec: IEEE 802.3 §46.3.1.2, §46.3.1.4.
pub const START_LANE4_WORD: XgmiiWord = XgmiiWord {
    data: 0x5555_55fb_0707_0707,
    ctrl: 0x1f,
};

/// The six preamble octets and the SFD, the octets after a frame's `/S/`.
///
/// Spec: IEEE 802.3 §4.2.5, §46.3.1.2 (the `/S/` stands for the first preamble octet).
const PREAMBLE_AFTER_START: [u8; PREAMBLE_SFD_OCTETS - 1] = [
    PREAMBLE_OCTET,
    PREAMBLE_OCTET,
    PREAMBLE_OCTET,
    PREAMBLE_OCTET,
    PREAMBLE_OCTET,
    PREAMBLE_OCTET,
    SFD,
];

/// A frame of `wire` octets (DA through FCS) is no longer than the model sends
/// ([`MAX_FRAME_OCTETS`]).
///
/// Spec: none (model limit).
#[inline]
const fn fits(wire: usize) -> Result<(), EncodeFrameError> {
    if wire > MAX_FRAME_OCTETS {
        return Err(EncodeFrameError::FrameTooLong { len: wire });
    }
    Ok(())
}

/// Where a frame's packet goes ([`MacTx::encode_frame_packet`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FramePacket {
    /// Idle transfers before the transfer of its `/S/` (the gap still owed).
    pub idles: usize,
    /// The lane of its `/S/`: 0, or 4 after four idles.
    pub lane: usize,
}

/// How the transmitter aligns a `/S/` that the IFG alone would put in the middle of a column.
///
/// Spec: IEEE 802.3 §46.3.1.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DicMode {
    /// No deficit idle count: the gap is the IFG rounded up to the next column start (12..=15
    /// for IFG 12).
    Off,
    /// The deficit idle count persists across idle periods; reset only at initialisation.
    #[default]
    Strict,
    /// As `Strict`, but the count returns to 0 whenever the transmitter goes idle, as
    /// verilog-ethernet, cocotbext-eth and xge_mac do.
    // reading: "goes idle" = at least one idle column beyond the gap owed is sent because no
    // frame was ready (`MacTx::idle` past the owed gap) (SPEC-NOTES: U).
    ResetOnIdle,
}

/// The lanes a `/S/` may go in.
///
/// Spec: IEEE 802.3 §46.3.1.2 (a start in lane 0 or lane 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StartLanes {
    /// Lane 0 or lane 4, as the gap and the deficit idle count give (the standard).
    #[default]
    Both,
    /// Every `/S/` in lane 4: a start the gap puts in lane 0 is moved 4 octets on. A stress
    /// mode of test-bench models (`force_offset_start` of cocotbext-eth and the verilog-ethernet
    /// and taxi serdes models); still a valid stream, with a longer gap.
    // reading: the 4 idles inserted count as inserted idles for the deficit idle count (it
    // drops to 0), as those models do.
    Lane4,
}

/// Transmitter configuration.
///
/// Spec: IEEE 802.3 §4.2.3.2, §4.2.3.3, §46.3.1.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxConfig {
    /// Inter-frame gap in octets, `/T/` included (12 by default).
    pub ifg_octets: u16,
    /// Deficit idle count variant.
    pub dic: DicMode,
    /// Padding of short frames before the FCS.
    pub padding: Padding,
    /// The lanes a `/S/` may go in.
    pub start_lanes: StartLanes,
}

impl Default for TxConfig {
    fn default() -> Self {
        Self {
            ifg_octets: 12,
            dic: DicMode::Strict,
            padding: Padding::default(),
            start_lanes: StartLanes::Both,
        }
    }
}

/// Why a frame could not be encoded. Nothing was written and the state is unchanged.
///
/// Spec: none (API).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EncodeFrameError {
    /// `out` holds fewer words than the idles owed plus the frame need.
    BufferTooSmall {
        /// Words needed.
        needed: usize,
    },
    /// The frame with pad and FCS exceeds [`MAX_FRAME_OCTETS`].
    FrameTooLong {
        /// Octets the frame would have on the wire (DA through FCS).
        len: usize,
    },
}

impl core::fmt::Display for EncodeFrameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::BufferTooSmall { needed } => {
                write!(f, "output buffer too small: {needed} XGMII words needed")
            }
            Self::FrameTooLong { len } => write!(
                f,
                "frame of {len} octets exceeds the model's {MAX_FRAME_OCTETS}-octet limit"
            ),
        }
    }
}

impl core::error::Error for EncodeFrameError {}

/// What follows the frame octets.
#[derive(Clone, Copy)]
enum Ending {
    /// Pad, computed FCS, `/T/`.
    Fcs { pad: usize, fcs: u32 },
    /// `/T/` right after the octets (the caller supplied the FCS).
    Raw,
    /// Four `/E/` then `/T/` (underrun / abort).
    Abort,
}

/// Writes XGMII words: whole `u64` reads for the frame body, shifted lane groups for the
/// partial transfers at its start and end (no per-octet loop anywhere).
struct Emitter<'o> {
    out: &'o mut [XgmiiWord],
    /// The next transfer's index in `out` (the caller has checked the room).
    at: usize,
    /// Lanes `0..lane` of the transfer being built.
    data: u64,
    ctrl: u8,
    lane: usize,
}

/// Eight idle characters as data bits.
const IDLES: u64 = XgmiiWord::IDLE.data;

impl<'o> Emitter<'o> {
    fn new(out: &'o mut [XgmiiWord]) -> Self {
        Self {
            out,
            at: 0,
            data: 0,
            ctrl: 0,
            lane: 0,
        }
    }

    #[inline]
    fn put(&mut self, word: XgmiiWord) {
        if let Some(slot) = self.out.get_mut(self.at) {
            *slot = word;
        }
        self.at += 1;
    }

    /// Appends `n` (1..=8) lanes: lane i of the group is `data` bits 8i+7..8i and a control
    /// character iff `ctrl` bit i is set. Bits beyond `n` lanes must be zero.
    #[inline]
    fn lanes(&mut self, data: u64, ctrl: u8, n: usize) {
        let lane = self.lane & 7;
        let space = 8 - lane;
        self.data |= data << (8 * lane);
        self.ctrl |= ctrl << lane;
        if n >= space {
            self.put(XgmiiWord::new(self.data, self.ctrl));
            // The lanes that did not fit (none when the group filled the transfer exactly).
            self.data = data.checked_shr(8 * space as u32).unwrap_or(0);
            self.ctrl = ctrl.checked_shr(space as u32).unwrap_or(0);
            self.lane = n - space;
        } else {
            self.lane = lane + n;
        }
    }

    #[inline]
    fn control(&mut self, c: ControlChar) {
        self.lanes(u64::from(c.0), 1, 1);
    }

    /// Up to 8 data octets as one lane group.
    #[inline]
    fn short_data(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(8);
        if n == 0 {
            return;
        }
        self.lanes(load_le(bytes), 0, n);
    }

    /// Data octets: a lane group up to a transfer boundary, then whole `u64` reads.
    #[inline(always)]
    fn data(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        if self.lane != 0 {
            let (head, tail) = rest.split_at(rest.len().min(8 - (self.lane & 7)));
            self.short_data(head);
            rest = tail;
        }
        let words = rest.chunks_exact(8);
        let tail = words.remainder();
        let slots = self.out.get_mut(self.at..).unwrap_or_default();
        let n = words.len();
        for (slot, octets) in slots.iter_mut().zip(words) {
            if let Some(&octets) = octets.first_chunk::<8>() {
                *slot = XgmiiWord::from_data(u64::from_le_bytes(octets));
            }
        }
        self.at += n;
        self.short_data(tail);
    }

    fn zeros(&mut self, n: usize) {
        let mut left = n;
        if self.lane != 0 && left > 0 {
            let k = left.min(8 - (self.lane & 7));
            self.lanes(0, 0, k);
            left -= k;
        }
        for _ in 0..left / 8 {
            self.put(XgmiiWord::from_data(0));
        }
        if left % 8 != 0 {
            self.lanes(0, 0, left % 8);
        }
    }

    /// Idles to the end of the current transfer.
    #[inline]
    fn finish(&mut self) {
        if self.lane != 0 {
            let lane = self.lane & 7;
            self.lanes(IDLES >> (8 * lane), 0xff >> lane, 8 - lane);
        }
    }
}

/// The MAC transmit path and the transmit half of the RS: one frame per call in, XGMII words
/// out, idles between frames. The remaining gap and the deficit idle count carry over from
/// call to call, so consecutive calls produce one continuous XGMII stream.
///
/// Spec: IEEE 802.3 §4.2.3, §46.3.1.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MacTx<E: FcsEngine = TableFcs> {
    config: TxConfig,
    /// Idle octets still owed before the next `/S/` (a multiple of 4).
    owed_idle_octets: usize,
    /// The deficit idle count, 0..=3.
    deficit_idle_count: u8,
    last_gap_octets: Option<usize>,
    stats: TxStats,
    engine: core::marker::PhantomData<E>,
}

impl Default for MacTx {
    fn default() -> Self {
        Self::new(TxConfig::default())
    }
}

impl MacTx {
    /// A transmitter at initialisation (no gap owed, deficit idle count 0) with the default
    /// FCS engine.
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    #[must_use]
    pub const fn new(config: TxConfig) -> Self {
        Self::with_engine(config)
    }
}

impl<E: FcsEngine> MacTx<E> {
    /// A transmitter at initialisation computing the FCS with engine `E`.
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    #[must_use]
    pub const fn with_engine(config: TxConfig) -> Self {
        Self {
            engine: core::marker::PhantomData,
            config,
            owed_idle_octets: 0,
            deficit_idle_count: 0,
            last_gap_octets: None,
            stats: TxStats {
                frames_transmitted_ok: 0,
                octets_transmitted_ok: 0,
                multicast_frames_xmitted_ok: 0,
                broadcast_frames_xmitted_ok: 0,
                vlan_tagged_frames_transmitted: 0,
                frames_padded: 0,
                frames_lost_due_to_int_mac_xmit_error: 0,
                mac_control_frames_transmitted: 0,
                pause_mac_ctrl_frames_transmitted: 0,
                pfc_frames_transmitted: 0,
            },
        }
    }

    /// The configuration.
    ///
    /// Spec: IEEE 802.3 §4.2.3.2.
    #[must_use]
    pub const fn config(&self) -> &TxConfig {
        &self.config
    }

    /// The counters.
    ///
    /// Spec: IEEE 802.3 §30.3.1.1.
    #[must_use]
    pub const fn stats(&self) -> &TxStats {
        &self.stats
    }

    /// The deficit idle count (0..=3).
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    #[must_use]
    pub const fn deficit_idle_count(&self) -> u8 {
        self.deficit_idle_count
    }

    /// Idle octets still owed before the next `/S/`.
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    #[must_use]
    pub const fn owed_idle_octets(&self) -> usize {
        self.owed_idle_octets
    }

    /// The lane (0 or 4) the next `/S/` goes in if a frame is encoded now.
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    #[must_use]
    pub const fn next_start_lane(&self) -> usize {
        self.start_owed() % 8
    }

    /// Where the next `/S/` goes if a frame is encoded now: the transfer, counted from the
    /// first one [`MacTx::encode_frame`] writes (the idles owed before it), and the lane (0
    /// or 4).
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    #[must_use]
    pub const fn next_start(&self) -> (usize, usize) {
        let owed = self.start_owed();
        (owed / 8, owed % 8)
    }

    /// The idle octets before the next `/S/`: those owed, and 4 more when the start must go in
    /// lane 4 and the owed gap ends at a transfer boundary.
    const fn start_owed(&self) -> usize {
        let owed = self.owed_idle_octets;
        match self.config.start_lanes {
            StartLanes::Lane4 if owed % 8 == 0 => owed + 4,
            _ => owed,
        }
    }

    /// The gap (octets, `/T/` included) chosen after the last frame.
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    #[must_use]
    pub const fn last_gap_octets(&self) -> Option<usize> {
        self.last_gap_octets
    }

    /// Back to the initial state (counters kept).
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    pub fn reset(&mut self) {
        self.owed_idle_octets = 0;
        self.deficit_idle_count = 0;
        self.last_gap_octets = None;
    }

    /// XGMII words [`MacTx::encode_frame`] needs now for a frame of `len` octets (without FCS).
    ///
    /// Spec: IEEE 802.3 §46.3.1.2.
    #[must_use]
    pub fn words_needed(&self, len: usize) -> usize {
        let pad = self.config.padding.pad_octets(len);
        self.words_for_stream(
            PREAMBLE_SFD_OCTETS
                .saturating_add(len)
                .saturating_add(pad + FCS_OCTETS + 1),
        )
    }

    fn words_for_stream(&self, stream_octets: usize) -> usize {
        let owed = self.start_owed();
        let lead = owed / 8;
        let start = owed % 8;
        lead.saturating_add(stream_octets.saturating_add(start).div_ceil(8))
    }

    /// Encodes one frame (DA through payload, without FCS): the idle words still owed, then
    /// `/S/`, preamble, SFD, the frame, zero padding (per [`TxConfig::padding`]), the FCS least
    /// significant octet first, `/T/` and idles to the end of that transfer. Returns the
    /// number of words written.
    ///
    /// # Errors
    /// [`EncodeFrameError::BufferTooSmall`] or [`EncodeFrameError::FrameTooLong`]; nothing is
    /// written then.
    ///
    /// Spec: IEEE 802.3 §4.2.3, §3.2.9, §46.3.1.2, §46.3.1.4.
    pub fn encode_frame(
        &mut self,
        frame: &[u8],
        out: &mut [XgmiiWord],
    ) -> Result<usize, EncodeFrameError> {
        let pad = self.config.padding.pad_octets(frame.len());
        self.check(frame, Ending::Fcs { pad, fcs: 0 }, out.len())?;
        let fcs = fcs_padded_with::<E>(frame, pad);
        let n = self.emit(frame, Ending::Fcs { pad, fcs }, out);
        self.count_sent(frame, frame.len() + pad + FCS_OCTETS, pad > 0);
        Ok(n)
    }

    /// As [`MacTx::encode_frame`], for a PCS that encodes a whole packet straight from its
    /// octets ([`pcs_core::PcsTx::encode_packet`]): writes into `octets` what goes between
    /// the frame's `/S/` and its `/T/` (six preamble octets and the SFD, the frame, its pad,
    /// the FCS least significant octet first) and offers it to `send` with where it goes
    /// ([`FramePacket`]). `send` says whether it sent them. Returns the transfers they take
    /// (the idles owed before the packet included), or `None` if `send` sent nothing: the MAC
    /// then changes nothing (the caller sends the frame as transfers instead).
    ///
    /// # Errors
    /// [`EncodeFrameError::FrameTooLong`], or [`EncodeFrameError::BufferTooSmall`] if
    /// `octets` is shorter than the packet (its `needed` then counts octets); nothing is
    /// written then.
    ///
    /// Spec: IEEE 802.3 §4.2.3, §3.2.9, §46.3.1.2, §46.3.1.4.
    pub fn encode_frame_packet(
        &mut self,
        frame: &[u8],
        octets: &mut [u8],
        send: impl FnOnce(FramePacket, &[u8]) -> bool,
    ) -> Result<Option<usize>, EncodeFrameError> {
        let pad = self.config.padding.pad_octets(frame.len());
        let wire = frame.len().saturating_add(pad + FCS_OCTETS);
        fits(wire)?;
        let len = PREAMBLE_SFD_OCTETS - 1 + wire;
        let Some(packet) = octets.get_mut(..len) else {
            return Err(EncodeFrameError::BufferTooSmall { needed: len });
        };
        let (preamble, rest) = packet.split_at_mut(PREAMBLE_SFD_OCTETS - 1);
        preamble.copy_from_slice(&PREAMBLE_AFTER_START);
        let (body, rest) = rest.split_at_mut(frame.len());
        copy_octets(body, frame);
        let (zeros, fcs) = rest.split_at_mut(pad);
        if pad > 0 {
            zeros.fill(0);
        }
        fcs.copy_from_slice(&fcs_padded_with::<E>(frame, pad).to_le_bytes());
        let owed = self.start_owed();
        let place = FramePacket {
            idles: owed / 8,
            lane: owed % 8,
        };
        if !send(place, packet) {
            return Ok(None);
        }
        let (lead, start) = self.begin(owed);
        // The stream from /S/ to /T/ inclusive.
        let words = lead + self.ended(start, len + 2);
        self.count_sent(frame, wire, pad > 0);
        Ok(Some(words))
    }

    /// Encodes a frame that already ends in its FCS (right or deliberately wrong), as is: no
    /// padding, no FCS appended. Returns the number of words written.
    ///
    /// # Errors
    /// As [`MacTx::encode_frame`].
    ///
    /// Spec: IEEE 802.3 §46.3.1.2.
    pub fn encode_frame_with_fcs(
        &mut self,
        frame_with_fcs: &[u8],
        out: &mut [XgmiiWord],
    ) -> Result<usize, EncodeFrameError> {
        self.check(frame_with_fcs, Ending::Raw, out.len())?;
        let n = self.emit(frame_with_fcs, Ending::Raw, out);
        self.count_sent(frame_with_fcs, frame_with_fcs.len(), false);
        Ok(n)
    }

    /// Encodes a frame the MAC client abandoned after `sent` octets (a FIFO underrun or an
    /// explicit abort): `/S/`, preamble, SFD, `sent`, then four `/E/` and a `/T/`, as common
    /// RTL ends such a frame. The receiver sees an `/E/` inside the frame.
    ///
    /// Through a Clause 49 PCS the transfer holding the `/E/` has T_TYPE E, and the transmit
    /// state machine stays in `TX_E` on a start (`TX_E --S--> TX_E`): a frame whose `/S/` is in
    /// the very next transfer goes out as `EBLOCK_T` and is lost too. With IFG 12 and the
    /// deficit idle count that happens when the abort's `/T/` lands in lane 1 (found by the
    /// `mac_roundtrip` fuzz target, which predicts it).
    ///
    /// # Errors
    /// As [`MacTx::encode_frame`].
    ///
    /// Spec: IEEE 802.3 §46.3.2.2 (TXD/TXC for transmit error propagation), Table 46-4;
    /// §49.2.13 (transmit state diagram).
    // reading: /E/ x4 + /T/ mirrors verilog-ethernet/taxi (`{I,I,I,T,E,E,E,E}` for a word-aligned
    // abort); the gap after it follows the same DIC rule as after a /T/ of a good frame.
    pub fn encode_aborted(
        &mut self,
        sent: &[u8],
        out: &mut [XgmiiWord],
    ) -> Result<usize, EncodeFrameError> {
        self.check(sent, Ending::Abort, out.len())?;
        let n = self.emit(sent, Ending::Abort, out);
        self.stats.frames_lost_due_to_int_mac_xmit_error += 1;
        Ok(n)
    }

    /// Fills `out` with idle transfers (time with no frame to send). Pays the gap owed first;
    /// with [`DicMode::ResetOnIdle`], any whole idle column beyond it resets the deficit idle
    /// count.
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    pub fn idle(&mut self, out: &mut [XgmiiWord]) {
        self.fill_with(XgmiiWord::IDLE, out);
    }

    /// As [`MacTx::idle`] but with `word` in every transfer (the RS uses it for sequence
    /// ordered sets, which stand in for idles).
    ///
    /// Spec: IEEE 802.3 §46.3.4.
    pub fn fill_with(&mut self, word: XgmiiWord, out: &mut [XgmiiWord]) {
        out.fill(word);
        self.pass_idle_octets(out.len().saturating_mul(8));
    }

    /// Accounts for `octets` octets of idle time.
    fn pass_idle_octets(&mut self, octets: usize) {
        if octets == 0 {
            return;
        }
        let extra = octets.saturating_sub(self.owed_idle_octets);
        self.owed_idle_octets = self.owed_idle_octets.saturating_sub(octets);
        if extra >= 4 && self.config.dic == DicMode::ResetOnIdle {
            self.deficit_idle_count = 0;
        }
    }

    fn check(&self, body: &[u8], ending: Ending, out_len: usize) -> Result<(), EncodeFrameError> {
        let (wire, tail) = match ending {
            Ending::Fcs { pad, .. } => (body.len().saturating_add(pad + FCS_OCTETS), 1),
            Ending::Raw => (body.len(), 1),
            Ending::Abort => (body.len(), 5),
        };
        fits(wire)?;
        let needed = self.words_for_stream(PREAMBLE_SFD_OCTETS + wire + tail);
        if out_len < needed {
            return Err(EncodeFrameError::BufferTooSmall { needed });
        }
        Ok(())
    }

    /// Writes the owed idles and the frame; the caller has checked the buffer.
    fn emit(&mut self, body: &[u8], ending: Ending, out: &mut [XgmiiWord]) -> usize {
        let (lead, start) = self.begin(self.start_owed());
        let mut e = Emitter::new(out);
        for _ in 0..lead {
            e.put(XgmiiWord::IDLE);
        }
        if start == 0 {
            e.put(START_LANE0_WORD);
        } else {
            e.put(START_LANE4_WORD);
            // The rest of the preamble and the SFD, after the 3 octets in this transfer.
            e.short_data(PREAMBLE_AFTER_START.get(3..).unwrap_or_default());
        }
        e.data(body);
        let tail_ctrl = match ending {
            Ending::Fcs { pad, fcs } => {
                e.zeros(pad);
                e.lanes(u64::from(fcs), 0, FCS_OCTETS);
                1
            }
            Ending::Raw => 1,
            Ending::Abort => {
                let e4 = u64::from(ControlChar::ERROR.0) * 0x0101_0101;
                e.lanes(e4, 0x0f, 4);
                5
            }
        };
        e.control(ControlChar::TERMINATE);
        // Lane of the /T/: the stream from /S/ to /T/ inclusive started in lane `start`.
        let body_octets = match ending {
            Ending::Fcs { pad, .. } => body.len() + pad + FCS_OCTETS,
            Ending::Raw | Ending::Abort => body.len(),
        };
        e.finish();
        lead + self.ended(start, PREAMBLE_SFD_OCTETS + body_octets + tail_ctrl)
    }

    /// The frame sent now starts after `owed` idle octets ([`MacTx::start_owed`]): returns
    /// the idle transfers before it and the lane of its `/S/` (0 or 4). Moving the start to
    /// lane 4 ([`StartLanes::Lane4`]) resets the deficit idle count.
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    fn begin(&mut self, owed: usize) -> (usize, usize) {
        if owed != self.owed_idle_octets {
            // 4 idles inserted to move the start to lane 4 (StartLanes::Lane4).
            self.deficit_idle_count = 0;
        }
        (owed / 8, owed % 8)
    }

    /// A frame went out whose `/S/` was in lane `start` and whose stream from `/S/` to `/T/`
    /// inclusive is `stream` octets: schedules the gap after its `/T/`, and returns its
    /// transfers.
    fn ended(&mut self, start: usize, stream: usize) -> usize {
        self.schedule_gap((start + stream - 1) % 8);
        (start + stream).div_ceil(8)
    }

    /// Chooses the gap after a `/T/` in lane `t_lane` and updates the deficit idle count.
    ///
    /// Spec: IEEE 802.3 §46.3.1.4.
    fn schedule_gap(&mut self, t_lane: usize) {
        let ifg = usize::from(self.config.ifg_octets).max(1);
        let t4 = t_lane % 4;
        // Idles to delete so that the next /S/ lands on the previous column start.
        let delete = (t4 + ifg) % 4;
        let mut gap = match self.config.dic {
            DicMode::Off => ifg + (4 - delete) % 4,
            DicMode::Strict | DicMode::ResetOnIdle => {
                let count = usize::from(self.deficit_idle_count);
                if delete == 0 {
                    ifg
                } else if count + delete <= 3 && ifg > delete {
                    self.deficit_idle_count = (count + delete) as u8;
                    ifg - delete
                } else {
                    let insert = 4 - delete;
                    self.deficit_idle_count = count.saturating_sub(insert) as u8;
                    ifg + insert
                }
            }
        };
        // reading: with an IFG below the standard's, the /S/ still goes in a later transfer
        // than the /T/ (no 64b/66b block holds both).
        while t_lane + gap < 8 {
            gap += 4;
        }
        self.owed_idle_octets = t_lane + gap - 8;
        self.last_gap_octets = Some(gap);
    }

    #[inline]
    fn count_sent(&mut self, frame: &[u8], wire_octets: usize, padded: bool) {
        let s = &mut self.stats;
        s.frames_transmitted_ok += 1;
        s.octets_transmitted_ok += wire_octets as u64;
        match AddressKind::of_frame(frame) {
            Some(AddressKind::Multicast) => s.multicast_frames_xmitted_ok += 1,
            Some(AddressKind::Broadcast) => s.broadcast_frames_xmitted_ok += 1,
            Some(AddressKind::Unicast) | None => {}
        }
        if ether_type(frame) == Some(TPID_VLAN) {
            s.vlan_tagged_frames_transmitted += 1;
        }
        if padded {
            s.frames_padded += 1;
        }
        if let Some(mc) = MacControl::parse(frame) {
            s.mac_control_frames_transmitted += 1;
            match mc.opcode() {
                OPCODE_PAUSE => s.pause_mac_ctrl_frames_transmitted += 1,
                OPCODE_PFC => s.pfc_frames_transmitted += 1,
                _ => {}
            }
        }
    }
}

/// `dst.copy_from_slice(src)` (the same length); a frame of 32 to 64 octets as two
/// overlapping 32-octet moves, without the call to `memcpy` a copy of unknown length makes (a
/// sixth of the transmit chain's time at 64 octets).
#[inline]
fn copy_octets(dst: &mut [u8], src: &[u8]) {
    if (32..=64).contains(&src.len()) {
        if let (Some(d), Some(s)) = (dst.first_chunk_mut::<32>(), src.first_chunk::<32>()) {
            *d = *s;
        }
        if let (Some(d), Some(s)) = (dst.last_chunk_mut::<32>(), src.last_chunk::<32>()) {
            *d = *s;
        }
        return;
    }
    dst.copy_from_slice(src);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::fcs;
    use proptest::prelude::*;
    use std::vec::Vec;

    const I: u8 = 0x07;
    const S: u8 = 0xfb;
    const T: u8 = 0xfd;
    const E: u8 = 0xfe;

    /// Independent octet-level reference: lanes as (octet, is_control), chunked into words.
    fn words_from_lanes(lanes: &[(u8, bool)]) -> Vec<XgmiiWord> {
        assert_eq!(lanes.len() % 8, 0);
        lanes
            .chunks(8)
            .map(|c| {
                let mut w = XgmiiWord::default();
                for (i, &(o, k)) in c.iter().enumerate() {
                    w.data |= u64::from(o) << (8 * i);
                    if k {
                        w.ctrl |= 1 << i;
                    }
                }
                w
            })
            .collect()
    }

    /// Reference lanes of one padded frame starting in `start_lane` after `lead` idle lanes.
    fn reference_frame(start_lane: usize, frame: &[u8]) -> Vec<XgmiiWord> {
        let mut lanes: Vec<(u8, bool)> = (0..start_lane).map(|_| (I, true)).collect();
        lanes.push((S, true));
        lanes.extend([0x55; 6].iter().map(|&b| (b, false)));
        lanes.push((0xd5, false));
        let mut body = frame.to_vec();
        if body.len() < 60 {
            body.resize(60, 0);
        }
        let crc = crc32fast::hash(&body);
        lanes.extend(body.iter().map(|&b| (b, false)));
        lanes.extend(crc.to_le_bytes().iter().map(|&b| (b, false)));
        lanes.push((T, true));
        while lanes.len() % 8 != 0 {
            lanes.push((I, true));
        }
        words_from_lanes(&lanes)
    }

    fn encode(tx: &mut MacTx, frame: &[u8]) -> Vec<XgmiiWord> {
        let mut out = vec![XgmiiWord::default(); tx.words_needed(frame.len())];
        let n = tx.encode_frame(frame, &mut out).unwrap();
        out.truncate(n);
        out
    }

    #[test]
    fn sixty_octet_frame_in_lane_0_is_byte_exact() {
        let frame: Vec<u8> = (0u8..60).collect();
        let words = encode(&mut MacTx::default(), &frame);
        // Hand-derived: FCS = zlib.crc32(bytes(range(60))) = 0xb0ec7fee, sent ee 7f ec b0.
        let mut expected = vec![XgmiiWord::new(0xd555_5555_5555_55fb, 0x01)];
        for k in 0..7u64 {
            let b = 8 * k;
            expected.push(XgmiiWord::from_data(u64::from_le_bytes(
                core::array::from_fn(|i| (b + i as u64) as u8),
            )));
        }
        expected.push(XgmiiWord::new(0xb0ec_7fee_3b3a_3938, 0x00));
        expected.push(XgmiiWord::new(0x0707_0707_0707_07fd, 0xff));
        assert_eq!(words, expected);
        assert_eq!(words[1], XgmiiWord::from_data(0x0706_0504_0302_0100));
    }

    #[test]
    fn terminate_lands_in_each_of_the_eight_lanes() {
        // 8 (preamble) + n + 4 (FCS): /T/ in lane (n + 4) % 8.
        for n in 60..68usize {
            let frame: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
            let words = encode(&mut MacTx::default(), &frame);
            assert_eq!(words, reference_frame(0, &frame), "n = {n}");
            let last = *words.last().unwrap();
            let t_lane = (n + 4) % 8;
            assert_eq!(last.octet(t_lane), T);
            assert!(last.is_control(t_lane));
            assert_eq!(last.ctrl, 0xffu8 << t_lane, "n = {n}");
        }
    }

    #[test]
    fn frame_after_short_tail_starts_in_lane_4() {
        let mut tx = MacTx::default();
        let frame: Vec<u8> = (0u8..60).collect();
        let _ = encode(&mut tx, &frame); // /T/ in lane 0: gap 12 -> next /S/ in lane 4
        assert_eq!(tx.next_start_lane(), 4);
        let words = encode(&mut tx, &frame);
        assert_eq!(words[0], XgmiiWord::new(0x5555_55fb_0707_0707, 0x1f));
        assert_eq!(words[1], XgmiiWord::new(0x0302_0100_d555_5555, 0x00));
        assert_eq!(words, reference_frame(4, &frame));
        // The gap: /T/ in lane 0 of the previous transfer + 7 idles + 4 idles = 12.
        assert_eq!(tx.last_gap_octets(), Some(12));
    }

    #[test]
    fn short_frames_are_padded_to_64_with_fcs() {
        let words = encode(&mut MacTx::default(), &[0xab; 14]);
        assert_eq!(words, reference_frame(0, &[0xab; 14]));
        let mut tx = MacTx::new(TxConfig {
            padding: Padding::Off,
            ..TxConfig::default()
        });
        let w = encode(&mut tx, &[0xab; 14]);
        // 8 + 14 + 4 = 26 octets, /T/ in lane 2 of word 3.
        assert_eq!(w.len(), 4);
        let fcs14 = fcs(&[0xab; 14]).to_le_bytes();
        assert_eq!(w[3].octet(0), fcs14[2]);
        assert_eq!(w[3].octet(2), T);
        assert_eq!(tx.stats().frames_padded, 0);
    }

    #[test]
    fn aborted_frame_ends_with_four_e_then_t() {
        let mut tx = MacTx::default();
        let mut out = [XgmiiWord::default(); 8];
        let n = tx.encode_aborted(&[1u8; 16], &mut out).unwrap();
        assert_eq!(n, 4);
        assert_eq!(out[3], XgmiiWord::new(0x0707_07fd_fefe_fefe, 0xff));
        assert_eq!(out[3].octet(0), E);
        assert_eq!(tx.stats().frames_lost_due_to_int_mac_xmit_error, 1);
        assert_eq!(tx.stats().frames_transmitted_ok, 0);
    }

    #[test]
    fn encode_errors_leave_state_unchanged() {
        let mut tx = MacTx::default();
        let mut small = [XgmiiWord::default(); 9];
        assert_eq!(
            tx.encode_frame(&[0; 60], &mut small),
            Err(EncodeFrameError::BufferTooSmall { needed: 10 })
        );
        let big = vec![0u8; MAX_FRAME_OCTETS - 3];
        let mut out = vec![XgmiiWord::default(); 4000];
        assert_eq!(
            tx.encode_frame(&big, &mut out),
            Err(EncodeFrameError::FrameTooLong {
                len: MAX_FRAME_OCTETS + 1
            })
        );
        assert_eq!(tx, MacTx::default());
        // 16 KiB with FCS fits.
        let jumbo = vec![0x5au8; MAX_FRAME_OCTETS - 4];
        assert!(tx.encode_frame(&jumbo, &mut out).is_ok());
    }

    /// Gap after a /T/ in lane `t` (mod 4 = stream length mod 4) with deficit idle count `c`.
    fn gap_for(t: usize, c: u8) -> (usize, u8) {
        let mut tx = MacTx {
            deficit_idle_count: c,
            ..MacTx::default()
        };
        tx.schedule_gap(t);
        (tx.last_gap_octets.unwrap(), tx.deficit_idle_count)
    }

    #[test]
    fn dic_rule_agrees_with_the_46_3_1_4_table_for_ifg_12() {
        // (length mod 4, count) -> (gap, new count), from SPEC-NOTES.
        for t in [0, 4] {
            for c in 0..=3 {
                assert_eq!(gap_for(t, c), (12, c));
            }
        }
        for c in 0..=2 {
            assert_eq!(gap_for(1, c), (11, c + 1));
        }
        assert_eq!(gap_for(1, 3), (15, 0));
        for c in 0..=1 {
            assert_eq!(gap_for(2, c), (10, c + 2));
        }
        for c in 2..=3 {
            assert_eq!(gap_for(2, c), (14, c - 2));
        }
        assert_eq!(gap_for(3, 0), (9, 3));
        for c in 1..=3 {
            assert_eq!(gap_for(3, c), (13, c - 1));
        }
    }

    #[test]
    fn dic_off_rounds_ifg_up_to_a_column_start() {
        for t in 0..8 {
            let mut tx = MacTx::new(TxConfig {
                dic: DicMode::Off,
                ..TxConfig::default()
            });
            tx.schedule_gap(t);
            let g = tx.last_gap_octets.unwrap();
            assert_eq!(g, [12, 15, 14, 13][t % 4]);
            assert_eq!((t + g) % 4, 0);
        }
    }

    #[test]
    fn reset_on_idle_clears_the_count_after_an_extra_idle_column() {
        for (mode, expect) in [(DicMode::Strict, 3), (DicMode::ResetOnIdle, 0)] {
            let mut tx = MacTx::new(TxConfig {
                dic: mode,
                ..TxConfig::default()
            });
            // 63 octets: stream 8 + 67 = 75 -> /T/ at 75 = lane 3: gap 9, count 3.
            let _ = encode(&mut tx, &[0u8; 63]);
            assert_eq!(tx.deficit_idle_count(), 3);
            assert_eq!(tx.owed_idle_octets(), 4);
            // Exactly the owed gap is never "idle": an idle word pays 4 owed + 4 extra.
            let mut w = [XgmiiWord::default(); 1];
            tx.idle(&mut w);
            assert_eq!(tx.deficit_idle_count(), expect, "{mode:?}");
        }
    }

    #[test]
    fn idle_that_only_pays_the_gap_keeps_the_count() {
        let mut tx = MacTx::new(TxConfig {
            dic: DicMode::ResetOnIdle,
            ifg_octets: 16,
            ..TxConfig::default()
        });
        // /T/ in lane 1 (61 octets: 8 + 65 = 73 -> lane 1 of word 9): gap 15, count 1.
        let _ = encode(&mut tx, &[0u8; 61]);
        assert_eq!(tx.last_gap_octets(), Some(15));
        assert_eq!(tx.deficit_idle_count(), 1);
        assert_eq!(tx.owed_idle_octets(), 8);
        tx.idle(&mut [XgmiiWord::default(); 1]);
        assert_eq!(tx.deficit_idle_count(), 1);
        assert_eq!(tx.owed_idle_octets(), 0);
    }

    /// Scans a stream: (lane index of every /S/, gap before each /S/ after the first).
    fn starts_and_gaps(words: &[XgmiiWord]) -> (Vec<usize>, Vec<usize>) {
        let mut starts = Vec::new();
        let mut gaps = Vec::new();
        let mut last_t = None;
        for (wi, w) in words.iter().enumerate() {
            for lane in 0..8 {
                if !w.is_control(lane) {
                    continue;
                }
                let pos = wi * 8 + lane;
                match w.octet(lane) {
                    S => {
                        starts.push(pos);
                        if let Some(t) = last_t.take() {
                            gaps.push(pos - t);
                        }
                    }
                    T => last_t = Some(pos),
                    _ => {}
                }
            }
        }
        (starts, gaps)
    }

    fn run(mode: DicMode, lens: &[usize]) -> Vec<XgmiiWord> {
        let mut tx = MacTx::new(TxConfig {
            dic: mode,
            ..TxConfig::default()
        });
        let mut all = Vec::new();
        for &n in lens {
            all.extend(encode(&mut tx, &vec![0x11; n]));
        }
        all
    }

    proptest! {
        #[test]
        fn every_start_is_in_lane_0_or_4_and_gaps_obey_dic(
            lens in proptest::collection::vec(0usize..300, 1..60),
        ) {
            for mode in [DicMode::Strict, DicMode::ResetOnIdle, DicMode::Off] {
                let (starts, gaps) = starts_and_gaps(&run(mode, &lens));
                prop_assert_eq!(starts.len(), lens.len());
                for s in &starts {
                    prop_assert_eq!(s % 4, 0);
                }
                for &g in &gaps {
                    if mode == DicMode::Off {
                        prop_assert!((12..=15).contains(&g), "gap {}", g);
                    } else {
                        prop_assert!((9..=15).contains(&g), "gap {}", g);
                    }
                }
                if mode == DicMode::Strict {
                    // Any window of consecutive gaps sums to 12 per gap within 3 octets.
                    for i in 0..gaps.len() {
                        let mut sum = 0i64;
                        for (k, &g) in gaps[i..].iter().enumerate() {
                            sum += g as i64;
                            let dev = sum - 12 * (k as i64 + 1);
                            prop_assert!(dev.abs() <= 3, "window {}..={} off by {}", i, i + k, dev);
                        }
                    }
                }
            }
        }

        #[test]
        fn dic_keeps_any_ifg_within_3_octets_and_its_mean(
            ifg in 8u16..64,
            lens in proptest::collection::vec(0usize..300, 1..40),
        ) {
            let mut tx = MacTx::new(TxConfig { ifg_octets: ifg, ..TxConfig::default() });
            let mut all = Vec::new();
            for &n in &lens {
                all.extend(encode(&mut tx, &vec![0x22; n]));
                prop_assert!(tx.deficit_idle_count() <= 3);
            }
            let (starts, gaps) = starts_and_gaps(&all);
            prop_assert!(starts.iter().all(|s| s % 4 == 0));
            let ifg = i64::from(ifg);
            let mut sum = 0i64;
            for (k, &g) in gaps.iter().enumerate() {
                prop_assert!((g as i64 - ifg).abs() <= 3, "gap {} for IFG {}", g, ifg);
                sum += g as i64;
                prop_assert!((sum - ifg * (k as i64 + 1)).abs() <= 3);
            }
        }

        #[test]
        fn a_packet_from_its_octets_equals_the_frame_as_transfers(
            frames in proptest::collection::vec((0usize..140, any::<u8>(), 0usize..3, any::<bool>()), 1..10),
            ifg in 5u16..20,
            dic in 0usize..3,
            lane4: bool,
            padding: bool,
        ) {
            let config = TxConfig {
                ifg_octets: ifg,
                dic: [DicMode::Off, DicMode::Strict, DicMode::ResetOnIdle][dic],
                padding: if padding { Padding::default() } else { Padding::Off },
                start_lanes: if lane4 { StartLanes::Lane4 } else { StartLanes::Both },
            };
            let (mut words, mut packets) = (MacTx::new(config), MacTx::new(config));
            for (len, fill, idles, refuse) in frames {
                let frame: Vec<u8> = (0..len).map(|i| fill ^ i as u8).collect();
                let want = encode(&mut words, &frame);
                let mut octets = vec![0xee; MAX_FRAME_OCTETS + 8];
                // A door that sends nothing: nothing changes.
                if refuse {
                    let before = packets.clone();
                    prop_assert_eq!(packets.encode_frame_packet(&frame, &mut octets, |_, _| false), Ok(None));
                    prop_assert_eq!(&packets, &before);
                }
                let mut got = Vec::new();
                let n = packets.encode_frame_packet(&frame, &mut octets, |p, o| {
                    // The transfers the packet stands for, lane by lane.
                    let mut lanes = vec![(I, true); 8 * p.idles + p.lane];
                    lanes.push((S, true));
                    lanes.extend(o.iter().map(|&x| (x, false)));
                    lanes.push((T, true));
                    while lanes.len() % 8 != 0 {
                        lanes.push((I, true));
                    }
                    got = words_from_lanes(&lanes);
                    true
                });
                prop_assert_eq!(n, Ok(Some(want.len())));
                prop_assert_eq!(&got, &want);
                prop_assert_eq!(&packets, &words);
                let mut gap = vec![XgmiiWord::default(); idles];
                words.idle(&mut gap);
                packets.idle(&mut gap);
            }
            // Too small a buffer, or too long a frame: an error, and nothing changes.
            let before = packets.clone();
            let mut small = [0u8; 70];
            prop_assert_eq!(
                packets.encode_frame_packet(&[1; 60], &mut small, |_, _| true),
                Err(EncodeFrameError::BufferTooSmall { needed: 71 })
            );
            let mut big = vec![0u8; 2 * MAX_FRAME_OCTETS];
            prop_assert_eq!(
                packets.encode_frame_packet(&vec![1; MAX_FRAME_OCTETS - 3], &mut big, |_, _| true),
                Err(EncodeFrameError::FrameTooLong { len: MAX_FRAME_OCTETS + 1 })
            );
            prop_assert_eq!(&packets, &before);
            // The largest frame goes, its octets just filling the buffer.
            let mut exact = vec![0u8; MAX_FRAME_OCTETS + 7];
            let mut seen = 0;
            let n = packets.encode_frame_packet(&vec![1; MAX_FRAME_OCTETS - 4], &mut exact, |_, o| {
                seen = o.len();
                true
            });
            prop_assert_eq!(seen, MAX_FRAME_OCTETS + 7);
            prop_assert!(matches!(n, Ok(Some(_))));
        }

        #[test]
        fn stream_equals_octet_reference(
            frames in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 1..8),
            idles in proptest::collection::vec(0usize..3, 8),
        ) {
            let mut tx = MacTx::new(TxConfig { dic: DicMode::ResetOnIdle, ..TxConfig::default() });
            let mut words = Vec::new();
            for (f, &k) in frames.iter().zip(&idles) {
                let (lead, start) = tx.next_start();
                prop_assert_eq!(start, tx.next_start_lane());
                let w = encode(&mut tx, f);
                prop_assert!(w[..lead].iter().all(|x| *x == XgmiiWord::IDLE));
                prop_assert_eq!(&w[lead..], &reference_frame(start, f)[..]);
                words.extend(w);
                let mut gap = vec![XgmiiWord::default(); k];
                tx.idle(&mut gap);
                words.extend(gap);
            }
            let (starts, _) = starts_and_gaps(&words);
            prop_assert_eq!(starts.len(), frames.len());
        }
    }

    /// Start (transfer, lane) of each frame sent back to back, by the counter rule of the
    /// test-bench models (cocotbext-eth's XGMII source and the verilog-ethernet serdes source),
    /// written from their description, not from this file: after the /T/ in lane k,
    /// `ifg_cnt = max(ifg - (8 - k), 0)`; an idle transfer goes out while
    /// `ifg_cnt + deficit > 7`, paying 8 (an overdraw below 0 is taken from the deficit); a
    /// start goes in lane 4 when `ifg_cnt > 3 - deficit` (or always, when forced), paying 4;
    /// what is left of `ifg_cnt` is added to the deficit (at least 0).
    fn counter_model_starts(lens: &[usize], ifg: i64, force: bool) -> Vec<(usize, usize)> {
        let (mut word, mut ifg_cnt, mut deficit) = (0usize, 0i64, 0i64);
        let mut starts = Vec::new();
        for &len in lens {
            while ifg_cnt + deficit > 7 {
                ifg_cnt -= 8;
                if ifg_cnt < 0 {
                    deficit = (deficit + ifg_cnt).max(0);
                    ifg_cnt = 0;
                }
                word += 1;
            }
            let mut lane = 0;
            if ifg_cnt > 3 - deficit || force {
                ifg_cnt -= 4;
                lane = 4;
            }
            deficit = (deficit + ifg_cnt).max(0);
            starts.push((word, lane));
            // /S/ + 6 preamble + SFD + frame + FCS, then /T/.
            let t = lane + 8 + len + 4;
            word += t / 8;
            let k = (t % 8) as i64;
            ifg_cnt = (ifg - (8 - k)).max(0);
            word += 1;
        }
        starts
    }

    fn starts_of(words: &[XgmiiWord]) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (i, w) in words.iter().enumerate() {
            for lane in [0, 4] {
                if w.is_control(lane) && w.octet(lane) == S {
                    v.push((i, lane));
                }
            }
        }
        v
    }

    #[test]
    fn starts_follow_the_test_bench_counter_rule_and_lane4_forces_every_start_into_lane_4() {
        for (force, lanes) in [(false, StartLanes::Both), (true, StartLanes::Lane4)] {
            for len in 60..92usize {
                let lens = [len; 10];
                let mut tx = MacTx::new(TxConfig {
                    start_lanes: lanes,
                    ..TxConfig::default()
                });
                let mut words = Vec::new();
                for &n in &lens {
                    words.extend(encode(&mut tx, &vec![0x5a; n]));
                }
                let got = starts_of(&words);
                assert_eq!(
                    got,
                    counter_model_starts(&lens, 12, force),
                    "len {len} {lanes:?}"
                );
                if force {
                    assert!(got.iter().all(|&(_, l)| l == 4), "len {len}");
                }
            }
        }
    }

    #[test]
    fn a_forced_lane4_start_at_initialisation_and_after_idle_inserts_four_idles() {
        let mut tx = MacTx::new(TxConfig {
            start_lanes: StartLanes::Lane4,
            ..TxConfig::default()
        });
        assert_eq!(tx.next_start_lane(), 4);
        let first = encode(&mut tx, &[1u8; 60]);
        assert_eq!(first[0], START_LANE4_WORD);
        let mut idle = [XgmiiWord::default(); 4];
        tx.idle(&mut idle);
        assert_eq!(tx.next_start_lane(), 4);
        let again = encode(&mut tx, &[2u8; 60]);
        assert_eq!(again[0], START_LANE4_WORD);
        assert_eq!(tx.deficit_idle_count(), 0);
    }
}
