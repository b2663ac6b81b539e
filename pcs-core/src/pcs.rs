//! The whole PCS in each direction, composed from the stages:
//!
//! ```text
//! PcsTx: XgmiiWord -> Encoder (TX state machine) -> Scrambler -> line Block
//! PcsRx: line Block + block_lock -> BerMonitor (hi_ber)
//!                                -> Descrambler -> Decoder (RX state machine) -> XgmiiWord
//!                                -> PcsStatus (MDIO 3.32/3.33 counters)
//! ```
//!
//! Block lock works on the bit stream in front of `PcsRx` ([`crate::align::BlockAligner`]);
//! a source that already knows the block boundaries passes `block_lock = true`.
//!
//! Spec: IEEE 802.3 §49.2 (PCS functions), Figure 49-5 (functional block diagram).

use crate::ber::{BerConfig, BerMonitor, BerStep, LockLossReset};
use crate::block::{
    block_class, decode_idle_start, idle_terminate_lane, Block, BlockClass, SyncHeader,
};
use crate::decode::{quick_arrow, Decoder, DecoderConfig, LookAhead, RxEvent, RxLink, RxState};
use crate::encode::{start_block, terminate_block, Encoder, EncoderConfig, TxEvent, TxState};
use crate::fused::{scramble_octets, scramble_pair};
use crate::scramble::{descramble_payload, Descrambler, Scrambler};
use crate::status::{HighOrderCounters, PcsBlockEvents, PcsStatus};
use crate::xgmii::{load_le, ControlChar, Lane, XgmiiWord};

/// The transmit PCS: encoder and scrambler.
///
/// Spec: IEEE 802.3 §49.2.5, §49.2.6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PcsTx {
    /// The encoder and its state machine.
    pub encoder: Encoder,
    /// The scrambler.
    pub scrambler: Scrambler,
}

impl PcsTx {
    /// A transmit PCS out of reset with the scrambler in `scrambler_state`.
    #[must_use]
    pub const fn new(config: EncoderConfig, scrambler_state: u64) -> Self {
        Self {
            encoder: Encoder::new(config),
            scrambler: Scrambler::new(scrambler_state),
        }
    }

    /// One transfer in, one line block out; also the unscrambled block and the arrow taken.
    ///
    /// Spec: IEEE 802.3 §49.2.5, §49.2.6.
    #[inline]
    pub fn step(&mut self, word: XgmiiWord) -> (Block, TxEvent) {
        let ev = self.encoder.step(word);
        let line = Block {
            sync: ev.block.sync,
            payload: self.scrambler.scramble(ev.block.payload),
        };
        (line, ev)
    }

    /// Encodes and scrambles `words` into `line`, pairwise; returns how many.
    ///
    /// Spec: IEEE 802.3 §49.2.5, §49.2.6.
    pub fn encode_slice(&mut self, words: &[XgmiiWord], line: &mut [Block]) -> usize {
        let n = words.len().min(line.len());
        let (words, line) = (
            words.get(..n).unwrap_or_default(),
            line.get_mut(..n).unwrap_or_default(),
        );
        // One pass, two blocks at a time: the encoder's work overlaps the scrambler's
        // dependency chain, which is half as long per block for a pair.
        let mut i = 0;
        while let (Some([w0, w1]), Some([l0, l1])) = (words.get(i..i + 2), line.get_mut(i..i + 2)) {
            if self.encoder.state() == TxState::Data && (w0.ctrl | w1.ctrl) == 0 {
                // Inside a packet: TX_D --D--> TX_D for as long as pairs of data last.
                i += self.scramble_data_pairs(
                    words.get(i..).unwrap_or_default(),
                    line.get_mut(i..).unwrap_or_default(),
                );
                continue;
            }
            let (b0, b1) = (self.encoder.step_fast(*w0), self.encoder.step_fast(*w1));
            let (s0, s1) = self.scrambler.scramble_pair(b0.payload, b1.payload);
            *l0 = Block {
                sync: b0.sync,
                payload: s0,
            };
            *l1 = Block {
                sync: b1.sync,
                payload: s1,
            };
            i += 2;
        }
        if let (Some(w), Some(l)) = (words.get(i), line.get_mut(i)) {
            let block = self.encoder.step_fast(*w);
            *l = Block {
                sync: block.sync,
                payload: self.scrambler.scramble(block.payload),
            };
        }
        n
    }

    /// Encodes and scrambles `idles` idle transfers and then a whole packet straight from its
    /// octets: `/S/` in `lane` (0; or 4, after four idles), `octets`, a `/T/` right after
    /// them, and idles to the end of that transfer. The line blocks, and the state after, are
    /// those [`PcsTx::encode_slice`] gives for these transfers (the arrows --C--> TX_C for the
    /// idles, --S--> TX_D, TX_D --D--> TX_D, TX_D --T--> TX_T; none is an error). Returns the
    /// blocks written (`idles` and the packet's), or `None`, with nothing written or changed,
    /// unless the encoder is in `TX_INIT`, `TX_C` or `TX_T`, `lane` is 0 or 4, the `/T/` goes
    /// in a later transfer than the `/S/` (at least `7 - lane` octets), and `line` has room.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2 (transmit state diagram), §49.2.4.3 (Figure 49-7), §49.2.6.
    #[inline(always)]
    pub fn encode_packet(
        &mut self,
        idles: usize,
        lane: usize,
        octets: &[u8],
        line: &mut [Block],
    ) -> Option<usize> {
        self.encode_packet_with(idles, lane, octets, line, |_, octets, blocks, state| {
            scramble_octets(state, octets, blocks)
        })
    }

    /// [`PcsTx::encode_packet`], with the packet's data blocks scrambled by `run`: it gets the
    /// line blocks of the packet before them (the idles and the start), the data octets (whole
    /// transfers), the line blocks to write them to (as many as the transfers), and the
    /// scrambler's state; it returns the scrambler's state after them. A composition that
    /// takes the blocks further (to the gearbox) in the same pass plugs in here; what it
    /// writes must be what [`scramble_octets`] writes, where it writes line blocks at all.
    ///
    /// Spec: as [`PcsTx::encode_packet`].
    #[inline(always)]
    pub fn encode_packet_with(
        &mut self,
        idles: usize,
        lane: usize,
        octets: &[u8],
        line: &mut [Block],
        run: impl FnOnce(&[Block], &[u8], &mut [Block], u64) -> u64,
    ) -> Option<usize> {
        if lane != 0 && lane != 4 {
            return None;
        }
        // The octets in the start's transfer, the whole data transfers, and the octets in the
        // terminate's transfer.
        let (_, body) = octets.split_at_checked(7 - lane)?;
        let data = body.chunks_exact(8);
        let last = data.remainder();
        let blocks = idles.checked_add(data.len() + 2)?;
        let out = line.get_mut(..blocks)?;
        if !self.encoder.takes_packet() {
            return None;
        }
        let (start, rest) = out.split_at_mut(idles + 1);
        let (end, middle) = rest.split_last_mut()?;
        // The idles and the start, then the data blocks straight from the octets, then the
        // terminate.
        if let Some((s, before)) = start.split_last_mut() {
            before.fill(Block::IDLE);
            // (The start block takes the octets it holds and ignores those above.)
            *s = start_block(lane, load_le(octets));
        }
        for b in start.iter_mut() {
            b.payload = self.scrambler.scramble(b.payload);
        }
        let whole = body.get(..body.len() - last.len()).unwrap_or_default();
        self.scrambler = Scrambler::new(run(start, whole, middle, self.scrambler.state()));
        // The terminate's octets: the packet's last eight shifted down (one load), or, in
        // a packet of fewer than eight octets, those of its transfer.
        let k = last.len() as u32;
        let tail = match octets.last_chunk::<8>() {
            Some(l) => u64::from_le_bytes(*l).checked_shr(64 - 8 * k).unwrap_or(0),
            None => load_le(last),
        };
        let t = terminate_block(k, tail);
        *end = Block {
            sync: t.sync,
            payload: self.scrambler.scramble(t.payload),
        };
        self.encoder.packet_sent();
        Some(blocks)
    }

    /// The encoder in TX_D: scrambles pairs of data transfers into data blocks, the
    /// scrambler's state in a register, up to the first pair that holds a control character.
    /// Returns how many transfers it took (even; the encoder stays in TX_D).
    ///
    /// Spec: IEEE 802.3 §49.2.5 (TX_D --D--> TX_D), §49.2.6.
    #[inline]
    fn scramble_data_pairs(&mut self, words: &[XgmiiWord], line: &mut [Block]) -> usize {
        // The last line payload rather than the state (`last >> 6`): the shift then overlaps
        // the next pair's work instead of lengthening the chain from pair to pair.
        let mut last = self.scrambler.state() << 6;
        let mut taken = 0;
        for (w, l) in words.chunks_exact(2).zip(line.chunks_exact_mut(2)) {
            let ([w0, w1], [l0, l1]) = (w, l) else {
                break;
            };
            if (w0.ctrl | w1.ctrl) != 0 {
                break;
            }
            let (s0, s1) = scramble_pair(last >> 6, w0.data, w1.data);
            *l0 = Block::data(s0);
            *l1 = Block::data(s1);
            last = s1;
            taken += 2;
        }
        self.scrambler = Scrambler::new(last >> 6);
        taken
    }
}

/// Settings of the receive PCS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PcsRxConfig {
    /// Decoder knobs.
    pub decoder: DecoderConfig,
    /// BER monitor window and threshold.
    pub ber: BerConfig,
    /// BER monitor behaviour on loss of lock.
    pub ber_lock_loss: LockLossReset,
    /// Descrambler state before the first block.
    pub descrambler_state: u64,
}

impl Default for PcsRxConfig {
    fn default() -> Self {
        Self {
            decoder: DecoderConfig::default(),
            ber: BerConfig::TEN_GBASE_R,
            ber_lock_loss: LockLossReset::ResetMonitor,
            descrambler_state: crate::scramble::SCRAMBLER_DEFAULT_STATE,
        }
    }
}

/// What the receive PCS did with one block: the decoder's event for the block before it
/// (one block of latency) and the BER monitor's verdict on this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PcsRxStep {
    /// The decoder's event for the previous block, if there was one.
    pub rx: Option<RxEvent>,
    /// The BER monitor entered `BER_BAD_SH` on this block's header.
    pub ber_bad_sh: bool,
    /// `hi_ber` after this block.
    pub hi_ber: bool,
    /// The descrambled block.
    pub block: Block,
}

/// What [`PcsRx::decode_slice`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SliceDecoded {
    /// Blocks consumed.
    pub consumed: usize,
    /// Transfers written.
    pub written: usize,
    /// Of the transfers written, those the receive state diagram decided in full. The others
    /// came from its short arrows for idles, starts, terminates and data, none of which holds
    /// a sequence ordered set (`/Q/`, 0x9C) or an error character: when this is 0, a link
    /// fault monitor may pass over the transfers without reading them.
    pub by_diagram: usize,
    /// It stopped in front of a long run of data blocks inside a packet, as
    /// [`Stops::ForOctets`] asked: [`PcsRx::decode_data_run`] takes the run.
    pub at_long_run: bool,
    /// It stopped with a start block pending between packets, as [`Stops::ForOctets`] asked:
    /// [`PcsRx::decode_packet`] takes the packet.
    pub at_packet: bool,
}

/// Whether `line` starts with a long run of data blocks, as far as a look at every other
/// header of the first [`LONG_RUN`] tells: packets are at least two blocks apart (a terminate
/// and a start), so a gap between packets shows. (A lone control block inside a packet may
/// pass unseen; the run then ends there.)
#[inline]
fn long_run(line: &[Block]) -> bool {
    let Some(head) = line.first_chunk::<LONG_RUN>() else {
        return false;
    };
    [0, 1, 3, 5, 7, 9, 11, 13, 15]
        .iter()
        .all(|&i| head.get(i).is_some_and(|b| b.sync == SyncHeader::DATA))
}

/// Whether `block` is a start block of the short arrows' kind (`/S/` in lane 0, or in lane 4):
/// where [`Stops::ForOctets`] stops between packets.
#[inline]
fn is_start(block: Block) -> bool {
    block.sync == SyncHeader::CONTROL && matches!(block.payload as u8, 0x78 | 0x33)
}

/// A packet [`PcsRx::decode_packet`] decoded straight into octets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecodedPacket {
    /// The lane of its `/S/`: 0, or 4 after four idles.
    pub start_lane: u8,
    /// The seven data octets after the `/S/` (a frame's preamble and SFD), the first in bits
    /// 7..0.
    pub lead: u64,
    /// The data octets after those, up to the `/T/`, written at the start of the room.
    pub octets: usize,
    /// The transfers decided, one per block taken: the start's, the data transfers, and,
    /// when it `ended`, the terminate's and the idles after it.
    pub transfers: usize,
    /// The terminate was taken: the packet ended.
    pub ended: bool,
}

/// The loop of a run of data blocks in `RX_D` (`RX_D --D--> RX_D`: a data block's transfer is
/// its data, whatever follows): writes `first`, then the descrambled payload of each leading
/// data block of `line` but the last, into `out`, 8 octets each (lane 0 first); as many
/// blocks as `out` has room for (one transfer each). Returns the blocks taken and the last
/// one's payload, not written (`first` when none is taken); `line_state`, the descrambler's
/// state, is moved on.
///
/// Two forms with the same result. A run that reaches its eighth block is first measured,
/// then descrambled in a loop with no test in it, which the compiler vectorises (block i's
/// payload depends only on the line bits of blocks i-1 and i). A shorter one, the end of a
/// short frame, goes block by block with each header tested in the turn. (Measured against
/// the short form alone, in instructions per block of the RX chain: uniform mix 43.28 ->
/// 40.01, 1518 octets 41.01 -> 37.20, 64 octets 85.00 -> 85.89; CPU time 0.86 to 0.92, 0.91
/// and 0.99. The long form for all runs: 89.88 at 64 octets.)
#[inline(always)]
fn data_run(first: u64, line: &[Block], line_state: &mut u64, out: &mut [u8]) -> (usize, u64) {
    if line.get(7).is_some_and(|b| b.sync == SyncHeader::DATA) {
        data_run_long(first, line, line_state, out)
    } else {
        data_run_short(first, line, line_state, out)
    }
}

/// [`data_run`] for a long run: the run is found first (four headers tested a turn), then
/// descrambled without a test. (Cold and never inlined, so that the short form's code in
/// its callers stays as it was: inlined, 86.68 instructions per block at 64 octets.)
#[cold]
#[inline(never)]
fn data_run_long(first: u64, line: &[Block], line_state: &mut u64, out: &mut [u8]) -> (usize, u64) {
    let n = line.len().min(out.len() / 8);
    let run = line.get(..n).unwrap_or_default();
    let mut m = 0;
    for c in run.chunks_exact(4) {
        if let [a, b, c, d] = c {
            if a.sync != SyncHeader::DATA
                || b.sync != SyncHeader::DATA
                || c.sync != SyncHeader::DATA
                || d.sync != SyncHeader::DATA
            {
                break;
            }
        }
        m += 4;
    }
    // (The group that ended the turns holds at most three more.)
    for b in run.get(m..).unwrap_or_default().iter().take(3) {
        if b.sync != SyncHeader::DATA {
            break;
        }
        m += 1;
    }
    // Written: `first`, then blocks 0..m-1 but the last; that one is returned.
    let (Some(run), Some(dst)) = (run.get(..m), out.get_mut(..8 * m)) else {
        return (0, first);
    };
    let (Some((last, _)), Some((head, rest))) =
        (run.split_last(), dst.split_first_chunk_mut::<8>())
    else {
        return (0, first);
    };
    *head = first.to_le_bytes();
    if let (Some(b), Some(slot)) = (run.first(), rest.first_chunk_mut::<8>()) {
        *slot = descramble_payload(*line_state, b.payload).to_le_bytes();
    }
    for (slot, w) in rest.chunks_exact_mut(8).skip(1).zip(run.windows(2)) {
        if let ([a, b], Some(slot)) = (w, slot.first_chunk_mut::<8>()) {
            *slot = descramble_payload(a.payload >> 6, b.payload).to_le_bytes();
        }
    }
    let state = match run.len().checked_sub(2).and_then(|i| run.get(i)) {
        Some(before) => before.payload >> 6,
        None => *line_state,
    };
    *line_state = last.payload >> 6;
    (m, descramble_payload(state, last.payload))
}

/// [`data_run`] for a short run: four blocks a turn, each one's header tested in the turn.
#[inline(always)]
fn data_run_short(
    first: u64,
    line: &[Block],
    line_state: &mut u64,
    out: &mut [u8],
) -> (usize, u64) {
    let (mut pending, mut state, mut k) = (first, *line_state, 0);
    while let (Some([a, b, c, d]), Some(dst)) = (line.get(k..k + 4), out.get_mut(8 * k..8 * k + 32))
    {
        if a.sync != SyncHeader::DATA
            || b.sync != SyncHeader::DATA
            || c.sync != SyncHeader::DATA
            || d.sync != SyncHeader::DATA
        {
            break;
        }
        let pair = |x: u64, y: u64| (u128::from(y) << 64 | u128::from(x)).to_le_bytes();
        let x0 = pair(pending, descramble_payload(state, a.payload));
        let x1 = pair(
            descramble_payload(a.payload >> 6, b.payload),
            descramble_payload(b.payload >> 6, c.payload),
        );
        if let Some((h, t)) = dst.split_first_chunk_mut::<16>() {
            *h = x0;
            if let Some(t) = t.first_chunk_mut::<16>() {
                *t = x1;
            }
        }
        pending = descramble_payload(c.payload >> 6, d.payload);
        state = d.payload >> 6;
        k += 4;
    }
    // (The blocks there is room for: the bounds below are then known to hold.)
    let n = line.len().min(out.len() / 8);
    while k < n {
        let (Some(b), Some(dst)) = (line.get(k), out.get_mut(8 * k..8 * k + 8)) else {
            break;
        };
        if b.sync != SyncHeader::DATA {
            break;
        }
        if let Some(dst) = dst.first_chunk_mut::<8>() {
            *dst = pending.to_le_bytes();
        }
        pending = descramble_payload(state, b.payload);
        state = b.payload >> 6;
        k += 1;
    }
    *line_state = state;
    (k, pending)
}

impl DecodedPacket {
    /// Transfer `i` of those the packet stands for (0: the start's), from the octets
    /// [`PcsRx::decode_packet`] wrote: lane by lane, the idles before a `/S/` in lane 4, the
    /// `/S/`, the seven octets after it, the data octets, then, when it ended, the `/T/` and
    /// idles. `None` past the last (or when `octets` is short of the data octets).
    ///
    /// Spec: IEEE 802.3 §46.2 (XGMII lanes), §46.3.
    #[must_use]
    pub fn transfer(&self, octets: &[u8], i: usize) -> Option<XgmiiWord> {
        if i >= self.transfers {
            return None;
        }
        let (s, lead) = (usize::from(self.start_lane), self.lead.to_le_bytes());
        let mut lanes = [Lane::Control(ControlChar::IDLE); 8];
        for (l, lane) in lanes.iter_mut().enumerate() {
            // Lanes counted from lane 0 of the start's transfer.
            let q = 8 * i + l;
            let data = q.checked_sub(s + 8);
            // (Before the /S/ both are `None`: an idle, as after the /T/.)
            *lane = match (q.checked_sub(s + 1), data) {
                _ if q == s => Lane::Control(ControlChar::START),
                (Some(k), None) => Lane::Data(*lead.get(k)?),
                (_, Some(j)) if j < self.octets => Lane::Data(*octets.get(j)?),
                (_, Some(j)) if j == self.octets && self.ended => {
                    Lane::Control(ControlChar::TERMINATE)
                }
                _ => Lane::Control(ControlChar::IDLE),
            };
        }
        Some(XgmiiWord::from_lanes(lanes))
    }
}

/// Where [`PcsRx::decode_slice`] stops before the end of the blocks, for a receiver that
/// takes a frame's data straight as octets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Stops {
    /// Nowhere: every block is decoded into transfers.
    Never,
    /// In front of a long run of data blocks inside a packet, for
    /// [`PcsRx::decode_data_run`] ([`SliceDecoded::at_long_run`]), and with a start block
    /// left pending between packets, for [`PcsRx::decode_packet`]
    /// ([`SliceDecoded::at_packet`]).
    ForOctets,
}

/// Data blocks that must follow a data block pending in `RX_D` (the 16th at least) for
/// [`Stops::ForOctets`] to stop: a shorter run is cheaper as transfers.
pub const LONG_RUN: usize = 16;
// (`long_run` looks at headers 0, 1, 3, ..., 15.)
const _: () = assert!(LONG_RUN == 16);

/// The receive PCS after block lock: BER monitor, descrambler, decoder and status registers.
///
/// Spec: IEEE 802.3 §49.2.10, §49.2.11, §49.2.13, §49.2.14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PcsRx {
    /// The BER monitor.
    pub ber: BerMonitor,
    /// The descrambler.
    pub descrambler: Descrambler,
    /// The decoder and its state machine.
    pub decoder: Decoder,
    /// MDIO status bits and counters.
    pub status: PcsStatus,
    block_lock: bool,
}

impl PcsRx {
    /// A receive PCS out of reset.
    #[must_use]
    pub const fn new(config: PcsRxConfig) -> Self {
        Self {
            ber: BerMonitor::new(config.ber, config.ber_lock_loss),
            descrambler: Descrambler::new(config.descrambler_state),
            decoder: Decoder::new(config.decoder),
            status: PcsStatus::new(HighOrderCounters::Present),
            block_lock: false,
        }
    }

    /// Receives one line block with the lock status its header produced.
    ///
    /// Spec: IEEE 802.3 §49.2.10, §49.2.13.
    pub fn push(&mut self, line: Block, block_lock: bool) -> PcsRxStep {
        let block = Block {
            sync: line.sync,
            payload: self.descrambler.descramble(line.payload),
        };
        self.push_descrambled(block, block_lock)
    }

    /// Receives one block that is already descrambled (a stream dumped before the
    /// scrambler); the descrambler is bypassed.
    ///
    /// Spec: IEEE 802.3 §49.2.13.
    pub fn push_descrambled(&mut self, block: Block, block_lock: bool) -> PcsRxStep {
        let (ber, link) = self.monitor(block, block_lock);
        let rx = self.decoder.push(block, link);
        self.book(ber, block_lock, rx.is_some_and(|e| e.is_errored()));
        PcsRxStep {
            rx,
            ber_bad_sh: ber.ber_bad_sh,
            hi_ber: ber.hi_ber,
            block,
        }
    }

    /// As [`PcsRx::push`] for [`PcsRx::decode_slice`]'s per-block fallback: only the transfer
    /// decided (the decoder's one block of latency as in `push`), with the same counters and
    /// status.
    ///
    /// Spec: IEEE 802.3 §49.2.10, §49.2.13.
    #[inline]
    pub(crate) fn push_word(&mut self, line: Block, block_lock: bool) -> Option<XgmiiWord> {
        let block = Block {
            sync: line.sync,
            payload: self.descrambler.descramble(line.payload),
        };
        let (ber, link) = self.monitor(block, block_lock);
        let rx = self.decoder.push_word(block, link);
        self.book(ber, block_lock, rx.is_some_and(|(_, e)| e));
        rx.map(|(w, _)| w)
    }

    /// The BER monitor's step on this block's header, and the link it gives the decoder.
    #[inline]
    fn monitor(&mut self, block: Block, block_lock: bool) -> (BerStep, RxLink) {
        self.block_lock = block_lock;
        let ber = self.ber.step(block.sync, block_lock);
        let link = RxLink {
            block_lock,
            hi_ber: ber.hi_ber,
        };
        (ber, link)
    }

    /// Books one block in the status registers.
    #[inline]
    fn book(&mut self, ber: BerStep, block_lock: bool, errored_block: bool) {
        self.status.update(PcsBlockEvents {
            block_lock,
            hi_ber: ber.hi_ber,
            ber_bad_sh: ber.ber_bad_sh,
            errored_block,
        });
    }

    /// Decides the last pending block (end of stream).
    ///
    /// Spec: IEEE 802.3 §49.2.13.
    pub fn flush(&mut self) -> Option<RxEvent> {
        let rx = self.decoder.flush();
        if let Some(e) = rx {
            self.status.update(PcsBlockEvents {
                block_lock: self.block_lock,
                hi_ber: self.ber.hi_ber(),
                ber_bad_sh: false,
                errored_block: e.is_errored(),
            });
        }
        rx
    }

    /// Receives `line` blocks (all with the same lock status) and writes the transfers
    /// decided into `words`; returns the blocks consumed and the transfers written. Stops
    /// when `words` is full, and where `stops` asks: in front of a long run of data blocks
    /// inside a packet, and with a start block pending between packets.
    ///
    /// Spec: IEEE 802.3 §49.2.10, §49.2.13.
    pub fn decode_slice(
        &mut self,
        line: &[Block],
        block_lock: bool,
        words: &mut [XgmiiWord],
        stops: Stops,
    ) -> SliceDecoded {
        let mut d = SliceDecoded::default();
        while d.consumed < line.len() {
            let room = words.len().saturating_sub(d.written) as u64;
            // The steady state: locked, not hi_ber, the BER monitor waiting mid-window. A block
            // with a valid header then only lets the BER timer run (BER_TEST_SH --sh_valid-->
            // BER_TEST_SH), and the status registers only see errored blocks.
            let steady = if block_lock && !self.ber.hi_ber() {
                self.ber.steady_headers().min(room)
            } else {
                0
            };
            if steady > 0 {
                self.book_steady(false);
                let rest = line.get(d.consumed..).unwrap_or_default();
                let window = rest.get(..steady as usize).unwrap_or(rest);
                let before = d.consumed;
                self.decode_steady(window, words, &mut d, stops);
                let k = d.consumed - before;
                if k > 0 {
                    self.ber.take_valid_headers(k as u64);
                    if d.at_long_run || d.at_packet {
                        break;
                    }
                    continue;
                }
            } else if self.decoder.has_pending() && d.written >= words.len() {
                break;
            }
            // One block the general way: off the steady state, an invalid header, or nothing
            // pending from the link up.
            let Some(&b) = line.get(d.consumed) else {
                break;
            };
            if let Some(word) = self.push_word(b, block_lock) {
                if let Some(slot) = words.get_mut(d.written) {
                    *slot = word;
                }
                d.written += 1;
                d.by_diagram += 1;
            }
            d.consumed += 1;
        }
        d
    }

    /// Books a block received in the steady state (locked, not hi_ber, no BER_BAD_SH).
    #[inline]
    fn book_steady(&mut self, errored_block: bool) {
        self.block_lock = true;
        self.status.update(PcsBlockEvents {
            block_lock: true,
            hi_ber: false,
            ber_bad_sh: false,
            errored_block,
        });
    }

    /// Descrambles and decodes the blocks of `window` up to the first invalid header, all in
    /// the BER monitor's steady state (which the caller advances), with the link up: runs of
    /// data blocks inside a packet in a tight loop (`RX_D --D--> RX_D`; in front of a long one
    /// it stops, if `stops` asks), the blocks around them through the decoder's short
    /// paths ([`quick_arrow`]; when one leaves a start block pending in `RX_C` or `RX_T`, it
    /// stops, if `stops` asks), anything else through the diagram. The descrambler state, the
    /// decoder's state and its pending block stay in registers. Adds to `d` the blocks taken
    /// and the transfers written (at `words[d.written..]`, which has room for every block);
    /// takes nothing when no block is pending from the link up.
    fn decode_steady(
        &mut self,
        window: &[Block],
        words: &mut [XgmiiWord],
        d: &mut SliceDecoded,
        stops: Stops,
    ) {
        let (mut consumed, mut written) = (0, d.written);
        let look_ahead = self.decoder.config().look_ahead;
        // Descrambling needs only the line bits before each block: the state is the previous
        // line payload shifted.
        let mut line_state = self.descrambler.state();
        // Nothing pending (the stream's first block), or a block from before the link came up:
        // the caller decides it the general way.
        let Some((mut state, mut pending)) = self.decoder.up_pending() else {
            return;
        };
        while let Some((&b, slot)) = window.get(consumed).zip(words.get_mut(written)) {
            if !b.sync.is_valid() {
                break;
            }
            let block = Block {
                sync: b.sync,
                payload: descramble_payload(line_state, b.payload),
            };
            line_state = b.payload >> 6;
            consumed += 1;
            let Some((word, to)) = quick_arrow(state, pending, block, look_ahead) else {
                self.decoder.set_up_pending(state, pending);
                if let Some((word, errored)) = self.decoder.push_word_by_diagram(block, RxLink::UP)
                {
                    *slot = word;
                    written += 1;
                    d.by_diagram += 1;
                    if errored {
                        self.book_steady(true);
                    }
                }
                // The diagram left this block pending, received with the link up.
                match self.decoder.up_pending() {
                    Some((s, p)) => (state, pending) = (s, p),
                    None => return self.steady_done(d, line_state, consumed, written),
                }
                continue;
            };
            *slot = word;
            written += 1;
            state = to;
            pending = block;
            // A start between packets: the packet may go straight to octets.
            if stops == Stops::ForOctets
                && matches!(state, RxState::Control | RxState::Terminate)
                && is_start(pending)
            {
                d.at_packet = true;
                break;
            }
            // A run of data blocks inside a packet: in RX_D, a pending data block's transfer
            // is its data whatever follows (RX_D --D--> RX_D), so the run takes the block after
            // its last data block too (a terminate, usually), which is then pending.
            if state == RxState::Data && pending.sync == SyncHeader::DATA {
                let rest = window.get(consumed..).unwrap_or_default();
                if stops == Stops::ForOctets && long_run(rest) {
                    // A long run: its first transfer still as a transfer (after a start in
                    // lane 4 it ends the preamble), then stop in front of the rest.
                    if let (Some(b), Some(slot)) = (rest.first(), words.get_mut(written)) {
                        *slot = XgmiiWord::from_data(pending.payload);
                        pending = Block::data(descramble_payload(line_state, b.payload));
                        line_state = b.payload >> 6;
                        consumed += 1;
                        written += 1;
                        d.at_long_run = true;
                        break;
                    }
                }
                let out = words.get_mut(written..).unwrap_or_default();
                let mut k = 0;
                for (b, slot) in rest.iter().zip(out.iter_mut()) {
                    if b.sync != SyncHeader::DATA {
                        break;
                    }
                    *slot = XgmiiWord::from_data(pending.payload);
                    pending = Block::data(descramble_payload(line_state, b.payload));
                    line_state = b.payload >> 6;
                    k += 1;
                }
                if let Some((b, slot)) = rest.get(k).zip(out.get_mut(k)) {
                    if b.sync == SyncHeader::CONTROL {
                        *slot = XgmiiWord::from_data(pending.payload);
                        pending = Block::control(descramble_payload(line_state, b.payload));
                        line_state = b.payload >> 6;
                        k += 1;
                    }
                }
                consumed += k;
                written += k;
            }
        }
        self.decoder.set_up_pending(state, pending);
        self.steady_done(d, line_state, consumed, written);
    }

    /// How [`PcsRx::decode_steady`] ends: the descrambler's state, and what it took and wrote.
    fn steady_done(
        &mut self,
        d: &mut SliceDecoded,
        line_state: u64,
        consumed: usize,
        written: usize,
    ) {
        self.descrambler = Descrambler::new(line_state);
        d.consumed += consumed;
        d.written = written;
    }

    /// Takes the run of data blocks in front of which [`PcsRx::decode_slice`] stopped
    /// ([`SliceDecoded::at_long_run`]): descrambles the leading data blocks of `line` (all with
    /// the lock status `block_lock`) and writes the transfers they decide into `octets`, 8 octets per
    /// transfer (lane 0 first): the pending block's data, then each data block's but the
    /// last, which is left pending (`RX_D --D--> RX_D`: a data block's transfer is its data
    /// whatever follows). As many as `octets` has room for and the BER monitor's steady state
    /// allows; returns how many (each one block taken). Takes none unless locked, with a data
    /// block pending in `RX_D` from the link up.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, receive state diagram (`RX_D`), §49.2.13.3.
    pub fn decode_data_run(
        &mut self,
        line: &[Block],
        block_lock: bool,
        octets: &mut [u8],
    ) -> usize {
        // (hi_ber needs no test of its own: a block received while it is set is decided with
        // the link down, and `up_pending` gives no such block.)
        if !block_lock {
            return 0;
        }
        let steady = usize::try_from(self.ber.steady_headers()).unwrap_or(usize::MAX);
        let Some((RxState::Data, pending)) = self.decoder.up_pending() else {
            return 0;
        };
        if pending.sync != SyncHeader::DATA {
            return 0;
        }
        let mut line_state = self.descrambler.state();
        let line = line.get(..steady).unwrap_or(line);
        let (k, last) = data_run(pending.payload, line, &mut line_state, octets);
        // (With none taken, this leaves everything as it was.)
        self.book_steady(false);
        self.ber.take_valid_headers(k as u64);
        self.decoder
            .set_up_pending(RxState::Data, Block::data(last));
        self.descrambler = Descrambler::new(line_state);
        k
    }

    /// Takes the packet whose start block [`PcsRx::decode_slice`] left pending
    /// ([`SliceDecoded::at_packet`]), as far as `line` holds it in the BER monitor's steady
    /// state and `room` holds its octets: the start (`/S/` in lane 0, or in lane 4 after four
    /// idles), its data blocks, and, when they are all there, a terminate with idles after its
    /// `/T/` and the idle blocks after it. The last block taken is left pending (the last data
    /// block when the terminate is not taken). The transfers are those the receive state
    /// diagram decides for the blocks, with no error: `RX_C` or `RX_T` --S--> `RX_D` --D-->
    /// `RX_D` --T * R_TYPE_NEXT = (S + C)--> `RX_T` --C--> `RX_C`; their data octets after the
    /// `/S/` but the first seven are written into `room`, lane 0 first (the octets after them
    /// in `room` may be written too). Takes nothing, and returns `None`, unless locked with the
    /// start pending from the link up in `RX_C` or `RX_T`, and one data block at least (two
    /// after a start in lane 4) in `line`.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, receive state diagram, §49.2.13.3.
    pub fn decode_packet(
        &mut self,
        line: &[Block],
        block_lock: bool,
        room: &mut [u8],
    ) -> Option<DecodedPacket> {
        self.packets(line, block_lock).next(room)
    }

    /// The packets of `line`, one after the other, each as [`PcsRx::decode_packet`] takes it:
    /// [`Packets::next`] takes the next one (the one whose start the last left pending). The
    /// state is set up once and put back once, when the [`Packets`] is dropped, which is what
    /// taking them one call each would leave. Takes nothing unless locked.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, receive state diagram, §49.2.13.3.
    pub fn packets<'a>(&'a mut self, line: &'a [Block], block_lock: bool) -> Packets<'a> {
        let (state, pending, line) = match self.decoder.up_pending() {
            Some((state, pending)) if block_lock => {
                let steady = usize::try_from(self.ber.steady_headers()).unwrap_or(usize::MAX);
                (state, pending, line.get(..steady).unwrap_or(line))
            }
            // (No packet is taken from `RX_D`.)
            _ => (RxState::Data, Block::IDLE, &[][..]),
        };
        let line_state = self.descrambler.state();
        Packets {
            rx: self,
            line,
            taken: 0,
            line_state,
            state,
            pending,
        }
    }

    /// How the packets a [`Packets`] took end: `k` blocks taken in the steady state,
    /// `pending` left, the diagram in `state`.
    #[inline(always)]
    fn packet_taken(&mut self, state: RxState, pending: Block, k: usize, line_state: u64) {
        self.book_steady(false);
        self.ber.take_steady_headers(k as u64);
        self.decoder.set_up_pending(state, pending);
        self.descrambler = Descrambler::new(line_state);
    }
}

/// Packets taken one after the other: [`PcsRx::packets`].
#[derive(Debug)]
pub struct Packets<'a> {
    rx: &'a mut PcsRx,
    /// The line in the BER monitor's steady state (empty when none can be taken).
    line: &'a [Block],
    /// Blocks of `line` taken.
    taken: usize,
    /// The descrambler's state after them.
    line_state: u64,
    /// The decoder's state and its pending block after them.
    state: RxState,
    pending: Block,
}

impl Packets<'_> {
    /// Takes the next packet, as [`PcsRx::decode_packet`] says; `None` when it takes nothing.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, receive state diagram, §49.2.13.3.
    #[inline(always)]
    pub fn next(&mut self, room: &mut [u8]) -> Option<DecodedPacket> {
        if !matches!(self.state, RxState::Control | RxState::Terminate) {
            return None;
        }
        let s = decode_idle_start(self.pending)?;
        let line = self.line.get(self.taken..).unwrap_or_default();
        let mut line_state = self.line_state;
        // The first data block; after a start in lane 4, its lanes 0..3 end the seven octets
        // after /S/, and the run of data transfers starts at the next one.
        let d1 = line.first().filter(|b| b.sync == SyncHeader::DATA)?;
        let x1 = descramble_payload(line_state, d1.payload);
        line_state = d1.payload >> 6;
        let (start_lane, lead, first, mut at, mut k) = if s.ctrl == 0x01 {
            (0, s.data >> 8, x1, 0, 1)
        } else {
            let d2 = line.get(1).filter(|b| b.sync == SyncHeader::DATA)?;
            *room.first_chunk_mut::<4>()? = ((x1 >> 32) as u32).to_le_bytes();
            let x2 = descramble_payload(line_state, d2.payload);
            line_state = d2.payload >> 6;
            (4, s.data >> 40 | (x1 & 0xffff_ffff) << 24, x2, 4, 2)
        };
        let (taken, last) = data_run(
            first,
            line.get(k..).unwrap_or_default(),
            &mut line_state,
            room.get_mut(at..).unwrap_or_default(),
        );
        k += taken;
        at += 8 * taken;
        // The terminate and the block after it (R_TYPE_NEXT), when they are there and the
        // octets fit; else the last data block stays pending.
        let terminate = line.get(k).and_then(|b| {
            let t = Block {
                sync: b.sync,
                payload: descramble_payload(line_state, b.payload),
            };
            idle_terminate_lane(t).map(|lane| (t.payload >> 8, lane as usize))
        });
        let after = line.get(k..k + 2).and_then(|t| {
            let [t, z] = t else { return None };
            Some((t.payload >> 6, z))
        });
        let look_ahead = self.rx.decoder.config().look_ahead;
        let next = after
            .filter(|(_, z)| z.sync.is_valid())
            .map(|(state, z)| Block {
                sync: z.sync,
                payload: descramble_payload(state, z.payload),
            });
        let slot = room.get_mut(at..).and_then(|r| r.first_chunk_mut::<16>());
        let (Some((tail, lanes)), Some(mut pending), Some(slot)) = (terminate, next, slot) else {
            self.took(RxState::Data, Block::data(last), k, line_state);
            return Some(DecodedPacket {
                start_lane,
                lead,
                octets: at,
                transfers: k,
                ended: false,
            });
        };
        // (The same return as above, kept apart: folding this test into the `let` above, as a
        // filter on `next`, cost 85.00 -> 88.92 instructions per block at 64 octets.)
        if look_ahead == LookAhead::On
            && !matches!(
                block_class(pending),
                BlockClass::Start | BlockClass::Control
            )
        {
            self.took(RxState::Data, Block::data(last), k, line_state);
            return Some(DecodedPacket {
                start_lane,
                lead,
                octets: at,
                transfers: k,
                ended: false,
            });
        }
        // The last data block and the terminate's data lanes (written whole; the octets past
        // them are not counted).
        let (a, b) = slot.split_at_mut(8);
        if let (Some(a), Some(b)) = (a.first_chunk_mut::<8>(), b.first_chunk_mut::<8>()) {
            *a = last.to_le_bytes();
            *b = tail.to_le_bytes();
        }
        at += 8 + lanes;
        line_state = line.get(k + 1).map_or(line_state, |z| z.payload >> 6);
        k += 2;
        // Idle blocks: each one decided (RX_T or RX_C --C--> RX_C) when a block follows it.
        let mut state = RxState::Terminate;
        while pending == Block::IDLE {
            let Some(b) = line.get(k).filter(|b| b.sync.is_valid()) else {
                break;
            };
            pending = Block {
                sync: b.sync,
                payload: descramble_payload(line_state, b.payload),
            };
            line_state = b.payload >> 6;
            k += 1;
            state = RxState::Control;
        }
        self.took(state, pending, k, line_state);
        Some(DecodedPacket {
            start_lane,
            lead,
            octets: at,
            transfers: k,
            ended: true,
        })
    }

    /// Blocks taken so far.
    #[must_use]
    pub fn taken(&self) -> usize {
        self.taken
    }

    /// How a packet ends: `k` more blocks taken, `pending` left, the diagram in `state`.
    #[inline(always)]
    fn took(&mut self, state: RxState, pending: Block, k: usize, line_state: u64) {
        self.taken += k;
        self.state = state;
        self.pending = pending;
        self.line_state = line_state;
    }
}

impl Drop for Packets<'_> {
    /// Puts back the state the packets taken leave (nothing when none was taken).
    fn drop(&mut self) {
        if self.taken > 0 {
            let (state, pending, k, line_state) =
                (self.state, self.pending, self.taken, self.line_state);
            self.rx.packet_taken(state, pending, k, line_state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::BlockAligner;
    use crate::encode::tests::word_of;
    use crate::encode::TxMode;
    use crate::gearbox::TxGearbox;

    /// A legal stream: idles, then packets of data words.
    fn stream(packets: usize) -> Vec<XgmiiWord> {
        let mut w = vec![XgmiiWord::IDLE; 100];
        for p in 0..packets {
            w.push(XgmiiWord::new(0xd555_5555_5555_55fb, 0x01));
            for k in 0..5u64 {
                w.push(XgmiiWord::from_data((p as u64 * 0x0101_0101_0101_0101) ^ k));
            }
            w.push(XgmiiWord::new(0x0707_0707_07fd_0102, 0xfc));
            w.push(XgmiiWord::IDLE);
        }
        w.extend([XgmiiWord::IDLE; 12]);
        w
    }

    #[test]
    fn tx_bits_at_any_offset_come_back_through_lock_and_rx() {
        let words = stream(60);
        let mut tx = PcsTx::new(EncoderConfig::default(), 0x1234_5678);
        let mut gearbox = TxGearbox::<u8>::new();
        let mut bytes = Vec::new();
        for &w in &words {
            let (line, _) = tx.step(w);
            bytes.extend(gearbox.push_block(line));
        }
        for offset in [0usize, 1, 7, 13, 65] {
            // Drop `offset` bits from the front by shifting the byte stream.
            let shifted: Vec<u8> = shift_bits(&bytes, offset);
            let mut aligner = BlockAligner::<u8>::new();
            let mut rx = PcsRx::new(PcsRxConfig::default());
            let mut out = Vec::new();
            for b in aligner.blocks(&shifted) {
                let step = rx.push(b.block, b.block_lock);
                out.extend(step.rx.map(|e| e.word));
            }
            out.extend(rx.flush().map(|e| e.word));
            // Lock takes at most 65 slips + 64 headers; after that the stream is intact. (The
            // shifted stream may end in a partial block, so compare a window before the end.)
            let tail = &words[words.len() - 150..words.len() - 10];
            assert!(
                out.windows(tail.len()).rev().take(20).any(|w| w == tail),
                "offset {offset}: the last packets did not come back intact"
            );
            assert!(
                rx.status.status_1() & 1 == 1,
                "block lock at offset {offset}"
            );
        }
    }

    fn shift_bits(bytes: &[u8], bits: usize) -> Vec<u8> {
        let total = bytes.len() * 8 - bits;
        (0..total / 8)
            .map(|i| {
                (0..8).fold(0u8, |acc, j| {
                    let n = bits + i * 8 + j;
                    acc | ((bytes[n / 8] >> (n % 8)) & 1) << j
                })
            })
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn push_word_equals_push(
            kinds in proptest::collection::vec(0u8..6, 0..200),
            lock_at in 0usize..50,
            knobs in 0u8..8,
        ) {
            // Traffic of idles, starts, data, terminates and damaged blocks, lock from lock_at,
            // with every decoder setting.
            let decoder = crate::decode::DecoderConfig {
                mode: if knobs & 1 == 0 { crate::decode::RxMode::StateMachine } else { crate::decode::RxMode::Stateless },
                look_ahead: if knobs & 2 == 0 { crate::decode::LookAhead::On } else { crate::decode::LookAhead::Off },
                link_down: if knobs & 4 == 0 { crate::decode::LinkDownOutput::LocalFault } else { crate::decode::LinkDownOutput::Decode },
            };
            let config = PcsRxConfig { decoder, ..PcsRxConfig::default() };
            // A stateless encoder, so that illegal sequences (a data block before an idle...)
            // reach the receiver.
            let mut tx = PcsTx::new(EncoderConfig { mode: crate::encode::TxMode::Stateless }, 7);
            let words: Vec<XgmiiWord> = kinds.iter().map(|k| match k {
                0 => XgmiiWord::IDLE,
                1 => XgmiiWord::new(0xd555_5555_5555_55fb, 0x01),
                2 | 3 => XgmiiWord::from_data(0x1234_5678),
                4 => XgmiiWord::new(0x0707_0707_07fd_0102, 0xfc),
                _ => XgmiiWord::new(0x0707_0707_0707_07fe, 0xff),
            }).collect();
            let mut a = PcsRx::new(config);
            let mut b = PcsRx::new(config);
            for (i, &w) in words.iter().enumerate() {
                let (mut line, _) = tx.step(w);
                if kinds[i] == 5 { line.sync = crate::block::SyncHeader::from_bits(3); }
                let lock = i >= lock_at;
                let x = a.push(line, lock).rx.map(|e| e.word);
                let y = b.push_word(line, lock);
                proptest::prop_assert_eq!(x, y);
            }
            proptest::prop_assert_eq!(a.status, b.status);
            proptest::prop_assert_eq!(a.flush().map(|e| e.word), b.flush().map(|e| e.word));
        }
    }

    proptest::proptest! {
        #[test]
        fn decode_slice_runs_equal_push_word_block_by_block(
            kinds in proptest::collection::vec((0u8..11, 1usize..40), 0..60),
            chunk in 1usize..300,
            room in 1usize..300,
            stateless_tx in proptest::bool::ANY,
            lock_at in 0usize..80,
            locked_for in 0usize..2000,
            stop_at_runs in proptest::bool::ANY,
            rooms in proptest::collection::vec(0usize..330, 0..4),
            well_formed in proptest::bool::ANY,
            look_ahead_off in proptest::bool::ANY,
        ) {
            // Packets with long data runs, idles, damaged headers; a short BER window (400
            // ticks = 100 blocks) so that runs cross window ends and hi_ber comes and goes.
            let look_ahead = if look_ahead_off { LookAhead::Off } else { LookAhead::On };
            let config = PcsRxConfig {
                ber: BerConfig { ticks_per_block: 4, window_ticks: 401, threshold: 3 },
                decoder: DecoderConfig { look_ahead, ..DecoderConfig::default() },
                ..PcsRxConfig::default()
            };
            // A stateless encoder lets illegal sequences through to the receiver.
            let mode = if stateless_tx { crate::encode::TxMode::Stateless } else { crate::encode::TxMode::StateMachine };
            let mut tx = PcsTx::new(EncoderConfig { mode }, 7);
            let mut line = Vec::new();
            // Well formed: each of `kinds` a packet of n data transfers after a start in lane 0
            // or 4, its /T/ in lane k % 8, then k % 3 idle transfers.
            let packets: Vec<(u8, usize)> = kinds
                .iter()
                .flat_map(|&(k, n)| {
                    let start = (if k & 1 == 0 { 0 } else { 9 }, 1 + n);
                    // Now and then a data transfer right after the /T/ (no idles after it in
                    // its transfer: the terminate's look-ahead sees a data block).
                    if k % 5 == 4 {
                        vec![start, (10, 1), (8, 1)]
                    } else {
                        vec![start, (10, 8 * (k as usize % 3) + k as usize % 8)]
                    }
                })
                .collect();
            let kinds = if well_formed { &packets } else { &kinds };
            for &(k, n) in kinds {
                for j in 0..n.max(1) {
                    let w = match (k, j) {
                        (0..=4, 0) => XgmiiWord::new(0xd555_5555_5555_55fb, 0x01),
                        (0..=4, _) => XgmiiWord::from_data(j as u64 * 0x0101_0101_0101_0101),
                        (5, 0) => XgmiiWord::new(0x0707_0707_07fd_0102, 0xfc),
                        // Data with no start before it (through the stateless encoder).
                        (8, _) => XgmiiWord::from_data(0x5a5a_0000 + j as u64),
                        // A start in lane 4 and data.
                        (9, 0) => XgmiiWord::new(0x5555_55fb_0707_0707, 0x1f),
                        (9, _) => XgmiiWord::from_data(0xd555_5555 ^ (j as u64) << 40),
                        // A terminate in lane n % 8, then idles.
                        (10, 0) => {
                            let lane = n % 8;
                            let data = 0x0707_0707_0707_07fd_u64 << (8 * lane) | (0x1122_3344_5566_7788 & !(u64::MAX << (8 * lane)));
                            XgmiiWord::new(data | (0x0707_0707_0707_0707 & u64::MAX.checked_shl(8 * lane as u32 + 8).unwrap_or(0)), 0xff << lane)
                        }
                        _ => XgmiiWord::IDLE,
                    };
                    let (mut b, _) = tx.step(w);
                    if k == 7 && j % 5 == 0 {
                        b.sync = crate::block::SyncHeader::from_bits(0);
                    }
                    line.push(b);
                }
            }
            let mut a = PcsRx::new(config);
            let mut b = PcsRx::new(config);
            // Block lock from block `lock_at` on: the first steady blocks then follow a block
            // decided with the link down.
            // ... and lose it after `locked_for` blocks: the first blocks after that follow a
            // block decided with the link up.
            let lock_at = lock_at.min(line.len());
            let unlock_at = (lock_at + locked_for).min(line.len());
            let want: Vec<XgmiiWord> = line
                .iter()
                .enumerate()
                .filter_map(|(i, &l)| a.push_word(l, (lock_at..unlock_at).contains(&i)))
                .collect();
            let mut got = Vec::new();
            let mut buf = vec![XgmiiWord::default(); room];
            let mut runs_taken = 0;
            for (mut rest, lock) in [
                (&line[..lock_at], false),
                (&line[lock_at..unlock_at], true),
                (&line[unlock_at..], false),
            ] {
                let mut declined = false;
                while !rest.is_empty() {
                    let take = rest.len().min(chunk);
                    let stops = if stop_at_runs && !declined { Stops::ForOctets } else { Stops::Never };
                    let r = b.decode_slice(&rest[..take], lock, &mut buf, stops);
                    // (Every call takes a block at least: a door that took none would loop.)
                    proptest::prop_assert!(r.consumed > 0);
                    proptest::prop_assert!(!r.at_long_run || stops == Stops::ForOctets);
                    got.extend_from_slice(&buf[..r.written]);
                    rest = &rest[r.consumed..];
                    if stop_at_runs {
                        // The run as octets, in rooms of `rooms` octets in turn (not always
                        // whole transfers); when none is taken, the next slice decodes it.
                        // Also where the slice did not stop: a run is taken only where one is.
                        let room = rooms.get(runs_taken % rooms.len().max(1)).copied().unwrap_or(0);
                        let mut octets = vec![0xee; room];
                        let n = b.decode_data_run(rest, lock, &mut octets);
                        proptest::prop_assert!(n * 8 <= room && n <= rest.len());
                        got.extend(octets.chunks_exact(8).take(n).map(|c| {
                            XgmiiWord::from_data(u64::from_le_bytes(c.try_into().unwrap()))
                        }));
                        rest = &rest[n..];
                        runs_taken += 1;
                        declined = r.at_long_run && n == 0;
                        // Packets straight as octets, while they are taken; also where the
                        // slice did not stop (a packet is taken only where its start is
                        // pending). The room: the next of `rooms`, or one for any packet.
                        loop {
                            let room = rooms.get(runs_taken % rooms.len().max(1)).map_or(2000, |&r| r * 3);
                            let mut octets = vec![0xee; room];
                            let before = b;
                            let steady = b.ber.steady_headers() as usize;
                            let Some(p) = b.decode_packet(rest, lock, &mut octets) else {
                                proptest::prop_assert_eq!(b, before, "nothing taken, nothing changed");
                                break;
                            };
                            runs_taken += 1;
                            proptest::prop_assert!(p.transfers > 0 && p.transfers <= rest.len() && p.octets <= room);
                            // It takes every idle block after the terminate while a block
                            // follows, in the BER monitor's steady state.
                            if let (true, [.., x, y]) = (p.ended, &rest[..p.transfers]) {
                                let left = descramble_payload(x.payload >> 6, y.payload);
                                let end = rest.len().min(steady);
                                proptest::prop_assert!(
                                    y.sync != SyncHeader::CONTROL || left != Block::IDLE.payload
                                        || p.transfers == end || !rest[p.transfers].sync.is_valid(),
                                    "an idle block left pending"
                                );
                            }
                            got.extend((0..p.transfers).map_while(|i| p.transfer(&octets, i)));
                            rest = &rest[p.transfers..];
                        }
                    }
                    let written = &buf[..r.written];
                    // Only the diagram's transfers can hold /Q/ or /E/.
                    let marked = written
                        .iter()
                        .filter(|w| {
                            (0..8).any(|k| {
                                w.ctrl >> k & 1 == 1
                                    && matches!((w.data >> (8 * k)) as u8, 0x9c | 0xfe)
                            })
                        })
                        .count();
                    proptest::prop_assert!(marked <= r.by_diagram, "{marked} > {}", r.by_diagram);
                }
            }
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(a.status, b.status);
            proptest::prop_assert_eq!(a.ber, b.ber);
            proptest::prop_assert_eq!(a.flush(), b.flush());
        }
    }

    #[test]
    fn flush_decides_the_last_block_and_books_it() {
        let mut rx = PcsRx::new(PcsRxConfig::default());
        assert_eq!(rx.flush(), None, "nothing pending");
        // Idle blocks; the descrambler locks on the first (which decodes as garbage), the
        // last is left pending. Then a block with an invalid header.
        let mut tx = PcsTx::new(EncoderConfig::default(), 5);
        let mut line = [Block::IDLE; 4];
        for b in &mut line {
            *b = tx.step(XgmiiWord::IDLE).0;
        }
        let decided: Vec<_> = line[..3]
            .iter()
            .filter_map(|&b| rx.push(b, true).rx)
            .collect();
        assert_eq!(decided.len(), 2);
        assert_eq!(decided[1].word, XgmiiWord::IDLE);
        assert_eq!(rx.flush().map(|e| e.word), Some(XgmiiWord::IDLE));
        assert_eq!(rx.flush(), None, "flushed once");
        let errored = rx.status.errored_count();
        // The invalid header, decided only by flush: an error transfer, counted (49.2.14.2).
        let mut bad = line[3];
        bad.sync = crate::block::SyncHeader::from_bits(0);
        assert!(rx.push(bad, true).rx.is_none(), "pending after the flush");
        let e = rx.flush().expect("the errored block decided");
        assert!(e.is_errored());
        assert_eq!(e.word, XgmiiWord::ERROR);
        assert_eq!(rx.status.errored_count(), errored + 1);
    }

    #[test]
    fn unlocked_blocks_give_local_fault_and_count_nothing() {
        let mut rx = PcsRx::new(PcsRxConfig::default());
        let _ = rx.push(Block::IDLE, false);
        let e = rx.push(Block::IDLE, false).rx.unwrap();
        assert_eq!(e.word, XgmiiWord::LOCAL_FAULT);
        assert!(!e.is_errored());
    }

    proptest::proptest! {
        /// `PcsTx::encode_slice` (two transfers a step, two data transfers in TX_D at once)
        /// equals `PcsTx::step` transfer by transfer: runs of data, terminates in lane 0 with
        /// idles after them (two control transfers with the same control mask), data after
        /// idles (illegal in TX_C), each at either position of a pair, in both modes.
        #[test]
        fn encode_slice_equals_step_at_both_positions_of_a_pair(
            picks in proptest::collection::vec((0u8..8, 0u8..4, proptest::num::u64::ANY), 0..40),
            lead in 0usize..2,
            stateless: bool,
        ) {
            let mode = if stateless { TxMode::Stateless } else { TxMode::StateMachine };
            let config = EncoderConfig { mode };
            // `lead` idles first, so that every pick lands at either position of a pair.
            let mut words = vec![XgmiiWord::IDLE; lead];
            for (kind, run, data) in picks {
                match kind {
                    // A packet: start, `run` data transfers, a terminate in lane 0 + idles.
                    0..=2 => {
                        words.push(word_of('S'));
                        words.extend((0..run).map(|k| XgmiiWord::from_data(data ^ u64::from(k))));
                        words.push(XgmiiWord::new(0x0707_0707_0707_07fd, 0xff));
                    }
                    3 => words.push(XgmiiWord::IDLE),
                    // Data with no start (TX_C --D--> TX_E), alone or two.
                    4 => words.extend((0..=run % 2).map(|_| XgmiiWord::from_data(data))),
                    5 => words.push(word_of('T')),
                    6 => words.push(word_of('E')),
                    _ => words.push(XgmiiWord::new(data, run.wrapping_mul(0x55))),
                }
            }
            let mut fast = PcsTx::new(config, 7);
            let mut line = vec![Block::IDLE; words.len()];
            proptest::prop_assert_eq!(fast.encode_slice(&words, &mut line), words.len());
            let mut slow = PcsTx::new(config, 7);
            let want: Vec<Block> = words.iter().map(|&w| slow.step(w).0).collect();
            proptest::prop_assert_eq!(&line, &want);
            proptest::prop_assert_eq!(fast.encoder.state(), slow.encoder.state());
            proptest::prop_assert_eq!(fast.scrambler.state(), slow.scrambler.state());
        }

        /// The packet door gives the blocks and the state the diagram (`step`) gives for the
        /// transfers it stands for: idles, `/S/` in lane 0 or 4, the octets, `/T/` in any lane
        /// with idles after it, from every state of the machine and in both modes; where it
        /// refuses (a lane other than 0 or 4, too few octets, too little room, TX_D or TX_E),
        /// it writes and changes nothing.
        #[test]
        fn a_packet_from_its_octets_equals_its_transfers_through_the_diagram(
            before in proptest::collection::vec(0u8..6, 0..4),
            idles in 0usize..4,
            lane in proptest::prop_oneof![proptest::strategy::Just(0usize), proptest::strategy::Just(4), 0usize..8],
            octets in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
            short in 0usize..3,
            seed in proptest::num::u64::ANY,
            stateless: bool,
        ) {
            let mode = if stateless { TxMode::Stateless } else { TxMode::StateMachine };
            let mut pcs = PcsTx::new(EncoderConfig { mode }, seed & crate::scramble::SCRAMBLER_STATE_MASK);
            // Transfers that leave the machine in any state (INIT when there are none).
            for k in before {
                let w = match k {
                    0 => XgmiiWord::IDLE,
                    1 => word_of('S'),
                    2 => XgmiiWord::from_data(seed),
                    3 => XgmiiWord::new(0x0707_0707_0707_07fd, 0xff),
                    4 => word_of('E'),
                    _ => XgmiiWord::new(0x0707_0707_fb07_0707, 0x1f),
                };
                pcs.step(w);
            }
            // The transfers, lane by lane: idles, [four idles,] /S/, octets, /T/, idles.
            let mut lanes: Vec<(u8, bool)> = vec![(0x07, true); 8 * idles + lane];
            lanes.push((0xfb, true));
            lanes.extend(octets.iter().map(|&o| (o, false)));
            lanes.push((0xfd, true));
            while lanes.len() % 8 != 0 {
                lanes.push((0x07, true));
            }
            let words: Vec<XgmiiWord> = lanes
                .chunks(8)
                .map(|c| c.iter().enumerate().fold(XgmiiWord::new(0, 0), |w, (i, &(o, ctl))| {
                    XgmiiWord::new(w.data | u64::from(o) << (8 * i), w.ctrl | u8::from(ctl) << i)
                }))
                .collect();
            let mut slow = pcs;
            let want: Vec<Block> = words.iter().map(|&w| slow.step(w).0).collect();
            let takes = matches!(pcs.encoder.state(), TxState::Init | TxState::Control | TxState::Terminate)
                && (lane == 0 || lane == 4)
                && octets.len() + lane >= 7;
            let room = words.len().saturating_sub(short % 2);
            let mut line = vec![Block::EBLOCK_T; room + 1];
            let mut fast = pcs;
            let got = fast.encode_packet(idles, lane, &octets, &mut line[..room]);
            if takes && room == words.len() {
                proptest::prop_assert_eq!(got, Some(words.len()));
                proptest::prop_assert_eq!(&line[..room], &want[..]);
                proptest::prop_assert_eq!(fast, slow);
                proptest::prop_assert_eq!(fast.encoder.state(), TxState::Terminate);
            } else {
                proptest::prop_assert_eq!(got, None);
                proptest::prop_assert_eq!(fast, pcs);
                proptest::prop_assert!(line.iter().all(|&b| b == Block::EBLOCK_T));
            }
            proptest::prop_assert_eq!(line[room], Block::EBLOCK_T);
        }
    }

    #[test]
    fn a_long_data_run_stops_the_slice_and_goes_straight_to_octets() {
        // Idles, a start, 40 data transfers, a terminate, idles.
        let mut words = vec![XgmiiWord::IDLE; 20];
        words.push(XgmiiWord::new(0xd555_5555_5555_55fb, 0x01));
        words.extend((0..40u64).map(|i| XgmiiWord::from_data((i * 0x0101_0101_0101_0101) ^ 7)));
        words.push(XgmiiWord::new(0x0707_0707_07fd_0102, 0xfc));
        words.extend([XgmiiWord::IDLE; 20]);
        let mut tx = PcsTx::new(EncoderConfig::default(), 3);
        let mut line = vec![Block::IDLE; words.len()];
        tx.encode_slice(&words, &mut line);
        let mut rx = PcsRx::new(PcsRxConfig::default());
        let mut buf = vec![XgmiiWord::IDLE; words.len()];
        // Decoding them as transfers does not stop.
        let mut other = rx;
        let r = other.decode_slice(&line, true, &mut buf, Stops::Never);
        assert_eq!((r.consumed, r.at_long_run), (line.len(), false));
        // Stopping: first with the start (block 20) pending, for a packet door; then, going on
        // without one, after the start's transfer and the first data transfer (block 21), with
        // block 22 pending.
        let r = rx.decode_slice(&line, true, &mut buf, Stops::ForOctets);
        assert!(r.at_packet && !r.at_long_run);
        assert_eq!((r.consumed, r.written), (21, 20));
        // There the packet door takes all of it: the start's transfer, the 40 data transfers,
        // the terminate's and the idles after it, the last idle block left pending.
        let mut whole = rx;
        let mut room = vec![0u8; 400];
        let p = whole
            .decode_packet(&line[21..], true, &mut room)
            .expect("the packet");
        assert_eq!(
            (p.start_lane, p.lead, p.octets, p.transfers, p.ended),
            (0, 0x00d5_5555_5555_5555, 8 * 40 + 2, line.len() - 21, true)
        );
        let rebuilt: Vec<XgmiiWord> = (0..p.transfers)
            .map(|i| p.transfer(&room, i).unwrap())
            .collect();
        assert_eq!(&rebuilt[..], &words[20..words.len() - 1]);
        // With room for 10 data transfers only: those, the 11th data block pending.
        let mut part = rx;
        let p = part
            .decode_packet(&line[21..], true, &mut room[..80])
            .unwrap();
        assert_eq!((p.octets, p.transfers, p.ended), (80, 11, false));
        let r = rx.decode_slice(&line[21..], true, &mut buf, Stops::ForOctets);
        assert!(r.at_long_run && !r.at_packet);
        assert_eq!(r.consumed, 2);
        assert_eq!(&buf[..r.written], &words[20..22]);
        // A control block among the data blocks, at each place of a turn of four: the run
        // ends in front of it.
        let mut octets = vec![0u8; 8 * 50];
        for p in 0..8 {
            let mut cut = line.clone();
            cut[23 + p].sync = SyncHeader::CONTROL;
            let mut at = rx;
            assert_eq!(
                at.decode_data_run(&cut[23..], true, &mut octets),
                p,
                "at {p}"
            );
        }
        // Not locked: nothing taken.
        let mut unlocked = rx;
        assert_eq!(unlocked.decode_data_run(&line[23..], false, &mut octets), 0);
        // The run: the transfers of blocks 22..=59, block 60 (the last data block) pending.
        let k = rx.decode_data_run(&line[23..], true, &mut octets);
        assert_eq!(k, 38);
        for (i, o) in octets.chunks_exact(8).take(k).enumerate() {
            assert_eq!(
                u64::from_le_bytes(o.try_into().unwrap()),
                words[22 + i].data
            );
        }
        // Not at a run (the terminate is next): nothing taken.
        let mut again = rx;
        let r = again.decode_slice(&line[61..], true, &mut buf, Stops::ForOctets);
        assert!(!r.at_long_run);
        assert_eq!(&buf[..2], &words[60..62]);
        assert_eq!(rx.decode_data_run(&line[61..], true, &mut octets), 0);
    }

    #[test]
    fn packets_through_one_cursor_equal_one_call_each() {
        // Back-to-back packets, starts in lanes 0 and 4, 1..=9 data transfers, an idle
        // transfer between some of them.
        let mut words = vec![XgmiiWord::IDLE; 20];
        for p in 0..9u64 {
            words.push(if p % 2 == 0 {
                XgmiiWord::new(0xd555_5555_5555_55fb, 0x01)
            } else {
                XgmiiWord::new(0x5555_55fb_0707_0707, 0x1f)
            });
            words.extend((0..=p).map(|i| XgmiiWord::from_data((i * 0x0101_0101_0101_0101) ^ p)));
            words.push(XgmiiWord::new(0x0707_0707_07fd_0102, 0xfc));
            if p % 3 == 0 {
                words.push(XgmiiWord::IDLE);
            }
        }
        words.extend([XgmiiWord::IDLE; 4]);
        let mut tx = PcsTx::new(EncoderConfig::default(), 5);
        let mut line = vec![Block::IDLE; words.len()];
        tx.encode_slice(&words, &mut line);
        let mut rx = PcsRx::new(PcsRxConfig::default());
        let mut buf = vec![XgmiiWord::IDLE; words.len()];
        let r = rx.decode_slice(&line, true, &mut buf, Stops::ForOctets);
        assert!(r.at_packet);
        let rest = &line[r.consumed..];
        // One call each.
        let (mut one, mut each) = (rx, Vec::new());
        let mut at = 0;
        let mut room = vec![0u8; 200];
        while let Some(p) = one.decode_packet(&rest[at..], true, &mut room) {
            each.push((p, room[..p.octets].to_vec()));
            at += p.transfers;
        }
        assert_eq!(each.len(), 9, "every packet whole");
        assert!(each.iter().all(|(p, _)| p.ended));
        // One cursor.
        let mut all = rx;
        let mut cursor = all.packets(rest, true);
        let mut taken = 0;
        for (want, octets) in &each {
            let p = cursor.next(&mut room).expect("the next packet");
            assert_eq!((&p, &room[..p.octets]), (want, &octets[..]));
            taken += p.transfers;
            assert_eq!(cursor.taken(), taken);
        }
        assert_eq!(cursor.next(&mut room), None);
        drop(cursor);
        assert_eq!(all, one, "the state put back is the one the calls leave");
        // Unlocked, or none taken: nothing changes.
        let mut unlocked = rx;
        assert_eq!(unlocked.packets(rest, false).next(&mut room), None);
        assert_eq!(unlocked, rx);
        let mut none = rx;
        drop(none.packets(rest, true));
        assert_eq!(none, rx);
    }

    #[test]
    fn decode_slice_equals_push_by_push() {
        let words = stream(3);
        let mut tx = PcsTx::new(EncoderConfig::default(), 1);
        let mut line = vec![Block::IDLE; words.len()];
        assert_eq!(tx.encode_slice(&words, &mut line), words.len());
        let mut a = PcsRx::new(PcsRxConfig::default());
        let mut out = vec![XgmiiWord::default(); words.len()];
        let r = a.decode_slice(&line, true, &mut out, Stops::Never);
        let (c, n) = (r.consumed, r.written);
        assert_eq!((c, n), (words.len(), words.len() - 1));
        // The first transfer (the descrambler still untrained) is the diagram's; idles,
        // starts, data and terminates all took its short arrows.
        assert_eq!(r.by_diagram, 1);
        let mut b = PcsRx::new(PcsRxConfig::default());
        let expect: Vec<XgmiiWord> = line
            .iter()
            .filter_map(|&l| b.push(l, true).rx.map(|e| e.word))
            .collect();
        assert_eq!(&out[..n], &expect[..]);
        // Same scrambler state on both ends: everything after the first block is identical.
        assert_eq!(&out[1..n], &words[1..n]);
    }
}
