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
//!
//! With `--fec` a `.bits` side is a FEC'd line (Clause 74 or Clause 108): a FEC'd input is
//! decoded by the FEC (lock from any bit offset; the blocks of the FEC blocks or codewords
//! decoded while locked are converted, and every one is accounted for); a `.bits` output is
//! encoded by it (the last one finished with idle blocks). `--out-fec` gives the output's FEC
//! when both sides are `.bits`.

use crate::command::{self, create, io_err, kind_of, Error, FecRxArgs, Kind, Output, Verdict};
use crate::outfile::OutFile;
use crate::stream;
use baser_engine::fec::{Fec, FecDecoder, FecEncoder, FecOptions, FecSummary};
use baser_engine::rx::{LockFinder, RxSink};
use baser_engine::Profile;
use baser_files::b66::{B66Header, B66Reader, B66Writer, Scrambling};
use baser_files::bits::BitsWriter;
use baser_files::xgmii::{XgmiiReader, XgmiiWriter};
use baser_files::InputError;
use pcs_core::PcsTx;
use pcs_core::RxGearbox;
use pcs_core::{Block, XgmiiWord};
use pcs_core::{Descrambler, Scrambler, SCRAMBLER_DEFAULT_STATE};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

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
    /// Line rate and the FEC of the .bits side (with .bits on both sides: the input's).
    #[command(flatten)]
    pub fec: FecRxArgs,
    /// The FEC of a .bits output when the input is .bits too: none, fc or rs.
    #[arg(long)]
    pub out_fec: Option<Fec>,
}

/// What the FEC of a FEC'd input saw, filled when its blocks run out: the summary and the
/// line bits read.
type FecSeen = Rc<RefCell<Option<(FecSummary, u64)>>>;

/// Line blocks and what is known of the scrambler before the first one.
struct Line {
    blocks: Box<dyn Iterator<Item = Result<Block, InputError>>>,
    /// Scrambler state before the first block, if known.
    state: Option<u64>,
    /// The input's blocks are unscrambled (then `state` scrambles them).
    unscrambled: bool,
    /// Bits skipped before the first whole block (a .bits input).
    skipped_bits: Option<u64>,
    /// A FEC'd input: what its FEC saw.
    fec: Option<FecSeen>,
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
    let (fec_in, fec_out) = fec_sides(a, from, to)?;
    let mut note = String::new();
    let mut fec_notes = Vec::new();
    match to {
        Kind::Xgmii => {
            if let Some(seen) = to_xgmii(a, from, fec_in.as_ref())? {
                fec_notes.push(accounting(&a.input, &seen)?);
            }
        }
        _ => {
            let line = match &fec_in {
                Some(f) => fec_line_blocks(a, f)?,
                None => line_blocks(a, from)?,
            };
            if let Some(n) = line.skipped_bits {
                note = format!(" (blocks from bit {n} of the input)");
            }
            let seen = line.fec.clone();
            let n = write_blocks(a, to, line, fec_out.as_ref())?;
            note = format!("{} blocks{note}", n.blocks);
            if let Some(seen) = seen.and_then(|s| s.borrow_mut().take()) {
                fec_notes.push(accounting(&a.input, &seen)?);
            }
            if let Some(f) = &fec_out {
                fec_notes.push(written_note(f, &n));
            }
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
        for n in fec_notes {
            println!("  {n}");
        }
    }
    Ok(Verdict::Pass)
}

/// The FEC of the input line and of the output line: `--fec` is the FEC of the `.bits` side
/// (with `.bits` on both, the input's), `--out-fec` the output's.
fn fec_sides(
    a: &ConvertArgs,
    from: Kind,
    to: Kind,
) -> Result<(Option<FecOptions>, Option<FecOptions>), Error> {
    let given = a.fec.is_on().then(|| a.fec.options()).transpose()?;
    let out = match a.out_fec {
        Some(kind) => {
            let mut o = a.fec.line.options();
            o.kind = kind;
            o.check(a.fec.line.rate).map_err(Error::Usage)?;
            (kind != Fec::None).then_some(o)
        }
        None => None,
    };
    let refuse = |m: String| Err(Error::Usage(m));
    match (from, to) {
        (Kind::Bits, Kind::Bits) => Ok((given, out)),
        (_, Kind::Bits) if given.is_some() && a.out_fec.is_some() => {
            refuse("--fec and --out-fec both name the output's FEC: give one".into())
        }
        (_, Kind::Bits) => Ok((None, out.or(given))),
        _ if a.out_fec.is_some() => refuse(format!(
            "{}: --out-fec is for a .bits output",
            a.output.display()
        )),
        (Kind::Bits, _) => Ok((given, None)),
        _ if given.is_some() => refuse(format!(
            "--fec is for a .bits line, and neither {} nor {} is one (a .b66 stream is the \
             PCS's blocks above the FEC, and holds no FEC blocks or codewords)",
            a.input.display(),
            a.output.display()
        )),
        _ => Ok((None, None)),
    }
}

/// A FEC'd `.bits` input as the line blocks its FEC decodes while locked.
fn fec_line_blocks(a: &ConvertArgs, fec: &FecOptions) -> Result<Line, Error> {
    let decoder = FecDecoder::with_view(fec, 20, baser_engine::live::RxView::Offline)
        .map_err(Error::Usage)?
        .ok_or_else(|| Error::Usage("no FEC".into()))?;
    let seen: FecSeen = Rc::default();
    Ok(Line {
        blocks: Box::new(FecBlocks {
            file: open(&a.input)?,
            path: a.input.clone(),
            decoder,
            queue: VecDeque::new(),
            bytes: 0,
            seen: Some(seen.clone()),
        }),
        state: None,
        unscrambled: false,
        skipped_bits: None,
        fec: Some(seen),
    })
}

/// The blocks a FEC decodes from a `.bits` file, read in pieces.
struct FecBlocks {
    file: BufReader<File>,
    path: PathBuf,
    decoder: FecDecoder,
    queue: VecDeque<Block>,
    bytes: u64,
    /// Where the summary goes when the file ends (taken then).
    seen: Option<FecSeen>,
}

impl Iterator for FecBlocks {
    type Item = Result<Block, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut chunk = [0u8; 1 << 14];
        loop {
            if let Some(b) = self.queue.pop_front() {
                return Some(Ok(b));
            }
            let n = match self.file.read(&mut chunk) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(InputError::io(&self.path, &e))),
            };
            if n == 0 {
                let queue = &mut self.queue;
                self.decoder.flush(|b| queue.extend(b));
                if !self.queue.is_empty() {
                    continue;
                }
                let seen = self.seen.take()?;
                *seen.borrow_mut() = Some((self.decoder.summary().clone(), self.bytes * 8));
                return None;
            }
            self.bytes += n as u64;
            let queue = &mut self.queue;
            self.decoder
                .push_bytes(chunk.get(..n).unwrap_or_default(), |b| queue.extend(b));
        }
    }
}

/// What became of every FEC block or codeword of a FEC'd input, in words; no lock at all is
/// an error naming the file.
fn accounting(path: &Path, (f, line_bits): &(FecSummary, u64)) -> Result<String, Error> {
    let unit = f.kind.unit();
    let Some(at) = f.lock.acquired_at_bit else {
        return Err(Error::Input(InputError::file(
            path,
            format!(
                "{} lock never acquired in {line_bits} line bits: no {unit} to convert (check --rate, --fec and --rs-marker-period)",
                f.kind.clause()
            ),
        )));
    };
    let unit_bits = match f.kind {
        Fec::Rs => fec_core::rs::CODEWORD_BITS as u64,
        _ => fec_core::base_r::FEC_BLOCK_BITS as u64,
    };
    let decoded_bits = f.codewords * unit_bits;
    let rest = line_bits.saturating_sub(f.bits_before_lock + decoded_bits);
    Ok(format!(
        "--fec {} ({}): lock at line bit {at}; the {line_bits} line bits are {} before lock (not converted), {} {unit}s decoded ({} corrected, {} uncorrectable{}), and {rest} in no decoded {unit} ({})",
        f.kind,
        f.clause,
        f.bits_before_lock,
        f.codewords,
        f.corrected_codewords,
        f.uncorrected_codewords,
        if f.uncorrected_codewords > 0 && f.kind == Fec::Rs {
            ": their blocks carry sync header 3, the error indication"
        } else {
            ""
        },
        if f.lock.losses > 0 {
            format!("after the last whole {unit}, and while lock was lost {} time(s)", f.lock.losses)
        } else {
            format!("after the last whole {unit}")
        }
    ))
}

/// What a FEC'd output holds, in words.
fn written_note(f: &FecOptions, n: &Written) -> String {
    let markers = if f.kind == Fec::Rs {
        format!(
            ", {} marker codeword(s) (period {})",
            n.markers, f.rs.marker_period_codewords
        )
    } else {
        String::new()
    };
    format!(
        "--fec {} ({}): {} {}s written{markers}; the last finished with {} idle blocks",
        f.kind.name(),
        f.kind.clause(),
        n.codewords,
        f.kind.unit(),
        n.idle_fill
    )
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
                    Some(
                        a.seed
                            .or(h.scrambler_state)
                            .unwrap_or(SCRAMBLER_DEFAULT_STATE),
                    )
                } else {
                    h.scrambler_state
                },
                unscrambled,
                blocks: Box::new(r),
                skipped_bits: None,
                fec: None,
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
                fec: None,
            }
        }
        _ => {
            // An XGMII trace through the PCS encoder and scrambler.
            let seed = a.seed.unwrap_or(SCRAMBLER_DEFAULT_STATE);
            let mut pcs = PcsTx::new(a.profile.encoder(), seed);
            let words = XgmiiReader::new(open(&path)?, &path);
            Line {
                blocks: Box::new(words.map(move |w| w.map(|w| pcs.step(w).0))),
                state: Some(seed),
                unscrambled: false,
                skipped_bits: None,
                fec: None,
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

/// What was written.
#[derive(Default)]
struct Written {
    /// Blocks of the input.
    blocks: u64,
    /// Idle blocks that finished the last FEC block or codeword (a FEC'd output).
    idle_fill: u64,
    /// FEC blocks or codewords written (a FEC'd output).
    codewords: u64,
    /// RS-FEC marker codewords among them.
    markers: u64,
}

/// Writes the blocks as `.b66` or `.bits` (through the FEC of `fec`, when given).
fn write_blocks(
    a: &ConvertArgs,
    to: Kind,
    line: Line,
    fec: Option<&FecOptions>,
) -> Result<Written, Error> {
    let p = &a.output;
    let mut n = 0u64;
    // Scrambled blocks for the output: the input's, or the input's scrambled.
    let mut scrambler = line
        .unscrambled
        .then(|| Scrambler::new(line.state.unwrap_or(SCRAMBLER_DEFAULT_STATE)));
    let mut to_line = move |b: Block| match scrambler.as_mut() {
        Some(s) => Block {
            sync: b.sync,
            payload: s.scramble(b.payload),
        },
        None => b,
    };
    match (to, fec) {
        (Kind::Bits, Some(fec)) => {
            return write_fec_line(p, fec, line.blocks.map(|b| b.map(to_line)))
        }
        (Kind::Bits, None) => {
            let mut w = BitsWriter::new(create(p)?);
            for b in line.blocks {
                w.write(to_line(b?)).map_err(io_err(p))?;
                n += 1;
            }
            w.finish(None).map_err(io_err(p))?;
        }
        (_, _) => {
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
                .then(|| Descrambler::new(line.state.unwrap_or(SCRAMBLER_DEFAULT_STATE)));
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
    Ok(Written {
        blocks: n,
        ..Written::default()
    })
}

/// Writes line blocks through the FEC encoder of `fec` as a `.bits` line, the last FEC block
/// or codeword finished with idle blocks.
fn write_fec_line(
    p: &Path,
    fec: &FecOptions,
    blocks: impl Iterator<Item = Result<Block, InputError>>,
) -> Result<Written, Error> {
    let mut enc = FecEncoder::new(fec)
        .map_err(Error::Usage)?
        .ok_or_else(|| Error::Usage("no FEC".into()))?;
    let mut w = BitsWriter::new(create(p)?);
    let (mut piece, mut words) = (Vec::with_capacity(4096), Vec::new());
    let mut written = Written::default();
    let mut last = None;
    let mut put = |piece: &mut Vec<Block>, enc: &mut FecEncoder| {
        enc.push_blocks(piece, &mut words);
        piece.clear();
        let r = w.write_words(&words).map_err(io_err(p));
        words.clear();
        r
    };
    for b in blocks {
        let b = b?;
        piece.push(b);
        last = Some(b);
        written.blocks += 1;
        if piece.len() == 4096 {
            put(&mut piece, &mut enc)?;
        }
    }
    put(&mut piece, &mut enc)?;
    // The end: idle blocks finish the last FEC block or codeword.
    if let Some(l) = last {
        piece = enc.idle_fill(l);
        written.idle_fill = piece.len() as u64;
        put(&mut piece, &mut enc)?;
    }
    written.codewords = enc.codewords();
    written.markers = enc.markers();
    w.finish(enc.tail()).map_err(io_err(p))?;
    Ok(written)
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
/// block; line i of the output is block i; a FEC'd one below its FEC, from lock). Returns what
/// the FEC saw and the line bits.
fn to_xgmii(
    a: &ConvertArgs,
    from: Kind,
    fec: Option<&FecOptions>,
) -> Result<Option<(FecSummary, u64)>, Error> {
    let p = &a.output;
    let made = format!("converted by baser from {}", a.input.display());
    let w = XgmiiWriter::new(create(p)?, &[&made]).map_err(io_err(p))?;
    if from == Kind::Xgmii {
        let mut w = w;
        for word in XgmiiReader::new(open(&a.input)?, &a.input) {
            w.write(word?).map_err(io_err(p))?;
        }
        w.finish().map_err(io_err(p))?;
        return Ok(None);
    }
    // The rate sets the BER monitor (at 25G: 97 invalid headers in 2 ms).
    let opt = baser_engine::Options {
        profile: a.profile,
        rate: a.fec.line.rate,
        max_events: 0,
        ..baser_engine::Options::default()
    }
    .rx();
    if let Some(fec) = fec {
        let (_, _, sink, seen) = stream::decode_fec(
            &a.input,
            &opt,
            stream::FecLine::new(fec, baser_engine::live::RxView::Offline),
            u64::MAX,
            XgmiiSink(w),
            &|_| {},
        )?;
        sink.0.finish().map_err(io_err(p))?;
        let bits = std::fs::metadata(&a.input).map_or(0, |m| m.len() * 8);
        return Ok(Some((seen, bits)));
    }
    let (_, _, sink) = stream::decode_kind(
        from.name(),
        &a.input,
        &opt,
        baser_engine::live::RxView::Offline,
        XgmiiSink(w),
        &|_| {},
    )?;
    sink.0.finish().map_err(io_err(p))?;
    Ok(None)
}
