//! `baser._baser`: the engine's chains, judge and options from Python.
//!
//! A door like the `baser` command: it builds the engine's [`TxChain`] and [`RxChain`] with
//! sinks of its own, judges with [`judge::compare`], and formats the typed results (as JSON
//! text, which the Python side loads, so that a document has exactly the shape the command's
//! `--json` writes). No stage is composed here. Every entry point catches panics: a Python
//! caller gets an exception, never an abort.
//!
//! Blocks and units cross as `(header, payload)` pairs: the 2-bit sync header with bit 0 first
//! on the wire (2 = data, 1 = control) and the 64-bit payload, bit 0 first (DESIGN.md).

use baser_engine::decode_report::DecodeReport;
use baser_engine::frame_check::{frame_check, FrameCheckInput};
use baser_engine::inject::{Fault, FaultChannel};
use baser_engine::judge::{self, Expected};
use baser_engine::live::{LiveCheck, LiveTx};
use baser_engine::pcs_check::compare_frame_blocks;
use baser_engine::rx::{
    FrameCounts, FrameRef, LockAcquired, LockFinder, PcsSummary, ReceivedFrame, RxChain, RxInput,
    RxOptions, RxSink,
};
use baser_engine::tx::TxChain;
use baser_engine::{Options, Profile};
use mac_core::tx::{DicMode, StartLanes};
use pcs_core::gearbox::TxGearbox;
use pcs_core::xgmii::ControlChar;
use pcs_core::{Block, SyncHeader, XgmiiWord};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

mod files;

type Pair = (u8, u64);

/// Runs `f`; a panic becomes a `RuntimeError` (a bug in the model, never the caller's input).
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => {
            let what = e
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(PyRuntimeError::new_err(format!(
                "baser: internal error (please report): {what}"
            )))
        }
    }
}

fn value_err(m: impl Into<String>) -> PyErr {
    PyValueError::new_err(m.into())
}

fn profile(name: &str) -> PyResult<Profile> {
    name.parse().map_err(value_err)
}

fn seed(s: Option<u64>) -> PyResult<u64> {
    match s {
        None => Ok(pcs_core::scramble::DEFAULT_STATE),
        Some(v) if v >> 58 != 0 => Err(value_err(format!("`{v:#x}` has more than 58 bits"))),
        Some(v) => Ok(v),
    }
}

fn dic_mode(name: Option<&str>, dic: bool, p: Profile) -> PyResult<DicMode> {
    Ok(match name {
        _ if !dic => DicMode::Off,
        None => p.dic(),
        Some("strict") => DicMode::Strict,
        Some("reset-on-idle") => DicMode::ResetOnIdle,
        Some("off") => DicMode::Off,
        Some(o) => {
            return Err(value_err(format!(
                "unknown dic mode `{o}`: expected one of strict, reset-on-idle, off"
            )))
        }
    })
}

fn block(i: usize, (h, p): Pair) -> PyResult<Block> {
    if h > 3 {
        return Err(value_err(format!(
            "block {i}: sync header {h} is not a 2-bit value (2 = data, 1 = control)"
        )));
    }
    Ok(Block {
        sync: SyncHeader::from_bits(h),
        payload: p,
    })
}

fn blocks(v: &[Pair]) -> PyResult<Vec<Block>> {
    v.iter().enumerate().map(|(i, &b)| block(i, b)).collect()
}

fn pair(b: Block) -> Pair {
    (b.sync.to_bits(), b.payload)
}

fn json<T: Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

fn fcs_split(data: &[u8], fcs_included: bool) -> PyResult<(&[u8], Option<[u8; 4]>)> {
    if !fcs_included {
        return Ok((data, None));
    }
    let n = data
        .len()
        .checked_sub(4)
        .ok_or_else(|| value_err(format!("a frame of {} octets has no FCS", data.len())))?;
    let (body, fcs) = data.split_at(n);
    Ok((body, fcs.try_into().ok()))
}

// ------------------------------------------------------------------------------- encode

/// Keeps every form the TX chain gives.
#[derive(Default)]
struct EncodeSink {
    words: Vec<XgmiiWord>,
    unscrambled: Vec<Block>,
    line: Vec<Block>,
    serial: Vec<u8>,
}

impl baser_engine::tx::TxSink for EncodeSink {
    fn forms(&self) -> baser_engine::tx::TxForms {
        baser_engine::tx::TxForms {
            words: true,
            unscrambled: true,
            serial: true,
            line: true,
        }
    }

    fn put(&mut self, b: &baser_engine::tx::TxBatch<'_>) -> std::io::Result<()> {
        self.words.extend_from_slice(b.words);
        self.unscrambled
            .extend_from_slice(b.unscrambled.unwrap_or_default());
        self.line.extend_from_slice(b.line);
        for w in b.serial {
            self.serial.extend_from_slice(&w.to_le_bytes());
        }
        Ok(())
    }

    fn end(&mut self, tail: Option<pcs_core::gearbox::PartialWord<u64>>) -> std::io::Result<()> {
        if let Some(t) = tail {
            let n = t.valid_bits.div_ceil(8) as usize;
            self.serial.extend(t.word.to_le_bytes().into_iter().take(n));
        }
        Ok(())
    }
}

/// What `encode` returns: XGMII words, line blocks, unscrambled blocks, serial bytes, starts.
type Encoded = (Vec<Pair>, Vec<Pair>, Vec<Pair>, Vec<u8>, Vec<(u64, u8)>);

/// `encode`'s result as Python gets it (the serial bytes as `bytes`).
type EncodedPy = (Vec<Pair>, Vec<Pair>, Vec<Pair>, Py<PyBytes>, Vec<(u64, u8)>);

/// Events of one block: `(kind, frame id, lane)`.
type Events = Option<Vec<(u8, u64, u8)>>;

/// Frames through the TX chain, as `baser encode` does.
#[pyfunction]
#[pyo3(signature = (frames, *, profile="ieee", ifg=12, dic=true, dic_mode=None, pad=true,
                    seed=None, idle_blocks=128, fcs_included=false))]
#[allow(clippy::too_many_arguments)]
fn encode(
    py: Python<'_>,
    frames: Vec<Vec<u8>>,
    profile: &str,
    ifg: u16,
    dic: bool,
    dic_mode: Option<&str>,
    pad: bool,
    seed: Option<u64>,
    idle_blocks: u64,
    fcs_included: bool,
) -> PyResult<EncodedPy> {
    let p = self::profile(profile)?;
    let mut opt = Options {
        profile: p,
        ifg,
        dic,
        pad,
        seed: self::seed(seed)?,
        idle_blocks,
        ..Options::default()
    }
    .tx();
    opt.mac.dic = self::dic_mode(dic_mode, dic, p)?;
    let (w, l, u, s, starts): Encoded = guard(|| {
        let mut chain = TxChain::new(&opt, EncodeSink::default());
        let mut starts = Vec::with_capacity(frames.len());
        for (i, f) in frames.iter().enumerate() {
            let (body, fcs) = fcs_split(f, fcs_included)?;
            let at = chain
                .frame(body, fcs)
                .map_err(|e| value_err(format!("frame {i}: {e}")))?;
            starts.push((at.block, at.lane));
        }
        let (sink, _) = chain
            .finish()
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok((
            sink.words.iter().map(|w| (w.ctrl, w.data)).collect(),
            sink.line.into_iter().map(pair).collect(),
            sink.unscrambled.into_iter().map(pair).collect(),
            sink.serial,
            starts,
        ))
    })?;
    Ok((w, l, u, PyBytes::new(py, &s).unbind(), starts))
}

// ------------------------------------------------------------------------------- decode

/// Keeps the received frames and, on request, the descrambled blocks.
#[derive(Default)]
struct Keep {
    frames: Vec<ReceivedFrame>,
    blocks: Option<Vec<Block>>,
}

impl RxSink for Keep {
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

/// A stream from Python: its kind and content.
enum Stream {
    Bits(Vec<u8>),
    Units(Vec<Block>),
    B66(Vec<Block>),
    Xgmii(Vec<XgmiiWord>),
}

fn stream(kind: &str, s: &Bound<'_, PyAny>) -> PyResult<Stream> {
    Ok(match kind {
        "bits" => Stream::Bits(s.extract::<Vec<u8>>().map_err(|_| {
            value_err("a bits stream is bytes (bit 0 of byte 0 first on the wire)")
        })?),
        "b66" | "units" => {
            let v: Vec<Pair> = s.extract().map_err(|_| {
                value_err(format!(
                    "a {kind} stream is a sequence of (header, payload) pairs of ints"
                ))
            })?;
            let b = blocks(&v)?;
            if kind == "b66" {
                Stream::B66(b)
            } else {
                Stream::Units(b)
            }
        }
        "xgmii" => {
            let v: Vec<Pair> = s.extract().map_err(|_| {
                value_err("an xgmii stream is a sequence of (ctrl, data) pairs of ints")
            })?;
            Stream::Xgmii(
                v.into_iter()
                    .map(|(ctrl, data)| XgmiiWord { data, ctrl })
                    .collect(),
            )
        }
        k => {
            return Err(value_err(format!(
                "unknown stream kind `{k}`: expected bits, units, b66 or xgmii"
            )))
        }
    })
}

/// How a stream is decoded.
#[derive(Clone, Copy)]
struct Decoding {
    opt: RxOptions,
    offline: bool,
    scrambled: bool,
    state: Option<u64>,
}

type Decoded = (PcsSummary, FrameCounts, Keep);

/// The boundary of a serial stream, found as a receiver would (the offline view).
fn aligned(found: Option<LockAcquired>) -> RxInput {
    match found {
        Some(found) => RxInput::SerialAligned {
            bit_offset: u32::try_from(found.bit_offset % 66).unwrap_or(0),
            found,
        },
        None => RxInput::Serial,
    }
}

fn unit_bytes(units: &[Block]) -> Vec<u8> {
    let mut gb = TxGearbox::<u8>::new();
    let mut out = Vec::with_capacity(units.len() * 66 / 8 + 1);
    for &u in units {
        out.extend_from_slice(gb.push_block(u).as_slice());
    }
    out
}

fn run_decode(s: &Stream, d: Decoding, keep_blocks: bool, swap: bool) -> PyResult<Decoded> {
    let sink = Keep {
        frames: Vec::new(),
        blocks: keep_blocks.then(Vec::new),
    };
    let fail = |e: std::io::Error| PyRuntimeError::new_err(e.to_string());
    match s {
        Stream::Bits(b) => {
            if b.is_empty() {
                return Err(value_err("0 bytes: no bits to decode"));
            }
            let input = if d.offline {
                aligned(baser_engine::rx::find_lock(b))
            } else {
                RxInput::Serial
            };
            let mut c = RxChain::new(&d.opt, input, sink);
            c.push_bytes(b);
            c.finish().map_err(fail)
        }
        Stream::Units(u) => {
            if u.is_empty() {
                return Err(value_err("no units to decode"));
            }
            let input = if d.offline {
                aligned(baser_engine::rx::find_lock(&unit_bytes(u)))
            } else {
                RxInput::Serial
            };
            let mut c = RxChain::new(&d.opt, input, sink);
            c.push_units(u);
            c.finish().map_err(fail)
        }
        Stream::B66(b) => {
            if b.is_empty() {
                return Err(value_err("no blocks to decode"));
            }
            let input = RxInput::Blocks {
                scrambled: d.scrambled,
                descrambler_state: d.state,
            };
            let mut c = RxChain::new(&d.opt, input, sink);
            if swap {
                let swapped: Vec<Block> = b
                    .iter()
                    .map(|b| Block {
                        sync: SyncHeader::from_bits(match b.sync.to_bits() {
                            1 => 2,
                            2 => 1,
                            h => h,
                        }),
                        payload: b.payload,
                    })
                    .collect();
                c.push_blocks(&swapped);
            } else {
                c.push_blocks(b);
            }
            c.finish().map_err(fail)
        }
        Stream::Xgmii(w) => {
            if w.is_empty() {
                return Err(value_err("no transfers to decode"));
            }
            let mut c = RxChain::new(&d.opt, RxInput::Xgmii, sink);
            c.push_xgmii(w);
            c.finish().map_err(fail)
        }
    }
}

/// As the command: a `.b66` stream in error that decodes cleanly with its headers exchanged.
fn swapped_hint(s: &Stream, d: Decoding, seen: &PcsSummary) -> PyResult<Option<String>> {
    let bad = seen.errored_blocks + seen.invalid_headers;
    if !matches!(s, Stream::B66(_)) || bad * 4 <= seen.blocks {
        return Ok(None);
    }
    let (pcs, _, _) = run_decode(s, d, false, true)?;
    Ok((pcs.errored_blocks == 0 && pcs.invalid_headers == 0).then(|| {
        format!(
            "the sync headers look swapped: {bad} blocks are in error as written, none with 1 and 2 exchanged; write data blocks as 2 and control blocks as 1 (the header's bit 0 is the first bit on the wire)"
        )
    }))
}

fn decoding(
    profile: &str,
    max_frame_length: u16,
    strict_start: bool,
    max_events: usize,
    offline: bool,
    scrambled: bool,
    scrambler_state: Option<u64>,
) -> PyResult<Decoding> {
    let opt = Options {
        profile: self::profile(profile)?,
        max_frame_length,
        strict_start,
        max_events,
        ..Options::default()
    }
    .rx();
    Ok(Decoding {
        opt,
        offline,
        scrambled,
        state: scrambler_state.map(|s| seed(Some(s))).transpose()?,
    })
}

/// A stream through the RX chain, as `baser decode` does. Returns the JSON document and the
/// received frames' octets (DA through FCS), in order.
#[pyfunction]
#[pyo3(signature = (stream, kind, *, profile="ieee", max_frame_length=1518, strict_start=false,
                    max_events=20, offline=false, scrambled=true, scrambler_state=None,
                    name="<stream>"))]
#[allow(clippy::too_many_arguments)]
fn decode(
    py: Python<'_>,
    stream: &Bound<'_, PyAny>,
    kind: &str,
    profile: &str,
    max_frame_length: u16,
    strict_start: bool,
    max_events: usize,
    offline: bool,
    scrambled: bool,
    scrambler_state: Option<u64>,
    name: &str,
) -> PyResult<(String, Vec<Py<PyBytes>>)> {
    let s = self::stream(kind, stream)?;
    let d = decoding(
        profile,
        max_frame_length,
        strict_start,
        max_events,
        offline,
        scrambled,
        scrambler_state,
    )?;
    let (doc, data) = guard(|| {
        let (mut pcs, counts, keep) = run_decode(&s, d, false, false)?;
        pcs.hints.extend(swapped_hint(&s, d, &pcs)?);
        let data: Vec<Vec<u8>> = keep.frames.iter().map(|f| f.data.clone()).collect();
        let mut report = DecodeReport::new(name.to_string(), d.opt.profile, pcs, counts);
        report.received = Some(keep.frames);
        let doc = json(&report)?;
        Ok((doc, data))
    })?;
    Ok((
        doc,
        data.iter().map(|d| PyBytes::new(py, d).unbind()).collect(),
    ))
}

// -------------------------------------------------------------------------------- check

/// Expected frames against a DUT stream, as `baser check --frames` does; returns its JSON
/// document.
#[pyfunction]
#[pyo3(signature = (expected, dut, kind, *, profile="ieee", fcs_included=false,
                    strict_start=false, max_frame_length=None, receiver_view=false,
                    blocks=false, ifg=12, max_report=10, scrambled=true, scrambler_state=None,
                    expected_name="<expected>", dut_name="<dut>"))]
#[allow(clippy::too_many_arguments)]
fn check(
    expected: Vec<Vec<u8>>,
    dut: &Bound<'_, PyAny>,
    kind: &str,
    profile: &str,
    fcs_included: bool,
    strict_start: bool,
    max_frame_length: Option<u16>,
    receiver_view: bool,
    blocks: bool,
    ifg: u16,
    max_report: usize,
    scrambled: bool,
    scrambler_state: Option<u64>,
    expected_name: &str,
    dut_name: &str,
) -> PyResult<String> {
    let s = self::stream(kind, dut)?;
    let expected: Vec<Expected> = expected
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (body, _) = fcs_split(f, fcs_included)?;
            Ok(Expected {
                index: i as u64,
                data: body.to_vec(),
            })
        })
        .collect::<PyResult<_>>()?;
    // One rule with the command: 1518 octets unless given; a longer expected frame raises it.
    let longest = expected.iter().map(|e| e.data.len() + 4).max().unwrap_or(0);
    let limit = max_frame_length.unwrap_or(longest.clamp(1518, u16::MAX as usize) as u16);
    let d = decoding(
        profile,
        limit,
        strict_start,
        max_report.max(20),
        !receiver_view,
        scrambled,
        scrambler_state,
    )?;
    guard(|| {
        let keep_blocks = blocks && !matches!(s, Stream::Xgmii(_));
        let (mut pcs, counts, keep) = run_decode(&s, d, keep_blocks, false)?;
        pcs.hints.extend(swapped_hint(&s, d, &pcs)?);
        let cmp = judge::compare(&expected, &keep.frames);
        let block_cmp = match keep.blocks {
            Some(dut_blocks) => {
                let frames: Vec<&[u8]> = expected.iter().map(|e| e.data.as_slice()).collect();
                let pairs = cmp.start_pairs();
                Some(
                    compare_frame_blocks(&frames, &dut_blocks, d.opt.profile, ifg, Some(&pairs))
                        .map_err(|(i, m)| value_err(format!("expected frame {i}: {m}")))?,
                )
            }
            None => None,
        };
        let (report, _) = frame_check(FrameCheckInput {
            expected_name: expected_name.to_string(),
            dut_name: dut_name.to_string(),
            profile: d.opt.profile,
            expected: expected.len(),
            counts: &counts,
            pcs,
            cmp,
            blocks: block_cmp,
            outcomes: Vec::new(),
        });
        json(&report)
    })
}

// ------------------------------------------------------------------------------ TxModel

/// Event kinds of [`TxModel::next`].
const EV_START: u8 = 0;
const EV_SFD: u8 = 1;
const EV_END: u8 = 2;

/// The TX chain, one block per clock: the engine's live TX model ([`LiveTx`]: one continuous
/// chain; a frame given while the line is idle starts as soon as the gap allows, frames given
/// together go back to back with the deficit idle count), with the serdes' bit offset and bit
/// order applied to what it hands out.
#[pyclass(module = "baser._baser")]
struct TxModel {
    live: LiveTx,
    scrambled: bool,
    bit_offset: u32,
    last_unit: u128,
    reverse: bool,
    /// Faults on the line (`inject`): the channel, and its bits not handed out yet.
    faults: Option<(FaultChannel, BitQueue)>,
    /// A PCS of its own for transfers given from outside the MAC (`encode_xgmii`).
    pcs: pcs_core::pcs::PcsTx,
}

/// Bits in order, taken 66 at a time.
#[derive(Default)]
struct BitQueue {
    bytes: std::collections::VecDeque<u8>,
    acc: u128,
    bits: u32,
}

impl BitQueue {
    /// The next 66 bits, if that many are there.
    fn take66(&mut self) -> Option<u128> {
        while self.bits < 66 {
            let b = self.bytes.pop_front()?;
            self.acc |= u128::from(b) << self.bits;
            self.bits += 8;
        }
        let unit = self.acc & ((1u128 << 66) - 1);
        self.acc >>= 66;
        self.bits -= 66;
        Some(unit)
    }
}

fn unit_of(b: Block) -> u128 {
    u128::from(b.sync.to_bits()) | u128::from(b.payload) << 2
}

impl TxModel {
    /// The 66 line bits of a unit moved by the bit offset, and bit reversed if asked.
    fn out(&mut self, unit: u128) -> Pair {
        let mask = (1u128 << 66) - 1;
        let moved = if self.bit_offset == 0 {
            unit
        } else {
            let v = ((self.last_unit | unit << 66) >> (66 - self.bit_offset)) & mask;
            self.last_unit = unit;
            v
        };
        let (h, p) = ((moved & 3) as u8, (moved >> 2) as u64);
        if self.reverse {
            (((h & 1) << 1) | (h >> 1), p.reverse_bits())
        } else {
            (h, p)
        }
    }
}

/// The frame events of one clock, as Python takes them.
fn events_of(c: &baser_engine::live::TxClock) -> Events {
    let mut events: Events = None;
    if let Some((id, lane)) = c.start {
        events
            .get_or_insert_with(Vec::new)
            .push((EV_START, id, lane));
    }
    if let Some(id) = c.sfd {
        let lane = c.start.map_or(0, |(_, l)| l);
        events.get_or_insert_with(Vec::new).push((EV_SFD, id, lane));
    }
    if let Some(id) = c.end {
        // /T/ and /S/ never share a block: the first /T/ in it is the frame's.
        let lane = (0..8u8)
            .find(|&l| {
                c.word.is_control(usize::from(l))
                    && c.word.octet(usize::from(l)) == ControlChar::TERMINATE.0
            })
            .unwrap_or(7);
        events.get_or_insert_with(Vec::new).push((EV_END, id, lane));
    }
    events
}

#[pymethods]
impl TxModel {
    #[new]
    #[pyo3(signature = (*, profile="ieee", ifg=12, dic=true, dic_mode=None, pad=true,
                        seed=None, scrambled=true, reverse=false, lane4_starts=false,
                        inject=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        profile: &str,
        ifg: u16,
        dic: bool,
        dic_mode: Option<&str>,
        pad: bool,
        seed: Option<u64>,
        scrambled: bool,
        reverse: bool,
        lane4_starts: bool,
        inject: Vec<String>,
    ) -> PyResult<Self> {
        let p = self::profile(profile)?;
        let mut opt = Options {
            profile: p,
            ifg,
            dic,
            pad,
            seed: self::seed(seed)?,
            idle_blocks: 0,
            start_lanes: if lane4_starts {
                StartLanes::Lane4
            } else {
                StartLanes::Both
            },
            ..Options::default()
        }
        .tx();
        opt.mac.dic = self::dic_mode(dic_mode, dic, p)?;
        let mut model = Self {
            live: LiveTx::new(&opt),
            scrambled,
            bit_offset: 0,
            last_unit: 0,
            reverse,
            faults: None,
            pcs: pcs_core::pcs::PcsTx::new(p.encoder(), opt.seed),
        };
        for spec in inject {
            model.inject(&spec)?;
        }
        Ok(model)
    }

    /// Adds a fault on the line (the `--inject` syntax of `baser encode`: `flip:BIT`,
    /// `burst:BIT:LEN`, `ber:RATE[:SEED]`, `header:BLOCK`, `slip:BIT:+N|-N`, `drop:BLOCK`,
    /// `dup:BLOCK`), its positions counted from the next block this model sends (block 0 =
    /// that block, bit 0 = its first line bit). Given to the constructor, from the first
    /// block. Slips, drops and duplicates move the stream: a receiver must find lock again.
    fn inject(&mut self, spec: &str) -> PyResult<()> {
        let f = Fault::parse(spec).map_err(value_err)?;
        let (channel, _) = self
            .faults
            .get_or_insert_with(|| (FaultChannel::new(&[]), BitQueue::default()));
        channel.add(&f);
        Ok(())
    }

    /// Sends an ordered set in place of idle columns from the next transfer made on: `value`
    /// its three octets (first most significant), `signal` `/Fsig/` rather than `/Q/`
    /// (sequence: link fault signalling); `value=None`: idles again.
    #[pyo3(signature = (value=None, signal=false))]
    fn set_ordered_set(&mut self, value: Option<u32>, signal: bool) -> PyResult<()> {
        if value.is_some_and(|v| v > 0xff_ffff) {
            return Err(value_err(
                "an ordered set carries 3 octets: value 0..0xffffff",
            ));
        }
        self.live
            .set_idle_fill(value.map(|value| baser_engine::tx::OrderedSet { signal, value }));
        Ok(())
    }

    /// Takes over `other`'s fault channel (its faults, the blocks it has seen, its bits not
    /// handed out yet): a model made with new settings carries the line's faults on.
    fn take_faults(&mut self, mut other: PyRefMut<'_, TxModel>) {
        if let Some(f) = other.faults.take() {
            self.faults = Some(f);
        }
    }

    /// Line bits the faults flipped so far (positions from the first block through the
    /// channel).
    #[getter]
    fn flipped(&self) -> Vec<u64> {
        self.faults
            .as_ref()
            .map(|(c, _)| c.flipped.clone())
            .unwrap_or_default()
    }

    /// Gives the MAC a frame (DA to the end of the payload; with `fcs`, sent as is with that
    /// FCS and no padding). It starts as soon as the gap allows, from the next block on.
    /// Returns its id, which the events of [`TxModel::next`] name.
    #[pyo3(signature = (frame, fcs=None))]
    fn push(&mut self, frame: Vec<u8>, fcs: Option<Vec<u8>>) -> PyResult<u64> {
        let fcs: Option<[u8; 4]> = match fcs {
            None => None,
            Some(f) => Some(
                f.as_slice()
                    .try_into()
                    .map_err(|_| value_err(format!("an FCS is 4 octets, not {}", f.len())))?,
            ),
        };
        guard(|| {
            self.live
                .send(&frame, fcs)
                .map_err(|e| value_err(e.to_string()))
        })
    }

    /// The next block (one clock): `(header, payload, events)`; `events` is `None` or a list
    /// of `(kind, id, lane)`: kind 0 = the frame's `/S/` is in this block (lane: its lane),
    /// 1 = its SFD, 2 = its `/T/` (the frame is sent; lane: the `/T/`'s).
    fn next(&mut self) -> PyResult<(u8, u64, Events)> {
        guard(|| {
            let mut events: Events = None;
            let unit = loop {
                let c = self.live.clock().map_err(|e| value_err(e.to_string()))?;
                if let Some(e) = events_of(&c) {
                    events.get_or_insert_with(Vec::new).extend(e);
                }
                let b = if self.scrambled {
                    c.line
                } else {
                    c.unscrambled
                };
                let Some((channel, queue)) = self.faults.as_mut() else {
                    break unit_of(b);
                };
                channel.push(b);
                queue.bytes.extend(channel.take_bytes());
                // A dropped block (or deleted bits) leaves fewer than 66: the next block
                // comes in the same clock.
                if let Some(u) = queue.take66() {
                    break u;
                }
            };
            let (h, p) = self.out(unit);
            Ok((h, p, events))
        })
    }

    /// The next XGMII transfer (one clock of a 64-bit XGMII): `(data, ctrl, events)`, lane 0
    /// in the low octet and bit; events as [`TxModel::next`].
    fn xgmii(&mut self) -> PyResult<(u64, u8, Events)> {
        guard(|| {
            let c = self.live.clock().map_err(|e| value_err(e.to_string()))?;
            Ok((c.word.data, c.word.ctrl, events_of(&c)))
        })
    }

    /// Encodes a transfer given from outside the MAC (one clock): through this model's second
    /// PCS (encoder state machine and scrambler of its own, seeded as the first), the fault
    /// channel, the bit offset and the bit reversal, as [`TxModel::next`]'s blocks are. For a
    /// bench that shapes the MAC's transfers itself (USXGMII rate replication): take them
    /// with [`TxModel::xgmii`], send them here.
    fn encode_xgmii(&mut self, data: u64, ctrl: u8) -> PyResult<Pair> {
        guard(|| {
            let (line, ev) = self.pcs.step(XgmiiWord { data, ctrl });
            let b = if self.scrambled { line } else { ev.block };
            let unit = match self.faults.as_mut() {
                None => unit_of(b),
                Some((channel, queue)) => {
                    channel.push(b);
                    queue.bytes.extend(channel.take_bytes());
                    // A dropped block leaves a short line: the clock carries what there is.
                    queue.take66().unwrap_or(0)
                }
            };
            Ok(self.out(unit))
        })
    }

    /// Drops the frames the MAC has not taken yet; returns their ids.
    fn drop_unstarted(&mut self) -> Vec<u64> {
        self.live.drop_unstarted()
    }

    /// Blocks sent so far.
    #[getter]
    fn blocks(&self) -> u64 {
        self.live.blocks()
    }

    /// Frames given and not yet fully sent.
    #[getter]
    fn pending(&self) -> usize {
        self.live.pending()
    }

    /// The scrambler state after the last block sent (58 bits, bit 57 the newest line bit):
    /// the seed of a model that carries the line on.
    #[getter]
    fn scrambler_state(&self) -> u64 {
        self.live.scrambler_state()
    }

    /// Frames given that the MAC has not taken yet.
    #[getter]
    fn unstarted(&self) -> usize {
        self.live.unstarted()
    }

    /// Bits the stream is moved by (0..65): a serdes whose boundary slipped.
    #[getter]
    fn get_bit_offset(&self) -> u32 {
        self.bit_offset
    }

    #[setter]
    fn set_bit_offset(&mut self, v: i64) {
        self.bit_offset = v.rem_euclid(66) as u32;
    }
}

// ------------------------------------------------------------------------------ RxModel

/// Units (or words) held before block lock is found.
const MAX_HELD: usize = 1 << 16;

/// How a serial RX model takes its clocks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Width {
    /// 66 bits a clock: a (header, payload) serdes interface.
    Units,
    /// 64 bits a clock: a serdes word.
    Words,
}

/// The RX chain, fed one clock at a time.
///
/// Serial input (66-bit units or 64-bit words) is held until block lock is found, then the
/// chain decodes from the first whole block of the stream with lock held (the offline view
/// of `check`): frames that came before a receiver could lock are decoded too. Block input
/// (`(header, payload)` at known boundaries) goes straight to the chain.
#[pyclass(module = "baser._baser")]
struct RxModel {
    opt: RxOptions,
    width: Width,
    blocks_input: Option<RxInput>,
    finder: LockFinder,
    packer: TxGearbox<u8>,
    held_units: Vec<Block>,
    held_words: Vec<u64>,
    chain: Option<RxChain<Shared>>,
    received: Shared,
    /// Bit offset of block 0 in the stream (serial input).
    offset: u64,
    /// Clocks pushed.
    clocks: u64,
    finished: bool,
}

/// A received frame as the Python side takes it: octets (DA through FCS), class, FCS good,
/// `/S/` block and lane, and the clocks at which its `/S/` block and the block after it (which
/// holds the first octet after the SFD, in the `/S/`'s lane) were complete.
/// And the clock of the block that holds the octet after its last (where its `/T/` is, for a
/// frame ended by one).
type RxFrameOut = (Py<PyBytes>, &'static str, bool, u64, u8, u64, u64, u64);

impl RxModel {
    /// The stream bit index of the last bit of block `n` (serial input).
    fn last_bit(&self, n: u64) -> u64 {
        self.offset + 66 * n + 65
    }

    /// The clock at which block `n` was complete.
    fn clock_of(&self, n: u64) -> u64 {
        match (self.blocks_input, self.width) {
            (Some(_), _) => n,
            (None, Width::Units) => self.last_bit(n) / 66,
            (None, Width::Words) => self.last_bit(n) / 64,
        }
    }

    fn start_chain(&mut self, input: RxInput) {
        let mut c = RxChain::new(&self.opt, input, self.received.clone());
        match self.width {
            Width::Units => c.push_units(&std::mem::take(&mut self.held_units)),
            Width::Words => c.push_serial(&std::mem::take(&mut self.held_words)),
        }
        self.chain = Some(c);
    }

    /// After new bits: whether lock is found, then the chain.
    fn after_push(&mut self, bytes: &[u8]) {
        if self.chain.is_some() {
            return;
        }
        if let Some(found) = self.finder.push_bytes(bytes) {
            self.offset = found.bit_offset % 66;
            self.start_chain(aligned(Some(found)));
        } else if self.held_units.len() + self.held_words.len() > MAX_HELD {
            // No lock in a long stream: decode it as a receiver sees it.
            self.offset = 0;
            self.start_chain(RxInput::Serial);
        }
    }

    fn frames(&self, py: Python<'_>, frames: Vec<ReceivedFrame>) -> Option<Vec<RxFrameOut>> {
        if frames.is_empty() {
            return None;
        }
        Some(
            frames
                .into_iter()
                .map(|f| {
                    (
                        PyBytes::new(py, &f.data).unbind(),
                        baser_engine::rx::class_name(f.class),
                        f.fcs_ok,
                        f.start.block,
                        f.start.lane,
                        self.clock_of(f.start.block),
                        // The octet after the SFD (the DA's first) is 8 octets after the /S/:
                        // in the next block, in the /S/'s lane.
                        self.clock_of(f.start.block + 1),
                        self.clock_of(
                            (f.start.block * 8 + u64::from(f.start.lane) + 8 + f.data.len() as u64)
                                / 8,
                        ),
                    )
                })
                .collect(),
        )
    }

    fn check_open(&self) -> PyResult<()> {
        if self.finished {
            return Err(value_err("this RxModel was finished"));
        }
        Ok(())
    }
}

/// The RX model's sink: the frames received since the model last took them, and the ordered
/// sets seen (the test-bench models' `get_os`).
#[derive(Clone, Default)]
struct Shared(
    Arc<Mutex<Vec<ReceivedFrame>>>,
    Arc<Mutex<OsSeen>>,
    /// Decoded transfers, kept when `Some`.
    Arc<Mutex<Option<Vec<DecodedWord>>>>,
);

/// A decoded transfer: `(block index, data, ctrl)`.
type DecodedWord = (u64, u64, u8);

/// Ordered sets received, as the taxi sink model reports them: the last one (value of its
/// three octets, first octet most significant; signal or sequence) until taken, how many
/// times in a row it repeated, and how many all-control transfers came in a row since the
/// last ordered set.
#[derive(Clone, Copy, Default)]
struct OsSeen {
    last: Option<(u32, bool)>,
    same: u64,
    idles: u64,
}

impl OsSeen {
    fn word(&mut self, w: XgmiiWord) {
        let mut any = false;
        for col in [0usize, 4] {
            let c = w.octet(col);
            if w.is_control(col) && (c == ControlChar::SEQUENCE.0 || c == ControlChar::SIGNAL.0) {
                let v = u32::from(w.octet(col + 1)) << 16
                    | u32::from(w.octet(col + 2)) << 8
                    | u32::from(w.octet(col + 3));
                let os = (v, c == ControlChar::SIGNAL.0);
                // as the originals: a repeat counts against the one not taken yet
                if self.last == Some(os) {
                    self.same += 1;
                }
                self.last = Some(os);
                self.idles = 0;
                any = true;
            }
        }
        if !any && w.ctrl == 0xff {
            self.same = 0;
            self.idles += 1;
        }
    }
}

impl Shared {
    fn take(&self) -> Vec<ReceivedFrame> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

impl RxSink for Shared {
    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        if let Ok(mut v) = self.0.lock() {
            v.push(f.to_owned());
        }
        Ok(())
    }

    fn words(
        &mut self,
        first: u64,
        words: &[XgmiiWord],
        _: Option<&[Block]>,
    ) -> std::io::Result<()> {
        if let Ok(mut os) = self.1.lock() {
            for &w in words {
                os.word(w);
            }
        }
        if let Ok(mut kept) = self.2.lock() {
            if let Some(v) = kept.as_mut() {
                v.extend(
                    words
                        .iter()
                        .enumerate()
                        .map(|(i, w)| (first + i as u64, w.data, w.ctrl)),
                );
            }
        }
        Ok(())
    }
}

#[pymethods]
impl RxModel {
    /// `input`: "units" (66 bits a clock, any boundary), "words" (64-bit serdes words, any
    /// boundary) or "blocks" (`(header, payload)` at known boundaries, like a `.b66` dump).
    #[new]
    #[pyo3(signature = (*, input="units", profile="ieee", max_frame_length=16384,
                        scrambled=true, scrambler_state=None, strict_start=false, max_events=20))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        input: &str,
        profile: &str,
        max_frame_length: u16,
        scrambled: bool,
        scrambler_state: Option<u64>,
        strict_start: bool,
        max_events: usize,
    ) -> PyResult<Self> {
        let d = decoding(
            profile,
            max_frame_length,
            strict_start,
            max_events,
            true,
            scrambled,
            scrambler_state,
        )?;
        let (width, blocks_input) = match input {
            "units" => (Width::Units, None),
            "words" => (Width::Words, None),
            "blocks" => (
                Width::Units,
                Some(RxInput::Blocks {
                    scrambled: d.scrambled,
                    descrambler_state: d.state,
                }),
            ),
            "xgmii" => (Width::Units, Some(RxInput::Xgmii)),
            o => {
                return Err(value_err(format!(
                    "unknown input `{o}`: expected units, words, blocks or xgmii"
                )))
            }
        };
        if blocks_input.is_none() && !scrambled {
            return Err(value_err(
                "a serial stream is scrambled (unscrambled input needs input=\"blocks\")",
            ));
        }
        let received = Shared::default();
        let chain = blocks_input.map(|i| RxChain::new(&d.opt, i, received.clone()));
        Ok(Self {
            opt: d.opt,
            width,
            blocks_input,
            finder: LockFinder::default(),
            packer: TxGearbox::new(),
            held_units: Vec::new(),
            held_words: Vec::new(),
            chain,
            received,
            offset: 0,
            clocks: 0,
            finished: false,
        })
    }

    /// One clock of 66 bits (or one block, for input "blocks"); returns the frames it
    /// completed, or `None`. A frame: `(data, class, fcs_ok, start_block, start_lane,
    /// start_clock, data_clock, end_clock)` (`data_clock`: the clock of the block after the `/S/`
    /// block, which holds the first octet after the SFD in lane `start_lane`; `end_clock`: the
    /// clock of the block holding the octet after the frame's last); data runs from DA through the FCS as received; a clock is the
    /// index of the push that completed that block (0 = the first push).
    fn push(
        &mut self,
        py: Python<'_>,
        header: u8,
        payload: u64,
    ) -> PyResult<Option<Vec<RxFrameOut>>> {
        self.check_open()?;
        if self.width != Width::Units {
            return Err(value_err("this RxModel takes 64-bit words (push_word)"));
        }
        if self.blocks_input == Some(RxInput::Xgmii) {
            return Err(value_err("this RxModel takes XGMII transfers (push_xgmii)"));
        }
        let b = block(self.clocks as usize, (header, payload))?;
        guard(|| {
            self.clocks += 1;
            if let (Some(_), Some(c)) = (self.blocks_input, self.chain.as_mut()) {
                c.push_blocks(&[b]);
            } else if let Some(c) = self.chain.as_mut() {
                c.push_units(&[b]);
            } else {
                self.held_units.push(b);
                let bytes = self.packer.push_block(b);
                let bytes: Vec<u8> = bytes.as_slice().to_vec();
                self.after_push(&bytes);
            }
            Ok(self.frames(py, self.received.take()))
        })
    }

    /// One clock of a 64-bit serdes word (bit 0 first on the wire); as [`RxModel::push`].
    fn push_word(&mut self, py: Python<'_>, word: u64) -> PyResult<Option<Vec<RxFrameOut>>> {
        self.check_open()?;
        if self.width != Width::Words {
            return Err(value_err("this RxModel takes 66-bit units (push)"));
        }
        guard(|| {
            self.clocks += 1;
            if let Some(c) = self.chain.as_mut() {
                c.push_serial(&[word]);
            } else {
                self.held_words.push(word);
                self.after_push(&word.to_le_bytes());
            }
            Ok(self.frames(py, self.received.take()))
        })
    }

    /// One XGMII transfer (input "xgmii"): 64 data bits, lane 0 in the low octet, and the 8
    /// control bits; as [`RxModel::push`].
    fn push_xgmii(
        &mut self,
        py: Python<'_>,
        data: u64,
        ctrl: u8,
    ) -> PyResult<Option<Vec<RxFrameOut>>> {
        self.check_open()?;
        if self.blocks_input != Some(RxInput::Xgmii) {
            return Err(value_err(
                "this RxModel takes serial input or blocks (made without input=\"xgmii\")",
            ));
        }
        guard(|| {
            self.clocks += 1;
            if let Some(c) = self.chain.as_mut() {
                c.push_xgmii(&[XgmiiWord { data, ctrl }]);
            }
            Ok(self.frames(py, self.received.take()))
        })
    }

    /// Clocks pushed so far.
    #[getter]
    fn clocks(&self) -> u64 {
        self.clocks
    }

    /// Whether the chain runs (block lock was found in a serial stream, or blocks are given).
    #[getter]
    fn aligned(&self) -> bool {
        self.chain.is_some()
    }

    /// The last ordered set received and not taken yet, as `(value, signal)` (value: its
    /// three octets, the first most significant; signal: `/Fsig/` rather than `/Q/`), or
    /// `None`; taking it clears it (the test-bench models' `get_os`).
    fn take_ordered_set(&mut self) -> Option<(u32, bool)> {
        self.received.1.lock().ok().and_then(|mut o| o.last.take())
    }

    /// Keeps the decoded transfers from now on, for [`RxModel::take_words`].
    fn keep_words(&mut self) {
        if let Ok(mut k) = self.received.2.lock() {
            k.get_or_insert_with(Vec::new);
        }
    }

    /// The decoded transfers since the last call (after [`RxModel::keep_words`]): `(clock,
    /// data, ctrl)`, the clock being the push that completed the transfer's block.
    fn take_words(&mut self) -> Vec<(u64, u64, u8)> {
        let words = self
            .received
            .2
            .lock()
            .ok()
            .and_then(|mut k| k.as_mut().map(std::mem::take))
            .unwrap_or_default();
        words
            .into_iter()
            .map(|(i, d, c)| (self.clock_of(i), d, c))
            .collect()
    }

    /// `(same, idles)`: how many times in a row the last ordered set repeated, and how many
    /// all-control transfers came in a row since an ordered set.
    #[getter]
    fn ordered_set_runs(&self) -> (u64, u64) {
        self.received
            .1
            .lock()
            .map(|o| (o.same, o.idles))
            .unwrap_or_default()
    }

    /// The receiver now, as a dict: `blocks`, `block_lock`, `hi_ber`, `link_fault` (`Ok`,
    /// `Fault(LocalFault)`, ...), and the counts so far: `frames`, `invalid_headers`,
    /// `errored_blocks`, `lock_losses`, `hi_ber_episodes`, and `last_error`: `None` or the last
    /// errored block and the receive state machine's arrow into RX_E, e.g. `(812, "RX_D --C-->
    /// RX_E")` (a PCS monitor a test can poll every clock). Before the chain runs (a serial stream without lock yet), the counts are 0.
    #[getter]
    fn status(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = pyo3::types::PyDict::new(py);
        match &self.chain {
            Some(c) => {
                let pcs = c.pcs();
                d.set_item("blocks", c.blocks_received())?;
                d.set_item("block_lock", c.block_lock())?;
                d.set_item("hi_ber", c.hi_ber())?;
                d.set_item("link_fault", c.link_fault().to_string())?;
                d.set_item("frames", c.counts().total)?;
                d.set_item("invalid_headers", pcs.invalid_headers)?;
                d.set_item("errored_blocks", pcs.errored_blocks)?;
                d.set_item("lock_losses", pcs.lock_losses.len())?;
                d.set_item("hi_ber_episodes", pcs.hi_ber_episodes.len())?;
                match c.last_errored() {
                    Some(e) => d.set_item("last_error", (e.block, e.what))?,
                    None => d.set_item("last_error", py.None())?,
                }
            }
            None => {
                d.set_item("blocks", 0)?;
                d.set_item("block_lock", false)?;
                d.set_item("hi_ber", false)?;
                d.set_item("link_fault", "Ok")?;
                for k in [
                    "frames",
                    "invalid_headers",
                    "errored_blocks",
                    "lock_losses",
                    "hi_ber_episodes",
                ] {
                    d.set_item(k, 0)?;
                }
                d.set_item("last_error", py.None())?;
            }
        }
        Ok(d.into_any().unbind())
    }

    /// Ends the stream: returns the JSON document of `baser decode --json` (PCS summary and
    /// frame counts) and the frames the last blocks completed.
    fn finish(&mut self, py: Python<'_>) -> PyResult<(String, Option<Vec<RxFrameOut>>)> {
        self.check_open()?;
        guard(|| {
            if self.chain.is_none() {
                self.offset = 0;
                self.start_chain(RxInput::Serial);
            }
            self.finished = true;
            let Some(chain) = self.chain.take() else {
                return Err(PyRuntimeError::new_err("baser: no chain"));
            };
            let (pcs, counts, _) = chain
                .finish()
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            let mut report =
                DecodeReport::new("<stream>".to_string(), self.opt.profile, pcs, counts);
            report.received = Some(Vec::new());
            let doc = json(&report)?;
            Ok((doc, self.frames(py, self.received.take())))
        })
    }
}

// ---------------------------------------------------------------------------- Scoreboard

/// Expected frames against the frames a DUT delivered, judged as `baser check --frames` does:
/// each DUT frame the moment it is given (against the next expected ones, in order), and at
/// the end the one judge over the run. The DUT's frames are octets (DA through FCS), classed
/// by the model's MAC receiver.
#[pyclass(module = "baser._baser")]
struct Scoreboard {
    live: LiveCheck,
    opt: RxOptions,
    finished: bool,
}

#[pymethods]
impl Scoreboard {
    #[new]
    #[pyo3(signature = (*, profile="ieee", max_frame_length=1518, name="scoreboard"))]
    fn new(profile: &str, max_frame_length: u16, name: &str) -> PyResult<Self> {
        let opt = Options {
            profile: self::profile(profile)?,
            max_frame_length,
            ..Options::default()
        }
        .rx();
        Ok(Self {
            live: LiveCheck::new(&opt, RxInput::Xgmii, (name.to_string(), "dut".to_string())),
            opt,
            finished: false,
        })
    }

    /// An expected frame (DA to the end of the payload, as sent), in the order frames must
    /// arrive; returns its index.
    fn expect(&mut self, frame: Vec<u8>) -> PyResult<u64> {
        if self.finished {
            return Err(PyRuntimeError::new_err(
                "baser: the scoreboard was finished",
            ));
        }
        Ok(self.live.expect(&frame))
    }

    /// A frame the DUT delivered: DA through FCS (`fcs_included=False`: without its FCS, which
    /// is then taken as right). Returns the messages of the divergences it revealed (empty: all
    /// well so far).
    #[pyo3(signature = (frame, fcs_included=true))]
    fn push(&mut self, frame: Vec<u8>, fcs_included: bool) -> PyResult<Vec<String>> {
        if self.finished {
            return Err(PyRuntimeError::new_err(
                "baser: the scoreboard was finished",
            ));
        }
        guard(|| {
            let mut data = frame;
            if !fcs_included {
                let fcs = mac_core::frame::fcs_padded_with::<baser_engine::fcs::FastFcs>(&data, 0);
                data.extend_from_slice(&fcs.to_le_bytes());
            }
            let f = baser_engine::live::received_from_octets(&data, &self.opt);
            let n = self.live.push_frame(f);
            let all = self.live.divergences();
            Ok(all
                .iter()
                .skip(all.len().saturating_sub(n))
                .map(|d| d.what.clone())
                .collect())
        })
    }

    /// Divergences found so far.
    #[getter]
    fn divergences(&self) -> u64 {
        self.live.count()
    }

    /// The first divergence's message, or None.
    #[getter]
    fn first(&self) -> Option<String> {
        self.live.divergences().first().map(|d| d.what.clone())
    }

    /// Ends the run: the one judge over every frame (missing frames too); returns the JSON
    /// document of `baser check --frames`.
    fn finish(&mut self) -> PyResult<String> {
        self.finished = true;
        guard(|| {
            let (report, _) = self
                .live
                .finish()
                .map_err(|e| PyRuntimeError::new_err(format!("baser: {e}")))?;
            json(&report)
        })
    }

    /// As `finish`, and raises AssertionError with the first failing check when the verdict
    /// is fail (a cocotb test fails with it); returns the document otherwise.
    fn check(&mut self) -> PyResult<String> {
        let doc = self.finish()?;
        let v: serde_json::Value =
            serde_json::from_str(&doc).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        if v["verdict"] == "fail" {
            let first = self.live.divergences().first().map(|d| d.what.clone());
            let missing = v["frames"]
                .as_array()
                .and_then(|f| {
                    f.iter()
                        .find(|x| x["status"] != "matched" || x["class"] != "ok")
                })
                .map(|x| format!("expected frame {}: {}", x["expected_index"], x["status"]));
            let why = first
                .or(missing)
                .unwrap_or_else(|| "the check failed".into());
            return Err(pyo3::exceptions::PyAssertionError::new_err(format!(
                "baser scoreboard: FAIL: {why}"
            )));
        }
        Ok(doc)
    }
}

/// The version of the model.
const VERSION: &str = env!("CARGO_PKG_VERSION");

#[pymodule]
fn _baser(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(files::read_pcap, m)?)?;
    m.add_function(wrap_pyfunction!(files::write_pcap, m)?)?;
    m.add_function(wrap_pyfunction!(files::read_b66, m)?)?;
    m.add_function(wrap_pyfunction!(files::write_b66, m)?)?;
    m.add_class::<TxModel>()?;
    m.add_class::<RxModel>()?;
    m.add_class::<Scoreboard>()?;
    m.add("__version__", VERSION)?;
    let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
    m.add("PROFILES", names)?;
    Ok(())
}
