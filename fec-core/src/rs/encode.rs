//! The RS(528,514) encoder: generator polynomial, the bit-serial LFSR reference, and the
//! table-driven (sliced) remainder used on the data path.
//!
//! ```text
//!  g(x) = (x - α^0)(x - α^1) ... (x - α^13) = x^14 + g13 x^13 + ... + g0
//!  m(x) = m513 x^513 + ... + m0      m513 = first message symbol on the line
//!  p(x) = x^14 m(x) mod g(x)         p13 (coefficient of x^13) sent first
//!  c(x) = x^14 m(x) + p(x)           coefficient of x^527 first on the line
//! ```
//!
//! Sliced form: the map from a 14-symbol (140-bit) chunk of the message plus the 140-bit
//! remainder so far to the next remainder, `R' = (R + B(x)) x^14 mod g(x)`, is GF(2)-linear,
//! so it is 18 byte-indexed tables of 140-bit rows (CRC slicing, built at compile time).
//! The message is 514 = 10 + 36·14 symbols: the first chunk has 4 leading zero symbols,
//! which do not change a remainder. The 37 chunks run as two independent chains (19 and 18
//! chunks) joined by a second table set for `x^(14·18) mod g(x)`, so one chain's loads hide
//! the other's latency (13 % faster than one chain here). The two table sets take 294 KiB;
//! firmware that cannot spare them uses [`encode_symbols`] and `decode_symbols` (the
//! bit-serial reference, 6 KiB of field tables), which the linker then keeps alone. The remainder is held in line order (its first
//! 10 bits are p13), so after the last chunk it is the parity as line bits. The receiver
//! runs the same kernel over the received message and XORs the received parity: zero means
//! `c(x) mod g(x) = 0`, a codeword.
//!
//! The kernel is a hook, [`RemainderKernel`]: the tables by default, or a function from
//! outside that computes the same remainder faster (the engine's carry-less multiplication
//! of the message as polynomials over GF(2^10), on AVX-512 `VPCLMULQDQ`, chosen at run time:
//! this crate forbids `unsafe`). The transmitter, the receiver and the codeword decoder take
//! one with `with_remainder_kernel`.
//!
//! Spec: IEEE 802.3 §91.5.2.7 (Reed-Solomon encoder), used by §108.5.2.5.

use super::bits;
use super::codeword::{
    Codeword, CODEWORD_WORDS, K, MESSAGE_BITS, N, PARITY, PARITY_BITS, SYMBOL_BITS,
};
use super::gf::{mul_bit_serial, SYMBOL_MASK};

/// The generator polynomial's coefficients `g0 ..= g14` (`g14 = 1`), lowest degree first:
/// `g(x) = ∏_{j=0}^{13} (x − α^j)`, "the first root of the generator polynomial shall be 1".
///
/// Spec: IEEE 802.3 §91.5.2.7, Equation (91-1).
pub const GENERATOR: [u16; PARITY + 1] = build_generator();

// Evaluated at compile time only (for a const): an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn build_generator() -> [u16; PARITY + 1] {
    let mut g = [0u16; PARITY + 1];
    g[0] = 1;
    let mut root = 1u16; // α^j
    let mut j = 0;
    while j < PARITY {
        // g(x) *= (x + root): new g_k = g_{k-1} + root·g_k, from the top down.
        let mut k = j + 1;
        while k > 0 {
            g[k] = g[k - 1] ^ mul_bit_serial(root, g[k]);
            k -= 1;
        }
        g[0] = mul_bit_serial(root, g[0]);
        root = mul_bit_serial(root, 2);
        j += 1;
    }
    g
}

/// The LFSR division, one symbol at a time, with bit-serial products (independent of the
/// field tables): the remainder of `x^14 · m(x)` by `g(x)`, where `message[0]` is the
/// highest-degree coefficient. Returns the remainder as coefficients `reg[k]` of `x^k`.
/// For compile-time tables; [`lfsr`] is the same at run time.
// Evaluated at compile time only (for statics): an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn lfsr_const(message: &[u16]) -> [u16; PARITY] {
    let mut reg = [0u16; PARITY];
    let mut i = 0;
    while i < message.len() {
        let fb = (message[i] & SYMBOL_MASK) ^ reg[PARITY - 1];
        let mut k = PARITY - 1;
        while k > 0 {
            reg[k] = reg[k - 1] ^ mul_bit_serial(fb, GENERATOR[k]);
            k -= 1;
        }
        reg[0] = mul_bit_serial(fb, GENERATOR[0]);
        i += 1;
    }
    reg
}

/// [`lfsr_const`] at run time: each step shifts the register up one degree and adds the
/// feedback times g(x).
fn lfsr(message: &[u16]) -> [u16; PARITY] {
    let mut reg = [0u16; PARITY];
    for &m in message {
        let fb = (m & SYMBOL_MASK) ^ reg[PARITY - 1];
        let mut below = 0;
        for (r, &g) in reg.iter_mut().zip(GENERATOR.iter()) {
            let old = *r;
            *r = below ^ mul_bit_serial(fb, g);
            below = old;
        }
    }
    reg
}

/// The 14 parity symbols of a message, highest degree (first on the line) first, by the
/// bit-serial LFSR of the standard's encoder figure: the reference the sliced encoder is
/// tested against. Bits above bit 9 of each message value are dropped.
///
/// Spec: IEEE 802.3 §91.5.2.7.
#[must_use]
pub fn parity_reference(message: &[u16; K]) -> [u16; PARITY] {
    let mut p = lfsr(message);
    p.reverse();
    p
}

/// The systematic codeword of a message as 528 symbols: the message then its parity.
///
/// Spec: IEEE 802.3 §91.5.2.7.
#[must_use]
pub fn encode_symbols(message: &[u16; K]) -> [u16; N] {
    let mut cw = [0u16; N];
    let parity = parity_reference(message);
    for (d, s) in cw.iter_mut().zip(message.iter().chain(parity.iter())) {
        *d = s & SYMBOL_MASK;
    }
    cw
}

/// A 140-bit chunk or remainder in line order: bits 0..63, 64..127, 128..139.
pub type Bits140 = [u64; 3];

/// A table row: a 140-bit value padded to 32 bytes and aligned, so that a row never
/// straddles two cache lines and the XOR of rows compiles to two 128-bit operations.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Row([u64; 4]);

/// A set of byte-sliced tables for a GF(2)-linear map of 140 bits: entry `[b][x]` is the
/// image of byte `x` placed at bits `8b..8b+7`.
type Tables = [[Row; 256]; SLICES];

/// Bytes of a 140-bit row (the last one has 4 bits).
const SLICES: usize = PARITY_BITS.div_ceil(8);

/// `L(e_i)` for each of the 140 unit vectors: the chunk whose only 1 is bit `i` (bit `i % 10`
/// of symbol `i / 10`, symbol 0 the coefficient of x^13), times x^14, mod g(x), in line order.
// Evaluated at compile time only (for statics): an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn build_basis() -> [Bits140; PARITY_BITS] {
    let mut basis = [[0u64; 3]; PARITY_BITS];
    let mut i = 0;
    while i < PARITY_BITS {
        let mut chunk = [0u16; PARITY];
        chunk[i / SYMBOL_BITS] = 1 << (i % SYMBOL_BITS);
        let reg = lfsr_const(&chunk);
        // Line order: reg[13] (x^13) first.
        let mut s = 0;
        while s < PARITY {
            let v = reg[PARITY - 1 - s] as u64;
            let b = s * SYMBOL_BITS;
            // A symbol never straddles into a third word; it may straddle two.
            basis[i][b / 64] |= v << (b % 64);
            if b % 64 > 54 {
                basis[i][b / 64 + 1] |= v >> (64 - b % 64);
            }
            s += 1;
        }
        i += 1;
    }
    basis
}

/// The image of `r` under the linear map whose unit-vector images are `basis`.
// Evaluated at compile time only (for statics): an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn apply(basis: &[Bits140; PARITY_BITS], r: Bits140) -> Bits140 {
    let mut acc = [0u64; 3];
    let mut i = 0;
    while i < PARITY_BITS {
        if (r[i / 64] >> (i % 64)) & 1 == 1 {
            acc[0] ^= basis[i][0];
            acc[1] ^= basis[i][1];
            acc[2] ^= basis[i][2];
        }
        i += 1;
    }
    acc
}

/// The unit-vector images of `L^power` (times x^(14·power) mod g(x)).
// Evaluated at compile time only (for statics): an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn build_power_basis(power: usize) -> [Bits140; PARITY_BITS] {
    let basis = build_basis();
    let mut out = [[0u64; 3]; PARITY_BITS];
    let mut i = 0;
    while i < PARITY_BITS {
        let mut r = [0u64; 3];
        r[i / 64] = 1 << (i % 64);
        let mut k = 0;
        while k < power {
            r = apply(&basis, r);
            k += 1;
        }
        out[i] = r;
        i += 1;
    }
    out
}

/// Byte-sliced tables of `L^power`.
// Evaluated at compile time only (for statics): an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn build_tables(power: usize) -> Tables {
    let basis = build_power_basis(power);
    let mut t = [[Row([0; 4]); 256]; SLICES];
    let mut slice = 0;
    while slice < SLICES {
        let mut x = 0;
        while x < 256 {
            let mut k = 0;
            while k < 8 {
                let i = 8 * slice + k;
                if x >> k & 1 == 1 && i < PARITY_BITS {
                    t[slice][x].0[0] ^= basis[i][0];
                    t[slice][x].0[1] ^= basis[i][1];
                    t[slice][x].0[2] ^= basis[i][2];
                }
                k += 1;
            }
            x += 1;
        }
        slice += 1;
    }
    t
}

/// Chunks of the message: the first has 10 symbols behind 4 zero symbols (514 = 10 + 36·14).
const CHUNKS: usize = K.div_ceil(PARITY);
/// Chunks of the second of the two independent chains.
const SECOND_CHAIN: usize = CHUNKS / 2;

/// One chunk: `L` = times x^14 mod g(x). 147 KiB.
static STEP: Tables = build_tables(1);
/// The jump that joins the two chains: `L^18` = times x^(14·18) mod g(x). 147 KiB.
static JUMP: Tables = build_tables(SECOND_CHAIN);

/// `map(r)` by the byte-sliced tables.
#[inline(always)]
fn fold(tables: &Tables, r: Bits140) -> Bits140 {
    let mut bytes = [0u8; 24];
    for (d, w) in bytes.chunks_exact_mut(8).zip(r) {
        d.copy_from_slice(&w.to_le_bytes());
    }
    let mut acc = [0u64; 4];
    for (table, &b) in tables.iter().zip(bytes.iter()) {
        if let Some(row) = table.get(usize::from(b)) {
            for (a, x) in acc.iter_mut().zip(row.0) {
                *a ^= x;
            }
        }
    }
    [acc[0], acc[1], acc[2]]
}

/// Leading zero bits that pad the first chunk to 140 bits.
const FIRST_CHUNK_PAD: u32 = (CHUNKS * PARITY_BITS - MESSAGE_BITS) as u32;

/// Message chunk `k` (1..37) XORed into `r`: line bits `100 + 140(k − 1) ..` of the message,
/// which starts at bit `base` of `words`.
#[inline(always)]
fn with_chunk(words: &[u64], base: usize, r: Bits140, k: usize) -> Bits140 {
    let offset = base + k * PARITY_BITS - FIRST_CHUNK_PAD as usize;
    [
        r[0] ^ bits::read64(words, offset),
        r[1] ^ bits::read64(words, offset + 64),
        r[2] ^ bits::read_bits(words, offset + 128, 12),
    ]
}

/// `x^14 · m(x) mod g(x)` for the message in line bits `base..base + 5140` of `words` (bits
/// past the end read as zero), as 140 line bits (the parity a transmitter sends), by the
/// sliced tables.
///
/// Two independent chains (chunks 0..=18 and 19..=36) run side by side so that the table
/// loads of one hide the latency of the other; the first chain's remainder is then moved
/// 18 chunks up by [`JUMP`]: `R = L^18(R1) + R2`.
///
/// Spec: IEEE 802.3 §91.5.2.7.
fn message_remainder(words: &[u64], base: usize) -> Bits140 {
    // First chunk: 100 message bits behind 40 zero bits.
    let pad = FIRST_CHUNK_PAD;
    let first = [
        bits::read_bits(words, base, 64 - pad) << pad,
        bits::read64(words, base + (64 - pad) as usize),
        bits::read_bits(words, base + (128 - pad) as usize, 12),
    ];
    let mut r1 = fold(&STEP, first);
    let mut r2 = [0u64; 3];
    let split = CHUNKS - SECOND_CHAIN;
    for k in 1..split {
        r1 = fold(&STEP, with_chunk(words, base, r1, k));
        r2 = fold(&STEP, with_chunk(words, base, r2, k + SECOND_CHAIN));
    }
    let r1 = fold(&JUMP, r1);
    [r1[0] ^ r2[0], r1[1] ^ r2[1], r1[2] ^ r2[2]]
}

/// The function a [`RemainderKernel`] holds: `x^14 m(x) mod g(x)` of the message in line bits
/// `offset..offset + 5140` of `words` (bits past the end of `words` read as zero; the parity
/// bits after the message are not read), as 140 line bits (the parity a transmitter sends:
/// bits 0..63, 64..127 and the low 12 bits of the third word). A codeword's words have it at
/// offset 0; a line word stream at the bit where the codeword starts (0 or 32 for codewords
/// packed from bit 0 of the stream).
pub type RemainderFn = fn(&[u64], usize) -> Bits140;

/// How a transmitter computes the parity and a receiver its error-free check: this module's
/// sliced tables ([`RemainderKernel::TABLES`], the default), or a function the caller
/// supplies. The cores forbid `unsafe`, so a kernel built on CPU instructions chosen at run
/// time (the engine's carry-less multiplication, `baser_engine::fec_kernels`) lives outside
/// and comes in here. A kernel is a strategy, not state: every kernel must give what the
/// tables give for every input (the engine's property test says so for its own), so any two
/// compare equal.
///
/// Spec: IEEE 802.3 §91.5.2.7.
#[derive(Clone, Copy)]
pub struct RemainderKernel(RemainderFn);

impl RemainderKernel {
    /// The sliced tables of this module.
    pub const TABLES: Self = Self(message_remainder);

    /// A kernel computing [`RemainderFn`]'s value with `f`, which must equal the tables'.
    #[must_use]
    pub const fn new(f: RemainderFn) -> Self {
        Self(f)
    }

    /// The remainder of the message of a codeword's `words` (see [`RemainderFn`]).
    ///
    /// Spec: IEEE 802.3 §91.5.2.7.
    #[inline(always)]
    #[must_use]
    pub fn message_remainder(self, words: &[u64; CODEWORD_WORDS]) -> Bits140 {
        (self.0)(words, 0)
    }

    /// The remainder of the message in line bits `offset..offset + 5140` of `words` (see
    /// [`RemainderFn`]): a codeword read where it lies in a line word stream.
    ///
    /// Spec: IEEE 802.3 §91.5.2.7.
    #[inline(always)]
    #[must_use]
    pub fn message_remainder_at(self, words: &[u64], offset: usize) -> Bits140 {
        (self.0)(words, offset)
    }
}

impl Default for RemainderKernel {
    fn default() -> Self {
        Self::TABLES
    }
}

impl core::fmt::Debug for RemainderKernel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("RemainderKernel")
    }
}

/// Every kernel computes the same function: kernels are equal.
impl PartialEq for RemainderKernel {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for RemainderKernel {}

impl core::hash::Hash for RemainderKernel {
    fn hash<H: core::hash::Hasher>(&self, _: &mut H) {}
}

#[cfg(feature = "defmt")]
impl defmt::Format for RemainderKernel {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "RemainderKernel");
    }
}

/// Computes the parity of the message in line bits `0..5140` of `codeword` and writes it to
/// bits `5140..5280` (systematic encoding), by the sliced tables.
///
/// Spec: IEEE 802.3 §91.5.2.7.
pub fn encode_in_place(codeword: &mut Codeword) {
    encode_in_place_with(codeword, RemainderKernel::TABLES);
}

/// [`encode_in_place`] with the remainder computed by `kernel`.
pub(crate) fn encode_in_place_with(codeword: &mut Codeword, kernel: RemainderKernel) {
    let p = kernel.message_remainder(codeword.words());
    let w = codeword.words_mut();
    bits::write_bits(w, MESSAGE_BITS, 64, p[0]);
    bits::write_bits(w, MESSAGE_BITS + 64, 64, p[1]);
    bits::write_bits(w, MESSAGE_BITS + 128, 12, p[2]);
}

/// `c(x) mod g(x)` of a received codeword as 14 symbols, highest degree first (line order):
/// all zero exactly when `codeword` is a codeword. By the sliced tables.
///
/// Spec: IEEE 802.3 §91.5.3.3.
#[must_use]
pub fn remainder(codeword: &Codeword) -> [u16; PARITY] {
    remainder_with(codeword, RemainderKernel::TABLES)
}

/// [`remainder`] with the message's remainder computed by `kernel` (all zero exactly when
/// `codeword` is a codeword).
#[must_use]
pub fn remainder_with(codeword: &Codeword, kernel: RemainderKernel) -> [u16; PARITY] {
    let w = codeword.words();
    let p = kernel.message_remainder(w);
    let r: Bits140 = [
        p[0] ^ bits::read64(w, MESSAGE_BITS),
        p[1] ^ bits::read64(w, MESSAGE_BITS + 64),
        p[2] ^ bits::read_bits(w, MESSAGE_BITS + 128, 12),
    ];
    let mut out = [0u16; PARITY];
    if r == [0; 3] {
        return out;
    }
    for (s, d) in out.iter_mut().enumerate() {
        // 10 bits: the cast keeps them all.
        *d = bits::read_bits(&r, SYMBOL_BITS * s, SYMBOL_BITS as u32) as u16;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rs::codeword::CODEWORD_BITS;
    use crate::rs::gf::Gf1024;
    use proptest::prelude::*;

    /// g0 ..= g14 of FEC-NOTES §2.1 (V*: gustlin_01_0312 starts 0x1b0 0x122 0x3b1).
    const GENERATOR_FROM_THE_NOTES: [u16; 15] = [
        0x1b0, 0x122, 0x3b1, 0x109, 0x250, 0x187, 0x266, 0x384, 0x39d, 0x290, 0x020, 0x2bd, 0x006,
        0x388, 0x001,
    ];

    #[test]
    fn generator_coefficients_match_the_published_list() {
        assert_eq!(GENERATOR, GENERATOR_FROM_THE_NOTES);
    }

    #[test]
    fn generator_vanishes_at_alpha_0_to_13() {
        for j in 0..14 {
            let x = Gf1024::alpha_pow(j);
            let v = GENERATOR
                .iter()
                .rev()
                .fold(Gf1024::ZERO, |acc, &c| acc * x + Gf1024::new(c));
            assert_eq!(v, Gf1024::ZERO, "g(alpha^{j})");
        }
    }

    #[test]
    fn parity_of_p802_3bj_anslow_vector() {
        // FEC-NOTES §5.3: 513 x 0x000 then 0x100.
        let mut m = [0u16; K];
        m[K - 1] = 0x100;
        let want = [
            1019, 521, 222, 72, 397, 726, 992, 600, 105, 61, 850, 645, 8, 780,
        ];
        assert_eq!(parity_reference(&m), want);
        assert_eq!(sliced_parity(&m), want);
    }

    #[test]
    fn parity_of_p802_3bj_gustlin_vector() {
        // FEC-NOTES §5.4: data 1023, 1022, ..., 510.
        let mut m = [0u16; K];
        for (i, s) in m.iter_mut().enumerate() {
            *s = 1023 - i as u16;
        }
        let want = [
            451, 952, 674, 140, 539, 287, 460, 438, 559, 883, 542, 885, 930, 191,
        ];
        assert_eq!(parity_reference(&m), want);
        assert_eq!(sliced_parity(&m), want);
    }

    fn sliced_parity(m: &[u16; K]) -> [u16; PARITY] {
        let mut s = [0u16; N];
        s[..K].copy_from_slice(m);
        let mut cw = Codeword::from_symbols(&s);
        encode_in_place(&mut cw);
        cw.to_symbols()[K..].try_into().unwrap()
    }

    proptest! {
        #[test]
        fn sliced_parity_matches_the_bit_serial_lfsr(m in prop::collection::vec(0u16..1024, K)) {
            let m: [u16; K] = m.try_into().unwrap();
            prop_assert_eq!(sliced_parity(&m), parity_reference(&m));
        }

        /// The tables read a message where it lies in a word stream: shifted by `offset`
        /// bits behind other bits, the same remainder.
        #[test]
        fn remainder_at_an_offset_equals_the_codeword_s(
            m in prop::collection::vec(0u16..1024, K),
            offset in 0usize..200,
            fill in any::<u64>(),
        ) {
            let mut s = [0u16; N];
            s[..K].copy_from_slice(&m);
            let cw = Codeword::from_symbols(&s);
            let mut stream = vec![fill; CODEWORD_WORDS + 4];
            for b in 0..CODEWORD_BITS {
                bits::write_bits(&mut stream, offset + b, 1, u64::from(cw.bit(b)));
            }
            prop_assert_eq!(
                RemainderKernel::TABLES.message_remainder_at(&stream, offset),
                RemainderKernel::TABLES.message_remainder(cw.words())
            );
        }

        #[test]
        fn remainder_of_a_codeword_is_zero_and_of_a_flip_is_not(
            m in prop::collection::vec(0u16..1024, K),
            bit in 0usize..5280,
        ) {
            let m: [u16; K] = m.try_into().unwrap();
            let mut cw = Codeword::from_symbols(&encode_symbols(&m));
            prop_assert_eq!(remainder(&cw), [0; PARITY]);
            cw.flip_bit(bit);
            prop_assert_ne!(remainder(&cw), [0; PARITY]);
        }
    }
}
