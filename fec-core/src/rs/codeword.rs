//! The 5280-bit RS(528,514) codeword as line bits.
//!
//! ```text
//!  line bit 0                                   5140                  5280
//!  | 514 message symbols (20 x 257 transcoded)  | 14 parity symbols   |
//!  symbol i = line bits 10i .. 10i+9, bit j of the symbol = line bit 10i + j (LSB first)
//!  symbol 0 = coefficient of x^527 ... symbol 527 = coefficient of x^0
//! ```
//!
//! Held as 83 little-endian 64-bit words (82.5 used: bits 5280.. are zero), so the octets
//! of a `.bits` file are the words' little-endian bytes and the engine can append a
//! codeword to a 64-bit word stream with [`LineWords`].
//!
//! Spec: IEEE 802.3 §91.5.2.7 (symbol order, LSB first), §108.5.2.5.

use super::bits;
use super::gf::SYMBOL_MASK;

/// Symbols per codeword (n).
///
/// Spec: IEEE 802.3 §91.5.2.7.
pub const N: usize = 528;
/// Message symbols per codeword (k).
///
/// Spec: IEEE 802.3 §91.5.2.7.
pub const K: usize = 514;
/// Parity symbols per codeword (n − k = 2t).
///
/// Spec: IEEE 802.3 §91.5.2.7.
pub const PARITY: usize = N - K;
/// Symbol errors the code corrects (t).
///
/// Spec: IEEE 802.3 §91.5.2.7.
pub const T: usize = 7;
/// Bits per symbol (m).
///
/// Spec: IEEE 802.3 §91.5.2.7.
pub const SYMBOL_BITS: usize = 10;
/// Line bits per codeword.
pub const CODEWORD_BITS: usize = N * SYMBOL_BITS;
/// Message bits per codeword (20 transcoded 257-bit blocks).
pub const MESSAGE_BITS: usize = K * SYMBOL_BITS;
/// Parity bits per codeword.
pub const PARITY_BITS: usize = PARITY * SYMBOL_BITS;
/// Octets per codeword.
pub const CODEWORD_OCTETS: usize = CODEWORD_BITS / 8;
/// 64-bit words holding a codeword (the last one half used).
pub const CODEWORD_WORDS: usize = CODEWORD_BITS.div_ceil(64);

/// Mask of the used bits of the last word.
const LAST_WORD_MASK: u64 = bits::low_mask((CODEWORD_BITS % 64) as u32);

/// One codeword of line bits, bit 0 first on the line. Any 5280-bit pattern can be held.
///
/// Spec: IEEE 802.3 §91.5.2.7, §108.5.2.5.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Codeword {
    /// Bit `b` of the line is bit `b % 64` of word `b / 64`; bits 5280.. are zero.
    words: [u64; CODEWORD_WORDS],
}

impl Default for Codeword {
    fn default() -> Self {
        Self::ZERO
    }
}

impl Codeword {
    /// All-zero line bits (the codeword of the all-zero message).
    pub const ZERO: Self = Self {
        words: [0; CODEWORD_WORDS],
    };

    /// From 83 little-endian words; bits 5280.. are dropped.
    #[must_use]
    pub const fn from_words(words: [u64; CODEWORD_WORDS]) -> Self {
        let mut words = words;
        words[CODEWORD_WORDS - 1] &= LAST_WORD_MASK;
        Self { words }
    }

    /// The 83 words, bit 0 of word 0 first on the line; bits 5280.. are zero.
    #[must_use]
    pub const fn words(&self) -> &[u64; CODEWORD_WORDS] {
        &self.words
    }

    /// Mutable words for the crate's encoders; callers keep bits 5280.. zero.
    pub(crate) fn words_mut(&mut self) -> &mut [u64; CODEWORD_WORDS] {
        &mut self.words
    }

    /// From 660 octets, bit 0 of octet 0 first on the line (`.bits`).
    #[must_use]
    pub fn from_octets(octets: &[u8; CODEWORD_OCTETS]) -> Self {
        let mut words = [0u64; CODEWORD_WORDS];
        for (w, chunk) in words.iter_mut().zip(octets.chunks(8)) {
            let mut b = [0u8; 8];
            for (d, s) in b.iter_mut().zip(chunk) {
                *d = *s;
            }
            *w = u64::from_le_bytes(b);
        }
        Self { words }
    }

    /// Writes the 660 octets, bit 0 of octet 0 first on the line (`.bits`).
    pub fn write_octets(&self, out: &mut [u8; CODEWORD_OCTETS]) {
        for (chunk, w) in out.chunks_mut(8).zip(self.words.iter()) {
            for (d, s) in chunk.iter_mut().zip(w.to_le_bytes()) {
                *d = s;
            }
        }
    }

    /// The 660 octets, bit 0 of octet 0 first on the line (`.bits`).
    #[must_use]
    pub fn to_octets(&self) -> [u8; CODEWORD_OCTETS] {
        let mut out = [0u8; CODEWORD_OCTETS];
        self.write_octets(&mut out);
        out
    }

    /// From the 528 symbols, symbol 0 first on the line (coefficient of x^527); bits above
    /// bit 9 of each value are dropped.
    #[must_use]
    pub fn from_symbols(symbols: &[u16; N]) -> Self {
        let mut words = [0u64; CODEWORD_WORDS];
        for (i, s) in symbols.iter().enumerate() {
            bits::xor_bits(
                &mut words,
                SYMBOL_BITS * i,
                SYMBOL_BITS as u32,
                u64::from(s & SYMBOL_MASK),
            );
        }
        Self { words }
    }

    /// The 528 symbols, symbol 0 first on the line.
    #[must_use]
    pub fn to_symbols(&self) -> [u16; N] {
        let mut out = [0u16; N];
        for (i, s) in out.iter_mut().enumerate() {
            *s = self.symbol(i);
        }
        out
    }

    /// Symbol `i` (0 = first on the line); 0 for `i >= 528`.
    #[must_use]
    pub fn symbol(&self, i: usize) -> u16 {
        if i >= N {
            return 0;
        }
        // 10 bits: the cast keeps them all.
        bits::read_bits(&self.words, SYMBOL_BITS * i, SYMBOL_BITS as u32) as u16
    }

    /// XORs `mask` (10 bits) into symbol `i`; nothing for `i >= 528`. Used to correct a
    /// symbol and to inject errors.
    pub fn xor_symbol(&mut self, i: usize, mask: u16) {
        if i < N {
            bits::xor_bits(
                &mut self.words,
                SYMBOL_BITS * i,
                SYMBOL_BITS as u32,
                u64::from(mask & SYMBOL_MASK),
            );
        }
    }

    /// Line bit `b`; false for `b >= 5280`.
    #[must_use]
    pub fn bit(&self, b: usize) -> bool {
        b < CODEWORD_BITS && bits::read_bits(&self.words, b, 1) == 1
    }

    /// Flips line bit `b`; nothing for `b >= 5280`.
    pub fn flip_bit(&mut self, b: usize) {
        if b < CODEWORD_BITS {
            bits::xor_bits(&mut self.words, b, 1, 1);
        }
    }

    /// The `n` (0..=64) line bits from `offset`, bit 0 of the result first.
    #[must_use]
    pub fn read_bits(&self, offset: usize, n: u32) -> u64 {
        bits::read_bits(&self.words, offset, n)
    }
}

/// Packs codewords into a continuous stream of 64-bit line words (bit 0 of a word first on
/// the line, i.e. the `.bits` octets read as little-endian words). A codeword is 82.5
/// words, so every other codeword leaves 32 bits in the carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LineWords {
    /// Line bits not yet making a whole word, bit 0 first.
    carry: u64,
    /// How many of `carry`'s bits are used (0 or 32 after whole codewords).
    carry_bits: u32,
}

impl LineWords {
    /// An empty packer.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            carry: 0,
            carry_bits: 0,
        }
    }

    /// Appends one codeword; calls `out` with each whole word completed (82 or 83).
    pub fn push(&mut self, codeword: &Codeword, mut out: impl FnMut(u64)) {
        let mut rest = CODEWORD_BITS;
        for &w in codeword.words() {
            let n = rest.min(64) as u32;
            rest -= n as usize;
            // Bits of `w` that complete the current word.
            let take = 64 - self.carry_bits;
            if n >= take {
                out(self.carry | (w << self.carry_bits));
                self.carry = if take == 64 { 0 } else { w >> take };
                self.carry_bits = n - take;
            } else {
                self.carry |= w << self.carry_bits;
                self.carry_bits += n;
            }
        }
    }

    /// [`push`](Self::push) writing the whole words into `out` (the first 82 or 83 of them),
    /// a word at a time; returns how many it wrote.
    ///
    /// Spec: IEEE 802.3 §91.5.2.7 (symbol order, LSB first).
    pub fn push_words(&mut self, codeword: &Codeword, out: &mut [u64; CODEWORD_WORDS]) -> usize {
        // 5280 = 82 words and 32 bits: the last codeword word holds 32 line bits.
        let s = self.carry_bits;
        let mut carry = self.carry;
        if s == 0 {
            *out = *codeword.words();
            self.carry = out.last().copied().unwrap_or(0);
            self.carry_bits = 32;
            return CODEWORD_WORDS - 1;
        }
        for (o, &w) in out.iter_mut().zip(codeword.words()) {
            *o = carry | w << s;
            carry = w.checked_shr(64 - s).unwrap_or(0);
        }
        // The last word's 32 bits join the carry's `s`: a whole word when s >= 32.
        if s + 32 >= 64 {
            self.carry = carry;
            self.carry_bits = s + 32 - 64;
            CODEWORD_WORDS
        } else {
            self.carry = out.last().copied().unwrap_or(0);
            self.carry_bits = s + 32;
            CODEWORD_WORDS - 1
        }
    }

    /// A packer carrying the low `carry_bits` (0..64) bits of `carry`.
    pub(crate) const fn with_pending(carry: u64, carry_bits: u32) -> Self {
        let carry_bits = if carry_bits < 64 { carry_bits } else { 0 };
        Self {
            carry: carry & bits::low_mask(carry_bits),
            carry_bits,
        }
    }

    /// The carried bits (bit 0 first) and how many there are.
    #[must_use]
    pub const fn pending(&self) -> (u64, u32) {
        (self.carry, self.carry_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Word at a time gives the words and the carry that [`LineWords::push`] gives.
        #[test]
        fn push_words_equals_push(
            seeds in prop::collection::vec(any::<u64>(), 1..5),
            lead in 0u32..64,
        ) {
            let mut a = LineWords { carry: 0, carry_bits: lead };
            let mut b = a;
            for seed in seeds {
                let mut x = seed | 1;
                let cw = Codeword::from_words(core::array::from_fn(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x
                }));
                let mut want = Vec::new();
                a.push(&cw, |w| want.push(w));
                let mut got = [0u64; CODEWORD_WORDS];
                let n = b.push_words(&cw, &mut got);
                prop_assert_eq!(&got[..n], &want[..]);
                prop_assert_eq!(a.pending(), b.pending());
            }
        }
    }

    #[test]
    fn symbol_bits_go_on_the_line_lsb_first() {
        let mut s = [0u16; N];
        s[1] = 0b00_0000_0001;
        s[2] = 0b10_0000_0000;
        let cw = Codeword::from_symbols(&s);
        assert!(cw.bit(10)); // bit 0 of symbol 1 is line bit 10
        assert!(cw.bit(29)); // bit 9 of symbol 2 is line bit 29
        assert_eq!((0..CODEWORD_BITS).filter(|&b| cw.bit(b)).count(), 2);
    }

    proptest! {
        #[test]
        fn octets_round_trip(v in prop::collection::vec(any::<u8>(), CODEWORD_OCTETS)) {
            let o: [u8; CODEWORD_OCTETS] = v.try_into().unwrap();
            let cw = Codeword::from_octets(&o);
            prop_assert_eq!(cw.to_octets(), o);
            prop_assert_eq!(Codeword::from_symbols(&cw.to_symbols()), cw);
        }

        #[test]
        fn line_words_concatenate_codewords_bit_for_bit(
            a in prop::collection::vec(any::<u8>(), CODEWORD_OCTETS),
            b in prop::collection::vec(any::<u8>(), CODEWORD_OCTETS),
        ) {
            let mut octets = a.clone();
            octets.extend_from_slice(&b);
            let mut words = Vec::new();
            let mut p = LineWords::new();
            for half in [&a, &b] {
                let cw = Codeword::from_octets(&half.as_slice().try_into().unwrap());
                p.push(&cw, |w| words.push(w));
            }
            prop_assert_eq!(words.len(), 165);
            prop_assert_eq!(p.pending(), (0, 0));
            let got: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            prop_assert_eq!(got, octets);
        }
    }
}
