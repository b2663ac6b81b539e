//! `baser encode`: frames (or an XGMII trace) through the engine's TX chain into files.

use crate::command::{self, create, io_err, kind_of, named, Error, FecArgs, Kind, Output, Verdict};
use crate::outfile::OutFile;
use baser_engine::fec::{Fec, FecEncoder, Rate};
use baser_engine::inject::{corrupt_line, Fault, FaultChannel};
use baser_engine::tx::{TxBatch, TxChain, TxForms, TxSink};
use baser_engine::{Options, Profile};
use baser_files::b66::{B66Header, B66Writer, Scrambling};
use baser_files::bits::BitsWriter;
use baser_files::pcap::FrameReader;
use baser_files::vcd::VcdWriter;
use baser_files::xgmii::{XgmiiReader, XgmiiWriter};
use baser_files::InputError;
use mac_core::tx::StartLanes;
use pcs_core::PartialWord;
use std::fs::File;
use std::path::PathBuf;

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
    /// Every /S/ in lane 4 (a start the gap puts in lane 0 waits 4 more octets): a stress mode,
    /// as cocotbext-eth's `force_offset_start`.
    #[arg(long)]
    pub lane4_starts: bool,
    /// Scrambler state before the first block (hex, 58 bits; bit 57 = newest line bit).
    #[arg(long, value_parser = command::parse_seed)]
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
    #[arg(long, value_parser = command::profile_parser(), default_value_t = Profile::Ieee)]
    pub profile: Profile,
    /// Line rate and FEC.
    #[command(flatten)]
    pub line: FecArgs,
    /// Put a fault on the line (.b66 and .bits outputs): flip:BIT, burst:BIT:LEN,
    /// ber:RATE[:SEED], header:BLOCK, slip:BIT:+N|-N, drop:BLOCK, dup:BLOCK. Repeatable.
    #[arg(long, value_parser = command::parse_fault)]
    pub inject: Vec<Fault>,
}

/// The file sinks of `baser encode`.
struct FileSinks {
    xgmii: Option<(PathBuf, XgmiiWriter<OutFile>)>,
    b66: Option<(PathBuf, B66Writer<OutFile>)>,
    b66u: Option<(PathBuf, B66Writer<OutFile>)>,
    bits: Option<(PathBuf, BitsWriter<OutFile>)>,
    vcd: Option<(PathBuf, VcdWriter<OutFile>)>,
    /// With `--inject`, the line blocks go through this channel before `.b66`/`.bits`.
    channel: Option<FaultChannel>,
    /// With `--inject` and `--fec`: the line after the FEC, kept to put the faults on it.
    fec_line: Option<Vec<u8>>,
}

impl TxSink for FileSinks {
    fn forms(&self) -> TxForms {
        TxForms {
            words: self.xgmii.is_some() || self.vcd.is_some(),
            unscrambled: self.b66u.is_some(),
            serial: (self.bits.is_some() && self.channel.is_none()) || self.fec_line.is_some(),
            line: self.vcd.is_some() || self.channel.is_some() || self.b66.is_some(),
        }
    }

    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        if let Some((p, w)) = self.xgmii.as_mut() {
            w.write_words(b.words).map_err(|e| named(p, e))?;
        }
        if let Some((p, w)) = self.b66u.as_mut() {
            let blocks = b.unscrambled.unwrap_or_default();
            w.write_blocks(blocks).map_err(|e| named(p, e))?;
        }
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
        if let Some((p, w)) = self.b66.as_mut() {
            w.write_blocks(b.line).map_err(|e| named(p, e))?;
        }
        if let Some(line) = self.fec_line.as_mut() {
            line.extend(b.serial.iter().flat_map(|w| w.to_le_bytes()));
        } else if let Some((p, w)) = self.bits.as_mut() {
            w.write_words(b.serial).map_err(|e| named(p, e))?;
        }
        Ok(())
    }

    fn end(&mut self, tail: Option<PartialWord<u64>>) -> std::io::Result<()> {
        if let Some(line) = self.fec_line.as_mut() {
            if let Some(t) = tail {
                let n = t.valid_bits.div_ceil(8) as usize;
                line.extend_from_slice(t.word.to_le_bytes().get(..n).unwrap_or_default());
            }
            return Ok(());
        }
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
    command::check_outputs(
        &[Some(&a.input)],
        &[
            a.xgmii.as_deref(),
            a.b66.as_deref(),
            a.b66_unscrambled.as_deref(),
            a.bits.as_deref(),
            a.vcd.as_deref(),
        ],
    )?;
    let kind = kind_of(&a.input, None)?;
    refuse_misplaced_flags(a, kind)?;
    let opt = options(a, kind);
    opt.fec.check(opt.rate).map_err(Error::Usage)?;
    let encoder = FecEncoder::new(&opt.fec).map_err(Error::Usage)?;
    let sinks = open_sinks(a, opt.seed)?;
    let mut chain = TxChain::with_fec(&opt.tx(), sinks, encoder);
    let frames = feed(&mut chain, a, kind, out)?;
    let (sinks, totals) = if kind == Kind::Frames {
        chain.finish()
    } else {
        chain.end()
    }
    .map_err(Error::Sink)?;
    let flipped = close_sinks(sinks, &a.inject)?;
    if !out.quiet {
        print_summary(a, &opt, frames, totals.blocks, flipped);
        if let Some(f) = totals.fec {
            println!(
                "  {}",
                fec_counts_after(a, f.codewords, f.markers, f.stalls)
            );
        }
    }
    Ok(Verdict::Pass)
}

/// The FEC line of encode's summary.
fn fec_counts_after(a: &EncodeArgs, codewords: u64, markers: u64, stalls: u64) -> String {
    match a.line.fec {
        Fec::Rs => format!(
            "--fec rs ({}): {codewords} codewords on the line, {markers} marker codeword(s) (period {}), the PCS source held {stalls} block times for them",
            a.line.fec.clause(),
            a.line.rs_marker_period
        ),
        _ => format!(
            "--fec {} ({}): {codewords} FEC blocks on the line, rate kept (32 blocks in 2112 bits)",
            a.line.fec.name(),
            a.line.fec.clause()
        ),
    }
}

/// encode's summary lines.
fn print_summary(a: &EncodeArgs, opt: &Options, frames: u64, blocks: u64, flipped: usize) {
    println!(
            "baser encode: {} -> {} frames, {} blocks ({}, {} idle blocks first, IFG {}, DIC {}, scrambler state 0x{:015x}, profile {})",
            a.input.display(),
            frames,
            blocks,
            a.line.rate.phy(),
            opt.idle_blocks,
            a.ifg,
            if a.no_dic { "off" } else { "on" },
            opt.seed,
            a.profile.name()
        );
    if !a.inject.is_empty() {
        println!(
            "  --inject: {} fault(s) on the line ({}), {flipped} line bits flipped",
            a.inject.len(),
            if a.line.fec == Fec::None {
                ".b66/.bits"
            } else {
                ".bits, after the FEC"
            }
        );
    }
}

/// Refuses an input encode cannot read, the MAC's flags for a trace that skips the MAC, and a
/// fault that moves the block boundary with a `.b66` output.
fn refuse_misplaced_flags(a: &EncodeArgs, kind: Kind) -> Result<(), Error> {
    if !matches!(kind, Kind::Frames | Kind::Xgmii) {
        return Err(Error::Usage(format!(
            "{}: encode reads frames (.pcap/.pcapng) or an .xgmii trace",
            a.input.display()
        )));
    }
    if kind == Kind::Xgmii {
        // The MAC's settings mean nothing for a trace that skips the MAC.
        let mac_flags = [
            (a.ifg != 12, "--ifg"),
            (a.no_dic, "--no-dic"),
            (a.lane4_starts, "--lane4-starts"),
            (a.no_pad, "--no-pad"),
            (a.fcs_included, "--fcs-included"),
            (a.idle_blocks != 128, "--idle-blocks"),
        ];
        let given: Vec<&str> = mac_flags.iter().filter(|f| f.0).map(|f| f.1).collect();
        if !given.is_empty() {
            return Err(Error::Usage(format!(
                "{}: {} set(s) the MAC, which an .xgmii trace skips (its transfers are encoded as they are)",
                a.input.display(),
                given.join(", ")
            )));
        }
    }
    if a.line.fec != Fec::None {
        if let Some(f) = a.inject.iter().find(|f| {
            !matches!(
                f,
                Fault::Flip(_) | Fault::Burst(..) | Fault::Ber(..) | Fault::Symbols(..)
            )
        }) {
            return Err(Error::Usage(format!(
                "--inject {f:?} with --fec: a block fault has no block to act on below the FEC; on a FEC line use flip:, burst:, ber: or symbols:"
            )));
        }
        if !a.inject.is_empty() && a.bits.is_none() {
            return Err(Error::Usage(
                "--inject with --fec puts the faults on the line after the FEC: write --bits"
                    .into(),
            ));
        }
    }
    if a.b66.is_some() && a.inject.iter().any(Fault::moves_boundary) {
        return Err(Error::Usage(
            "--inject slip moves the block boundary, which a .b66 file cannot hold: write --bits"
                .into(),
        ));
    }
    Ok(())
}

/// The model's settings from the flags (the engine's one options type).
fn options(a: &EncodeArgs, kind: Kind) -> Options {
    Options {
        profile: a.profile,
        ifg: a.ifg,
        dic: !a.no_dic,
        pad: !a.no_pad,
        seed: a.seed.unwrap_or(pcs_core::SCRAMBLER_DEFAULT_STATE),
        idle_blocks: if kind == Kind::Xgmii {
            0
        } else {
            a.idle_blocks
        },
        start_lanes: if a.lane4_starts {
            StartLanes::Lane4
        } else {
            StartLanes::Both
        },
        rate: a.line.rate,
        fec: a.line.options(),
        ..Options::default()
    }
}

/// The comment line of the text outputs: the command that made them.
fn made_by(a: &EncodeArgs) -> String {
    let input_name = a.input.file_name().map_or_else(
        || a.input.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut options = String::new();
    for (on, flag) in [
        (a.no_dic, " --no-dic"),
        (a.lane4_starts, " --lane4-starts"),
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
    if a.line.rate != Rate::G10 {
        options.push_str(&format!(" --rate {}", a.line.rate));
    }
    if a.line.fec != Fec::None {
        options.push_str(&format!(" --fec {}", a.line.fec));
    }
    format!(
        "made by baser {} encode {input_name}{options}",
        env!("CARGO_PKG_VERSION")
    )
}

/// Creates the output files the flags name.
fn open_sinks(a: &EncodeArgs, seed: u64) -> Result<FileSinks, Error> {
    let made_by = made_by(a);
    let mut sinks = FileSinks {
        xgmii: None,
        b66: None,
        b66u: None,
        bits: None,
        vcd: None,
        channel: (!a.inject.is_empty() && a.line.fec == Fec::None)
            .then(|| FaultChannel::new(&a.inject)),
        fec_line: (!a.inject.is_empty() && a.line.fec != Fec::None && a.bits.is_some())
            .then(Vec::new),
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
        // One clock a block: 6.4 ns at 10G, 2.56 ns at 25G.
        let vcd = VcdWriter::with_block_ps(create(p)?, a.line.rate.block_ps());
        sinks.vcd = Some((p.clone(), vcd.map_err(io_err(p))?));
    }
    Ok(sinks)
}

/// Reads the input into the chain; returns how many frames it sent.
fn feed(
    chain: &mut TxChain<FileSinks>,
    a: &EncodeArgs,
    kind: Kind,
    out: Output,
) -> Result<u64, Error> {
    let mut frames = 0u64;
    if kind == Kind::Frames {
        let mut reader = FrameReader::open(&a.input, a.fcs_included)?;
        while let Some(f) = reader.next_ref() {
            let f = f?;
            let at = chain.frame(f.data, f.fcs).map_err(|e| {
                Error::Input(InputError::file(
                    &a.input,
                    format!("record {}: the MAC cannot send it: {e}", f.index),
                ))
            })?;
            if out.verbose > 0 && !out.quiet {
                println!(
                    "  record {}: {} octets, /S/ at block {} lane {}",
                    f.index,
                    f.data.len() + f.fcs.map_or(0, |_| 4),
                    at.block,
                    at.lane
                );
            }
            frames += 1;
        }
        return Ok(frames);
    }
    let file = File::open(&a.input).map_err(|e| InputError::io(&a.input, &e))?;
    let mut piece = Vec::with_capacity(4096);
    let mut r = XgmiiReader::new(std::io::BufReader::with_capacity(1 << 16, file), &a.input);
    while r.read_words(&mut piece, 4096)? {
        chain.words(&piece);
        piece.clear();
    }
    chain.words(&piece);
    Ok(frames)
}

/// Writes what the fault channel holds (with `--inject`) and closes every output; returns how
/// many line bits the faults flipped.
fn close_sinks(sinks: FileSinks, faults: &[Fault]) -> Result<usize, Error> {
    let injected = !faults.is_empty();
    let FileSinks {
        xgmii,
        mut b66,
        b66u,
        bits,
        vcd,
        channel,
        fec_line,
    } = sinks;
    let mut flipped = 0;
    if let (Some(mut line), Some((p, _))) = (fec_line, &bits) {
        // The faults on the line after the FEC (the .b66 is the PCS's, before it).
        flipped = corrupt_line(&mut line, faults).map_err(Error::Usage)?.len();
        std::fs::write(p, &line).map_err(io_err(p))?;
    }
    if let Some(mut c) = channel {
        // The faulty line: bytes for .bits, re-cut into 66-bit blocks for .b66.
        flipped = c.flipped.len();
        let bytes = c.finish();
        if let Some((p, _)) = &bits {
            std::fs::write(p, &bytes).map_err(io_err(p))?;
        }
        if let Some((p, w)) = b66.as_mut() {
            let mut gb = pcs_core::RxGearbox::<u8>::new();
            for rb in gb.blocks(&bytes) {
                w.write(rb.block).map_err(io_err(p))?;
            }
        }
    }
    let bits = if injected { None } else { bits };
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
    Ok(flipped)
}
