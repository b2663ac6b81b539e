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
//! Eight pieces a turn: one 64-octet load, `VPERMB` puts each piece's 30 line bits in its own
//! 64-bit lane, `VPMULTISHIFTQB` and a mask spread its symbols 20 bits apart in reverse order
//! (three vector instructions in all), and ten `VPCLMULQDQ` multiply the eight pieces by their
//! five key words. The keys
//! (22 turns × 5 words × 8 lanes, 7 KiB) are built at compile time from `fec-core`'s
//! generator polynomial with its bit-serial field multiplication.
//!
//! Spec: IEEE 802.3 §91.5.2.7 (the RS encoder), used by §108.5.2.5.

use core::arch::x86_64::{
    __m128i, __m512i, _mm512_and_si512, _mm512_clmulepi64_epi128, _mm512_extracti32x4_epi32,
    _mm512_loadu_si512, _mm512_maskz_loadu_epi8, _mm512_multishift_epi64_epi8, _mm512_or_si512,
    _mm512_permutexvar_epi8, _mm512_set1_epi64, _mm512_setzero_si512, _mm512_slli_epi64,
    _mm512_srli_epi64, _mm512_storeu_si512, _mm512_ternarylogic_epi64, _mm_cvtsi128_si64,
    _mm_extract_epi64, _mm_xor_si128,
};
use fec_core::rs::{mul_bit_serial, Bits140, GENERATOR, K, PARITY, SYMBOL_BITS};
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
/// A symbol's 10 bits.
const SYMBOL_MASK: u64 = (1 << SYMBOL_BITS) - 1;
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
}

/// Built at compile time: `x^e mod g` for `e` from 14 (`g` without its top term) up.
// Evaluated at compile time only: an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
static KEYS: Keys = {
    let mut keys = Keys {
        pieces: [[[0; LANES]; KEY_WORDS]; TURNS],
    };
    let mut r = [0u16; PARITY];
    let mut k = 0;
    while k < PARITY {
        r[k] = GENERATOR[k];
        k += 1;
    }
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

/// `VPMULTISHIFTQB` bit offsets: lane `q`'s piece starts at bit `30q % 8` of its 8 octets;
/// its octets take the piece's bits so that, under [`SPREAD_MASK`], the third symbol is at
/// bit 0, the second at 20 and the first at 40 (octet `b` of the lane is bits `8b..8b+7`):
///
/// ```text
///  octet      0     1     2     3     4   5     6     7
///  from bit   20    28    6     14    -   0     8     -     (of the piece)
///  kept       0xff  0x03  0xf0  0x3f  0   0xff  0x03  0
/// ```
static SPREAD: [u8; 64] = {
    const FROM: [usize; 8] = [20, 28, 6, 14, 0, 0, 8, 0];
    let mut t = [0u8; 64];
    let mut q = 0;
    while q < LANES {
        let start = PIECE_SYMBOLS * SYMBOL_BITS * q % 8;
        let mut b = 0;
        while b < 8 {
            t[8 * q + b] = (start + FROM[b]) as u8;
            b += 1;
        }
        q += 1;
    }
    t
};

/// The bits [`SPREAD`] keeps in each lane: three symbols at bits 0, 20 and 40.
const SPREAD_MASK: u64 = SYMBOL_MASK | SYMBOL_MASK << SPACING | SYMBOL_MASK << (2 * SPACING);

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

/// The remainder of the message that starts at octet `start` of `words` (bits past the end of
/// `words` read as zero), on a CPU with the features of [`available`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq,pclmulqdq,sse4.1")]
pub(super) fn clmul_remainder(words: &[u64], start: usize) -> Bits140 {
    // SAFETY: GATHER and a turn's keys are 64 readable octets.
    let gather = unsafe { _mm512_loadu_si512(GATHER.as_ptr().cast()) };
    let spread = unsafe { _mm512_loadu_si512(SPREAD.as_ptr().cast()) };
    let spread_mask = _mm512_set1_epi64(SPREAD_MASK as i64);
    let mut acc = [_mm512_setzero_si512(); KEY_WORDS];
    // The octets from `start` on (none when `start` is past the end).
    let octets = words.as_ptr().cast::<u8>();
    let len = (8 * words.len()).saturating_sub(start);
    let from = if len == 0 { 0 } else { start };
    for (t, keys) in KEYS.pieces.iter().enumerate() {
        let at = TURN_OCTETS * t;
        let left = len.saturating_sub(at).min(64);
        let mask = u64::MAX.checked_shr(64 - left as u32).unwrap_or(0);
        // SAFETY: the mask reads only the `left` octets from `from + at`, all inside `words`
        // (`from + at + left <= 8 * words.len()`); masked-off octets are not read (AVX-512BW
        // masked loads do not fault on them), and with no octet left none is.
        let raw = unsafe {
            _mm512_maskz_loadu_epi8(mask, octets.wrapping_add(from + at.min(len)).cast())
        };
        let f = _mm512_multishift_epi64_epi8(spread, _mm512_permutexvar_epi8(gather, raw));
        let q = _mm512_and_si512(f, spread_mask);
        for (a, key) in acc.iter_mut().zip(keys) {
            // SAFETY: a key row is 64 readable octets.
            let k = unsafe { _mm512_loadu_si512(key.as_ptr().cast()) };
            let lo = _mm512_clmulepi64_epi128(q, k, 0x00);
            let hi = _mm512_clmulepi64_epi128(q, k, 0x11);
            *a = _mm512_ternarylogic_epi64(*a, lo, hi, 0x96);
        }
    }
    let mut a = [0u64; LANES];
    for (w, v) in acc.iter().enumerate() {
        let x = lanes_xor(*v);
        if let Some(d) = a.get_mut(w) {
            *d ^= _mm_cvtsi128_si64(x) as u64;
        }
        if let Some(d) = a.get_mut(w + 1) {
            *d ^= _mm_extract_epi64::<1>(x) as u64;
        }
    }
    finish(&a, last_symbol(words, 8 * start + SYMBOL_BITS * (K - 1)))
}

/// The 10 bits at line bit `bit` of `words` (zeros past the end).
fn last_symbol(words: &[u64], bit: usize) -> u64 {
    let (w, s) = (bit / 64, (bit % 64) as u32);
    let lo = words.get(w).copied().unwrap_or(0);
    let hi = words.get(w + 1).copied().unwrap_or(0);
    ((lo >> s) | ((hi << 1) << (63 - s))) & SYMBOL_MASK
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

/// `VPERMB` indices: lane `i` takes the 8 octets of `A` from octet `5i` (bit `40i`, where
/// coefficient `2i` starts; `2i + 1` starts 20 bits later).
static PAIRS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < LANES {
        let mut b = 0;
        while b < 8 {
            t[8 * i + b] = (2 * SPACING * i / 8 + b) as u8;
            b += 1;
        }
        i += 1;
    }
    t
};

/// Bits `0..10` and `20..30` of a lane: two symbols.
const PAIR_SYMBOLS: u64 = SYMBOL_MASK | SYMBOL_MASK << SPACING;

/// `y^10 = y^3 + 1` on both coefficients of a lane, `high` the bits above `y^9` there can be
/// (shifted down to bit 0 and 20).
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_down(x: __m512i, high: __m512i) -> __m512i {
    let h = _mm512_and_si512(_mm512_srli_epi64::<10>(x), high);
    _mm512_ternarylogic_epi64(
        _mm512_and_si512(x, _mm512_set1_epi64(PAIR_SYMBOLS as i64)),
        h,
        _mm512_slli_epi64::<3>(h),
        0x96,
    )
}

/// `v · (x^e mod g)` in line order (the coefficient of `x^13` first) for `r = x^e mod g`.
const fn line_product(v: u16, r: [u16; PARITY]) -> Bits140 {
    let mut out = [0u64; 3];
    let mut k = 0;
    while k < PARITY {
        let c = mul_bit_serial(v, r[k]) as u64;
        let bit = SYMBOL_BITS * (PARITY - 1 - k);
        out[bit / 64] |= c << (bit % 64);
        if bit % 64 > 64 - SYMBOL_BITS {
            out[bit / 64 + 1] |= c >> (64 - bit % 64);
        }
        k += 1;
    }
    out
}

/// Bits of the top coefficients looked up at once.
const TOP_BITS: usize = 5;

/// The top coefficients' share of the remainder, in line order: `[group][v]` is
/// `v y^(5 (group % 2)) · (x^15 mod g)` for groups 0 and 1 (the coefficient of `x^15`),
/// `· (x^14 mod g)` for groups 2 and 3 (that of `x^14`).
// Evaluated at compile time only: an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
static TOP: [[Bits140; 1 << TOP_BITS]; 4] = {
    let mut x14 = [0u16; PARITY];
    let mut k = 0;
    while k < PARITY {
        x14[k] = GENERATOR[k];
        k += 1;
    }
    let x15 = times_x(x14);
    let mut t = [[[0u64; 3]; 1 << TOP_BITS]; 4];
    let mut g = 0;
    while g < 4 {
        let mut v = 0;
        while v < 1 << TOP_BITS {
            let shifted = (v << (TOP_BITS * (g % 2))) as u16;
            t[g][v] = line_product(shifted, if g < 2 { x15 } else { x14 });
            v += 1;
        }
        g += 1;
    }
    t
};

/// From `A` (16 unreduced coefficients, 20 bits apart in `a`) to the remainder in line order,
/// all coefficients at once: `VPERMB` puts coefficients `2i` and `2i + 1` in lane `i`, two
/// folds of `y^10 = y^3 + 1` reduce them mod `p(y)`, each lane swaps its two symbols into line
/// order, and seven lanes are packed into the 140 line bits (the coefficient of `x^13` first,
/// each symbol bit 0 first). Lane 7 holds `a_14` (which the last message symbol joins) and
/// `a_15`: they come down through `x^14 mod g` and `x^15 mod g` by [`TOP`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn finish(a: &[u64; LANES], last: u64) -> Bits140 {
    // SAFETY: PAIRS and `a` are 64 readable octets.
    let pairs = unsafe { _mm512_loadu_si512(PAIRS.as_ptr().cast()) };
    let x = _mm512_permutexvar_epi8(pairs, unsafe { _mm512_loadu_si512(a.as_ptr().cast()) });
    // Two coefficients of 19 bits (bit 19 and 39 are zero); the next pair's bits dropped.
    let x = _mm512_and_si512(x, _mm512_set1_epi64((1 << (2 * SPACING - 1)) - 1));
    let x = fold_down(x, _mm512_set1_epi64(0x1ff | 0x1ff << SPACING));
    let x = fold_down(x, _mm512_set1_epi64(0b11 | 0b11 << SPACING));
    // Lane i: coefficient 2i + 1 at bit 0, 2i at bit 10 (line order).
    let x = _mm512_or_si512(
        _mm512_srli_epi64::<20>(x),
        _mm512_slli_epi64::<10>(_mm512_and_si512(x, _mm512_set1_epi64(SYMBOL_MASK as i64))),
    );
    let mut p = [0u64; LANES];
    // SAFETY: `p` is 64 writable octets.
    unsafe { _mm512_storeu_si512(p.as_mut_ptr().cast(), x) };
    let [p0, p1, p2, p3, p4, p5, p6, p7] = p;
    let top = p7 ^ last << SYMBOL_BITS;
    let mut out = [
        p6 | p5 << 20 | p4 << 40 | p3 << 60,
        p3 >> 4 | p2 << 16 | p1 << 36 | p0 << 56,
        p0 >> 8,
    ];
    for (g, table) in TOP.iter().enumerate() {
        let v = (top >> (TOP_BITS * g)) as usize & ((1 << TOP_BITS) - 1);
        if let Some(row) = table.get(v) {
            for (o, r) in out.iter_mut().zip(row) {
                *o ^= r;
            }
        }
    }
    out
}
