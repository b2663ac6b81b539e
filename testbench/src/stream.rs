//! Stream files into the engine's RX chain: `.bits` bytes, `.b66` blocks, `.xgmii` transfers,
//! read in large pieces and handed over as slices, so that the chain's batch paths run.
//!
//! A `.bits` stream is read as a receiver sees it (block lock from the first bit; nothing is
//! decoded before lock) or offline (a first pass finds the block boundary; the second decodes
//! from the first whole block with lock held: what a transmit dump is checked with).

use baser_engine::fec::{FecOptions, FecRxChain, FecSummary};
use baser_engine::live::RxView;
use baser_engine::rx::{FrameCounts, LockFinder, PcsSummary, RxChain, RxInput, RxOptions, RxSink};
use baser_files::b66::{B66Reader, Scrambling};
use baser_files::xgmii::XgmiiReader;
use baser_files::InputError;
use pcs_core::{Block, XgmiiWord};
use std::io::{BufReader, Read};
use std::path::Path;

/// Records (blocks, transfers) handed to the chain at a time.
const PIECE: usize = 4096;

/// What a decode returns.
pub type Decoded<K> = (PcsSummary, FrameCounts, K);

/// Decodes the stream file at `path` of kind `kind` (`bits`, `b66` or `xgmii`), `.bits` in
/// the view `view`. `progress` is told the bytes (`.bits`) or records (text) read so far.
///
/// # Errors
/// The input cannot be read or parsed, or the sink failed.
pub fn decode_kind<K: RxSink>(
    kind: &str,
    path: &Path,
    opt: &RxOptions,
    view: RxView,
    sink: K,
    progress: &dyn Fn(u64),
) -> Result<Decoded<K>, InputError> {
    let open = || -> Result<Box<dyn Read>, InputError> {
        let f = std::fs::File::open(path).map_err(|e| InputError::io(path, &e))?;
        Ok(Box::new(f))
    };
    decode_source(kind, &open, path, opt, view, false, sink, progress)
}

/// As [`decode_kind`], on the stream's first `records` blocks (text: lines, comments
/// included; `.bits`: `records` blocks' worth of bits): the transfers of blocks well before
/// the end of the prefix are those of the whole stream, as every stage is causal.
///
/// # Errors
/// As [`decode_kind`].
pub fn decode_prefix<K: RxSink>(
    kind: &str,
    path: &Path,
    records: u64,
    opt: &RxOptions,
    view: RxView,
    sink: K,
) -> Result<Decoded<K>, InputError> {
    let open = || -> Result<Box<dyn Read>, InputError> {
        let f = std::fs::File::open(path).map_err(|e| InputError::io(path, &e))?;
        Ok(match kind {
            "bits" => Box::new(f.take(records.saturating_add(1).saturating_mul(66) / 8 + 9)),
            _ => Box::new(Lines {
                inner: BufReader::with_capacity(1 << 16, f),
                left: records,
            }),
        })
    };
    decode_source(kind, &open, path, opt, view, false, sink, &|_| {})
}

/// What a decode below a FEC returns.
pub type FecDecoded<K> = (PcsSummary, FrameCounts, K, FecSummary);

/// A `.bits` line below a FEC, as [`decode_fec`] reads it.
#[derive(Clone, Copy)]
pub struct FecLine<'a> {
    /// The FEC.
    pub fec: &'a FecOptions,
    /// Offline (a Clause 74 line's boundary found first) or as a receiver sees it.
    pub view: RxView,
    /// Faults put on the line first (then it is read whole).
    pub faults: &'a [baser_engine::inject::Fault],
}

impl<'a> FecLine<'a> {
    /// The line below `fec`, in `view`, without faults.
    pub fn new(fec: &'a FecOptions, view: RxView) -> Self {
        Self {
            fec,
            view,
            faults: &[],
        }
    }
}

/// Decodes the `.bits` line at `path` through the RX chain below the FEC of `line` (the FEC
/// locks from any bit offset, or offline finds its boundary first; the PCS gets the blocks of
/// what it decoded while locked): at most `max_bytes` of it (all: `u64::MAX`). `progress` is
/// told the bytes read so far.
///
/// # Errors
/// The input cannot be read, a fault or a FEC setting is refused (the message names it), or
/// the sink failed.
pub fn decode_fec<K: RxSink>(
    path: &Path,
    opt: &RxOptions,
    line: FecLine<'_>,
    max_bytes: u64,
    sink: K,
    progress: &dyn Fn(u64),
) -> Result<FecDecoded<K>, crate::command::Error> {
    use crate::command::Error;
    let FecLine { fec, view, faults } = line;
    let mut chain = FecRxChain::with_view(opt, fec, view, sink).map_err(Error::Usage)?;
    let file = std::fs::File::open(path).map_err(|e| InputError::io(path, &e))?;
    let mut file = file.take(max_bytes);
    let mut total = 0u64;
    if faults.is_empty() {
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = match file.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(InputError::io(path, &e).into()),
            };
            if n == 0 {
                break;
            }
            chain.push_bytes(buf.get(..n).unwrap_or_default());
            total += n as u64;
            progress(total);
        }
    } else {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| InputError::io(path, &e))?;
        baser_engine::inject::corrupt_line(&mut bytes, faults).map_err(Error::Usage)?;
        chain.push_bytes(&bytes);
        total = bytes.len() as u64;
    }
    if total == 0 {
        return Err(InputError::file(path, "0-byte .bits file: no bits to decode").into());
    }
    chain.finish().map_err(Error::Sink)
}

/// A text file's first `left` lines.
struct Lines<R> {
    inner: R,
    left: u64,
}

impl<R: std::io::BufRead> Read for Lines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Ok(0);
        }
        let have = self.inner.fill_buf()?;
        let mut n = 0;
        for &b in have.iter().take(buf.len()) {
            n += 1;
            if b == b'\n' {
                self.left -= 1;
                if self.left == 0 {
                    break;
                }
            }
        }
        if let (Some(to), Some(from)) = (buf.get_mut(..n), have.get(..n)) {
            to.copy_from_slice(from);
        }
        self.inner.consume(n);
        Ok(n)
    }
}

/// When a `.b66` stream decoded with many errors, whether it decodes cleanly with its sync
/// headers exchanged (1 <-> 2: data written as 1): then the hint to give.
///
/// # Errors
/// The input cannot be read again.
pub fn swapped_headers_hint(
    path: &Path,
    opt: &RxOptions,
    seen: &PcsSummary,
) -> Result<Option<String>, InputError> {
    baser_engine::stream::swapped_headers_hint(seen, || {
        let open = || -> Result<Box<dyn Read>, InputError> {
            let f = std::fs::File::open(path).map_err(|e| InputError::io(path, &e))?;
            Ok(Box::new(f))
        };
        let (pcs, _, ()) =
            decode_source("b66", &open, path, opt, RxView::Receiver, true, (), &|_| {})?;
        Ok(pcs)
    })
}

/// As [`decode_kind`], from bytes in memory of a stream of kind `kind`; `path` names it in
/// errors.
///
/// # Errors
/// As [`decode_kind`].
pub fn decode_bytes<K: RxSink>(
    kind: &str,
    bytes: &[u8],
    path: &Path,
    opt: &RxOptions,
    view: RxView,
    sink: K,
    progress: &dyn Fn(u64),
) -> Result<Decoded<K>, InputError> {
    let open = || -> Result<Box<dyn Read + '_>, InputError> { Ok(Box::new(bytes)) };
    decode_source(kind, &open, path, opt, view, false, sink, progress)
}

/// Hands what `read` gives to `push` in pieces of [`PIECE`], telling `progress` the count
/// every 2^20.
fn in_pieces<T>(
    mut read: impl FnMut(&mut Vec<T>, usize) -> Result<bool, InputError>,
    progress: &dyn Fn(u64),
    mut push: impl FnMut(&mut [T]),
) -> Result<(), InputError> {
    let mut piece: Vec<T> = Vec::with_capacity(PIECE);
    let mut n = 0u64;
    loop {
        let more = read(&mut piece, PIECE)?;
        push(&mut piece);
        n += piece.len() as u64;
        piece.clear();
        if !more {
            return Ok(());
        }
        if n % (1 << 20) < PIECE as u64 {
            progress(n);
        }
    }
}

/// Where an offline view's block boundary is: a first pass until a receiver locks.
fn find_boundary(mut file: impl Read, path: &Path) -> Result<Option<RxInput>, InputError> {
    let mut finder = LockFinder::default();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let got = match file.read(&mut chunk) {
            Ok(0) => return Ok(None),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(InputError::io(path, &e)),
        };
        if let Some(found) = finder.push_bytes(chunk.get(..got).unwrap_or_default()) {
            let bit_offset = u32::try_from(found.bit_offset % 66).unwrap_or(0);
            return Ok(Some(RxInput::SerialAligned { bit_offset, found }));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn decode_source<'a, K: RxSink>(
    kind: &str,
    open: &dyn Fn() -> Result<Box<dyn Read + 'a>, InputError>,
    path: &Path,
    opt: &RxOptions,
    view: RxView,
    swap_headers: bool,
    sink: K,
    progress: &dyn Fn(u64),
) -> Result<Decoded<K>, InputError> {
    let sink_failed = |e: std::io::Error| InputError::file(path, format!("output failed: {e}"));
    let file = open()?;
    match kind {
        "xgmii" => {
            let mut reader = XgmiiReader::new(BufReader::with_capacity(1 << 16, file), path);
            let mut chain = RxChain::new(opt, RxInput::Xgmii, sink);
            in_pieces(
                |out, max| reader.read_words(out, max),
                progress,
                |p: &mut [XgmiiWord]| chain.push_xgmii(p),
            )?;
            if chain.blocks_received() == 0 {
                return Err(InputError::file(path, "no transfers in the file"));
            }
            chain.finish().map_err(sink_failed)
        }
        "b66" => {
            let mut reader = B66Reader::new(BufReader::with_capacity(1 << 16, file), path)?;
            let header = reader.header();
            let input = RxInput::Blocks {
                scrambled: header.scrambling == Scrambling::Scrambled,
                descrambler_state: header.scrambler_state,
            };
            let mut chain = RxChain::new(opt, input, sink);
            in_pieces(
                |out, max| reader.read_blocks(out, max),
                progress,
                |p: &mut [Block]| {
                    if swap_headers {
                        baser_engine::stream::swap_headers(p);
                    }
                    chain.push_blocks(p);
                },
            )?;
            if chain.blocks_received() == 0 {
                return Err(InputError::file(path, "no blocks in the file"));
            }
            chain.finish().map_err(sink_failed)
        }
        "bits" => {
            let (input, mut file) = match view {
                RxView::Receiver => (RxInput::Serial, file),
                RxView::Offline => match find_boundary(file, path)? {
                    // No lock anywhere: the receiver's view says so.
                    None => (RxInput::Serial, open()?),
                    Some(input) => (input, open()?),
                },
            };
            let mut chain = RxChain::new(opt, input, sink);
            let mut chunk = vec![0u8; 1 << 16];
            let mut total = 0u64;
            loop {
                let got = match file.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(InputError::io(path, &e)),
                };
                total += got as u64;
                chain.push_bytes(chunk.get(..got).unwrap_or_default());
                progress(total);
            }
            if total == 0 {
                return Err(InputError::file(
                    path,
                    "0-byte .bits file: no bits to decode",
                ));
            }
            chain.finish().map_err(sink_failed)
        }
        _ => Err(InputError::file(
            path,
            "unknown stream kind: expected .bits, .b66 or .xgmii",
        )),
    }
}
