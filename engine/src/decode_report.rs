//! The decode's document: what the receiver saw of a stream and its verdict (clean: the PCS
//! saw nothing wrong and every frame that started while the link was up is good). `baser decode --json`, the Python package's
//! `decode` and the C ABI's RX model write it; one rule for all three.

use crate::fec::FecSummary;
use crate::profile::Profile;
use crate::rx::{FrameCounts, PcsSummary, ReceivedFrame};
use serde::Serialize;

/// The JSON document of `baser decode` (docs/reports.md), field for field; the Python package
/// adds the received frames.
#[derive(Clone, Debug, Serialize)]
pub struct DecodeReport {
    /// The stream's name.
    pub input: String,
    /// The profile's name.
    pub profile: &'static str,
    /// `pass` (clean) or `fail`.
    pub verdict: &'static str,
    /// What the PCS saw.
    pub pcs: PcsSummary,
    /// Frames by class.
    pub frames: FrameCounts,
    /// The received frames (when the door keeps them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received: Option<Vec<ReceivedFrame>>,
    /// What the FEC below the PCS saw (a stream decoded with one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fec: Option<FecSummary>,
}

/// True when a decode is clean: the PCS saw nothing wrong and every frame is good. Frames
/// that started while the link was down (which only a profile whose decoder decodes then
/// delivers, as its RTL does) are reported apart and not judged: no receiver counts them, and
/// one the lock search cut is no fault of the stream.
pub fn clean(pcs: &PcsSummary, counts: &FrameCounts) -> bool {
    pcs.clean() && counts.judged().keys().all(|k| k == "ok")
}

impl DecodeReport {
    /// The document of a decode.
    pub fn new(input: String, profile: Profile, pcs: PcsSummary, frames: FrameCounts) -> Self {
        Self {
            input,
            profile: profile.name(),
            verdict: if clean(&pcs, &frames) { "pass" } else { "fail" },
            pcs,
            frames,
            received: None,
            fec: None,
        }
    }

    /// With the FEC's summary: an uncorrectable FEC block or codeword, a lock never acquired
    /// or lost, makes the decode unclean (corrected ones do not).
    pub fn with_fec(mut self, fec: FecSummary) -> Self {
        if !fec.clean() {
            self.verdict = "fail";
        }
        self.fec = Some(fec);
        self
    }

    /// True when clean.
    pub fn clean(&self) -> bool {
        self.verdict == "pass"
    }
}
