//! The sinks the stream commands share (`decode`, `check`, `coverage`): the decoded
//! transfers and frames into files, the frame judge, the coverage collector; and the coverage
//! file they write.

use crate::command::{named, Error};
use crate::outfile::OutFile;
use crate::report;
use baser_engine::coverage::Collector;
use baser_engine::fec::{FecOptions, FecSummary, Rate};
use baser_engine::judge::Comparer;
use baser_engine::rx::{FrameRef, PcsSummary, RxSink};
use baser_files::pcap::FrameWriter;
use baser_files::xgmii::XgmiiWriter;
use pcs_core::Block;
use std::path::{Path, PathBuf};

/// Writes decoded transfers and frames to files, and keeps what a check needs.
pub struct DecodeSinks {
    /// The decoded transfers go here.
    pub xgmii: Option<(PathBuf, XgmiiWriter<OutFile>)>,
    /// The received frames go here.
    pub pcap: Option<(PathBuf, FrameWriter<OutFile>)>,
    /// Print a line per received frame (`-v`).
    pub list: bool,
    /// The received frames are judged here as they arrive (only what the judge needs of
    /// them is kept).
    pub judge: Option<Comparer>,
    /// Functional coverage is counted here.
    pub coverage: Option<Collector>,
    /// The longest frame classed too long while the link was up (octets after the SFD).
    pub longest_too_long: Option<usize>,
    /// The line rate: a frame's pcap time is its `/S/`'s place in octet times of this rate
    /// (0.8 ns at 10G, 0.32 ns at 25G).
    pub rate: Rate,
}

impl DecodeSinks {
    /// Sinks that keep nothing and write nothing.
    pub fn none() -> Self {
        Self {
            xgmii: None,
            pcap: None,
            list: false,
            judge: None,
            coverage: None,
            longest_too_long: None,
            rate: Rate::G10,
        }
    }
}

impl RxSink for DecodeSinks {
    fn wants_blocks(&self) -> bool {
        self.coverage.is_some()
    }

    fn wants_events(&self) -> bool {
        self.coverage.is_some()
    }

    fn wants_words(&self) -> bool {
        self.xgmii.is_some() || self.coverage.is_some()
    }

    fn rx_event(&mut self, block: u64, e: &pcs_core::RxEvent) {
        if let Some(c) = self.coverage.as_mut() {
            c.rx_event(block, e);
        }
    }

    fn link_fault(&mut self, block: u64, status: baser_engine::rx::LinkStatus) {
        if let Some(c) = self.coverage.as_mut() {
            c.link_fault(block, status);
        }
    }

    fn words(
        &mut self,
        first: u64,
        words: &[pcs_core::XgmiiWord],
        blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        if let Some(c) = self.coverage.as_mut() {
            c.words(first, words, blocks)?;
        }
        if let Some((p, w)) = self.xgmii.as_mut() {
            w.write_words(words).map_err(|e| named(p, e))?;
        }
        Ok(())
    }

    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        if f.class == mac_core::rx::RxClass::FrameTooLong && !f.link_down {
            self.longest_too_long = Some(self.longest_too_long.unwrap_or(0).max(f.len));
        }
        if self.list {
            use std::io::Write;
            let gap = f.gap_octets.map_or(String::new(), |g| format!(", gap {g}"));
            let _ = writeln!(
                std::io::stdout().lock(),
                "  frame {}: block {} lane {}, {} octets, {}{gap}",
                f.index,
                f.start.block,
                f.start.lane,
                f.len,
                baser_engine::rx::class_name(f.class)
            );
        }
        if let Some((p, w)) = self.pcap.as_mut() {
            let ps = (f.start.block * 8 + f.start.lane as u64) * (self.rate.block_ps() / 8);
            w.write(std::time::Duration::from_nanos(ps / 1000), f.content())
                .map_err(|e| named(p, e))?;
        }
        if let Some(j) = self.judge.as_mut() {
            j.push(f);
        }
        if let Some(c) = self.coverage.as_mut() {
            c.frame(f)?;
        }
        Ok(())
    }
}

/// Writes a collector's coverage as JSON, with the FEC's bins when the stream had one.
///
/// # Errors
/// The file cannot be written.
pub fn write_coverage(
    path: &Path,
    c: Collector,
    pcs: &PcsSummary,
    fec: Option<(&FecSummary, &FecOptions)>,
) -> Result<(), Error> {
    let mut cov = c.finish(pcs);
    if let Some((f, opt)) = fec {
        cov.add_fec(f, opt);
    }
    report::write_json(path, &cov).map_err(|e| Error::Output(path.to_path_buf(), e))
}
