//! The decode's document: what the receiver saw of a stream and its verdict (clean: the PCS
//! saw nothing wrong and every frame is good). `baser decode --json`, the Python package's
//! `decode` and the C ABI's RX model write it; one rule for all three.

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
}

/// True when a decode is clean: the PCS saw nothing wrong and every frame is good.
pub fn clean(pcs: &PcsSummary, counts: &FrameCounts) -> bool {
    pcs.clean() && counts.by_class.keys().all(|k| k == "ok")
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
        }
    }

    /// True when clean.
    pub fn clean(&self) -> bool {
        self.verdict == "pass"
    }
}
