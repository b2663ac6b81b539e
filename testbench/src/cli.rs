//! The `baser` subcommands: argument structs and their implementations. `main.rs` only parses
//! and maps results to exit codes.

use crate::format::InputError;
use crate::pcs_check::PcsCheckReport;
use crate::report::{self, Case};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Verbosity from `--quiet` / `-v`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Output {
    /// Errors only.
    pub quiet: bool,
    /// Extra detail.
    pub verbose: u8,
}

/// Exit 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Exit 0.
    Pass,
    /// Exit 1: the DUT diverged (or a decoded stream held errors).
    Fail,
}

/// Exit 2: bad usage or unreadable input.
#[derive(Debug)]
pub enum Error {
    /// The command line does not make sense.
    Usage(String),
    /// An input file is unreadable or malformed.
    Input(InputError),
    /// An output file cannot be written.
    Output(PathBuf, std::io::Error),
    /// An output failed inside a chain (the message names the file).
    Sink(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(m) => write!(f, "{m}"),
            Self::Input(e) => write!(f, "{e}"),
            Self::Output(p, e) => write!(f, "{}: cannot write: {e}", p.display()),
            Self::Sink(e) => write!(f, "{e}"),
        }
    }
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        Self::Input(e)
    }
}

/// What a stream file holds, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// pcap or pcapng frames.
    Frames,
    /// `.xgmii` text.
    Xgmii,
    /// `.b66` text.
    B66,
    /// `.bits` binary.
    Bits,
}

/// The kind of a file by its extension.
///
/// # Errors
/// An extension baser does not read.
pub fn kind_of(path: &Path) -> Result<Kind, Error> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("pcap" | "pcapng" | "cap") => Ok(Kind::Frames),
        Some("xgmii") => Ok(Kind::Xgmii),
        Some("b66") => Ok(Kind::B66),
        Some("bits") => Ok(Kind::Bits),
        _ => Err(Error::Usage(format!(
            "{}: unknown file kind: expected .pcap, .pcapng, .xgmii, .b66 or .bits",
            path.display()
        ))),
    }
}

/// Where reports go.
#[derive(Clone, Debug, Default)]
pub struct Reports {
    /// JSON report file.
    pub json: Option<PathBuf>,
    /// JUnit XML file.
    pub junit: Option<PathBuf>,
    /// Divergences shown in detail.
    pub max_report: usize,
}

impl Reports {
    /// Writes the JSON and JUnit reports that were asked for.
    ///
    /// # Errors
    /// A report file cannot be written.
    pub fn write<T: serde::Serialize>(
        &self,
        suite: &str,
        json: &T,
        cases: &[Case],
    ) -> Result<(), Error> {
        if let Some(p) = &self.json {
            report::write_json(p, json).map_err(|e| Error::Output(p.clone(), e))?;
        }
        if let Some(p) = &self.junit {
            report::write_junit(p, suite, cases).map_err(|e| Error::Output(p.clone(), e))?;
        }
        Ok(())
    }
}

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
        let _ = writeln!(
            o,
            "  {} blocks compared, {} differ; DUT missing {} blocks, extra {}",
            rep.counts.blocks_compared,
            rep.counts.blocks_divergent,
            rep.counts.dut_missing_blocks,
            rep.counts.dut_extra_blocks
        );
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

use crate::format::b66::{B66Header, B66Writer, Scrambling};
use crate::format::bits::BitsWriter;
use crate::format::pcap::{FrameReader, FrameWriter};
use crate::format::vcd::VcdWriter;
use crate::format::xgmii::{XgmiiReader, XgmiiWriter};
use crate::stream;
use baser_engine::inject::{Fault, FaultChannel};
use baser_engine::judge::{self, Comparison, Expected, Status};
use baser_engine::rx::{FrameCounts, FrameRef, PcsSummary, ReceivedFrame, RxOptions, RxSink};
use baser_engine::tx::{TxBatch, TxChain, TxForms, TxOptions, TxSink};
use baser_engine::Profile;
use mac_core::frame::{MaxFrameLength, Padding};
use mac_core::rx::RxConfig;
use mac_core::tx::{DicMode, TxConfig};
use pcs_core::gearbox::PartialWord;
use pcs_core::Block;
use serde::Serialize;
use std::fs::File;
use std::io::BufWriter;

/// Options of `baser encode`.
#[derive(clap::Args, Debug)]
pub struct EncodeArgs {
    /// Frames (.pcap/.pcapng) or an XGMII trace (.xgmii, skips the MAC).
    pub input: PathBuf,
    /// Write the XGMII transfers.
    #[arg(long)]
    pub xgmii: Option<PathBuf>,
    /// Write the scrambled 66-bit blocks.
    #[arg(long)]
    pub b66: Option<PathBuf>,
    /// Write the 66-bit blocks before the scrambler.
    #[arg(long)]
    pub b66_unscrambled: Option<PathBuf>,
    /// Write the serial bit stream.
    #[arg(long)]
    pub bits: Option<PathBuf>,
    /// Write a VCD waveform (XGMII and blocks).
    #[arg(long)]
    pub vcd: Option<PathBuf>,
    /// Inter-frame gap in octets, /T/ included.
    #[arg(long, default_value_t = 12)]
    pub ifg: u16,
    /// Deficit idle count off: the gap is rounded up to the next column start.
    #[arg(long)]
    pub no_dic: bool,
    /// Scrambler state before the first block (hex, 58 bits; bit 57 = newest line bit).
    #[arg(long, value_parser = parse_seed)]
    pub seed: Option<u64>,
    /// The capture's records include the FCS (sent as captured, not recomputed).
    #[arg(long)]
    pub fcs_included: bool,
    /// Idle transfers before the first frame, for the receiver to acquire block lock.
    #[arg(long, default_value_t = 128)]
    pub idle_blocks: u64,
    /// Send short frames unpadded (runts).
    #[arg(long)]
    pub no_pad: bool,
    /// Compatibility profile.
    #[arg(long, value_parser = crate::cli::profile_parser(), default_value_t = Profile::Ieee)]
    pub profile: Profile,
    /// Put a fault on the line (.b66 and .bits outputs): flip:BIT, burst:BIT:LEN,
    /// ber:RATE[:SEED], header:BLOCK, slip:BIT:+N|-N, drop:BLOCK, dup:BLOCK. Repeatable.
    #[arg(long, value_parser = parse_fault)]
    pub inject: Vec<Fault>,
}

/// The `--profile` parser: the engine's profile names, listed in `--help`.
pub fn profile_parser() -> impl clap::builder::TypedValueParser<Value = Profile> {
    use clap::builder::TypedValueParser;
    let names: Vec<&'static str> = Profile::ALL.iter().map(|p| p.name()).collect();
    clap::builder::PossibleValuesParser::new(names).map(|s| s.parse().unwrap_or_default())
}

fn parse_fault(s: &str) -> Result<Fault, String> {
    Fault::parse(s)
}

fn parse_seed(s: &str) -> Result<u64, String> {
    let hex = s.trim_start_matches("0x").trim_start_matches("0X");
    let v = u64::from_str_radix(hex, 16).map_err(|e| format!("`{s}`: {e} (expected hex)"))?;
    if v >> 58 != 0 {
        return Err(format!("`{s}` has more than 58 bits"));
    }
    Ok(v)
}

/// The file sinks of `baser encode`.
struct FileSinks {
    xgmii: Option<(PathBuf, XgmiiWriter<BufWriter<File>>)>,
    b66: Option<(PathBuf, B66Writer<BufWriter<File>>)>,
    b66u: Option<(PathBuf, B66Writer<BufWriter<File>>)>,
    bits: Option<(PathBuf, BitsWriter<BufWriter<File>>)>,
    vcd: Option<(PathBuf, VcdWriter<BufWriter<File>>)>,
    /// With `--inject`, the line blocks go through this channel before `.b66`/`.bits`.
    channel: Option<FaultChannel>,
}

fn io_err(p: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Output(p.to_path_buf(), e)
}

/// An output error that names the file, for errors that pass through the engine.
fn named(p: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: cannot write: {e}", p.display()))
}

fn create(p: &Path) -> Result<BufWriter<File>, Error> {
    File::create(p)
        .map(|f| BufWriter::with_capacity(1 << 16, f))
        .map_err(|e| Error::Output(p.to_path_buf(), e))
}

/// Writes each item of `items` with `write`, naming the file in an error.
fn write_all<W, T: Copy>(
    out: &mut Option<(PathBuf, W)>,
    items: &[T],
    mut write: impl FnMut(&mut W, T) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if let Some((p, w)) = out.as_mut() {
        for &x in items {
            write(w, x).map_err(|e| named(p, e))?;
        }
    }
    Ok(())
}

impl TxSink for FileSinks {
    fn forms(&self) -> TxForms {
        TxForms {
            unscrambled: self.b66u.is_some(),
            serial: self.bits.is_some() && self.channel.is_none(),
        }
    }

    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        write_all(&mut self.xgmii, b.words, |w, x| w.write(x))?;
        write_all(&mut self.b66u, b.unscrambled.unwrap_or_default(), |w, x| {
            w.write(x)
        })?;
        if let Some((p, w)) = self.vcd.as_mut() {
            for (word, line) in b.words.iter().zip(b.line) {
                w.write(*word, *line).map_err(|e| named(p, e))?;
            }
        }
        if let Some(c) = self.channel.as_mut() {
            for &line in b.line {
                c.push(line);
            }
            return Ok(());
        }
        write_all(&mut self.b66, b.line, |w, x| w.write(x))?;
        if let Some((p, w)) = self.bits.as_mut() {
            w.write_words(b.serial).map_err(|e| named(p, e))?;
        }
        Ok(())
    }

    fn end(&mut self, tail: Option<PartialWord<u64>>) -> std::io::Result<()> {
        if self.channel.is_none() {
            if let Some((p, w)) = self.bits.take() {
                w.finish(tail).map_err(|e| named(&p, e))?;
            }
        }
        Ok(())
    }
}

/// `baser encode`.
///
/// # Errors
/// Unreadable input, a frame the MAC cannot send, or an unwritable output.
pub fn encode(a: &EncodeArgs, out: Output) -> Result<Verdict, Error> {
    let kind = kind_of(&a.input)?;
    if !matches!(kind, Kind::Frames | Kind::Xgmii) {
        return Err(Error::Usage(format!(
            "{}: encode reads frames (.pcap/.pcapng) or an .xgmii trace",
            a.input.display()
        )));
    }
    let seed = a.seed.unwrap_or(pcs_core::scramble::DEFAULT_STATE);
    let input_name = a.input.file_name().map_or_else(
        || a.input.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut options = String::new();
    for (on, flag) in [
        (a.no_dic, " --no-dic"),
        (a.no_pad, " --no-pad"),
        (a.fcs_included, " --fcs-included"),
    ] {
        if on {
            options.push_str(flag);
        }
    }
    if a.ifg != 12 {
        options.push_str(&format!(" --ifg {}", a.ifg));
    }
    if a.idle_blocks != 128 {
        options.push_str(&format!(" --idle-blocks {}", a.idle_blocks));
    }
    if a.profile != Profile::Ieee {
        options.push_str(&format!(" --profile {}", a.profile.name()));
    }
    let made_by = format!(
        "made by baser {} encode {input_name}{options}",
        env!("CARGO_PKG_VERSION")
    );
    if a.b66.is_some() && a.inject.iter().any(Fault::moves_boundary) {
        return Err(Error::Usage(
            "--inject slip moves the block boundary, which a .b66 file cannot hold: write --bits"
                .into(),
        ));
    }
    let mut sinks = FileSinks {
        xgmii: None,
        b66: None,
        b66u: None,
        bits: None,
        vcd: None,
        channel: (!a.inject.is_empty()).then(|| FaultChannel::new(&a.inject)),
    };
    if let Some(p) = &a.xgmii {
        sinks.xgmii = Some((
            p.clone(),
            XgmiiWriter::new(create(p)?, &[&made_by]).map_err(io_err(p))?,
        ));
    }
    if let Some(p) = &a.b66 {
        let h = B66Header {
            scrambling: Scrambling::Scrambled,
            scrambler_state: Some(seed),
        };
        sinks.b66 = Some((p.clone(), B66Writer::new(create(p)?, h).map_err(io_err(p))?));
    }
    if let Some(p) = &a.b66_unscrambled {
        let h = B66Header {
            scrambling: Scrambling::Unscrambled,
            scrambler_state: None,
        };
        sinks.b66u = Some((p.clone(), B66Writer::new(create(p)?, h).map_err(io_err(p))?));
    }
    if let Some(p) = &a.bits {
        sinks.bits = Some((p.clone(), BitsWriter::new(create(p)?)));
    }
    if let Some(p) = &a.vcd {
        sinks.vcd = Some((p.clone(), VcdWriter::new(create(p)?).map_err(io_err(p))?));
    }
    let opt = TxOptions {
        mac: TxConfig {
            ifg_octets: a.ifg,
            dic: if a.no_dic {
                DicMode::Off
            } else {
                a.profile.dic()
            },
            padding: if a.no_pad {
                Padding::Off
            } else {
                Padding::default()
            },
        },
        profile: a.profile,
        seed,
        idle_blocks: if kind == Kind::Xgmii {
            0
        } else {
            a.idle_blocks
        },
    };
    let mut chain = TxChain::new(&opt, sinks);
    let mut frames = 0u64;
    match kind {
        Kind::Frames => {
            for f in FrameReader::open(&a.input, a.fcs_included)? {
                let f = f?;
                chain.frame(&f.data, f.fcs).map_err(|e| {
                    Error::Input(InputError::file(
                        &a.input,
                        format!("record {}: the MAC cannot send it: {e}", f.index),
                    ))
                })?;
                frames += 1;
            }
        }
        _ => {
            let file = File::open(&a.input).map_err(|e| InputError::io(&a.input, &e))?;
            let mut piece = Vec::with_capacity(4096);
            for w in XgmiiReader::new(std::io::BufReader::with_capacity(1 << 16, file), &a.input) {
                piece.push(w?);
                if piece.len() == piece.capacity() {
                    chain.words(&piece);
                    piece.clear();
                }
            }
            chain.words(&piece);
        }
    }
    let (sinks, totals) = if kind == Kind::Frames {
        chain.finish()
    } else {
        chain.end()
    }
    .map_err(Error::Sink)?;
    let blocks = totals.blocks;
    let FileSinks {
        xgmii,
        mut b66,
        b66u,
        bits,
        vcd,
        channel,
        ..
    } = sinks;
    let mut flipped = 0;
    if let Some(mut c) = channel {
        // The faulty line: bytes for .bits, re-cut into 66-bit blocks for .b66.
        flipped = c.flipped.len();
        let bytes = c.finish();
        if let Some((p, w)) = &bits {
            let _ = w;
            std::fs::write(p, &bytes).map_err(io_err(p))?;
        }
        if let Some((p, w)) = b66.as_mut() {
            let mut gb = pcs_core::gearbox::RxGearbox::<u8>::new();
            for rb in gb.blocks(&bytes) {
                w.write(rb.block).map_err(io_err(p))?;
            }
        }
    }
    let bits = if a.inject.is_empty() { bits } else { None };
    if let Some((p, w)) = xgmii {
        w.finish().map_err(io_err(&p))?;
    }
    if let Some((p, w)) = b66 {
        w.finish().map_err(io_err(&p))?;
    }
    if let Some((p, w)) = b66u {
        w.finish().map_err(io_err(&p))?;
    }
    if let Some((p, w)) = bits {
        w.finish(None).map_err(io_err(&p))?;
    }
    if let Some((p, w)) = vcd {
        w.finish().map_err(io_err(&p))?;
    }
    if !out.quiet {
        println!(
            "baser encode: {} -> {} frames, {} blocks ({} idle blocks first, IFG {}, DIC {}, scrambler state 0x{seed:015x}, profile {})",
            a.input.display(),
            frames,
            blocks,
            opt.idle_blocks,
            a.ifg,
            if a.no_dic { "off" } else { "on" },
            a.profile.name()
        );
        if !a.inject.is_empty() {
            println!(
                "  --inject: {} fault(s) on the line (.b66/.bits), {flipped} line bits flipped",
                a.inject.len()
            );
        }
    }
    Ok(Verdict::Pass)
}

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
    /// Longest good frame, FCS included (1518 allows 1522 with a VLAN tag).
    #[arg(long, default_value_t = 1518)]
    pub max_frame_length: u16,
    /// Compatibility profile.
    #[arg(long, value_parser = crate::cli::profile_parser(), default_value_t = Profile::Ieee)]
    pub profile: Profile,
    /// Events (E transitions, link fault changes) listed in detail.
    #[arg(long, default_value_t = 20)]
    pub max_report: usize,
    /// Put a fault on the line before the receiver (see `encode --inject`). For .bits input,
    /// block numbers count 66-bit chunks from the file's first bit. Reads the input whole.
    #[arg(long, value_parser = parse_fault)]
    pub inject: Vec<Fault>,
}

fn max_frame(n: u16) -> MaxFrameLength {
    if n == 1518 {
        MaxFrameLength::Basic
    } else {
        MaxFrameLength::Octets(n)
    }
}

/// Writes decoded transfers and frames to files, and keeps what a check needs.
struct DecodeSinks {
    xgmii: Option<(PathBuf, XgmiiWriter<BufWriter<File>>)>,
    pcap: Option<(PathBuf, FrameWriter<BufWriter<File>>)>,
    frames: Option<Vec<ReceivedFrame>>,
    blocks: Option<Vec<Block>>,
}

impl RxSink for DecodeSinks {
    fn wants_blocks(&self) -> bool {
        self.blocks.is_some()
    }

    fn words(
        &mut self,
        _first: u64,
        words: &[pcs_core::XgmiiWord],
        blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        if let (Some(keep), Some(b)) = (self.blocks.as_mut(), blocks) {
            keep.extend_from_slice(b);
        }
        write_all(&mut self.xgmii, words, |w, x| w.write(x))
    }

    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        if let Some((p, w)) = self.pcap.as_mut() {
            let ns = (f.start.block * 8 + f.start.lane as u64) * 800 / 1000;
            w.write(std::time::Duration::from_nanos(ns), f.content())
                .map_err(|e| named(p, e))?;
        }
        if let Some(v) = self.frames.as_mut() {
            v.push(f.to_owned());
        }
        Ok(())
    }
}

/// The JSON document of `baser decode`.
#[derive(Serialize)]
struct DecodeReport<'a> {
    input: String,
    profile: &'static str,
    verdict: &'static str,
    pcs: &'a PcsSummary,
    frames: &'a FrameCounts,
}

/// `baser decode`.
///
/// # Errors
/// Unreadable input or unwritable output.
pub fn decode(a: &DecodeArgs, out: Output) -> Result<Verdict, Error> {
    let kind = kind_of(&a.input)?;
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
    let mut sinks = DecodeSinks {
        xgmii: None,
        pcap: None,
        frames: None,
        blocks: None,
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
    let opt = RxOptions {
        profile: a.profile,
        mac: RxConfig {
            max_frame_length: max_frame(a.max_frame_length),
        },
        max_events: a.max_report,
    };
    let bar = progress_bar(&a.input, out);
    let (pcs, counts, mut sinks) = if a.inject.is_empty() {
        stream::decode_path(&a.input, &opt, sinks, &|n| bar.set(n))?
    } else {
        let bytes = injected_line(&a.input, kind, &a.inject)?;
        let label = a.input.with_extension("bits");
        stream::decode_reader("bits", &bytes[..], &label, &opt, sinks, &|n| bar.set(n))?
    };
    bar.done();
    if let Some((p, w)) = sinks.xgmii.take() {
        w.finish().map_err(|e| Error::Output(p, e))?;
    }
    if let Some((p, w)) = sinks.pcap.take() {
        w.finish().map_err(|e| Error::Output(p, e))?;
    }
    let clean = pcs.clean() && counts.by_class.keys().all(|k| k == "ok");
    let verdict = if clean { Verdict::Pass } else { Verdict::Fail };
    if let Some(p) = &a.json {
        let doc = DecodeReport {
            input: a.input.display().to_string(),
            profile: a.profile.name(),
            verdict: if clean { "pass" } else { "fail" },
            pcs: &pcs,
            frames: &counts,
        };
        report::write_json(p, &doc).map_err(|e| Error::Output(p.clone(), e))?;
    }
    if !out.quiet {
        print_pcs_summary(&a.input, &pcs, a.max_report);
        let classes: Vec<String> = counts
            .by_class
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!(
            "  frames: {} ({})",
            counts.total,
            if classes.is_empty() {
                "none".into()
            } else {
                classes.join(", ")
            }
        );
        println!("{}", if clean { "CLEAN" } else { "ERRORS (exit 1)" });
    }
    Ok(verdict)
}

/// The line bits of a `.b66` or `.bits` input after the fault channel.
fn injected_line(path: &Path, kind: Kind, faults: &[Fault]) -> Result<Vec<u8>, Error> {
    let mut channel = FaultChannel::new(faults);
    match kind {
        Kind::B66 => {
            let file = File::open(path).map_err(|e| InputError::io(path, &e))?;
            let reader = crate::format::b66::B66Reader::new(std::io::BufReader::new(file), path)?;
            let header = reader.header();
            // Unscrambled dumps are scrambled first: the channel is the line.
            let mut scrambler = (header.scrambling == Scrambling::Unscrambled).then(|| {
                pcs_core::scramble::Scrambler::new(
                    header
                        .scrambler_state
                        .unwrap_or(pcs_core::scramble::DEFAULT_STATE),
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
            let mut gb = pcs_core::gearbox::RxGearbox::<u8>::new();
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

fn print_pcs_summary(input: &Path, p: &PcsSummary, max: usize) {
    println!("baser decode: {} ({} blocks)", input.display(), p.blocks);
    match &p.lock_acquired {
        Some(l) if p.input == "bits" => println!(
            "  block lock at bit offset {} after {} blocks and {} slips",
            l.bit_offset, l.block, l.slips
        ),
        Some(_) => println!("  block boundaries given by the file (lock from block 0)"),
        None if p.input == "xgmii" => {
            println!("  XGMII input: no PCS (MAC RX and link fault only)")
        }
        None => println!("  block lock never acquired"),
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
    println!("  link fault: {}", p.link_fault);
    for e in p.link_fault_changes.iter().take(max) {
        println!("    block {}: {}", e.block, e.what);
    }
}

/// A progress bar on stderr for large inputs when stderr is a terminal.
struct Bar(Option<indicatif::ProgressBar>);

impl Bar {
    fn set(&self, n: u64) {
        if let Some(b) = &self.0 {
            b.set_position(n);
        }
    }

    fn done(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

fn progress_bar(path: &Path, out: Output) -> Bar {
    use std::io::IsTerminal;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if out.quiet || size < 32 << 20 || !std::io::stderr().is_terminal() {
        return Bar(None);
    }
    // .bits reports bytes read; the text formats report lines (about 19 bytes each).
    let total = if path.extension().is_some_and(|e| e == "bits") {
        size
    } else {
        size / 19
    };
    let b = indicatif::ProgressBar::new(total);
    b.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:40}] {percent}% {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    b.set_message(format!("decoding {}", path.display()));
    Bar(Some(b))
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
    /// The expected capture includes the FCS.
    pub fcs_included: bool,
    /// Profile.
    pub profile: Profile,
}

/// The JSON document of `baser check --frames`.
#[derive(Serialize)]
struct FrameCheckReport<'a> {
    check: &'static str,
    verdict: &'static str,
    expected: String,
    dut: String,
    profile: &'static str,
    summary: FrameCheckSummary,
    frames: &'a [judge::FrameResult],
    extra_frames: &'a [judge::ExtraFrame],
    pcs: &'a PcsSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks: Option<&'a BlockComparison>,
}

#[derive(Serialize, Default)]
struct FrameCheckSummary {
    expected: usize,
    received: u64,
    matched: usize,
    reordered: usize,
    corrupted: usize,
    missing: usize,
    extra: usize,
    bad_class: usize,
}

/// The `--blocks` comparison.
#[derive(Serialize, Debug)]
pub struct BlockComparison {
    /// Index of the first start block in the model's stream and the DUT's (alignment).
    pub aligned_at: (u64, u64),
    /// Blocks compared after alignment.
    pub compared: u64,
    /// Blocks that differ.
    pub divergent: u64,
    /// The first divergence: block index in the DUT stream, both sides decoded.
    pub first: Option<(u64, String, String)>,
}

/// `baser check --frames … --dut …`.
///
/// # Errors
/// Unreadable input or unwritable report.
pub fn check_frames(a: &FrameCheckArgs, reports: &Reports, out: Output) -> Result<Verdict, Error> {
    let kind = kind_of(&a.dut)?;
    if kind == Kind::Frames {
        return Err(Error::Usage(format!(
            "{}: the DUT stream must be .bits, .b66 or .xgmii",
            a.dut.display()
        )));
    }
    let expected: Vec<Expected> = FrameReader::open(&a.frames, a.fcs_included)?
        .map(|f| {
            f.map(|f| Expected {
                index: f.index,
                data: f.data,
            })
        })
        .collect::<Result<_, _>>()?;
    let longest = expected.iter().map(|e| e.data.len() + 4).max().unwrap_or(0);
    let limit = longest.max(1518).min(u16::MAX as usize) as u16;
    let opt = RxOptions {
        profile: a.profile,
        mac: RxConfig {
            max_frame_length: max_frame(limit),
        },
        max_events: reports.max_report.max(20),
    };
    let sinks = DecodeSinks {
        xgmii: None,
        pcap: None,
        frames: Some(Vec::new()),
        blocks: (a.blocks && kind != Kind::Xgmii).then(Vec::new),
    };
    let bar = progress_bar(&a.dut, out);
    let (pcs, counts, mut sinks) = stream::decode_path(&a.dut, &opt, sinks, &|n| bar.set(n))?;
    bar.done();
    let received = sinks.frames.take().unwrap_or_default();
    let cmp = judge::compare(&expected, &received);
    let block_cmp = match sinks.blocks.take() {
        Some(dut_blocks) => Some(compare_blocks(&expected, &dut_blocks, a.profile)?),
        None => None,
    };
    let cases = frame_cases(&cmp, &pcs, block_cmp.as_ref(), &a.dut);
    let failed = cases.iter().any(Case::failed);
    let summary = FrameCheckSummary {
        expected: expected.len(),
        received: counts.total,
        matched: cmp
            .frames
            .iter()
            .filter(|f| f.status == Status::Matched)
            .count(),
        reordered: cmp
            .frames
            .iter()
            .filter(|f| f.status == Status::Reordered)
            .count(),
        corrupted: cmp
            .frames
            .iter()
            .filter(|f| f.status == Status::Corrupted)
            .count(),
        missing: cmp
            .frames
            .iter()
            .filter(|f| f.status == Status::Missing)
            .count(),
        extra: cmp.extra.len(),
        bad_class: cmp
            .frames
            .iter()
            .filter(|f| f.class.is_some_and(|c| c != "ok"))
            .count(),
    };
    if !out.quiet {
        println!(
            "baser check: {} expected frames vs DUT {} (profile {})",
            expected.len(),
            a.dut.display(),
            a.profile.name()
        );
        println!(
            "  frames: {} expected, {} received; {} matched, {} reordered, {} corrupted, {} missing, {} extra, {} with a bad MAC class",
            summary.expected, summary.received, summary.matched, summary.reordered, summary.corrupted, summary.missing, summary.extra, summary.bad_class
        );
        println!(
            "  pcs: lock {}, lock losses {}, hi_ber {}, invalid headers {}, errored blocks {}, link fault {}",
            if pcs.lock_acquired.is_some() { "acquired" } else { "never acquired" },
            pcs.lock_losses.len(),
            pcs.hi_ber_episodes.len(),
            pcs.invalid_headers,
            pcs.errored_blocks,
            pcs.link_fault
        );
        if let Some(b) = &block_cmp {
            println!(
                "  blocks: {} compared after alignment, {} differ",
                b.compared, b.divergent
            );
        }
        let stdout = std::io::stdout();
        let _ = report::write_failures(&mut stdout.lock(), &cases, reports.max_report.max(1));
        println!("{}", if failed { "FAIL" } else { "PASS" });
    }
    let doc = FrameCheckReport {
        check: "frames",
        verdict: if failed { "fail" } else { "pass" },
        expected: a.frames.display().to_string(),
        dut: a.dut.display().to_string(),
        profile: a.profile.name(),
        summary,
        frames: &cmp.frames,
        extra_frames: &cmp.extra,
        pcs: &pcs,
        blocks: block_cmp.as_ref(),
    };
    reports.write("baser check --frames", &doc, &cases)?;
    Ok(if failed { Verdict::Fail } else { Verdict::Pass })
}

/// One JUnit case per expected frame, one per extra frame, and one per PCS check.
fn frame_cases(
    cmp: &Comparison,
    pcs: &PcsSummary,
    blocks: Option<&BlockComparison>,
    dut: &Path,
) -> Vec<Case> {
    let mut cases = Vec::new();
    for f in &cmp.frames {
        let name = format!("frame {} ({} octets)", f.expected_index, f.length);
        let at = |f: &judge::FrameResult| match (f.start_block, f.start_lane) {
            (Some(b), Some(l)) => format!(
                " (DUT frame {} at block {b} lane {l})",
                f.received_index.unwrap_or(0)
            ),
            _ => String::new(),
        };
        let case = match (&f.status, f.class) {
            (Status::Matched, Some("ok")) => Case::pass("frames", name),
            (Status::Matched, Some(c)) => Case::fail(
                "frames",
                name,
                format!("received with MAC class {c}{}", at(f)),
                None,
            ),
            (Status::Reordered, c) => Case::fail(
                "frames",
                name,
                format!("received out of order{}, class {}", at(f), c.unwrap_or("?")),
                None,
            ),
            (Status::Missing, _) => Case::fail(
                "frames",
                name,
                "missing: no received frame matches it".to_string(),
                None,
            ),
            (Status::Corrupted, c) => {
                let detail = f.first_difference.as_ref().map(|d| {
                    format!(
                        "first difference at octet {}: expected {}, got {}; DUT block {} lane {}",
                        d.offset,
                        d.expected.map_or("(end)".into(), |x| format!("0x{x:02x}")),
                        d.actual.map_or("(end)".into(), |x| format!("0x{x:02x}")),
                        d.block,
                        d.lane
                    )
                });
                Case::fail(
                    "frames",
                    name,
                    format!("corrupted{}, class {}", at(f), c.unwrap_or("?")),
                    detail,
                )
            }
            (Status::Matched, None) => Case::pass("frames", name),
        };
        cases.push(case);
    }
    if cmp.extra.is_empty() {
        cases.push(Case::pass("frames", "no unexpected frames"));
    } else {
        let list: Vec<String> = cmp
            .extra
            .iter()
            .map(|x| {
                format!(
                    "DUT frame {} at block {} lane {}: {} octets, class {}{}",
                    x.received_index,
                    x.start_block,
                    x.start_lane,
                    x.length,
                    x.class,
                    x.duplicate_of.map_or(String::new(), |d| format!(
                        ", duplicate of expected frame {d}"
                    ))
                )
            })
            .collect();
        cases.push(Case::fail(
            "frames",
            "no unexpected frames",
            format!("{} unexpected frames", cmp.extra.len()),
            Some(list.join("\n")),
        ));
    }
    let pcs_case = |name: &str, ok: bool, msg: String, detail: Option<String>| {
        if ok {
            Case::pass("pcs", name)
        } else {
            Case::fail("pcs", name, msg, detail)
        }
    };
    if pcs.input != "xgmii" {
        cases.push(pcs_case(
            "block lock acquired",
            pcs.lock_acquired.is_some(),
            format!("{}: block lock never acquired", dut.display()),
            None,
        ));
        cases.push(pcs_case(
            "no lock loss",
            pcs.lock_losses.is_empty(),
            format!("lock lost at blocks {:?}", pcs.lock_losses),
            None,
        ));
        cases.push(pcs_case(
            "no hi_ber",
            pcs.hi_ber_episodes.is_empty(),
            format!("hi_ber rose at blocks {:?}", pcs.hi_ber_episodes),
            None,
        ));
        cases.push(pcs_case(
            "no invalid sync headers",
            pcs.invalid_headers == 0,
            format!("{} invalid sync headers while locked", pcs.invalid_headers),
            None,
        ));
        let e_detail = (!pcs.e_transitions.is_empty()).then(|| {
            pcs.e_transitions
                .iter()
                .map(|e| format!("block {}: {}", e.block, e.what))
                .collect::<Vec<_>>()
                .join("\n")
        });
        cases.push(pcs_case(
            "no errored blocks (RX_E)",
            pcs.errored_blocks == 0,
            format!("{} blocks entered RX_E", pcs.errored_blocks),
            e_detail,
        ));
    }
    cases.push(pcs_case(
        "no link fault",
        pcs.link_fault == "Ok",
        format!("link fault status at the end: {}", pcs.link_fault),
        None,
    ));
    if let Some(b) = blocks {
        let detail = b
            .first
            .as_ref()
            .map(|(i, m, d)| format!("DUT block {i}\nmodel  {m}\nDUT    {d}"));
        cases.push(pcs_case(
            "blocks bit exact",
            b.divergent == 0,
            format!(
                "{} of {} blocks differ from the model's encoding",
                b.divergent, b.compared
            ),
            detail,
        ));
    }
    cases
}

/// Encodes the expected frames with the model and compares the unscrambled blocks with the
/// DUT's (descrambled) blocks, aligned at the first start block of each.
fn compare_blocks(
    expected: &[Expected],
    dut: &[Block],
    profile: Profile,
) -> Result<BlockComparison, Error> {
    let opt = TxOptions {
        mac: TxConfig {
            dic: profile.dic(),
            ..TxConfig::default()
        },
        profile,
        seed: pcs_core::scramble::DEFAULT_STATE,
        idle_blocks: 0,
    };
    let mut chain = TxChain::new(&opt, baser_engine::tx::VecSink::default());
    for e in expected {
        chain
            .frame(&e.data, None)
            .map_err(|m| Error::Usage(format!("expected frame {}: {m}", e.index)))?;
    }
    let (model, _) = chain.finish().map_err(Error::Sink)?;
    let is_start =
        |b: &Block| pcs_core::block::decode_block(*b).class == pcs_core::BlockClass::Start;
    let m0 = model.blocks.iter().position(is_start).unwrap_or(0);
    let d0 = dut.iter().position(is_start).unwrap_or(0);
    let mut cmp = BlockComparison {
        aligned_at: (m0 as u64, d0 as u64),
        compared: 0,
        divergent: 0,
        first: None,
    };
    for (k, (m, d)) in model
        .blocks
        .iter()
        .skip(m0)
        .zip(dut.iter().skip(d0))
        .enumerate()
    {
        cmp.compared += 1;
        if m != d {
            cmp.divergent += 1;
            if cmp.first.is_none() {
                cmp.first = Some((
                    (d0 + k) as u64,
                    baser_engine::describe::block(*m),
                    baser_engine::describe::block(*d),
                ));
            }
        }
    }
    Ok(cmp)
}

/// Options of `baser bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Seconds per chain and mix.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Timed runs per measurement (the median is reported, with the spread).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Traffic mixes: min, max, uniform (default: all three).
    #[arg(long)]
    pub mix: Vec<baser_engine::bench::Mix>,
    /// Also write the table as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// `baser bench`: TX and RX chain throughput as multiples of the line rate.
///
/// # Errors
/// The JSON file cannot be written.
pub fn bench(a: &BenchArgs, out: Output) -> Result<Verdict, Error> {
    use baser_engine::bench::{memcpy_gbs, run_mix, Mix};
    let time = std::time::Duration::from_secs_f64(a.seconds.max(0.1));
    let mixes = if a.mix.is_empty() {
        vec![Mix::Uniform, Mix::Min, Mix::Max]
    } else {
        a.mix.clone()
    };
    let memcpy = memcpy_gbs(std::time::Duration::from_millis(500));
    if !out.quiet {
        println!(
            "baser bench: one core per chain, {} s per measurement, median of {} runs",
            a.seconds, a.runs
        );
        println!("  memcpy reference on this machine: {memcpy:.1} GB/s");
        println!(
            "  {:<4} {:<18} {:>9} {:>17} {:>8} {:>8}",
            "", "mix", "Gb/s", "spread", "x 10G", "x 25G"
        );
    }
    let mut all = Vec::new();
    for mix in mixes {
        for m in run_mix(mix, time, a.runs) {
            if !out.quiet {
                println!(
                    "  {:<4} {:<18} {:>9.2} {:>7.2} .. {:<7.2} {:>8.2} {:>8.2}",
                    m.chain, m.mix, m.gbps, m.spread.0, m.spread.1, m.x_10g, m.x_25g
                );
            }
            all.push(m);
        }
    }
    if let Some(p) = &a.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            memcpy_gbs: f64,
            line_rate_gbps: f64,
            measurements: &'a [baser_engine::bench::Measurement],
        }
        let doc = Doc {
            memcpy_gbs: memcpy,
            line_rate_gbps: 10.3125,
            measurements: &all,
        };
        report::write_json(p, &doc).map_err(|e| Error::Output(p.clone(), e))?;
    }
    Ok(Verdict::Pass)
}
