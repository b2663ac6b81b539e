//! What every command shares: the exit verdict, errors, output settings, report files, file
//! kinds, output files and the progress bar. `main.rs` parses; each command has its file in
//! `cmd/`.

use crate::outfile::OutFile;
use crate::report::{self, Case};
use baser_engine::fec::{Fec, FecOptions, Rate};
use baser_engine::rx::{PcsSummary, StreamKind};
use baser_engine::Profile;
use baser_files::InputError;
use mac_core::frame::MaxFrameLength;
use std::fmt;
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

/// What a stream file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// pcap or pcapng frames.
    #[value(name = "pcap")]
    Frames,
    /// `.xgmii` text.
    Xgmii,
    /// `.b66` text.
    B66,
    /// `.bits` binary.
    Bits,
}

impl Kind {
    /// The extension (and `--format` name) of this kind.
    pub fn name(self) -> &'static str {
        match self {
            Self::Frames => "pcap",
            Self::Xgmii => "xgmii",
            Self::B66 => "b66",
            Self::Bits => "bits",
        }
    }
}

/// The kind of a file: `given` (`--format`), else its extension, else its content (with a
/// note on stderr saying so).
///
/// # Errors
/// An extension baser does not read and content it cannot tell, or an unreadable file.
pub fn kind_of(path: &Path, given: Option<Kind>) -> Result<Kind, Error> {
    if let Some(k) = given {
        return Ok(k);
    }
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("pcap" | "pcapng" | "cap") => return Ok(Kind::Frames),
        Some("xgmii") => return Ok(Kind::Xgmii),
        Some("b66") => return Ok(Kind::B66),
        Some("bits") => return Ok(Kind::Bits),
        _ => {}
    }
    let mut head = vec![0u8; 4096];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| Error::Input(InputError::io(path, &e)))?;
    head.truncate(n);
    match sniff(&head) {
        Some(k) => {
            eprintln!(
                "baser: {}: read as .{} by its content (--format {} says so)",
                path.display(),
                k.name(),
                k.name()
            );
            Ok(k)
        }
        None => Err(Error::Usage(format!(
            "{}: unknown file kind: expected .pcap, .pcapng, .xgmii, .b66 or .bits, and the \
             content looks like none of them (give --format)",
            path.display()
        ))),
    }
}

/// The kind a file's first bytes show: pcap/pcapng magic, `.b66` or `.xgmii` text lines,
/// else (binary) `.bits`. `None` for text that is neither.
pub fn sniff(head: &[u8]) -> Option<Kind> {
    const MAGICS: [[u8; 4]; 5] = [
        [0xd4, 0xc3, 0xb2, 0xa1],
        [0xa1, 0xb2, 0xc3, 0xd4],
        [0x4d, 0x3c, 0xb2, 0xa1],
        [0xa1, 0xb2, 0x3c, 0x4d],
        [0x0a, 0x0d, 0x0d, 0x0a],
    ];
    if head.len() >= 4 && MAGICS.iter().any(|m| head.starts_with(m)) {
        return Some(Kind::Frames);
    }
    let text = head
        .iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace());
    if !text {
        return (!head.is_empty()).then_some(Kind::Bits);
    }
    let hex = |f: &str, n: usize| f.len() == n && f.bytes().all(|b| b.is_ascii_hexdigit());
    for line in String::from_utf8_lossy(head).lines() {
        let line = line.trim();
        if line == "# scrambled" || line == "# unscrambled" {
            return Some(Kind::B66);
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        return match f.as_slice() {
            [h, p] if hex(h, 1) && hex(p, 16) => Some(Kind::B66),
            [c, d] if hex(c, 2) && hex(d, 16) => Some(Kind::Xgmii),
            _ => None,
        };
    }
    None
}

/// How the PCS found the blocks, in words (`None` for XGMII input, which has no PCS).
pub fn lock_line(p: &PcsSummary) -> Option<String> {
    Some(match (&p.lock_acquired, &p.receiver_lock, p.input) {
        (_, _, StreamKind::Xgmii) => return None,
        (Some(l), Some(r), _) => format!(
            "offline: blocks from bit {} of the file, lock held from there (a receiver locks at block {}, bit offset {}, after {} slips)",
            l.bit_offset, r.block, r.bit_offset, r.slips
        ),
        (Some(l), None, StreamKind::Bits) => format!(
            "block lock at bit offset {} after {} blocks and {} slips",
            l.bit_offset, l.block, l.slips
        ),
        (Some(_), None, _) => "block boundaries given by the file (lock from block 0)".into(),
        (None, _, _) => "block lock never acquired".into(),
    })
}

/// What the first blocks were taken for (reset fill, descrambler training), in words.
pub fn prelude_line(p: &PcsSummary) -> Option<String> {
    let mut parts = Vec::new();
    if p.reset_fill_blocks > 0 {
        parts.push(format!(
            "{} leading all-zero blocks skipped as reset fill",
            p.reset_fill_blocks
        ));
    }
    if let Some(b) = p.descrambler_trained_at {
        parts.push(format!(
            "block {b} used to train the descrambler (no scrambler_state given)"
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Where reports go.
#[derive(Clone, Debug, Default)]
pub struct Reports {
    /// JSON report file.
    pub json: Option<PathBuf>,
    /// JUnit XML file.
    pub junit: Option<PathBuf>,
    /// HTML report file (written by each command: it needs more than the JSON document).
    pub html: Option<PathBuf>,
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
        self.write_with(suite, json, cases, &[])
    }

    /// As [`Reports::write`], the JUnit suite with `properties` (name, value).
    ///
    /// # Errors
    /// A report file cannot be written.
    pub fn write_with<T: serde::Serialize>(
        &self,
        suite: &str,
        json: &T,
        cases: &[Case],
        properties: &[(String, String)],
    ) -> Result<(), Error> {
        if let Some(p) = &self.json {
            report::write_json(p, json).map_err(|e| Error::Output(p.clone(), e))?;
        }
        if let Some(p) = &self.junit {
            report::write_junit_with(p, suite, cases, properties)
                .map_err(|e| Error::Output(p.clone(), e))?;
        }
        Ok(())
    }
}

/// The `--profile` parser: the engine's profile names, listed in `--help`.
pub fn profile_parser() -> impl clap::builder::TypedValueParser<Value = Profile> {
    use clap::builder::TypedValueParser;
    let names: Vec<&'static str> = Profile::ALL.iter().map(|p| p.name()).collect();
    clap::builder::PossibleValuesParser::new(names).map(|s| s.parse().unwrap_or_default())
}

pub fn io_err(p: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Output(p.to_path_buf(), e)
}

/// An output error that names the file, for errors that pass through the engine.
pub fn named(p: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: cannot write: {e}", p.display()))
}

/// Whether `a` and `b` are one regular file (through any paths).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) if x.is_file() && y.is_file() => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                x.dev() == y.dev() && x.ino() == y.ino()
            }
            #[cfg(not(unix))]
            {
                a.canonicalize().ok() == b.canonicalize().ok()
            }
        }
        _ => false,
    }
}

/// Whether `a` and `b` name one place for a file that need not exist yet: the same name in
/// the same folder (the folders through any paths).
fn same_place(a: &Path, b: &Path) -> bool {
    let place = |p: &Path| {
        let folder = p.parent().filter(|f| !f.as_os_str().is_empty());
        Some(
            folder
                .unwrap_or(Path::new("."))
                .canonicalize()
                .ok()?
                .join(p.file_name()?),
        )
    };
    a == b || place(a).is_some_and(|x| Some(x) == place(b))
}

/// Refuses, before the command does any work or creates any output, an output in a folder
/// that does not exist (reports are written at the end: a long check would otherwise fail
/// only then), one that is one of the command's inputs (writing it would empty what is
/// still to be read) or that another output names too (the two would write over each
/// other).
///
/// # Errors
/// [`Error::Output`] naming the output, and its folder or the input it is.
pub fn check_outputs(inputs: &[Option<&Path>], outputs: &[Option<&Path>]) -> Result<(), Error> {
    let inputs: Vec<&Path> = inputs.iter().flatten().copied().collect();
    let outputs: Vec<&Path> = outputs.iter().flatten().copied().collect();
    let refuse = |p: &Path, kind, why: String| {
        Err(Error::Output(
            p.to_path_buf(),
            std::io::Error::new(kind, why),
        ))
    };
    for (i, &out) in outputs.iter().enumerate() {
        if let Some(folder) = out.parent().filter(|f| !f.as_os_str().is_empty()) {
            if !folder.is_dir() {
                return refuse(
                    out,
                    std::io::ErrorKind::NotFound,
                    format!("its folder {} does not exist", folder.display()),
                );
            }
        }
        if let Some(input) = inputs.iter().find(|&&input| same_file(out, input)) {
            return refuse(
                out,
                std::io::ErrorKind::InvalidInput,
                format!(
                    "it is the input {}: writing it would destroy what is still to be read",
                    input.display()
                ),
            );
        }
        if let Some(other) = outputs
            .iter()
            .take(i)
            .find(|&&other| same_file(out, other) || same_place(out, other))
        {
            return refuse(
                out,
                std::io::ErrorKind::InvalidInput,
                format!("{} is written by this command already", other.display()),
            );
        }
    }
    Ok(())
}

/// Creates an output file, written by a thread of its own ([`OutFile`]); a file that cannot
/// be created is an error naming it.
pub fn create(p: &Path) -> Result<OutFile, Error> {
    OutFile::create(p).map_err(|e| Error::Output(p.to_path_buf(), e))
}

/// The MAC's largest frame for a `--max-frame-length`.
pub fn max_frame(n: u16) -> MaxFrameLength {
    baser_engine::options::max_frame_length(n)
}

/// A progress bar on stderr for large inputs when stderr is a terminal.
pub struct Bar(Option<indicatif::ProgressBar>);

impl Bar {
    /// Shows `n` done.
    pub fn set(&self, n: u64) {
        if let Some(b) = &self.0 {
            b.set_position(n);
        }
    }

    /// Clears the bar.
    pub fn done(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// A bar for reading `path`, shown only on a terminal for large files.
pub fn progress_bar(path: &Path, out: Output) -> Bar {
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

/// The `--inject` parser.
///
/// # Errors
/// A fault spec that does not parse.
pub fn parse_fault(s: &str) -> Result<baser_engine::inject::Fault, String> {
    baser_engine::inject::Fault::parse(s)
}

/// A scrambler state on the command line: hex, at most 58 bits.
///
/// # Errors
/// Not hex, or more than 58 bits.
pub fn parse_seed(s: &str) -> Result<u64, String> {
    let hex = s.trim_start_matches("0x").trim_start_matches("0X");
    let v = u64::from_str_radix(hex, 16).map_err(|e| format!("`{s}`: {e} (expected hex)"))?;
    if v >> 58 != 0 {
        return Err(format!("`{s}` has more than 58 bits"));
    }
    Ok(v)
}

#[cfg(test)]
mod sniff_tests {
    use super::*;

    #[test]
    fn sniffing_tells_every_kind_apart() {
        assert_eq!(sniff(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0]), Some(Kind::Frames));
        assert_eq!(sniff(&[0x0a, 0x0d, 0x0d, 0x0a, 0x1c]), Some(Kind::Frames));
        assert_eq!(
            sniff(b"# unscrambled\n1 000000000000001e\n"),
            Some(Kind::B66)
        );
        assert_eq!(sniff(b"# a dump\n2 0123456789abcdef\n"), Some(Kind::B66));
        assert_eq!(sniff(b"ff 0707070707070707\n"), Some(Kind::Xgmii));
        assert_eq!(sniff(&[0x79, 0x3c, 0x00, 0xff]), Some(Kind::Bits));
        assert_eq!(sniff(b"hello world\n"), None);
    }
}

/// The line rate and the FEC, as `encode` and `decode` take them.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct FecArgs {
    /// Line rate: 10g (10GBASE-R, Clause 49) or 25g (25GBASE-R, Clause 107).
    #[arg(long, default_value_t = Rate::G10)]
    pub rate: Rate,
    /// FEC below the PCS: none, fc (Clause 74 BASE-R FEC) or rs (Clause 108 RS-FEC, 25g).
    /// Its line is the .bits stream; a .b66 stream is the PCS's blocks above it.
    #[arg(long, default_value_t = Fec::None)]
    pub fec: Fec,
    /// RS-FEC codeword marker period, codewords (1024: the standard's reading; a VIP may use
    /// 16).
    #[arg(long, default_value_t = fec_core::rs::MARKER_PERIOD_CODEWORDS)]
    pub rs_marker_period: u32,
}

impl Default for FecArgs {
    fn default() -> Self {
        Self {
            rate: Rate::G10,
            fec: Fec::None,
            rs_marker_period: fec_core::rs::MARKER_PERIOD_CODEWORDS,
        }
    }
}

impl FecArgs {
    /// The FEC's settings.
    pub fn options(&self) -> FecOptions {
        let mut f = FecOptions {
            kind: self.fec,
            ..FecOptions::default()
        };
        f.rs.marker_period_codewords = self.rs_marker_period;
        f
    }
}

/// The line rate and the FEC as a receiver takes them (`decode`, `check`, `coverage`,
/// `convert`): [`FecArgs`] and how RS-FEC lock is made.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct FecRxArgs {
    /// Line rate and FEC.
    #[command(flatten)]
    pub line: FecArgs,
    /// RS-FEC markers that make lock: 1 (a dump is decoded from its first marker) or 2 (a
    /// receiver confirms it one period later, the stream before is not decoded).
    #[arg(long, default_value_t = 1)]
    pub rs_lock_markers: u8,
    /// RS-FEC bypass correction (1.200.0): the decoder detects but does not correct.
    #[arg(long)]
    pub rs_bypass_correction: bool,
    /// RS-FEC bypass error indication (1.200.1): an uncorrectable codeword's blocks reach the
    /// PCS unmarked (not with bypass correction: the standard refuses both).
    #[arg(long)]
    pub rs_bypass_indication: bool,
    /// Clause 74 error indication (1.171.1): an uncorrectable FEC block's blocks reach the PCS
    /// with invalid sync headers (blocks 0, 8, 16 and 24: U), so the PCS counts them and the
    /// frames in it are lost; off by default (they pass on as received).
    #[arg(long)]
    pub fc_error_indication: bool,
}

impl Default for FecRxArgs {
    fn default() -> Self {
        Self {
            line: FecArgs::default(),
            rs_lock_markers: 1,
            rs_bypass_correction: false,
            rs_bypass_indication: false,
            fc_error_indication: false,
        }
    }
}

impl FecRxArgs {
    /// The FEC's settings, refused when the rate lacks the FEC or the standard refuses them.
    ///
    /// # Errors
    /// Why, in words.
    pub fn options(&self) -> Result<FecOptions, Error> {
        let mut fec = self.line.options();
        fec.rs.lock_markers = self.rs_lock_markers;
        let modes = baser_engine::options::FecModes {
            rs_bypass_correction: self.rs_bypass_correction,
            rs_bypass_indication: self.rs_bypass_indication,
            fc_error_indication: self.fc_error_indication,
        };
        // The engine names the option (`rs_bypass_correction: ...`): the flag is its spelling.
        modes.apply(&mut fec).map_err(|e| {
            let (key, why) = e.split_once(": ").unwrap_or(("", &e));
            let flag = |k: &str| format!("--{}", k.replace('_', "-"));
            let why = baser_engine::options::FecModes::KEYS
                .iter()
                .fold(why.to_string(), |w, k| w.replace(k, &flag(k)))
                .replace("(give fec ", "(add --fec ");
            Error::Usage(format!("{}: {why}", flag(key)))
        })?;
        fec.check(self.line.rate).map_err(Error::Usage)?;
        Ok(fec)
    }

    /// A FEC is given.
    pub fn is_on(&self) -> bool {
        self.line.fec != Fec::None
    }
}

/// Refuses a stream below which no FEC can be decoded: only a `.bits` line carries FEC blocks
/// or codewords; a `.b66` is the PCS's blocks above the FEC.
///
/// # Errors
/// [`Error::Usage`] naming the file and saying what to do.
pub fn refuse_fec_kind(path: &Path, kind: Kind) -> Result<(), Error> {
    match kind {
        Kind::Bits => Ok(()),
        Kind::B66 => Err(Error::Usage(format!(
            "{}: a .b66 stream is the PCS's blocks above the FEC (what `encode --b66` writes \
             before the FEC encoder, what a DUT dumps at its PCS-FEC interface), so it holds no \
             FEC blocks or codewords: give it without --fec (and with --rate 25g at 25G); \
             --fec reads the .bits line below the FEC (`convert LINE.bits PCS.b66 --fec ...` \
             turns one into the other)",
            path.display()
        ))),
        k => Err(Error::Usage(format!(
            "{}: --fec reads a .bits line (the FEC's blocks are bits on the line, not a .{} file)",
            path.display(),
            k.name()
        ))),
    }
}
