//! The chains composing the cores:
//!
//! ```text
//! TX: frames -> MacTx (preamble, pad, FCS, IFG + DIC) -> PcsTx (encode, scramble) -> sinks
//! RX: .bits -> BlockAligner (lock, slip) -> PcsRx (BER, descramble, decode) -> MacRx -> frames
//!     .b66  ----------------------------->  PcsRx
//!     .xgmii -------------------------------------------------------------->  MacRx
//! ```
//!
//! Positions: transfer i of an XGMII stream and block i of the 66-bit stream it came from (or
//! went to) are the same index; the decoder's one block of latency is absorbed here.

use crate::fcs::MacRx;
use crate::fcs::MacTx;
use crate::format::b66::{B66Reader, Scrambling};
use crate::format::xgmii::XgmiiReader;
use crate::format::InputError;
use crate::profile::Profile;
use mac_core::fault::{LinkFault, LinkFaultMonitor};
use mac_core::rx::{RxClass, RxConfig, RxFrame};
use mac_core::tx::TxConfig;
use pcs_core::decode::RxEvent;
use pcs_core::lock::BlockAligner;
use pcs_core::pcs::{PcsRx, PcsRxConfig, PcsRxStep, PcsTx};
use pcs_core::scramble::DEFAULT_STATE;
use pcs_core::{Block, ControlChar, SyncHeader, XgmiiWord};
use serde::Serialize;
use std::io::{BufReader, Read};
use std::path::Path;

/// Receives what the TX chain produces, one block time at a time.
pub trait TxSink {
    /// One XGMII transfer, its unscrambled block and the line block.
    ///
    /// # Errors
    /// The sink could not write.
    fn put(&mut self, word: XgmiiWord, block: Block, line: Block) -> std::io::Result<()>;
}

/// Keeps everything in memory (for comparisons).
#[derive(Default)]
pub struct VecSink {
    /// The transfers.
    pub words: Vec<XgmiiWord>,
    /// The unscrambled blocks.
    pub blocks: Vec<Block>,
    /// The line (scrambled) blocks.
    pub lines: Vec<Block>,
}

impl TxSink for VecSink {
    fn put(&mut self, word: XgmiiWord, block: Block, line: Block) -> std::io::Result<()> {
        self.words.push(word);
        self.blocks.push(block);
        self.lines.push(line);
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

/// Where a frame went in the stream.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Placement {
    /// Transfer (block) index of its `/S/`.
    pub block: u64,
    /// Lane of its `/S/` (0 or 4).
    pub lane: u8,
}

/// The TX chain: MAC, PCS, and a sink.
pub struct TxChain<S: TxSink> {
    mac: MacTx,
    pcs: PcsTx,
    sink: S,
    buf: Vec<XgmiiWord>,
    blocks: u64,
    frames: u64,
}

impl<S: TxSink> TxChain<S> {
    /// A chain out of reset; sends the leading idles.
    ///
    /// # Errors
    /// The sink failed.
    pub fn new(opt: &TxOptions, sink: S) -> std::io::Result<Self> {
        let mut c = Self {
            mac: MacTx::with_engine(opt.mac),
            pcs: PcsTx::new(opt.profile.encoder(), opt.seed),
            sink,
            buf: Vec::with_capacity(4096),
            blocks: 0,
            frames: 0,
        };
        c.idle(opt.idle_blocks as usize)?;
        Ok(c)
    }

    /// Sends `n` idle transfers.
    ///
    /// # Errors
    /// The sink failed.
    pub fn idle(&mut self, n: usize) -> std::io::Result<()> {
        self.buf.clear();
        self.buf.resize(n, XgmiiWord::IDLE);
        self.mac.idle(&mut self.buf);
        self.flush_buf(self.buf.len())
    }

    /// Sends one frame (without FCS: the MAC pads and appends it; with `fcs`: sent as is).
    ///
    /// # Errors
    /// The frame is too long for the MAC, or the sink failed.
    pub fn frame(&mut self, data: &[u8], fcs: Option<[u8; 4]>) -> Result<Placement, String> {
        let mut with_fcs = Vec::new();
        let len = match fcs {
            Some(f) => {
                with_fcs.extend_from_slice(data);
                with_fcs.extend_from_slice(&f);
                with_fcs.len()
            }
            None => data.len(),
        };
        self.buf.clear();
        self.buf
            .resize(self.mac.words_needed(len) + 2, XgmiiWord::IDLE);
        let n = match fcs {
            Some(_) => self.mac.encode_frame_with_fcs(&with_fcs, &mut self.buf),
            None => self.mac.encode_frame(data, &mut self.buf),
        }
        .map_err(|e| format!("{e:?}"))?;
        let start = self
            .buf
            .iter()
            .take(n)
            .enumerate()
            .find_map(|(i, w)| {
                [0usize, 4]
                    .into_iter()
                    .find(|&l| w.is_control(l) && w.octet(l) == ControlChar::START.0)
                    .map(|l| (i, l))
            })
            .unwrap_or((0, 0));
        let placement = Placement {
            block: self.blocks + start.0 as u64,
            lane: start.1 as u8,
        };
        self.flush_buf(n).map_err(|e| e.to_string())?;
        self.frames += 1;
        Ok(placement)
    }

    /// Sends one XGMII transfer as is (a trace input skips the MAC).
    ///
    /// # Errors
    /// The sink failed.
    pub fn word(&mut self, w: XgmiiWord) -> std::io::Result<()> {
        let (line, ev) = self.pcs.step(w);
        self.blocks += 1;
        self.sink.put(w, ev.block, line)
    }

    fn flush_buf(&mut self, n: usize) -> std::io::Result<()> {
        for i in 0..n {
            let w = self.buf.get(i).copied().unwrap_or(XgmiiWord::IDLE);
            let (line, ev) = self.pcs.step(w);
            self.sink.put(w, ev.block, line)?;
        }
        self.blocks += n as u64;
        Ok(())
    }

    /// Ends the stream: the gap still owed, then two idle transfers (so that the last
    /// terminate is confirmed by the block after it). Returns the sink and block count.
    ///
    /// # Errors
    /// The sink failed.
    pub fn finish(mut self) -> std::io::Result<(S, u64, u64)> {
        let owed = self.mac.owed_idle_octets().div_ceil(8);
        self.idle(owed + 2)?;
        Ok((self.sink, self.blocks, self.frames))
    }

    /// Blocks sent so far.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The sink, without sending anything more.
    pub fn into_sink(self) -> S {
        self.sink
    }
}

/// Settings of the RX chain.
#[derive(Clone, Copy, Debug)]
pub struct RxOptions {
    /// Profile (decoder and BER knobs).
    pub profile: Profile,
    /// MAC receive settings.
    pub mac: RxConfig,
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
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LockAcquired {
    /// Bit offset of the first locked block in the stream.
    pub bit_offset: u64,
    /// Blocks received before lock (its index).
    pub block: u64,
    /// Slips it took.
    pub slips: u64,
}

/// What the PCS side of a decode saw.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PcsSummary {
    /// Input kind: `bits`, `b66` or `xgmii`.
    pub input: String,
    /// Blocks (or transfers) received.
    pub blocks: u64,
    /// Lock acquisition (for `.b66`, the boundaries are given: lock from block 0).
    pub lock_acquired: Option<LockAcquired>,
    /// Block indices where lock was lost after it was acquired.
    pub lock_losses: Vec<u64>,
    /// Block indices where `hi_ber` rose.
    pub hi_ber_episodes: Vec<u64>,
    /// Block indices where `hi_ber` fell again.
    pub hi_ber_clears: Vec<u64>,
    /// Block lock regained after a loss: block, bit offset, slips since the stream began.
    pub relocks: Vec<LockAcquired>,
    /// Invalid sync headers while locked.
    pub invalid_headers: u64,
    /// Blocks that entered `RX_E` while the link was up.
    pub errored_blocks: u64,
    /// The first transitions into `RX_E` (at most `max_events`), with the rule that fired.
    pub e_transitions: Vec<PcsEvent>,
    /// Link fault status at the end, and the block indices where it changed.
    pub link_fault: String,
    /// Link fault changes.
    pub link_fault_changes: Vec<PcsEvent>,
    /// Starts seen by MAC RX (every one is accounted for by a frame).
    pub starts: u64,
}

/// Frame counts by class.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FrameCounts {
    /// All frames.
    pub total: u64,
    /// Per class name.
    pub by_class: std::collections::BTreeMap<String, u64>,
}

/// Receives what the RX chain produces.
pub trait RxSink {
    /// One decoded transfer (index = block index).
    ///
    /// # Errors
    /// The sink could not write.
    fn word(
        &mut self,
        _index: u64,
        _word: XgmiiWord,
        _block: Option<Block>,
    ) -> std::io::Result<()> {
        Ok(())
    }

    /// One received frame.
    ///
    /// # Errors
    /// The sink could not write.
    fn frame(&mut self, _frame: &ReceivedFrame) -> std::io::Result<()> {
        Ok(())
    }
}

/// The RX chain after the PCS: MAC RX, link fault monitor, accounting.
struct RxBack<'a, K: RxSink> {
    mac: MacRx,
    fault: LinkFaultMonitor,
    fault_state: LinkFault,
    index: u64,
    frames: u64,
    summary: PcsSummary,
    counts: FrameCounts,
    sink: &'a mut K,
    max_events: usize,
    error: Option<std::io::Error>,
    /// The descrambled block whose transfer the decoder has not decided yet.
    pending_block: Option<Block>,
}

impl<K: RxSink> RxBack<'_, K> {
    fn word(&mut self, w: XgmiiWord, block: Option<Block>) {
        let index = self.index;
        if let Err(e) = self.sink.word(index, w, block) {
            self.error.get_or_insert(e);
        }
        let lf = self.fault.push(w);
        if lf != self.fault_state {
            self.fault_state = lf;
            if self.summary.link_fault_changes.len() < self.max_events {
                self.summary.link_fault_changes.push(PcsEvent {
                    block: index,
                    what: format!("link fault status {lf:?}"),
                });
            }
        }
        let (frames, counts, sink, error) = (
            &mut self.frames,
            &mut self.counts,
            &mut *self.sink,
            &mut self.error,
        );
        self.mac.push(w, |f: &RxFrame<'_>| {
            let rf = ReceivedFrame {
                index: *frames,
                class: f.class,
                data: f.data.to_vec(),
                len: f.len,
                fcs_ok: f.fcs_ok,
                start: Placement {
                    block: f.start.word,
                    lane: f.start.lane,
                },
                gap_octets: f.gap_octets,
            };
            *frames += 1;
            counts.total += 1;
            *counts
                .by_class
                .entry(class_name(f.class).into())
                .or_default() += 1;
            if let Err(e) = sink.frame(&rf) {
                error.get_or_insert(e);
            }
        });
        self.index += 1;
    }

    fn pcs_event(&mut self, e: &RxEvent, block: u64) {
        if e.is_errored() && !e.link_down {
            self.summary.errored_blocks += 1;
            if self.summary.e_transitions.len() < self.max_events {
                self.summary.e_transitions.push(PcsEvent {
                    block,
                    what: e.to_string(),
                });
            }
        }
    }
}

/// Decodes a DUT stream; calls the sink for every transfer and frame. Returns the PCS
/// summary and the frame counts.
///
/// # Errors
/// The input cannot be read or parsed, or the sink failed.
pub fn decode<K: RxSink>(
    path: &Path,
    opt: &RxOptions,
    sink: &mut K,
    max_events: usize,
    progress: &dyn Fn(u64),
) -> Result<(PcsSummary, FrameCounts), InputError> {
    let kind = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let file = std::fs::File::open(path).map_err(|e| InputError::io(path, &e))?;
    decode_reader(&kind, file, path, opt, sink, max_events, progress)
}

/// As [`decode`], from any reader of a stream of kind `kind` (`bits`, `b66` or `xgmii`);
/// `path` names it in errors.
///
/// # Errors
/// The input cannot be read or parsed, or the sink failed.
pub fn decode_reader<K: RxSink, R: Read>(
    kind: &str,
    file: R,
    path: &Path,
    opt: &RxOptions,
    sink: &mut K,
    max_events: usize,
    progress: &dyn Fn(u64),
) -> Result<(PcsSummary, FrameCounts), InputError> {
    let kind = kind.to_string();
    let mut back = RxBack {
        mac: MacRx::with_engine(opt.mac),
        fault: LinkFaultMonitor::new(),
        fault_state: LinkFault::Ok,
        index: 0,
        frames: 0,
        summary: PcsSummary {
            input: kind.clone(),
            ..PcsSummary::default()
        },
        counts: FrameCounts::default(),
        sink,
        max_events,
        error: None,
        pending_block: None,
    };
    let mut rx_config = PcsRxConfig {
        decoder: opt.profile.decoder(),
        ber_lock_loss: opt.profile.ber_lock_loss(),
        ..PcsRxConfig::default()
    };
    match kind.as_str() {
        "xgmii" => {
            let reader = XgmiiReader::new(BufReader::with_capacity(1 << 16, file), path);
            for w in reader {
                back.word(w?, None);
                if back.index % (1 << 20) == 0 {
                    progress(back.index);
                }
            }
            back.summary.blocks = back.index;
            if back.index == 0 {
                return Err(InputError::file(path, "no transfers in the file"));
            }
        }
        "b66" => {
            let reader = B66Reader::new(BufReader::with_capacity(1 << 16, file), path)?;
            let header = reader.header();
            rx_config.descrambler_state = header.scrambler_state.unwrap_or(DEFAULT_STATE);
            let scrambled = header.scrambling == Scrambling::Scrambled;
            let mut pcs = PcsRx::new(rx_config);
            let mut n = 0u64;
            back.summary.lock_acquired = Some(LockAcquired {
                bit_offset: 0,
                block: 0,
                slips: 0,
            });
            let mut hi_ber = false;
            for b in reader {
                let b = b?;
                let step = if scrambled {
                    pcs.push(b, true)
                } else {
                    pcs.push_descrambled(b, true)
                };
                if !b.sync.is_valid() {
                    back.summary.invalid_headers += 1;
                }
                account(&mut back, &step, n, &mut hi_ber);
                n += 1;
                if n % (1 << 20) == 0 {
                    progress(n);
                }
            }
            if n == 0 {
                return Err(InputError::file(path, "no blocks in the file"));
            }
            if let Some(e) = pcs.flush() {
                back.pcs_event(&e, n.saturating_sub(1));
                let block = back.pending_block.take();
                back.word(e.word, block);
            }
            back.summary.blocks = n;
        }
        "bits" => {
            let mut file = file;
            let mut chunk = vec![0u8; 1 << 16];
            let mut aligner = BlockAligner::<u8>::new();
            let mut pcs = PcsRx::new(rx_config);
            let mut n = 0u64;
            let mut total = 0u64;
            let mut locked = false;
            let mut hi_ber = false;
            loop {
                let got = file
                    .read(&mut chunk)
                    .map_err(|e| InputError::io(path, &e))?;
                if got == 0 {
                    break;
                }
                total += got as u64;
                let mut words = chunk.get(..got).unwrap_or_default();
                while let Some(ab) = next_aligned(&mut aligner, &mut words) {
                    if ab.block_lock && !locked {
                        let at = LockAcquired {
                            bit_offset: ab.bit_offset,
                            block: n,
                            slips: aligner.slips(),
                        };
                        if back.summary.lock_acquired.is_none() {
                            back.summary.lock_acquired = Some(at);
                        } else {
                            back.summary.relocks.push(at);
                        }
                    } else if !ab.block_lock && locked {
                        back.summary.lock_losses.push(n);
                    }
                    locked = ab.block_lock;
                    if locked && !ab.block.sync.is_valid() {
                        back.summary.invalid_headers += 1;
                    }
                    let step = pcs.push(ab.block, ab.block_lock);
                    account(&mut back, &step, n, &mut hi_ber);
                    n += 1;
                }
                progress(total);
            }
            if total == 0 {
                return Err(InputError::file(
                    path,
                    "0-byte .bits file: no bits to decode",
                ));
            }
            if let Some(e) = pcs.flush() {
                back.pcs_event(&e, n.saturating_sub(1));
                let block = back.pending_block.take();
                back.word(e.word, block);
            }
            back.summary.blocks = n;
        }
        _ => {
            return Err(InputError::file(
                path,
                "unknown stream kind: expected .bits, .b66 or .xgmii",
            ))
        }
    }
    if let Some(e) = back.error.take() {
        return Err(InputError::io(path, &e));
    }
    back.summary.link_fault = format!("{:?}", back.fault_state);
    back.summary.starts = back.mac.stats().starts;
    Ok((back.summary, back.counts))
}

/// The next aligned block, feeding bytes from `words` as the aligner needs them.
fn next_aligned(
    aligner: &mut BlockAligner<u8>,
    words: &mut &[u8],
) -> Option<pcs_core::lock::AlignedBlock> {
    loop {
        if let Some(b) = aligner.next_block() {
            return Some(b);
        }
        let (first, rest) = words.split_first()?;
        if aligner.feed(*first).is_err() {
            return None;
        }
        *words = rest;
    }
}

/// Books one PCS step: the event of the previous block, `hi_ber` edges.
fn account<K: RxSink>(back: &mut RxBack<'_, K>, step: &PcsRxStep, n: u64, hi_ber: &mut bool) {
    if step.hi_ber && !*hi_ber {
        back.summary.hi_ber_episodes.push(n);
    }
    if !step.hi_ber && *hi_ber {
        back.summary.hi_ber_clears.push(n);
    }
    *hi_ber = step.hi_ber;
    let block = back.pending_block.replace(step.block);
    if let Some(e) = step.rx {
        back.pcs_event(&e, n.saturating_sub(1));
        back.word(e.word, block);
    }
}

/// The sync header digit for reports.
pub fn header_digit(s: SyncHeader) -> u8 {
    s.to_bits()
}
