//! Test helper: the captured Clause 108 vector (fec-core/vectors/cl108-vip.txt).

use pcs_core::block::{Block, SyncHeader};

use super::codeword::{Codeword, CODEWORD_OCTETS};
use super::tx::BLOCKS_PER_CODEWORD;

const VECTOR: &str = include_str!("../../vectors/cl108-vip.txt");

/// The 80 scrambled blocks.
pub(crate) fn vip_blocks() -> [Block; BLOCKS_PER_CODEWORD] {
    let mut lines = VECTOR.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(lines.next(), Some("blocks 80"));
    let blocks: Vec<Block> = lines
        .by_ref()
        .take(80)
        .map(|l| {
            let (h, p) = l.split_once(' ').unwrap();
            Block {
                sync: SyncHeader::from_bits(h.parse().unwrap()),
                payload: u64::from_str_radix(p, 16).unwrap(),
            }
        })
        .collect();
    blocks.try_into().unwrap()
}

/// The 5280-bit codeword.
pub(crate) fn vip_codeword() -> Codeword {
    let hex: String = VECTOR
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip_while(|l| !l.starts_with("codeword"))
        .skip(1)
        .collect();
    let octets: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let octets: [u8; CODEWORD_OCTETS] = octets.try_into().unwrap();
    Codeword::from_octets(&octets)
}
