//! The RS(528,514) remainder `x^14 m(x) mod g(x)` by carry-less multiplication (AVX-512
//! `VPCLMULQDQ` and `VBMI`), where `fec-core` runs 666 lookups of 140-bit table rows.
//!
//! Kronecker substitution: a polynomial over GF(2^10) whose coefficients sit 20 bits apart in
//! a bit string (`x = z^20`; a symbol's bit `t` is `y^t`, `y` the field's `α`) multiplies as a
//! GF(2) polynomial: a product of two symbols has 19 bits and never reaches the next
//! coefficient, so the string's carry-less product is the polynomials' product with each
//! coefficient still to be reduced mod `p(y) = y^10 + y^3 + 1`.
//!
//! ```text
//!  message symbols s_0 .. s_513 (s_0 first on the line = coefficient of x^527 in x^14 m(x))
//!  piece j = s_3j s_3j+1 s_3j+2:   x^(525-3j) (s_3j x^2 + s_3j+1 x + s_3j+2)
//!  A(x)    = sum_j Q_j(x) C_j(x),  Q_j = s_3j+2 + s_3j+1 x + s_3j x^2 (one 64-bit word),
//!                                  C_j = x^(525-3j) mod g(x)  (14 coefficients, 5 words)
//!  R(x)    = A mod g:  s_513 joins a_14; a_14 x^14 + a_15 x^15 -> a_14 C(14) + a_15 C(15)
//! ```
//!
//! Eight pieces a turn: one 64-octet load, `VPERMB` and a variable shift put each piece's 30
//! line bits in its own 64-bit lane, three shifts spread its symbols 20 bits apart in reverse
//! order, and ten `VPCLMULQDQ` multiply the eight pieces by their five key words. The keys
//! (22 turns × 5 words × 8 lanes, 7 KiB) are built at compile time from `fec-core`'s
//! generator polynomial with its bit-serial field multiplication.
//!
//! Spec: IEEE 802.3 §91.5.2.7 (the RS encoder), used by §108.5.2.5.

use core::arch::x86_64::{
    __m128i, __m512i, _mm512_and_si512, _mm512_clmulepi64_epi128, _mm512_extracti32x4_epi32,
    _mm512_loadu_si512, _mm512_maskz_loadu_epi8, _mm512_or_si512, _mm512_permutexvar_epi8,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_slli_epi64, _mm512_srli_epi64,
    _mm512_srlv_epi64, _mm512_ternarylogic_epi64, _mm_clmulepi64_si128, _mm_cvtsi128_si64,
    _mm_extract_epi64, _mm_set_epi64x, _mm_xor_si128,
};
use fec_core::rs::{mul_bit_serial, Bits140, CODEWORD_WORDS, GENERATOR, K, PARITY, SYMBOL_BITS};
use std::sync::atomic::AtomicU8;

/// Bits between two coefficients in the Kronecker strings.
const SPACING: usize = 20;
/// Message symbols a piece takes (three 20-bit places in a 64-bit word).
const PIECE_SYMBOLS: usize = 3;
/// Pieces: the message's first 513 symbols; the 514th joins the coefficient of `x^14`.
const PIECES: usize = (K - 1) / PIECE_SYMBOLS;
/// Pieces a turn (the 64-bit lanes of a 512-bit register).
const LANES: usize = 8;
/// Turns over the message.
const TURNS: usize = PIECES.div_ceil(LANES);
/// Words of a key: 14 coefficients 20 bits apart.
const KEY_WORDS: usize = (PARITY * SPACING).div_ceil(64);
/// The exponent of piece 0's `x^(525-3j)`.
const TOP_EXPONENT: usize = K - 1 + PARITY - (PIECE_SYMBOLS - 1);
/// The 19 bits of an unreduced product coefficient.
const COEFFICIENT_MASK: u64 = (1 << (2 * SYMBOL_BITS - 1)) - 1;
/// A symbol's 10 bits.
const SYMBOL_MASK: u64 = (1 << SYMBOL_BITS) - 1;
/// Octets of a codeword's words.
const CODEWORD_OCTETS: usize = 8 * CODEWORD_WORDS;
/// Octets from one turn to the next (8 pieces of 30 bits).
const TURN_OCTETS: usize = LANES * PIECE_SYMBOLS * SYMBOL_BITS / 8;

/// `x · r(x) mod g(x)` (`r` of degree below 14, coefficient `k` of `x^k`).
const fn times_x(r: [u16; PARITY]) -> [u16; PARITY] {
    let top = r[PARITY - 1];
    let mut out = [0u16; PARITY];
    let mut k = PARITY;
    while k > 0 {
        k -= 1;
        let below = if k == 0 { 0 } else { r[k - 1] };
        out[k] = below ^ mul_bit_serial(top, GENERATOR[k]);
    }
    out
}

/// Coefficients 20 bits apart in five words.
const fn kronecker(c: [u16; PARITY]) -> [u64; KEY_WORDS] {
    let mut w = [0u64; KEY_WORDS];
    let mut k = 0;
    while k < PARITY {
        let bit = SPACING * k;
        let v = c[k] as u64;
        w[bit / 64] |= v << (bit % 64);
        if bit % 64 > 64 - SYMBOL_BITS {
            w[bit / 64 + 1] |= v >> (64 - bit % 64);
        }
        k += 1;
    }
    w
}

/// The keys: `[turn][word][lane]` is word `word` of `C_j`, `j = 8 turn + lane` (zero past
/// the last piece), and `x^14 mod g`, `x^15 mod g` for the top coefficients.
struct Keys {
    pieces: [[[u64; LANES]; KEY_WORDS]; TURNS],
    x14: [u64; KEY_WORDS],
    x15: [u64; KEY_WORDS],
}

/// Built at compile time: `x^e mod g` for `e` from 14 (`g` without its top term) up.
// Evaluated at compile time only: an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
static KEYS: Keys = {
    let mut keys = Keys {
        pieces: [[[0; LANES]; KEY_WORDS]; TURNS],
        x14: [0; KEY_WORDS],
        x15: [0; KEY_WORDS],
    };
    let mut r = [0u16; PARITY];
    let mut k = 0;
    while k < PARITY {
        r[k] = GENERATOR[k];
        k += 1;
    }
    keys.x14 = kronecker(r);
    keys.x15 = kronecker(times_x(r));
    let mut e = PARITY;
    while e <= TOP_EXPONENT {
        if (TOP_EXPONENT - e).is_multiple_of(PIECE_SYMBOLS) {
            let j = (TOP_EXPONENT - e) / PIECE_SYMBOLS;
            let w = kronecker(r);
            let mut i = 0;
            while i < KEY_WORDS {
                keys.pieces[j / LANES][i][j % LANES] = w[i];
                i += 1;
            }
        }
        r = times_x(r);
        e += 1;
    }
    keys
};

/// `VPERMB` indices: lane `q` takes the 8 octets from octet `30q / 8` of the turn.
static GATHER: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut q = 0;
    while q < LANES {
        let mut b = 0;
        while b < 8 {
            t[8 * q + b] = (PIECE_SYMBOLS * SYMBOL_BITS * q / 8 + b) as u8;
            b += 1;
        }
        q += 1;
    }
    t
};

/// The bit a lane's piece starts at in its 8 octets.
static SHIFTS: [u64; LANES] = {
    let mut t = [0u64; LANES];
    let mut q = 0;
    while q < LANES {
        t[q] = (PIECE_SYMBOLS * SYMBOL_BITS * q % 8) as u64;
        q += 1;
    }
    t
};

/// Whether this CPU has what [`clmul_remainder`] needs (asked once).
#[must_use]
pub fn available() -> bool {
    static HAS: AtomicU8 = AtomicU8::new(0);
    super::asked_once(&HAS, || {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("vpclmulqdq")
            && std::arch::is_x86_feature_detected!("pclmulqdq")
            && std::arch::is_x86_feature_detected!("sse4.1")
    })
}

/// `a mod p(y)` for an unreduced product coefficient (19 bits): `y^10 = y^3 + 1`, twice.
#[inline(always)]
const fn reduce(a: u64) -> u64 {
    let h = a >> SYMBOL_BITS;
    let a = (a & SYMBOL_MASK) ^ h ^ (h << 3);
    let h = a >> SYMBOL_BITS;
    (a & SYMBOL_MASK) ^ h ^ (h << 3)
}

/// Coefficient `k` of a Kronecker string of six words (19 bits).
#[inline(always)]
fn coefficient(a: &[u64; KEY_WORDS + 1], k: usize) -> u64 {
    let bit = SPACING * k;
    let lo = a.get(bit / 64).copied().unwrap_or(0);
    let hi = a.get(bit / 64 + 1).copied().unwrap_or(0);
    let pair = u128::from(lo) | u128::from(hi) << 64;
    (pair >> (bit % 64)) as u64 & COEFFICIENT_MASK
}

/// The message's remainder on a CPU with the features of [`available`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq,pclmulqdq,sse4.1")]
pub(super) fn clmul_remainder(words: &[u64; CODEWORD_WORDS]) -> Bits140 {
    // SAFETY: GATHER and a turn's keys are 64 readable octets.
    let gather = unsafe { _mm512_loadu_si512(GATHER.as_ptr().cast()) };
    let shifts = unsafe { _mm512_loadu_si512(SHIFTS.as_ptr().cast()) };
    let mut acc = [_mm512_setzero_si512(); KEY_WORDS];
    let octets = words.as_ptr().cast::<u8>();
    for (t, keys) in KEYS.pieces.iter().enumerate() {
        let at = TURN_OCTETS * t;
        let left = CODEWORD_OCTETS.saturating_sub(at);
        let mask = u64::MAX
            .checked_shr(64u32.saturating_sub(left as u32))
            .unwrap_or(0);
        // SAFETY: the mask reads only octets below CODEWORD_OCTETS, all inside `words`;
        // masked-off octets are not read (AVX-512BW masked loads do not fault on them).
        let raw = unsafe { _mm512_maskz_loadu_epi8(mask, octets.wrapping_add(at).cast()) };
        let f = _mm512_srlv_epi64(_mm512_permutexvar_epi8(gather, raw), shifts);
        let q = spread_reversed(f);
        for (a, key) in acc.iter_mut().zip(keys) {
            // SAFETY: a key row is 64 readable octets.
            let k = unsafe { _mm512_loadu_si512(key.as_ptr().cast()) };
            let lo = _mm512_clmulepi64_epi128(q, k, 0x00);
            let hi = _mm512_clmulepi64_epi128(q, k, 0x11);
            *a = _mm512_ternarylogic_epi64(*a, lo, hi, 0x96);
        }
    }
    let mut a = [0u64; KEY_WORDS + 1];
    for (w, v) in acc.iter().enumerate() {
        let x = lanes_xor(*v);
        if let Some(d) = a.get_mut(w) {
            *d ^= _mm_cvtsi128_si64(x) as u64;
        }
        if let Some(d) = a.get_mut(w + 1) {
            *d ^= _mm_extract_epi64::<1>(x) as u64;
        }
    }
    finish(&mut a, words)
}

/// Each lane's 30 line bits (three symbols, the first in bits 0..9) as a Kronecker word with
/// the symbols in reverse: the third at bit 0, the second at 20, the first at 40.
#[target_feature(enable = "avx512f")]
fn spread_reversed(f: __m512i) -> __m512i {
    let m = _mm512_set1_epi64(SYMBOL_MASK as i64);
    let third = _mm512_and_si512(_mm512_srli_epi64::<20>(f), m);
    let second = _mm512_and_si512(_mm512_slli_epi64::<10>(f), _mm512_slli_epi64::<20>(m));
    let first = _mm512_and_si512(_mm512_slli_epi64::<40>(f), _mm512_slli_epi64::<40>(m));
    _mm512_or_si512(_mm512_or_si512(third, second), first)
}

/// The XOR of a register's four 128-bit lanes.
#[target_feature(enable = "avx512f,sse4.1")]
fn lanes_xor(v: __m512i) -> __m128i {
    _mm_xor_si128(
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<0>(v),
            _mm512_extracti32x4_epi32::<1>(v),
        ),
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(v),
            _mm512_extracti32x4_epi32::<3>(v),
        ),
    )
}

/// From `A` (16 unreduced coefficients) to the remainder in line order: the last message
/// symbol joins `a_14`, `a_14` and `a_15` come down through `x^14 mod g` and `x^15 mod g`,
/// then every coefficient is reduced mod `p(y)` and put in its place on the line (the
/// coefficient of `x^13` first, each symbol bit 0 first).
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn finish(a: &mut [u64; KEY_WORDS + 1], words: &[u64; CODEWORD_WORDS]) -> Bits140 {
    let last_bit = SYMBOL_BITS * (K - 1);
    let last = words.get(last_bit / 64).copied().unwrap_or(0) >> (last_bit % 64) & SYMBOL_MASK;
    let a14 = reduce(coefficient(a, PARITY)) ^ last;
    let a15 = reduce(coefficient(a, PARITY + 1));
    let top = SPACING * PARITY;
    if let Some(w) = a.get_mut(top / 64) {
        *w &= (1 << (top % 64)) - 1;
    }
    let (x14, x15) = (_mm_set_epi64x(0, a14 as i64), _mm_set_epi64x(0, a15 as i64));
    for (w, (&k14, &k15)) in KEYS.x14.iter().zip(&KEYS.x15).enumerate() {
        let p = _mm_xor_si128(
            _mm_clmulepi64_si128(x14, _mm_set_epi64x(0, k14 as i64), 0x00),
            _mm_clmulepi64_si128(x15, _mm_set_epi64x(0, k15 as i64), 0x00),
        );
        if let Some(d) = a.get_mut(w) {
            *d ^= _mm_cvtsi128_si64(p) as u64;
        }
        if let Some(d) = a.get_mut(w + 1) {
            *d ^= _mm_extract_epi64::<1>(p) as u64;
        }
    }
    let mut out = [0u64; 3];
    for k in 0..PARITY {
        let c = reduce(coefficient(a, k));
        let bit = SYMBOL_BITS * (PARITY - 1 - k);
        if let Some(d) = out.get_mut(bit / 64) {
            *d |= c << (bit % 64);
        }
        if bit % 64 > 64 - SYMBOL_BITS {
            if let Some(d) = out.get_mut(bit / 64 + 1) {
                *d |= c >> (64 - bit % 64);
            }
        }
    }
    out
}
