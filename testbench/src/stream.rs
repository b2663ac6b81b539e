//! Stream files into the engine's RX chain: `.bits` bytes, `.b66` blocks, `.xgmii` transfers,
//! read in large pieces and handed over as slices, so that the chain's batch paths run.

use crate::format::b66::{B66Reader, Scrambling};
use crate::format::xgmii::XgmiiReader;
use crate::format::InputError;
use baser_engine::rx::{FrameCounts, PcsSummary, RxChain, RxInput, RxOptions, RxSink};
use pcs_core::{Block, XgmiiWord};
use std::io::{BufReader, Read};
use std::path::Path;

/// Records (blocks, transfers) handed to the chain at a time.
const PIECE: usize = 4096;

/// What a decode returns.
pub type Decoded<K> = (PcsSummary, FrameCounts, K);

/// Decodes the stream file at `path`; its kind is its extension (`bits`, `b66`, `xgmii`).
/// `progress` is told the bytes (`.bits`) or records (text) read so far.
///
/// # Errors
/// The input cannot be read or parsed, or the sink failed.
pub fn decode_path<K: RxSink>(
    path: &Path,
    opt: &RxOptions,
    sink: K,
    progress: &dyn Fn(u64),
) -> Result<Decoded<K>, InputError> {
    let kind = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let file = std::fs::File::open(path).map_err(|e| InputError::io(path, &e))?;
    decode_reader(&kind, file, path, opt, sink, progress)
}

/// As [`decode_path`], from any reader of a stream of kind `kind` (`bits`, `b66` or
/// `xgmii`); `path` names it in errors.
///
/// # Errors
/// The input cannot be read or parsed, or the sink failed.
pub fn decode_reader<K: RxSink, R: Read>(
    kind: &str,
    mut file: R,
    path: &Path,
    opt: &RxOptions,
    sink: K,
    progress: &dyn Fn(u64),
) -> Result<Decoded<K>, InputError> {
    let sink_failed = |e: std::io::Error| InputError::file(path, format!("output failed: {e}"));
    match kind {
        "xgmii" => {
            let reader = XgmiiReader::new(BufReader::with_capacity(1 << 16, file), path);
            let mut chain = RxChain::new(opt, RxInput::Xgmii, sink);
            let mut piece: Vec<XgmiiWord> = Vec::with_capacity(PIECE);
            let mut n = 0u64;
            for w in reader {
                piece.push(w?);
                if piece.len() == PIECE {
                    chain.push_xgmii(&piece);
                    n += piece.len() as u64;
                    piece.clear();
                    if n % (1 << 20) == 0 {
                        progress(n);
                    }
                }
            }
            chain.push_xgmii(&piece);
            if chain.blocks_received() == 0 {
                return Err(InputError::file(path, "no transfers in the file"));
            }
            chain.finish().map_err(sink_failed)
        }
        "b66" => {
            let reader = B66Reader::new(BufReader::with_capacity(1 << 16, file), path)?;
            let header = reader.header();
            let input = RxInput::Blocks {
                scrambled: header.scrambling == Scrambling::Scrambled,
                descrambler_state: header.scrambler_state,
            };
            let mut chain = RxChain::new(opt, input, sink);
            let mut piece: Vec<Block> = Vec::with_capacity(PIECE);
            let mut n = 0u64;
            for b in reader {
                piece.push(b?);
                if piece.len() == PIECE {
                    chain.push_blocks(&piece);
                    n += piece.len() as u64;
                    piece.clear();
                    if n % (1 << 20) == 0 {
                        progress(n);
                    }
                }
            }
            chain.push_blocks(&piece);
            if chain.blocks_received() == 0 {
                return Err(InputError::file(path, "no blocks in the file"));
            }
            chain.finish().map_err(sink_failed)
        }
        "bits" => {
            let mut chain = RxChain::new(opt, RxInput::Serial, sink);
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
