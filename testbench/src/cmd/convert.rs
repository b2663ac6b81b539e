//! `baser convert IN OUT`: one stream file into another form, without hand-written bit
//! packing: `.b66` (scrambled or not), `.bits` (read from any bit offset: the block boundary is
//! found as a receiver finds it) and `.xgmii`.
//!
//! | from \ to | `.b66` | `.bits` | `.xgmii` |
//! |---|---|---|---|
//! | `.b66`  | scramble or descramble | scramble if needed, pack | decode (RX state machine) |
//! | `.bits` | cut at the boundary | (re-aligned to block 0) | decode |
//! | `.xgmii`| encode (TX state machine) | encode, scramble, pack | (copy) |
//!
//! The `.b66` written carries `# scrambled` or `# unscrambled` and `# scrambler_state=`: the
//! state when it is known (given by the input, `--seed`, or an encode), else `auto`.

use crate::command::{self, create, io_err, kind_of, Error, Kind, Output, Verdict};
use crate::outfile::OutFile;
use crate::stream;
use baser_engine::rx::{LockFinder, RxOptions, RxSink};
use baser_engine::Profile;
use baser_files::b66::{B66Header, B66Reader, B66Writer, Scrambling};
use baser_files::bits::BitsWriter;
use baser_files::xgmii::{XgmiiReader, XgmiiWriter};
use baser_files::InputError;
use pcs_core::gearbox::RxGearbox;
use pcs_core::pcs::PcsTx;
use pcs_core::scramble::{Descrambler, Scrambler, DEFAULT_STATE};
use pcs_core::{Block, XgmiiWord};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Options of `baser convert`.
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// The stream to convert (.b66, .bits or .xgmii).
    pub input: PathBuf,
    /// Where to write it (.b66, .bits or .xgmii).
    pub output: PathBuf,
    /// Write the .b66 output unscrambled (the encoder's blocks).
    #[arg(long)]
    pub unscrambled: bool,
    /// Scrambler state for scrambling (hex, 58 bits; bit 57 = newest line bit), where the
    /// input does not give one (an unscrambled .b66 or an .xgmii). Default all ones.
    #[arg(long, value_parser = command::parse_seed)]
    pub seed: Option<u64>,
    /// What the input holds, where its extension does not say.
    #[arg(long, value_enum)]
    pub format: Option<Kind>,
    /// What to write, where the output's extension does not say.
    #[arg(long, value_enum)]
    pub out_format: Option<Kind>,
    /// Compatibility profile (encoder and decoder knobs).
    #[arg(long, value_parser = command::profile_parser(), default_value_t = Profile::Ieee)]
    pub profile: Profile,
}

/// Line blocks and what is known of the scrambler before the first one.
struct Line {
    blocks: Box<dyn Iterator<Item = Result<Block, InputError>>>,
    /// Scrambler state before the first block, if known.
    state: Option<u64>,
    /// The input's blocks are unscrambled (then `state` scrambles them).
    unscrambled: bool,
    /// Bits skipped before the first whole block (a .bits input).
    skipped_bits: Option<u64>,
}

/// `baser convert`.
///
/// # Errors
/// Bad usage, unreadable input or an unwritable output.
pub fn convert(a: &ConvertArgs, out: Output) -> Result<Verdict, Error> {
    command::check_outputs(&[Some(&a.input)], &[Some(&a.output)])?;
    let from = kind_of(&a.input, a.format)?;
    let to = match a.out_format {
        Some(k) => k,
        None => match a.output.extension().and_then(|e| e.to_str()) {
            Some("b66") => Kind::B66,
            Some("bits") => Kind::Bits,
            Some("xgmii") => Kind::Xgmii,
            _ => {
                return Err(Error::Usage(format!(
                    "{}: say what to write: .b66, .bits or .xgmii (or --out-format)",
                    a.output.display()
                )))
            }
        },
    };
    if from == Kind::Frames || to == Kind::Frames {
        return Err(Error::Usage(
            "convert works on streams (.b66, .bits, .xgmii); frames go through `baser encode` and `baser decode`".into(),
        ));
    }
    if a.unscrambled && to != Kind::B66 {
        return Err(Error::Usage(
            "--unscrambled is for a .b66 output (a .bits stream is always scrambled)".into(),
        ));
    }
    let mut note = String::new();
    match to {
        Kind::Xgmii => to_xgmii(a, from)?,
        _ => {
            let line = line_blocks(a, from)?;
            if let Some(n) = line.skipped_bits {
                note = format!(" (blocks from bit {n} of the input)");
            }
            let n = write_blocks(a, to, line)?;
            note = format!("{n} blocks{note}");
        }
    }
    if !out.quiet {
        println!(
            "baser convert: {} (.{}) -> {} (.{}){}{}",
            a.input.display(),
            from.name(),
            a.output.display(),
            to.name(),
            if note.is_empty() { "" } else { ": " },
            note
        );
    }
    Ok(Verdict::Pass)
}

fn open(p: &Path) -> Result<BufReader<File>, InputError> {
    File::open(p)
        .map(|f| BufReader::with_capacity(1 << 16, f))
        .map_err(|e| InputError::io(p, &e))
}

/// The input as line (or unscrambled) blocks.
fn line_blocks(a: &ConvertArgs, from: Kind) -> Result<Line, Error> {
    let path = a.input.clone();
    Ok(match from {
        Kind::B66 => {
            let r = B66Reader::new(open(&path)?, &path)?;
            let h = r.header();
            let unscrambled = h.scrambling == Scrambling::Unscrambled;
            Line {
                state: if unscrambled {
                    Some(a.seed.or(h.scrambler_state).unwrap_or(DEFAULT_STATE))
                } else {
                    h.scrambler_state
                },
                unscrambled,
                blocks: Box::new(r),
                skipped_bits: None,
            }
        }
        Kind::Bits => {
            // The boundary as a receiver finds it, then every whole block from the first bit.
            let mut finder = LockFinder::default();
            let mut f = open(&path)?;
            let mut chunk = vec![0u8; 1 << 16];
            let found = loop {
                let n = f.read(&mut chunk).map_err(|e| InputError::io(&path, &e))?;
                if n == 0 {
                    break None;
                }
                if let Some(l) = finder.push_bytes(chunk.get(..n).unwrap_or_default()) {
                    break Some(l);
                }
            };
            let Some(found) = found else {
                return Err(Error::Input(InputError::file(
                    &path,
                    "block lock never acquired: no block boundary to cut at",
                )));
            };
            let offset = found.bit_offset % 66;
            Line {
                blocks: Box::new(BitsBlocks::new(open(&path)?, path, offset as u32)),
                state: None,
                unscrambled: false,
                skipped_bits: Some(offset),
            }
        }
        _ => {
            // An XGMII trace through the PCS encoder and scrambler.
            let seed = a.seed.unwrap_or(DEFAULT_STATE);
            let mut pcs = PcsTx::new(a.profile.encoder(), seed);
            let words = XgmiiReader::new(open(&path)?, &path);
            Line {
                blocks: Box::new(words.map(move |w| w.map(|w| pcs.step(w).0))),
                state: Some(seed),
                unscrambled: false,
                skipped_bits: None,
            }
        }
    })
}

/// Blocks cut from a `.bits` file at a fixed boundary.
struct BitsBlocks {
    file: BufReader<File>,
    path: PathBuf,
    gearbox: RxGearbox<u8>,
    buf: Vec<u8>,
    at: usize,
}

impl BitsBlocks {
    fn new(file: BufReader<File>, path: PathBuf, offset: u32) -> Self {
        let mut gearbox = RxGearbox::new();
        gearbox.slip_bits(offset);
        Self {
            file,
            path,
            gearbox,
            buf: Vec::new(),
            at: 0,
        }
    }
}

impl Iterator for BitsBlocks {
    type Item = Result<Block, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(b) = self.gearbox.next_block() {
                return Some(Ok(b.block));
            }
            if self.at == self.buf.len() {
                self.buf.resize(1 << 16, 0);
                match self.file.read(&mut self.buf) {
                    Ok(0) => return None,
                    Ok(n) => self.buf.truncate(n),
                    Err(e) => return Some(Err(InputError::io(&self.path, &e))),
                }
                self.at = 0;
            }
            let byte = self.buf.get(self.at).copied().unwrap_or(0);
            if self.gearbox.feed(byte).is_ok() {
                self.at += 1;
            }
        }
    }
}

/// Writes the blocks as `.b66` or `.bits`; returns how many.
fn write_blocks(a: &ConvertArgs, to: Kind, line: Line) -> Result<u64, Error> {
    let p = &a.output;
    let mut n = 0u64;
    // Scrambled blocks for the output: the input's, or the input's scrambled.
    let mut scrambler = line
        .unscrambled
        .then(|| Scrambler::new(line.state.unwrap_or(DEFAULT_STATE)));
    let mut to_line = move |b: Block| match scrambler.as_mut() {
        Some(s) => Block {
            sync: b.sync,
            payload: s.scramble(b.payload),
        },
        None => b,
    };
    match to {
        Kind::Bits => {
            let mut w = BitsWriter::new(create(p)?);
            for b in line.blocks {
                w.write(to_line(b?)).map_err(io_err(p))?;
                n += 1;
            }
            w.finish(None).map_err(io_err(p))?;
        }
        _ => {
            let header = B66Header {
                scrambling: if a.unscrambled {
                    Scrambling::Unscrambled
                } else {
                    Scrambling::Scrambled
                },
                scrambler_state: line.state,
            };
            let mut w = B66Writer::new(create(p)?, header).map_err(io_err(p))?;
            if a.unscrambled && !line.unscrambled && line.state.is_none() {
                w.comment("the first block trained the descrambler: its payload is not meaningful")
                    .map_err(io_err(p))?;
            }
            // Unscrambled output from a scrambled input: descramble (an unknown state trains
            // on the first block, whose payload is then not meaningful).
            let mut descrambler = (a.unscrambled && !line.unscrambled)
                .then(|| Descrambler::new(line.state.unwrap_or(DEFAULT_STATE)));
            for b in line.blocks {
                let b = b?;
                let b = match descrambler.as_mut() {
                    Some(d) => Block {
                        sync: b.sync,
                        payload: d.descramble(b.payload),
                    },
                    None if line.unscrambled && !a.unscrambled => to_line(b),
                    None => b,
                };
                w.write(b).map_err(io_err(p))?;
                n += 1;
            }
            w.finish().map_err(io_err(p))?;
        }
    }
    Ok(n)
}

/// Writes the decoded transfers of each block.
struct XgmiiSink(XgmiiWriter<OutFile>);

impl RxSink for XgmiiSink {
    fn words(
        &mut self,
        _first: u64,
        words: &[XgmiiWord],
        _blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        words.iter().try_for_each(|w| self.0.write(*w))
    }
}

/// Any stream to `.xgmii`: the receive chain (a `.bits` input offline, from its first whole
/// block; line i of the output is block i).
fn to_xgmii(a: &ConvertArgs, from: Kind) -> Result<(), Error> {
    let p = &a.output;
    let made = format!("converted by baser from {}", a.input.display());
    let w = XgmiiWriter::new(create(p)?, &[&made]).map_err(io_err(p))?;
    if from == Kind::Xgmii {
        let mut w = w;
        for word in XgmiiReader::new(open(&a.input)?, &a.input) {
            w.write(word?).map_err(io_err(p))?;
        }
        w.finish().map_err(io_err(p))?;
        return Ok(());
    }
    let opt = RxOptions {
        profile: a.profile,
        max_events: 0,
        ..RxOptions::default()
    };
    let (_, _, sink) = stream::decode_kind(
        from.name(),
        &a.input,
        &opt,
        stream::SerialView::Offline,
        XgmiiSink(w),
        &|_| {},
    )?;
    sink.0.finish().map_err(io_err(p))?;
    Ok(())
}
