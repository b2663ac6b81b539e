//! The RX chain: a received stream back to XGMII transfers, frames and PCS events.
//!
//! ```text
//! serial words -> BlockAligner (lock, slip) -> PcsRx (BER, descramble, decode) -> MacRx
//! blocks (.b66) ---------------------------->  PcsRx                            -> MacRx
//! XGMII words ------------------------------------------------------------------> MacRx
//!                                               LinkFaultMonitor (RS) beside MacRx
//! ```
//!
//! The fast paths run whenever the input allows them: while block lock holds, the aligner
//! cuts whole batches of blocks (`push_words_locked`) and the receive PCS decodes them as one
//! slice (`decode_slice`), whose transfers go to the MAC as one slice. A batch that turns out
//! to hold anything the report names block by block (an invalid header, a transition into
//! `RX_E`, `hi_ber`) is rolled back (the PCS state is a plain value) and taken again through
//! the per-block path, which reports every event with its block index. Both paths give the
//! same transfers and counts (tested below against the per-block path alone).
//!
//! Positions: transfer i of the decoded stream is block i of the received one; the decoder's
//! one block of latency is absorbed here.

use crate::fcs::MacRx;
use crate::options::BerTimer;
use crate::profile::Profile;
use crate::tx::Placement;
use mac_core::fault::{FaultKind, LinkFault, LinkFaultMonitor, LinkFaultState};
use mac_core::rx::{RxClass, RxConfig, RxFrame, RxPacket};
use pcs_core::LockAction;
use pcs_core::TxGearbox;
use pcs_core::{AlignedBlock, BlockAligner};
use pcs_core::{Block, BlockClass, XgmiiWord};
use pcs_core::{DecodedPacket, PcsRx, PcsRxConfig, PcsRxStep, Stops};
use pcs_core::{Descrambler, SCRAMBLER_DEFAULT_STATE};
use pcs_core::{RxEvent, RxState};
use serde::Serialize;

/// Blocks per batch: small enough to stay in the L1 cache.
const BATCH: usize = 512;
/// Serial words converted from bytes at a time: several batches, so that only the last
/// batch of a piece leaves blocks for the gearbox to cut one by one.
const SERIAL_PIECE: usize = 8 * BATCH;
/// The smallest piece of a batch the batch path is tried on again after an event in it.
const EVENT_PIECE: usize = 32;

/// Settings of the RX chain.
#[derive(Clone, Copy, Debug, Default)]
pub struct RxOptions {
    /// Profile (decoder and BER knobs).
    pub profile: Profile,
    /// MAC receive settings.
    pub mac: RxConfig,
    /// Events (RX_E transitions, link fault changes) kept in detail; all are counted.
    pub max_events: usize,
    /// Leading all-zero blocks with sync header 0 (what a dump holds while the DUT's output
    /// registers are still in reset) are blocks like any other, not skipped reset fill.
    pub strict_start: bool,
    /// The BER monitor's timer (125 µs unless a test bench shortens it).
    pub ber_timer: BerTimer,
}

/// What the chain receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxInput {
    /// A serial stream starting at any bit: block lock finds the boundary (the receiver's
    /// view: blocks before lock are not decoded).
    Serial,
    /// A serial stream whose block boundary is known ([`find_lock`]): decoded from its first
    /// whole block, with block lock held from there (the offline view of a transmit dump:
    /// frames sent before a receiver would have locked are decoded too). The first block
    /// trains the descrambler.
    SerialAligned {
        /// Bits before the first whole block (below 66).
        bit_offset: u32,
        /// Where a receiver acquired lock in the same stream.
        found: LockAcquired,
    },
    /// 66-bit blocks at known boundaries (block lock from the first block).
    Blocks {
        /// The payloads are scrambled (as on the line).
        scrambled: bool,
        /// The descrambler state before the first block; `None`: unknown, the first block
        /// trains the descrambler (its state is the last 58 line bits, `payload >> 6`).
        descrambler_state: Option<u64>,
    },
    /// XGMII transfers: no PCS (the MAC and the link fault monitor only).
    Xgmii,
}

impl RxInput {
    /// The kind of stream it is.
    pub fn kind(self) -> StreamKind {
        match self {
            Self::Serial | Self::SerialAligned { .. } => StreamKind::Bits,
            Self::Blocks { .. } => StreamKind::B66,
            Self::Xgmii => StreamKind::Xgmii,
        }
    }
}

/// A frame the RX chain received.
#[derive(Clone, Debug, Serialize)]
pub struct ReceivedFrame {
    /// 0-based index among received frames.
    pub index: u64,
    /// Classification.
    #[serde(serialize_with = "ser_class")]
    pub class: RxClass,
    /// DA through FCS (as received).
    #[serde(skip)]
    pub data: Vec<u8>,
    /// Octets after the SFD.
    pub len: usize,
    /// FCS good.
    pub fcs_ok: bool,
    /// Where its `/S/` was.
    pub start: Placement,
    /// Octets from the previous frame's end to this `/S/`.
    pub gap_octets: Option<u64>,
    /// It started while the link was down (block lock off or hi_ber), which only a profile
    /// whose decoder decodes then lets through.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub link_down: bool,
}

impl ReceivedFrame {
    /// The content without its FCS.
    pub fn content(&self) -> &[u8] {
        let n = self.data.len().saturating_sub(4);
        self.data.get(..n).unwrap_or_default()
    }

    /// Borrowed, as a sink sees it.
    pub fn borrowed(&self) -> FrameRef<'_> {
        FrameRef {
            index: self.index,
            class: self.class,
            data: &self.data,
            len: self.len,
            fcs_ok: self.fcs_ok,
            start: self.start,
            gap_octets: self.gap_octets,
            link_down: self.link_down,
        }
    }
}

/// A received frame as the sink sees it (borrowed: nothing is copied unless the sink keeps it).
#[derive(Clone, Copy, Debug)]
pub struct FrameRef<'a> {
    /// 0-based index among received frames.
    pub index: u64,
    /// Classification.
    pub class: RxClass,
    /// DA through FCS (as received).
    pub data: &'a [u8],
    /// Octets after the SFD.
    pub len: usize,
    /// FCS good.
    pub fcs_ok: bool,
    /// Where its `/S/` was.
    pub start: Placement,
    /// Octets from the previous frame's end to this `/S/`.
    pub gap_octets: Option<u64>,
    /// It started while the link was down (see [`ReceivedFrame::link_down`]).
    pub link_down: bool,
}

impl FrameRef<'_> {
    /// The content without its FCS.
    pub fn content(&self) -> &[u8] {
        let n = self.data.len().saturating_sub(4);
        self.data.get(..n).unwrap_or_default()
    }

    /// An owned copy.
    pub fn to_owned(&self) -> ReceivedFrame {
        ReceivedFrame {
            index: self.index,
            class: self.class,
            data: self.data.to_vec(),
            len: self.len,
            fcs_ok: self.fcs_ok,
            start: self.start,
            gap_octets: self.gap_octets,
            link_down: self.link_down,
        }
    }
}

fn ser_class<S: serde::Serializer>(c: &RxClass, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(class_name(*c))
}

/// The report name of a frame class.
pub fn class_name(c: RxClass) -> &'static str {
    match c {
        RxClass::Ok => "ok",
        RxClass::FrameCheckSequenceError => "fcs_error",
        RxClass::Runt => "runt",
        RxClass::Fragment => "fragment",
        RxClass::FrameTooLong => "too_long",
        RxClass::ErrorCharacter => "error_character",
        RxClass::Truncated => "truncated",
        RxClass::BadPreamble => "bad_preamble",
    }
}

/// One receive state machine transition into `RX_E`, or another PCS event worth reporting.
#[derive(Clone, Debug, Serialize)]
pub struct PcsEvent {
    /// Block index.
    pub block: u64,
    /// What happened, in the spec's terms.
    pub what: String,
}

/// Block lock acquisition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LockAcquired {
    /// Bit offset of the first locked block in the stream.
    pub bit_offset: u64,
    /// Blocks received before lock (its index).
    pub block: u64,
    /// Slips it took.
    pub slips: u64,
}

/// What a stream file holds (the RX chain's input).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamKind {
    /// Serial bits (`.bits`).
    #[default]
    Bits,
    /// 66-bit blocks (`.b66`).
    B66,
    /// XGMII transfers (`.xgmii`).
    Xgmii,
}

/// The RS link fault status (§46.3.4), as reports write it: `Ok`, `Fault(LocalFault)`,
/// `Fault(RemoteFault)`, `Fault(LinkInterruption)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LinkStatus(pub LinkFault);

impl LinkStatus {
    /// No fault.
    pub fn is_ok(self) -> bool {
        self.0 == LinkFault::Ok
    }
}

impl std::fmt::Display for LinkStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            LinkFault::Ok => "Ok",
            LinkFault::Fault(FaultKind::LocalFault) => "Fault(LocalFault)",
            LinkFault::Fault(FaultKind::RemoteFault) => "Fault(RemoteFault)",
            LinkFault::Fault(FaultKind::LinkInterruption) => "Fault(LinkInterruption)",
        })
    }
}

impl Serialize for LinkStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What the PCS side of a decode saw.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PcsSummary {
    /// Input kind.
    pub input: StreamKind,
    /// Blocks (or transfers) received.
    pub blocks: u64,
    /// Lock acquisition (for `.b66`, the boundaries are given: lock from block 0).
    pub lock_acquired: Option<LockAcquired>,
    /// Block indices where lock was lost after it was acquired.
    pub lock_losses: Vec<u64>,
    /// Block indices where `hi_ber` rose while block lock held.
    pub hi_ber_episodes: Vec<u64>,
    /// Block indices where `hi_ber` rose without block lock (only a profile whose BER monitor
    /// runs unlocked, as verilog-ethernet's does, has these; not a fault of the stream).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hi_ber_before_lock: Vec<u64>,
    /// Block indices where `hi_ber` fell again.
    pub hi_ber_clears: Vec<u64>,
    /// Block lock regained after a loss: block, bit offset, slips since the stream began.
    pub relocks: Vec<LockAcquired>,
    /// Invalid sync headers while locked.
    pub invalid_headers: u64,
    /// Blocks that entered `RX_E` while the link was up.
    pub errored_blocks: u64,
    /// Those of them that entered it from `RX_INIT` on a data or terminate block at the first
    /// block after the link came up: the receiver joined the stream inside a frame (a frame
    /// cut by lock acquisition). A receiver's counter counts them; no verdict does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cut_at_link_up: Vec<u64>,
    /// The first transitions into `RX_E` (at most `max_events`), with the rule that fired.
    pub e_transitions: Vec<PcsEvent>,
    /// Link fault status at the end, and the block indices where it changed.
    pub link_fault: LinkStatus,
    /// Link fault changes.
    pub link_fault_changes: Vec<PcsEvent>,
    /// Starts seen by MAC RX (every one is accounted for by a frame).
    pub starts: u64,
    /// Offline view ([`RxInput::SerialAligned`]): where a receiver acquired lock in the same
    /// stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver_lock: Option<LockAcquired>,
    /// Leading all-zero blocks with sync header 0 skipped as reset fill (their transfers are
    /// written as idles).
    pub reset_fill_blocks: u64,
    /// The block that trained the descrambler (its transfer is written as idles), when the
    /// descrambler's start state was not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub descrambler_trained_at: Option<u64>,
    /// Frames that started while the link was down (only a profile whose decoder decodes
    /// then has them; they are counted among the frames too, apart in
    /// [`FrameCounts::while_link_down`], and do not decide a verdict).
    pub frames_while_link_down: u64,
    /// The first of them that are not good (at most `max_events`), with why the link was
    /// down: a frame cut, or made up, by the lock search is no fault of the stream.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub link_down_frames: Vec<LinkDownFrame>,
    /// Hints on what may be wrong with the dump rather than the design (filled by the door
    /// that read it, e.g. sync headers written the other way round).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
}

/// A frame that started while the link was down and is not good.
#[derive(Clone, Debug, Serialize)]
pub struct LinkDownFrame {
    /// 0-based index among received frames.
    pub index: u64,
    /// The block of its `/S/`.
    pub block: u64,
    /// Its class.
    pub class: &'static str,
    /// Why the link was down when it started.
    pub cause: LinkDownCause,
}

/// Why the link was down (block lock off, or `hi_ber`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkDownCause {
    /// No block lock yet (or lost): the blocks were cut where the lock search stood, a
    /// boundary not yet confirmed, so a frame there may be cut, or made up, by the lock search
    /// (cut by lock acquisition), which is no fault of the stream.
    BeforeLock,
    /// Block lock, and `hi_ber` (which a profile's BER monitor may have raised on the lock
    /// search's invalid headers, before lock; it clears after a clean BER timer window).
    HiBer,
}

impl LinkDownCause {
    /// In words, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Self::BeforeLock => {
                "started before block lock, on a block boundary the lock search had not confirmed: it may be cut, or made up, by the lock search (cut by lock acquisition), no fault of the stream"
            }
            Self::HiBer => "started with block lock while hi_ber held the link down",
        }
    }
}

/// True when block `b` was received with block lock, as the summary's lock events say.
fn locked_at(s: &PcsSummary, b: u64) -> bool {
    s.lock_acquired.is_some_and(|l| l.block <= b)
        && s.lock_losses.iter().filter(|&&l| l <= b).count()
            == s.relocks.iter().filter(|r| r.block <= b).count()
}

impl PcsSummary {
    /// Errored blocks that are faults of the stream: all but those of a frame cut by lock
    /// acquisition ([`PcsSummary::cut_at_link_up`]).
    pub fn errored_faults(&self) -> u64 {
        self.errored_blocks
            .saturating_sub(self.cut_at_link_up.len() as u64)
    }

    /// True when the PCS saw nothing wrong.
    pub fn clean(&self) -> bool {
        (self.lock_acquired.is_some() || self.input == StreamKind::Xgmii)
            && self.lock_losses.is_empty()
            && self.hi_ber_episodes.is_empty()
            && self.invalid_headers == 0
            && self.errored_faults() == 0
            && self.link_fault.is_ok()
    }
}

/// Every frame class, in the order of [`RxClass`].
pub const CLASSES: [RxClass; 8] = [
    RxClass::Ok,
    RxClass::FrameCheckSequenceError,
    RxClass::Runt,
    RxClass::Fragment,
    RxClass::FrameTooLong,
    RxClass::ErrorCharacter,
    RxClass::Truncated,
    RxClass::BadPreamble,
];

/// Frame counts by class.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FrameCounts {
    /// All frames.
    pub total: u64,
    /// Per class name.
    pub by_class: std::collections::BTreeMap<String, u64>,
    /// Those of them that started while the link was down (only a profile whose decoder
    /// decodes then has them), per class name: reported apart, no verdict counts them.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub while_link_down: std::collections::BTreeMap<String, u64>,
}

impl FrameCounts {
    /// The frames that started while the link was up, per class name: the ones a verdict
    /// judges.
    pub fn judged(&self) -> std::collections::BTreeMap<String, u64> {
        self.by_class
            .iter()
            .map(|(k, &n)| {
                let down = self.while_link_down.get(k).copied().unwrap_or(0);
                (k.clone(), n.saturating_sub(down))
            })
            .filter(|&(_, n)| n > 0)
            .collect()
    }
}

/// Receives what the RX chain produces.
pub trait RxSink {
    /// Whether [`RxSink::words`] wants the descrambled blocks too (the chain then takes the
    /// per-block path, which keeps them).
    fn wants_blocks(&self) -> bool {
        false
    }

    /// Whether [`RxSink::words`] is wanted (it is, unless the sink says not). A sink that says
    /// not is never given transfers, only frames and events: the chain then writes the data of
    /// long runs inside a frame straight into the frame, without transfers.
    fn wants_words(&self) -> bool {
        true
    }

    /// Decoded transfers; `first` is the index of the first (= its block index). `blocks`
    /// (when asked for) are the descrambled blocks they came from (`None` for a transfer
    /// without one, such as the XGMII input's).
    ///
    /// # Errors
    /// The sink could not take them.
    fn words(
        &mut self,
        _first: u64,
        _words: &[XgmiiWord],
        _blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        Ok(())
    }

    /// One received frame.
    ///
    /// # Errors
    /// The sink could not take it.
    fn frame(&mut self, _frame: &FrameRef<'_>) -> std::io::Result<()> {
        Ok(())
    }

    /// Whether [`RxSink::rx_event`] wants every step of the receive state machine (the chain
    /// then takes the per-block path).
    fn wants_events(&self) -> bool {
        false
    }

    /// The decoder's step for `block` (the arrow it took), when [`RxSink::wants_events`].
    fn rx_event(&mut self, _block: u64, _event: &RxEvent) {}

    /// The RS link fault status changed at `block` (every change, not only the first
    /// `max_events`).
    fn link_fault(&mut self, _block: u64, _status: LinkStatus) {}
}

/// Counts only.
impl RxSink for () {
    fn wants_words(&self) -> bool {
        false
    }
}

/// Keeps the frames.
impl RxSink for Vec<ReceivedFrame> {
    fn wants_words(&self) -> bool {
        false
    }

    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        self.push(f.to_owned());
        Ok(())
    }
}

/// Keeps the received frames and, when made with `blocks` (`Some`), the descrambled blocks:
/// the sink the conformance transmit verdict and the Python door's `decode` read a line with.
#[derive(Debug, Default)]
pub struct KeepFrames {
    /// The frames received.
    pub frames: Vec<ReceivedFrame>,
    /// The descrambled blocks, when asked for.
    pub blocks: Option<Vec<Block>>,
}

impl KeepFrames {
    /// A sink keeping the frames, and the blocks too when `blocks`.
    pub fn new(blocks: bool) -> Self {
        Self {
            frames: Vec::new(),
            blocks: blocks.then(Vec::new),
        }
    }
}

impl RxSink for KeepFrames {
    fn wants_blocks(&self) -> bool {
        self.blocks.is_some()
    }

    fn wants_words(&self) -> bool {
        self.blocks.is_some()
    }

    fn words(&mut self, _: u64, _: &[XgmiiWord], b: Option<&[Block]>) -> std::io::Result<()> {
        if let (Some(keep), Some(b)) = (self.blocks.as_mut(), b) {
            keep.extend_from_slice(b);
        }
        Ok(())
    }

    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        self.frames.push(f.to_owned());
        Ok(())
    }
}

/// The chain after the PCS: MAC RX, link fault monitor, accounting.
struct Back<K: RxSink> {
    /// Block spans `[from, to)` with the link down, and the start of the current one.
    down_spans: Vec<(u64, u64)>,
    down_since: Option<u64>,
    mac: MacRx,
    fault: LinkFaultMonitor,
    index: u64,
    summary: PcsSummary,
    /// Frames per class, indexed as [`CLASSES`].
    classes: [u64; 8],
    /// Those of them that started while the link was down.
    down_classes: [u64; 8],
    sink: K,
    /// [`RxSink::wants_words`].
    wants_words: bool,
    max_events: usize,
    error: Option<std::io::Error>,
    /// The last errored block counted, and its event.
    last_errored: Option<(u64, RxEvent)>,
}

impl<K: RxSink> Back<K> {
    /// `ordered_sets`: the transfers may hold a sequence ordered set (when they cannot, the
    /// link fault monitor in INIT, which only a sequence moves, is passed over).
    fn words(&mut self, words: &[XgmiiWord], blocks: Option<&[Block]>, ordered_sets: bool) {
        if words.is_empty() {
            return;
        }
        if self.wants_words && self.error.is_none() {
            if let Err(e) = self.sink.words(self.index, words, blocks) {
                self.error = Some(e);
            }
        }
        // The link fault monitor (it skips what cannot change it).
        if ordered_sets || self.fault.state() != LinkFaultState::Init {
            self.fault_monitor(words);
        }
        let (mac, mut frames) = self.split();
        mac.push_slice(words, |f: &RxFrame<'_>| frames.take(f));
        self.index += words.len() as u64;
    }

    /// A packet straight into the MAC (see [`MacRx::take_packet`]); returns the transfers
    /// taken.
    fn packet(&mut self, fill: impl FnOnce(&mut [u8]) -> Option<RxPacket>) -> usize {
        let (mac, mut frames) = self.split();
        let k = mac.take_packet(fill, |f: &RxFrame<'_>| frames.take(f));
        self.index += k as u64;
        k
    }

    /// The MAC, and the rest that books the frames it receives.
    fn split(&mut self) -> (&mut MacRx, Frames<'_, K>) {
        (
            &mut self.mac,
            Frames {
                classes: &mut self.classes,
                down_classes: &mut self.down_classes,
                max_events: self.max_events,
                sink: &mut self.sink,
                error: &mut self.error,
                spans: &self.down_spans,
                since: self.down_since,
                summary: &mut self.summary,
            },
        )
    }

    /// The transfers through the link fault monitor: every change of its status is booked.
    fn fault_monitor(&mut self, words: &[XgmiiWord]) {
        let (index, sink, summary, max) = (
            self.index,
            &mut self.sink,
            &mut self.summary,
            self.max_events,
        );
        self.fault.push_slice(words, |i, lf| {
            let block = index + i as u64;
            sink.link_fault(block, LinkStatus(lf));
            if summary.link_fault_changes.len() < max {
                summary.link_fault_changes.push(PcsEvent {
                    block,
                    what: format!("link fault status {}", LinkStatus(lf)),
                });
            }
        });
    }

    /// Books the decoder's event for `block`; `link_up`: the link was up for that block.
    fn pcs_event(&mut self, e: &RxEvent, block: u64, link_up: bool) {
        self.sink.rx_event(block, e);
        // Errored blocks count only while the link is up, in every profile (a profile whose
        // decoder decodes while unlocked gives events there that no receiver counts).
        if e.is_errored() && !e.link_down && link_up {
            self.summary.errored_blocks += 1;
            self.last_errored = Some((block, *e));
            // RX_INIT --D or T--> RX_E at the first block after the link came up: the receiver
            // joined the stream inside a frame (Fig. 49-17; its counter counts it), a frame
            // cut by lock acquisition, no fault of the stream.
            let joined = !e.by_block
                && e.from == RxState::Init
                && matches!(e.class, BlockClass::Data | BlockClass::Terminate)
                && self.down_spans.last().is_some_and(|&(_, to)| to == block);
            if joined {
                self.summary.cut_at_link_up.push(block);
            }
            if self.summary.e_transitions.len() < self.max_events {
                self.summary.e_transitions.push(PcsEvent {
                    block,
                    what: if joined {
                        format!("{e}: the first block after the link came up, inside a frame (a frame cut by lock acquisition, not a fault of the stream)")
                    } else {
                        e.to_string()
                    },
                });
            }
        }
    }
}

/// What books a received frame: its class counted, its link state, the sink.
struct Frames<'a, K> {
    classes: &'a mut [u64; 8],
    down_classes: &'a mut [u64; 8],
    max_events: usize,
    sink: &'a mut K,
    error: &'a mut Option<std::io::Error>,
    spans: &'a [(u64, u64)],
    since: Option<u64>,
    summary: &'a mut PcsSummary,
}

impl<K: RxSink> Frames<'_, K> {
    fn take(&mut self, f: &RxFrame<'_>) {
        let b = f.start.word;
        let link_down = self.since.is_some_and(|s| b >= s)
            || self
                .spans
                .iter()
                .rev()
                .take_while(|&&(_, to)| to > b)
                .any(|&(from, to)| (from..to).contains(&b));
        let index = self.classes.iter().sum();
        if link_down {
            self.summary.frames_while_link_down += 1;
            if let Some(n) = self.down_classes.get_mut(f.class as usize) {
                *n += 1;
            }
            let s = &mut *self.summary;
            if f.class != RxClass::Ok && s.link_down_frames.len() < self.max_events {
                let cause = if locked_at(s, b) {
                    LinkDownCause::HiBer
                } else {
                    LinkDownCause::BeforeLock
                };
                s.link_down_frames.push(LinkDownFrame {
                    index,
                    block: b,
                    class: class_name(f.class),
                    cause,
                });
            }
        }
        let r = FrameRef {
            index,
            class: f.class,
            data: f.data,
            len: f.len,
            fcs_ok: f.fcs_ok,
            start: Placement {
                block: f.start.word,
                lane: f.start.lane,
            },
            gap_octets: f.gap_octets,
            link_down,
        };
        if let Some(n) = self.classes.get_mut(f.class as usize) {
            *n += 1;
        }
        if self.error.is_none() {
            if let Err(e) = self.sink.frame(&r) {
                *self.error = Some(e);
            }
        }
    }
}

/// What the first blocks of a stream are taken for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prelude {
    /// Skipping reset fill, then training the descrambler (if `train`).
    Fill { train: bool },
    /// The next block trains the descrambler.
    Train,
    /// Every block is decoded.
    Done,
}

/// The all-zero block with sync header 0 that a dump holds while the DUT is in reset.
const RESET_FILL: Block = Block {
    sync: pcs_core::SyncHeader::from_bits(0),
    payload: 0,
};

/// The RX chain.
pub struct RxChain<K: RxSink> {
    input: RxInput,
    prelude: Prelude,
    /// The link (block lock and not hi_ber) for the block whose event is pending.
    link_up_pending: bool,
    aligner: BlockAligner<u64>,
    pcs: PcsRx,
    back: Back<K>,
    /// Block lock after the last block (serial input).
    locked: bool,
    hi_ber: bool,
    /// Blocks received.
    n: u64,
    /// The descrambled block whose transfer the decoder has not decided yet.
    pending_block: Option<Block>,
    wants_blocks: bool,
    /// Serial bytes not yet making a whole word, and the bits received.
    tail: Vec<u8>,
    bits: u64,
    /// [`RxChain::push_units`]: 66-bit units packed into serial words, and a buffer for them.
    units: TxGearbox<u64>,
    unit_words: Vec<u64>,
    // Batch buffers.
    blocks: Vec<Block>,
    aligned: Vec<AlignedBlock>,
    words: Vec<XgmiiWord>,
    dblocks: Vec<Block>,
    serial: Vec<u64>,
}

impl<K: RxSink> RxChain<K> {
    /// A chain out of reset.
    pub fn new(opt: &RxOptions, input: RxInput, sink: K) -> Self {
        let descrambler_state = match input {
            RxInput::Blocks {
                descrambler_state, ..
            } => descrambler_state.unwrap_or(SCRAMBLER_DEFAULT_STATE),
            _ => SCRAMBLER_DEFAULT_STATE,
        };
        let train = matches!(
            input,
            RxInput::SerialAligned { .. }
                | RxInput::Blocks {
                    scrambled: true,
                    descrambler_state: None
                }
        );
        let prelude = match input {
            RxInput::Serial | RxInput::Xgmii => Prelude::Done,
            _ if opt.strict_start && train => Prelude::Train,
            _ if opt.strict_start => Prelude::Done,
            _ => Prelude::Fill { train },
        };
        let config = PcsRxConfig {
            decoder: opt.profile.decoder(),
            ber: opt.ber_timer.ber_config(),
            ber_lock_loss: opt.profile.ber_lock_loss(),
            descrambler_state,
        };
        // A sink that wants the descrambled blocks or every decoder step gets the per-block
        // path.
        let wants_blocks = sink.wants_blocks() || sink.wants_events();
        let mut summary = PcsSummary {
            input: input.kind(),
            ..PcsSummary::default()
        };
        let aligner = match input {
            RxInput::Blocks { .. } => {
                summary.lock_acquired = Some(LockAcquired {
                    bit_offset: 0,
                    block: 0,
                    slips: 0,
                });
                BlockAligner::new()
            }
            RxInput::SerialAligned { bit_offset, found } => {
                summary.lock_acquired = Some(LockAcquired {
                    bit_offset: u64::from(bit_offset),
                    block: 0,
                    slips: 0,
                });
                summary.receiver_lock = Some(found);
                BlockAligner::locked_at(bit_offset)
            }
            RxInput::Serial | RxInput::Xgmii => BlockAligner::new(),
        };
        Self {
            input,
            prelude,
            link_up_pending: false,
            aligner,
            pcs: PcsRx::new(config),
            back: Back {
                down_spans: Vec::new(),
                down_since: None,
                mac: MacRx::with_engine(opt.mac),
                fault: LinkFaultMonitor::new(),
                index: 0,
                summary,
                classes: [0; 8],
                down_classes: [0; 8],
                wants_words: sink.wants_words(),
                sink,
                max_events: opt.max_events,
                error: None,
                last_errored: None,
            },
            locked: matches!(input, RxInput::SerialAligned { .. }),
            hi_ber: false,
            n: 0,
            pending_block: None,
            wants_blocks,
            tail: Vec::new(),
            bits: 0,
            units: TxGearbox::new(),
            unit_words: Vec::new(),
            // One block and then whole groups of 32: the gearbox cuts a first block on its own
            // and the rest 32 at a time, and a batch of 1 + 32k blocks leaves none to cut one
            // by one (512: 31 of them, 2 instructions a block).
            blocks: vec![Block::IDLE; BATCH + 1],
            aligned: vec![
                AlignedBlock {
                    block: Block::IDLE,
                    bit_offset: 0,
                    block_lock: false,
                    action: LockAction::Hold,
                };
                BATCH
            ],
            words: vec![XgmiiWord::IDLE; BATCH + 2],
            dblocks: vec![Block::IDLE; BATCH + 2],
            serial: Vec::with_capacity(SERIAL_PIECE),
        }
    }

    /// The frames received so far, by class.
    pub fn counts(&self) -> FrameCounts {
        let mut c = FrameCounts::default();
        for ((class, &n), &down) in CLASSES
            .iter()
            .zip(&self.back.classes)
            .zip(&self.back.down_classes)
        {
            if n > 0 {
                c.total += n;
                c.by_class.insert(class_name(*class).into(), n);
            }
            if down > 0 {
                c.while_link_down.insert(class_name(*class).into(), down);
            }
        }
        c
    }

    /// What the PCS side saw so far, for a live model (complete only at [`RxChain::finish`]:
    /// `blocks`, `link_fault` and `starts` are filled there; see [`RxChain::link_fault`]).
    pub fn pcs(&self) -> &PcsSummary {
        &self.back.summary
    }

    /// The RS link fault status now (§46.3.4).
    pub fn link_fault(&self) -> LinkStatus {
        LinkStatus(self.back.fault.link_fault())
    }

    /// Block lock after the last block (serial input); given for block input.
    pub fn block_lock(&self) -> bool {
        match self.input {
            RxInput::Serial | RxInput::SerialAligned { .. } => self.locked,
            _ => true,
        }
    }

    /// `hi_ber` after the last block.
    pub fn hi_ber(&self) -> bool {
        self.hi_ber
    }

    /// The last errored block counted: its index and the receive state machine's arrow, in
    /// the spec's terms (`RX_D --C--> RX_E`), however many were kept in the summary.
    pub fn last_errored(&self) -> Option<PcsEvent> {
        self.back.last_errored.map(|(block, e)| PcsEvent {
            block,
            what: e.to_string(),
        })
    }

    /// The sink, for a live model that takes what it was given as it arrives.
    pub fn sink_mut(&mut self) -> &mut K {
        &mut self.back.sink
    }

    /// The input this chain was made for.
    pub fn input(&self) -> RxInput {
        self.input
    }

    /// Blocks (or transfers) received so far.
    pub fn blocks_received(&self) -> u64 {
        match self.input {
            RxInput::Xgmii => self.back.index,
            _ => self.n,
        }
    }

    /// Receives serial bytes (bit 0 of the first byte first on the wire), any number at a time.
    pub fn push_bytes(&mut self, mut bytes: &[u8]) {
        self.bits += 8 * bytes.len() as u64;
        if !self.tail.is_empty() {
            let k = (8 - self.tail.len()).min(bytes.len());
            let (head, rest) = bytes.split_at(k);
            self.tail.extend_from_slice(head);
            bytes = rest;
            if let Ok(w) = <[u8; 8]>::try_from(self.tail.as_slice()) {
                self.tail.clear();
                self.serial_words(&[u64::from_le_bytes(w)]);
            }
        }
        let mut chunks = bytes.chunks_exact(8);
        let mut words = std::mem::take(&mut self.serial);
        loop {
            words.clear();
            words.extend(
                (&mut chunks)
                    .take(SERIAL_PIECE)
                    .map(|c| c.first_chunk::<8>().map_or(0, |w| u64::from_le_bytes(*w))),
            );
            if words.is_empty() {
                break;
            }
            self.serial_words(&words);
        }
        self.serial = words;
        self.tail.extend_from_slice(chunks.remainder());
    }

    /// Receives 66 serial bits at a time, as a serdes interface of 66 bits gives them on each
    /// clock (for [`RxInput::Serial`] and [`RxInput::SerialAligned`]): unit bit 0 (sync bit 0)
    /// first on the wire, then the payload's bits 0..63. A unit is 66 line bits, not a block:
    /// the boundary is found by block lock (or given by `SerialAligned`), so a unit may
    /// straddle two blocks. Bits that do not yet fill a 64-bit word wait for the next units or
    /// [`RxChain::finish`]. Do not mix with [`RxChain::push_bytes`] in one chain.
    pub fn push_units(&mut self, units: &[Block]) {
        let mut words = std::mem::take(&mut self.unit_words);
        for chunk in units.chunks(BATCH) {
            words.clear();
            for &u in chunk {
                words.extend_from_slice(self.units.push_block(u).as_slice());
            }
            self.push_serial(&words);
        }
        self.unit_words = words;
    }

    /// Receives serial words of 64 bits (bit 0 first on the wire).
    pub fn push_serial(&mut self, words: &[u64]) {
        self.bits += 64 * words.len() as u64;
        self.serial_words(words);
    }

    fn serial_words(&mut self, mut rest: &[u64]) {
        while !rest.is_empty() {
            if self.aligner.lock().block_lock() && self.prelude == Prelude::Done {
                let r = self.aligner.push_words_locked(rest, &mut self.blocks);
                if r.consumed > 0 || r.produced > 0 {
                    let locked = r.produced - usize::from(r.lost_lock);
                    let batch = std::mem::take(&mut self.blocks);
                    self.locked = true;
                    self.pcs_batch(batch.get(..locked).unwrap_or_default(), true);
                    if r.lost_lock {
                        if let Some(&b) = batch.get(locked) {
                            self.back.summary.lock_losses.push(self.n);
                            self.locked = false;
                            let mut k = 0;
                            self.pcs_block(b, false, &mut k);
                            self.emit(k);
                        }
                    }
                    self.blocks = batch;
                    rest = rest.get(r.consumed..).unwrap_or_default();
                    continue;
                }
            }
            let p = self.aligner.push_words(rest, &mut self.aligned);
            let aligned = std::mem::take(&mut self.aligned);
            let mut k = 0;
            for a in aligned.get(..p.produced).unwrap_or_default() {
                self.lock_edge(a);
                self.pcs_block(a.block, a.block_lock, &mut k);
            }
            self.aligned = aligned;
            self.emit(k);
            rest = rest.get(p.consumed..).unwrap_or_default();
            if p.consumed == 0 && p.produced == 0 {
                break;
            }
        }
    }

    /// Books block lock changes and invalid headers of one aligned block.
    fn lock_edge(&mut self, a: &AlignedBlock) {
        let s = &mut self.back.summary;
        if a.block_lock && !self.locked {
            let at = LockAcquired {
                bit_offset: a.bit_offset,
                block: self.n,
                slips: self.aligner.slips(),
            };
            if s.lock_acquired.is_none() {
                s.lock_acquired = Some(at);
            } else {
                s.relocks.push(at);
            }
        } else if !a.block_lock && self.locked {
            s.lock_losses.push(self.n);
        }
        self.locked = a.block_lock;
    }

    /// Receives 66-bit blocks (for [`RxInput::Blocks`]).
    pub fn push_blocks(&mut self, blocks: &[Block]) {
        let scrambled = !matches!(
            self.input,
            RxInput::Blocks {
                scrambled: false,
                ..
            }
        );
        let mut blocks = blocks;
        while self.prelude != Prelude::Done {
            let Some((&b, rest)) = blocks.split_first() else {
                return;
            };
            let mut k = 0;
            if scrambled {
                self.pcs_block(b, true, &mut k);
            } else {
                self.pcs_block_descrambled(b, &mut k);
            }
            self.emit(k);
            blocks = rest;
        }
        for batch in blocks.chunks(BATCH) {
            if scrambled {
                self.pcs_batch(batch, true);
            } else {
                let mut k = 0;
                for &b in batch {
                    self.pcs_block_descrambled(b, &mut k);
                }
                self.emit(k);
            }
        }
    }

    /// Receives XGMII transfers (for [`RxInput::Xgmii`]): straight to the MAC.
    pub fn push_xgmii(&mut self, words: &[XgmiiWord]) {
        self.back.words(words, None, true);
    }

    /// Locked line blocks through the receive PCS: the batch path when it reports nothing
    /// block by block, else the per-block path. A batch with an event in it is cut in halves
    /// down to [`EVENT_PIECE`] blocks, so that a rare event costs a few blocks of the
    /// per-block path, not the whole batch's.
    fn pcs_batch(&mut self, batch: &[Block], block_lock: bool) {
        if batch.is_empty() {
            return;
        }
        // The batch path, unless the sink wants the descrambled blocks or an event is under
        // way. Invalid headers, errored blocks and hi_ber all show in the PCS's own counters
        // (every invalid header while locked enters BER_BAD_SH); counters near saturation
        // take the per-block path.
        let (ber, errored) = (self.pcs.status.ber_count(), self.pcs.status.errored_count());
        let mut rest = batch;
        if !self.wants_blocks && !self.hi_ber && block_lock && ber.max(errored) < 1 << 21 {
            // A sink that wants no transfers has whole packets, and long data runs inside a
            // frame, go straight into the frame: the batch is decoded in pieces that end with a
            // start pending between packets or in front of a long run.
            let mut stops = if self.back.wants_words {
                Stops::Never
            } else {
                Stops::ForOctets
            };
            loop {
                let saved = self.pcs;
                let r = self.pcs.decode_slice(rest, true, &mut self.words, stops);
                // Every block that enters RX_E counts in the errored-blocks counter, exactly
                // while it is below saturation.
                let quiet = (r.consumed == rest.len() || r.at_long_run || r.at_packet)
                    && !self.pcs.ber.hi_ber()
                    && self.pcs.status.ber_count() == ber
                    && self.pcs.status.errored_count() == errored;
                if !quiet {
                    self.pcs = saved;
                    break;
                }
                self.link(true);
                self.link_up_pending = true;
                self.n += r.consumed as u64;
                self.pending_block = None;
                // When the decoder's short arrows decided every transfer, none is an ordered set.
                self.emit_checked(r.written, r.by_diagram > 0);
                rest = rest.get(r.consumed..).unwrap_or_default();
                if r.at_packet {
                    let k = self.packets(rest);
                    rest = rest.get(k..).unwrap_or_default();
                }
                if r.at_long_run {
                    let k = self.data_run(rest);
                    rest = rest.get(k..).unwrap_or_default();
                    // A run the frame did not take is decoded as transfers.
                    if k == 0 {
                        stops = Stops::Never;
                    }
                }
                if rest.is_empty() {
                    return;
                }
            }
            if rest.len() > EVENT_PIECE {
                let (a, b) = rest.split_at(rest.len() / 2);
                self.pcs_batch(a, block_lock);
                self.pcs_batch(b, block_lock);
                return;
            }
        }
        let mut k = 0;
        for &b in rest {
            self.pcs_block(b, block_lock, &mut k);
        }
        self.emit(k);
    }

    /// A long run of data blocks (the decoder stopped in front of it, locked, in the steady
    /// state), its transfers written by the decoder straight into the frame the MAC is
    /// receiving; returns the blocks taken (0 when the MAC is not in a frame's data or its
    /// buffer is full, or the link fault monitor is counting columns).
    fn data_run(&mut self, line: &[Block]) -> usize {
        // Out of INIT, the link fault monitor counts every column.
        if self.back.fault.state() != LinkFaultState::Init {
            return 0;
        }
        let pcs = &mut self.pcs;
        let k = self
            .back
            .mac
            .take_data_run(|octets| pcs.decode_data_run(line, true, octets));
        self.back.index += k as u64;
        self.n += k as u64;
        k
    }

    /// The packets that follow, each one whole in `line` (the decoder stopped with its start
    /// pending, locked, in the steady state), decoded straight into the frames the MAC
    /// receives; returns the blocks taken (0 when the link fault monitor is counting columns).
    fn packets(&mut self, line: &[Block]) -> usize {
        if self.back.fault.state() != LinkFaultState::Init {
            return 0;
        }
        let mut packets = self.pcs.packets(line, true);
        while self.back.packet(|room| packets.next(room).map(rx_packet)) > 0 {}
        let taken = packets.taken();
        drop(packets);
        self.n += taken as u64;
        taken
    }

    /// One line block through the per-block path; its decided transfer (if any) is put at
    /// `words[*k]`.
    fn pcs_block(&mut self, b: Block, block_lock: bool, k: &mut usize) {
        if self.prelude != Prelude::Done && self.prelude_takes(b, k) {
            return;
        }
        if block_lock && !b.sync.is_valid() {
            self.back.summary.invalid_headers += 1;
        }
        let step = self.pcs.push(b, block_lock);
        self.account(&step, block_lock, k);
    }

    /// One block of an unscrambled dump (lock is given).
    fn pcs_block_descrambled(&mut self, b: Block, k: &mut usize) {
        if self.prelude != Prelude::Done && self.prelude_takes(b, k) {
            return;
        }
        if !b.sync.is_valid() {
            self.back.summary.invalid_headers += 1;
        }
        let step = self.pcs.push_descrambled(b, true);
        self.account(&step, true, k);
    }

    /// Reset fill and the descrambler's training block: taken here, written as idles (so
    /// that transfer i is still block i), not decoded. Returns whether `b` was taken.
    fn prelude_takes(&mut self, b: Block, k: &mut usize) -> bool {
        let s = &mut self.back.summary;
        match self.prelude {
            Prelude::Fill { .. } if b == RESET_FILL => s.reset_fill_blocks += 1,
            Prelude::Fill { train: true } | Prelude::Train => {
                // Its transfer is not decoded, but its header is tested as any other's
                // (49.2.4.3): a DUT's first block after reset may be the one in error.
                if !b.sync.is_valid() {
                    s.invalid_headers += 1;
                }
                // The descrambler state after a block is its last 58 line bits.
                self.pcs.descrambler = Descrambler::new(b.payload >> 6);
                s.descrambler_trained_at = Some(self.n);
                self.prelude = Prelude::Done;
            }
            Prelude::Fill { train: false } | Prelude::Done => {
                self.prelude = Prelude::Done;
                return false;
            }
        }
        self.put(XgmiiWord::IDLE, None, k);
        self.n += 1;
        true
    }

    /// The link's state for block `self.n`: keeps the spans with the link down.
    fn link(&mut self, up: bool) {
        let b = &mut self.back;
        match (up, b.down_since) {
            (false, None) => b.down_since = Some(self.n),
            (true, Some(from)) => {
                b.down_spans.push((from, self.n));
                b.down_since = None;
            }
            _ => {}
        }
    }

    /// Books one PCS step: `hi_ber` edges, the event of the previous block.
    fn account(&mut self, step: &PcsRxStep, block_lock: bool, k: &mut usize) {
        let up = block_lock && !step.hi_ber;
        self.link(up);
        let n = self.n;
        let s = &mut self.back.summary;
        if step.hi_ber && !self.hi_ber {
            if block_lock {
                s.hi_ber_episodes.push(n);
            } else {
                s.hi_ber_before_lock.push(n);
            }
        }
        if !step.hi_ber && self.hi_ber {
            s.hi_ber_clears.push(n);
        }
        self.hi_ber = step.hi_ber;
        let block = self.pending_block.replace(step.block);
        let up_before = std::mem::replace(&mut self.link_up_pending, up);
        if let Some(e) = step.rx {
            self.back.pcs_event(&e, n.saturating_sub(1), up_before);
            self.put(e.word, block, k);
        }
        self.n += 1;
    }

    fn put(&mut self, w: XgmiiWord, block: Option<Block>, k: &mut usize) {
        if let Some(slot) = self.words.get_mut(*k) {
            *slot = w;
        }
        if let Some(slot) = self.dblocks.get_mut(*k) {
            *slot = block.unwrap_or(Block {
                sync: pcs_core::SyncHeader::from_bits(0),
                payload: 0,
            });
        }
        *k += 1;
    }

    /// Hands the first `k` decided transfers to the MAC and the sink.
    fn emit(&mut self, k: usize) {
        self.emit_checked(k, true);
    }

    /// [`RxChain::emit`]; `ordered_sets`: the transfers may hold a sequence ordered set.
    fn emit_checked(&mut self, k: usize, ordered_sets: bool) {
        let words = self.words.get(..k).unwrap_or_default();
        let blocks = self
            .wants_blocks
            .then(|| self.dblocks.get(..k).unwrap_or_default());
        self.back.words(words, blocks, ordered_sets);
    }

    /// Ends the stream: decodes the serial bits that complete a block, decides the last
    /// pending block. Returns the summary, the frame counts and the sink.
    ///
    /// # Errors
    /// The sink failed.
    pub fn finish(mut self) -> Result<(PcsSummary, FrameCounts, K), std::io::Error> {
        if let Some(last) = self.units.flush() {
            // The bits of the last units that did not fill a word (push_units).
            let n = last.valid_bits.div_ceil(8) as usize;
            self.tail
                .extend(last.word.to_le_bytes().into_iter().take(n));
            self.bits += u64::from(last.valid_bits);
        }
        if !self.tail.is_empty() {
            // The last bytes, zero padded to a word; only blocks that end within the bits
            // received are cut.
            let mut w = [0u8; 8];
            for (d, s) in w.iter_mut().zip(&self.tail) {
                *d = *s;
            }
            if self.aligner.feed(u64::from_le_bytes(w)).is_ok() {
                let mut k = 0;
                while self.aligner.next_block_offset() + 66 <= self.bits {
                    let Some(a) = self.aligner.next_block() else {
                        break;
                    };
                    self.lock_edge(&a);
                    self.pcs_block(a.block, a.block_lock, &mut k);
                    if k + 1 >= self.words.len() {
                        self.emit(k);
                        k = 0;
                    }
                }
                self.emit(k);
            }
        }
        if self.input != RxInput::Xgmii {
            if let Some(e) = self.pcs.flush() {
                self.back
                    .pcs_event(&e, self.n.saturating_sub(1), self.link_up_pending);
                let block = self.pending_block.take();
                let mut k = 0;
                self.put(e.word, block, &mut k);
                self.emit(k);
            }
            self.back.summary.blocks = self.n;
        } else {
            self.back.summary.blocks = self.back.index;
        }
        if let Some(e) = self.back.error.take() {
            return Err(e);
        }
        let counts = self.counts();
        let mut summary = self.back.summary;
        summary.link_fault = LinkStatus(self.back.fault.link_fault());
        summary.starts = self.back.mac.stats().starts;
        Ok((summary, counts, self.back.sink))
    }
}

/// Finds where a receiver acquires block lock in a serial stream: feed bytes from the
/// stream's first bit until it answers.
#[derive(Clone, Debug, Default)]
pub struct LockFinder {
    aligner: BlockAligner<u8>,
    blocks: u64,
}

impl LockFinder {
    /// Feeds the next bytes; returns where lock was acquired (the bit offset of the first
    /// locked block, its index, the slips it took) once it was.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Option<LockAcquired> {
        let mut found = None;
        for a in self.aligner.blocks(bytes) {
            if a.block_lock {
                found = Some(a.bit_offset);
                break;
            }
            self.blocks += 1;
        }
        found.map(|bit_offset| LockAcquired {
            bit_offset,
            block: self.blocks,
            slips: self.aligner.slips(),
        })
    }
}

/// Finds lock in `bytes` (a whole stream or its start): see [`LockFinder`].
pub fn find_lock(bytes: &[u8]) -> Option<LockAcquired> {
    LockFinder::default().push_bytes(bytes)
}

/// The PCS's decoded packet as the MAC takes it (the same five facts, the MAC's own type).
#[inline(always)]
fn rx_packet(p: DecodedPacket) -> RxPacket {
    RxPacket {
        start_lane: p.start_lane,
        lead: p.lead,
        octets: p.octets,
        transfers: p.transfers,
        ended: p.ended,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tx::{TxChain, TxOptions, VecSink};
    use proptest::prelude::*;

    /// Records everything, and asks for the blocks (forcing the per-block path) or not; or
    /// records only the frames (`frames_only`: long data runs then go straight into frames).
    #[derive(Default)]
    struct Rec {
        blocks: bool,
        frames_only: bool,
        words: Vec<XgmiiWord>,
        frames: Vec<ReceivedFrame>,
    }

    impl RxSink for Rec {
        fn wants_blocks(&self) -> bool {
            self.blocks
        }
        fn wants_words(&self) -> bool {
            !self.frames_only
        }
        fn words(
            &mut self,
            first: u64,
            w: &[XgmiiWord],
            b: Option<&[Block]>,
        ) -> std::io::Result<()> {
            assert_eq!(first, self.words.len() as u64);
            assert_eq!(b.map(<[Block]>::len), self.blocks.then_some(w.len()));
            self.words.extend_from_slice(w);
            Ok(())
        }
        fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
            self.frames.push(f.to_owned());
            Ok(())
        }
    }

    fn line(lens: &[usize]) -> Vec<Block> {
        line_with_sequences(lens, &[])
    }

    /// Frames of `lens`, with `(after frame, kind, count)` runs of sequence ordered sets
    /// between them: Local Fault in both columns, Remote Fault in both, Local Fault in
    /// column 0 only, Remote Fault in column 1 only (idles in the other column).
    fn line_with_sequences(lens: &[usize], sequences: &[(usize, u8, usize)]) -> Vec<Block> {
        let idles = XgmiiWord::IDLE;
        let kinds = [
            XgmiiWord::LOCAL_FAULT,
            XgmiiWord::REMOTE_FAULT,
            XgmiiWord::new(
                XgmiiWord::LOCAL_FAULT.data & 0xffff_ffff | idles.data & !0xffff_ffff,
                0xf1,
            ),
            XgmiiWord::new(
                XgmiiWord::REMOTE_FAULT.data & !0xffff_ffff | idles.data & 0xffff_ffff,
                0x1f,
            ),
        ];
        let mut c = TxChain::new(&TxOptions::default(), VecSink::default());
        for (i, &l) in lens.iter().enumerate() {
            c.frame(&vec![i as u8 ^ 0x5a; l], None).unwrap();
            for &(_, kind, n) in sequences.iter().filter(|s| s.0 == i) {
                c.words(&vec![kinds[usize::from(kind) % 4]; n]);
                c.idle(1);
            }
        }
        c.finish().unwrap().0.lines
    }

    fn serial(lines: &[Block], skip_bits: usize) -> Vec<u8> {
        let mut gb = pcs_core::TxGearbox::<u8>::new();
        let mut bytes = Vec::new();
        for b in lines {
            bytes.extend_from_slice(gb.push_block(*b).as_slice());
        }
        if let Some(t) = gb.flush() {
            bytes.push(t.word);
        }
        // Start `skip_bits` into the stream.
        let mut out = Vec::new();
        let total = bytes.len() * 8;
        let mut acc = 0u8;
        for (j, i) in (skip_bits..total).enumerate() {
            let bit = (bytes[i / 8] >> (i % 8)) & 1;
            acc |= bit << (j % 8);
            if j % 8 == 7 {
                out.push(acc);
                acc = 0;
            }
        }
        out
    }

    fn run(
        input: RxInput,
        feed: impl FnOnce(&mut RxChain<Rec>),
        blocks: bool,
    ) -> (PcsSummary, FrameCounts, Rec) {
        let rec = Rec {
            blocks,
            ..Rec::default()
        };
        run_with(input, feed, rec)
    }

    fn run_with(
        input: RxInput,
        feed: impl FnOnce(&mut RxChain<Rec>),
        rec: Rec,
    ) -> (PcsSummary, FrameCounts, Rec) {
        let opt = RxOptions {
            max_events: 1000,
            ..RxOptions::default()
        };
        let mut c = RxChain::new(&opt, input, rec);
        feed(&mut c);
        c.finish().unwrap()
    }

    /// The same PCS summary and frame counts.
    fn same_counts(
        a: &(PcsSummary, FrameCounts, Rec),
        b: &(PcsSummary, FrameCounts, Rec),
    ) -> Result<(), TestCaseError> {
        prop_assert_eq!(
            serde_json::to_string(&a.0).ok(),
            serde_json::to_string(&b.0).ok()
        );
        prop_assert_eq!(
            serde_json::to_string(&a.1).ok(),
            serde_json::to_string(&b.1).ok()
        );
        Ok(())
    }

    /// Frames only (the sink wants no transfers): the same summary, counts and frames as
    /// `slow`'s, and no transfer given.
    fn same_frames(
        a: &(PcsSummary, FrameCounts, Rec),
        b: &(PcsSummary, FrameCounts, Rec),
    ) -> Result<(), TestCaseError> {
        same_counts(a, b)?;
        prop_assert!(a.2.words.is_empty());
        prop_assert_eq!(
            serde_json::to_string(&a.2.frames).ok(),
            serde_json::to_string(&b.2.frames).ok()
        );
        for (x, y) in a.2.frames.iter().zip(&b.2.frames) {
            prop_assert_eq!(&x.data, &y.data);
        }
        Ok(())
    }

    fn same(
        a: &(PcsSummary, FrameCounts, Rec),
        b: &(PcsSummary, FrameCounts, Rec),
    ) -> Result<(), TestCaseError> {
        same_counts(a, b)?;
        prop_assert_eq!(&a.2.words, &b.2.words);
        // One transfer per block, the last one flushed at the end.
        prop_assert_eq!(a.0.blocks as usize, a.2.words.len());
        prop_assert_eq!(a.2.frames.len(), b.2.frames.len());
        for (x, y) in a.2.frames.iter().zip(&b.2.frames) {
            prop_assert_eq!(&x.data, &y.data);
            prop_assert_eq!(x.start, y.start);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The batch paths equal the per-block path, on clean streams and on streams with
        /// flipped line bits (invalid headers, errored blocks, lost frames) and runs of link
        /// fault sequences between frames, fed in uneven pieces, from any bit offset.
        #[test]
        fn batch_paths_equal_the_per_block_path(
            lens in proptest::collection::vec(0usize..1515, 1..30),
            flips in proptest::collection::vec(any::<u32>(), 0..6),
            skip in 0usize..66,
            cuts in proptest::collection::vec(1usize..3000, 1..8),
            sequences in proptest::collection::vec((0usize..30, 0u8..4, 1usize..12), 0..4),
        ) {
            let lines = line_with_sequences(&lens, &sequences);
            let mut bytes = serial(&lines, skip);
            let nbits = bytes.len() * 8;
            for f in &flips {
                // Flips after the leading idles (lock first), anywhere else.
                let at = 128 * 66 + (*f as usize) % (nbits - 128 * 66).max(1);
                if at < nbits {
                    bytes[at / 8] ^= 1 << (at % 8);
                }
            }
            let feed = |c: &mut RxChain<Rec>| {
                let mut rest = &bytes[..];
                let mut i = 0;
                while !rest.is_empty() {
                    let k = cuts[i % cuts.len()].min(rest.len());
                    c.push_bytes(&rest[..k]);
                    rest = &rest[k..];
                    i += 1;
                }
            };
            let fast = run(RxInput::Serial, feed, false);
            let slow = run(RxInput::Serial, feed, true);
            same(&fast, &slow)?;
            let frames_only = Rec { frames_only: true, ..Rec::default() };
            same_frames(&run_with(RxInput::Serial, feed, frames_only), &slow)?;
            if flips.is_empty() && skip == 0 {
                // (From another offset, lock may take longer than the 128 leading idles.)
                prop_assert_eq!(fast.1.total as usize, lens.len());
                prop_assert_eq!(fast.1.by_class.get("ok").copied().unwrap_or(0) as usize, lens.len());
            }
            // Blocks given (scrambled): the same again.
            let mut lines = lines.clone();
            for f in &flips {
                let at = 128 + (*f as usize) % (lines.len() - 128);
                lines[at].payload ^= 1 << (f % 64);
            }
            let input = RxInput::Blocks { scrambled: true, descrambler_state: None };
            let by_chunks = |c: &mut RxChain<Rec>| { for ch in lines.chunks(700) { c.push_blocks(ch); } };
            let fast = run(input, by_chunks, false);
            let slow = run(input, |c| { for &b in &lines { c.push_blocks(&[b]); } }, true);
            same(&fast, &slow)?;
            let frames_only = Rec { frames_only: true, ..Rec::default() };
            same_frames(&run_with(input, by_chunks, frames_only), &slow)?;
        }
    }

    /// The whole 66-bit units of a serial byte stream (bit 0 of byte 0 first on the wire).
    fn units(bytes: &[u8]) -> Vec<Block> {
        let bit = |i: usize| u64::from((bytes[i / 8] >> (i % 8)) & 1);
        (0..bytes.len() * 8 / 66)
            .map(|u| {
                let at = u * 66;
                Block {
                    sync: pcs_core::SyncHeader::from_bits((bit(at) | bit(at + 1) << 1) as u8),
                    payload: (0..64).fold(0, |p, i| p | bit(at + 2 + i) << i),
                }
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// 66-bit units (a serdes interface's clocks) give what the same line bits give as
        /// bytes, from any bit offset, one unit per call or many.
        #[test]
        fn units_give_what_the_same_bits_give_as_bytes(
            lens in proptest::collection::vec(0usize..1515, 1..12),
            skip in 0usize..66,
            per_call in 1usize..40,
        ) {
            let mut bytes = serial(&line(&lens), skip);
            // A whole number of units and of bytes (264 bits = 4 units = 33 bytes).
            bytes.truncate(bytes.len() / 33 * 33);
            let u = units(&bytes);
            let by_bytes = run(RxInput::Serial, |c| c.push_bytes(&bytes), false);
            let by_units = run(
                RxInput::Serial,
                |c| {
                    for ch in u.chunks(per_call) {
                        c.push_units(ch);
                    }
                },
                false,
            );
            same(&by_bytes, &by_units)?;
        }
    }

    #[test]
    fn units_from_any_offset_decode_every_frame_offline() {
        // Two idles only: the first frames pass before a receiver could lock.
        let opt = TxOptions {
            idle_blocks: 2,
            ..TxOptions::default()
        };
        let mut c = TxChain::new(&opt, VecSink::default());
        for i in 0..6u8 {
            c.frame(&vec![i; 60 + 100 * usize::from(i)], None).unwrap();
        }
        let lines = c.finish().unwrap().0.lines;
        for skip in [0, 1, 13, 65] {
            let bytes = serial(&lines, skip);
            let u = units(&bytes);
            // As a receiver: frames before lock are lost.
            let (_, rx, _) = run(RxInput::Serial, |c| c.push_units(&u), false);
            assert!(rx.total < 6, "{skip}: {}", rx.total);
            // Offline: the boundary found first, then every frame from the first block.
            let found = find_lock(&bytes).unwrap();
            let input = RxInput::SerialAligned {
                bit_offset: u32::try_from(found.bit_offset % 66).unwrap(),
                found,
            };
            let (pcs, counts, rec) = run(
                input,
                |c| {
                    for &x in &u {
                        c.push_units(&[x]);
                    }
                },
                false,
            );
            assert_eq!(counts.by_class.get("ok"), Some(&6), "{skip}: {pcs:?}");
            for (i, f) in rec.frames.iter().enumerate() {
                assert_eq!(f.content(), vec![i as u8; 60 + 100 * i].as_slice());
            }
        }
    }

    #[test]
    fn the_last_bytes_complete_a_block_without_a_phantom_one() {
        // 130 idle blocks = 8580 bits = 1072.5 bytes: the last byte holds 4 real bits.
        let lines = vec![Block::IDLE; 130];
        for skip in [0, 1, 7, 30, 65] {
            let bytes = serial(&lines, skip);
            let (pcs, _, _) = run(RxInput::Serial, |c| c.push_bytes(&bytes), false);
            let whole = (bytes.len() * 8) / 66;
            // Every whole block of the stream is cut, and no block past its last bit.
            assert!(
                pcs.blocks as usize <= whole,
                "{skip}: {} > {whole}",
                pcs.blocks
            );
            assert!(
                pcs.blocks as usize + 1 >= whole,
                "{skip}: {} of {whole}",
                pcs.blocks
            );
        }
    }
}
