//! The PN-2112 sequence: the FEC-level scrambler XORed over every bit of a FEC block (message
//! and parity) after the parity is computed, restarted at the start of every FEC block.
//!
//! ```text
//!  r(x) = 1 + x^39 + x^58, state S57..S0, seed S57 = 1, S56 = 0, ... S1 = 1, S0 = 0
//!
//!  per bit:  o = S38 ^ S57;  line bit n ^= o;  S_i <- S_{i-1};  S0 <- o
//! ```
//!
//! The sequence does not depend on the data, so it is the table [`PN2112`], computed bit by
//! bit at compile time. Scrambling and descrambling are the same XOR.
//!
//! Spec: IEEE 802.3 §74.7.4.4.1, Annex 74A (Table 74A-4).

use super::transcode::{FEC_BLOCK_BITS, FEC_BLOCK_WORDS};

/// The PN-2112 generator state at the start of every FEC block, as a 58-bit integer with `S57`
/// as bit 57: `S57 = 1, S(i-1) = S(i) XOR 1`, i.e. `1010…10`.
///
/// Spec: IEEE 802.3 §74.7.4.4.1.
pub const PN2112_SEED: u64 = 0x2AA_AAAA_AAAA_AAAA;

/// The 58 state bits.
const STATE_MASK: u64 = (1 << 58) - 1;

/// One step of the generator: the output bit and the next state.
///
/// Spec: IEEE 802.3 §74.7.4.4.1.
const fn pn2112_step(state: u64) -> (u64, u64) {
    let o = ((state >> 38) ^ (state >> 57)) & 1;
    (o, ((state << 1) | o) & STATE_MASK)
}

/// The 2112 PN-2112 bits as line words: word `k` bit `j` is the bit XORed onto line bit
/// `64k + j`. Computed bit by bit from [`PN2112_SEED`] at compile time.
///
/// Spec: IEEE 802.3 §74.7.4.4.1.
// Built at compile time: an index out of range would fail the build, not panic.
#[allow(clippy::indexing_slicing)]
pub const PN2112: [u64; FEC_BLOCK_WORDS] = {
    let mut words = [0u64; FEC_BLOCK_WORDS];
    let mut state = PN2112_SEED;
    let mut n = 0;
    while n < FEC_BLOCK_BITS {
        let (o, next) = pn2112_step(state);
        words[n / 64] |= o << (n % 64);
        state = next;
        n += 1;
    }
    words
};

/// XORs PN-2112 over a FEC block: scrambles a block on transmit, descrambles one on receive.
///
/// Spec: IEEE 802.3 §74.7.4.4.1.
#[inline]
pub fn apply_pn2112(words: &mut [u64; FEC_BLOCK_WORDS]) {
    for (w, p) in words.iter_mut().zip(PN2112.iter()) {
        *w ^= p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator run bit by bit at run time (not through the table).
    fn pn_bits() -> Vec<u8> {
        let mut state = PN2112_SEED;
        (0..2112)
            .map(|_| {
                let (o, next) = pn2112_step(state);
                state = next;
                o as u8
            })
            .collect()
    }

    #[test]
    fn seed_is_alternating_from_s57_one() {
        for i in 0..58 {
            assert_eq!(PN2112_SEED >> i & 1, u64::from(i % 2 == 1), "S{i}");
        }
        assert_eq!(PN2112_SEED >> 58, 0);
    }

    #[test]
    fn pn2112_table_equals_the_bit_serial_generator() {
        let bits = pn_bits();
        for (n, &b) in bits.iter().enumerate() {
            assert_eq!((PN2112[n / 64] >> (n % 64)) as u8 & 1, b, "bit {n}");
        }
    }

    #[test]
    fn pn2112_first_and_last_words_match_the_fact_sheet() {
        // FEC-NOTES §1.4 and §5.6 write each word first bit = MSB.
        let msb_first = PN2112.map(u64::reverse_bits);
        assert_eq!(
            msb_first[..4],
            [
                0xffff_ffff_ff55_5540,
                0x0001_5555_5555_52aa,
                0xaaff_fff0_0001_5555,
                0x5fff_feaa_aaea_aaaa
            ]
        );
        assert_eq!(msb_first[32], 0xf552_a155_0115_5fbf);
    }

    #[test]
    fn applying_pn2112_twice_is_the_identity() {
        let mut words: [u64; 33] =
            core::array::from_fn(|k| (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let before = words;
        apply_pn2112(&mut words);
        assert_ne!(words, before);
        apply_pn2112(&mut words);
        assert_eq!(words, before);
    }
}
