//! What every command shares: the exit verdict, errors, output settings, report files, file
//! kinds, output files and the progress bar. `main.rs` parses; each command has its file in
//! `cmd/`.

use crate::format::InputError;
use crate::report::{self, Case};
use baser_engine::Profile;
use mac_core::frame::MaxFrameLength;
use std::fmt;
use std::fs::File;
use std::io::BufWriter;
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

pub fn create(p: &Path) -> Result<BufWriter<File>, Error> {
    File::create(p)
        .map(|f| BufWriter::with_capacity(1 << 16, f))
        .map_err(|e| Error::Output(p.to_path_buf(), e))
}

/// Writes each item of `items` with `write`, naming the file in an error.
pub fn write_all<W, T: Copy>(
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

/// The MAC's largest frame for a `--max-frame-length`.
pub fn max_frame(n: u16) -> MaxFrameLength {
    if n == 1518 {
        MaxFrameLength::Basic
    } else {
        MaxFrameLength::Octets(n)
    }
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
