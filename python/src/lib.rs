//! `baser._baser`: the engine's chains, judge and options from Python.
//!
//! A door like the `baser` command: it runs the engine's [`TxChain`] and its in-memory
//! stream decode ([`baser_engine::stream`]) with sinks of its own, judges with
//! [`judge::compare`], and formats the typed results (as JSON text, which the Python side
//! loads, so that a document has exactly the shape the command's `--json` writes); the
//! streaming models are the engine's test-bench models ([`baser_engine::sim`], in `tx.rs` and
//! `rx.rs`), the scoreboard its live checker (`scoreboard.rs`); single PCS stages for a line
//! built by hand are pcs-core's (`pcs.rs`). No stage is composed here and
//! no rule of the model is made here. Every entry point catches panics: a Python caller gets
//! an exception, never an abort.
//!
//! Blocks and units cross as `(header, payload)` pairs: the 2-bit sync header with bit 0 first
//! on the wire (2 = data, 1 = control) and the 64-bit payload, bit 0 first (DESIGN.md).

use baser_engine::decode_report::DecodeReport;
use baser_engine::fec::{Fec, FecEncoder, FecOptions, FecRxChain, FecSummary, Rate};
use baser_engine::frame_check::{frame_check, FrameCheckInput};
use baser_engine::judge::{self, Expected};
use baser_engine::live::RxView;
use baser_engine::options::BerTimer;
use baser_engine::pcs_check::compare_frame_blocks;
use baser_engine::rx::{FrameCounts, KeepFrames, PcsSummary, RxOptions};
use baser_engine::stream::{DecodeStreamError, Stream};
use baser_engine::tx::{TxChain, TxOptions};
use baser_engine::{Options, Profile};
use mac_core::tx::{DicMode, StartLanes};
use pcs_core::{Block, SyncHeader, XgmiiWord};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};

mod conformance;
mod files;
mod pcs;
mod rx;
mod scoreboard;
mod tx;

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

/// A scrambler state from Python (58 bits), or none.
fn state(s: Option<u64>) -> PyResult<Option<u64>> {
    match s {
        Some(v) if v >> 58 != 0 => Err(value_err(format!("`{v:#x}` has more than 58 bits"))),
        s => Ok(s),
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

/// The TX chain's settings from the keywords `encode` and `TxModel` share (`seed` `None`:
/// the default scrambler state; `dic_mode` names the deficit idle count variant).
#[allow(clippy::too_many_arguments)]
fn tx_options(
    p: Profile,
    ifg: u16,
    dic: bool,
    dic_mode: Option<&str>,
    pad: bool,
    seed: Option<u64>,
    idle_blocks: u64,
    start_lanes: StartLanes,
) -> PyResult<TxOptions> {
    let mut opt = Options {
        profile: p,
        ifg,
        dic,
        pad,
        seed: state(seed)?.unwrap_or(pcs_core::SCRAMBLER_DEFAULT_STATE),
        idle_blocks,
        start_lanes,
        ..Options::default()
    }
    .tx();
    opt.mac.dic = self::dic_mode(dic_mode, dic, p)?;
    Ok(opt)
}

/// The RX chain's settings from the keywords `decode`, `check` and `RxModel` share (the BER
/// monitor follows the rate).
fn rx_options(
    profile: &str,
    max_frame_length: u16,
    strict_start: bool,
    max_events: usize,
    rate: Rate,
    ber_timer: Option<&str>,
) -> PyResult<RxOptions> {
    Ok(Options {
        profile: self::profile(profile)?,
        max_frame_length: Some(max_frame_length),
        strict_start,
        max_events,
        rate,
        ber_timer: self::ber_timer(ber_timer)?,
        ..Options::default()
    }
    .rx())
}

/// The BER monitor's timer from `ber_timer` (`None`: the standard's, 125 us at 10G and 2 ms
/// at 25G), as `baser check --ber-timer` takes it: `"100blocks"`, `"640ns"`, `"125us"`.
fn ber_timer(t: Option<&str>) -> PyResult<BerTimer> {
    t.map_or(Ok(BerTimer::default()), |t| {
        t.parse()
            .map_err(|e| value_err(format!("ber_timer={t:?}: {e}")))
    })
}

/// The line rate and the FEC from the keywords every entry point shares (`rate`, `fec`,
/// `rs_marker_period`); a dump and a bench's receiver lock on the first RS-FEC marker.
fn line(rate: &str, fec: &str, rs_marker_period: u32) -> PyResult<(Rate, FecOptions)> {
    baser_engine::options::line(rate, fec, rs_marker_period, 1).map_err(value_err)
}

/// The FEC's receive modes of a receiving door's `fec_options` (a dict of
/// `rs_bypass_correction`, `rs_bypass_indication`, `fc_error_indication` to bools) put on
/// `line`'s FEC; a bad key or a mode the FEC lacks is a `ValueError` naming it.
pub(crate) fn receive_line(
    (rate, mut fec): (Rate, FecOptions),
    fec_options: Option<std::collections::HashMap<String, bool>>,
) -> PyResult<(Rate, FecOptions)> {
    let mut modes = baser_engine::options::FecModes::default();
    let bad = |e: String| value_err(format!("fec_options: {e}"));
    for (k, on) in fec_options.unwrap_or_default() {
        modes.set(&k, on).map_err(bad)?;
    }
    modes.apply(&mut fec).map_err(bad)?;
    Ok((rate, fec))
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

    fn end(&mut self, tail: Option<pcs_core::PartialWord<u64>>) -> std::io::Result<()> {
        if let Some(t) = tail {
            let n = t.valid_bits.div_ceil(8) as usize;
            self.serial.extend(t.word.to_le_bytes().into_iter().take(n));
        }
        Ok(())
    }
}

/// What a transmit FEC put on the line: codewords (or FEC blocks), marker codewords, block
/// times the source was held.
type FecCounts = Option<(u64, u64, u64)>;

/// What `encode` returns: XGMII words, line blocks, unscrambled blocks, serial bytes, starts,
/// the FEC's counts.
type Encoded = (
    Vec<Pair>,
    Vec<Pair>,
    Vec<Pair>,
    Vec<u8>,
    Vec<(u64, u8)>,
    FecCounts,
);

/// `encode`'s result as Python gets it (the serial bytes as `bytes`).
type EncodedPy = (
    Vec<Pair>,
    Vec<Pair>,
    Vec<Pair>,
    Py<PyBytes>,
    Vec<(u64, u8)>,
    FecCounts,
);

/// Frames through the TX chain, as `baser encode` does.
#[pyfunction]
#[pyo3(signature = (frames, *, profile="ieee", ifg=12, dic=true, dic_mode=None, pad=true,
                    seed=None, idle_blocks=128, fcs_included=false, rate="10g", fec="none",
                    rs_marker_period=1024))]
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
    rate: &str,
    fec: &str,
    rs_marker_period: u32,
) -> PyResult<EncodedPy> {
    let (_, fec) = line(rate, fec, rs_marker_period)?;
    let opt = tx_options(
        self::profile(profile)?,
        ifg,
        dic,
        dic_mode,
        pad,
        seed,
        idle_blocks,
        StartLanes::Both,
    )?;
    let (w, l, u, s, starts, fec): Encoded = guard(|| {
        let encoder = FecEncoder::new(&fec).map_err(value_err)?;
        let mut chain = TxChain::with_fec(&opt, EncodeSink::default(), encoder);
        let mut starts = Vec::with_capacity(frames.len());
        for (i, f) in frames.iter().enumerate() {
            let (body, fcs) = fcs_split(f, fcs_included)?;
            let at = chain
                .frame(body, fcs)
                .map_err(|e| value_err(format!("frame {i}: {e}")))?;
            starts.push((at.block, at.lane));
        }
        let (sink, totals) = chain
            .finish()
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok((
            sink.words.iter().map(|w| (w.ctrl, w.data)).collect(),
            sink.line.into_iter().map(pair).collect(),
            sink.unscrambled.into_iter().map(pair).collect(),
            sink.serial,
            starts,
            totals.fec.map(|f| (f.codewords, f.markers, f.stalls)),
        ))
    })?;
    Ok((w, l, u, PyBytes::new(py, &s).unbind(), starts, fec))
}
// ------------------------------------------------------------------------------- decode

/// A stream from Python: its kind and content.
enum Owned {
    Bits(Vec<u8>),
    Units(Vec<Block>),
    B66(Vec<Block>),
    Xgmii(Vec<XgmiiWord>),
}

fn stream(kind: &str, s: &Bound<'_, PyAny>) -> PyResult<Owned> {
    Ok(match kind {
        "bits" => Owned::Bits(s.extract::<Vec<u8>>().map_err(|_| {
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
                Owned::B66(b)
            } else {
                Owned::Units(b)
            }
        }
        "xgmii" => {
            let v: Vec<Pair> = s.extract().map_err(|_| {
                value_err("an xgmii stream is a sequence of (ctrl, data) pairs of ints")
            })?;
            Owned::Xgmii(
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

fn stream_err(e: DecodeStreamError) -> PyErr {
    match e {
        DecodeStreamError::Empty(m) => value_err(m),
        e => PyRuntimeError::new_err(e.to_string()),
    }
}

/// How a stream is decoded.
#[derive(Clone, Copy)]
struct Decoding {
    opt: RxOptions,
    view: RxView,
    scrambled: bool,
    state: Option<u64>,
    /// The FEC below the PCS (its line is the serial stream).
    fec: FecOptions,
}

/// What a decode gives: the PCS's summary, the frame counts, what was kept, the FEC's summary.
type Decoded = (PcsSummary, FrameCounts, KeepFrames, Option<FecSummary>);

impl Decoding {
    fn stream<'a>(&self, s: &'a Owned) -> Stream<'a> {
        match s {
            Owned::Bits(b) => Stream::Bits(b),
            Owned::Units(u) => Stream::Units(u),
            Owned::B66(b) => Stream::Blocks {
                blocks: b,
                scrambled: self.scrambled,
                descrambler_state: self.state,
            },
            Owned::Xgmii(w) => Stream::Xgmii(w),
        }
    }

    /// The stream through the engine's RX chain (below the FEC, when there is one), with the
    /// hints of a dump that looks wrong.
    fn run(&self, s: &Owned, keep_blocks: bool) -> PyResult<Decoded> {
        let sink = KeepFrames::new(keep_blocks);
        if self.fec.kind != Fec::None {
            let Owned::Bits(bits) = s else {
                return Err(value_err(format!(
                    "fec={}: the FEC's line is a bits stream (bytes), not {}",
                    self.fec.kind,
                    s.kind()
                )));
            };
            let mut chain =
                FecRxChain::with_view(&self.opt, &self.fec, self.view, sink).map_err(value_err)?;
            chain.push_bytes(bits);
            let (pcs, counts, keep, fec) = chain
                .finish()
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            return Ok((pcs, counts, keep, Some(fec)));
        }
        let s = self.stream(s);
        let (mut pcs, counts, keep) =
            baser_engine::stream::decode(s, &self.opt, self.view, sink).map_err(stream_err)?;
        let hint = baser_engine::stream::hint(s, &self.opt, &pcs).map_err(stream_err)?;
        pcs.hints.extend(hint);
        Ok((pcs, counts, keep, None))
    }
}

impl Owned {
    /// The stream kind's name.
    fn kind(&self) -> &'static str {
        match self {
            Owned::Bits(_) => "bits",
            Owned::Units(_) => "units",
            Owned::B66(_) => "b66",
            Owned::Xgmii(_) => "xgmii",
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn decoding(
    profile: &str,
    max_frame_length: u16,
    strict_start: bool,
    max_events: usize,
    offline: bool,
    scrambled: bool,
    scrambler_state: Option<u64>,
    (rate, fec): (Rate, FecOptions),
    ber_timer: Option<&str>,
) -> PyResult<Decoding> {
    Ok(Decoding {
        fec,
        opt: rx_options(
            profile,
            max_frame_length,
            strict_start,
            max_events,
            rate,
            ber_timer,
        )?,
        view: if offline {
            RxView::Offline
        } else {
            RxView::Receiver
        },
        scrambled,
        state: state(scrambler_state)?,
    })
}

/// A stream through the RX chain, as `baser decode` does. Returns the JSON document and the
/// received frames' octets (DA through FCS), in order.
#[pyfunction]
#[pyo3(signature = (stream, kind, *, profile="ieee", max_frame_length=1518, strict_start=false,
                    max_events=20, offline=false, scrambled=true, scrambler_state=None,
                    name="<stream>", rate="10g", fec="none", rs_marker_period=1024,
                    ber_timer=None, fec_options=None))]
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
    rate: &str,
    fec: &str,
    rs_marker_period: u32,
    ber_timer: Option<&str>,
    fec_options: Option<std::collections::HashMap<String, bool>>,
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
        receive_line(line(rate, fec, rs_marker_period)?, fec_options)?,
        ber_timer,
    )?;
    guard(|| {
        let (pcs, counts, keep, fec) = d.run(&s, false)?;
        let data = keep
            .frames
            .iter()
            .map(|f| PyBytes::new(py, &f.data).unbind())
            .collect();
        let mut report = DecodeReport::new(name.to_string(), d.opt.profile, pcs, counts);
        if let Some(f) = fec {
            report = report.with_fec(f);
        }
        report.received = Some(keep.frames);
        Ok((json(&report)?, data))
    })
}

// -------------------------------------------------------------------------------- check

/// Expected frames against a DUT stream, as `baser check --frames` does; returns its JSON
/// document.
#[pyfunction]
#[pyo3(signature = (expected, dut, kind, *, profile="ieee", fcs_included=false,
                    strict_start=false, max_frame_length=None, receiver_view=false,
                    blocks=false, ifg=12, max_report=10, scrambled=true, scrambler_state=None,
                    expected_name="<expected>", dut_name="<dut>", rate="10g", fec="none",
                    rs_marker_period=1024, ber_timer=None, fec_options=None))]
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
    rate: &str,
    fec: &str,
    rs_marker_period: u32,
    ber_timer: Option<&str>,
    fec_options: Option<std::collections::HashMap<String, bool>>,
) -> PyResult<String> {
    let line = receive_line(line(rate, fec, rs_marker_period)?, fec_options)?;
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
        line,
        ber_timer,
    )?;
    guard(|| {
        let keep_blocks = blocks && !matches!(s, Owned::Xgmii(_));
        let (pcs, counts, keep, fec) = d.run(&s, keep_blocks)?;
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
        let (mut report, mut cases) = frame_check(FrameCheckInput {
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
        // The FEC's checks join the verdict; each uncorrectable unit names the frames it hit.
        if let Some(f) = fec {
            report.add_fec(&mut cases, f, None);
        }
        json(&report)
    })
}

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
    m.add_function(wrap_pyfunction!(pcs::encode_word, m)?)?;
    m.add_function(wrap_pyfunction!(pcs::decode_block, m)?)?;
    m.add_function(wrap_pyfunction!(pcs::control_block, m)?)?;
    m.add_function(wrap_pyfunction!(pcs::scramble_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_cases, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_stimulus, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_verdict, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_tx_verdict, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_tx_receive, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(
        conformance::conformance_pattern_verdict,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_skip, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_ber_window, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_coverage, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_xgmii, m)?)?;
    m.add_function(wrap_pyfunction!(conformance::conformance_line_of_xgmii, m)?)?;
    m.add_class::<conformance::LineCursor>()?;
    m.add_class::<tx::TxModel>()?;
    m.add_class::<rx::RxModel>()?;
    m.add_class::<rx::RxFrame>()?;
    m.add_class::<scoreboard::Scoreboard>()?;
    m.add("__version__", VERSION)?;
    let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
    m.add("PROFILES", names)?;
    Ok(())
}
