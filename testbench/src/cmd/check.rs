//! `baser check`: what a DUT produced against what the model says must come out, frame by
//! frame (`--frames`) or bit exact at the PCS (`--xgmii`).

use crate::command::{
    self, kind_of, progress_bar, Error, FecRxArgs, Kind, Output, Reports, Verdict,
};
use crate::html::{self, DutWindow, LaneTable};
use crate::pcs_check::{self, PcsCheckReport};
use crate::report::{self, Case};
use crate::sinks::DecodeSinks;
use crate::stream;
use baser_engine::coverage::{Collector, Coverage};
use baser_engine::fec::{ExpectedFec, FecOptions, FecSummary};
use baser_engine::frame_check::{frame_check, FrameCheckInput, FrameCheckReport};
use baser_engine::judge::{self, Expected};
use baser_engine::options::BerTimer;
use baser_engine::outcome;
use baser_engine::pcs_check::{BlockComparison, FrameBlocks};
use baser_engine::rx::RxOptions;
use baser_engine::{Options, Profile};
use baser_files::pcap::FrameReader;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Prints the PCS check's summary and writes its reports.
///
/// # Errors
/// A report file cannot be written.
pub fn finish_pcs_check(
    rep: &PcsCheckReport,
    cases: &[Case],
    reports: &Reports,
    out: Output,
) -> Result<Verdict, Error> {
    reports.write("baser check --xgmii", rep, cases)?;
    if let Some(p) = &reports.html {
        html::write(p, &html::pcs_page(rep, cases))?;
    }
    let failed = cases.iter().any(Case::failed);
    if !out.quiet {
        let stdout = std::io::stdout();
        let mut o = stdout.lock();
        let _ = writeln!(
            o,
            "baser check (PCS): {} -> model vs {} ({}, profile {})",
            rep.xgmii,
            rep.dut,
            if rep.dut_scrambled {
                "descrambled"
            } else {
                "unscrambled"
            },
            rep.profile
        );
        let mut notes = Vec::new();
        if rep.dut_offset_found {
            notes.push(format!(
                "DUT matches at an offset of {} blocks (its latency)",
                rep.dut_offset
            ));
        } else if rep.dut_offset > 0 {
            notes.push(format!(
                "{} DUT blocks skipped (--dut-offset)",
                rep.dut_offset
            ));
        }
        if rep.dut_reset_fill_blocks > 0 {
            notes.push(format!(
                "{} leading all-zero blocks skipped as reset fill",
                rep.dut_reset_fill_blocks
            ));
        }
        if let Some(b) = rep.counts.trained_at {
            notes.push(format!(
                "block {b} trained the descrambler (no scrambler_state given): its header compared, not its payload"
            ));
        }
        for n in notes {
            let _ = writeln!(o, "  {n}");
        }
        let _ = writeln!(
            o,
            "  {} blocks compared, {} differ; DUT missing {} blocks, extra {}",
            rep.counts.blocks_compared,
            rep.counts.blocks_divergent,
            rep.counts.dut_missing_blocks,
            rep.counts.dut_extra_blocks
        );
        if out.verbose > 0 {
            let _ = report::write_passes(&mut o, cases);
        }
        let _ = report::write_failures(&mut o, cases, reports.max_report.max(1));
        for d in rep
            .divergences
            .iter()
            .skip(1)
            .take(reports.max_report.saturating_sub(1))
        {
            let _ = writeln!(
                o,
                "  also block {} (DUT line {}): {}",
                d.block, d.dut_line, d.field
            );
        }
        let _ = writeln!(o, "{}", if failed { "FAIL" } else { "PASS" });
    }
    Ok(if failed { Verdict::Fail } else { Verdict::Pass })
}

/// Options of `baser check --frames`.
#[derive(Clone, Debug)]
pub struct FrameCheckArgs {
    /// Expected frames.
    pub frames: PathBuf,
    /// The DUT's stream.
    pub dut: PathBuf,
    /// Also compare blocks bit for bit.
    pub blocks: bool,
    /// The IFG the DUT's gaps are judged with (`--blocks`).
    pub ifg: u16,
    /// The expected capture includes the FCS.
    pub fcs_included: bool,
    /// Profile.
    pub profile: Profile,
    /// Expected outcomes of frames sent faulty on purpose.
    pub outcomes: Option<PathBuf>,
    /// What the DUT file holds (None: extension, then content).
    pub dut_format: Option<Kind>,
    /// Reset fill is not skipped.
    pub strict_start: bool,
    /// Longest good frame, FCS included (None: 1518, or the longest expected frame).
    pub max_frame_length: Option<u16>,
    /// A .bits DUT stream as a receiver sees it, instead of offline.
    pub receiver_view: bool,
    /// Write the DUT stream's functional coverage here.
    pub coverage: Option<PathBuf>,
    /// The BER monitor's timer.
    pub ber_timer: BerTimer,
    /// The line rate and the FEC below the PCS (a `.bits` DUT line).
    pub fec: FecRxArgs,
}

/// What an expected-outcome file says: each frame's outcome, the receiver's largest frame it
/// assumes, and the FEC counters its stimulus planned.
#[derive(Default)]
struct Expectations {
    outcomes: Option<OutcomeMap>,
    max_frame_length: Option<u16>,
    fec: Option<ExpectedFec>,
}

/// The outcomes of an `expected.json` of `baser gen`: each frame's `outcome`, the
/// receiver's largest frame they assume, and its `fec` counters.
fn outcomes_of_expectation(p: &std::path::Path, text: &str) -> Result<Expectations, Error> {
    let bad = |line: u64, m: String| Error::Input(baser_files::InputError::line(p, line, m));
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(e.line() as u64, e.to_string()))?;
    let frames = doc["frames"].as_array().ok_or_else(|| {
        bad(
            1,
            "no `frames` list: not an expected.json of baser gen (or give INDEX OUTCOME lines)"
                .into(),
        )
    })?;
    let mut out = std::collections::BTreeMap::new();
    for (i, f) in frames.iter().enumerate() {
        let (Some(index), Some(what)) = (f["index"].as_u64(), f["outcome"].as_str()) else {
            return Err(bad(
                1,
                format!("frames[{i}]: expected `index` and `outcome`"),
            ));
        };
        let o = outcome::Outcome::parse(what).map_err(|m| bad(1, format!("frames[{i}]: {m}")))?;
        if o != outcome::Outcome::Ok {
            out.insert(index, o);
        }
    }
    let limit = doc["max_frame_length"]
        .as_u64()
        .and_then(|v| u16::try_from(v).ok());
    let fec = match doc.get("fec") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value(v.clone())
                .map_err(|e| bad(1, format!("`fec`: {e} (the fec object of baser gen)")))?,
        ),
    };
    Ok(Expectations {
        outcomes: Some(out),
        max_frame_length: limit,
        fec,
    })
}

/// `baser check --frames … --dut …`.
///
/// # Errors
/// Unreadable input or unwritable report.
pub fn check_frames(a: &FrameCheckArgs, reports: &Reports, out: Output) -> Result<Verdict, Error> {
    let kind = kind_of(&a.dut, a.dut_format)?;
    if kind == Kind::Frames {
        return Err(Error::Usage(format!(
            "{}: the DUT stream must be .bits, .b66 or .xgmii",
            a.dut.display()
        )));
    }
    let fec = a.fec.options()?;
    if a.fec.is_on() {
        command::refuse_fec_kind(&a.dut, kind)?;
    }
    let expected: Vec<Expected> = FrameReader::open(&a.frames, a.fcs_included)?
        .map(|f| {
            f.map(|f| Expected {
                index: f.index,
                data: f.data,
            })
        })
        .collect::<Result<_, _>>()?;
    // Expected outcomes (the expected.json of `baser gen` also names the limit it assumed).
    let Expectations {
        outcomes: wanted,
        max_frame_length: gen_limit,
        fec: fec_expected,
    } = expected_outcomes(a, expected.len())?;
    // One rule with decode: 1518 octets (1522 tagged) unless --max-frame-length says
    // otherwise; without it, a longer expected frame raises the limit to its length (the test
    // expects it delivered).
    let longest = expected.iter().map(|e| e.data.len() + 4).max().unwrap_or(0);
    // (A profile whose MAC checks no length, as verilog-ethernet's, sets none.)
    let limit = a.max_frame_length.or(gen_limit).or_else(|| {
        a.profile
            .max_frame_length()
            .map(|p| longest.max(usize::from(p)).min(usize::from(u16::MAX)) as u16)
    });
    let opt = Options {
        profile: a.profile,
        max_frame_length: limit,
        max_events: reports.max_report.max(20),
        strict_start: a.strict_start,
        ber_timer: a.ber_timer,
        rate: a.fec.line.rate,
        fec,
        ..Options::default()
    }
    .rx();
    let view = if a.receiver_view {
        baser_engine::live::RxView::Receiver
    } else {
        baser_engine::live::RxView::Offline
    };
    let sinks = DecodeSinks {
        // (The judge takes the expected frames and gives them back at the end.)
        judge: Some(judge::Comparer::owning(expected)),
        coverage: a
            .coverage
            .as_ref()
            .map(|_| Collector::new(&a.dut.display().to_string(), a.ifg)),
        ..DecodeSinks::none()
    };
    let dut = DutStream {
        path: &a.dut,
        kind,
        opt: &opt,
        view,
        fec: a.fec.is_on().then_some(fec),
    };
    let bar = progress_bar(&a.dut, out);
    let (pcs, counts, mut sinks, fec_summary) = dut.decode(u64::MAX, sinks, &|n| bar.set(n))?;
    bar.done();
    let mut pcs = pcs;
    if kind == Kind::B66 {
        pcs.hints
            .extend(stream::swapped_headers_hint(&a.dut, &opt, &pcs)?);
    }
    let coverage = sinks.coverage.take().map(|c| {
        let mut c = c.finish(&pcs);
        if let Some(f) = &fec_summary {
            c.add_fec(f, &fec);
        }
        c
    });
    if let (Some(p), Some(c)) = (&a.coverage, &coverage) {
        report::write_json(p, c).map_err(|e| Error::Output(p.clone(), e))?;
    }
    let (mut cmp, expected) = sinks
        .judge
        .take()
        .map(judge::Comparer::finish_with_frames)
        .unwrap_or_default();
    let outcomes = match &wanted {
        Some(o) => outcome::apply(&mut cmp, o),
        None => Vec::new(),
    };
    let block_cmp = if a.blocks && kind != Kind::Xgmii {
        Some(compare_blocks(a, &dut, &cmp, &expected, out)?)
    } else {
        None
    };
    let (mut doc, mut cases) = frame_check(FrameCheckInput {
        expected_name: a.frames.display().to_string(),
        dut_name: a.dut.display().to_string(),
        profile: a.profile,
        expected: expected.len(),
        counts: &counts,
        pcs,
        cmp,
        blocks: block_cmp,
        outcomes,
    });
    if let Some(f) = fec_summary {
        doc.add_fec(&mut cases, f, fec_expected);
    }
    let failed = doc.failed();
    if !out.quiet {
        print_frame_check(a, &doc, &cases, expected.len(), reports, out);
    }
    let properties = doc.fec.as_ref().map(FecSummary::properties);
    reports.write_with(
        "baser check --frames",
        &doc,
        &cases,
        properties.as_deref().unwrap_or_default(),
    )?;
    if let Some(p) = &reports.html {
        write_html(p, &doc, &cases, &expected, &dut, coverage.as_ref())?;
    }
    Ok(if failed { Verdict::Fail } else { Verdict::Pass })
}

/// Expected outcomes by expected frame.
type OutcomeMap = std::collections::BTreeMap<u64, outcome::Outcome>;

/// The expected outcomes `--outcomes` names (a file of `baser gen`'s, or a list), and the
/// frame length limit that file assumed.
fn expected_outcomes(a: &FrameCheckArgs, expected_len: usize) -> Result<Expectations, Error> {
    let Some(p) = &a.outcomes else {
        return Ok(Expectations::default());
    };
    let text =
        std::fs::read_to_string(p).map_err(|e| Error::Input(baser_files::InputError::io(p, &e)))?;
    let e = if text.trim_start().starts_with('{') {
        outcomes_of_expectation(p, &text)?
    } else {
        let o = outcome::parse_outcomes(&text)
            .map_err(|(line, m)| Error::Input(baser_files::InputError::line(p, line, m)))?;
        Expectations {
            outcomes: Some(o),
            ..Expectations::default()
        }
    };
    let o = e.outcomes.as_ref();
    if let Some(i) = o.and_then(|o| o.keys().find(|&&i| i >= expected_len as u64)) {
        return Err(Error::Usage(format!(
            "{}: frame {i}: the expected capture has {} frames",
            p.display(),
            expected_len
        )));
    }
    // Without --fec the DUT's stream is above the FEC (a receiver's XGMII, the PCS's
    // blocks): the planned FEC counters are for its registers, not judged here.
    if let Some(f) = e.fec.as_ref().filter(|_| a.fec.is_on()) {
        if f.kind != a.fec.line.fec {
            return Err(Error::Usage(format!(
                "{}: its stimulus has a {} line (--fec {}), the check was given --fec {}",
                p.display(),
                f.kind.clause(),
                f.kind,
                a.fec.line.fec
            )));
        }
    }
    Ok(e)
}

/// `--blocks`: a second decode of the DUT's stream, its frames compared with the model's
/// block by block as they come (no stream is kept).
fn compare_blocks(
    a: &FrameCheckArgs,
    dut: &DutStream<'_>,
    cmp: &judge::Comparison,
    expected: &[Expected],
    out: Output,
) -> Result<BlockComparison, Error> {
    let frames: Vec<&[u8]> = expected.iter().map(|e| e.data.as_slice()).collect();
    let pairs = cmp.start_pairs();
    let sink = FrameBlocks::new(&frames, a.profile, a.ifg, Some(&pairs));
    let bar = progress_bar(&a.dut, out);
    let (_, _, sink, _) = dut.decode(u64::MAX, sink, &|n| bar.set(n))?;
    bar.done();
    sink.finish().map_err(|(i, m)| {
        Error::Usage(format!(
            "expected frame {}: {m}",
            expected.get(i).map_or(0, |e| e.index)
        ))
    })
}

/// The text summary of `check --frames`.
fn print_frame_check(
    a: &FrameCheckArgs,
    doc: &FrameCheckReport,
    cases: &[Case],
    expected: usize,
    reports: &Reports,
    out: Output,
) {
    let failed = doc.failed();
    let (summary, pcs, outcomes, block_cmp) = (&doc.summary, &doc.pcs, &doc.outcomes, &doc.blocks);
    println!(
        "baser check: {} expected frames vs DUT {} (profile {})",
        expected,
        a.dut.display(),
        a.profile.name()
    );
    println!(
        "  frames: {} expected, {} received; {} matched, {} reordered, {} corrupted, {} missing, {} extra, {} with a bad MAC class",
        summary.expected, summary.received, summary.matched, summary.reordered, summary.corrupted, summary.missing, summary.extra, summary.bad_class
    );
    if !outcomes.is_empty() {
        let met = outcomes.iter().filter(|v| v.met).count();
        println!(
            "  outcomes: {} frames with an expected fault, {met} as expected",
            outcomes.len()
        );
    }
    match command::lock_line(pcs) {
        Some(lock) => {
            println!("  pcs: {lock}");
            if let Some(l) = command::prelude_line(pcs) {
                println!("  pcs: {l}");
            }
            println!(
                "  pcs: lock losses {}, hi_ber {}, invalid headers {}, errored blocks {}, link fault {}",
                pcs.lock_losses.len(),
                pcs.hi_ber_episodes.len(),
                pcs.invalid_headers,
                pcs.errored_blocks,
                pcs.link_fault
            );
        }
        None => println!("  link fault {} (XGMII input: no PCS)", pcs.link_fault),
    }
    for h in &pcs.hints {
        println!("  hint: {h}");
    }
    if let Some(f) = &doc.fec {
        println!("  {}", crate::report::fec_line(f));
        if let Some(e) = &doc.fec_expected {
            println!(
                "  fec: the stimulus planned {} corrected and {} uncorrectable {}s (--outcomes)",
                e.corrected_codewords,
                e.uncorrected_codewords,
                f.kind.unit()
            );
        }
    }
    if let Some(b) = block_cmp {
        println!(
            "  blocks: {} model frames vs {} DUT frames ({} and {} without a partner), {} blocks compared in place, {} differ",
            b.frames.0, b.frames.1, b.unpaired.0, b.unpaired.1, b.compared, b.divergent
        );
        let g = &b.gaps;
        if let (Some(lo), Some(hi)) = (g.min, g.max) {
            println!(
                "  gaps: {} between the DUT's frames, {lo}..{hi} octets; {} shorter than IFG {} with the deficit idle count allows",
                g.gaps, g.violations, g.ifg
            );
        }
    }
    let stdout = std::io::stdout();
    if out.verbose > 0 {
        let _ = report::write_passes(&mut stdout.lock(), cases);
    }
    let _ = report::write_failures(&mut stdout.lock(), cases, reports.max_report.max(1));
    println!("{}", if failed { "FAIL" } else { "PASS" });
}

/// The HTML report of `check --frames`.
fn write_html(
    p: &Path,
    doc: &FrameCheckReport,
    cases: &[Case],
    expected: &[Expected],
    dut: &DutStream<'_>,
    coverage: Option<&Coverage>,
) -> Result<(), Error> {
    let lanes = lane_tables(doc, expected, dut)?;
    let page = html::frames_page(&html::FramesPage {
        doc,
        cases,
        lanes: &lanes,
        coverage,
    });
    html::write(p, &page)
}

/// The DUT's stream as the check decoded it.
struct DutStream<'a> {
    path: &'a Path,
    kind: Kind,
    opt: &'a RxOptions,
    view: baser_engine::live::RxView,
    /// The FEC below the PCS (a `.bits` line).
    fec: Option<FecOptions>,
}

impl DutStream<'_> {
    /// Decodes the stream (through its FEC, when it has one) into `sink`: its first `records`
    /// blocks (all: `u64::MAX`; every stage is causal, so their transfers are the whole
    /// stream's).
    fn decode<K: baser_engine::rx::RxSink>(
        &self,
        records: u64,
        sink: K,
        progress: &dyn Fn(u64),
    ) -> Result<
        (
            baser_engine::rx::PcsSummary,
            baser_engine::rx::FrameCounts,
            K,
            Option<FecSummary>,
        ),
        Error,
    > {
        let whole = records == u64::MAX;
        if let Some(fec) = &self.fec {
            // A FEC line carries 66 line bits per block (the transcoding pays for the parity),
            // and an RS-FEC marker codeword's room: a codeword more is plenty.
            let bytes = if whole {
                u64::MAX
            } else {
                records.saturating_add(2 * 80).saturating_mul(66) / 8
            };
            let (pcs, counts, sink, f) = stream::decode_fec(
                self.path,
                self.opt,
                stream::FecLine::new(fec, self.view),
                bytes,
                sink,
                progress,
            )?;
            return Ok((pcs, counts, sink, Some(f)));
        }
        let name = self.kind.name();
        let (pcs, counts, sink) = if whole {
            stream::decode_kind(name, self.path, self.opt, self.view, sink, progress)?
        } else {
            stream::decode_prefix(name, self.path, records, self.opt, self.view, sink)?
        };
        Ok((pcs, counts, sink, None))
    }
}

/// Blocks shown before and after a divergence in the HTML report's lane tables.
const AROUND: u64 = 3;

/// The HTML report's lane tables: the first difference of the first corrupted frame (its
/// expected octets in place against the DUT's) and the first transition into `RX_E` (the
/// DUT's transfers alone), each with the blocks around it, from a second decode of the DUT's
/// stream up to them.
fn lane_tables(
    doc: &FrameCheckReport,
    expected: &[Expected],
    dut: &DutStream<'_>,
) -> Result<Vec<LaneTable>, Error> {
    let corrupted = doc.frames.iter().zip(expected).find_map(|(f, e)| {
        let d = f.first_difference.as_ref()?;
        Some((f, e, d, d.block?, (f.start_block?, f.start_lane?)))
    });
    let event = doc.pcs.e_transitions.first();
    let blocks: Vec<u64> = corrupted
        .iter()
        .map(|c| c.3)
        .chain(event.map(|e| e.block))
        .collect();
    if blocks.is_empty() {
        return Ok(Vec::new());
    }
    let window = DutWindow::around(&blocks, AROUND);
    // Every stage is causal: a prefix well past the window decodes to the same transfers.
    let (_, _, window, _) = dut.decode(window.end().saturating_add(1024), window, &|_| {})?;
    let near = |b: u64| window.within(b.saturating_sub(AROUND)..=b.saturating_add(AROUND));
    let mut tables = Vec::new();
    if let Some((f, e, d, block, start)) = corrupted {
        let octet = |o: Option<u8>| o.map_or("(end)".into(), |x| format!("0x{x:02x}"));
        let title = format!(
            "frame {} ({} octets, {}): first difference at octet {}: expected {}, got {}; DUT block {block} lane {}",
            f.expected_index,
            f.length,
            f.class.unwrap_or("?"),
            d.offset,
            octet(d.expected),
            octet(d.actual),
            d.lane.unwrap_or(0)
        );
        tables.push(LaneTable::expected_frame(
            title,
            &near(block),
            &e.data,
            start,
            block,
        ));
    }
    if let Some(ev) = event {
        tables.push(LaneTable::dut_only(
            format!("DUT block {}: {}", ev.block, ev.what),
            &near(ev.block),
            ev.block,
        ));
    }
    Ok(tables)
}

#[derive(clap::Args)]
/// Options of `baser check`.
pub struct CheckArgs {
    /// Expected frames (pcap/pcapng): frame-level check of the DUT stream.
    #[arg(long, conflicts_with = "xgmii")]
    pub frames: Option<PathBuf>,
    /// XGMII input given to the DUT: PCS-level, bit-exact check of the DUT's blocks.
    #[arg(long)]
    pub xgmii: Option<PathBuf>,
    /// What the DUT produced: .b66, .bits or .xgmii (.b66 only with --xgmii).
    #[arg(long)]
    pub dut: PathBuf,
    /// Also compare the DUT's 66-bit stream with the model's encoding, bit for bit, frame by
    /// frame: each DUT frame against its expected frame encoded from the lane (0 or 4) the
    /// DUT started it in; the gaps are judged apart (--ifg, with the deficit idle count).
    #[arg(long, requires = "frames")]
    pub blocks: bool,
    /// The captures include the FCS.
    #[arg(long)]
    pub fcs_included: bool,
    /// Compatibility profile.
    #[arg(long, value_parser = command::profile_parser(), default_value_t = Profile::Ieee)]
    pub profile: Profile,
    /// Skip this many leading DUT blocks (pipeline latency of the dump; --xgmii only).
    /// Default: found by searching offsets 0..=64.
    #[arg(long)]
    pub dut_offset: Option<u64>,
    /// What the DUT file holds, where its extension does not say (default: by its content).
    #[arg(long, value_enum)]
    pub dut_format: Option<Kind>,
    /// Leading all-zero blocks with header 0 (reset fill) are blocks like any other.
    #[arg(long)]
    pub strict_start: bool,
    /// Longest good frame, FCS included (default 1518, or the longest expected frame + FCS;
    /// none with --profile verilog-ethernet, whose MAC checks no length).
    #[arg(long, requires = "frames")]
    pub max_frame_length: Option<u16>,
    /// The BER monitor's timer (125us_timer, 49.2.13.2.5) in blocks or time: 125us (the
    /// standard's), 100blocks, 640ns; as the RTL bench runs it (verilog-ethernet's
    /// COUNT_125US, in blocks).
    #[arg(long, requires = "frames", default_value_t = BerTimer::default())]
    pub ber_timer: BerTimer,
    /// With --blocks: the IFG (octets, /T/ included) the DUT's gaps are judged with, with the
    /// deficit idle count.
    #[arg(long, default_value_t = 12, requires = "blocks")]
    pub ifg: u16,
    /// Expected outcomes of frames sent faulty on purpose: lines `INDEX OUTCOME` (0-based
    /// record; ok, dropped, aborted, fcs_error, runt, fragment, too_long, error_character,
    /// truncated, bad_preamble), or the expected.json of `baser gen`. A frame is then judged
    /// by its outcome.
    #[arg(long, requires = "frames")]
    pub outcomes: Option<PathBuf>,
    /// Read a .bits DUT stream as a receiver sees it (nothing decoded before lock) instead of
    /// offline (the boundary found first, every frame from the first whole block judged).
    #[arg(long, requires = "frames")]
    pub receiver_view: bool,
    /// Divergences shown in detail.
    #[arg(long, default_value_t = 10)]
    pub max_report: usize,
    /// Write the DUT stream's functional coverage (JSON; see `baser coverage`).
    #[arg(long, requires = "frames")]
    pub coverage: Option<PathBuf>,
    /// Write the JSON report here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the JUnit XML report here.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write a self-contained HTML report here (verdict, first divergence lane by lane,
    /// timeline, frames; with --coverage the coverage too).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Line rate and FEC: with --fec the DUT's .bits line is decoded through the FEC first
    /// (lock from any bit offset), and the FEC's counters join the checks.
    #[command(flatten)]
    pub fec: FecRxArgs,
}

/// `baser check`.
///
/// # Errors
/// Bad usage, unreadable input or an unwritable report.
pub fn check(a: CheckArgs, out: Output) -> Result<Verdict, Error> {
    command::check_outputs(
        &[
            a.frames.as_deref(),
            a.xgmii.as_deref(),
            Some(&a.dut),
            a.outcomes.as_deref(),
        ],
        &[
            a.coverage.as_deref(),
            a.json.as_deref(),
            a.junit.as_deref(),
            a.html.as_deref(),
        ],
    )?;
    let reports = command::Reports {
        json: a.json,
        junit: a.junit,
        html: a.html,
        max_report: a.max_report,
    };
    match (a.frames, a.xgmii) {
        (None, Some(xgmii)) => {
            if a.fec.is_on() {
                return Err(Error::Usage(format!(
                    "{}: --xgmii checks the PCS's blocks bit for bit, above the FEC (a .b66 \
                     stream holds no FEC): give it without --fec, or turn a FEC'd line into \
                     its blocks first (`baser convert LINE.bits PCS.b66 --fec ...`)",
                    a.dut.display()
                )));
            }
            if command::kind_of(&a.dut, a.dut_format)? != Kind::B66 {
                return Err(Error::Usage(format!(
                    "{}: --xgmii checks a .b66 DUT stream",
                    a.dut.display()
                )));
            }
            let opt = pcs_check::PcsCheckOptions {
                xgmii,
                dut: a.dut,
                profile: a.profile,
                dut_offset: a.dut_offset,
                max_report: a.max_report,
                strict_start: a.strict_start,
                window: reports.html.is_some(),
            };
            let (rep, cases) = pcs_check::run(&opt)?;
            finish_pcs_check(&rep, &cases, &reports, out)
        }
        (Some(frames), None) => {
            let opt = FrameCheckArgs {
                frames,
                dut: a.dut,
                blocks: a.blocks,
                ifg: a.ifg,
                fcs_included: a.fcs_included,
                profile: a.profile,
                outcomes: a.outcomes,
                dut_format: a.dut_format,
                strict_start: a.strict_start,
                max_frame_length: a.max_frame_length,
                receiver_view: a.receiver_view,
                coverage: a.coverage,
                ber_timer: a.ber_timer,
                fec: a.fec,
            };
            check_frames(&opt, &reports, out)
        }
        _ => Err(Error::Usage(
            "check needs --frames EXPECTED.pcap or --xgmii INPUT.xgmii, and --dut".into(),
        )),
    }
}
