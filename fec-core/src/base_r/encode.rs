//! The transmit side: 32 scrambled 66-bit blocks in, one FEC block of 2112 line bits out.
//!
//! ```text
//!  32 blocks --transcode (T = SH.1 ^ p8)--> 2080 bits --+-- parity x^32 m(x) mod g(x) --+
//!                                                       v                              v
//!                                            | 32 rows of 65 bits | 32 parity bits | ^ PN-2112
//! ```
//!
//! [`encode`] is the function; [`FecTx`] takes blocks one at a time or as a slice and hands
//! out each FEC block as soon as it has 32 blocks. 32 × 66 = 2112: the line rate is unchanged.
//!
//! Spec: IEEE 802.3 §74.7.4.2, §74.7.4.4, §74.7.4.4.1.

use pcs_core::Block;
use pcs_core::Progress;

use super::parity::ParityKernel;
use super::pn2112::apply_pn2112;
use super::transcode::{pack_rows_into, BLOCKS_PER_FEC_BLOCK, FEC_BLOCK_WORDS};

/// Encodes 32 scrambled blocks into one FEC block: word `k` bit `j` is line bit `64k + j`
/// (bit 0 first on the line; as little-endian octets, the `.bits` layout).
///
/// Spec: IEEE 802.3 §74.7.4.2, §74.7.4.4, §74.7.4.4.1.
#[inline]
#[must_use]
pub fn encode(blocks: &[Block; BLOCKS_PER_FEC_BLOCK]) -> [u64; FEC_BLOCK_WORDS] {
    let mut words = [0u64; FEC_BLOCK_WORDS];
    encode_into(blocks, &mut words);
    words
}

/// [`encode`] writing the 33 line words into `line`.
///
/// Spec: IEEE 802.3 §74.7.4.2, §74.7.4.4, §74.7.4.4.1.
#[inline]
pub fn encode_into(blocks: &[Block; BLOCKS_PER_FEC_BLOCK], line: &mut [u64; FEC_BLOCK_WORDS]) {
    encode_into_with(blocks, line, ParityKernel::TABLES);
}

/// [`encode_into`] with the parity computed by `kernel`.
#[inline]
fn encode_into_with(
    blocks: &[Block; BLOCKS_PER_FEC_BLOCK],
    line: &mut [u64; FEC_BLOCK_WORDS],
    kernel: ParityKernel,
) {
    pack_rows_into(blocks, line);
    let parity = kernel.parity_line_bits(line);
    if let Some(last) = line.last_mut() {
        *last |= u64::from(parity) << 32;
    }
    apply_pn2112(line);
}

/// The transmit FEC: collects 32 blocks and encodes them.
///
/// Spec: IEEE 802.3 §74.7.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecTx {
    blocks: [Block; BLOCKS_PER_FEC_BLOCK],
    len: u8,
    fec_blocks: u64,
    parity: ParityKernel,
}

impl Default for FecTx {
    fn default() -> Self {
        Self::new()
    }
}

impl FecTx {
    /// A transmitter at the start of a FEC block.
    ///
    /// Spec: IEEE 802.3 §74.7.4.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            blocks: [Block::IDLE; BLOCKS_PER_FEC_BLOCK],
            len: 0,
            fec_blocks: 0,
            parity: ParityKernel::TABLES,
        }
    }

    /// This transmitter computing the parity with `kernel` (the tables by default).
    ///
    /// Spec: IEEE 802.3 §74.7.4.4.
    #[must_use]
    pub const fn with_parity_kernel(mut self, kernel: ParityKernel) -> Self {
        self.parity = kernel;
        self
    }

    /// Blocks held for the next FEC block (0..32).
    ///
    /// Spec: IEEE 802.3 §74.7.4.
    #[must_use]
    pub const fn pending_blocks(&self) -> usize {
        self.len as usize
    }

    /// FEC blocks sent so far.
    ///
    /// Spec: IEEE 802.3 §74.7.4.
    #[must_use]
    pub const fn fec_blocks(&self) -> u64 {
        self.fec_blocks
    }

    /// Takes one block; returns the FEC block's 33 line words when this was its 32nd block.
    ///
    /// Spec: IEEE 802.3 §74.7.4.
    #[inline]
    pub fn push_block(&mut self, block: Block) -> Option<[u64; FEC_BLOCK_WORDS]> {
        if let Some(slot) = self.blocks.get_mut(usize::from(self.len)) {
            *slot = block;
            self.len += 1;
        }
        if usize::from(self.len) < BLOCKS_PER_FEC_BLOCK {
            return None;
        }
        self.len = 0;
        self.fec_blocks = self.fec_blocks.wrapping_add(1);
        let mut line = [0u64; FEC_BLOCK_WORDS];
        encode_into_with(&self.blocks, &mut line, self.parity);
        Some(line)
    }

    /// Takes `blocks` and writes whole FEC blocks (33 words each) into `out`, stopping when
    /// `out` has room for no more FEC block or the blocks run out. Blocks taken that do not yet
    /// make a FEC block are held for the next call. Returns the blocks taken and words written.
    ///
    /// Spec: IEEE 802.3 §74.7.4.
    pub fn push_blocks(&mut self, blocks: &[Block], out: &mut [u64]) -> Progress {
        let mut progress = Progress::default();
        let mut blocks = blocks;
        for room in out.chunks_exact_mut(FEC_BLOCK_WORDS) {
            let Some(room) = room.first_chunk_mut::<FEC_BLOCK_WORDS>() else {
                break;
            };
            // Whole FEC blocks straight from the slice when nothing is held.
            if self.len == 0 {
                if let Some((group, rest)) = blocks.split_first_chunk::<BLOCKS_PER_FEC_BLOCK>() {
                    encode_into_with(group, room, self.parity);
                    self.fec_blocks = self.fec_blocks.wrapping_add(1);
                    blocks = rest;
                    progress.consumed += BLOCKS_PER_FEC_BLOCK;
                    progress.produced += FEC_BLOCK_WORDS;
                    continue;
                }
            }
            let mut done = None;
            while let Some((&block, rest)) = blocks.split_first() {
                blocks = rest;
                progress.consumed += 1;
                done = self.push_block(block);
                if done.is_some() {
                    break;
                }
            }
            match done {
                Some(words) => {
                    *room = words;
                    progress.produced += FEC_BLOCK_WORDS;
                }
                None => break,
            }
        }
        // No room for a FEC block: the blocks wait in the caller's slice.
        progress
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base_r::parity::{parity, syndrome};
    use crate::base_r::pn2112::PN2112;
    use crate::vectors::{cl74_vip, cl74_vip_octets, to_words};
    use proptest::prelude::*;

    #[test]
    fn captured_vip_vector_encodes_bit_for_bit() {
        let (blocks, codeword) = cl74_vip();
        let line = encode(&blocks);
        for n in 0..2112 {
            let (got, want) = (
                line[n / 64] >> (n % 64) & 1,
                codeword[n / 64] >> (n % 64) & 1,
            );
            assert_eq!(got, want, "line bit {n}");
        }
        assert_eq!(line, codeword);
    }

    #[test]
    fn zero_data_blocks_give_the_derived_5_6_vector() {
        // FEC-NOTES §5.6: 32 data blocks with all-zero scrambled payload: all T = 1, parity
        // 976aa1ee, first line words (first bit = MSB) 7fffffffff555540 40015555555552aa.
        let blocks = [Block::data(0); 32];
        let mut line = encode(&blocks);
        assert_eq!(line[0].reverse_bits(), 0x7fff_ffff_ff55_5540);
        assert_eq!(line[1].reverse_bits(), 0x4001_5555_5555_52aa);
        for (w, p) in line.iter_mut().zip(PN2112) {
            *w ^= p;
        }
        assert_eq!(parity(&line), 0x976a_a1ee);
        assert_eq!(syndrome(&line), 0);
    }

    #[test]
    fn zero_message_is_sent_as_pn2112_itself() {
        // 32 control blocks with zero payload: every T = 0, parity 0 (FEC-NOTES §1.4).
        assert_eq!(encode(&[Block::control(0); 32]), PN2112);
    }

    #[test]
    fn streaming_transmitter_yields_a_fec_block_every_32_blocks() {
        let (blocks, codeword) = cl74_vip();
        let mut tx = FecTx::new();
        for (i, &b) in blocks.iter().enumerate() {
            let out = tx.push_block(b);
            assert_eq!(out.is_some(), i == 31);
            if let Some(words) = out {
                assert_eq!(words, codeword);
            }
        }
        assert_eq!((tx.pending_blocks(), tx.fec_blocks()), (0, 1));
    }

    #[test]
    fn push_blocks_holds_a_partial_fec_block_and_stops_when_out_is_full() {
        let (blocks, codeword) = cl74_vip();
        let stream: Vec<Block> = blocks.iter().cycle().take(32 * 3 + 5).copied().collect();
        let mut tx = FecTx::new();
        let mut out = vec![0u64; 33 * 2 + 10];
        let p = tx.push_blocks(&stream[..10], &mut out);
        assert_eq!((p.consumed, p.produced), (10, 0));
        let p = tx.push_blocks(&stream[10..], &mut out);
        // Room for two FEC blocks: 54 + 32 blocks taken.
        assert_eq!((p.consumed, p.produced), (22 + 32, 66));
        assert_eq!(&out[..33], &codeword);
        assert_eq!(&out[33..66], &codeword);
        let rest = &stream[10 + p.consumed..];
        let p = tx.push_blocks(rest, &mut out);
        assert_eq!((p.consumed, p.produced), (rest.len(), 33));
        assert_eq!(&out[..33], &codeword);
        assert_eq!(tx.pending_blocks(), 5);
    }

    #[test]
    fn captured_vector_octets_match_words() {
        // The file's octets are little-endian words (bit 0 of octet 0 first on the line).
        let (_, codeword) = cl74_vip();
        let (_, octets) = cl74_vip_octets();
        assert_eq!(to_words(&octets), codeword);
    }

    proptest! {
        #[test]
        fn chunked_push_blocks_equals_encode(
            raw in prop::collection::vec(any::<u64>(), 0..200),
            cuts in prop::collection::vec(0usize..70, 1..8),
        ) {
            let blocks: Vec<Block> = raw.iter().map(|&p| if p & 4 == 0 { Block::data(p) } else { Block::control(p) }).collect();
            let want: Vec<u64> = blocks.chunks_exact(32).flat_map(|g| encode(g.try_into().unwrap())).collect();
            let mut tx = FecTx::new();
            let mut got = Vec::new();
            let mut rest = &blocks[..];
            let mut out = vec![0u64; 33 * 3];
            for &c in cuts.iter().cycle().take(400) {
                let piece = &rest[..c.min(rest.len())];
                let p = tx.push_blocks(piece, &mut out);
                got.extend_from_slice(&out[..p.produced]);
                rest = &rest[p.consumed..];
                if rest.is_empty() { break; }
            }
            loop {
                let p = tx.push_blocks(rest, &mut out);
                got.extend_from_slice(&out[..p.produced]);
                rest = &rest[p.consumed..];
                if p.consumed == 0 && p.produced == 0 { break; }
            }
            prop_assert_eq!(got, want);
        }
    }
}
