//! The conformance catalogue's cases from Python (`baser.conformance` takes its table and
//! every case's stimulus from here): the engine's [`conformance`] module, translated.
//!
//! Blocks cross as `(header, payload)`, as in `lib.rs`.

use crate::{guard, pair, value_err, Pair};
use baser_engine::conformance::judge::{self, DutFrame, DutSaid, DutShape};
use baser_engine::conformance::{self, Kind, Params, Stimulus};
use baser_engine::fec::Rate;
use pcs_core::XgmiiWord;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;

/// The catalogue, in the order it runs: one dict a case with `name`, `clause`, `title`,
/// `kind` ("rx" or "tx"), `expect` (status role -> the levels the standard demands from the
/// stimulus on), `needs` (what the adapter must have), `counters` (judged),
/// `standard_ber_timer` (needs the DUT's BER timer to be the standard's), `rate` (the one
/// rate it applies at, `"10g"` or `"25g"`; None: every rate), `pattern` (a test-pattern
/// case: [`conformance_pattern`]).
#[pyfunction]
pub fn conformance_cases(py: Python<'_>) -> PyResult<Vec<Py<PyDict>>> {
    conformance::CASES
        .iter()
        .map(|c| {
            let d = PyDict::new(py);
            d.set_item("name", c.name)?;
            d.set_item("clause", c.clause)?;
            d.set_item("title", c.title)?;
            d.set_item("kind", if c.kind == Kind::Rx { "rx" } else { "tx" })?;
            let expect = PyDict::new(py);
            for (role, levels) in c.demands {
                expect.set_item(role, pyo3::types::PyTuple::new(py, levels.iter())?)?;
            }
            d.set_item("expect", expect)?;
            d.set_item("needs", c.needs())?;
            d.set_item("counters", c.counters)?;
            d.set_item("standard_ber_timer", c.standard_ber_timer)?;
            d.set_item("rate", c.rate.map(Rate::name))?;
            d.set_item("pattern", c.is_pattern())?;
            Ok(d.unbind())
        })
        .collect()
}

/// A receive case's line as the bench takes it: unscrambled `blocks`, `slips` (block index
/// -> bits inserted or deleted there) and `frames` (per frame sent: `frame`, `s_block`,
/// `s_lane`, `t_block`, `t_lane`); or a transmit case's `(frames, aborts)`.
type RxLine = (
    Vec<Pair>,
    Vec<(usize, i32)>,
    Vec<(Vec<u8>, usize, u8, usize, u8)>,
);

/// A DUT's settings from a door's words: `rate` `"10g"` or `"25g"`, the BER timer in blocks
/// (None: the standard's at that rate).
fn params(
    max_frame_length: usize,
    ber_window_blocks: Option<usize>,
    rate: &str,
) -> PyResult<Params> {
    let rate: Rate = rate.parse().map_err(|e| value_err(format!("rate: {e}")))?;
    let p = Params {
        max_frame_length,
        ber_window_blocks: ber_window_blocks
            .unwrap_or(conformance::standard_ber_window_blocks(rate)),
        rate,
        prbs31_inverted: false,
    };
    p.ber_timer().map_err(value_err)?;
    Ok(p)
}

/// The standard's BER timer in blocks at `rate`: 19531 (125 µs) at `"10g"`, 781250 (2 ms)
/// at `"25g"`.
#[pyfunction]
pub fn conformance_ber_window(rate: &str) -> PyResult<usize> {
    Ok(params(1518, None, rate)?.ber_window_blocks)
}

/// Why case `name` does not run on a DUT of these settings (another rate's case, a BER timer
/// its line is not placed for), or None: it runs. Bad settings (an unknown rate, a window of
/// 0 blocks) raise `ValueError`.
#[pyfunction]
#[pyo3(signature = (name, *, max_frame_length=1518, ber_window_blocks=None, rate="10g"))]
pub fn conformance_skip(
    name: &str,
    max_frame_length: usize,
    ber_window_blocks: Option<usize>,
    rate: &str,
) -> PyResult<Option<String>> {
    let case = conformance::find(name).map_err(value_err)?;
    let params = params(max_frame_length, ber_window_blocks, rate)?;
    Ok(conformance::applies(case, &params).err())
}

/// One case's stimulus for a DUT whose largest good frame is `max_frame_length` octets (FCS
/// included), whose BER timer is `ber_window_blocks` blocks (None: the standard's) and whose
/// rate is `rate`: a receive case's
/// `("rx", (blocks, slips, frames))` (blocks before scrambling; slips as `(block index,
/// bits)`, > 0 inserted; frames as `(octets, s_block, s_lane, t_block, t_lane)`), a transmit
/// case's `("tx", (frames, aborts))`, a test-pattern case's `("pattern", run)` (as
/// [`conformance_pattern`] gives it, the PRBS31 not inverted).
#[pyfunction]
#[pyo3(signature = (name, *, max_frame_length=1518, ber_window_blocks=None, rate="10g"))]
pub fn conformance_stimulus(
    py: Python<'_>,
    name: &str,
    max_frame_length: usize,
    ber_window_blocks: Option<usize>,
    rate: &str,
) -> PyResult<(&'static str, Py<PyAny>)> {
    let case = conformance::find(name).map_err(value_err)?;
    let params = params(max_frame_length, ber_window_blocks, rate)?;
    let s = guard(|| conformance::stimulus(case, &params).map_err(value_err))?;
    Ok(match s {
        Stimulus::Rx(line) => {
            let out: RxLine = (
                line.blocks.iter().map(|&b| pair(b)).collect(),
                line.slips.into_iter().collect(),
                line.frames
                    .into_iter()
                    .map(|f| (f.frame, f.start.0, f.start.1, f.end.0, f.end.1))
                    .collect(),
            );
            ("rx", out.into_pyobject(py)?.into_any().unbind())
        }
        Stimulus::Tx(frames, aborts) => {
            let frames: Vec<_> = frames
                .iter()
                .map(|f| pyo3::types::PyBytes::new(py, f))
                .collect();
            (
                "tx",
                (frames, aborts).into_pyobject(py)?.into_any().unbind(),
            )
        }
        Stimulus::Pattern(run) => ("pattern", pattern_dict(py, &run)?.into_any()),
    })
}

fn pattern_dict(py: Python<'_>, run: &conformance::pattern::PatternRun) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("case", &run.case)?;
    let units: Vec<Pair> = run.units.iter().map(|&b| pair(b)).collect();
    d.set_item("units", units)?;
    d.set_item("enable", run.enable)?;
    d.set_item("window", run.window)?;
    d.set_item("errors", run.errors.clone())?;
    d.set_item("expected_errors", run.expected_errors)?;
    d.set_item("inverted", run.inverted)?;
    Ok(d.unbind())
}

/// A test-pattern case's run (`rx-prbs31`, `tx-prbs31`) for a DUT whose PRBS31 is
/// `inverted` (the complement of the LFSR's output) or not: a dict of `units` (the DUT's
/// serdes input, `(header, data)` a clock, as sent), `enable` (the clocks `[on, off)` its
/// test-pattern enable is high), `window` (`rx-prbs31`: the clocks its error counter is
/// summed over; `tx-prbs31`: the clocks of its line judged), `errors` (the `(clock, bit)`
/// flipped), `expected_errors` (what the counter must move by), `inverted`.
#[pyfunction]
#[pyo3(signature = (name, *, inverted=false))]
pub fn conformance_pattern(py: Python<'_>, name: &str, inverted: bool) -> PyResult<Py<PyDict>> {
    let run = guard(|| conformance::pattern::run(name, inverted).map_err(value_err))?;
    pattern_dict(py, &run)
}

/// A test-pattern case's verdict: `rx-prbs31` with `counted` (what the DUT's error counter
/// moved by over the run's window), `tx-prbs31` with `line` (its serdes output, `(header,
/// data)` a clock from the run's first). Returns the divergences (none: pass).
#[pyfunction]
#[pyo3(signature = (name, *, inverted=false, counted=None, line=None))]
pub fn conformance_pattern_verdict(
    name: &str,
    inverted: bool,
    counted: Option<u64>,
    line: Option<Vec<Pair>>,
) -> PyResult<Vec<String>> {
    use conformance::pattern;
    let run = guard(|| pattern::run(name, inverted).map_err(value_err))?;
    match (name, counted, line) {
        ("rx-prbs31", Some(n), _) => Ok(pattern::judge_rx(&run, n)),
        ("tx-prbs31", _, Some(line)) => {
            let blocks = crate::blocks(&line)?;
            Ok(pattern::judge_tx(&run, &blocks))
        }
        _ => Err(value_err(format!(
            "{name}: give counted= (rx-prbs31) or line= (tx-prbs31)"
        ))),
    }
}

/// What a DUT said in a receive case's run, as the bench records it: `frames` `(octets, bad,
/// clock)`, `pulses` role -> clocks high, `status` role -> `(clock, level)` changes,
/// `counters` role -> `(before, after)`.
type Said = (
    Vec<(Vec<u8>, bool, u64)>,
    BTreeMap<String, u64>,
    BTreeMap<String, Vec<(u64, bool)>>,
    BTreeMap<String, (u64, u64)>,
);

/// The verdict of a receive case (the engine's `conformance::judge::rx`, as the C ABI's
/// replay gives it): what the DUT said (`said`, as [`Said`]) against the case's expected
/// outcome for a DUT of `max_frame_length`, `ber_window_blocks` (None: the standard's) and
/// `rate` (the model's receiver runs at them); `has_frames`: it delivers
/// frames; `fcs_stripped`: without their FCS; `pulse_roles`: the pulse outputs it has.
/// Returns the divergences, the first first (none: pass).
#[pyfunction]
#[pyo3(signature = (name, said, *, max_frame_length=1518, ber_window_blocks=None,
                    has_frames=true, fcs_stripped=true, pulse_roles=Vec::new(), rate="10g"))]
#[allow(clippy::too_many_arguments)]
pub fn conformance_verdict(
    name: &str,
    said: Said,
    max_frame_length: usize,
    ber_window_blocks: Option<usize>,
    has_frames: bool,
    fcs_stripped: bool,
    pulse_roles: Vec<String>,
    rate: &str,
) -> PyResult<Vec<String>> {
    let case = conformance::find(name).map_err(value_err)?;
    let params = params(max_frame_length, ber_window_blocks, rate)?;
    let (frames, pulses, status, counters) = said;
    guard(|| {
        let (_, exp) = conformance::rx_expected(case, &params).map_err(value_err)?;
        let shape = DutShape {
            frames: has_frames,
            fcs_stripped,
            pulses: pulse_roles,
        };
        let said = DutSaid {
            frames: frames
                .into_iter()
                .map(|(octets, bad, clock)| DutFrame { octets, bad, clock })
                .collect(),
            pulses,
            status,
            counters,
        };
        Ok(judge::rx(&exp, &shape, &said))
    })
}

/// A transmit case's line for the DUT's receiver as sent (`(header, data)` a clock,
/// scrambled from the all-ones state, from the run's first clock, the lead included; scrambled
/// idles go on after it from the state `data >> 6` of its last block), or None: idles
/// throughout. A receive case raises `ValueError`.
#[pyfunction]
pub fn conformance_tx_receive(name: &str) -> PyResult<Option<Vec<Pair>>> {
    let case = conformance::find(name).map_err(value_err)?;
    let line = guard(|| conformance::tx_receive(case).map_err(value_err))?;
    Ok(line.map(|l| l.iter().map(|&b| pair(b)).collect()))
}

/// The verdict of a transmit case (the engine's `conformance::judge::tx`, as the C ABI's
/// replay gives it): `frames` (DA to the end of the payload) fed to the DUT, those at
/// `aborts` with the abort bit; `line` the DUT's serdes output as `(header, data)` a clock
/// (scrambled, header as sent: data 2, control 1); `ifg` and `dic`: the DUT's IFG and whether
/// it runs the deficit idle count. With `receive` (the case's receive line as
/// [`conformance_tx_receive`] gives it, driven from the run's clock 0; `line[k]` at clock
/// `line_start + k`): the engine's `judge::tx_link_fault`, the RS's reaction to the faults it
/// received judged first. Returns the divergences, the first first (none: pass).
#[pyfunction]
#[pyo3(signature = (frames, aborts, line, *, ifg=12, dic=true, receive=None, line_start=0))]
pub fn conformance_tx_verdict(
    frames: Vec<Vec<u8>>,
    aborts: Vec<usize>,
    line: Vec<Pair>,
    ifg: u16,
    dic: bool,
    receive: Option<Vec<Pair>>,
    line_start: u64,
) -> PyResult<Vec<String>> {
    let line = crate::blocks(&line)?;
    let shape = judge::TxShape { ifg, dic };
    let Some(receive) = receive else {
        return guard(|| judge::tx(&frames, &aborts, &line, &shape).map_err(value_err));
    };
    if !aborts.is_empty() {
        return Err(value_err(
            "aborts with a receive line: the link fault verdict judges every frame sent",
        ));
    }
    let receive = crate::blocks(&receive)?;
    guard(|| judge::tx_link_fault(&frames, &receive, &line, line_start, &shape).map_err(value_err))
}

/// A receive case's line as the model's PCS receiver hands it to its RS, one `(data, ctrl)`
/// XGMII transfer a block (Local Fault before block lock): what a MAC-only DUT is given; a
/// transmit case's receive line (`tx-link-fault`) likewise.
#[pyfunction]
#[pyo3(signature = (name, *, max_frame_length=1518, ber_window_blocks=None, rate="10g"))]
pub fn conformance_xgmii(
    name: &str,
    max_frame_length: usize,
    ber_window_blocks: Option<usize>,
    rate: &str,
) -> PyResult<Vec<(u64, u8)>> {
    let case = conformance::find(name).map_err(value_err)?;
    let params = params(max_frame_length, ber_window_blocks, rate)?;
    guard(|| {
        let words = conformance::xgmii::rx_xgmii(case, &params).map_err(value_err)?;
        Ok(words.iter().map(|w| (w.data, w.ctrl)).collect())
    })
}

/// The line the model's PCS transmitter (encoder and scrambler) makes of a MAC-only DUT's
/// XGMII output `(data, ctrl)`, as `(header, payload)` blocks, for the transmit verdict.
#[pyfunction]
pub fn conformance_line_of_xgmii(words: Vec<(u64, u8)>) -> PyResult<Vec<Pair>> {
    guard(|| {
        let words: Vec<XgmiiWord> = words
            .iter()
            .map(|&(data, ctrl)| XgmiiWord { data, ctrl })
            .collect();
        Ok(conformance::xgmii::line_of_xgmii(&words)
            .into_iter()
            .map(pair)
            .collect())
    })
}

/// The engine's functional coverage (`baser coverage`'s bins) of what the cases `names` drove
/// on a DUT of these settings, merged, as JSON (`runs`, `groups`: `name`, `what`, `bins`:
/// `name`, `hits`).
#[pyfunction]
#[pyo3(signature = (names, *, max_frame_length=1518, ber_window_blocks=None, rate="10g"))]
pub fn conformance_coverage(
    names: Vec<String>,
    max_frame_length: usize,
    ber_window_blocks: Option<usize>,
    rate: &str,
) -> PyResult<String> {
    let params = params(max_frame_length, ber_window_blocks, rate)?;
    let cases: Vec<&conformance::Case> = names
        .iter()
        .map(|n| conformance::find(n))
        .collect::<Result<_, _>>()
        .map_err(value_err)?;
    guard(|| {
        let cov = conformance::coverage(&cases, &params).map_err(value_err)?;
        serde_json::to_string(&cov).map_err(|e| value_err(e.to_string()))
    })
}

/// Reads a line as 66-bit serdes clocks (the engine's `conformance::line::Cursor`): `take()`
/// gives the next `(header, data)`, `take(True)` first drops one bit (a receiver's bit slip
/// request); the line's own slips (`slips`: block index -> bits inserted, > 0, or deleted)
/// apply as their block is reached.
#[pyclass(module = "baser._baser")]
pub struct LineCursor {
    inner: conformance::line::Cursor,
}

#[pymethods]
impl LineCursor {
    #[new]
    fn new(blocks: Vec<Pair>, slips: BTreeMap<usize, i32>) -> PyResult<Self> {
        let blocks = crate::blocks(&blocks)?;
        Ok(Self {
            inner: conformance::line::Cursor::new(blocks, slips),
        })
    }

    /// Whole blocks not yet read.
    fn left(&self) -> usize {
        self.inner.left()
    }

    /// The next 66 bits as `(header, data)`.
    #[pyo3(signature = (slip=false))]
    fn take(&mut self, slip: bool) -> Pair {
        pair(self.inner.take(slip))
    }
}
