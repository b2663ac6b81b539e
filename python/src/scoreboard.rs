//! `Scoreboard`: the engine's live checker ([`LiveCheck`]) on the frames a DUT delivered.

use crate::{guard, json};
use baser_engine::live::LiveCheck;
use baser_engine::rx::{RxInput, RxOptions};
use baser_engine::Options;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// Expected frames against the frames a DUT delivered, judged as `baser check --frames` does:
/// each DUT frame the moment it is given (against the next expected ones, in order), and at
/// the end the one judge over the run. The DUT's frames are octets (DA through FCS), classed
/// by the model's MAC receiver.
#[pyclass(module = "baser._baser")]
pub struct Scoreboard {
    live: LiveCheck,
    opt: RxOptions,
    finished: bool,
}

impl Scoreboard {
    fn check_open(&self) -> PyResult<()> {
        if self.finished {
            return Err(PyRuntimeError::new_err(
                "baser: the scoreboard was finished",
            ));
        }
        Ok(())
    }
}

#[pymethods]
impl Scoreboard {
    #[new]
    #[pyo3(signature = (*, profile="ieee", max_frame_length=1518, name="scoreboard"))]
    fn new(profile: &str, max_frame_length: u16, name: &str) -> PyResult<Self> {
        let opt = Options {
            profile: crate::profile(profile)?,
            max_frame_length: Some(max_frame_length),
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
        self.check_open()?;
        Ok(self.live.expect(&frame))
    }

    /// A frame the DUT delivered: DA through FCS (`fcs_included=False`: without its FCS, which
    /// is then taken as right). Returns the messages of the divergences it revealed (empty: all
    /// well so far).
    #[pyo3(signature = (frame, fcs_included=true))]
    fn push(&mut self, frame: Vec<u8>, fcs_included: bool) -> PyResult<Vec<String>> {
        self.check_open()?;
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
            let first = self.first();
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
