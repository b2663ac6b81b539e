//! The TX chain: frames (or XGMII transfers) -> MAC TX -> PCS encode and scramble -> gearbox.
//!
//! ```text
//! frame(s) -> MacTx (preamble, pad, FCS, IFG + DIC) -> batch of XgmiiWords
//!          -> PcsTx::encode_slice (encoder + two-block scrambler step) -> line blocks
//!          -> TxGearbox<u64>::push_blocks -> serial words      (only the forms the sink asks for)
//! ```
//!
//! Transfers are gathered in a batch and go through the PCS and the gearbox as whole slices,
//! the fast paths the criterion benches measure. When the sink also wants the unscrambled
//! blocks, the PCS runs transfer by transfer through the diagram (`PcsTx::step`), which gives
//! both. When it wants no transfers, a frame whose FCS the MAC computes makes none: the MAC
//! writes its octets from preamble to FCS (`MacTx::encode_frame_packet`) and the PCS encodes
//! them straight into line blocks (`PcsTx::encode_packet`). The tests prove the paths equal.
//!
//! Positions: block i of every form is transfer i of the stream, counted from the first
//! transfer the chain sent (the leading idles included).

use crate::fcs::MacTx;
use crate::fec::FecEncoder;
use crate::profile::Profile;
use mac_core::tx::EncodeFrameError;
use mac_core::tx::TxConfig;
use pcs_core::fused::{scramble_octets, scramble_pair};
use pcs_core::PcsTx;
use pcs_core::{Block, ControlChar, SyncHeader, XgmiiWord};
use pcs_core::{PartialWord, TxGearbox};
use serde::Serialize;

/// Frames shorter than this cannot hold a data run of 32 whole transfers after its first
/// block ([`Serial::run`]): they take the short path.
const LONG_RUN_OCTETS: usize = 8 * 32;

/// Transfers gathered before they go through the PCS as one slice (a jumbo frame of 16 k
/// octets needs about 2,050).
const BATCH: usize = 4096;

/// Which forms of the stream a sink takes; the chain computes only those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxForms {
    /// The XGMII transfers. Without them, [`TxBatch::words`] is empty, and the chain encodes
    /// the long runs of data inside a frame straight from the frame's octets.
    pub words: bool,
    /// The unscrambled blocks (the encoder's output).
    pub unscrambled: bool,
    /// Serial words from the gearbox (64 bits, bit 0 first on the wire).
    pub serial: bool,
    /// The line blocks. A sink that takes serial words and no line blocks gets an empty
    /// [`TxBatch::line`], and (when it takes no transfers or unscrambled blocks either) the
    /// chain scrambles a frame's long data runs straight into serial words.
    pub line: bool,
}

/// The transfers and the line blocks.
impl Default for TxForms {
    fn default() -> Self {
        Self {
            words: true,
            unscrambled: false,
            serial: false,
            line: true,
        }
    }
}

/// One batch of what the TX chain produced.
#[derive(Clone, Copy, Debug)]
pub struct TxBatch<'a> {
    /// Index of the first transfer (block) of the batch.
    pub first_block: u64,
    /// The XGMII transfers (none unless [`TxForms::words`]).
    pub words: &'a [XgmiiWord],
    /// The unscrambled blocks, when the sink asked for them.
    pub unscrambled: Option<&'a [Block]>,
    /// The line (scrambled) blocks (none for a sink that takes serial words and not these,
    /// [`TxForms::line`]).
    pub line: &'a [Block],
    /// The serial words these blocks completed, when the sink asked for them.
    pub serial: &'a [u64],
}

/// Receives what the TX chain produces.
pub trait TxSink {
    /// The forms this sink takes.
    fn forms(&self) -> TxForms {
        TxForms::default()
    }

    /// One batch.
    ///
    /// # Errors
    /// The sink could not take it (a file it writes failed).
    fn put(&mut self, batch: &TxBatch<'_>) -> std::io::Result<()>;

    /// The end of the stream: the last serial word, zero padded, if the stream did not end on
    /// a word boundary.
    ///
    /// # Errors
    /// As [`TxSink::put`].
    fn end(&mut self, _tail: Option<PartialWord<u64>>) -> std::io::Result<()> {
        Ok(())
    }
}

/// Keeps everything in memory (for comparisons and tests).
#[derive(Default, Debug)]
pub struct VecSink {
    /// The transfers.
    pub words: Vec<XgmiiWord>,
    /// The unscrambled blocks.
    pub blocks: Vec<Block>,
    /// The line (scrambled) blocks.
    pub lines: Vec<Block>,
}

impl TxSink for VecSink {
    fn forms(&self) -> TxForms {
        TxForms {
            words: true,
            unscrambled: true,
            serial: false,
            line: true,
        }
    }

    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        self.words.extend_from_slice(b.words);
        self.blocks
            .extend_from_slice(b.unscrambled.unwrap_or_default());
        self.lines.extend_from_slice(b.line);
        Ok(())
    }
}

/// Settings of the TX chain.
#[derive(Clone, Copy, Debug)]
pub struct TxOptions {
    /// MAC settings (IFG, DIC, padding).
    pub mac: TxConfig,
    /// Profile (encoder knobs).
    pub profile: Profile,
    /// Scrambler state before the first block.
    pub seed: u64,
    /// Idle transfers before the first frame.
    pub idle_blocks: u64,
}

impl Default for TxOptions {
    fn default() -> Self {
        Self {
            mac: TxConfig::default(),
            profile: Profile::Ieee,
            seed: pcs_core::SCRAMBLER_DEFAULT_STATE,
            idle_blocks: 128,
        }
    }
}

/// Where a frame went in the stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// Transfer (block) index of its `/S/`.
    pub block: u64,
    /// Lane of its `/S/` (0 or 4).
    pub lane: u8,
}

impl Placement {
    /// The block of the frame's SFD: the `/S/` stands for the first preamble octet, and the SFD
    /// is 7 octets on.
    pub fn sfd_block(&self) -> u64 {
        let sfd_octet = self.block * 8 + u64::from(self.lane) + 7;
        sfd_octet / 8
    }
}

/// A frame the MAC cannot send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxError {
    /// Longer than the MAC's largest frame.
    FrameTooLong {
        /// Its length, octets.
        len: usize,
    },
    /// The sink failed (see the sink's own error).
    Sink,
}

impl std::fmt::Display for TxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::FrameTooLong { len } => write!(
                f,
                "{len} octets is longer than the MAC's largest frame ({} octets with FCS)",
                mac_core::frame::MAX_FRAME_OCTETS
            ),
            Self::Sink => f.write_str("the output failed"),
        }
    }
}

/// What the chain sent, at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TxTotals {
    /// Transfers (blocks) sent.
    pub blocks: u64,
    /// Frames sent.
    pub frames: u64,
    /// What the FEC put on the line, with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fec: Option<FecCounts>,
}

/// What a transmit FEC put on the line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FecCounts {
    /// FEC blocks (Clause 74) or codewords (Clause 108) written.
    pub codewords: u64,
    /// RS-FEC marker codewords among them.
    pub markers: u64,
    /// Block times the PCS source was held for the markers (4 a marker).
    pub stalls: u64,
}

/// The TX chain: MAC, PCS, gearbox, and a sink.
pub struct TxChain<S: TxSink> {
    mac: MacTx,
    pcs: PcsTx,
    gearbox: TxGearbox<u64>,
    forms: TxForms,
    sink: S,
    /// Transfers waiting for the PCS.
    words: Vec<XgmiiWord>,
    /// How many of `words` are filled.
    filled: usize,
    /// How many of `line` are encoded already (frames that went straight from their octets:
    /// `words` holds stale transfers in their place).
    encoded: usize,
    /// A frame's octets for the packet doors (preamble to FCS).
    octets: Vec<u8>,
    unscrambled: Vec<Block>,
    line: Vec<Block>,
    serial: Vec<u64>,
    /// Runs of whole groups of `line` that went straight into `serial`, in order: (line
    /// index, groups). The gearbox passes over them.
    holes: Vec<(usize, usize)>,
    /// The sink takes serial words and no line blocks: a frame's long data runs go straight
    /// into serial words.
    fuse: bool,
    /// Blocks handed to the sink.
    flushed: u64,
    frames: u64,
    error: Option<std::io::Error>,
    /// Ordered set sent in place of idle columns (`None`: idles).
    idle_fill: Option<OrderedSet>,
    /// The FEC below the PCS: the line blocks go through it, not the gearbox, to the serial
    /// words ([`TxChain::with_fec`]).
    fec: Option<FecEncoder>,
}

/// An ordered set: `/Q/` (sequence, 0x9c: link fault signalling) or `/Fsig/` (signal, 0x5c),
/// and its three data octets as one 24-bit value (the first octet in bits 23..16).
///
/// Spec: IEEE 802.3 §46.3.4, Table 46-5; §49.2.4.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderedSet {
    /// A signal ordered set (`/Fsig/`) rather than a sequence ordered set (`/Q/`).
    pub signal: bool,
    /// The three octets after the control character.
    pub value: u32,
}

impl OrderedSet {
    /// `w`, or this ordered set in both columns if `w` is all idles (as cocotbext-eth's XGMII
    /// source fills idle transfers; the idle columns of a transfer holding a `/T/` or a `/S/`
    /// stay idles).
    pub fn fill(self, w: XgmiiWord) -> XgmiiWord {
        if w != XgmiiWord::IDLE {
            return w;
        }
        let c = if self.signal {
            ControlChar::SIGNAL.0
        } else {
            ControlChar::SEQUENCE.0
        };
        let v = self.value & 0xff_ffff;
        // lane 0: the control character, lanes 1..3: the octets, first octet in lane 1
        let column = u64::from(c)
            | u64::from(v >> 16 & 0xff) << 8
            | u64::from(v >> 8 & 0xff) << 16
            | u64::from(v & 0xff) << 24;
        XgmiiWord {
            data: column | column << 32,
            ctrl: 0x11,
        }
    }
}

/// A frame's data run on its way to serial words, for a sink that takes no line blocks: the
/// scrambler and the gearbox in one pass (the composition of the two stages for that case).
struct Serial<'a> {
    /// The batch's serial words.
    words: &'a mut [u64],
    /// Runs of whole groups written to `words` already: (line index, groups).
    holes: &'a mut Vec<(usize, usize)>,
    /// Blocks of the stream before the batch.
    flushed: u64,
    /// Line index of the packet's first block.
    at: usize,
}

impl Serial<'_> {
    /// Scrambles the data `octets` (whole transfers) of a packet whose idles and start are
    /// `before`, from the scrambler state `state`; returns the state after them. The blocks
    /// of the run that fill whole groups of 32 where the gearbox's groups start are packed
    /// straight into their serial words ([`pack_groups`]) and left out of `line` (a hole the
    /// gearbox passes over, [`TxChain::flush`]); the others are written to `line`.
    ///
    /// Spec: IEEE 802.3 §49.2.6, §49.2.4.
    fn run(self, before: &[Block], octets: &[u8], line: &mut [Block], state: u64) -> u64 {
        // The run's first block in the stream, and how many blocks until a group starts.
        let first = self.flushed + (self.at + before.len()) as u64;
        let lead = ((32 - first % 32) % 32) as usize;
        let groups = line.len().min(octets.len() / 8).saturating_sub(lead) / 32;
        if groups == 0 {
            return scramble_octets(state, octets, line);
        }
        let (lead_octets, rest) = octets.split_at((8 * lead).min(octets.len()));
        let (group_octets, tail_octets) = rest.split_at((256 * groups).min(rest.len()));
        let (lead_line, rest_line) = line.split_at_mut(lead.min(line.len()));
        // The group's first serial word: the stream's words before it, less those handed
        // to the sink before this batch (block `g` of the stream starts at bit `66 g`).
        let group = first + lead as u64;
        let word = (33 * group / 32).saturating_sub(66 * self.flushed / 64);
        let Some(words) = usize::try_from(word)
            .ok()
            .and_then(|w| self.words.get_mut(w..w + 33 * groups))
        else {
            return scramble_octets(state, octets, line);
        };
        let state = scramble_octets(state, lead_octets, lead_line);
        let state = pack_groups_best(state, group_octets, words);
        self.holes.push(((group - self.flushed) as usize, groups));
        scramble_octets(
            state,
            tail_octets,
            rest_line.get_mut(32 * groups..).unwrap_or_default(),
        )
    }
}

/// [`pack_groups`], by [`pack_groups_avx2`] where the CPU has AVX2 and BMI2.
#[inline]
fn pack_groups_best(state: u64, octets: &[u8], out: &mut [u64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("bmi2") {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has AVX2 and BMI2, all `pack_groups_avx2` is compiled for.
        return unsafe { pack_groups_avx2(state, octets, out) };
    }
    pack_groups(state, octets, out)
}

/// [`pack_groups`] in two steps: a group's 32 blocks scrambled into a scratch array, then
/// packed into its 33 words by one loop whose per-word shifts the compiler turns into AVX2's
/// per-lane shifts, four words an instruction (where [`pack_groups`] spends about eight scalar
/// instructions a block on packing). Same result as [`pack_groups`] (tested).
///
/// Spec: IEEE 802.3 §49.2.6 (scrambler), §49.2.4 (gearbox).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2")]
fn pack_groups_avx2(state: u64, octets: &[u8], out: &mut [u64]) -> u64 {
    let sync = u64::from(SyncHeader::DATA.to_bits());
    let mut last = state << 6;
    let (groups, _) = octets.as_chunks::<256>();
    let (outs, _) = out.as_chunks_mut::<33>();
    for (g, o) in groups.iter().zip(outs) {
        // `s[k + 1]` is block `k`'s line payload; `s[0]` stays 0 (no bits carried into a
        // group: it starts where a word starts).
        let mut s = [0u64; 33];
        let (pairs, _) = g.as_chunks::<16>();
        let (slots, _) = s.get_mut(1..).unwrap_or_default().as_chunks_mut::<2>();
        for (p, [s0, s1]) in pairs.iter().zip(slots) {
            let (a, b) = p.split_at(8);
            let word = |o: &[u8]| o.try_into().map_or(0, u64::from_le_bytes);
            (*s0, *s1) = scramble_pair(last >> 6, word(a), word(b));
            last = *s1;
        }
        // Block `k` at bit `66 k`: its sync header at `2 k` of word `k`, its payload from
        // `2 k + 2` on, the rest (`2 k + 2` bits) at the start of word `k + 1`.
        #[allow(clippy::needless_range_loop)]
        for k in 0..32 {
            let sh = 2 * k as u32;
            o[k] = s[k + 1].checked_shl(sh + 2).unwrap_or(0)
                | sync << sh
                | s[k].checked_shr(64 - sh).unwrap_or(0);
        }
        o[32] = s[32];
    }
    last >> 6
}

/// Scrambles `octets` (whole groups of 32 data transfers) from the scrambler state `state`
/// and packs the data blocks into `out` (33 serial words a group), as the gearbox packs a
/// group that starts where a word starts: block `m` of a group at bit `66m`, its sync header
/// first. Returns the state after them.
///
/// Spec: IEEE 802.3 §49.2.6 (scrambler), §49.2.4 (gearbox).
#[inline]
fn pack_groups(state: u64, octets: &[u8], out: &mut [u64]) -> u64 {
    let sync = u64::from(SyncHeader::DATA.to_bits());
    let mut last = state << 6;
    for (g, o) in octets.chunks_exact(256).zip(out.chunks_exact_mut(33)) {
        let (Ok(g), Ok(o)) = (<&[u8; 256]>::try_from(g), <&mut [u64; 33]>::try_from(o)) else {
            break;
        };
        let load = |k: usize| {
            g.get(8 * k..8 * k + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        let mut carry = 0u64;
        macro_rules! pair {
            ($($k:literal)*) => {$(
                let (s0, s1) = scramble_pair(last >> 6, load(2 * $k), load(2 * $k + 1));
                last = s1;
                let sh: u32 = 4 * $k;
                o[2 * $k] = carry | sync << sh | s0.checked_shl(sh + 2).unwrap_or(0);
                carry = s0.checked_shr(62 - sh).unwrap_or(0);
                let sh = sh + 2;
                o[2 * $k + 1] = carry | sync << sh | s1.checked_shl(sh + 2).unwrap_or(0);
                carry = s1.checked_shr(62 - sh).unwrap_or(0);
            )*};
        }
        pair!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        o[32] = carry;
    }
    last >> 6
}

impl<S: TxSink> TxChain<S> {
    /// A chain out of reset; sends the leading idles.
    pub fn new(opt: &TxOptions, sink: S) -> Self {
        Self::with_fec(opt, sink, None)
    }

    /// A chain whose serial words go through a FEC (Clause 74 or Clause 108) instead of the
    /// gearbox; the line blocks the sink gets are the PCS's, before the FEC. The stream ends
    /// on a FEC block or codeword boundary: [`TxChain::end`] sends idles to finish the last.
    pub fn with_fec(opt: &TxOptions, sink: S, fec: Option<FecEncoder>) -> Self {
        let forms = sink.forms();
        let mut c = Self {
            mac: MacTx::with_engine(opt.mac),
            pcs: PcsTx::new(opt.profile.encoder(), opt.seed),
            gearbox: TxGearbox::new(),
            forms,
            sink,
            words: vec![XgmiiWord::IDLE; BATCH],
            filled: 0,
            encoded: 0,
            octets: vec![0; mac_core::frame::MAX_FRAME_OCTETS + 16],
            unscrambled: if forms.unscrambled {
                vec![Block::IDLE; BATCH]
            } else {
                Vec::new()
            },
            line: vec![Block::IDLE; BATCH],
            // 66 bits per block: 33 words per 32 blocks, and one more for the bits held.
            serial: if forms.serial {
                vec![0; BATCH * 33 / 32 + 2]
            } else {
                Vec::new()
            },
            holes: Vec::with_capacity(BATCH / 32),
            fuse: forms.serial && !forms.line && fec.is_none(),
            flushed: 0,
            frames: 0,
            error: None,
            idle_fill: None,
            fec,
        };
        c.idle(opt.idle_blocks);
        c
    }

    /// Sends `os` in place of idle columns from the next transfer on (`None`: idles again),
    /// as an RS signalling a link fault does.
    ///
    /// Spec: IEEE 802.3 §46.3.4.
    pub fn set_idle_fill(&mut self, os: Option<OrderedSet>) {
        self.flush();
        self.idle_fill = os;
    }

    /// Sends `n` idle transfers (the MAC pays the gap it owes first).
    pub fn idle(&mut self, mut n: u64) {
        while n > 0 {
            if self.filled == BATCH {
                self.flush();
            }
            let k = (BATCH - self.filled).min(usize::try_from(n).unwrap_or(usize::MAX));
            let end = self.filled + k;
            if let Some(out) = self.words.get_mut(self.filled..end) {
                self.mac.idle(out);
            }
            self.filled = end;
            n -= k as u64;
        }
    }

    /// Sends one frame (without FCS: the MAC pads it and appends the FCS; with `fcs`: sent as
    /// is, no padding). Returns where its `/S/` went.
    ///
    /// # Errors
    /// The frame is too long for the MAC.
    pub fn frame(&mut self, data: &[u8], fcs: Option<[u8; 4]>) -> Result<Placement, TxError> {
        let mut with_fcs = Vec::new();
        let len = match fcs {
            Some(f) => {
                with_fcs.reserve(data.len() + 4);
                with_fcs.extend_from_slice(data);
                with_fcs.extend_from_slice(&f);
                with_fcs.len()
            }
            None => data.len(),
        };
        // The MAC says where the /S/ goes before it writes it (a flush changes nothing there).
        let (word, lane) = self.mac.next_start();
        let need = self.mac.words_needed(len);
        if need > BATCH {
            return Err(TxError::FrameTooLong { len: len + 4 });
        }
        if BATCH - self.filled < need {
            self.flush();
        }
        // A sink that wants no transfers: the frame goes from its octets straight into line
        // blocks, after the transfers before it (in order); a long one, for a sink that takes
        // only serial words, on into serial words (out of line: the short frames' path stays
        // as small as it was).
        let packet = !self.forms.words && !self.forms.unscrambled && self.idle_fill.is_none();
        let n = match fcs {
            Some(_) => {
                let out = self.words.get_mut(self.filled..).unwrap_or_default();
                self.mac.encode_frame_with_fcs(&with_fcs, out)
            }
            None if packet && (data.len() < LONG_RUN_OCTETS || !self.fuse) => {
                self.packet::<false>(data, lane)
            }
            None if packet => self.packet_long(data, lane),
            None => {
                let out = self.words.get_mut(self.filled..).unwrap_or_default();
                self.mac.encode_frame(data, out)
            }
        }
        .map_err(|e| match e {
            EncodeFrameError::FrameTooLong { .. } | EncodeFrameError::BufferTooSmall { .. } => {
                TxError::FrameTooLong {
                    len: len + if fcs.is_some() { 0 } else { 4 },
                }
            }
        })?;
        let placement = Placement {
            block: self.flushed + (self.filled + word) as u64,
            lane: lane as u8,
        };
        self.filled += n;
        self.frames += 1;
        Ok(placement)
    }

    /// A frame as a packet, from the MAC's packet door to the PCS's, after the transfers
    /// before it, its `/S/` in `lane`; with `FUSE`, its data run filling whole groups goes on
    /// into serial words ([`Serial`]). Returns the transfers it took.
    #[inline(always)]
    fn packet<const FUSE: bool>(
        &mut self,
        data: &[u8],
        lane: usize,
    ) -> Result<usize, EncodeFrameError> {
        let (pcs, line, filled) = (&mut self.pcs, &mut self.line, self.filled);
        let (serial, holes, flushed) = (&mut self.serial, &mut self.holes, self.flushed);
        let e = std::mem::replace(&mut self.encoded, filled);
        if e < filled {
            pcs.encode_slice(
                self.words.get(e..filled).unwrap_or_default(),
                line.get_mut(e..filled).unwrap_or_default(),
            );
        }
        // The packet's data blocks 8-aligned in memory (none of their loads splits a cache
        // line): they start `7 - lane` octets in.
        let at = (self.octets.as_ptr() as usize + 7 - lane) % 8;
        let octets = self.octets.get_mut((8 - at) % 8..).unwrap_or_default();
        let sent = self.mac.encode_frame_packet(data, octets, |p, octets| {
            let k = filled.min(line.len());
            let (done, room) = line.split_at_mut(k);
            if !FUSE {
                return pcs.encode_packet(p.idles, p.lane, octets, room).is_some();
            }
            let serial = Serial {
                words: serial,
                holes,
                flushed,
                at: done.len(),
            };
            pcs.encode_packet_with(p.idles, p.lane, octets, room, |before, o, b, s| {
                serial.run(before, o, b, s)
            })
            .is_some()
        });
        match sent {
            Ok(Some(n)) => {
                self.encoded = filled + n;
                Ok(n)
            }
            // The PCS did not take it (the encoder inside a packet of transfers sent as they
            // are): as transfers.
            Ok(None) => {
                let out = self.words.get_mut(filled..).unwrap_or_default();
                self.mac.encode_frame(data, out)
            }
            Err(e) => Err(e),
        }
    }

    /// [`TxChain::packet`] with `FUSE`, for frames long enough to fill a group (kept apart
    /// from the short frames' path).
    #[cold]
    #[inline(never)]
    fn packet_long(&mut self, data: &[u8], lane: usize) -> Result<usize, EncodeFrameError> {
        self.packet::<true>(data, lane)
    }

    /// Sends XGMII transfers as they are (a trace input skips the MAC).
    pub fn words(&mut self, mut words: &[XgmiiWord]) {
        while !words.is_empty() {
            if self.filled == BATCH {
                self.flush();
            }
            let k = (BATCH - self.filled).min(words.len());
            let (now, rest) = words.split_at(k);
            if let Some(out) = self.words.get_mut(self.filled..self.filled + k) {
                out.copy_from_slice(now);
            }
            self.filled += k;
            words = rest;
        }
    }

    /// The sink, for a live model that hands out what it was given.
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    /// Blocks sent so far (handed to the sink or waiting in the batch).
    pub fn blocks(&self) -> u64 {
        self.flushed + self.filled as u64
    }

    /// Takes the transfers sent so far through the PCS (and the gearbox) and hands them to
    /// the sink now. The chain does this by itself when its batch is full; a live model that
    /// hands out one block per clock calls it after every transfer.
    pub fn flush(&mut self) {
        let n = self.filled;
        self.filled = 0;
        if n == 0 {
            return;
        }
        if let Some(os) = self.idle_fill {
            for w in self.words.get_mut(..n).unwrap_or_default() {
                *w = os.fill(*w);
            }
        }
        let encoded = std::mem::take(&mut self.encoded);
        let words = self.words.get(..n).unwrap_or_default();
        let line = self.line.get_mut(..n).unwrap_or_default();
        let unscrambled = if self.forms.unscrambled {
            let blocks = self.unscrambled.get_mut(..n).unwrap_or_default();
            for ((w, l), u) in words.iter().zip(line.iter_mut()).zip(blocks.iter_mut()) {
                let (lb, ev) = self.pcs.step(*w);
                *l = lb;
                *u = ev.block;
            }
            Some(&*blocks)
        } else {
            // (Past what the frames' long data runs encoded already.)
            self.pcs.encode_slice(
                words.get(encoded..).unwrap_or_default(),
                line.get_mut(encoded..).unwrap_or_default(),
            );
            None
        };
        let mut produced = 0;
        if let (true, Some(fec)) = (self.forms.serial, self.fec.as_mut()) {
            // The FEC's words (a FEC block or codeword as its last block arrives).
            produced = fec.push_blocks_over(line, &mut self.serial);
        } else if self.forms.serial {
            // The line blocks between the holes through the gearbox; each hole's words are
            // written already, and the gearbox holds no bits where one starts.
            let mut done = 0;
            let end = (n, 0);
            for &(start, groups) in self.holes.iter().chain(std::iter::once(&end)) {
                let until = start.min(n);
                while done < until {
                    let p = self.gearbox.push_blocks(
                        line.get(done..until).unwrap_or_default(),
                        self.serial.get_mut(produced..).unwrap_or_default(),
                    );
                    if p.consumed == 0 {
                        break;
                    }
                    done += p.consumed;
                    produced += p.produced;
                }
                if groups > 0 && self.gearbox.packed_groups(groups as u64) {
                    produced += 33 * groups;
                    done = start + 32 * groups;
                }
            }
        }
        self.holes.clear();
        if self.error.is_none() {
            let batch = TxBatch {
                first_block: self.flushed,
                words: if self.forms.words { words } else { &[] },
                unscrambled,
                line: if self.fuse { &[] } else { line },
                serial: self.serial.get(..produced).unwrap_or_default(),
            };
            if let Err(e) = self.sink.put(&batch) {
                self.error = Some(e);
            }
        }
        self.flushed += n as u64;
    }

    /// Ends a frame stream: the gap still owed, then two idle transfers (so that the last
    /// terminate is confirmed by the block after it), then [`TxChain::end`].
    ///
    /// # Errors
    /// The sink failed.
    pub fn finish(mut self) -> std::io::Result<(S, TxTotals)> {
        let owed = self.mac.owed_idle_octets().div_ceil(8) as u64;
        self.idle(owed + 2);
        self.end()
    }

    /// The FEC below the PCS, if any (its counts: codewords, markers, stalls).
    pub fn fec(&self) -> Option<&FecEncoder> {
        self.fec.as_ref()
    }

    /// Ends the stream as it is: the last batch and the last partial serial word (with a FEC,
    /// after the idles that finish its last FEC block or codeword).
    ///
    /// # Errors
    /// The sink failed.
    pub fn end(mut self) -> std::io::Result<(S, TxTotals)> {
        self.flush();
        // A FEC writes whole FEC blocks or codewords: idles finish the last one.
        while let Some(pad) = self.fec.as_ref().map(FecEncoder::blocks_to_boundary) {
            if pad == 0 {
                break;
            }
            self.idle(pad as u64);
            self.flush();
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let tail = match (&self.fec, self.forms.serial) {
            (Some(fec), true) => fec.tail(),
            (None, true) => self.gearbox.flush(),
            (_, false) => None,
        };
        self.sink.end(tail)?;
        let totals = TxTotals {
            blocks: self.flushed,
            frames: self.frames,
            fec: self.fec.as_ref().map(|f| FecCounts {
                codewords: f.codewords(),
                markers: f.markers(),
                stalls: f.stalls(),
            }),
        };
        Ok((self.sink, totals))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_ordered_set_fills_idle_transfers_only() {
        // Local fault (Table 46-5): /Q/ 00 00 01 in each column, lane 0 and lane 4 control.
        let lf = OrderedSet {
            signal: false,
            value: 0x00_0001,
        };
        let w = lf.fill(XgmiiWord::IDLE);
        assert_eq!((w.data, w.ctrl), (0x0100_009c_0100_009c, 0x11));
        let sig = OrderedSet {
            signal: true,
            value: 0xab_cdef,
        };
        assert_eq!(sig.fill(XgmiiWord::IDLE).data, 0xefcd_ab5c_efcd_ab5c);
        // A transfer with a /T/ or a /S/ or data keeps its idles.
        for w in [
            XgmiiWord::new(0x0707_0707_0707_07fd, 0xff),
            mac_core::tx::START_LANE4_WORD,
            XgmiiWord::from_data(7),
        ] {
            assert_eq!(lf.fill(w), w);
        }
        // Through the chain: the idles sent after it are ordered sets, and a receiver's
        // descrambler gives the block of two ordered sets (type 0x55, O codes 0).
        let opt = TxOptions {
            idle_blocks: 2,
            ..TxOptions::default()
        };
        let mut c = TxChain::new(&opt, All::default());
        c.set_idle_fill(Some(lf));
        c.idle(3);
        c.flush();
        let sink = c.sink_mut();
        assert_eq!(sink.words.get(..2), Some(&[XgmiiWord::IDLE; 2][..]));
        assert_eq!(sink.words.get(2..), Some(&[w; 3][..]));
        let mut d = pcs_core::Descrambler::new(opt.seed);
        let payloads: Vec<u64> = sink.line.iter().map(|b| d.descramble(b.payload)).collect();
        assert_eq!(payloads[2], 0x0100_0000_0100_0055);
    }

    /// Keeps every form.
    #[derive(Default)]
    struct All {
        unscrambled: bool,
        /// Wants no transfers (long data runs then go straight from the frames' octets).
        no_words: bool,
        /// Wants no line blocks either (long data runs then go on into serial words).
        no_line: bool,
        words: Vec<XgmiiWord>,
        line: Vec<Block>,
        serial: Vec<u64>,
        tail: Option<(u64, u32)>,
        firsts: Vec<u64>,
    }

    impl TxSink for All {
        fn forms(&self) -> TxForms {
            TxForms {
                words: !self.no_words,
                unscrambled: self.unscrambled,
                serial: true,
                line: !self.no_line,
            }
        }
        fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
            if self.no_line {
                assert!(b.line.is_empty());
                assert!(self.firsts.last().is_none_or(|&f| f < b.first_block));
            } else {
                assert_eq!(b.first_block, self.line.len() as u64);
            }
            assert_eq!(b.words.is_empty(), self.no_words || b.line.is_empty());
            assert_eq!(b.unscrambled.is_some(), self.unscrambled);
            self.firsts.push(b.first_block);
            self.words.extend_from_slice(b.words);
            self.line.extend_from_slice(b.line);
            self.serial.extend_from_slice(b.serial);
            Ok(())
        }
        fn end(&mut self, tail: Option<PartialWord<u64>>) -> std::io::Result<()> {
            self.tail = tail.map(|t| (t.word, t.valid_bits));
            Ok(())
        }
    }

    fn run(frames: &[Vec<u8>], unscrambled: bool) -> (All, TxTotals, Vec<Placement>) {
        run_with(
            frames,
            All {
                unscrambled,
                ..All::default()
            },
        )
    }

    fn run_with(frames: &[Vec<u8>], sink: All) -> (All, TxTotals, Vec<Placement>) {
        let mut c = TxChain::new(&TxOptions::default(), sink);
        let places = frames.iter().map(|f| c.frame(f, None).unwrap()).collect();
        let (sink, totals) = c.finish().unwrap();
        (sink, totals, places)
    }

    proptest! {
        /// The batch path (encode_slice, push_blocks) equals the diagram path (step per
        /// transfer) and the one-block gearbox, whatever the frame lengths and batch cuts.
        #[test]
        fn batch_path_equals_the_diagram_path(lens in proptest::collection::vec(0usize..3000, 0..40)) {
            let frames: Vec<Vec<u8>> = lens.iter().enumerate().map(|(i, &l)| vec![i as u8; l]).collect();
            let (fast, ft, fp) = run(&frames, false);
            let (slow, st, sp) = run(&frames, true);
            prop_assert_eq!(ft, st);
            prop_assert_eq!(fp, sp.clone());
            prop_assert_eq!(&fast.words, &slow.words);
            prop_assert_eq!(&fast.line, &slow.line);
            prop_assert_eq!(&fast.serial, &slow.serial);
            prop_assert_eq!(fast.tail, slow.tail);
            // The serial words equal the one-block gearbox's.
            let mut gb = TxGearbox::<u64>::new();
            let mut words: Vec<u64> = Vec::new();
            for b in &slow.line {
                words.extend(gb.push_block(*b).as_slice());
            }
            prop_assert_eq!(&fast.serial, &words);
            prop_assert_eq!(fast.tail, gb.flush().map(|t| (t.word, t.valid_bits)));
            prop_assert_eq!(ft.blocks as usize, fast.line.len());
            prop_assert_eq!(ft.frames as usize, frames.len());
            // No transfers wanted: long data runs straight from the octets, the same line.
            let (only, ot, op) = run_with(&frames, All { no_words: true, ..All::default() });
            prop_assert!(only.words.is_empty());
            prop_assert_eq!(ot, st);
            prop_assert_eq!(op, sp.clone());
            prop_assert_eq!(&only.line, &slow.line);
            prop_assert_eq!(&only.serial, &slow.serial);
            prop_assert_eq!(only.tail, slow.tail);
            // Serial words only: long data runs on into serial words, the same words.
            let serial_only = All { no_words: true, no_line: true, ..All::default() };
            let (serial, st2, sp2) = run_with(&frames, serial_only);
            prop_assert!(serial.line.is_empty());
            prop_assert_eq!(st2, st);
            prop_assert_eq!(sp2, sp);
            prop_assert_eq!(&serial.serial, &slow.serial);
            prop_assert_eq!(serial.tail, slow.tail);
        }
    }

    proptest! {
        /// Frames through the packet doors (a sink that wants no transfers) give the line,
        /// the serial words and the placements of the diagram path, whatever the gap, the
        /// deficit idle count, the start lanes and the padding, with idles between frames;
        /// after raw transfers that leave the encoder inside a packet, the PCS refuses the
        /// packet and the frame goes as transfers.
        #[test]
        fn packets_from_octets_equal_the_diagram_path(
            frames in proptest::collection::vec((0usize..1600, 0u64..3, 0u8..8), 1..24),
            ifg in 5u16..20,
            dic in 0usize..3,
            lane4: bool,
            padding: bool,
        ) {
            use mac_core::tx::{DicMode, StartLanes};
            let opt = TxOptions {
                mac: TxConfig {
                    ifg_octets: ifg,
                    dic: [DicMode::Off, DicMode::Strict, DicMode::ResetOnIdle][dic],
                    padding: if padding { mac_core::frame::Padding::default() } else { mac_core::frame::Padding::Off },
                    start_lanes: if lane4 { StartLanes::Lane4 } else { StartLanes::Both },
                },
                idle_blocks: 3,
                ..TxOptions::default()
            };
            let mut slow = TxChain::new(&opt, All { unscrambled: true, ..All::default() });
            let mut fast = TxChain::new(&opt, All { no_words: true, ..All::default() });
            let serial_only = All { no_words: true, no_line: true, ..All::default() };
            let mut serial = TxChain::new(&opt, serial_only);
            let (mut by_packet, mut inside) = (0, false);
            for (i, &(len, gap, raw)) in frames.iter().enumerate() {
                let f: Vec<u8> = (0..len).map(|k| (k + i) as u8).collect();
                if raw == 0 {
                    // A start and a data transfer, as they are: the encoder is in TX_D.
                    let w = [mac_core::tx::START_LANE0_WORD, XgmiiWord::from_data(0x1234)];
                    slow.words(&w);
                    fast.words(&w);
                    serial.words(&w);
                    inside = true;
                }
                let place = slow.frame(&f, None).unwrap();
                prop_assert_eq!(place, fast.frame(&f, None).unwrap());
                prop_assert_eq!(place, serial.frame(&f, None).unwrap());
                // The packet door took it, unless the encoder was inside a packet.
                prop_assert_eq!(fast.encoded == fast.filled, !inside);
                by_packet += usize::from(!inside);
                inside = false;
                slow.idle(gap);
                fast.idle(gap);
                serial.idle(gap);
            }
            let (slow, st) = slow.finish().unwrap();
            let (fast, ft) = fast.finish().unwrap();
            let (serial, s2) = serial.finish().unwrap();
            prop_assert_eq!(st, s2);
            prop_assert!(serial.line.is_empty());
            prop_assert_eq!(&serial.serial, &slow.serial);
            prop_assert_eq!(serial.tail, slow.tail);
            prop_assert_eq!(st, ft);
            prop_assert!(fast.words.is_empty());
            prop_assert_eq!(&fast.line, &slow.line);
            prop_assert_eq!(&fast.serial, &slow.serial);
            prop_assert_eq!(fast.tail, slow.tail);
            prop_assert!(by_packet > 0 || frames.iter().all(|f| f.2 == 0));
        }
    }

    proptest! {
        /// The packer the chain uses on this CPU (AVX2's where it has it) equals the scalar
        /// one, for every scrambler state and up to three groups.
        #[test]
        fn the_best_group_packer_equals_the_scalar_one(
            state in any::<u64>(),
            octets in proptest::collection::vec(any::<u8>(), 0..800),
        ) {
            let state = state & pcs_core::SCRAMBLER_STATE_MASK;
            let groups = octets.len() / 256;
            let (mut a, mut b) = (vec![0u64; 33 * groups], vec![0u64; 33 * groups]);
            let sa = pack_groups(state, &octets, &mut a);
            let sb = pack_groups_best(state, &octets, &mut b);
            prop_assert_eq!(sa, sb);
            prop_assert_eq!(a, b);
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn this_machine_takes_the_avx2_packer() {
        // So that the test above compares two different packers here (CI's machine).
        assert!(std::arch::is_x86_feature_detected!("avx2"));
        assert!(std::arch::is_x86_feature_detected!("bmi2"));
    }

    #[test]
    fn a_long_data_run_goes_straight_into_serial_words_in_whole_groups() {
        // Frames of every length from 250 to 1,100 octets, one after the other: their runs
        // start at every place of a group; those that fill a whole group leave a hole in the
        // line blocks, which the gearbox passes over, and the words are those of the
        // one-block gearbox over the diagram path's line blocks.
        let frames: Vec<Vec<u8>> = (250..1100)
            .map(|l| (0..l).map(|k| (k * 7 + l) as u8).collect())
            .collect();
        let serial_only = All {
            no_words: true,
            no_line: true,
            ..All::default()
        };
        let mut c = TxChain::new(&TxOptions::default(), serial_only);
        let (mut holes, mut groups) = (0, 0);
        for f in &frames {
            let before = c.holes.len();
            c.frame(f, None).unwrap();
            if let Some(&(_, g)) = c.holes.get(before) {
                holes += 1;
                groups += g;
            }
        }
        let (fast, _) = c.finish().unwrap();
        let (slow, _, _) = run(&frames, true);
        let mut gb = TxGearbox::<u64>::new();
        let mut words: Vec<u64> = Vec::new();
        for b in &slow.line {
            words.extend(gb.push_block(*b).as_slice());
        }
        assert_eq!(fast.serial, words);
        assert_eq!(fast.tail, gb.flush().map(|t| (t.word, t.valid_bits)));
        // A frame of 250 octets fills no group; from about 530 on, every frame fills one.
        assert!(holes > 500, "{holes} runs went into serial words");
        assert!(groups >= holes);
    }

    #[test]
    fn placements_point_at_the_start_and_a_too_long_frame_is_refused() {
        let frames = vec![vec![1u8; 60]; 3];
        let (sink, totals, places) = run(&frames, true);
        assert_eq!(totals.frames, 3);
        for p in &places {
            let w = sink.words[p.block as usize];
            assert!(w.is_control(p.lane.into()));
            assert_eq!(w.octet(p.lane.into()), ControlChar::START.0);
        }
        // 128 idles first: the first /S/ is in transfer 128, lane 0.
        assert_eq!(
            places[0],
            Placement {
                block: 128,
                lane: 0
            }
        );
        let mut c = TxChain::new(&TxOptions::default(), VecSink::default());
        let e = c.frame(&vec![0; 20_000], None).unwrap_err();
        assert_eq!(e, TxError::FrameTooLong { len: 20_004 });
    }
}
