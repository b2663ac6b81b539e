//! The line rate and the FEC below the PCS, as the chains use them: Clause 74 BASE-R FEC or
//! Clause 108 RS-FEC (`fec-core`) between the PCS's line (scrambled) blocks and the serial
//! line, with what a report says about it ([`FecSummary`]).
//!
//! ```text
//! TX: line blocks -> FecEncoder -> serial words (64 bits, bit 0 first on the line)
//! RX: serial bytes -> FecDecoder (lock from any bit, correct, mark) -> line blocks -> PcsRx
//! ```
//!
//! Where the RS-FEC marker's room comes from (U in the fact sheet): the transmitter **stalls
//! its source**. A marker codeword carries 76 blocks where the others carry 80, so every
//! marker period the PCS's stream goes on the line 4 block times later than it would
//! without the marker; no block is dropped or added. This is the reading of the Xilinx RS-FEC
//! interface (`tx_cwm_flag` to the MAC/PCS, which then holds its data); [`FecEncoder::stalls`]
//! counts the block times the source was held, and the reports say so.

use crate::case::Case;
use crate::live::RxView;
use crate::rx::{
    FrameCounts, FrameRef, LinkStatus, PcsSummary, RxChain, RxInput, RxOptions, RxSink,
};
use fec_core::{base_r, rs};
use pcs_core::PartialWord;
use pcs_core::RxEvent;
use pcs_core::{Block, XgmiiWord};
use serde::{Deserialize, Serialize};

/// The line rate: 10GBASE-R (Clause 49) or 25GBASE-R (Clause 107, the Clause 49 PCS at
/// 2.5 times the rate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Rate {
    /// 10.3125 GBd.
    #[default]
    #[serde(rename = "10g")]
    G10,
    /// 25.78125 GBd.
    #[serde(rename = "25g")]
    G25,
}

impl Rate {
    /// The time of one 66-bit block on the line, picoseconds (6400 ps at 10G, 2560 at 25G).
    pub const fn block_ps(self) -> u64 {
        match self {
            Self::G10 => 6_400,
            Self::G25 => 2_560,
        }
    }

    /// The name the options take (`10g`, `25g`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::G10 => "10g",
            Self::G25 => "25g",
        }
    }

    /// The PHY's name (`10GBASE-R`, `25GBASE-R`).
    pub const fn phy(self) -> &'static str {
        match self {
            Self::G10 => "10GBASE-R",
            Self::G25 => "25GBASE-R",
        }
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Rate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "10g" | "10" | "10gbase-r" => Ok(Self::G10),
            "25g" | "25" | "25gbase-r" => Ok(Self::G25),
            _ => Err(format!(
                "unknown rate `{s}`: 10g (10GBASE-R) or 25g (25GBASE-R)"
            )),
        }
    }
}

/// Which FEC sits below the PCS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fec {
    /// No FEC: the PCS's blocks go to the line through the gearbox.
    #[default]
    None,
    /// Clause 74 BASE-R FEC ("FireCode", (2112,2080)): `fc`.
    Fc,
    /// Clause 108 RS-FEC (RS(528,514), 256b/257b): `rs`. 25G only.
    Rs,
}

impl Fec {
    /// The name the options take (`none`, `fc`, `rs`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Fc => "fc",
            Self::Rs => "rs",
        }
    }

    /// The clause, for reports.
    pub const fn clause(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Fc => "Clause 74 BASE-R FEC",
            Self::Rs => "Clause 108 RS-FEC",
        }
    }

    /// A codeword's name in this FEC (`FEC block`, `codeword`).
    pub const fn unit(self) -> &'static str {
        match self {
            Self::None => "block",
            Self::Fc => "FEC block",
            Self::Rs => "codeword",
        }
    }
}

impl std::fmt::Display for Fec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Fec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "none" | "off" => Ok(Self::None),
            "fc" | "cl74" | "base-r" | "baser" | "firecode" => Ok(Self::Fc),
            "rs" | "cl108" | "rs-fec" | "rsfec" => Ok(Self::Rs),
            "consortium" | "rs-consortium" => Err(
                "the 25G/50G Consortium RS-FEC differs from Clause 108 in ways not sourced: refused (use rs, Clause 108)"
                    .into(),
            ),
            _ => Err(format!(
                "unknown FEC `{s}`: none, fc (Clause 74 BASE-R FEC) or rs (Clause 108 RS-FEC)"
            )),
        }
    }
}

/// The FEC's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FecOptions {
    /// Which FEC.
    pub kind: Fec,
    /// Clause 74 receive settings (lock `n`/`m`, error indication: U facts with defaults).
    pub fc: base_r::FecRxConfig,
    /// Clause 108 settings (marker period, lock, bypass modes, error marking).
    pub rs: rs::RsFecConfig,
}

impl Default for FecOptions {
    fn default() -> Self {
        Self {
            kind: Fec::None,
            fc: base_r::FecRxConfig::default(),
            rs: rs::RsFecConfig::IEEE,
        }
    }
}

impl FecOptions {
    /// Refuses a FEC the rate does not have and a Clause 108 setting the standard refuses.
    ///
    /// # Errors
    /// Why, in words for a user.
    pub fn check(&self, rate: Rate) -> Result<(), String> {
        if self.kind == Fec::Rs {
            if rate != Rate::G25 {
                return Err(
                    "RS-FEC (Clause 108) is defined for 25GBASE-R: add --rate 25g (or use --fec fc, Clause 74, at 10G)"
                        .into(),
                );
            }
            self.rs.validate().map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// The transmit FEC: line blocks in, serial words out.
#[derive(Debug)]
pub struct FecEncoder {
    inner: Encoder,
    /// The RS-FEC marker period, codewords.
    period: u32,
}

#[derive(Debug)]
enum Encoder {
    Fc(Box<base_r::FecTx>),
    Rs(Box<rs::Transmitter>, rs::LineWords),
}

impl FecEncoder {
    /// The encoder of `opt`, or `None` without FEC.
    ///
    /// # Errors
    /// A Clause 108 setting the standard refuses.
    pub fn new(opt: &FecOptions) -> Result<Option<Self>, String> {
        let inner = match opt.kind {
            Fec::None => return Ok(None),
            Fec::Fc => Encoder::Fc(Box::new(
                base_r::FecTx::new().with_parity_kernel(crate::fec_kernels::parity_kernel()),
            )),
            Fec::Rs => Encoder::Rs(
                Box::new(
                    rs::Transmitter::new(&opt.rs)
                        .map_err(|e| e.to_string())?
                        .with_remainder_kernel(crate::fec_kernels::remainder_kernel()),
                ),
                rs::LineWords::new(),
            ),
        };
        Ok(Some(Self {
            inner,
            period: opt.rs.marker_period_codewords,
        }))
    }

    /// Encodes line blocks; appends the serial words they complete to `out` (a FEC block or
    /// codeword is written when its last block arrives).
    pub fn push_blocks(&mut self, blocks: &[Block], out: &mut Vec<u64>) {
        match &mut self.inner {
            Encoder::Fc(tx) => {
                // Room for exactly the FEC blocks these blocks complete, encoded in place;
                // the blocks after the last one are held by the encoder.
                let done = (tx.pending_blocks() + blocks.len()) / base_r::BLOCKS_PER_FEC_BLOCK;
                let at = out.len();
                out.resize(at + done * base_r::FEC_BLOCK_WORDS, 0);
                let p = tx.push_blocks(blocks, out.get_mut(at..).unwrap_or_default());
                out.truncate(at + p.produced);
                for &b in blocks.get(p.consumed..).unwrap_or_default() {
                    // Fewer than a FEC block's worth: none completes here.
                    let _ = tx.push_block(b);
                }
            }
            Encoder::Rs(tx, words) => {
                // Room for exactly the codewords these blocks complete, encoded where they
                // lie in `out`; the blocks after the last one are held by the transmitter.
                let done = tx.codewords_completed_by(blocks.len());
                let at = out.len();
                out.resize(at + done * rs::CODEWORD_WORDS, 0);
                let p = tx.push_slice_to_line(blocks, words, out.get_mut(at..).unwrap_or_default());
                out.truncate(at + p.produced);
                // (None left: `out` had room for every codeword.)
                let mut room = [0u64; rs::CODEWORD_WORDS];
                let left = blocks.get(p.consumed..).unwrap_or_default();
                tx.push_slice(left, |cw| {
                    let n = words.push_words(cw, &mut room);
                    out.extend_from_slice(room.get(..n).unwrap_or_default());
                });
            }
        }
    }

    /// [`FecEncoder::push_blocks`] writing the serial words over `out` from its start (it grows
    /// when short, and is never shrunk or cleared: no word is zeroed first); returns how
    /// many it wrote.
    pub fn push_blocks_over(&mut self, blocks: &[Block], out: &mut Vec<u64>) -> usize {
        let (produced, consumed) = match &mut self.inner {
            Encoder::Fc(tx) => {
                let done = (tx.pending_blocks() + blocks.len()) / base_r::BLOCKS_PER_FEC_BLOCK;
                let need = done * base_r::FEC_BLOCK_WORDS;
                if out.len() < need {
                    out.resize(need, 0);
                }
                let room = out.get_mut(..need).unwrap_or_default();
                let p = tx.push_blocks(blocks, room);
                (p.produced, p.consumed)
            }
            Encoder::Rs(tx, words) => {
                let need = tx.codewords_completed_by(blocks.len()) * rs::CODEWORD_WORDS;
                if out.len() < need {
                    out.resize(need, 0);
                }
                let room = out.get_mut(..need).unwrap_or_default();
                let p = tx.push_slice_to_line(blocks, words, room);
                (p.produced, p.consumed)
            }
        };
        if consumed == blocks.len() {
            return produced;
        }
        // (Not reached: `out` had room for every FEC block or codeword.)
        out.truncate(produced);
        self.push_blocks(blocks.get(consumed..).unwrap_or_default(), out);
        out.len()
    }

    /// Line blocks still needed to finish the FEC block or codeword being filled (0: the
    /// stream is on a boundary).
    pub fn blocks_to_boundary(&self) -> usize {
        match &self.inner {
            Encoder::Fc(tx) => {
                (base_r::BLOCKS_PER_FEC_BLOCK - tx.pending_blocks()) % base_r::BLOCKS_PER_FEC_BLOCK
            }
            Encoder::Rs(tx, _) => {
                let need = tx.blocks_needed();
                if need == tx.blocks_in_codeword() {
                    0
                } else {
                    need
                }
            }
        }
    }

    /// The scrambled idle blocks that finish the FEC block or codeword being filled, after the
    /// line block `last` (the scrambler goes on from it: its state is the last 58 scrambled
    /// bits, `last.payload >> 6`), as a transmitter sends them when its source ends.
    pub fn idle_fill(&self, last: Block) -> Vec<Block> {
        let mut s = pcs_core::Scrambler::new(last.payload >> 6);
        (0..self.blocks_to_boundary())
            .map(|_| Block {
                sync: Block::IDLE.sync,
                payload: s.scramble(Block::IDLE.payload),
            })
            .collect()
    }

    /// The last serial bits when the stream ends inside a word (an RS codeword is 82.5 words).
    pub fn tail(&self) -> Option<PartialWord<u64>> {
        match &self.inner {
            Encoder::Fc(_) => None,
            Encoder::Rs(_, words) => {
                let (word, valid_bits) = words.pending();
                (valid_bits > 0).then_some(PartialWord { word, valid_bits })
            }
        }
    }

    /// FEC blocks or codewords written.
    pub fn codewords(&self) -> u64 {
        match &self.inner {
            Encoder::Fc(tx) => tx.fec_blocks(),
            Encoder::Rs(tx, _) => tx.codewords(),
        }
    }

    /// Block times the PCS source was held for the RS-FEC marker: 4 per marker codeword
    /// begun (0 for Clause 74, which keeps the rate).
    pub fn stalls(&self) -> u64 {
        self.markers() * (rs::BLOCKS_PER_CODEWORD - rs::BLOCKS_PER_MARKER_CODEWORD) as u64
    }

    /// Marker codewords begun (RS-FEC; 0 for Clause 74).
    pub fn markers(&self) -> u64 {
        match &self.inner {
            Encoder::Fc(_) => 0,
            Encoder::Rs(tx, _) => {
                // Codewords begun: those written, and the one being filled if it holds a block.
                let begun =
                    tx.codewords() + u64::from(tx.blocks_needed() != tx.blocks_in_codeword());
                begun.div_ceil(u64::from(self.period.max(1)))
            }
        }
    }
}

/// A live transmitter's line below a FEC: the source's line blocks through a [`FecEncoder`],
/// handed out a few bits a clock (66 for a 66-bit serdes, 32 or 64 for words).
///
/// The source gives one block a block time (66 line bits handed out), and is held while a
/// whole FEC block or codeword is already waiting: a Clause 74 line never holds it (the rate
/// is kept), an RS-FEC line holds it 4 block times a marker period (the marker codeword
/// carries 76 blocks where the others carry 80: the source stalls, as [`FecEncoder`] says).
/// The first FEC block or codeword is made before its first bit is handed out.
#[derive(Debug)]
pub struct FecLine {
    encoder: FecEncoder,
    /// Whole serial words made and not handed out, bit 0 first on the line.
    words: std::collections::VecDeque<u64>,
    /// Bits of the front word already handed out.
    used: u32,
    /// Line bits handed out and not yet paid for by a block taken or held (a block taken
    /// early, to finish the bits a clock needs, pays ahead: it goes below zero).
    credit: i64,
    /// Bits of one FEC block or codeword: the source is held while this many wait.
    hold_bits: u64,
    /// Blocks taken from the source.
    taken: u64,
    scratch: Vec<u64>,
}

impl FecLine {
    /// The line of `opt`'s FEC, or `None` without FEC.
    ///
    /// # Errors
    /// A Clause 108 setting the standard refuses.
    pub fn new(opt: &FecOptions) -> Result<Option<Self>, String> {
        let Some(encoder) = FecEncoder::new(opt)? else {
            return Ok(None);
        };
        let hold_bits = match opt.kind {
            Fec::Rs => rs::CODEWORD_BITS as u64,
            Fec::Fc | Fec::None => base_r::FEC_BLOCK_BITS as u64,
        };
        Ok(Some(Self {
            encoder,
            words: std::collections::VecDeque::new(),
            used: 0,
            credit: 0,
            hold_bits,
            taken: 0,
            scratch: Vec::new(),
        }))
    }

    /// Bits waiting: the whole words, and the encoder's last half word.
    fn waiting(&self) -> u64 {
        let tail = self.encoder.tail().map_or(0, |t| u64::from(t.valid_bits));
        (self.words.len() as u64 * 64).saturating_sub(u64::from(self.used)) + tail
    }

    fn whole(&self) -> u64 {
        (self.words.len() as u64 * 64).saturating_sub(u64::from(self.used))
    }

    fn take_block<E>(&mut self, source: &mut impl FnMut() -> Result<Block, E>) -> Result<(), E> {
        let b = source()?;
        self.taken += 1;
        self.credit -= 66;
        self.scratch.clear();
        self.encoder.push_blocks(&[b], &mut self.scratch);
        self.words.extend(self.scratch.iter().copied());
        Ok(())
    }

    /// The next `n` (1..=66) line bits, bit 0 first; `source` gives the PCS's next line block
    /// when the FEC takes one.
    ///
    /// # Errors
    /// The source's.
    pub fn bits<E>(
        &mut self,
        n: u32,
        mut source: impl FnMut() -> Result<Block, E>,
    ) -> Result<u128, E> {
        let n = n.clamp(1, 66);
        self.credit += i64::from(n);
        while self.credit >= 66 {
            if self.waiting() < self.hold_bits {
                self.take_block(&mut source)?;
            } else {
                self.credit -= 66;
            }
        }
        while self.whole() < u64::from(n) {
            self.take_block(&mut source)?;
        }
        let mut v = 0u128;
        let mut got = 0;
        while got < n {
            let Some(&w) = self.words.front() else { break };
            let take = (n - got).min(64 - self.used);
            let bits = (w >> self.used) & (u64::MAX >> (64 - take));
            v |= u128::from(bits) << got;
            got += take;
            self.used += take;
            if self.used == 64 {
                self.words.pop_front();
                self.used = 0;
            }
        }
        Ok(v)
    }

    /// Block times the source was held for the RS-FEC markers: 4 a marker codeword begun
    /// ([`FecEncoder::stalls`]; 0 for Clause 74).
    pub fn held(&self) -> u64 {
        self.encoder.stalls()
    }

    /// Blocks taken from the source.
    pub fn blocks(&self) -> u64 {
        self.taken
    }

    /// FEC blocks or codewords made.
    pub fn codewords(&self) -> u64 {
        self.encoder.codewords()
    }
}

/// How the FEC's lock went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FecLock {
    /// The line bit where lock was first acquired (the first bit of the FEC block or marker
    /// codeword that completed it); `None`: never.
    pub acquired_at_bit: Option<u64>,
    /// Times lock was lost after it was acquired.
    pub losses: u64,
    /// The boundary was found offline (a dump read as `check` reads it): every FEC block or
    /// codeword from the first whole one was decoded with lock held, none lost to the search.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub offline: bool,
}

/// An uncorrectable FEC block or codeword.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Uncorrectable {
    /// Its number among the FEC blocks or codewords decoded while locked (0-based).
    pub index: u64,
    /// Its first line bit.
    pub bit: u64,
    /// The index of its first block in the PCS's stream (the decoded blocks).
    pub first_block: u64,
    /// How many blocks it carried (32; RS 80, or 76 in a marker codeword).
    pub blocks: u32,
    /// The received frames with a block in it (their indices), filled by the RX chain. A frame
    /// whose `/S/` was in it is not received at all, so it is not here (`check`, which knows
    /// the expected frames, names it missing).
    pub frames: Vec<u64>,
    /// The expected frames it hit (`check`: those received from it, and those missing whose
    /// `/S/` lay between the received frames around it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_frames: Option<Vec<u64>>,
}

/// What the FEC decoder saw: the `fec` object of the decode and check reports.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FecSummary {
    /// `fc` or `rs`.
    pub kind: Fec,
    /// The clause, in words.
    pub clause: &'static str,
    /// Lock acquired and lost.
    pub lock: FecLock,
    /// Line bits received before lock was first acquired (their blocks were not decoded).
    pub bits_before_lock: u64,
    /// FEC blocks or codewords decoded while locked.
    pub codewords: u64,
    /// Of those, how many the decoder corrected.
    pub corrected_codewords: u64,
    /// Of those, how many it could not correct (with error indication on, their blocks'
    /// sync headers were marked invalid toward the PCS).
    pub uncorrected_codewords: u64,
    /// Symbols corrected (RS-FEC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrected_symbols: Option<u64>,
    /// Bits corrected.
    pub corrected_bits: u64,
    /// Symbol errors counted (RS-FEC, register 1.210/1.211 before saturation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_errors: Option<u64>,
    /// Times hi_ser rose (RS-FEC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hi_ser_episodes: Option<u64>,
    /// Marker codewords decoded (RS-FEC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markers: Option<u64>,
    /// The first uncorrectable FEC blocks or codewords (all are counted).
    pub uncorrectable: Vec<Uncorrectable>,
}

impl FecSummary {
    /// Nothing went wrong on the line: locked, never lost, nothing uncorrectable.
    pub fn clean(&self) -> bool {
        self.lock.acquired_at_bit.is_some()
            && self.lock.losses == 0
            && self.uncorrected_codewords == 0
    }

    /// The counters as (name, value) pairs (`fec.codewords`, ...): the JUnit suite's
    /// properties.
    pub fn properties(&self) -> Vec<(String, String)> {
        let mut p = vec![
            ("fec.kind", self.kind.name().to_string()),
            (
                "fec.lock.acquired_at_bit",
                self.lock
                    .acquired_at_bit
                    .map_or("never".into(), |b| b.to_string()),
            ),
            ("fec.lock.losses", self.lock.losses.to_string()),
            ("fec.codewords", self.codewords.to_string()),
            (
                "fec.corrected_codewords",
                self.corrected_codewords.to_string(),
            ),
            (
                "fec.uncorrected_codewords",
                self.uncorrected_codewords.to_string(),
            ),
            ("fec.corrected_bits", self.corrected_bits.to_string()),
        ];
        let optional = [
            ("fec.corrected_symbols", self.corrected_symbols),
            ("fec.hi_ser_episodes", self.hi_ser_episodes),
            ("fec.markers", self.markers),
        ];
        p.extend(
            optional
                .iter()
                .filter_map(|(k, v)| v.map(|v| (*k, v.to_string()))),
        );
        p.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }
}

/// What a FEC receiver must report of a stream whose faults were planned (`baser gen --fec`,
/// the `fec` object of its `expected.json`; `check --outcomes` judges the DUT's by it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedFec {
    /// `fc` or `rs`.
    pub kind: Fec,
    /// FEC blocks or codewords on the line.
    pub codewords_on_line: u64,
    /// The faults put on the line, one per FEC block or codeword hit.
    pub faults: Vec<PlannedFecFault>,
    /// FEC blocks or codewords the decoder corrects.
    pub corrected_codewords: u64,
    /// Symbols it corrects (RS-FEC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_symbols: Option<u64>,
    /// Bits it corrects.
    pub corrected_bits: u64,
    /// FEC blocks or codewords it cannot correct.
    pub uncorrected_codewords: u64,
    /// Those, each with the expected frames with a block in it.
    pub uncorrectable: Vec<ExpectedUncorrectable>,
}

/// A fault on one FEC block or codeword of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedFecFault {
    /// The FEC block or codeword (0: the first on the line).
    pub codeword: u64,
    /// Its first line bit.
    pub bit: u64,
    /// RS-FEC: symbols with bit 0 flipped; Clause 74: the length of a burst of flipped bits.
    pub size: u32,
    /// Within the code's power (at most 7 symbols; a burst of at most 11 bits).
    pub correctable: bool,
}

/// An uncorrectable FEC block or codeword the stimulus holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedUncorrectable {
    /// Its first line bit (what a receiver reports as `bit`).
    pub bit: u64,
    /// The expected frames with a block in it (their records in `frames.pcap`).
    pub frames: Vec<u64>,
}

/// A list of numbers in words (`40, 41`, or `none`).
fn list(v: &[u64]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// One uncorrectable unit in words, with the frames it hit.
pub fn describe_uncorrectable(kind: Fec, u: &Uncorrectable) -> String {
    let frames = match &u.expected_frames {
        Some(e) => format!("expected frames hit: {}", list(e)),
        None => format!("received frames hit: {}", list(&u.frames)),
    };
    format!(
        "{} {} (line bit {}, PCS blocks {}..{}): {frames}",
        kind.unit(),
        u.index,
        u.bit,
        u.first_block,
        u.first_block + u64::from(u.blocks)
    )
}

/// The FEC's checks of a run (group `fec`): lock acquired, never lost, no hi_ser (RS-FEC),
/// and no uncorrectable FEC block or codeword (each one a failure naming the frames it hit);
/// with the counters a stimulus planned, the uncorrectable ones and the corrections must be
/// those.
pub fn fec_cases(f: &FecSummary, expected: Option<&ExpectedFec>) -> Vec<Case> {
    let case = |name: &str, ok: bool, msg: String, detail: Option<String>| {
        if ok {
            Case::pass("fec", name)
        } else {
            Case::fail("fec", name, msg, detail)
        }
    };
    let unit = f.kind.unit();
    let mut cases = vec![
        case(
            "FEC lock acquired",
            f.lock.acquired_at_bit.is_some(),
            format!(
                "{} lock never acquired ({} line bits received)",
                f.kind.clause(),
                f.bits_before_lock
            ),
            None,
        ),
        case(
            "no FEC lock loss",
            f.lock.losses == 0,
            format!("{} lock lost {} time(s)", f.kind.clause(), f.lock.losses),
            None,
        ),
    ];
    if let Some(h) = f.hi_ser_episodes {
        cases.push(case(
            "no hi_ser",
            h == 0,
            format!("hi_ser rose {h} time(s) (more than 417 symbol errors in 8192 codewords)"),
            None,
        ));
    }
    let detail = (!f.uncorrectable.is_empty()).then(|| {
        let mut d: Vec<String> = f
            .uncorrectable
            .iter()
            .map(|u| describe_uncorrectable(f.kind, u))
            .collect();
        let more = f
            .uncorrected_codewords
            .saturating_sub(f.uncorrectable.len() as u64);
        if more > 0 {
            d.push(format!("... {more} more (raise --max-report)"));
        }
        d.join("\n")
    });
    let Some(e) = expected else {
        let first = f.uncorrectable.first().map_or(String::new(), |u| {
            format!(": {}", describe_uncorrectable(f.kind, u))
        });
        cases.push(case(
            &format!("no uncorrectable {unit}s"),
            f.uncorrected_codewords == 0,
            format!("{} uncorrectable {unit}(s){first}", f.uncorrected_codewords),
            detail,
        ));
        return cases;
    };
    let got: Vec<u64> = f.uncorrectable.iter().map(|u| u.bit).collect();
    let want: Vec<u64> = e.uncorrectable.iter().map(|u| u.bit).collect();
    cases.push(case(
        &format!("uncorrectable {unit}s as planned"),
        f.uncorrected_codewords == e.uncorrected_codewords && got == want,
        format!(
            "{} uncorrectable {unit}(s) at line bits [{}] where the stimulus planned {} at [{}]",
            f.uncorrected_codewords,
            list(&got),
            e.uncorrected_codewords,
            list(&want)
        ),
        detail,
    ));
    let counts = |c: u64, s: Option<u64>, b: u64| {
        let s = s.map_or(String::new(), |s| format!("{s} symbols, "));
        format!("{c} {unit}s ({s}{b} bits)")
    };
    cases.push(case(
        "corrections as planned",
        f.corrected_codewords == e.corrected_codewords
            && (e.corrected_symbols.is_none() || f.corrected_symbols == e.corrected_symbols)
            && f.corrected_bits == e.corrected_bits,
        format!(
            "corrected {} where the stimulus planned {}",
            counts(f.corrected_codewords, f.corrected_symbols, f.corrected_bits),
            counts(e.corrected_codewords, e.corrected_symbols, e.corrected_bits)
        ),
        None,
    ));
    cases
}

/// The receive FEC: serial bytes in, decoded line blocks out.
#[derive(Debug)]
pub struct FecDecoder {
    inner: Decoder,
    summary: FecSummary,
    max_events: usize,
    /// Blocks handed on so far.
    blocks_out: u64,
    was_hi_ser: bool,
}

#[derive(Debug)]
enum Decoder {
    Fc(Box<base_r::FecRx>, Vec<base_r::FecRxBlock>),
    /// Clause 74 read offline, while its boundary is searched for.
    FcAlign(Box<align::FcAlign>),
    Rs(Box<rs::Receiver>),
    /// RS-FEC read offline, while its boundary is searched for.
    RsAlign(Box<align::RsAlign>),
    /// RS-FEC read offline from its first whole codeword.
    RsOffline(Box<align::RsOffline>),
}

impl Decoder {
    /// The Clause 74 decoder around `rx`.
    fn fc(rx: base_r::FecRx) -> Self {
        Self::Fc(
            Box::new(rx.with_parity_kernel(crate::fec_kernels::parity_kernel())),
            vec![base_r::FecRxBlock::EMPTY; 64],
        )
    }
}

impl FecDecoder {
    /// The decoder of `opt` (keeping the first `max_events` uncorrectable units in detail), or
    /// `None` without FEC.
    ///
    /// # Errors
    /// A Clause 108 setting the standard refuses.
    pub fn new(opt: &FecOptions, max_events: usize) -> Result<Option<Self>, String> {
        Self::with_view(opt, max_events, RxView::Receiver)
    }

    /// As [`FecDecoder::new`], reading the line in `view`: offline, the line's boundary is
    /// found first (any bit offset) and every FEC block or codeword from the first whole one
    /// is decoded with lock held (`align.rs`: a Clause 74 line by the receiver's criterion,
    /// an RS-FEC line by two clean codewords or a marker, whichever comes first); the
    /// receiver's view locks as the receiver does (RS-FEC: on the marker, as
    /// `opt.rs.lock_markers` says).
    ///
    /// # Errors
    /// As [`FecDecoder::new`].
    pub fn with_view(
        opt: &FecOptions,
        max_events: usize,
        view: RxView,
    ) -> Result<Option<Self>, String> {
        let inner = match (opt.kind, view) {
            (Fec::None, _) => return Ok(None),
            (Fec::Fc, RxView::Receiver) => Decoder::fc(base_r::FecRx::new(opt.fc)),
            (Fec::Fc, RxView::Offline) => Decoder::FcAlign(Box::new(align::FcAlign::new(opt.fc))),
            (Fec::Rs, RxView::Offline) => Decoder::RsAlign(Box::new(
                align::RsAlign::new(&opt.rs).map_err(|e| e.to_string())?,
            )),
            (Fec::Rs, RxView::Receiver) => Decoder::Rs(Box::new(
                rs::Receiver::new(&opt.rs)
                    .map_err(|e| e.to_string())?
                    .with_remainder_kernel(crate::fec_kernels::remainder_kernel()),
            )),
        };
        let rs = opt.kind == Fec::Rs;
        Ok(Some(Self {
            inner,
            summary: FecSummary {
                kind: opt.kind,
                clause: opt.kind.clause(),
                corrected_symbols: rs.then_some(0),
                symbol_errors: rs.then_some(0),
                hi_ser_episodes: rs.then_some(0),
                markers: rs.then_some(0),
                ..FecSummary::default()
            },
            max_events,
            blocks_out: 0,
            was_hi_ser: false,
        }))
    }

    /// What it saw so far.
    pub fn summary(&self) -> &FecSummary {
        &self.summary
    }

    /// What it saw so far, for the receiver above to name the frames an uncorrectable unit
    /// hit ([`Hits::name`]).
    pub(crate) fn summary_mut(&mut self) -> &mut FecSummary {
        &mut self.summary
    }

    /// Ends the offline search of a line that ended before it found a boundary: what it held
    /// goes to a receiver as it is (which will not lock on so little either), its blocks to
    /// `out`. Nothing to do otherwise.
    pub fn flush(&mut self, out: impl FnMut(&[Block])) {
        if matches!(self.inner, Decoder::FcAlign(_) | Decoder::RsAlign(_)) {
            let held = self.aligned(align::Search::GaveUp);
            self.push_bytes(&held, out);
        }
    }

    /// Ends the offline search with what it found: the decoder it makes (locked at the
    /// boundary found, or a receiver from the first bit), and the bytes it held for it (none
    /// for an RS-FEC receiver: its marker search took them already).
    fn aligned(&mut self, found: align::Search) -> Vec<u8> {
        // (A placeholder while the search is taken apart.)
        let none = Decoder::FcAlign(Box::new(align::FcAlign::new(Default::default())));
        let inner = std::mem::replace(&mut self.inner, none);
        let (inner, held) = match (inner, found) {
            (Decoder::FcAlign(a), align::Search::Found(bit)) => {
                self.summary.lock.offline = true;
                let rx = base_r::FecRx::new_locked_at(a.config, bit);
                (Decoder::fc(rx), a.held)
            }
            (Decoder::FcAlign(a), _) => (Decoder::fc(base_r::FecRx::new(a.config)), a.held),
            (Decoder::RsAlign(a), align::Search::Found(bit)) => {
                match align::RsOffline::new(a.hunt.decoder().config(), u64::from(bit), &a.held) {
                    Ok(rs) => {
                        self.summary.lock.offline = true;
                        (Decoder::RsOffline(Box::new(rs)), a.held)
                    }
                    // (The search's receiver was made with the same settings.)
                    Err(_) => (Decoder::Rs(a.hunt), Vec::new()),
                }
            }
            (Decoder::RsAlign(a), _) => (Decoder::Rs(a.hunt), Vec::new()),
            (other, _) => (other, Vec::new()),
        };
        self.inner = inner;
        held
    }

    /// The summary, to keep.
    pub fn into_summary(self) -> FecSummary {
        self.summary
    }

    /// Receives serial bytes (bit 0 of the first byte first on the line) and calls `out` with
    /// the blocks of each FEC block or codeword decoded while locked, in line order (nothing
    /// of a unit decoded while unlocked is handed on).
    pub fn push_bytes(&mut self, bytes: &[u8], mut out: impl FnMut(&[Block])) {
        let search = match &mut self.inner {
            Decoder::FcAlign(a) => Some(a.push(bytes)),
            Decoder::RsAlign(a) => Some(a.push(bytes)),
            _ => None,
        };
        let held = match search {
            Some(align::Search::Waiting) => return,
            Some(found) => Some(self.aligned(found)),
            None => None,
        };
        let bytes = held.as_deref().unwrap_or(bytes);
        let Self {
            inner,
            summary,
            max_events,
            blocks_out,
            was_hi_ser,
        } = self;
        match inner {
            Decoder::Fc(rx, records) => {
                let mut rest = bytes;
                loop {
                    let p = rx.push_bytes(rest, records);
                    for r in records.get(..p.produced).unwrap_or_default() {
                        fc_record(summary, *max_events, blocks_out, r, &mut out);
                    }
                    rest = rest.get(p.consumed..).unwrap_or_default();
                    if rest.is_empty() && p.produced < records.len() {
                        break;
                    }
                    if p.consumed == 0 && p.produced == 0 {
                        break;
                    }
                }
                summary.lock.losses = rx.lock_losses();
                if summary.lock.acquired_at_bit.is_none() {
                    summary.lock.acquired_at_bit = rx.lock_acquired_at();
                }
            }
            Decoder::Rs(rx) => {
                rx.push_bytes(bytes, |ev| {
                    rs_event(summary, *max_events, blocks_out, was_hi_ser, &ev, &mut out);
                });
            }
            Decoder::RsOffline(rx) => {
                rx.push(bytes, |ev| {
                    rs_event(summary, *max_events, blocks_out, was_hi_ser, &ev, &mut out);
                });
            }
            // (Ended above: the search has a decoder by now.)
            Decoder::FcAlign(_) | Decoder::RsAlign(_) => {}
        }
    }
}

impl FecDecoder {
    /// [`FecDecoder::push_bytes`] of an RS-FEC receiver (not read offline), each codeword's
    /// blocks decoded straight into `blocks` from its start while it has room for them, then
    /// handed to `out` there (their place in `blocks` known by it); `None`, and nothing done,
    /// for any other decoder. Returns how many blocks went to `blocks`.
    pub(crate) fn push_bytes_into(
        &mut self,
        bytes: &[u8],
        blocks: &mut [Block],
        mut out: impl FnMut(&[Block]),
    ) -> Option<usize> {
        let Self {
            inner,
            summary,
            max_events,
            blocks_out,
            was_hi_ser,
        } = self;
        let Decoder::Rs(rx) = inner else {
            return None;
        };
        Some(rx.push_bytes_into(bytes, blocks, |ev| {
            rs_event(summary, *max_events, blocks_out, was_hi_ser, &ev, &mut out);
        }))
    }
}

impl FecDecoder {
    /// [`FecDecoder::push_bytes`] of a Clause 74 receiver (not read offline), each FEC
    /// block's blocks decoded straight into `blocks` (grown to make room, never shrunk) and
    /// those of the FEC blocks decoded while locked left in a row at its start; `None`, and
    /// nothing done, for any other decoder. Returns how many blocks it left there.
    pub(crate) fn push_bytes_into_fc(
        &mut self,
        bytes: &[u8],
        events: &mut [base_r::FecRxEvent],
        blocks: &mut Vec<Block>,
    ) -> Option<usize> {
        let Self {
            inner,
            summary,
            max_events,
            blocks_out,
            ..
        } = self;
        let Decoder::Fc(rx, _) = inner else {
            return None;
        };
        let per = base_r::BLOCKS_PER_FEC_BLOCK;
        let mut placed = 0;
        let mut rest = bytes;
        loop {
            let need = placed + per * events.len();
            if blocks.len() < need {
                blocks.resize(need, Block::IDLE);
            }
            let room = blocks.get_mut(placed..need).unwrap_or_default();
            let p = rx.push_bytes_apart(rest, events, room);
            let base = placed;
            for (i, e) in events.iter().take(p.produced).enumerate() {
                if fc_event(summary, *max_events, blocks_out, e) {
                    // Over the blocks of the FEC blocks before it not handed on.
                    let from = base + per * i;
                    if from != placed {
                        blocks.copy_within(from..from + per, placed);
                    }
                    placed += per;
                }
            }
            rest = rest.get(p.consumed..).unwrap_or_default();
            if (rest.is_empty() && p.produced < events.len())
                || (p.consumed == 0 && p.produced == 0)
            {
                break;
            }
        }
        summary.lock.losses = rx.lock_losses();
        if summary.lock.acquired_at_bit.is_none() {
            summary.lock.acquired_at_bit = rx.lock_acquired_at();
        }
        Some(placed)
    }
}

/// One Clause 74 FEC block tested by the receiver.
fn fc_record(
    summary: &mut FecSummary,
    max_events: usize,
    blocks_out: &mut u64,
    r: &base_r::FecRxBlock,
    out: &mut impl FnMut(&[Block]),
) {
    if fc_event(summary, max_events, blocks_out, &r.event) {
        out(&r.blocks);
    }
}

/// What one Clause 74 FEC block tested by the receiver adds to `summary`; true when its
/// blocks go on to the PCS (it was decoded while locked).
fn fc_event(
    summary: &mut FecSummary,
    max_events: usize,
    blocks_out: &mut u64,
    e: &base_r::FecRxEvent,
) -> bool {
    if !e.fec_block_lock {
        if summary.lock.acquired_at_bit.is_none() {
            summary.bits_before_lock = e.bit_offset + base_r::FEC_BLOCK_BITS as u64;
        }
        return false;
    }
    if summary.lock.acquired_at_bit.is_none() {
        summary.lock.acquired_at_bit = Some(e.bit_offset);
        summary.bits_before_lock = e.bit_offset;
    }
    let uncorrectable = matches!(e.outcome, base_r::DecodeOutcome::Uncorrectable);
    match e.outcome {
        base_r::DecodeOutcome::Corrected(burst) => {
            summary.corrected_codewords += 1;
            summary.corrected_bits += u64::from(burst.flipped_bits());
        }
        base_r::DecodeOutcome::Uncorrectable => summary.uncorrected_codewords += 1,
        base_r::DecodeOutcome::Clean | base_r::DecodeOutcome::BadParity => {}
    }
    let n = base_r::BLOCKS_PER_FEC_BLOCK as u32;
    if uncorrectable && summary.uncorrectable.len() < max_events {
        summary.uncorrectable.push(Uncorrectable {
            index: summary.codewords,
            bit: e.bit_offset,
            first_block: *blocks_out,
            blocks: n,
            frames: Vec::new(),
            expected_frames: None,
        });
    }
    summary.codewords += 1;
    *blocks_out += u64::from(n);
    true
}

/// One Clause 108 receiver event.
fn rs_event(
    summary: &mut FecSummary,
    max_events: usize,
    blocks_out: &mut u64,
    was_hi_ser: &mut bool,
    ev: &rs::RxEvent<'_>,
    out: &mut impl FnMut(&[Block]),
) {
    match *ev {
        rs::RxEvent::LockAcquired { bit } => {
            if summary.lock.acquired_at_bit.is_none() {
                summary.lock.acquired_at_bit = Some(bit);
                summary.bits_before_lock = bit;
            }
        }
        rs::RxEvent::LockLost { .. } => summary.lock.losses += 1,
        rs::RxEvent::MarkerFound { .. } | rs::RxEvent::ConfirmFailed { .. } => {}
        rs::RxEvent::Codeword {
            bit,
            report,
            blocks,
            ..
        } => {
            let add = |o: &mut Option<u64>, n: u64| *o = Some(o.unwrap_or(0) + n);
            let uncorrectable = matches!(
                report.outcome,
                rs::DecodeOutcome::Uncorrectable | rs::DecodeOutcome::NotCorrected(_)
            );
            match &report.outcome {
                rs::DecodeOutcome::Corrected(p) => {
                    summary.corrected_codewords += 1;
                    add(&mut summary.corrected_symbols, p.symbols() as u64);
                    summary.corrected_bits += u64::from(p.bits());
                }
                rs::DecodeOutcome::Uncorrectable | rs::DecodeOutcome::NotCorrected(_) => {
                    summary.uncorrected_codewords += 1;
                }
                rs::DecodeOutcome::Clean => {}
            }
            add(&mut summary.symbol_errors, u64::from(report.symbol_errors));
            if report.is_marker {
                add(&mut summary.markers, 1);
            }
            if report.hi_ser && !*was_hi_ser {
                add(&mut summary.hi_ser_episodes, 1);
            }
            *was_hi_ser = report.hi_ser;
            let n = blocks.len() as u32;
            if uncorrectable && summary.uncorrectable.len() < max_events {
                summary.uncorrectable.push(Uncorrectable {
                    index: summary.codewords,
                    bit,
                    first_block: *blocks_out,
                    blocks: n,
                    frames: Vec::new(),
                    expected_frames: None,
                });
            }
            summary.codewords += 1;
            *blocks_out += u64::from(n);
            out(blocks);
        }
    }
}

/// Line octets [`FecRxChain::push_bytes`] decodes before it hands the blocks to the PCS:
/// about 1,000 blocks (16 KiB of blocks), so that they stay in the first-level cache.
const RX_PIECE_OCTETS: usize = 8 << 10;

/// The RX chain below a FEC: serial bytes -> [`FecDecoder`] -> the decoded line blocks into
/// an [`RxChain`] made for blocks (block lock is the FEC's: the PCS gets the blocks of the FEC
/// blocks or codewords decoded while the FEC was locked), and each uncorrectable unit names
/// the received frames with a block in it.
pub struct FecRxChain<K: RxSink> {
    decoder: FecDecoder,
    chain: RxChain<HitSink<K>>,
    blocks: Vec<Block>,
    /// A Clause 74 receiver's events, its FEC blocks' blocks going straight to `blocks`.
    events: Vec<base_r::FecRxEvent>,
}

impl<K: RxSink> FecRxChain<K> {
    /// The chain of `opt` below the FEC of `fec` (`fec.kind` must not be [`Fec::None`]).
    ///
    /// # Errors
    /// No FEC, or a Clause 108 setting the standard refuses.
    pub fn new(opt: &RxOptions, fec: &FecOptions, sink: K) -> Result<Self, String> {
        Self::with_view(opt, fec, RxView::Receiver, sink)
    }

    /// As [`FecRxChain::new`], the line read in `view` ([`FecDecoder::with_view`]: offline, a
    /// Clause 74 line is decoded from its first whole FEC block).
    ///
    /// # Errors
    /// As [`FecRxChain::new`].
    pub fn with_view(
        opt: &RxOptions,
        fec: &FecOptions,
        view: RxView,
        sink: K,
    ) -> Result<Self, String> {
        let decoder = FecDecoder::with_view(fec, opt.max_events, view)?
            .ok_or_else(|| "FecRxChain needs a FEC (fc or rs)".to_string())?;
        let input = RxInput::Blocks {
            scrambled: true,
            descrambler_state: None,
        };
        Ok(Self {
            decoder,
            chain: RxChain::new(
                opt,
                input,
                HitSink {
                    sink,
                    hits: Hits::default(),
                },
            ),
            blocks: Vec::new(),
            events: vec![base_r::FecRxBlock::EMPTY.event; 64],
        })
    }

    /// Receives serial bytes (bit 0 of the first byte first on the line), a piece of
    /// [`RX_PIECE_OCTETS`] at a time: the decoded blocks go on to the PCS while they are still
    /// in the cache (a whole line at once went through memory twice, as a vector of blocks
    /// larger than the cache).
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        for piece in bytes.chunks(RX_PIECE_OCTETS) {
            if !self.decode_in_place(piece) {
                self.decode(|d, blocks| d.push_bytes(piece, |b| blocks.extend_from_slice(b)));
            }
        }
    }

    /// An RS-FEC receiver's piece: each codeword's blocks decoded straight into the chain's
    /// batch (room made for every codeword the piece can complete, the batch kept at that
    /// length between pieces: nothing cleared or copied); false, and nothing done, for any
    /// other decoder.
    fn decode_in_place(&mut self, piece: &[u8]) -> bool {
        let Self {
            decoder,
            chain,
            blocks,
            events,
        } = self;
        let before = decoder.summary().uncorrectable.len();
        if let Some(n) = decoder.push_bytes_into_fc(piece, events, blocks) {
            chain.sink_mut().hits.open(decoder.summary(), before);
            chain.push_blocks(blocks.get(..n).unwrap_or_default());
            return true;
        }
        let room = (8 * piece.len() / rs::CODEWORD_BITS + 2) * rs::BLOCKS_PER_CODEWORD;
        if blocks.len() < room {
            blocks.resize(room, Block::IDLE);
        }
        // Codewords the batch had no room for (none: room was made for all), in order after
        // those in it.
        let mut more = Vec::new();
        let (start, len) = (blocks.as_ptr() as usize, blocks.len());
        let mut placed = 0;
        let Some(n) = decoder.push_bytes_into(piece, blocks, |b| {
            // In the batch, where the next codeword goes (the receiver wrote it there)?
            let here = start + placed * std::mem::size_of::<Block>();
            if b.as_ptr() as usize == here && placed + b.len() <= len && more.is_empty() {
                placed += b.len();
            } else {
                more.extend_from_slice(b);
            }
        }) else {
            return false;
        };
        // The uncorrectable units among these, before their frames reach the sink.
        chain.sink_mut().hits.open(decoder.summary(), before);
        chain.push_blocks(blocks.get(..n.min(placed)).unwrap_or_default());
        chain.push_blocks(&more);
        true
    }

    /// What `decode` gets from the decoder into the chain, each uncorrectable unit among it
    /// known to the sink before its frames arrive.
    fn decode(&mut self, decode: impl FnOnce(&mut FecDecoder, &mut Vec<Block>)) {
        let Self {
            decoder,
            chain,
            blocks,
            ..
        } = self;
        let before = decoder.summary().uncorrectable.len();
        blocks.clear();
        decode(decoder, blocks);
        // The uncorrectable units among these, before their frames reach the sink.
        chain.sink_mut().hits.open(decoder.summary(), before);
        chain.push_blocks(blocks);
    }

    /// Ends the stream: the chain's results and the FEC's summary, each uncorrectable unit
    /// with the frames it hit.
    ///
    /// # Errors
    /// The sink failed.
    pub fn finish(mut self) -> std::io::Result<(PcsSummary, FrameCounts, K, FecSummary)> {
        self.decode(|d, blocks| d.flush(|b| blocks.extend_from_slice(b)));
        let (pcs, counts, hit_sink) = self.chain.finish()?;
        let mut summary = self.decoder.into_summary();
        hit_sink.hits.name(&mut summary);
        Ok((pcs, counts, hit_sink.sink, summary))
    }
}

/// An uncorrectable unit's block range and the frames seen in it.
#[derive(Debug)]
struct Hit {
    unit: usize,
    first_block: u64,
    end_block: u64,
    frames: Vec<u64>,
}

/// The uncorrectable units a decoder reported and the received frames each hit (a frame
/// with a block in it): the one place the RX chain below a FEC ([`FecRxChain`]) and the live
/// receiver (`LiveRx` with a FEC) name them.
#[derive(Debug, Default)]
pub(crate) struct Hits(Vec<Hit>);

impl Hits {
    /// Opens the uncorrectable units `summary` gained since it held `before`, before the
    /// frames of their blocks are received.
    pub(crate) fn open(&mut self, summary: &FecSummary, before: usize) {
        for (i, u) in summary.uncorrectable.iter().enumerate().skip(before) {
            self.0.push(Hit {
                unit: i,
                first_block: u.first_block,
                end_block: u.first_block + u64::from(u.blocks),
                frames: Vec::new(),
            });
        }
    }

    /// A received frame (its index, its `/S/` block and lane, its octets after the SFD):
    /// named in every unit it had a block in.
    pub(crate) fn frame(&mut self, index: u64, start: crate::tx::Placement, len: usize) {
        // The frame's octets run from its /S/ to its /T/: 8 of preamble and SFD, then `len`.
        let (first, lane) = (start.block, u64::from(start.lane));
        let end = (first * 8 + lane + 8 + len as u64) / 8;
        for h in &mut self.0 {
            if first < h.end_block && end >= h.first_block && !h.frames.contains(&index) {
                h.frames.push(index);
            }
        }
    }

    /// Writes the frames each unit hit into `summary`'s `uncorrectable[].frames`.
    pub(crate) fn name(&self, summary: &mut FecSummary) {
        for h in &self.0 {
            if let Some(u) = summary.uncorrectable.get_mut(h.unit) {
                u.frames.clone_from(&h.frames);
            }
        }
    }
}

/// The sink above a FEC: the caller's, and the frames that had a block in an uncorrectable
/// unit.
pub struct HitSink<K> {
    sink: K,
    hits: Hits,
}

impl<K> HitSink<K> {}

impl<K: RxSink> RxSink for HitSink<K> {
    fn wants_blocks(&self) -> bool {
        self.sink.wants_blocks()
    }

    fn wants_words(&self) -> bool {
        self.sink.wants_words()
    }

    fn words(
        &mut self,
        first: u64,
        words: &[XgmiiWord],
        blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        self.sink.words(first, words, blocks)
    }

    fn frame(&mut self, frame: &FrameRef<'_>) -> std::io::Result<()> {
        self.hits.frame(frame.index, frame.start, frame.len);
        self.sink.frame(frame)
    }

    fn wants_events(&self) -> bool {
        self.sink.wants_events()
    }

    fn rx_event(&mut self, block: u64, event: &RxEvent) {
        self.sink.rx_event(block, event);
    }

    fn link_fault(&mut self, block: u64, status: LinkStatus) {
        self.sink.link_fault(block, status);
    }
}

mod align;

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` line blocks of a real PCS stream (idles and frames of varied lengths, scrambled):
    /// the RS-FEC transcoder needs real block types in control blocks.
    fn blocks(n: usize, seed: u64) -> Vec<Block> {
        use crate::tx::{TxChain, TxOptions, VecSink};
        let mut chain = TxChain::new(&TxOptions::default(), VecSink::default());
        let mut x = seed | 1;
        let mut sent = 0;
        while sent < n + 200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 60 + (x % 300) as usize;
            let frame: Vec<u8> = (0..len).map(|i| (x >> (i % 56)) as u8).collect();
            chain.frame(&frame, None).unwrap();
            sent = chain.blocks() as usize;
        }
        let (sink, _) = chain.finish().unwrap();
        sink.lines[..n].to_vec()
    }

    fn line(opt: &FecOptions, input: &[Block]) -> (Vec<u8>, FecEncoder) {
        let mut enc = FecEncoder::new(opt).unwrap().unwrap();
        let mut words = Vec::new();
        // In uneven pieces, as a chain's batches come.
        for piece in input.chunks(37) {
            enc.push_blocks(piece, &mut words);
        }
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if let Some(t) = enc.tail() {
            bytes.extend_from_slice(&t.word.to_le_bytes()[..t.valid_bits.div_ceil(8) as usize]);
        }
        (bytes, enc)
    }

    fn decode(opt: &FecOptions, bytes: &[u8]) -> (Vec<Block>, FecSummary) {
        let mut dec = FecDecoder::new(opt, 10).unwrap().unwrap();
        let mut got = Vec::new();
        for piece in bytes.chunks(1001) {
            dec.push_bytes(piece, |b| got.extend_from_slice(b));
        }
        (got, dec.into_summary())
    }

    fn rs_opt() -> FecOptions {
        FecOptions {
            kind: Fec::Rs,
            rs: rs::RsFecConfig {
                lock_markers: 1,
                marker_period_codewords: 4,
                ..rs::RsFecConfig::IEEE
            },
            ..FecOptions::default()
        }
    }

    #[test]
    fn clause_74_line_decodes_back_to_the_blocks_after_lock() {
        let opt = FecOptions {
            kind: Fec::Fc,
            ..FecOptions::default()
        };
        let input = blocks(32 * 10, 7);
        let (bytes, enc) = line(&opt, &input);
        assert_eq!(
            bytes.len(),
            10 * 264,
            "the rate is kept: 32 blocks in 2112 bits"
        );
        assert_eq!((enc.codewords(), enc.stalls()), (10, 0));
        let (got, s) = decode(&opt, &bytes);
        // n = 2: the first FEC block is tested, the second completes lock.
        assert_eq!(s.lock.acquired_at_bit, Some(2112));
        assert_eq!(got, input[32..]);
        assert_eq!(
            (s.codewords, s.corrected_codewords, s.uncorrected_codewords),
            (9, 0, 0)
        );
        assert!(s.clean());
    }

    #[test]
    fn clause_74_corrects_an_11_bit_burst_and_names_a_12_bit_one() {
        let opt = FecOptions {
            kind: Fec::Fc,
            ..FecOptions::default()
        };
        let input = blocks(32 * 6, 9);
        let (mut bytes, _) = line(&opt, &input);
        // 11 bits in FEC block 3, 12 bits in FEC block 4.
        for b in 0..11 {
            let bit = 3 * 2112 + 500 + b;
            bytes[bit / 8] ^= 1 << (bit % 8);
        }
        for b in 0..12 {
            let bit = 4 * 2112 + 900 + b;
            bytes[bit / 8] ^= 1 << (bit % 8);
        }
        let (got, s) = decode(&opt, &bytes);
        assert_eq!((s.corrected_codewords, s.corrected_bits), (1, 11));
        assert_eq!(s.uncorrected_codewords, 1);
        assert_eq!(
            s.uncorrectable[0].first_block,
            3 * 32,
            "FEC block 4 is the 4th handed on"
        );
        assert_eq!(s.uncorrectable[0].bit, 4 * 2112);
        assert_eq!(
            got[..3 * 32],
            input[32..4 * 32],
            "the corrected block comes back whole"
        );
        assert_ne!(got[3 * 32..4 * 32], input[4 * 32..5 * 32]);
    }

    #[test]
    fn rs_line_decodes_back_with_markers_and_the_source_stalled_4_blocks_a_period() {
        let opt = rs_opt();
        // Two periods of 4 codewords: 76 + 3 * 80 blocks each.
        let input = blocks(2 * (76 + 3 * 80), 11);
        let (bytes, enc) = line(&opt, &input);
        assert_eq!(bytes.len(), 8 * 660);
        assert_eq!((enc.codewords(), enc.markers(), enc.stalls()), (8, 2, 8));
        assert_eq!(enc.blocks_to_boundary(), 0);
        let (got, s) = decode(&opt, &bytes);
        assert_eq!(got, input);
        assert_eq!(s.lock.acquired_at_bit, Some(0));
        assert_eq!((s.codewords, s.markers), (8, Some(2)));
        assert!(s.clean());
    }

    #[test]
    fn rs_corrects_7_symbols_and_names_the_codeword_with_8() {
        let opt = rs_opt();
        let input = blocks(2 * (76 + 3 * 80), 13);
        let (mut bytes, _) = line(&opt, &input);
        let mut hit = |cw: usize, symbols: usize| {
            for s in 0..symbols {
                let bit = cw * 5280 + 10 * (40 * s + 3) + 2;
                bytes[bit / 8] ^= 1 << (bit % 8);
            }
        };
        hit(1, 7);
        hit(2, 8);
        let (got, s) = decode(&opt, &bytes);
        assert_eq!(s.corrected_symbols, Some(7));
        assert_eq!(s.corrected_bits, 7);
        assert_eq!(s.uncorrected_codewords, 1);
        let u = &s.uncorrectable[0];
        assert_eq!(
            (u.index, u.bit, u.first_block, u.blocks),
            (2, 2 * 5280, 76 + 80, 80)
        );
        assert_eq!(got[..156], input[..156]);
        // Error indication (on by default): all 80 blocks marked invalid toward the PCS.
        assert!(got[156..236].iter().all(|b| !b.sync.is_valid()));
    }

    /// `got` is `want`, or the first block where they part.
    fn same_blocks(got: &[Block], want: &[Block], what: &str) {
        let first = got.iter().zip(want).position(|(g, w)| g != w);
        assert_eq!(
            (got.len(), first),
            (want.len(), None),
            "{what}: lengths, first differing block"
        );
    }

    fn decode_offline(opt: &FecOptions, bytes: &[u8]) -> (Vec<Block>, FecSummary) {
        let mut dec = FecDecoder::with_view(opt, 10, RxView::Offline)
            .unwrap()
            .unwrap();
        let mut got = Vec::new();
        for piece in bytes.chunks(997) {
            dec.push_bytes(piece, |b| got.extend_from_slice(b));
        }
        dec.flush(|b| got.extend_from_slice(b));
        (got, dec.into_summary())
    }

    #[test]
    fn rs_offline_decodes_a_dump_cut_after_its_marker_from_the_first_whole_codeword() {
        // The standard's period: the one marker is the first codeword's, and the dump starts
        // after it.
        let opt = FecOptions {
            kind: Fec::Rs,
            ..FecOptions::default()
        };
        let input = blocks(76 + 9 * 80, 21);
        let (bytes, _) = line(&opt, &input);
        for from in [1usize, 77, 5280, 5281, 2 * 5280 + 4000, 3 * 5280 - 1] {
            let dump = align::cut(&bytes, from as u64);
            let first = (5280 - from % 5280) % 5280;
            let whole = (bytes.len() * 8 - from - first) / 5280;
            let (got, s) = decode_offline(&opt, &dump);
            assert!(s.lock.offline, "cut at {from}");
            assert_eq!(s.lock.acquired_at_bit, Some(first as u64), "cut at {from}");
            assert_eq!(s.codewords, whole as u64, "cut at {from}");
            assert_eq!(s.markers, Some(0), "cut at {from}");
            let skip = 76 + 80 * ((from + first) / 5280 - 1);
            assert_eq!(got.len(), 80 * whole, "cut at {from}");
            let want = &input[skip..skip + 80 * whole];
            if first >= 140 + 257 {
                same_blocks(&got, want, &format!("cut at {from}"));
            } else {
                // No transcoded block before the first codeword to learn the history from:
                // a first control block there may get its type's high nibble wrong (the
                // receiver locked on a marker is in the same place), nothing else.
                let high = !0xf0u64;
                assert_eq!(
                    (got[0].sync, got[0].payload & high),
                    (want[0].sync, want[0].payload & high)
                );
                same_blocks(&got[1..], &want[1..], &format!("cut at {from}"));
            }
            assert!(s.clean(), "cut at {from}");
            // The receiver waits for a marker: none comes.
            let (got, s) = decode(&opt, &dump);
            assert_eq!((got.len(), s.lock.acquired_at_bit), (0, None));
        }
    }

    #[test]
    fn rs_offline_tells_marker_codewords_and_finds_a_line_with_errors_by_its_marker() {
        let opt = rs_opt();
        let input = blocks(3 * (76 + 3 * 80), 23);
        let (mut bytes, _) = line(&opt, &input);
        // 7 symbol errors in every codeword: no clean codeword, so the marker gives the
        // boundary; from bit 333 the first whole codeword is codeword 1.
        for cw in 0..bytes.len() * 8 / 5280 {
            for k in 0..7 {
                let bit = cw * 5280 + 10 * (70 * k + 5) + 3;
                bytes[bit / 8] ^= 1 << (bit % 8);
            }
        }
        let (got, s) = decode_offline(&opt, &align::cut(&bytes, 333));
        assert_eq!(s.lock.acquired_at_bit, Some(5280 - 333));
        assert_eq!((s.codewords, s.markers), (11, Some(2)));
        assert_eq!(s.corrected_symbols, Some(77));
        assert_eq!(s.uncorrected_codewords, 0);
        same_blocks(&got, &input[76..], "7 symbols a codeword");
    }

    #[test]
    fn rs_offline_gives_up_on_a_line_that_is_not_rs_fec_and_reads_it_as_the_receiver() {
        let opt = rs_opt();
        // Zeros (a bench's reset fill) then noise: no clean nonzero codeword, no marker.
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut bytes = vec![0u8; 3000];
        bytes.extend((0..(align::SEARCH_BITS / 8 + 2000)).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        }));
        let (got, s) = decode_offline(&opt, &bytes);
        assert!(got.is_empty());
        assert!(!s.lock.offline);
        assert_eq!((s.lock.acquired_at_bit, s.codewords), (None, 0));
    }

    #[test]
    fn a_partial_codeword_says_how_many_blocks_finish_it() {
        let opt = rs_opt();
        let (_, enc) = line(&opt, &blocks(76 + 10, 1));
        assert_eq!(enc.blocks_to_boundary(), 70);
        assert_eq!(enc.markers(), 1);
        let fc = FecOptions {
            kind: Fec::Fc,
            ..FecOptions::default()
        };
        let (_, enc) = line(&fc, &blocks(40, 1));
        assert_eq!(enc.blocks_to_boundary(), 24);
    }

    #[test]
    fn rs_fec_is_refused_at_10g_and_the_consortium_by_name() {
        let opt = FecOptions {
            kind: Fec::Rs,
            ..FecOptions::default()
        };
        assert!(opt.check(Rate::G10).unwrap_err().contains("25GBASE-R"));
        assert!(opt.check(Rate::G25).is_ok());
        assert!("consortium"
            .parse::<Fec>()
            .unwrap_err()
            .contains("Consortium"));
        assert_eq!("fc".parse::<Fec>(), Ok(Fec::Fc));
        assert_eq!("25G".parse::<Rate>(), Ok(Rate::G25));
        assert_eq!(Rate::G25.block_ps() * 5, Rate::G10.block_ps() * 2);
    }

    /// A serial-words sink.
    #[derive(Default)]
    struct Serial(Vec<u8>);

    impl crate::tx::TxSink for Serial {
        fn forms(&self) -> crate::tx::TxForms {
            crate::tx::TxForms {
                words: false,
                unscrambled: false,
                serial: true,
                line: false,
            }
        }

        fn put(&mut self, b: &crate::tx::TxBatch<'_>) -> std::io::Result<()> {
            self.0.extend(b.serial.iter().flat_map(|w| w.to_le_bytes()));
            Ok(())
        }

        fn end(&mut self, tail: Option<PartialWord<u64>>) -> std::io::Result<()> {
            if let Some(t) = tail {
                let n = t.valid_bits.div_ceil(8) as usize;
                self.0.extend_from_slice(&t.word.to_le_bytes()[..n]);
            }
            Ok(())
        }
    }

    fn frames(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| (0..60 + (i * 37) % 1400).map(|k| (k ^ i) as u8).collect())
            .collect()
    }

    /// Frames through the TX chain with a FEC, the line (with `hurt` applied), back through
    /// the FEC RX chain: the frames received, the FEC summary.
    fn through(
        fec: &FecOptions,
        sent: &[Vec<u8>],
        hurt: impl FnOnce(&mut Vec<u8>),
    ) -> (Vec<crate::rx::ReceivedFrame>, FecSummary) {
        let mut line = line_of(fec, sent);
        hurt(&mut line);
        let opt = RxOptions {
            max_events: 20,
            ..RxOptions::default()
        };
        let mut rx = FecRxChain::new(&opt, fec, Vec::new()).unwrap();
        for piece in line.chunks(4099) {
            rx.push_bytes(piece);
        }
        let (_, _, got, summary) = rx.finish().unwrap();
        (got, summary)
    }

    #[test]
    fn frames_survive_either_fec_and_7_symbol_errors_a_codeword() {
        let sent = frames(60);
        let fc = FecOptions {
            kind: Fec::Fc,
            ..FecOptions::default()
        };
        for opt in [fc, rs_opt()] {
            let (got, s) = through(&opt, &sent, |_| {});
            let contents: Vec<&[u8]> = got.iter().map(|f| f.content()).collect();
            assert_eq!(contents, sent.iter().map(Vec::as_slice).collect::<Vec<_>>());
            assert!(s.clean() && s.corrected_codewords == 0, "{s:?}");
        }
        // 7 symbols in every RS codeword after the first: all corrected, counted exactly.
        let codewords = through(&rs_opt(), &sent, |_| {}).1.codewords;
        let (got, s) = through(&rs_opt(), &sent, |line| {
            let faults: Vec<crate::inject::Fault> = (1..codewords)
                .map(|c| crate::inject::Fault::Symbols(c, 7))
                .collect();
            crate::inject::corrupt_line(line, &faults).unwrap();
        });
        assert_eq!(got.len(), sent.len());
        assert!(got.iter().all(|f| f.class.is_ok()));
        assert_eq!(s.corrected_symbols, Some(7 * (codewords - 1)));
        assert_eq!(s.uncorrected_codewords, 0);
    }

    /// The line of `sent` through the TX chain below `fec`.
    fn line_of(fec: &FecOptions, sent: &[Vec<u8>]) -> Vec<u8> {
        use crate::tx::{TxChain, TxOptions};
        let enc = FecEncoder::new(fec).unwrap();
        let mut tx = TxChain::with_fec(&TxOptions::default(), Serial::default(), enc);
        for f in sent {
            tx.frame(f, None).unwrap();
        }
        tx.finish().unwrap().0 .0
    }

    #[test]
    fn the_live_receiver_names_the_frames_of_an_uncorrectable_unit_as_the_chain_does() {
        let fc = FecOptions {
            kind: Fec::Fc,
            ..FecOptions::default()
        };
        let fault = [
            (rs_opt(), crate::inject::Fault::Symbols(5, 8)),
            (fc, crate::inject::Fault::Burst(9 * 2112 + 700, 12)),
        ];
        for (fec, fault) in fault {
            let sent = frames(60);
            let (_, chain) = through(&fec, &sent, |line| {
                crate::inject::corrupt_line(line, std::slice::from_ref(&fault)).unwrap();
            });
            let mut line = line_of(&fec, &sent);
            crate::inject::corrupt_line(&mut line, &[fault]).unwrap();
            let opt = RxOptions {
                max_events: 20,
                ..RxOptions::default()
            };
            let mut live = crate::live::LiveRx::new(&opt, RxInput::Serial);
            live.set_fec(&opt, Rate::G25, &fec).unwrap();
            line.resize(line.len().div_ceil(8) * 8, 0);
            let words: Vec<u64> = line
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            // Word by word, as a simulation clocks them; the frames taken as they come.
            let mut taken = 0;
            for w in words {
                live.push_word(64, w).unwrap();
                taken += live.frames().drain(..).count();
            }
            let named = &live.fec().unwrap().uncorrectable[0].frames;
            assert_eq!(chain.uncorrected_codewords, 1, "{fec:?}");
            assert!(!named.is_empty() && taken > 0, "{fec:?}");
            assert_eq!(named, &chain.uncorrectable[0].frames, "{:?}", fec.kind);
        }
    }

    #[test]
    fn an_uncorrectable_codeword_names_exactly_the_frames_in_it() {
        let sent = frames(60);
        let (clean, _) = through(&rs_opt(), &sent, |_| {});
        let (got, s) = through(&rs_opt(), &sent, |line| {
            crate::inject::corrupt_line(line, &[crate::inject::Fault::Symbols(5, 8)]).unwrap();
        });
        assert_eq!(s.uncorrected_codewords, 1);
        let u = &s.uncorrectable[0];
        assert_eq!(u.index, 5);
        assert!(!u.frames.is_empty());
        // The frames it names are those that came back wrong; the others are intact.
        let bad: Vec<u64> = got
            .iter()
            .filter(|f| !f.class.is_ok())
            .map(|f| f.index)
            .collect();
        for b in &bad {
            assert!(u.frames.contains(b), "frame {b} hurt but not named");
        }
        let named_ok = u.frames.iter().filter(|i| !bad.contains(i)).count();
        assert!(
            named_ok <= 2,
            "only frames at the codeword's edges may survive: {u:?}"
        );
        assert!(clean.len() >= got.len());
    }
}
