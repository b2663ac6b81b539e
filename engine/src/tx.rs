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
use crate::profile::Profile;
use mac_core::tx::EncodeFrameError;
use mac_core::tx::TxConfig;
use pcs_core::gearbox::{PartialWord, TxGearbox};
use pcs_core::pcs::PcsTx;
use pcs_core::{Block, ControlChar, XgmiiWord};
use serde::Serialize;

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
}

/// The transfers and the line blocks.
impl Default for TxForms {
    fn default() -> Self {
        Self {
            words: true,
            unscrambled: false,
            serial: false,
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
    /// The line (scrambled) blocks.
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
            seed: pcs_core::scramble::DEFAULT_STATE,
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
    /// Blocks handed to the sink.
    flushed: u64,
    frames: u64,
    error: Option<std::io::Error>,
    /// Ordered set sent in place of idle columns (`None`: idles).
    idle_fill: Option<OrderedSet>,
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

impl<S: TxSink> TxChain<S> {
    /// A chain out of reset; sends the leading idles.
    pub fn new(opt: &TxOptions, sink: S) -> Self {
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
            flushed: 0,
            frames: 0,
            error: None,
            idle_fill: None,
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
        let (before, out) = self.words.split_at_mut(self.filled.min(BATCH));
        // A sink that wants no transfers: the frame goes from its octets straight into line
        // blocks, after the transfers before it (in order).
        let packet = !self.forms.words && !self.forms.unscrambled && self.idle_fill.is_none();
        let n = match fcs {
            Some(_) => self.mac.encode_frame_with_fcs(&with_fcs, out),
            None if packet => {
                let (pcs, line, filled) = (&mut self.pcs, &mut self.line, self.filled);
                let e = std::mem::replace(&mut self.encoded, filled);
                if e < filled {
                    pcs.encode_slice(
                        before.get(e..).unwrap_or_default(),
                        line.get_mut(e..filled).unwrap_or_default(),
                    );
                }
                // The packet's data blocks 8-aligned in memory (none of their loads splits a
                // cache line): they start `7 - lane` octets in.
                let at = (self.octets.as_ptr() as usize + 7 - lane) % 8;
                let octets = self.octets.get_mut((8 - at) % 8..).unwrap_or_default();
                let sent = self.mac.encode_frame_packet(data, octets, |p, octets| {
                    let room = line.get_mut(filled..).unwrap_or_default();
                    pcs.encode_packet(p.idles, p.lane, octets, room).is_some()
                });
                match sent {
                    Ok(Some(n)) => {
                        self.encoded = filled + n;
                        Ok(n)
                    }
                    // The PCS did not take it (the encoder inside a packet of transfers sent
                    // as they are): as transfers.
                    Ok(None) => self.mac.encode_frame(data, out),
                    Err(e) => Err(e),
                }
            }
            None => self.mac.encode_frame(data, out),
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
        if self.forms.serial {
            let mut done = 0;
            while done < n {
                let p = self.gearbox.push_blocks(
                    line.get(done..).unwrap_or_default(),
                    self.serial.get_mut(produced..).unwrap_or_default(),
                );
                if p.consumed == 0 {
                    break;
                }
                done += p.consumed;
                produced += p.produced;
            }
        }
        if self.error.is_none() {
            let batch = TxBatch {
                first_block: self.flushed,
                words: if self.forms.words { words } else { &[] },
                unscrambled,
                line,
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

    /// Ends the stream as it is: the last batch and the last partial serial word.
    ///
    /// # Errors
    /// The sink failed.
    pub fn end(mut self) -> std::io::Result<(S, TxTotals)> {
        self.flush();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let tail = if self.forms.serial {
            self.gearbox.flush()
        } else {
            None
        };
        self.sink.end(tail)?;
        let totals = TxTotals {
            blocks: self.flushed,
            frames: self.frames,
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
        let mut d = pcs_core::scramble::Descrambler::new(opt.seed);
        let payloads: Vec<u64> = sink.line.iter().map(|b| d.descramble(b.payload)).collect();
        assert_eq!(payloads[2], 0x0100_0000_0100_0055);
    }

    /// Keeps every form.
    #[derive(Default)]
    struct All {
        unscrambled: bool,
        /// Wants no transfers (long data runs then go straight from the frames' octets).
        no_words: bool,
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
            }
        }
        fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
            assert_eq!(b.first_block, self.line.len() as u64);
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
            prop_assert_eq!(op, sp);
            prop_assert_eq!(&only.line, &slow.line);
            prop_assert_eq!(&only.serial, &slow.serial);
            prop_assert_eq!(only.tail, slow.tail);
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
            let (mut by_packet, mut inside) = (0, false);
            for (i, &(len, gap, raw)) in frames.iter().enumerate() {
                let f: Vec<u8> = (0..len).map(|k| (k + i) as u8).collect();
                if raw == 0 {
                    // A start and a data transfer, as they are: the encoder is in TX_D.
                    let w = [mac_core::tx::START_LANE0_WORD, XgmiiWord::from_data(0x1234)];
                    slow.words(&w);
                    fast.words(&w);
                    inside = true;
                }
                prop_assert_eq!(slow.frame(&f, None).unwrap(), fast.frame(&f, None).unwrap());
                // The packet door took it, unless the encoder was inside a packet.
                prop_assert_eq!(fast.encoded == fast.filled, !inside);
                by_packet += usize::from(!inside);
                inside = false;
                slow.idle(gap);
                fast.idle(gap);
            }
            let (slow, st) = slow.finish().unwrap();
            let (fast, ft) = fast.finish().unwrap();
            prop_assert_eq!(st, ft);
            prop_assert!(fast.words.is_empty());
            prop_assert_eq!(&fast.line, &slow.line);
            prop_assert_eq!(&fast.serial, &slow.serial);
            prop_assert_eq!(fast.tail, slow.tail);
            prop_assert!(by_packet > 0 || frames.iter().all(|f| f.2 == 0));
        }
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
