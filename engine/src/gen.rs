//! Constrained-random stimulus with the outcome the standard demands (`baser gen`).
//!
//! From a seed, a scenario: frames of chosen lengths and kinds (runts, 64 octets, every
//! terminate lane, 1518, VLAN and QinQ tags, PAUSE and PFC, jumbo), some sent faulty on purpose
//! (a wrong FCS, an `/E/` abort, a bad preamble), idle gaps with the IFG and the deficit idle
//! count and idles inserted between frames (clock compensation), sequence ordered sets (local
//! fault, remote fault, link interruption); with [`Mode::Hostile`] also what no conforming
//! transmitter sends: invalid sync headers (in gaps and inside frames), reserved block types,
//! `/LI/` blocks without EEE, and a BER burst that raises `hi_ber`.
//!
//! The expected outcome is derived from the scenario, not by decoding the stream: each frame's
//! receive class (or `dropped`), and the PCS counts a conforming receiver must report. A
//! property test decodes the stream with the model and checks the two agree for many seeds.
//!
//! The same seed gives the same bytes: the generator is its own (splitmix64), so no crate
//! update changes a stream.

use crate::outcome::Outcome;
use crate::profile::Profile;
use crate::tx::{TxChain, TxOptions, VecSink};
use mac_core::tx::TxConfig;
use pcs_core::Scrambler;
use pcs_core::{Block, SyncHeader, XgmiiWord};
use serde::Serialize;

/// What the stream may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Only what a conforming transmitter may send (for a DUT's receiver).
    ForDut,
    /// Anything on the line: invalid headers, reserved block types, BER bursts.
    Hostile,
}

/// Settings of a generated stream.
#[derive(Clone, Copy, Debug)]
pub struct GenOptions {
    /// The seed.
    pub seed: u64,
    /// Scenario items (frames and line events).
    pub items: usize,
    /// What the stream may hold.
    pub mode: Mode,
    /// The IFG (octets).
    pub ifg: u16,
    /// The receiver's largest good frame, FCS included (1518: 1522 when tagged).
    pub max_frame_length: u16,
    /// The scrambler's start state.
    pub scrambler_seed: u64,
}

impl Default for GenOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            items: 40,
            mode: Mode::ForDut,
            ifg: 12,
            max_frame_length: 1518,
            scrambler_seed: pcs_core::SCRAMBLER_DEFAULT_STATE,
        }
    }
}

/// One frame of the scenario and what must become of it.
#[derive(Clone, Debug, Serialize)]
pub struct GenFrame {
    /// Index among the frames (the record of `frames.pcap`).
    pub index: u64,
    /// Octets from DA to the end of the payload (without FCS).
    pub length: usize,
    /// What it is.
    pub kind: &'static str,
    /// What was done to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<&'static str>,
    /// What a conforming receiver makes of it: `ok`, a receive class, or `dropped`.
    pub outcome: &'static str,
    /// The content (DA to the end of the payload).
    #[serde(skip)]
    pub data: Vec<u8>,
}

impl GenFrame {
    /// The outcome as `check --outcomes` takes it.
    pub fn outcome(&self) -> Outcome {
        Outcome::parse(self.outcome).unwrap_or(Outcome::Ok)
    }
}

/// The PCS counts a conforming receiver reports for the stream (`None`, JSON `null`: not
/// predicted, as the invalid headers a receiver counts between a bit slip and its loss of
/// lock, which depend on the data it misreads).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ExpectedPcs {
    /// Invalid sync headers while locked.
    pub invalid_headers: Option<u64>,
    /// Blocks into `RX_E` while the link was up.
    pub errored_blocks: Option<u64>,
    /// `hi_ber` episodes.
    pub hi_ber_episodes: Option<u64>,
    /// Block lock losses.
    pub lock_losses: u64,
    /// Link fault status changes after the lead-in (each fault counts its rise and its
    /// clearing; a serial receiver's own start-up fault, before block lock, is not counted).
    pub link_fault_changes: u64,
}

impl ExpectedPcs {
    fn add(v: &mut Option<u64>, n: u64) {
        if let Some(x) = v.as_mut() {
            *x += n;
        }
    }

    fn known() -> Self {
        Self {
            invalid_headers: Some(0),
            errored_blocks: Some(0),
            hi_ber_episodes: Some(0),
            lock_losses: 0,
            link_fault_changes: 0,
        }
    }
}

/// The expected outcome of a generated stream (`expected.json`).
#[derive(Clone, Debug, Serialize)]
pub struct Expectation {
    /// The generator's version (same seed, same bytes within it).
    pub generator: &'static str,
    /// The seed.
    pub seed: u64,
    /// What the stream may hold.
    pub mode: Mode,
    /// The IFG.
    pub ifg: u16,
    /// The receiver's largest good frame the outcomes assume.
    pub max_frame_length: u16,
    /// The scrambler's start state.
    pub scrambler_state: u64,
    /// Transfers (blocks) in the stream.
    pub blocks: u64,
    /// Every frame, in order.
    pub frames: Vec<GenFrame>,
    /// The PCS counts.
    pub pcs: ExpectedPcs,
    /// Where the outcomes come from: the scenario (every stream but a cover stream), or the
    /// model's decode.
    pub outcomes_from: &'static str,
    /// Line events, in order: (block, what).
    pub events: Vec<(u64, String)>,
    /// The FEC below the PCS and the faults planned on its line (`gen --fec`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fec: Option<crate::fec::ExpectedFec>,
}

impl Expectation {
    /// Its frames as the judge takes them (index and content, DA to the end of the payload).
    pub fn judged(&self) -> Vec<crate::judge::Expected> {
        self.frames
            .iter()
            .map(|f| crate::judge::Expected {
                index: f.index,
                data: f.data.clone(),
            })
            .collect()
    }
}

/// A generated stream.
pub struct Generated {
    /// The expected outcome.
    pub expectation: Expectation,
    /// The transmitter's XGMII transfers (before any line fault).
    pub words: Vec<XgmiiWord>,
    /// The line blocks (scrambled, with the line faults but the slips).
    pub line: Vec<Block>,
    /// Bit slips of the serial stream: (line bit position, bits inserted (+) or deleted (-)).
    /// A stream with slips exists only as serial bits ([`Generated::serial`]); its
    /// expectation is for those.
    pub slips: Vec<(u64, i32)>,
}

impl Generated {
    /// The serial stream, bit 0 first: `bit_offset` bits (ones), then the line with its slips.
    pub fn serial(&self, bit_offset: u32) -> Vec<u8> {
        serial(&self.line, &self.slips, bit_offset)
    }
}

/// Line blocks as a serial stream, bit 0 first: `bit_offset` bits (ones), then the blocks,
/// with bit slips (line bit position, bits inserted (+) or deleted (-)).
pub fn serial(blocks: &[Block], slips: &[(u64, i32)], bit_offset: u32) -> Vec<u8> {
    {
        let faults: Vec<crate::inject::Fault> = slips
            .iter()
            .map(|&(at, n)| crate::inject::Fault::Slip(at, n))
            .collect();
        let mut ch = crate::inject::FaultChannel::new(&faults);
        for &b in blocks {
            ch.push(b);
        }
        let line = ch.finish();
        let mut out = Vec::with_capacity(line.len() + 9);
        let (mut acc, mut n) = (0u128, 0u32);
        let mut push = |v: u64, bits: u32, out: &mut Vec<u8>| {
            acc |= u128::from(v) << n;
            n += bits;
            while n >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                n -= 8;
            }
        };
        let mut lead = bit_offset;
        while lead > 0 {
            let k = lead.min(32);
            push((1u64 << k) - 1, k, &mut out);
            lead -= k;
        }
        for byte in line {
            push(u64::from(byte), 8, &mut out);
        }
        if n > 0 {
            out.push(acc as u8);
        }
        out
    }
}

mod fec_line;
pub use fec_line::{fec_stimulus, FecFaults, FecStimulus};

/// The version of the generator's scenario rules.
pub const GENERATOR: &str = "baser-gen 1";

use crate::inject::SplitMix as Rng;

/// Idle transfers before the first item: a receiver locks (64 headers) and trains.
const LEAD_IN: u64 = 128;
/// Idle transfers after a sequence ordered set run: the link fault monitor clears after 128
/// columns without one (Fig. 46-11).
const AFTER_SEQUENCE: u64 = 72;
/// Blocks of idle after a BER burst: `hi_ber` clears at the end of the first 125 us window
/// (19,531.25 blocks at 10.3125 GBd) without 16 invalid headers: the burst's window, then one
/// more, with room for a receiver that locked late.
const AFTER_BURST: u64 = 2 * 19_532 + 400;
/// Idle blocks after a bit slip: enough for the receiver to slip to the new boundary (at most
/// 65 slips, each after a round of up to 64 headers) and lock again (64 good headers).
const AFTER_SLIP: u64 = 66 * 64 + 200;
/// Blocks of a BER burst that count as errored: the invalid headers before the one that
/// raises `hi_ber` (the link is down for that one's own block).
const BURST_ERRORED: u64 = 15;

/// A block-level edit of the line.
#[derive(Clone, Copy, Debug)]
enum Edit {
    /// The sync header becomes this invalid value.
    Header(u64, u8),
    /// The unscrambled block becomes this control block.
    Control(u64, u64),
    /// The unscrambled block becomes this block.
    Block(u64, Block),
}

struct Builder {
    rng: Rng,
    opt: GenOptions,
    mac: crate::fcs::MacTx,
    words: Vec<XgmiiWord>,
    frames: Vec<GenFrame>,
    edits: Vec<Edit>,
    pcs: ExpectedPcs,
    /// Bit slips of the serial stream: (line bit position, bits inserted (+) or deleted (-)).
    slips: Vec<(u64, i32)>,
    events: Vec<(u64, String)>,
}

/// MAC control frames: DA 01-80-C2-00-00-01, type 0x8808.
fn control_frame(opcode: u16, rng: &mut Rng) -> Vec<u8> {
    let mut f = vec![
        0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0, 1, 0x88, 0x08,
    ];
    f.extend_from_slice(&opcode.to_be_bytes());
    if opcode == 0x0001 {
        f.extend_from_slice(&(rng.next_u64() as u16).to_be_bytes()); // pause quanta
    } else {
        f.extend_from_slice(&0x00ffu16.to_be_bytes()); // class enable vector
        for _ in 0..8 {
            f.extend_from_slice(&(rng.next_u64() as u16).to_be_bytes());
        }
    }
    f.resize(60, 0);
    f
}

impl Builder {
    fn idle(&mut self, n: u64) {
        let start = self.words.len();
        self.words.resize(start + n as usize, XgmiiWord::IDLE);
        if let Some(out) = self.words.get_mut(start..) {
            self.mac.idle(out);
        }
    }

    fn at(&self) -> u64 {
        self.words.len() as u64
    }

    fn payload(&mut self, len: usize, ether_type: Option<u16>) -> Vec<u8> {
        let mut f: Vec<u8> = (0..len).map(|_| self.rng.next_u64() as u8).collect();
        if let Some(d) = f.get_mut(0) {
            *d &= 0xfe; // unicast destination
        }
        if let (Some(t), Some(slot)) = (ether_type, f.get_mut(12..14)) {
            slot.copy_from_slice(&t.to_be_bytes());
        }
        f
    }

    /// Encodes `frame` (or its sent part for an abort) and appends its transfers.
    fn send(&mut self, data: &[u8], fcs: Option<[u8; 4]>, abort_after: Option<usize>) -> usize {
        let mut buf = vec![XgmiiWord::IDLE; self.mac.words_needed(data.len() + 4) + 2];
        let n = match (abort_after, fcs) {
            (Some(k), _) => self
                .mac
                .encode_aborted(data.get(..k).unwrap_or(data), &mut buf),
            (None, Some(f)) => {
                let mut with = data.to_vec();
                with.extend_from_slice(&f);
                self.mac.encode_frame_with_fcs(&with, &mut buf)
            }
            (None, None) => self.mac.encode_frame(data, &mut buf),
        }
        .unwrap_or(0);
        let first = self.words.len();
        self.words
            .extend_from_slice(buf.get(..n).unwrap_or_default());
        first
    }

    /// A frame of a random kind (its name and its octets, DA to the end of the payload).
    fn frame_kind(&mut self) -> (&'static str, Vec<u8>) {
        let r = self.rng.range(0, 99);
        match r {
            0..=9 => ("64 octets", self.payload(60, Some(0x0800))),
            10..=29 => {
                let len = 60 + self.rng.range(0, 7) as usize;
                ("terminate lane", self.payload(len, Some(0x0800)))
            }
            30..=34 => ("1518 octets", self.payload(1514, Some(0x0800))),
            35..=39 => {
                let mut f = self.payload(1518, Some(0x8100));
                if let Some(t) = f.get_mut(16..18) {
                    t.copy_from_slice(&0x0800u16.to_be_bytes());
                }
                ("VLAN 1522 octets", f)
            }
            40..=44 => {
                let len = 64 + self.rng.range(0, 400) as usize;
                let mut f = self.payload(len, Some(0x88a8));
                if let Some(t) = f.get_mut(16..18) {
                    t.copy_from_slice(&0x8100u16.to_be_bytes());
                }
                ("QinQ", f)
            }
            45..=47 => ("PAUSE", control_frame(0x0001, &mut self.rng)),
            48..=49 => ("PFC", control_frame(0x0101, &mut self.rng)),
            50..=52 => {
                let len = 9000 + self.rng.range(0, 14) as usize;
                ("jumbo", self.payload(len, Some(0x0800)))
            }
            53..=57 => {
                let len = 14 + self.rng.range(0, 45) as usize;
                ("runt", self.payload(len, Some(0x0800)))
            }
            _ => {
                let len = 61 + self.rng.range(0, 1453) as usize;
                ("random length", self.payload(len, Some(0x0800)))
            }
        }
    }

    /// Puts a frame's fault where it goes once the frame is sent (its `/S/` at transfer `s`,
    /// the transfers it took ending before `start`, where the next frame starts), and the PCS
    /// counts it makes.
    fn mark_fault(&mut self, fault: Option<&'static str>, s: usize, start: usize) {
        match fault {
            Some("bad preamble") => {
                // A preamble octet (not the SFD) other than 0x55: lane 1 after an /S/ in lane 0,
                // or lane 5 after one in lane 4.
                if let Some(w) = self.words.get_mut(s) {
                    let lane = if w.is_control(0) && w.octet(0) == 0xfb {
                        1
                    } else {
                        5
                    };
                    w.data ^= 0x22 << (8 * lane);
                }
            }
            Some("invalid sync header in the frame") => {
                // A data block in the middle: its header goes bad; the block decodes as /E/.
                let mid = s + 2 + (start - s - 3) / 2;
                let bad = if self.rng.chance(50) { 0 } else { 3 };
                self.edits.push(Edit::Header(mid as u64, bad));
                ExpectedPcs::add(&mut self.pcs.invalid_headers, 1);
                ExpectedPcs::add(&mut self.pcs.errored_blocks, 1);
            }
            Some("/E/ abort") => {
                // Each transfer holding an /E/ (the four /E/ may straddle two) has T_TYPE E:
                // EBLOCK_T on the line, R_TYPE E at the receiver, a block into RX_E.
                let with_e = self
                    .words
                    .get(s..)
                    .unwrap_or_default()
                    .iter()
                    .filter(|w| (0..8).any(|l| w.is_control(l) && w.octet(l) == 0xfe))
                    .count();
                ExpectedPcs::add(&mut self.pcs.errored_blocks, with_e as u64);
            }
            _ => {}
        }
    }

    fn frame(&mut self) {
        let hostile = self.opt.mode == Mode::Hostile;
        let index = self.frames.len() as u64;
        let (kind, data) = self.frame_kind();
        let runt = kind == "runt";
        let limit = usize::from(self.opt.max_frame_length)
            + if kind.starts_with("VLAN") && self.opt.max_frame_length == 1518 {
                4
            } else {
                0
            };
        let too_long = data.len() + 4 > limit;
        // What is done to it.
        let f = self.rng.range(0, 99);
        // A frame too long or too short takes only a wrong FCS (which class wins over an
        // /E/ or a bad preamble there is no test's business).
        let plain = too_long || runt;
        let fault = match f {
            _ if plain && f >= 8 => None,
            0..=7 => Some("wrong FCS"),
            8..=13 if data.len() > 20 => Some("/E/ abort"),
            14..=16 => Some("bad preamble"),
            17..=22 if hostile && data.len() > 40 => Some("invalid sync header in the frame"),
            _ => None,
        };
        let good_fcs =
            mac_core::frame::fcs_padded_with::<crate::fcs::FastFcs>(&data, 0).to_le_bytes();
        let mut fcs = runt.then_some(good_fcs);
        let mut abort = None;
        let outcome = match fault {
            Some("wrong FCS") => {
                // (Every frame but a runt is 60 octets or more: nothing to pad.)
                let mut bad = good_fcs;
                bad[0] ^= 0x5a;
                fcs = Some(bad);
                if too_long {
                    "too_long"
                } else if runt {
                    "fragment"
                } else {
                    "fcs_error"
                }
            }
            Some("/E/ abort") => {
                abort = Some(8 + self.rng.range(0, (data.len() - 16) as u64) as usize);
                "error_character"
            }
            Some("bad preamble") => "bad_preamble",
            Some(_) => "error_character",
            None if too_long => "too_long",
            None if runt => "runt",
            None => "ok",
        };
        let first = self.send(&data, fcs, abort);
        let start = self.words.len();
        // The frame's transfers: first /S/ at or after `first`.
        let s = (first..start)
            .find(|&i| {
                self.words
                    .get(i)
                    .is_some_and(|w| (0..8).any(|l| w.is_control(l) && w.octet(l) == 0xfb))
            })
            .unwrap_or(first);
        self.mark_fault(fault, s, start);
        if abort.is_some() {
            // A frame whose /S/ follows the abort's transfer at once would be sent as EBLOCK_T
            // too (TX_E --S--> TX_E): keep a transfer of idles between.
            self.idle(1);
        }
        self.frames.push(GenFrame {
            index,
            length: data.len(),
            kind,
            fault,
            outcome,
            data,
        });
        // Clock compensation: idle transfers inserted between frames, now and then.
        if self.rng.chance(20) {
            let n = self.rng.range(1, 3);
            self.idle(n);
        }
    }

    fn sequence(&mut self) {
        // (A signal ordered set, /Fsig/, carries nothing a 10G RS defines: only a hostile
        // stream sends it.)
        let kinds = if self.opt.mode == Mode::Hostile { 3 } else { 2 };
        let (name, code) = match self.rng.range(0, kinds) {
            0 => ("local fault", 1u64),
            1 => ("remote fault", 2),
            2 => ("link interruption", 3),
            _ => {
                // A signal ordered set (/Fsig/ in lane 0, idles in column 1): no link fault.
                let w = XgmiiWord {
                    data: 0x5c | u64::from(self.rng.next_u64() as u16) << 8 | IDLE_COL << 32,
                    ctrl: 0xf1,
                };
                self.events
                    .push((self.at(), "a signal ordered set (/Fsig/)".into()));
                let start = self.words.len();
                self.words.resize(start + 2, w);
                if let Some(out) = self.words.get_mut(start..) {
                    self.mac.fill_with(w, out);
                }
                self.idle(2);
                return;
            }
        };
        // /Q/ in lane 0 and 4, 0x00 0x00 code: a sequence ordered set in both columns.
        let col = 0x9c | code << 24;
        let w = XgmiiWord {
            data: col | col << 32,
            ctrl: 0x11,
        };
        let n = self.rng.range(4, 8);
        self.events
            .push((self.at(), format!("{n} transfers of {name} ordered sets")));
        let start = self.words.len();
        self.words.resize(start + n as usize, w);
        if let Some(out) = self.words.get_mut(start..) {
            self.mac.fill_with(w, out);
        }
        self.pcs.link_fault_changes += 2;
        // Clock compensation deletes idles where a gap has more than it needs: up to 6 of
        // the idle transfers after the run (64 are enough for the monitor to clear).
        let deleted = self.rng.range(0, 6);
        self.idle(AFTER_SEQUENCE - deleted);
    }

    /// 16 invalid headers, one every 5 blocks: never 16 in one 64-header round of the lock
    /// state machine (no lock loss), 16 in one 125 us window of the BER monitor: `hi_ber`.
    /// Sent first after the lead-in, so that it lies in the monitor's first window whether it
    /// started at block 1 (blocks at known boundaries) or at block lock (serial bits); then
    /// idles until `hi_ber` has cleared (the end of the next window without errors).
    fn burst(&mut self) {
        let at = self.at();
        self.events
            .push((at, "BER burst: 16 invalid headers in 80 blocks".into()));
        self.idle(80);
        for k in 0..16 {
            self.edits.push(Edit::Header(at + 5 * k, 0));
        }
        ExpectedPcs::add(&mut self.pcs.invalid_headers, 16);
        ExpectedPcs::add(&mut self.pcs.errored_blocks, BURST_ERRORED);
        ExpectedPcs::add(&mut self.pcs.hi_ber_episodes, 1);
        // While hi_ber, the decoder sends /LF/ (LBLOCK_R): the link fault monitor raises a
        // local fault and clears it after.
        self.pcs.link_fault_changes += 2;
        self.idle(AFTER_BURST);
    }

    /// A bit slip of the serial stream (bits inserted or deleted) in a long idle stretch: the
    /// receiver loses block lock and finds it again at the new boundary (65 slips at most,
    /// each after 16 invalid headers in a round of 64). The invalid headers and errored
    /// blocks it counts on the way depend on what it misreads: not predicted.
    fn slip(&mut self) {
        self.idle(8);
        let at = self.at();
        let n = if self.rng.chance(50) {
            self.rng.range(1, 65) as i32
        } else {
            -(self.rng.range(1, 65) as i32)
        };
        self.events.push((
            at,
            format!(
                "bit slip: {} {} bits (serial stream only)",
                if n > 0 { "inserted" } else { "deleted" },
                n.abs()
            ),
        ));
        self.slips.push((at * 66 + 10, n));
        self.idle(AFTER_SLIP);
        self.pcs.lock_losses += 1;
        // Unlocked, the decoder sends /LF/ (LBLOCK_R): a local fault, cleared after relock.
        self.pcs.link_fault_changes += 2;
        self.pcs.invalid_headers = None;
        self.pcs.errored_blocks = None;
        self.pcs.hi_ber_episodes = None;
    }

    fn line_event(&mut self) {
        let r = self.rng.range(0, 99);
        self.idle(2);
        let at = self.at();
        self.idle(2);
        match r {
            0..=39 => {
                let bad = if self.rng.chance(50) { 0 } else { 3 };
                self.edits.push(Edit::Header(at, bad));
                self.events
                    .push((at, format!("invalid sync header {bad} on an idle block")));
                ExpectedPcs::add(&mut self.pcs.invalid_headers, 1);
                ExpectedPcs::add(&mut self.pcs.errored_blocks, 1);
            }
            40..=69 => {
                // Block type 0x00 is none of Figure 49-7's 15.
                self.edits.push(Edit::Control(at, 0));
                self.events.push((at, "reserved block type 0x00".into()));
                ExpectedPcs::add(&mut self.pcs.errored_blocks, 1);
            }
            70..=89 => {
                // Eight /LI/ codes (0x06): low power idle, not sent without EEE.
                let li = (0..8).fold(0x1e_u64, |p, lane| p | 0x06 << (8 + 7 * lane));
                self.edits.push(Edit::Control(at, li));
                self.events.push((at, "/LI/ block without EEE".into()));
                ExpectedPcs::add(&mut self.pcs.errored_blocks, 1);
            }
            _ => {
                self.edits.push(Edit::Header(at, 3));
                self.events
                    .push((at, "invalid sync header 3 on an idle block".into()));
                ExpectedPcs::add(&mut self.pcs.invalid_headers, 1);
                ExpectedPcs::add(&mut self.pcs.errored_blocks, 1);
            }
        }
    }
}

/// A test pattern (§49.2.8) a DUT's receiver checks in test-pattern mode (MDIO 3.42).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestPattern {
    /// PRBS31 over the whole 66-bit stream, as the LFSR gives it.
    Prbs31,
    /// PRBS31, complemented (as ITU-T O.150 and common RTL send it).
    Prbs31Inverted,
    /// Idle blocks through the scrambler.
    ScrambledIdle,
}

impl std::str::FromStr for TestPattern {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "prbs31" => Ok(Self::Prbs31),
            "prbs31-inverted" => Ok(Self::Prbs31Inverted),
            "scrambled-idle" => Ok(Self::ScrambledIdle),
            _ => Err(format!(
                "unknown test pattern `{s}`: expected prbs31, prbs31-inverted or scrambled-idle"
            )),
        }
    }
}

/// What a test-pattern checker must count of a generated test-pattern stream.
#[derive(Clone, Debug, Serialize)]
pub struct PatternExpectation {
    /// The generator's version.
    pub generator: &'static str,
    /// The seed (which line bits are flipped).
    pub seed: u64,
    /// The pattern.
    pub test_pattern: TestPattern,
    /// Blocks in the stream.
    pub blocks: u64,
    /// Line bits flipped on purpose (bit positions from the stream's first bit).
    pub flipped_bits: Vec<u64>,
    /// What the checker of §49.2.12 counts (the MDIO 3.43 test-pattern error counter, before
    /// it saturates): PRBS31 counts a flipped bit three times (itself, and where it is a tap,
    /// 28 and 31 bits on); the scrambled idle checker counts the blocks that do not descramble
    /// to an idle block (a flip at payload bit q corrupts bits q, q + 39, q + 58 of the
    /// descrambled stream).
    pub errors: u64,
}

/// A test-pattern stream of `blocks` blocks with `flips` line bits flipped (apart enough that
/// each is counted on its own), from `seed`.
pub fn test_pattern(
    pattern: TestPattern,
    blocks: u64,
    flips: usize,
    seed: u64,
) -> (Vec<Block>, PatternExpectation) {
    use pcs_core::{Prbs31Generator, Prbs31Polarity, ScrambledIdleGenerator};
    let mut line = vec![Block::IDLE; blocks as usize];
    match pattern {
        TestPattern::Prbs31 | TestPattern::Prbs31Inverted => {
            let polarity = if pattern == TestPattern::Prbs31 {
                Prbs31Polarity::Normal
            } else {
                Prbs31Polarity::Inverted
            };
            Prbs31Generator::new(Prbs31Generator::DEFAULT_STATE, polarity).fill_blocks(&mut line);
        }
        TestPattern::ScrambledIdle => {
            ScrambledIdleGenerator::new(pcs_core::SCRAMBLER_DEFAULT_STATE).fill_blocks(&mut line);
        }
    }
    // One flip in each stretch of 40 blocks (after the first 2: the checkers' start-up),
    // in the payload, at least 64 bits from the stretch's ends.
    let mut rng = Rng(seed);
    let stretches = blocks.saturating_sub(2) / 40;
    let mut flipped = Vec::new();
    let mut errors = 0;
    for k in 0..(flips as u64).min(stretches) {
        let block = 2 + 40 * k + rng.range(2, 37);
        let bit = rng.range(2, 65);
        let pos = block * 66 + bit;
        if let Some(b) = line.get_mut(block as usize) {
            b.payload ^= 1 << (bit - 2);
        }
        flipped.push(pos);
        errors += match pattern {
            TestPattern::ScrambledIdle => {
                // Payload bit q of the descrambled stream, then q + 39 and q + 58.
                let q = block * 64 + (bit - 2);
                let mut touched: Vec<u64> = [q, q + 39, q + 58].iter().map(|x| x / 64).collect();
                touched.dedup();
                touched.len() as u64
            }
            _ => 3,
        };
    }
    let expectation = PatternExpectation {
        generator: GENERATOR,
        seed,
        test_pattern: pattern,
        blocks,
        flipped_bits: flipped,
        errors,
    };
    (line, expectation)
}

/// A transfer of each `T_TYPE` (`C`, `S`, `D`, `T`, `E`: `/S/` in lane 2, which no block
/// format has), for the cover stream's anomalies.
pub(crate) fn word_of(class: char) -> XgmiiWord {
    match class {
        'S' => XgmiiWord {
            data: 0xd555_5555_5555_55fb,
            ctrl: 0x01,
        },
        'D' => XgmiiWord {
            data: 0x0102_0304_0506_0708,
            ctrl: 0,
        },
        'T' => XgmiiWord {
            data: 0x0707_0707_0707_07fd,
            ctrl: 0xff,
        },
        'E' => XgmiiWord {
            data: 0x0000_0000_00fb_0707,
            ctrl: 0x07,
        },
        _ => XgmiiWord::IDLE,
    }
}

/// A block of each `R_TYPE` (`C`, `S`, `D`, `T`, `E`: a reserved type), for the cover
/// stream's block edits.
pub(crate) fn block_of(class: char) -> Block {
    let control = |payload| Block {
        sync: SyncHeader::CONTROL,
        payload,
    };
    match class {
        'D' => Block {
            sync: SyncHeader::DATA,
            payload: 0x0706_0504_0302_0100,
        },
        // S0 with a preamble; T0 with idles after it; a reserved type (R_TYPE E).
        'S' => control(0xd555_5555_5555_5578),
        'T' => control(0x87),
        'E' => control(0x00),
        _ => Block::IDLE,
    }
}

/// A sequence ordered set in column 0 (`/Q/`, 0x00, 0x00, `code`), idles in column 1.
fn os_col0(code: u8) -> u64 {
    0x9c | u64::from(code) << 24
}

const IDLE_COL: u64 = 0x0707_0707;

impl Builder {
    /// The transfers of one frame, encoded by a MAC of its own (no gap owed): for raw
    /// sequences.
    fn raw_frame(&mut self, len: usize) -> Vec<XgmiiWord> {
        let mut mac = crate::fcs::MacTx::with_engine(mac_config(&self.opt));
        let data = self.payload(len, Some(0x0800));
        let mut buf = vec![XgmiiWord::IDLE; mac.words_needed(len) + 2];
        let n = mac.encode_frame(&data, &mut buf).unwrap_or(0);
        buf.truncate(n);
        buf
    }

    fn raw(&mut self, words: &[XgmiiWord]) {
        self.words.extend_from_slice(words);
    }

    /// A frame of `len` octets as the MAC sends it, with a fault.
    fn frame_with(&mut self, kind: &'static str, len: usize, fault: Option<&'static str>) {
        let data = self.payload(len, Some(0x0800));
        let index = self.frames.len() as u64;
        let good = mac_core::frame::fcs_padded_with::<crate::fcs::FastFcs>(&data, 0).to_le_bytes();
        let runt = len < 60;
        let (fcs, abort) = match fault {
            Some("wrong FCS") => {
                let mut bad = good;
                bad[0] ^= 0x5a;
                (Some(bad), None)
            }
            Some("/E/ abort") => (None, Some(len / 2)),
            _ => (runt.then_some(good), None),
        };
        let first = self.send(&data, fcs, abort);
        if fault == Some("bad preamble") {
            if let Some(w) = self.words.get_mut(first..).and_then(|w| {
                w.iter_mut()
                    .find(|w| (0..8).any(|l| w.is_control(l) && w.octet(l) == 0xfb))
            }) {
                let lane = if w.octet(0) == 0xfb && w.is_control(0) {
                    1
                } else {
                    5
                };
                w.data ^= 0x22 << (8 * lane);
            }
        }
        if abort.is_some() {
            self.idle(1);
        }
        self.frames.push(GenFrame {
            index,
            length: len,
            kind,
            fault,
            outcome: "unpredicted",
            data,
        });
    }

    /// The cover scenario (see [`cover`]): its parts in stream order.
    fn cover(&mut self) {
        self.cover_frames();
        self.cover_gaps();
        self.cover_ordered_sets();
        self.cover_xgmii_anomalies();
        self.cover_block_anomalies();
        self.cover_lock_losses();
    }

    /// Frames of every length bin, lanes and classes.
    fn cover_frames(&mut self) {
        // Every frame length bin, every terminate lane and both start lanes, the deficit
        // idle count from 0 to 3 (frames of 60..=67 octets back to back).
        for len in (60usize..=99).chain([200, 400, 800, 1514]) {
            self.frame_with("length", len, None);
        }
        let mut vlan = self.payload(1518, Some(0x8100));
        if let Some(t) = vlan.get_mut(16..18) {
            t.copy_from_slice(&0x0800u16.to_be_bytes());
        }
        let index = self.frames.len() as u64;
        self.send(&vlan, None, None);
        self.frames.push(GenFrame {
            index,
            length: vlan.len(),
            kind: "VLAN 1522 octets",
            fault: None,
            outcome: "unpredicted",
            data: vlan,
        });
        self.frame_with("jumbo", 9000, None);
        self.frame_with("over 9018", 9100, None);
        self.frame_with("runt", 40, None);
        self.frame_with("runt", 40, Some("wrong FCS"));
        self.frame_with("fcs", 300, Some("wrong FCS"));
        self.frame_with("abort", 300, Some("/E/ abort"));
        self.frame_with("preamble", 300, Some("bad preamble"));
    }

    /// Gaps that take the deficit idle count through its values, and gaps below the rule.
    fn cover_gaps(&mut self) {
        // Gaps of 9 and 15 octets: a MAC with the deficit idle count at 0 ends a frame of 63
        // octets with /T/ in lane 3 and rounds the next /S/ down by 3 octets (count 3); that
        // frame of 61 octets ends in lane 5 (/S/ at octet 84, /T/ at 157), and with the count
        // at 3 the next /S/ is rounded up by 3.
        self.idle(4);
        let mut mac = crate::fcs::MacTx::with_engine(mac_config(&self.opt));
        for len in [63usize, 61, 100] {
            let data = self.payload(len, Some(0x0800));
            let mut buf = vec![XgmiiWord::IDLE; mac.words_needed(len) + 2];
            let n = mac.encode_frame(&data, &mut buf).unwrap_or(0);
            self.raw(buf.get(..n).unwrap_or_default());
        }
        self.idle(4);
        // Gaps of 16..31 and 32 or more octets.
        self.idle(2);
        self.frame_with("gap", 100, None);
        self.idle(6);
        self.frame_with("gap", 100, None);
        // A gap shorter than the rule allows: a frame right after a /T/ in lane 7.
        self.idle(4);
        let a = self.raw_frame(63);
        let b = self.raw_frame(100);
        self.raw(&a);
        self.raw(&b);
        self.idle(4);
    }

    /// Ordered sets: each sequence kind, the block formats that carry them.
    fn cover_ordered_sets(&mut self) {
        // Sequence ordered sets: each kind's fault and its clearing; an unknown one.
        for code in [1u8, 2, 3, 4] {
            let col = os_col0(code);
            let w = XgmiiWord {
                data: col | col << 32,
                ctrl: 0x11,
            };
            self.raw(&[w; 6]);
            self.idle(AFTER_SEQUENCE);
        }
        // Block formats with ordered sets: O0 C4 (0x4b), C0 O4 (0x2d), /Fsig/ in O0, and
        // O0 S4 (0x66): a frame whose /S/ in lane 4 follows an ordered set.
        self.raw(&[
            XgmiiWord {
                data: os_col0(1) | IDLE_COL << 32,
                ctrl: 0xf1,
            },
            XgmiiWord {
                data: IDLE_COL | os_col0(1) << 32,
                ctrl: 0x1f,
            },
            XgmiiWord {
                data: 0x5c | IDLE_COL << 32,
                ctrl: 0xf1,
            },
        ]);
        self.idle(AFTER_SEQUENCE);
        let mut f = self.raw_frame(100);
        if let Some(i) = f.iter().position(|w| w.is_control(4) && w.octet(4) == 0xfb) {
            if let Some(w) = f.get_mut(i) {
                w.data = (w.data & !0xffff_ffff) | os_col0(1);
                w.ctrl = (w.ctrl & 0xf0) | 0x01;
            }
        } else {
            self.idle(1);
            let mut w = f.remove(0);
            // /S/ in lane 0: move it to lane 4 behind an ordered set.
            w = XgmiiWord {
                data: os_col0(1) | (w.data << 32),
                ctrl: 0x11,
            };
            f.insert(0, w);
        }
        self.raw(&f);
        self.idle(AFTER_SEQUENCE);
    }

    /// The transmit diagram's error arrows, a frame cut at the XGMII, /LI/ without EEE.
    fn cover_xgmii_anomalies(&mut self) {
        // XGMII-level anomalies: the transmit diagram's error arrows, a frame cut by an idle
        // (truncated at the XGMII), /LI/ without EEE.
        let (d, t, e) = (word_of('D'), word_of('T'), word_of('E'));
        let li = XgmiiWord::splat(pcs_core::ControlChar::LPI);
        let i = XgmiiWord::IDLE;
        let mut frame = self.raw_frame(200);
        let start = frame.first().copied().unwrap_or(i);
        for seq in [
            vec![i, d, i],
            vec![i, t, i],
            vec![i, e, e, d, i],
            vec![i, e, t, i],
            vec![i, e, start, i],
            vec![i, li, i],
        ] {
            self.raw(&seq);
            self.idle(2);
        }
        // In a frame: an idle (truncated), a start, an error; after its /T/: D, T, E.
        let k = frame.len() / 2;
        for (at, w) in [(k, i), (k, start), (k, e)] {
            let mut g = frame.clone();
            if let Some(x) = g.get_mut(at) {
                *x = w;
            }
            self.raw(&g);
            self.idle(3);
        }
        for w in [d, t, e] {
            let mut g = frame.clone();
            g.push(w);
            self.raw(&g);
            self.idle(3);
        }
        frame.clear();
    }

    /// The receive diagram's error arrows, on idle blocks and on a frame's blocks.
    fn cover_block_anomalies(&mut self) {
        // Block-level anomalies (the receive diagram's error arrows): on idle blocks, and on
        // the blocks of a frame.
        for seq in [
            &['D'][..],
            &['T', 'D'],
            &['E', 'T', 'D'],
            &['E', 'S'],
            &['E', 'E'],
        ] {
            self.idle(2);
            let at = self.at();
            self.idle(seq.len() as u64 + 2);
            for (k, c) in seq.iter().enumerate() {
                self.edits.push(Edit::Block(at + k as u64, block_of(*c)));
            }
        }
        for c in ['C', 'S'] {
            self.idle(2);
            let s = self.at();
            self.frame_with("edited", 200, None);
            self.edits.push(Edit::Block(s + 8, block_of(c)));
            self.idle(2);
        }
        // A terminate followed by a data block.
        let s = self.at();
        self.frame_with("edited", 200, None);
        let end = self.at();
        self.idle(3);
        self.edits.push(Edit::Block(end, block_of('D')));
        let _ = s;
    }

    /// Block lock lost and regained in each block class.
    fn cover_lock_losses(&mut self) {
        // Block lock lost four times (32 invalid headers in a row: 16 or more in one 64-header
        // round, wherever the rounds start), each time regained in a run of one block class:
        // the first block after lock is then of that class.
        for c in ['S', 'D', 'T', 'E'] {
            self.idle(2);
            let at = self.at();
            self.idle(32 + 6000);
            for k in 0..32 {
                self.edits.push(Edit::Header(at + k, 0));
            }
            for k in 32..6000 {
                self.edits.push(Edit::Block(at + k, block_of(c)));
            }
            self.idle(AFTER_SEQUENCE);
        }
    }
}

/// A stream that hits every bin of the functional coverage (`baser gen --cover`), with the
/// streams that start in each arrow out of `TX_INIT` (the transmit diagram leaves `TX_INIT`
/// once per stream): the main stream's serial bits and transmitter transfers, and these, merged,
/// cover 100 %. Frames are not given an expected outcome here (`unpredicted`): the cover stream
/// runs into every corner, and what its frames become is for the model's decode to say.
pub fn cover(opt: &GenOptions) -> (Generated, Vec<(char, Vec<XgmiiWord>)>) {
    let mut b = builder(opt);
    b.idle(LEAD_IN);
    b.burst();
    b.cover();
    let starts = ['S', 'D', 'T', 'E']
        .into_iter()
        .map(|c| (c, vec![word_of(c), XgmiiWord::IDLE, XgmiiWord::IDLE]))
        .collect();
    let mut g = finish(b);
    outcomes_by_decode(&mut g);
    (g, starts)
}

/// Outcomes and PCS counts as the model's receiver gives them (for the cover stream).
fn outcomes_by_decode(g: &mut Generated) {
    use crate::rx::{ReceivedFrame, RxChain, RxInput};
    let opt = crate::Options {
        max_frame_length: Some(g.expectation.max_frame_length),
        max_events: 100_000,
        ..crate::Options::default()
    }
    .rx();
    let input = RxInput::Blocks {
        scrambled: true,
        descrambler_state: Some(g.expectation.scrambler_state),
    };
    let mut rx = RxChain::new(&opt, input, Vec::<ReceivedFrame>::new());
    rx.push_blocks(&g.line);
    let Ok((pcs, _, received)) = rx.finish() else {
        return;
    };
    let cmp = crate::judge::compare(&g.expectation.judged(), &received);
    for (f, r) in g.expectation.frames.iter_mut().zip(&cmp.frames) {
        f.outcome = match (r.status, r.class) {
            (crate::judge::Status::Missing, _) => "dropped",
            (_, Some(c)) => c,
            (_, None) => "dropped",
        };
    }
    g.expectation.pcs = ExpectedPcs {
        invalid_headers: Some(pcs.invalid_headers),
        errored_blocks: Some(pcs.errored_blocks),
        hi_ber_episodes: Some(pcs.hi_ber_episodes.len() as u64),
        lock_losses: pcs.lock_losses.len() as u64,
        link_fault_changes: pcs
            .link_fault_changes
            .iter()
            .filter(|c| c.block >= LEAD_IN)
            .count() as u64,
    };
    g.expectation.outcomes_from = "the model's decode of stream.b66 (a cover stream)";
}

fn builder(opt: &GenOptions) -> Builder {
    Builder {
        rng: Rng(opt.seed),
        opt: *opt,
        mac: crate::fcs::MacTx::with_engine(mac_config(opt)),
        words: Vec::new(),
        frames: Vec::new(),
        edits: Vec::new(),
        pcs: ExpectedPcs::known(),
        slips: Vec::new(),
        events: Vec::new(),
    }
}

fn mac_config(opt: &GenOptions) -> TxConfig {
    TxConfig {
        ifg_octets: opt.ifg,
        ..TxConfig::default()
    }
}

/// Generates a stream.
pub fn generate(opt: &GenOptions) -> Generated {
    let mut b = builder(opt);
    b.idle(LEAD_IN);
    let hostile = opt.mode == Mode::Hostile;
    if hostile && b.rng.chance(25) {
        b.burst();
    }
    let slip_at = (hostile && b.rng.chance(25)).then(|| b.rng.range(0, opt.items as u64));
    for item in 0..opt.items {
        if slip_at == Some(item as u64) {
            b.slip();
        }
        let r = b.rng.range(0, 99);
        match r {
            0..=79 => b.frame(),
            80..=89 => b.sequence(),
            _ if opt.mode == Mode::Hostile => b.line_event(),
            _ => b.frame(),
        }
    }
    finish(b)
}

/// Ends a scenario: the last idles, the chain's encoding, the block edits, the scrambler and
/// the header edits.
fn finish(mut b: Builder) -> Generated {
    let opt = b.opt;
    let mac_config = mac_config(&opt);
    // Two idle transfers at the end: the last /T/ is decided by the block after it.
    b.idle(4);
    // Encode (the engine's chain, the words as they are), then the block-level edits.
    let tx = TxOptions {
        mac: mac_config,
        profile: Profile::Ieee,
        seed: opt.scrambler_seed,
        idle_blocks: 0,
    };
    let mut chain = TxChain::new(&tx, VecSink::default());
    chain.words(&b.words);
    let (sink, _) = chain
        .end()
        .unwrap_or_else(|_| (VecSink::default(), Default::default()));
    let mut blocks = sink.blocks;
    for e in &b.edits {
        let (i, new) = match *e {
            Edit::Control(i, payload) => (
                i,
                Block {
                    sync: SyncHeader::CONTROL,
                    payload,
                },
            ),
            Edit::Block(i, block) => (i, block),
            Edit::Header(..) => continue,
        };
        if let Some(x) = blocks.get_mut(i as usize) {
            *x = new;
        }
    }
    let mut s = Scrambler::new(opt.scrambler_seed);
    let mut line: Vec<Block> = blocks
        .iter()
        .map(|u| Block {
            sync: u.sync,
            payload: s.scramble(u.payload),
        })
        .collect();
    for e in &b.edits {
        if let Edit::Header(i, h) = *e {
            if let Some(x) = line.get_mut(i as usize) {
                x.sync = SyncHeader::from_bits(h);
            }
        }
    }
    Generated {
        expectation: Expectation {
            generator: GENERATOR,
            seed: opt.seed,
            mode: opt.mode,
            ifg: opt.ifg,
            max_frame_length: opt.max_frame_length,
            scrambler_state: opt.scrambler_seed,
            blocks: line.len() as u64,
            frames: b.frames,
            pcs: b.pcs,
            outcomes_from: "the scenario",
            events: b.events,
            fec: None,
        },
        words: b.words,
        line,
        slips: b.slips,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{self, Expected};
    use crate::rx::{ReceivedFrame, RxChain, RxInput, RxOptions};
    use std::collections::BTreeMap;

    fn rx_opt(g: &Expectation) -> RxOptions {
        crate::Options {
            max_frame_length: Some(g.max_frame_length),
            max_events: 100_000,
            ..crate::Options::default()
        }
        .rx()
    }

    /// What the model's receiver makes of a generated stream, against the expectation:
    /// `None` when they agree, else why not.
    fn disagreement(g: &Generated, input: RxInput, opt: &RxOptions) -> Option<String> {
        let e = &g.expectation;
        let mut rx = RxChain::new(opt, input, Vec::<ReceivedFrame>::new());
        match input {
            RxInput::Blocks { .. } => rx.push_blocks(&g.line),
            _ => rx.push_bytes(&g.serial(0)),
        }
        let (pcs, _, received) = rx.finish().ok()?;
        let expected: Vec<Expected> = e
            .frames
            .iter()
            .map(|f| Expected {
                index: f.index,
                data: f.data.clone(),
            })
            .collect();
        let outcomes: BTreeMap<u64, Outcome> = e
            .frames
            .iter()
            .filter(|f| f.outcome != "ok")
            .map(|f| (f.index, f.outcome()))
            .collect();
        let mut cmp = judge::compare(&expected, &received);
        let verdicts = crate::outcome::apply(&mut cmp, &outcomes);
        if let Some(v) = verdicts.iter().find(|v| !v.met) {
            return Some(format!(
                "frame {}: expected {}, got {}",
                v.expected_index, v.expected, v.got
            ));
        }
        if let Some(f) = cmp
            .frames
            .iter()
            .find(|f| !outcomes.contains_key(&f.expected_index) && f.failed())
        {
            return Some(format!(
                "frame {}: {:?} class {:?}",
                f.expected_index, f.status, f.class
            ));
        }
        if !cmp.extra.is_empty() {
            return Some(format!(
                "{} extra frames: {:?}",
                cmp.extra.len(),
                cmp.extra.first()
            ));
        }
        // (Counts the expectation leaves open are taken as they come.)
        let got = ExpectedPcs {
            invalid_headers: e.pcs.invalid_headers.and(Some(pcs.invalid_headers)),
            errored_blocks: e.pcs.errored_blocks.and(Some(pcs.errored_blocks)),
            hi_ber_episodes: e
                .pcs
                .hi_ber_episodes
                .and(Some(pcs.hi_ber_episodes.len() as u64)),
            lock_losses: pcs.lock_losses.len() as u64,
            // (A serial receiver's own start-up fault, before lock, falls in the lead-in.)
            link_fault_changes: pcs
                .link_fault_changes
                .iter()
                .filter(|c| c.block >= LEAD_IN)
                .count() as u64,
        };
        (got != e.pcs).then(|| {
            format!(
                "pcs: expected {:?}, got {got:?}; RX_E: {:?}",
                e.pcs,
                pcs.e_transitions
                    .iter()
                    .map(|t| (t.block, t.what.as_str()))
                    .collect::<Vec<_>>()
            )
        })
    }

    fn blocks_input() -> RxInput {
        RxInput::Blocks {
            scrambled: true,
            descrambler_state: None,
        }
    }

    /// For many seeds, in both modes, the expectation derived from the scenario equals what
    /// the model's receiver makes of the stream, as blocks and as serial bits.
    #[test]
    fn the_expected_outcome_is_what_a_receiver_makes_of_the_stream() {
        let mut slipped = 0;
        for seed in 0..1000 {
            for mode in [Mode::ForDut, Mode::Hostile] {
                let g = generate(&GenOptions {
                    seed,
                    items: 24,
                    mode,
                    ..GenOptions::default()
                });
                let opt = rx_opt(&g.expectation);
                // A stream with a bit slip exists only as serial bits.
                slipped += usize::from(!g.slips.is_empty());
                if g.slips.is_empty() {
                    if let Some(why) = disagreement(&g, blocks_input(), &opt) {
                        panic!(
                            "seed {seed} {mode:?} (blocks): {why}\n{:?}",
                            g.expectation.events
                        );
                    }
                }
                if let Some(why) = disagreement(&g, RxInput::Serial, &opt) {
                    panic!(
                        "seed {seed} {mode:?} (bits): {why}\n{:?}",
                        g.expectation.events
                    );
                }
            }
        }
        assert!(slipped > 100, "only {slipped} streams with a bit slip");
    }

    #[test]
    fn the_same_seed_gives_the_same_stream() {
        let o = GenOptions {
            seed: 42,
            mode: Mode::Hostile,
            ..GenOptions::default()
        };
        let (a, b) = (generate(&o), generate(&o));
        assert_eq!(a.line, b.line);
        assert_eq!(a.words, b.words);
        let c = generate(&GenOptions { seed: 43, ..o });
        assert_ne!(a.line, c.line);
    }

    /// Planted receiver bugs are caught by generated streams: a receiver that does not test
    /// sync headers (it takes 00 and 11 as if they were right), and one that decodes block by
    /// block without the state machine and R_TYPE_NEXT (the verilog-ethernet profile).
    #[test]
    fn planted_receiver_bugs_are_caught() {
        let (mut headers, mut block_by_block) = (0, 0);
        for seed in 0..40 {
            let mut g = generate(&GenOptions {
                seed,
                items: 24,
                mode: Mode::Hostile,
                ..GenOptions::default()
            });
            let opt = rx_opt(&g.expectation);
            let other = RxOptions {
                profile: Profile::VerilogEthernet,
                ..opt
            };
            block_by_block += usize::from(disagreement(&g, blocks_input(), &other).is_some());
            // The header bug: every header made right by the block's content before decoding.
            for b in &mut g.line {
                if !b.sync.is_valid() {
                    b.sync = SyncHeader::CONTROL;
                }
            }
            headers += usize::from(disagreement(&g, blocks_input(), &opt).is_some());
        }
        eprintln!("caught: header bug {headers}/40, block by block {block_by_block}/40");
        assert!(
            headers >= 30,
            "the header bug was caught by {headers} of 40 seeds"
        );
        assert!(
            block_by_block >= 10,
            "the block-by-block receiver was told apart by {block_by_block} of 40 seeds"
        );
    }

    /// The cover stream and its TX_INIT streams hit every bin of the coverage plan.
    #[test]
    fn the_cover_stream_hits_every_bin() {
        use crate::coverage::{Collector, Coverage};
        let (g, starts) = cover(&GenOptions {
            seed: 7,
            mode: Mode::Hostile,
            ..GenOptions::default()
        });
        let opt = rx_opt(&g.expectation);
        // The serial bits, 13 bits late: lock is found after slips.
        let mut bits: Vec<u8> = Vec::new();
        let mut acc: u128 = (1 << 13) - 1;
        let mut n = 13;
        for b in &g.line {
            acc |= (u128::from(b.sync.to_bits()) | u128::from(b.payload) << 2) << n;
            n += 66;
            while n >= 8 {
                bits.push(acc as u8);
                acc >>= 8;
                n -= 8;
            }
        }
        let run = |input: RxInput, feed: &dyn Fn(&mut RxChain<Collector>)| -> Coverage {
            let mut rx = RxChain::new(&opt, input, Collector::new("cover", 12));
            feed(&mut rx);
            let (pcs, _, c) = rx.finish().unwrap();
            c.finish(&pcs)
        };
        let mut total = run(RxInput::Serial, &|rx| rx.push_bytes(&bits));
        total.merge(&run(RxInput::Xgmii, &|rx| rx.push_xgmii(&g.words)));
        for (_, w) in &starts {
            total.merge(&run(RxInput::Xgmii, &|rx| rx.push_xgmii(w)));
        }
        let holes: Vec<String> = total
            .groups
            .iter()
            .flat_map(|g| g.holes().map(move |b| format!("{}: {}", g.name, b.name)))
            .collect();
        assert!(holes.is_empty(), "holes: {holes:#?}");
        assert_eq!(total.percent(), 100.0);
    }

    /// A test-pattern checker (pcs-core, §49.2.12) counts in a generated test-pattern stream
    /// the errors the flips predict; none without flips.
    #[test]
    fn test_pattern_streams_carry_their_error_count() {
        use pcs_core::{Prbs31Checker, Prbs31Polarity, ScrambledIdleChecker};
        for pattern in [
            TestPattern::Prbs31,
            TestPattern::Prbs31Inverted,
            TestPattern::ScrambledIdle,
        ] {
            for (flips, seed) in [(0usize, 1u64), (5, 2), (20, 3)] {
                let (line, e) = test_pattern(pattern, 1000, flips, seed);
                assert_eq!(e.flipped_bits.len(), flips);
                let counted: u64 = match pattern {
                    TestPattern::ScrambledIdle => {
                        let mut c = ScrambledIdleChecker::new();
                        line.iter().map(|b| c.check_block(*b)).sum()
                    }
                    _ => {
                        let polarity = if pattern == TestPattern::Prbs31 {
                            Prbs31Polarity::Normal
                        } else {
                            Prbs31Polarity::Inverted
                        };
                        let mut c = Prbs31Checker::new(polarity);
                        line.iter().map(|b| c.check_block(*b)).sum()
                    }
                };
                assert_eq!(counted, e.errors, "{pattern:?} with {flips} flips");
                assert_eq!(e.errors == 0, flips == 0);
            }
        }
    }
}
