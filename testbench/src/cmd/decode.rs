//! `baser decode`: a stream file through the engine's RX chain, with a summary.

use crate::command::{
    self, create, kind_of, progress_bar, Error, FecRxArgs, Kind, Output, Verdict,
};
use crate::report;
use crate::sinks::DecodeSinks;
use crate::stream;
use baser_engine::coverage::Collector;
use baser_engine::decode_report::DecodeReport;
use baser_engine::fec::{Fec, FecSummary};
use baser_engine::inject::{Fault, FaultChannel};
use baser_engine::options::BerTimer;
use baser_engine::rx::{FrameCounts, PcsSummary};
use baser_engine::{Options, Profile};
use baser_files::b66::Scrambling;
use baser_files::pcap::FrameWriter;
use baser_files::xgmii::XgmiiWriter;
use baser_files::InputError;
use mac_core::frame::MAX_FRAME_OCTETS;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Options of `baser decode`.
#[derive(clap::Args, Debug)]
pub struct DecodeArgs {
    /// The stream: .bits (any bit offset), .b66 (scrambled or not) or .xgmii.
    pub input: PathBuf,
    /// Write the received frames (without FCS) to a pcap file.
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Write the decoded XGMII transfers.
    #[arg(long)]
    pub xgmii: Option<PathBuf>,
    /// Write the summary as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Longest good frame, FCS included (1518 allows 1522 with a VLAN tag). Default: the
    /// profile's: 1518 for ieee, none for verilog-ethernet (its MAC checks no length).
    #[arg(long)]
    pub max_frame_length: Option<u16>,
    /// Compatibility profile.
    #[arg(long, value_parser = command::profile_parser(), default_value_t = Profile::Ieee)]
    pub profile: Profile,
    /// The BER monitor's timer (125us_timer, 49.2.13.2.5) in blocks or time: 125us (the
    /// standard's), 100blocks, 640ns. An RTL bench that shortens its timer (verilog-ethernet's
    /// COUNT_125US, in blocks) gives the same here, or hi_ber raised before lock holds the
    /// model's link down far longer than the DUT's.
    #[arg(long, default_value_t = BerTimer::default())]
    pub ber_timer: BerTimer,
    /// Events (E transitions, link fault changes) listed in detail.
    #[arg(long, default_value_t = 20)]
    pub max_report: usize,
    /// Put a fault on the line before the receiver (see `encode --inject`). For .bits input,
    /// block numbers count 66-bit chunks from the file's first bit. Reads the input whole.
    #[arg(long, value_parser = command::parse_fault)]
    pub inject: Vec<Fault>,
    /// What the input holds, where its extension does not say (default: by its content).
    #[arg(long, value_enum)]
    pub format: Option<Kind>,
    /// A .bits input is decoded offline: its block boundary is found first, then it is decoded
    /// from the first whole block (frames sent before a receiver would lock are decoded too).
    /// Default: as a receiver sees it.
    #[arg(long)]
    pub offline: bool,
    /// Leading all-zero blocks with header 0 (reset fill) are blocks like any other.
    #[arg(long)]
    pub strict_start: bool,
    /// Write the stream's functional coverage (JSON; see `baser coverage`).
    #[arg(long)]
    pub coverage: Option<PathBuf>,
    /// Line rate and FEC.
    #[command(flatten)]
    pub fec: FecRxArgs,
}

/// `baser decode`.
///
/// # Errors
/// Unreadable input or unwritable output.
pub fn decode(a: &DecodeArgs, out: Output) -> Result<Verdict, Error> {
    command::check_outputs(
        &[Some(&a.input)],
        &[
            a.pcap.as_deref(),
            a.xgmii.as_deref(),
            a.json.as_deref(),
            a.coverage.as_deref(),
        ],
    )?;
    let kind = kind_of(&a.input, a.format)?;
    if kind == Kind::Frames {
        return Err(Error::Usage(format!(
            "{}: decode reads .bits, .b66 or .xgmii",
            a.input.display()
        )));
    }
    let made_by = format!(
        "decoded by baser {} from {}",
        env!("CARGO_PKG_VERSION"),
        a.input.display()
    );
    let list = out.verbose > 0 && !out.quiet;
    if list {
        println!("baser decode: {}: received frames", a.input.display());
    }
    let mut sinks = DecodeSinks {
        list,
        coverage: a
            .coverage
            .as_ref()
            .map(|_| Collector::new(&a.input.display().to_string(), 12)),
        rate: a.fec.line.rate,
        ..DecodeSinks::none()
    };
    if let Some(p) = &a.xgmii {
        sinks.xgmii = Some((
            p.clone(),
            XgmiiWriter::new(create(p)?, &[&made_by]).map_err(|e| Error::Output(p.clone(), e))?,
        ));
    }
    if let Some(p) = &a.pcap {
        sinks.pcap = Some((
            p.clone(),
            FrameWriter::new(create(p)?).map_err(|e| Error::Output(p.clone(), e))?,
        ));
    }
    let opt = Options {
        profile: a.profile,
        max_frame_length: a.max_frame_length,
        max_events: a.max_report,
        strict_start: a.strict_start,
        ber_timer: a.ber_timer,
        rate: a.fec.line.rate,
        fec: a.fec.options()?,
        ..Options::default()
    };
    let opt = opt.rx();
    let view = if a.offline {
        baser_engine::live::RxView::Offline
    } else {
        baser_engine::live::RxView::Receiver
    };
    let bar = progress_bar(&a.input, out);
    let mut fec_summary = None;
    let (pcs, counts, mut sinks) = if a.fec.line.fec != Fec::None {
        let (pcs, counts, sinks, summary) =
            decode_fec(a, kind, &opt, view, sinks, &|n| bar.set(n))?;
        fec_summary = Some(summary);
        (pcs, counts, sinks)
    } else if a.inject.is_empty() {
        stream::decode_kind(kind.name(), &a.input, &opt, view, sinks, &|n| bar.set(n))?
    } else {
        let bytes = injected_line(&a.input, kind, &a.inject)?;
        let label = a.input.with_extension("bits");
        stream::decode_bytes("bits", &bytes, &label, &opt, view, sinks, &|n| bar.set(n))?
    };
    bar.done();
    let mut pcs = pcs;
    if a.inject.is_empty() && kind == Kind::B66 {
        pcs.hints
            .extend(stream::swapped_headers_hint(&a.input, &opt, &pcs)?);
    }
    if let (Some(p), Some(c)) = (&a.coverage, sinks.coverage.take()) {
        let fec = a.fec.options()?;
        crate::sinks::write_coverage(p, c, &pcs, fec_summary.as_ref().map(|f| (f, &fec)))?;
    }
    if let Some((p, w)) = sinks.xgmii.take() {
        w.finish().map_err(|e| Error::Output(p, e))?;
    }
    if let Some((p, w)) = sinks.pcap.take() {
        w.finish().map_err(|e| Error::Output(p, e))?;
    }
    let clean = baser_engine::decode_report::clean(&pcs, &counts)
        && fec_summary.as_ref().is_none_or(FecSummary::clean);
    let verdict = if clean { Verdict::Pass } else { Verdict::Fail };
    if let Some(p) = &a.json {
        let mut doc = DecodeReport::new(
            a.input.display().to_string(),
            a.profile,
            pcs.clone(),
            counts.clone(),
        );
        if let Some(f) = &fec_summary {
            doc = doc.with_fec(f.clone());
        }
        report::write_json(p, &doc).map_err(|e| Error::Output(p.clone(), e))?;
    }
    if !out.quiet {
        print_pcs_summary(
            &a.input,
            &pcs,
            a.max_report,
            a.ber_timer.at(a.fec.line.rate),
        );
        if let Some(f) = &fec_summary {
            print_fec_summary(f, a.max_report);
        }
        print_frames(&counts);
        if let Some(h) = too_long_hint(a, &counts, sinks.longest_too_long) {
            println!("  hint: {h}");
        }
        println!("{}", if clean { "CLEAN" } else { "ERRORS (exit 1)" });
    }
    Ok(verdict)
}

/// The frames line: by class, and those received while the link was down apart.
fn print_frames(counts: &FrameCounts) {
    let classes = |m: &std::collections::BTreeMap<String, u64>| {
        if m.is_empty() {
            return "none".to_string();
        }
        let c: Vec<String> = m.iter().map(|(k, v)| format!("{k} {v}")).collect();
        c.join(", ")
    };
    if counts.while_link_down.is_empty() {
        println!("  frames: {} ({})", counts.total, classes(&counts.by_class));
        return;
    }
    let judged = counts.judged();
    let down: u64 = counts.while_link_down.values().sum();
    println!(
        "  frames: {} while the link was up ({}); {down} more while it was down, not judged ({})",
        judged.values().sum::<u64>(),
        classes(&judged),
        classes(&counts.while_link_down)
    );
}

/// Which option accepts the frames classed too long, when some were.
fn too_long_hint(a: &DecodeArgs, counts: &FrameCounts, longest: Option<usize>) -> Option<String> {
    let n = counts
        .judged()
        .get("too_long")
        .copied()
        .filter(|&n| n > 0)?;
    let longest = longest?;
    let limit = match a.max_frame_length.or(a.profile.max_frame_length()) {
        Some(1518) => "1518 octets with the FCS (1522 with a VLAN tag)".to_string(),
        Some(m) => format!("{m} octets with the FCS"),
        None => format!("the model's receive buffer ({MAX_FRAME_OCTETS} octets)"),
    };
    let accept = if longest > MAX_FRAME_OCTETS {
        format!("longer than the model's receive buffer ({MAX_FRAME_OCTETS} octets), which no option raises")
    } else {
        format!("--max-frame-length {longest} accepts them (check takes its limit from the expected frames)")
    };
    let frames = if n == 1 { "frame" } else { "frames" };
    Some(format!(
        "{n} {frames} too_long: longer than {limit}, the longest {longest} octets with its FCS; {accept}"
    ))
}

/// The line bits of a `.b66` or `.bits` input after the fault channel.
fn injected_line(path: &Path, kind: Kind, faults: &[Fault]) -> Result<Vec<u8>, Error> {
    let mut channel = FaultChannel::new(faults);
    match kind {
        Kind::B66 => {
            let file = File::open(path).map_err(|e| InputError::io(path, &e))?;
            let reader = baser_files::b66::B66Reader::new(std::io::BufReader::new(file), path)?;
            let header = reader.header();
            // Unscrambled dumps are scrambled first: the channel is the line.
            let mut scrambler = (header.scrambling == Scrambling::Unscrambled).then(|| {
                pcs_core::Scrambler::new(
                    header
                        .scrambler_state
                        .unwrap_or(pcs_core::SCRAMBLER_DEFAULT_STATE),
                )
            });
            for b in reader {
                let mut b = b?;
                if let Some(s) = scrambler.as_mut() {
                    b.payload = s.scramble(b.payload);
                }
                channel.push(b);
            }
        }
        Kind::Bits => {
            let bytes = std::fs::read(path).map_err(|e| InputError::io(path, &e))?;
            let mut gb = pcs_core::RxGearbox::<u8>::new();
            for rb in gb.blocks(&bytes) {
                channel.push(rb.block);
            }
        }
        _ => {
            return Err(Error::Usage(format!(
                "{}: --inject needs a .b66 or .bits input",
                path.display()
            )));
        }
    }
    Ok(channel.finish())
}

/// When `hi_ber` raised before block lock still held the link down after lock and the BER
/// timer is the standard's: the option that shortens it as an RTL bench does.
fn ber_timer_hint(p: &PcsSummary, ber_timer: BerTimer) -> Option<String> {
    if !ber_timer.is_standard() {
        return None;
    }
    let lock = p.lock_acquired?.block;
    let rose = *p.hi_ber_before_lock.first()?;
    let cleared = p.hi_ber_clears.iter().find(|&&c| c > rose);
    if cleared.is_some_and(|&c| c <= lock) {
        return None;
    }
    let until = cleared.map_or("the end of the stream".into(), |c| format!("block {c}"));
    Some(format!(
        "hi_ber rose before block lock (the profile's BER monitor counts the lock search's invalid headers) and held the link down from lock (block {lock}) to {until}: it clears after a clean BER timer window ({ber_timer}); where the RTL bench shortens its timer (verilog-ethernet's COUNT_125US, in blocks), --ber-timer Nblocks gives the model the same"
    ))
}

fn print_pcs_summary(input: &Path, p: &PcsSummary, max: usize, ber_timer: BerTimer) {
    println!("baser decode: {} ({} blocks)", input.display(), p.blocks);
    if !ber_timer.is_standard() {
        println!(
            "  BER timer {ber_timer} (--ber-timer; the standard's is {})",
            BerTimer::default()
        );
    }
    match command::lock_line(p) {
        Some(l) => println!("  {l}"),
        None => println!("  XGMII input: no PCS (MAC RX and link fault only)"),
    }
    if let Some(l) = command::prelude_line(p) {
        println!("  {l}");
    }
    for (loss, re) in p.lock_losses.iter().zip(&p.relocks) {
        println!(
            "  lock lost at block {loss}, regained at block {} (bit offset {}, {} slips so far)",
            re.block, re.bit_offset, re.slips
        );
    }
    for (i, rise) in p.hi_ber_episodes.iter().enumerate() {
        match p.hi_ber_clears.get(i) {
            Some(c) => println!("  hi_ber from block {rise} to block {c}"),
            None => println!("  hi_ber from block {rise} to the end"),
        }
    }
    println!(
        "  lock losses {}, hi_ber episodes {}, invalid sync headers {}, errored blocks (RX_E) {}",
        p.lock_losses.len(),
        p.hi_ber_episodes.len(),
        p.invalid_headers,
        p.errored_blocks
    );
    for e in p.e_transitions.iter().take(max) {
        println!("    block {}: {}", e.block, e.what);
    }
    if p.errored_blocks as usize > p.e_transitions.len().min(max) {
        println!(
            "    ... {} more",
            p.errored_blocks as usize - p.e_transitions.len().min(max)
        );
    }
    if let Some(b) = p.hi_ber_before_lock.first() {
        println!(
            "  hi_ber rose before block lock at block {b} (the profile's BER monitor runs unlocked; not counted as an episode)"
        );
    }
    if p.frames_while_link_down > 0 {
        println!(
            "  {} frames decoded while the link was down (the profile's decoder decodes then; no receiver counts them, nor does the verdict)",
            p.frames_while_link_down
        );
        for f in p.link_down_frames.iter().take(max) {
            println!(
                "    frame {} at block {}: {}, {}",
                f.index,
                f.block,
                f.class,
                f.cause.describe()
            );
        }
        if let Some(h) = ber_timer_hint(p, ber_timer) {
            println!("  hint: {h}");
        }
    }
    println!("  link fault: {}", p.link_fault);
    for h in &p.hints {
        println!("  hint: {h}");
    }
    for e in p.link_fault_changes.iter().take(max) {
        println!("    block {}: {}", e.block, e.what);
    }
}

/// A `.bits` stream through the RX chain below a FEC (the FEC locks from any bit offset; in
/// the offline view a Clause 74 line's boundary is found first); `--inject` puts its bit
/// faults on the line before the FEC.
fn decode_fec(
    a: &DecodeArgs,
    kind: Kind,
    opt: &baser_engine::rx::RxOptions,
    view: baser_engine::live::RxView,
    sinks: DecodeSinks,
    progress: &dyn Fn(u64),
) -> Result<(PcsSummary, FrameCounts, DecodeSinks, FecSummary), Error> {
    command::refuse_fec_kind(&a.input, kind)?;
    let fec = a.fec.options()?;
    let line = stream::FecLine {
        faults: &a.inject,
        ..stream::FecLine::new(&fec, view)
    };
    stream::decode_fec(&a.input, opt, line, u64::MAX, sinks, progress)
}

/// The FEC's lines of the text summary.
fn print_fec_summary(f: &FecSummary, max_report: usize) {
    let unit = f.kind.unit();
    println!("  {}", report::fec_line(f));
    for u in f.uncorrectable.iter().take(max_report) {
        let frames: Vec<String> = u.frames.iter().map(u64::to_string).collect();
        println!(
            "    uncorrectable {unit} {} (line bit {}, blocks {}..{}): received frames hit: {} (a frame whose /S/ was in it is not received at all: check names it missing)",
            u.index,
            u.bit,
            u.first_block,
            u.first_block + u64::from(u.blocks),
            if frames.is_empty() {
                "none".to_string()
            } else {
                frames.join(", ")
            }
        );
    }
}
