//! `RxModel` and `RxFrame`: the engine's test-bench receiver ([`SimRx`], on the live RX model
//! the C ABI runs too), one clock a call, and the frames it places at their clocks.

use crate::{block, guard, json, rx_options, state, value_err};
use baser_engine::decode_report::DecodeReport;
use baser_engine::live::{LiveError, RxView};
use baser_engine::rx::class_name;
use baser_engine::sim::{Place, PlacedFrame, SimInput, SimRx};
use baser_engine::Profile;
use pcs_core::XgmiiWord;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A received frame: its octets (DA through FCS, as received), its MAC class, and where its
/// octets were: the block and lane of its `/S/`, and the clocks (the index of the push that
/// completed the block) of the blocks holding its `/S/`, its SFD, the first octet after the
/// SFD and the octet after its last (a clock is `None` where it is not known). Indexing and
/// unpacking give the first eight fields, as the tuples of earlier versions:
/// `(data, class_, fcs_ok, start_block, start_lane, start_clock, data_clock, end_clock)`.
#[pyclass(module = "baser._baser", frozen, get_all)]
pub struct RxFrame {
    /// DA through FCS, as received.
    data: Py<PyBytes>,
    /// `ok`, `fcs_error`, `runt`, `fragment`, `too_long`, `error_character`, `truncated` or
    /// `bad_preamble`.
    class_: &'static str,
    /// The FCS is good.
    fcs_ok: bool,
    /// The block of its `/S/` (under USXGMII replication, on the line).
    start_block: u64,
    /// The lane of its `/S/`.
    start_lane: u8,
    start_clock: Option<u64>,
    /// The clock of the block holding the first octet after the SFD.
    data_clock: Option<u64>,
    /// The clock of the block holding the octet after the frame's last (its `/T/`).
    end_clock: Option<u64>,
    sfd_clock: Option<u64>,
    sfd_lane: Option<u8>,
    data_lane: Option<u8>,
    end_lane: Option<u8>,
    /// It started while the link was down (a profile whose decoder decodes then).
    link_down: bool,
}

impl RxFrame {
    fn new(py: Python<'_>, f: &PlacedFrame) -> Self {
        let clock = |p: Option<Place>| p.map(|p| p.clock);
        let lane = |p: Option<Place>| p.map(|p| p.lane);
        Self {
            data: PyBytes::new(py, &f.frame.data).unbind(),
            class_: class_name(f.frame.class),
            fcs_ok: f.frame.fcs_ok,
            start_block: f.frame.start.block,
            start_lane: f.frame.start.lane,
            start_clock: clock(f.start),
            data_clock: clock(f.data),
            end_clock: clock(f.end),
            sfd_clock: clock(f.sfd),
            sfd_lane: lane(f.sfd),
            data_lane: lane(f.data),
            end_lane: lane(f.end),
            link_down: f.frame.link_down,
        }
    }

    /// The first eight fields, as a tuple.
    fn tuple<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        (
            self.data.clone_ref(py),
            self.class_,
            self.fcs_ok,
            self.start_block,
            self.start_lane,
            self.start_clock,
            self.data_clock,
            self.end_clock,
        )
            .into_pyobject(py)
    }
}

#[pymethods]
impl RxFrame {
    fn __len__(&self) -> usize {
        8
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        i: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.tuple(py)?.as_any().get_item(i)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.tuple(py)?.as_any().try_iter()?.into_any())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let n = self.data.bind(py).as_bytes().len();
        let clock = |c: Option<u64>| c.map_or_else(|| "None".to_string(), |c| c.to_string());
        format!(
            "RxFrame(class_='{}', len={n}, fcs_ok={}, start_block={}, start_lane={}, start_clock={}, data_clock={}, end_clock={})",
            self.class_,
            if self.fcs_ok { "True" } else { "False" },
            self.start_block,
            self.start_lane,
            clock(self.start_clock),
            clock(self.data_clock),
            clock(self.end_clock)
        )
    }
}

/// The frames of one call, as Python takes them: `None` when there are none.
type Frames = Option<Vec<RxFrame>>;

fn frames(py: Python<'_>, placed: &[PlacedFrame]) -> Frames {
    (!placed.is_empty()).then(|| placed.iter().map(|f| RxFrame::new(py, f)).collect())
}

fn live_err(e: LiveError) -> PyErr {
    value_err(e.to_string())
}

/// The RX chain, fed one clock at a time: the engine's test-bench receiver, on the live RX
/// model the C ABI runs.
///
/// `view` says how a serial stream is read: `"receiver"` (the default, as the C ABI's
/// `input=serial`: block lock from the first bit, frames sent before lock are lost) or
/// `"offline"` (the bits are held until block lock is found, then decoded from the first
/// whole block with lock held: no frame is lost to lock, as `baser check` reads a dump).
#[pyclass(module = "baser._baser")]
pub struct RxModel {
    sim: SimRx,
    profile: Profile,
    copies: u32,
    finished: bool,
}

impl RxModel {
    fn check_open(&self) -> PyResult<()> {
        if self.finished {
            return Err(value_err("this RxModel was finished"));
        }
        Ok(())
    }

    fn clocked(
        &mut self,
        py: Python<'_>,
        push: impl FnOnce(&mut SimRx) -> Result<Vec<PlacedFrame>, LiveError>,
    ) -> PyResult<Frames> {
        guard(|| {
            let placed = push(&mut self.sim).map_err(live_err)?;
            Ok(frames(py, &placed))
        })
    }
}

#[pymethods]
impl RxModel {
    /// `input`: "units" (66 bits a clock, any boundary), "words" (64-bit serdes words, any
    /// boundary), "blocks" (`(header, payload)` at known boundaries, like a `.b66` dump) or
    /// "xgmii" (transfers: the MAC receiver alone).
    #[new]
    #[pyo3(signature = (*, input="units", profile="ieee", max_frame_length=16384,
                        scrambled=true, scrambler_state=None, strict_start=false, max_events=20,
                        view="receiver", rate="10g", fec="none", rs_marker_period=1024,
                        ber_timer=None, fec_options=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        input: &str,
        profile: &str,
        max_frame_length: u16,
        scrambled: bool,
        scrambler_state: Option<u64>,
        strict_start: bool,
        max_events: usize,
        view: &str,
        rate: &str,
        fec: &str,
        rs_marker_period: u32,
        ber_timer: Option<&str>,
        fec_options: Option<std::collections::HashMap<String, bool>>,
    ) -> PyResult<Self> {
        let (rate, fec) =
            crate::receive_line(crate::line(rate, fec, rs_marker_period)?, fec_options)?;
        let opt = rx_options(
            profile,
            max_frame_length,
            strict_start,
            max_events,
            rate,
            ber_timer,
        )?;
        let view: RxView = view.parse().map_err(value_err)?;
        let descrambler_state = state(scrambler_state)?;
        let input = match input {
            "units" => SimInput::Units,
            "words" => SimInput::Words(64),
            "blocks" => SimInput::Blocks {
                scrambled,
                descrambler_state,
            },
            "xgmii" => SimInput::Xgmii,
            o => {
                return Err(value_err(format!(
                    "unknown input `{o}`: expected units, words, blocks or xgmii"
                )))
            }
        };
        if !scrambled && !matches!(input, SimInput::Blocks { .. }) {
            return Err(value_err(
                "a serial stream is scrambled (unscrambled input needs input=\"blocks\")",
            ));
        }
        let mut sim = SimRx::new(&opt, input, view);
        if fec.kind != baser_engine::fec::Fec::None {
            if !matches!(input, SimInput::Units | SimInput::Words(_)) {
                return Err(value_err(format!(
                    "fec={}: the FEC's line is serial: input=\"units\" or \"words\"",
                    fec.kind
                )));
            }
            sim.set_fec(rate, &fec).map_err(value_err)?;
        }
        Ok(Self {
            sim,
            profile: opt.profile,
            copies: 0,
            finished: false,
        })
    }

    /// One clock of 66 bits (or one block, for input "blocks"); returns the frames it
    /// completed ([`RxFrame`]s), or `None`.
    fn push(&mut self, py: Python<'_>, header: u8, payload: u64) -> PyResult<Frames> {
        self.check_open()?;
        let b = block(self.sim.clocks() as usize, (header, payload))?;
        match self.sim.input() {
            SimInput::Units => self.clocked(py, |s| s.push_unit(b)),
            SimInput::Blocks { .. } => self.clocked(py, |s| s.push_block(b)),
            SimInput::Words(_) => Err(value_err("this RxModel takes 64-bit words (push_word)")),
            SimInput::Xgmii => Err(value_err("this RxModel takes XGMII transfers (push_xgmii)")),
        }
    }

    /// One clock of a 64-bit serdes word (bit 0 first on the wire); as [`RxModel::push`].
    fn push_word(&mut self, py: Python<'_>, word: u64) -> PyResult<Frames> {
        self.check_open()?;
        if !matches!(self.sim.input(), SimInput::Words(_)) {
            return Err(value_err("this RxModel takes 66-bit units (push)"));
        }
        self.clocked(py, |s| s.push_word(word))
    }

    /// One XGMII transfer (input "xgmii"): 64 data bits, lane 0 in the low octet, and the 8
    /// control bits; as [`RxModel::push`].
    fn push_xgmii(&mut self, py: Python<'_>, data: u64, ctrl: u8) -> PyResult<Frames> {
        self.check_open()?;
        if self.sim.input() != SimInput::Xgmii {
            return Err(value_err(
                "this RxModel takes serial input or blocks (made without input=\"xgmii\")",
            ));
        }
        self.clocked(py, |s| s.push_xgmii(XgmiiWord { data, ctrl }))
    }

    /// USXGMII rate replication from now on: each 4-octet column arrives `copies + 1` times
    /// (9 for 1 Gb/s); the frames come from a MAC receiver of their own on one column of each
    /// run (re-synchronised on a `/S/`), placed where their octets were on the line. 0: off.
    #[setter]
    fn set_replication(&mut self, copies: u32) {
        self.copies = copies;
        self.sim.set_replication(copies);
    }

    #[getter]
    fn get_replication(&self) -> u32 {
        self.copies
    }

    /// Clocks pushed so far.
    #[getter]
    fn clocks(&self) -> u64 {
        self.sim.clocks()
    }

    /// Whether the chain decodes (false while the offline view still looks for block lock).
    #[getter]
    fn aligned(&self) -> bool {
        !self.sim.searching()
    }

    /// The last ordered set received and not taken yet, as `(value, signal)` (value: its
    /// three octets, the first most significant; signal: `/Fsig/` rather than `/Q/`), or
    /// `None`; taking it clears it (the test-bench models' `get_os`).
    fn take_ordered_set(&mut self) -> Option<(u32, bool)> {
        self.sim
            .ordered_sets()
            .take()
            .map(|os| (os.value, os.signal))
    }

    /// `(same, idles)`: how many times in a row the last ordered set repeated, and how many
    /// all-control transfers came in a row since an ordered set.
    #[getter]
    fn ordered_set_runs(&mut self) -> (u64, u64) {
        self.sim.ordered_sets().runs()
    }

    /// The receiver now, as a dict: `blocks`, `block_lock`, `hi_ber`, `link_fault` (`Ok`,
    /// `Fault(LocalFault)`, ...), and the counts so far: `frames`, `invalid_headers`,
    /// `errored_blocks`, `lock_losses`, `hi_ber_episodes`, and `last_error`: `None` or the last
    /// errored block and the receive state machine's arrow into RX_E, e.g. `(812, "RX_D --C-->
    /// RX_E")` (a PCS monitor a test can poll every clock). While the offline view looks for
    /// block lock, the counts are 0.
    #[getter]
    fn status(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = pyo3::types::PyDict::new(py);
        let st = self.sim.status();
        let pcs = self.sim.pcs();
        d.set_item("blocks", st.blocks)?;
        d.set_item("block_lock", st.block_lock)?;
        d.set_item("hi_ber", st.hi_ber)?;
        d.set_item("link_fault", st.link_fault.to_string())?;
        d.set_item("frames", self.sim.counts().total)?;
        d.set_item("invalid_headers", pcs.invalid_headers)?;
        d.set_item("errored_blocks", pcs.errored_blocks)?;
        d.set_item("lock_losses", pcs.lock_losses.len())?;
        d.set_item("hi_ber_episodes", pcs.hi_ber_episodes.len())?;
        match self.sim.last_errored() {
            Some(e) => d.set_item("last_error", (e.block, e.what))?,
            None => d.set_item("last_error", py.None())?,
        }
        Ok(d.into_any().unbind())
    }

    /// What the FEC below the PCS saw so far (the `fec` object of `baser decode --json`: lock,
    /// codewords, corrected and uncorrected ones, symbols, ...), as a dict; `None` without a
    /// FEC.
    #[getter]
    fn fec(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let Some(f) = self.sim.fec() else {
            return Ok(None);
        };
        let text = json(f)?;
        let doc = py.import("json")?.call_method1("loads", (text,))?;
        Ok(Some(doc.unbind()))
    }

    /// Ends the stream: returns the JSON document of `baser decode --json` (PCS summary and
    /// frame counts) and the frames the last blocks completed.
    fn finish(&mut self, py: Python<'_>) -> PyResult<(String, Frames)> {
        self.check_open()?;
        self.finished = true;
        guard(|| {
            let (pcs, counts, placed) = self
                .sim
                .finish()
                .map_err(|e| PyRuntimeError::new_err(format!("baser: {e}")))?;
            let mut report = DecodeReport::new("<stream>".to_string(), self.profile, pcs, counts);
            if let Some(f) = self.sim.fec() {
                report = report.with_fec(f.clone());
            }
            report.received = Some(Vec::new());
            Ok((json(&report)?, frames(py, &placed)))
        })
    }
}
