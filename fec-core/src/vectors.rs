//! Test helper: the captured vectors of `fec-core/vectors/`, both read by one parser.
//!
//! A file is `#` comment lines, `blocks N`, N lines `H PAYLOAD` (the sync header as a 2-bit
//! value whose bit 0 is first on the line, the scrambled payload in hex), `codeword BITS`, then
//! the line bits as hex octets, bit 0 of octet 0 first (the `.bits` layout).

use pcs_core::{Block, SyncHeader};

use crate::rs::Codeword;

/// The blocks and the codeword octets of a vector file, every count checked.
fn parse<const BLOCKS: usize, const OCTETS: usize>(text: &str) -> ([Block; BLOCKS], [u8; OCTETS]) {
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(lines.next(), Some(format!("blocks {BLOCKS}").as_str()));
    let blocks: Vec<Block> = lines
        .by_ref()
        .take(BLOCKS)
        .map(|l| {
            let (h, p) = l.split_once(' ').unwrap();
            Block {
                sync: SyncHeader::from_bits(h.parse().unwrap()),
                payload: u64::from_str_radix(p, 16).unwrap(),
            }
        })
        .collect();
    assert_eq!(
        lines.next(),
        Some(format!("codeword {}", 8 * OCTETS).as_str())
    );
    let hex: String = lines.collect();
    assert_eq!(hex.len(), 2 * OCTETS);
    let octets: Vec<u8> = (0..OCTETS)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    (blocks.try_into().unwrap(), octets.try_into().unwrap())
}

/// The captured Clause 74 vector as in the file: 32 scrambled blocks and the 264 octets of
/// their FEC block on the line.
pub(crate) fn cl74_vip_octets() -> ([Block; 32], [u8; 264]) {
    parse(include_str!("../vectors/cl74-vip.txt"))
}

/// The captured Clause 74 vector: 32 scrambled blocks and their FEC block as line words.
pub(crate) fn cl74_vip() -> ([Block; 32], [u64; 33]) {
    let (blocks, octets) = cl74_vip_octets();
    (blocks, to_words(&octets))
}

/// The captured Clause 108 vector: 80 scrambled blocks and their 5280-bit codeword.
pub(crate) fn cl108_vip() -> ([Block; 80], Codeword) {
    let (blocks, octets) = parse(include_str!("../vectors/cl108-vip.txt"));
    (blocks, Codeword::from_octets(&octets))
}

/// Little-endian octets to 33 words (written apart from `base_r::from_octets`, which the
/// tests check against it).
pub(crate) fn to_words(octets: &[u8]) -> [u64; 33] {
    let v: Vec<u64> = octets
        .chunks(8)
        .map(|c| c.iter().rev().fold(0u64, |acc, &o| acc << 8 | u64::from(o)))
        .collect();
    v.try_into().unwrap()
}
