//! The (2112,2080) parity and syndrome: `g(x) = x^32 + x^23 + x^21 + x^11 + x^2 + 1`.
//!
//! The message polynomial `m(x)` has the 2080 transcoded bits in line order, the first bit on
//! the line the coefficient of `x^2079`; the parity is `p(x) = x^32 m(x) mod g(x)`, sent MSB
//! (`x^31`) first after the message. The syndrome of a received block `c(x)` (2112 bits, first
//! on the line = `x^2111`) is `c(x) mod g(x)`: zero for a codeword.
//!
//! ```text
//!  g(x) = (x^21 + 1)(x^11 + x^2 + 1): a Fire code, period lcm(21, 2047) = 42987,
//!  shortened to 2112 bits; corrects one burst of up to 11 bits.
//! ```
//!
//! Speed: line bit order is LSB first, so the fast path is the bit-reflected form of this CRC
//! (a register whose bit `i` holds the coefficient of `x^(31-i)`: its bits are the parity bits
//! in line order). It folds the 2080 message bits a 64-bit line word at a time with eight
//! 256-entry tables ("slicing by 8"), in four independent streams of 8 words each (so the
//! table loads of one word do not wait for the previous word), joined at the end by shifting
//! each stream's register over the bits after it (four more lookups per stream). The
//! bit-serial division written straight from the definition is kept in this module's tests
//! and a property test proves the two equal; the `crc` crate checks both (CRC-32 poly
//! 0x00A00805, init 0, no reflection, no final XOR, over the message packed MSB first).
//!
//! Spec: IEEE 802.3 §74.7.4.4 (equation 74-1), §74.7.1.

use super::transcode::FEC_BLOCK_WORDS;

/// `g(x)` without its `x^32` term, bit `i` the coefficient of `x^i`:
/// `x^23 + x^21 + x^11 + x^2 + 1`.
///
/// Spec: IEEE 802.3 §74.7.4.4, equation (74-1).
pub const GENERATOR: u32 = 0x00A0_0805;

/// `g(x)` bit-reflected (bit `i` the coefficient of `x^(31-i)`).
const GENERATOR_REFLECTED: u32 = GENERATOR.reverse_bits();

/// One step of the reflected register over a zero input bit.
const fn step_zero(r: u32) -> u32 {
    if r & 1 == 1 {
        (r >> 1) ^ GENERATOR_REFLECTED
    } else {
        r >> 1
    }
}

/// `TABLES[k][v]`: the reflected register after octet `v` (LSB first) and then `k` zero octets.
// Built at compile time: an index out of range would fail the build, not panic.
#[allow(clippy::indexing_slicing)]
static TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut v = 0;
    while v < 256 {
        let mut r = v as u32;
        let mut i = 0;
        while i < 8 {
            r = step_zero(r);
            i += 1;
        }
        t[0][v] = r;
        v += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut v = 0;
        while v < 256 {
            let p = t[k - 1][v];
            t[k][v] = (p >> 8) ^ t[0][(p & 0xff) as usize];
            v += 1;
        }
        k += 1;
    }
    t
};

/// Byte-sliced tables of a GF(2)-linear map of 32-bit registers, from the images of the 32
/// unit vectors (`basis[b]` the image of `1 << b`): entry `[j][v]` is the image of `v << 8j`.
/// The parity's shift tables and the burst search's `x^-k` tables are both built by it.
// Called only to build statics, at compile time.
#[allow(clippy::indexing_slicing)]
pub(super) const fn byte_tables(basis: &[u32; 32]) -> [[u32; 256]; 4] {
    let mut t = [[0u32; 256]; 4];
    let mut j = 0;
    while j < 4 {
        let mut v = 0;
        while v < 256 {
            let mut acc = 0;
            let mut bit = 0;
            while bit < 8 {
                if v >> bit & 1 == 1 {
                    acc ^= basis[8 * j + bit];
                }
                bit += 1;
            }
            t[j][v] = acc;
            v += 1;
        }
        j += 1;
    }
    t
}

/// The image of `r` under the map [`byte_tables`] made `tables` of: four lookups.
#[inline(always)]
pub(super) fn apply_byte_tables(r: u32, tables: &[[u32; 256]; 4]) -> u32 {
    let x = u64::from(r);
    let [t0, t1, t2, t3] = tables;
    lut(t0, x) ^ lut(t1, x >> 8) ^ lut(t2, x >> 16) ^ lut(t3, x >> 24)
}

/// Tables that move a reflected register over `bits` zero bits.
// Called only to build the statics below, at compile time.
#[allow(clippy::indexing_slicing)]
const fn shift_tables(bits: usize) -> [[u32; 256]; 4] {
    let mut basis = [0u32; 32];
    let mut b = 0;
    while b < 32 {
        let mut r = 1u32 << b;
        let mut i = 0;
        while i < bits {
            r = step_zero(r);
            i += 1;
        }
        basis[b] = r;
        b += 1;
    }
    byte_tables(&basis)
}

/// Words per stream of the fast path: four streams of 8.
const STREAM_WORDS: usize = 8;

/// The message bits after stream `s` (0, 1, 2) of line words: `(3 - s) * 8` words and the
/// last 32 bits.
const fn bits_after_stream(s: usize) -> usize {
    (3 - s) * STREAM_WORDS * 64 + 32
}

/// Shift over the bits after stream 0.
static SHIFT_0: [[u32; 256]; 4] = shift_tables(bits_after_stream(0));
/// Shift over the bits after stream 1.
static SHIFT_1: [[u32; 256]; 4] = shift_tables(bits_after_stream(1));
/// Shift over the bits after stream 2.
static SHIFT_2: [[u32; 256]; 4] = shift_tables(bits_after_stream(2));

/// One table entry; `index` is cut to its low octet (so the lookup is always in range).
#[inline(always)]
fn lut(table: &[u32; 256], index: u64) -> u32 {
    table.get((index & 0xff) as usize).copied().unwrap_or(0)
}

/// The reflected register after 64 more line bits.
#[inline(always)]
fn fold_word(r: u32, word: u64) -> u32 {
    let x = word ^ u64::from(r);
    let [t0, t1, t2, t3, t4, t5, t6, t7] = &TABLES;
    (lut(t7, x) ^ lut(t6, x >> 8) ^ lut(t5, x >> 16) ^ lut(t4, x >> 24))
        ^ (lut(t3, x >> 32) ^ lut(t2, x >> 40) ^ lut(t1, x >> 48) ^ lut(t0, x >> 56))
}

/// The reflected register after 32 more line bits.
#[inline(always)]
fn fold_half(r: u32, half: u32) -> u32 {
    let x = u64::from(half ^ r);
    let [t0, t1, t2, t3, ..] = &TABLES;
    lut(t3, x) ^ lut(t2, x >> 8) ^ lut(t1, x >> 16) ^ lut(t0, x >> 24)
}

/// `x^32 m(x) mod g(x)` for the message bits of `line` (line bits `0..2080`), reflected: bit `j`
/// is the coefficient of `x^(31-j)`, which is the parity bit sent at line bit `2080 + j`. The
/// high half of word 32 is not read.
///
/// Spec: IEEE 802.3 §74.7.4.4.
#[inline]
#[must_use]
pub(crate) fn parity_line_bits(line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
    // Fixed lengths: every split succeeds (the `else` arms are unreachable).
    let Some((a, rest)) = line.split_first_chunk::<STREAM_WORDS>() else {
        return 0;
    };
    let Some((b, rest)) = rest.split_first_chunk::<STREAM_WORDS>() else {
        return 0;
    };
    let Some((c, rest)) = rest.split_first_chunk::<STREAM_WORDS>() else {
        return 0;
    };
    let Some((d, rest)) = rest.split_first_chunk::<STREAM_WORDS>() else {
        return 0;
    };
    let last = rest.first().copied().unwrap_or(0);
    let (mut ra, mut rb, mut rc, mut rd) = (0, 0, 0, 0);
    for (((&wa, &wb), &wc), &wd) in a.iter().zip(b).zip(c).zip(d) {
        ra = fold_word(ra, wa);
        rb = fold_word(rb, wb);
        rc = fold_word(rc, wc);
        rd = fold_word(rd, wd);
    }
    rd = fold_half(rd, last as u32);
    apply_byte_tables(ra, &SHIFT_0)
        ^ apply_byte_tables(rb, &SHIFT_1)
        ^ apply_byte_tables(rc, &SHIFT_2)
        ^ rd
}

/// The parity of the message bits of `line` (line bits `0..2080`; the high half of word 32 is
/// not read): `x^32 m(x) mod g(x)` with bit `i` the coefficient of `x^i`, as the standard
/// writes it in hex (Table 74A-2). Bit 31 is the first parity bit on the line.
///
/// Spec: IEEE 802.3 §74.7.4.4.
#[inline]
#[must_use]
pub fn parity(line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
    parity_line_bits(line).reverse_bits()
}

/// The function a [`ParityKernel`] holds: `x^32 m(x) mod g(x)` of the message bits of a FEC
/// block (line bits `0..2080`; the high half of word 32 is not read), reflected: bit `j` is the
/// parity bit sent at line bit `2080 + j`.
pub type ParityFn = fn(&[u64; FEC_BLOCK_WORDS]) -> u32;

/// How a transmitter computes the parity and a receiver the syndrome: this module's tables
/// ([`ParityKernel::TABLES`], the default), or a faster function the caller supplies. The
/// cores forbid `unsafe`, so a kernel that needs CPU instructions chosen at run time (the
/// engine's carry-less multiply fold, `baser_engine::fec_kernels`) lives outside and comes in
/// here. A kernel is a strategy, not state: every kernel must give what the tables give for
/// every input (the engine's property test says so for its own), so any two compare equal.
///
/// Spec: IEEE 802.3 §74.7.4.4 (equation 74-1).
#[derive(Clone, Copy)]
pub struct ParityKernel(ParityFn);

impl ParityKernel {
    /// The slice-by-8 tables of this module.
    pub const TABLES: Self = Self(parity_line_bits);

    /// A kernel computing [`ParityFn`]'s value with `f`, which must equal the tables' value.
    #[must_use]
    pub const fn new(f: ParityFn) -> Self {
        Self(f)
    }

    /// The reflected parity of the message bits of `line` (see [`ParityFn`]).
    ///
    /// Spec: IEEE 802.3 §74.7.4.4.
    #[inline(always)]
    #[must_use]
    pub fn parity_line_bits(self, line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
        (self.0)(line)
    }

    /// The syndrome of a descrambled FEC block, as [`syndrome`] gives it.
    ///
    /// Spec: IEEE 802.3 §74.7.4.4; the syndrome test of §74.7.4.7.
    #[inline(always)]
    #[must_use]
    pub fn syndrome(self, line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
        (self.parity_line_bits(line) ^ received_parity_line_bits(line)).reverse_bits()
    }
}

impl Default for ParityKernel {
    fn default() -> Self {
        Self::TABLES
    }
}

impl core::fmt::Debug for ParityKernel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ParityKernel")
    }
}

/// Every kernel computes the same function: kernels are equal.
impl PartialEq for ParityKernel {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ParityKernel {}

impl core::hash::Hash for ParityKernel {
    fn hash<H: core::hash::Hasher>(&self, _: &mut H) {}
}

#[cfg(feature = "defmt")]
impl defmt::Format for ParityKernel {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "ParityKernel");
    }
}

/// The received parity bits (line bits `2080..2112`) in reflected form.
#[inline]
fn received_parity_line_bits(line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
    line.last().map_or(0, |w| (w >> 32) as u32)
}

/// The syndrome of a descrambled FEC block: `c(x) mod g(x)`, bit `i` the coefficient of `x^i`
/// (line bit `2111 - n` is `x^n`). Zero exactly for a codeword; equal to the computed parity
/// XOR the received parity.
///
/// Spec: IEEE 802.3 §74.7.4.4 (the code); the syndrome test of §74.7.4.7.
#[inline]
#[must_use]
pub fn syndrome(line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
    (parity_line_bits(line) ^ received_parity_line_bits(line)).reverse_bits()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The CRC-32 that equals the Clause 74 parity (FEC-NOTES §1.3, §6): over the 2080 message
    /// bits packed MSB first in line order (260 octets). `check` is its value for "123456789".
    pub(crate) const CL74_CRC: crc::Algorithm<u32> = crc::Algorithm {
        width: 32,
        poly: 0x00A0_0805,
        init: 0,
        refin: false,
        refout: false,
        xorout: 0,
        check: 0x5169_3c0c,
        residue: 0,
    };

    fn line_bit(line: &[u64; 33], n: usize) -> u64 {
        line[n / 64] >> (n % 64) & 1
    }

    /// The parity by bit-serial division, straight from the definition: the message bits in
    /// line order, first bit the highest power, through an MSB-first LFSR.
    pub(crate) fn parity_bit_serial(line: &[u64; 33]) -> u32 {
        let mut r = 0u32;
        for n in 0..2080 {
            let fb = (r >> 31) as u64 ^ line_bit(line, n);
            r <<= 1;
            if fb == 1 {
                r ^= GENERATOR;
            }
        }
        r
    }

    /// `c(x) mod g(x)` by long division over all 2112 bits.
    fn syndrome_long_division(line: &[u64; 33]) -> u32 {
        let mut r = 0u64;
        for n in 0..2112 {
            r = r << 1 | line_bit(line, n);
            if r >> 32 == 1 {
                r ^= 1 << 32 | u64::from(GENERATOR);
            }
        }
        r as u32
    }

    /// The 2080 message bits packed MSB first in line order.
    pub(crate) fn message_octets_msb_first(line: &[u64; 33]) -> Vec<u8> {
        (0..260)
            .map(|i| (0..8).fold(0u8, |acc, b| acc << 1 | line_bit(line, 8 * i + b) as u8))
            .collect()
    }

    /// Carry-less product of two polynomials (bit i = coefficient of x^i).
    fn clmul(a: u64, b: u64) -> u64 {
        (0..64)
            .filter(|i| b >> i & 1 == 1)
            .fold(0, |acc, i| acc ^ a << i)
    }

    #[test]
    fn generator_is_the_fire_code_x21_plus_1_times_x11_x2_1() {
        let g = 1u64 << 32 | u64::from(GENERATOR);
        assert_eq!(clmul(1 << 21 | 1, 1 << 11 | 1 << 2 | 1), g);
    }

    #[test]
    fn generator_period_is_42987() {
        // The order of x modulo g(x): the length of the cyclic code (42987, 42955) that
        // §74.7.1 shortens to (2112, 2080).
        let mut r = 1u32; // x^0
        let mut k = 0u32;
        loop {
            let top = r >> 31;
            r <<= 1;
            if top == 1 {
                r ^= GENERATOR;
            }
            k += 1;
            if r == 1 {
                break;
            }
        }
        assert_eq!(k, 42987);
    }

    #[test]
    fn crc_algorithm_check_value_matches_bit_serial() {
        let crc = crc::Crc::<u32>::new(&CL74_CRC);
        assert_eq!(crc.checksum(b"123456789"), CL74_CRC.check);
        // The same through our bit-serial division: "123456789" is 72 bits, MSB first.
        let mut line = [0u64; 33];
        let bits = b"123456789"
            .iter()
            .flat_map(|&o| (0..8).rev().map(move |i| o >> i & 1));
        // Put the 72 bits at the end of the message (leading zeros do not change a CRC with
        // init 0).
        for (k, b) in bits.enumerate() {
            let n = 2080 - 72 + k;
            line[n / 64] |= u64::from(b) << (n % 64);
        }
        assert_eq!(parity_bit_serial(&line), 0x5169_3c0c);
        assert_eq!(parity(&line), 0x5169_3c0c);
    }

    #[test]
    fn parity_of_a_single_message_bit_is_x_to_the_power_mod_g() {
        // Line bit 2079 (the last message bit) is x^0 of m(x): parity = x^32 mod g = g - x^32.
        let mut line = [0u64; 33];
        line[2079 / 64] |= 1 << (2079 % 64);
        assert_eq!(parity(&line), GENERATOR);
    }

    #[test]
    fn parity_ignores_the_parity_half_word() {
        let mut line = [0x1234_5678_9abc_def0u64; 33];
        let p = parity(&line);
        line[32] ^= 0xffff_ffff << 32;
        assert_eq!(parity(&line), p);
    }

    proptest! {
        #[test]
        fn fast_parity_equals_bit_serial_reference(words in prop::array::uniform32(any::<u64>()), last in any::<u64>()) {
            let mut line = [0u64; 33];
            line[..32].copy_from_slice(&words);
            line[32] = last;
            prop_assert_eq!(parity(&line), parity_bit_serial(&line));
        }

        #[test]
        fn parity_equals_the_crc_crate(words in prop::array::uniform32(any::<u64>()), last in any::<u32>()) {
            let mut line = [0u64; 33];
            line[..32].copy_from_slice(&words);
            line[32] = u64::from(last);
            let crc = crc::Crc::<u32>::new(&CL74_CRC);
            prop_assert_eq!(crc.checksum(&message_octets_msb_first(&line)), parity(&line));
        }

        #[test]
        fn syndrome_equals_long_division(words in prop::array::uniform32(any::<u64>()), last in any::<u64>()) {
            let mut line = [0u64; 33];
            line[..32].copy_from_slice(&words);
            line[32] = last;
            prop_assert_eq!(syndrome(&line), syndrome_long_division(&line));
            // With the parity in place the block is a codeword.
            line[32] = line[32] & 0xffff_ffff | u64::from(parity_line_bits(&line)) << 32;
            prop_assert_eq!(syndrome(&line), 0);
            prop_assert_eq!(syndrome_long_division(&line), 0);
        }
    }
}
