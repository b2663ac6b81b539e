//! A whole stream in memory through the RX chain, in a view: what `baser decode` and
//! `baser check` do with a file, for a door that holds the stream (the Python package).
//!
//! ```text
//! bits   --(Receiver: RxInput::Serial | Offline: find_lock, then SerialAligned)--> RxChain
//! units  --(66 bits a clock at any offset: as bits)---------------------------------> RxChain
//! blocks --(RxInput::Blocks: scrambled or not, descrambler state known or trained)--> RxChain
//! xgmii  --(RxInput::Xgmii)----------------------------------------------------------> RxChain
//! ```
//!
//! A `.b66`-like stream in error that decodes cleanly with its sync headers exchanged gets a
//! hint ([`swapped_headers_hint`]): the rule and its words live here, for every door.

use crate::live::RxView;
use crate::rx::{find_lock, FrameCounts, PcsSummary, RxChain, RxInput, RxOptions, RxSink};
use pcs_core::TxGearbox;
use pcs_core::{Block, SyncHeader, XgmiiWord};

/// A stream to decode.
#[derive(Clone, Copy, Debug)]
pub enum Stream<'a> {
    /// Serial bits, bit 0 of byte 0 first on the wire.
    Bits(&'a [u8]),
    /// 66 serial bits a clock at any offset (a serdes interface's `(header, payload)`).
    Units(&'a [Block]),
    /// Blocks at known boundaries (a `.b66` file).
    Blocks {
        /// The blocks.
        blocks: &'a [Block],
        /// The payloads are scrambled.
        scrambled: bool,
        /// The descrambler's start state (`None`: the first block trains it).
        descrambler_state: Option<u64>,
    },
    /// XGMII transfers.
    Xgmii(&'a [XgmiiWord]),
}

/// Why a stream was not decoded.
#[derive(Debug)]
#[non_exhaustive]
pub enum DecodeStreamError {
    /// The stream is empty.
    Empty(&'static str),
    /// The sink failed.
    Sink(std::io::Error),
}

impl std::fmt::Display for DecodeStreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty(what) => f.write_str(what),
            Self::Sink(e) => write!(f, "output failed: {e}"),
        }
    }
}

impl std::error::Error for DecodeStreamError {}

/// What a decode returns: the PCS summary, the frame counts and the sink.
pub type Decoded<K> = (PcsSummary, FrameCounts, K);

/// The offline view's input for a serial stream: its block boundary found first (`None` if
/// a receiver never locks: then it is read as a receiver reads it).
fn serial_input(view: RxView, bits: impl FnOnce() -> Vec<u8>) -> RxInput {
    if view == RxView::Receiver {
        return RxInput::Serial;
    }
    match find_lock(&bits()) {
        Some(found) => RxInput::SerialAligned {
            bit_offset: u32::try_from(found.bit_offset % 66).unwrap_or(0),
            found,
        },
        None => RxInput::Serial,
    }
}

/// The serial bytes of 66-bit units.
fn unit_bytes(units: &[Block]) -> Vec<u8> {
    let mut gb = TxGearbox::<u8>::new();
    let mut out = Vec::with_capacity(units.len() * 66 / 8 + 1);
    for &u in units {
        out.extend_from_slice(gb.push_block(u).as_slice());
    }
    out
}

/// Blocks with their sync headers 1 and 2 exchanged.
pub fn swap_headers(blocks: &mut [Block]) {
    for b in blocks {
        b.sync = SyncHeader::from_bits(match b.sync.to_bits() {
            1 => 2,
            2 => 1,
            h => h,
        });
    }
}

/// Decodes `s` into `sink` with `opt`; serial input is read in `view`.
///
/// # Errors
/// The stream is empty, or the sink failed.
pub fn decode<K: RxSink>(
    s: Stream<'_>,
    opt: &RxOptions,
    view: RxView,
    sink: K,
) -> Result<Decoded<K>, DecodeStreamError> {
    let chain = match s {
        Stream::Bits(b) => {
            if b.is_empty() {
                return Err(DecodeStreamError::Empty("0 bytes: no bits to decode"));
            }
            let mut c = RxChain::new(opt, serial_input(view, || b.to_vec()), sink);
            c.push_bytes(b);
            c
        }
        Stream::Units(u) => {
            if u.is_empty() {
                return Err(DecodeStreamError::Empty("no units to decode"));
            }
            let mut c = RxChain::new(opt, serial_input(view, || unit_bytes(u)), sink);
            c.push_units(u);
            c
        }
        Stream::Blocks {
            blocks,
            scrambled,
            descrambler_state,
        } => {
            if blocks.is_empty() {
                return Err(DecodeStreamError::Empty("no blocks to decode"));
            }
            let input = RxInput::Blocks {
                scrambled,
                descrambler_state,
            };
            let mut c = RxChain::new(opt, input, sink);
            c.push_blocks(blocks);
            c
        }
        Stream::Xgmii(w) => {
            if w.is_empty() {
                return Err(DecodeStreamError::Empty("no transfers to decode"));
            }
            let mut c = RxChain::new(opt, RxInput::Xgmii, sink);
            c.push_xgmii(w);
            c
        }
    };
    chain.finish().map_err(DecodeStreamError::Sink)
}

/// When a stream of blocks decoded with many errors (`seen`: more than a quarter of its
/// blocks), whether it decodes cleanly with its sync headers exchanged (data written as 1,
/// control as 2): then the hint to give. `swapped` decodes the stream again that way and
/// returns its summary.
///
/// # Errors
/// What `swapped` returns.
pub fn swapped_headers_hint<E>(
    seen: &PcsSummary,
    swapped: impl FnOnce() -> Result<PcsSummary, E>,
) -> Result<Option<String>, E> {
    let bad = seen.errored_blocks + seen.invalid_headers;
    if seen.input != crate::rx::StreamKind::B66 || bad * 4 <= seen.blocks {
        return Ok(None);
    }
    let pcs = swapped()?;
    Ok((pcs.errored_blocks == 0 && pcs.invalid_headers == 0).then(|| {
        format!(
            "the sync headers look swapped: {bad} blocks are in error as written, none with 1 and 2 exchanged; write data blocks as 2 and control blocks as 1 (the header's bit 0 is the first bit on the wire)"
        )
    }))
}

/// [`swapped_headers_hint`] for a stream in memory: blocks are decoded again with their
/// headers exchanged; other streams get no hint.
///
/// # Errors
/// As [`decode`].
pub fn hint(
    s: Stream<'_>,
    opt: &RxOptions,
    seen: &PcsSummary,
) -> Result<Option<String>, DecodeStreamError> {
    let Stream::Blocks {
        blocks,
        scrambled,
        descrambler_state,
    } = s
    else {
        return Ok(None);
    };
    swapped_headers_hint(seen, || {
        let mut b = blocks.to_vec();
        swap_headers(&mut b);
        let s = Stream::Blocks {
            blocks: &b,
            scrambled,
            descrambler_state,
        };
        decode(s, opt, RxView::Receiver, ()).map(|(pcs, _, ())| pcs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tx::{TxChain, TxOptions, VecSink};

    #[test]
    fn swapped_headers_are_named_and_empty_streams_refused() {
        let opt = crate::Options::default().rx();
        let mut chain = TxChain::new(&TxOptions::default(), VecSink::default());
        for i in 0..4u8 {
            chain.frame(&[i; 100], None).unwrap();
        }
        let (sink, _) = chain.finish().unwrap();
        let mut blocks = sink.lines.clone();
        swap_headers(&mut blocks);
        let s = Stream::Blocks {
            blocks: &blocks,
            scrambled: true,
            descrambler_state: None,
        };
        let (pcs, _, ()) = decode(s, &opt, RxView::Receiver, ()).unwrap();
        let h = hint(s, &opt, &pcs).unwrap().expect("a hint");
        assert!(h.starts_with("the sync headers look swapped"), "{h}");
        let clean = Stream::Blocks {
            blocks: &sink.lines,
            scrambled: true,
            descrambler_state: None,
        };
        let (pcs, counts, ()) = decode(clean, &opt, RxView::Receiver, ()).unwrap();
        assert_eq!(counts.total, 4);
        assert_eq!(hint(clean, &opt, &pcs).unwrap(), None);
        let e = decode(Stream::Bits(&[]), &opt, RxView::Offline, ()).unwrap_err();
        assert_eq!(e.to_string(), "0 bytes: no bits to decode");
    }
}
