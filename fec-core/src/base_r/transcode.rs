//! 66b -> 65b transcoding and the layout of the 32 rows in a FEC block.
//!
//! A row is 65 bits: the transcode bit `T` first on the line, then the 64 payload bits (payload
//! bit 0 first). The first sync bit (`SH.0`) is dropped; `T = SH.1 XOR payload bit 8`. Row `k`
//! starts at line bit `65k`; the 32 rows fill line bits `0..2080` and the parity follows.
//!
//! ```text
//!  line bit   0    1 ...   64   65   66 ...  129  ...  2015  ...  2079   2080 ... 2111
//!            | T0 | payload 0  | T1 | payload 1  | ... | T31 payload 31 | parity MSB first |
//! ```
//!
//! Spec: IEEE 802.3 §74.7.4.2, Figure 74-5 ("Transcode bit T = SH.1 XOR S1.0").

use pcs_core::{Block, SyncHeader};

/// 66-bit blocks per FEC block (the 32 rows).
///
/// Spec: IEEE 802.3 §74.7.1 (the (2112,2080) code, 32 × 65 + 32).
pub const BLOCKS_PER_FEC_BLOCK: usize = 32;
/// Bits in a FEC block on the line: 32 × 65 + 32 = 2112 = 32 × 66 (the line rate is unchanged).
///
/// Spec: IEEE 802.3 §74.7.1.
pub const FEC_BLOCK_BITS: usize = 2112;
/// Message bits of a FEC block: the 32 rows of 65 bits.
///
/// Spec: IEEE 802.3 §74.7.1.
pub const MESSAGE_BITS: usize = 2080;
/// Parity bits of a FEC block, at the end.
///
/// Spec: IEEE 802.3 §74.7.1.
pub const PARITY_BITS: usize = 32;
/// 64-bit line words in a FEC block: 2112 = 33 × 64 exactly. Word `k` bit `j` is line bit
/// `64k + j` (bit 0 first on the line; as little-endian octets this is the `.bits` layout).
///
/// Spec: IEEE 802.3 §74.7.1.
pub const FEC_BLOCK_WORDS: usize = 33;
/// Bits in a transcoded row: `T` and the 64 payload bits.
///
/// Spec: IEEE 802.3 §74.7.4.2.
pub const ROW_BITS: usize = 65;

/// The transcode bit `T` of a block: `SH.1 XOR` payload bit 8 (`SH.1` is header bit 1 in this
/// project's convention, the second sync bit on the line). `SH.0` is dropped, so an invalid
/// header `0b00` is sent as a control block and `0b11` as a data block.
///
/// Spec: IEEE 802.3 §74.7.4.2, Figure 74-5.
#[inline]
#[must_use]
pub const fn transcode_bit(block: Block) -> u8 {
    ((block.sync.to_bits() >> 1) ^ (block.payload >> 8) as u8) & 1
}

/// The sync header rebuilt from a received transcode bit and the (corrected) payload:
/// `SH.1 = T XOR` payload bit 8, `SH.0 = NOT SH.1`. Always a valid header.
///
/// Spec: IEEE 802.3 §74.7.4.2 (the receive inverse of Figure 74-5).
#[inline]
#[must_use]
pub const fn sync_header(transcode_bit: u8, payload: u64) -> SyncHeader {
    if (transcode_bit ^ (payload >> 8) as u8) & 1 == 1 {
        SyncHeader::DATA
    } else {
        SyncHeader::CONTROL
    }
}

/// A block's 65-bit row: bit 0 the transcode bit, bits 1..=64 the payload (bit 0 first).
///
/// Spec: IEEE 802.3 §74.7.4.2.
#[inline]
#[must_use]
pub const fn transcode(block: Block) -> u128 {
    (block.payload as u128) << 1 | transcode_bit(block) as u128
}

/// The block of a received 65-bit row (bits above 64 are ignored).
///
/// Spec: IEEE 802.3 §74.7.4.2.
#[inline]
#[must_use]
pub const fn untranscode(row: u128) -> Block {
    let payload = (row >> 1) as u64;
    Block {
        sync: sync_header(row as u8 & 1, payload),
        payload,
    }
}

/// Expands `$m!(k)` for k = 0..32: the 32 rows with constant shifts and indices (checked at
/// compile time).
macro_rules! each_row {
    ($m:ident) => {
        $m!(0);
        $m!(1);
        $m!(2);
        $m!(3);
        $m!(4);
        $m!(5);
        $m!(6);
        $m!(7);
        $m!(8);
        $m!(9);
        $m!(10);
        $m!(11);
        $m!(12);
        $m!(13);
        $m!(14);
        $m!(15);
        $m!(16);
        $m!(17);
        $m!(18);
        $m!(19);
        $m!(20);
        $m!(21);
        $m!(22);
        $m!(23);
        $m!(24);
        $m!(25);
        $m!(26);
        $m!(27);
        $m!(28);
        $m!(29);
        $m!(30);
        $m!(31);
    };
}

/// The 32 rows of `blocks` laid out in line words: line bits `0..2080`; the parity bits
/// (the high half of word 32) are left zero.
///
/// Spec: IEEE 802.3 §74.7.4.2, §74.7.1.
#[inline]
#[must_use]
// Constant indices below 33 into arrays of 32 and 33: checked at compile time.
#[allow(clippy::indexing_slicing)]
pub fn pack_rows(blocks: &[Block; BLOCKS_PER_FEC_BLOCK]) -> [u64; FEC_BLOCK_WORDS] {
    let mut words = [0u64; FEC_BLOCK_WORDS];
    pack_rows_into(blocks, &mut words);
    words
}

/// [`pack_rows`] writing each of the 33 words of `words` once (the parity's place, the high
/// half of word 32, zero).
///
/// Spec: IEEE 802.3 §74.7.4.2.
#[inline]
// Constant indices below 33 into arrays of 32 and 33: checked at compile time.
#[allow(clippy::indexing_slicing)]
pub fn pack_rows_into(blocks: &[Block; BLOCKS_PER_FEC_BLOCK], words: &mut [u64; FEC_BLOCK_WORDS]) {
    // Row k starts at line bit 65k = 64k + k: T_k at bit k of word k, the payload from bit
    // k + 1 on, its top k + 1 bits (from payload bit 63 - k) in word k + 1 (carried).
    let mut carry = 0;
    macro_rules! row {
        ($k:literal) => {
            let block = blocks[$k];
            let t = u64::from(transcode_bit(block));
            words[$k] = carry | t << $k | block.payload << ($k + 1);
            carry = block.payload >> (63 - $k);
        };
    }
    each_row!(row);
    words[BLOCKS_PER_FEC_BLOCK] = carry;
}

/// The 32 blocks of line words whose line bits `0..2080` are the rows (after descrambling and
/// correction), with their sync headers rebuilt. The parity bits are not read.
///
/// Spec: IEEE 802.3 §74.7.4.2.
#[inline]
#[must_use]
pub fn unpack_rows(words: &[u64; FEC_BLOCK_WORDS]) -> [Block; BLOCKS_PER_FEC_BLOCK] {
    let mut blocks = [Block::IDLE; BLOCKS_PER_FEC_BLOCK];
    unpack_rows_into(words, &mut blocks);
    blocks
}

/// [`unpack_rows`] writing into `blocks`.
///
/// Spec: IEEE 802.3 §74.7.4.2.
#[inline]
// Constant indices below 33 into arrays of 32 and 33: checked at compile time.
#[allow(clippy::indexing_slicing)]
pub fn unpack_rows_into(
    words: &[u64; FEC_BLOCK_WORDS],
    blocks: &mut [Block; BLOCKS_PER_FEC_BLOCK],
) {
    macro_rules! row {
        ($k:literal) => {
            // Row k: T at bit k of word k, the payload from bit k + 1 (k < 32: shifts < 64).
            let (lo, hi) = (words[$k], words[$k + 1]);
            let payload = lo >> ($k + 1) | hi << (63 - $k);
            blocks[$k] = Block {
                sync: sync_header((lo >> $k) as u8 & 1, payload),
                payload,
            };
        };
    }
    each_row!(row);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn line_bit(words: &[u64; FEC_BLOCK_WORDS], n: usize) -> u8 {
        (words[n / 64] >> (n % 64)) as u8 & 1
    }

    #[test]
    fn transcode_bit_is_sh1_xor_payload_bit_8() {
        // Data (SH.1 = 1) and control (SH.1 = 0), payload bit 8 clear and set.
        assert_eq!(transcode_bit(Block::data(0)), 1);
        assert_eq!(transcode_bit(Block::data(1 << 8)), 0);
        assert_eq!(transcode_bit(Block::control(0)), 0);
        assert_eq!(transcode_bit(Block::control(1 << 8)), 1);
        // Other payload bits do not matter.
        assert_eq!(transcode_bit(Block::data(!(1u64 << 8))), 1);
    }

    #[test]
    fn transcode_drops_sh0() {
        let bad00 = Block {
            sync: SyncHeader::from_bits(0b00),
            payload: 0x1234,
        };
        let bad11 = Block {
            sync: SyncHeader::from_bits(0b11),
            payload: 0x1234,
        };
        assert_eq!(untranscode(transcode(bad00)), Block::control(0x1234));
        assert_eq!(untranscode(transcode(bad11)), Block::data(0x1234));
    }

    #[test]
    fn row_k_starts_at_line_bit_65k_with_t_first() {
        let mut blocks = [Block::control(0); 32];
        blocks[5] = Block::data(0b1); // T5 = 1, payload bit 0 = 1
        blocks[31] = Block::control(1 << 63); // T31 = 0, payload bit 63 = 1
        let words = pack_rows(&blocks);
        let ones: Vec<usize> = (0..2112).filter(|&n| line_bit(&words, n) == 1).collect();
        assert_eq!(ones, vec![65 * 5, 65 * 5 + 1, 65 * 31 + 64]);
    }

    proptest! {
        #[test]
        fn pack_then_unpack_gives_the_blocks_back(
            raw in prop::collection::vec((any::<bool>(), any::<u64>()), 32),
        ) {
            let mut blocks = [Block::IDLE; 32];
            for (b, (data, p)) in blocks.iter_mut().zip(raw) {
                *b = if data { Block::data(p) } else { Block::control(p) };
            }
            let words = pack_rows(&blocks);
            prop_assert_eq!(words[32] >> 32, 0, "parity bits left zero");
            prop_assert_eq!(unpack_rows(&words), blocks);
            // Bit by bit against the row layout.
            for (k, b) in blocks.iter().enumerate() {
                prop_assert_eq!(line_bit(&words, 65 * k), transcode_bit(*b));
                for j in 0..64 {
                    prop_assert_eq!(u64::from(line_bit(&words, 65 * k + 1 + j)), b.payload >> j & 1);
                }
            }
        }
    }
}
