//! The FEC kernels the host's CPU runs faster than `fec-core`'s tables, chosen at run time and
//! handed to the cores through their hooks (`fec-core` forbids `unsafe`, so it holds only the
//! portable tables; `engine/src/fec.rs` builds every FEC transmitter and receiver with these):
//!
//! - [`parity_kernel`]: the Clause 74 parity `x^32 m(x) mod g(x)` of a FEC block's 2080
//!   message bits by carry-less multiplication (`PCLMULQDQ`), where `fec-core` runs 264 table
//!   lookups. The parity is a CRC-32 with `g(x)` as its polynomial, no initial value and no
//!   final XOR, bit-reflected (line bit 0 first), so the arithmetic is the FCS's
//!   ([`crate::fcs::wide`]; Intel, "Fast CRC Computation for Generic Polynomials Using
//!   PCLMULQDQ"): the message is 17 pieces of 16 octets, the first with 12 zero octets in front
//!   (a CRC over a register of zero ignores them), and each of the first 16 is folded straight
//!   to the last one at once (`x.lo * k(D + 32) ^ x.hi * k(D - 32)` for a piece `D` bits
//!   ahead, `k(e)` the reflection of `x^e mod P` shifted left one bit), then the 128-bit
//!   remainder is reduced to 32 bits as crc32fast does.
//!
//! - [`remainder_kernel`]: the RS(528,514) remainder `x^14 m(x) mod g(x)` of a codeword's
//!   message by carry-less multiplication of polynomials over GF(2^10) (AVX-512
//!   `VPCLMULQDQ`, [`rs_remainder`]), where `fec-core` runs 666 table lookups.
//!
//! Each kernel asks once whether the CPU has its instructions and otherwise runs the cores'
//! tables; the tests prove each equal to the tables.
//!
//! Spec: IEEE 802.3 §74.7.4.4 (the parity, equation 74-1); §91.5.2.7 (the RS encoder).

#![allow(unsafe_code)]

use fec_core::base_r::{ParityKernel, FEC_BLOCK_WORDS, GENERATOR};
use fec_core::rs::{Bits140, RemainderKernel};
use std::sync::atomic::{AtomicU8, Ordering};

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m128i, __m512i, _mm512_clmulepi64_epi128, _mm512_extracti32x4_epi32, _mm512_loadu_si512,
    _mm512_maskz_permutexvar_epi8, _mm512_ternarylogic_epi64, _mm512_xor_si512, _mm_alignr_epi8,
    _mm_and_si128, _mm_clmulepi64_si128, _mm_extract_epi32, _mm_loadu_si128, _mm_set_epi32,
    _mm_set_epi64x, _mm_setzero_si128, _mm_srli_si128, _mm_xor_si128,
};

/// The Clause 74 parity kernel for this CPU: [`PCLMULQDQ`](parity_clmul) where it has it,
/// else `fec-core`'s tables.
///
/// Spec: IEEE 802.3 §74.7.4.4.
#[must_use]
pub fn parity_kernel() -> ParityKernel {
    if has_pclmul() {
        ParityKernel::new(parity_clmul)
    } else {
        ParityKernel::TABLES
    }
}

#[cfg(target_arch = "x86_64")]
pub mod rs_remainder;

/// The RS(528,514) remainder kernel for this CPU: [`rs_remainder`]'s carry-less
/// multiplication where it has AVX-512 `VPCLMULQDQ` and `VBMI`, else `fec-core`'s tables.
///
/// Spec: IEEE 802.3 §91.5.2.7.
#[must_use]
pub fn remainder_kernel() -> RemainderKernel {
    if has_rs_clmul() {
        RemainderKernel::new(remainder_clmul)
    } else {
        RemainderKernel::TABLES
    }
}

/// Whether this CPU has what [`rs_remainder`] needs.
fn has_rs_clmul() -> bool {
    #[cfg(target_arch = "x86_64")]
    return rs_remainder::available();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The remainder of the message at line bit `offset` of `words`, as `RemainderKernel::TABLES`
/// computes it: by [`rs_remainder`] where the CPU has it and the message starts on an octet.
///
/// Spec: IEEE 802.3 §91.5.2.7.
fn remainder_clmul(words: &[u64], offset: usize) -> Bits140 {
    #[cfg(target_arch = "x86_64")]
    if offset.is_multiple_of(8) && rs_remainder::available() {
        // SAFETY: `available` found every feature `clmul_remainder` is compiled for.
        return unsafe { rs_remainder::clmul_remainder(words, offset / 8) };
    }
    RemainderKernel::TABLES.message_remainder_at(words, offset)
}

/// `P = x^32 + g(x)` (equation 74-1), bit `i` the coefficient of `x^i`.
const POLY: u64 = 1 << 32 | GENERATOR as u64;

/// `x^e mod P`, bit `i` the coefficient of `x^i`.
const fn x_pow_mod(e: u32, poly: u64) -> u64 {
    let mut r: u64 = 1;
    let mut i = 0;
    while i < e {
        r <<= 1;
        if r & (1 << 32) != 0 {
            r ^= poly;
        }
        i += 1;
    }
    r
}

/// `k(e)`: `x^e mod P`, bit-reflected over 32 bits, shifted left one bit.
const fn fold_key(e: u32, poly: u64) -> u64 {
    ((x_pow_mod(e, poly) as u32).reverse_bits() as u64) << 1
}

/// `P` bit-reflected over 33 bits (the Barrett reduction's `P'`).
const fn reflected_poly(poly: u64) -> u64 {
    poly.reverse_bits() >> 31
}

/// `floor(x^64 / P)` bit-reflected over 33 bits (the Barrett reduction's `mu`).
const fn reflected_mu(poly: u64) -> u64 {
    // Long division of x^64 by P, one quotient bit at a time from x^32 down.
    let mut rem: u128 = 1 << 64;
    let mut q: u64 = 0;
    let mut bit = 32;
    loop {
        if rem >> (bit + 32) & 1 == 1 {
            rem ^= (poly as u128) << bit;
            q |= 1 << bit;
        }
        if bit == 0 {
            break;
        }
        bit -= 1;
    }
    q.reverse_bits() >> 31
}

/// 16-octet pieces of a FEC block's message: 12 zero octets and 4 message octets, then 16
/// pieces of 16 (2080 bits = 260 octets).
const PIECES: usize = 17;

/// Fold keys: row `j` moves a piece `j` pieces ahead, `[k(128j + 32), k(128j - 32)]`; row 0 is
/// not used (the last piece is added as it is).
const FOLD: [[u64; 2]; PIECES] = {
    let mut t = [[0u64; 2]; PIECES];
    let mut j = 1;
    while j < PIECES {
        t[j] = [
            fold_key(128 * j as u32 + 32, POLY),
            fold_key(128 * j as u32 - 32, POLY),
        ];
        j += 1;
    }
    t
};

/// `k(160)`, `k(96)`: one piece ahead, for the 128-to-96-bit step.
const K3: u64 = fold_key(160, POLY);
const K4: u64 = fold_key(96, POLY);
/// `k(64)`: 96 bits down to 64.
const K5: u64 = fold_key(64, POLY);
/// The Barrett reduction's `P'` and `mu`.
const P_X: u64 = reflected_poly(POLY);
const U_PRIME: u64 = reflected_mu(POLY);

/// Whether this CPU has `PCLMULQDQ`, SSSE3 and SSE4.1 (asked once).
#[must_use]
pub fn has_pclmul() -> bool {
    static HAS: AtomicU8 = AtomicU8::new(0);
    asked_once(&HAS, detect_pclmul)
}

/// `detect()` the first time, then its answer kept in `memo` (0: not asked yet, 1 yes, 2 no).
/// The FEC kernels ask when a transmitter or receiver is built, not per block. (The FCS's
/// checks, asked per frame, stay written out: see `fcs/wide.rs`.)
pub(crate) fn asked_once(memo: &AtomicU8, detect: impl FnOnce() -> bool) -> bool {
    match memo.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let has = detect();
            memo.store(if has { 1 } else { 2 }, Ordering::Relaxed);
            has
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn detect_pclmul() -> bool {
    std::arch::is_x86_feature_detected!("pclmulqdq")
        && std::arch::is_x86_feature_detected!("ssse3")
        && std::arch::is_x86_feature_detected!("sse4.1")
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_pclmul() -> bool {
    false
}

/// The reflected parity of a FEC block's message bits, as `ParityKernel::TABLES` computes it:
/// by [`clmul_parity`] where the CPU has it.
///
/// Spec: IEEE 802.3 §74.7.4.4.
fn parity_clmul(line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if has_parity_clmul512() {
        // SAFETY: `has_parity_clmul512` found every feature `clmul512_parity` is compiled for.
        return unsafe { clmul512_parity(line) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_pclmul() {
        // SAFETY: `has_pclmul` found every feature `clmul_parity` is compiled for.
        return unsafe { clmul_parity(line) };
    }
    ParityKernel::TABLES.parity_line_bits(line)
}

/// [`parity_clmul`] on a CPU with `PCLMULQDQ`, SSSE3 and SSE4.1.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq,ssse3,sse4.1")]
fn clmul_parity(line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
    let fold = |x: __m128i, [lo, hi]: [u64; 2]| {
        let key = _mm_set_epi64x(hi as i64, lo as i64);
        _mm_xor_si128(
            _mm_clmulepi64_si128(x, key, 0x00),
            _mm_clmulepi64_si128(x, key, 0x11),
        )
    };
    // Piece k is octets 16k - 12 .. 16k + 4: the last 12 octets of pair k - 1 (words 2k - 2
    // and 2k - 1) and the first 4 of pair k (octets before 0 are zero); piece k < 16 is
    // folded 16 - k pieces ahead. The last piece ends at octet 260, inside word 32, whose
    // high half (the parity's place) is left out.
    let (pairs, last_word) = line.as_chunks::<2>();
    let mut prev = _mm_setzero_si128();
    let mut acc = _mm_setzero_si128();
    for (&[lo, hi], &key) in pairs.iter().zip(FOLD.iter().rev()) {
        let next = _mm_set_epi64x(hi as i64, lo as i64);
        acc = _mm_xor_si128(acc, fold(_mm_alignr_epi8::<4>(next, prev), key));
        prev = next;
    }
    let tail = last_word.first().copied().unwrap_or(0) & 0xffff_ffff;
    let last = _mm_alignr_epi8::<4>(_mm_set_epi64x(0, tail as i64), prev);
    reduce128(_mm_xor_si128(acc, last))
}

/// Whether this CPU has what [`clmul512_parity`] needs: AVX-512 `VPCLMULQDQ` and `VBMI`
/// (asked once).
#[must_use]
pub fn has_parity_clmul512() -> bool {
    static HAS: AtomicU8 = AtomicU8::new(0);
    asked_once(&HAS, || {
        #[cfg(target_arch = "x86_64")]
        return has_pclmul()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("vpclmulqdq");
        #[cfg(not(target_arch = "x86_64"))]
        false
    })
}

/// The fold keys of [`clmul_parity`] four pieces a register: lane `i` of register `j` folds
/// piece `4j + i` to the last one (16 - 4j - i pieces ahead).
#[cfg(target_arch = "x86_64")]
static FOLD512: [[u64; 8]; 4] = {
    let mut t = [[0u64; 8]; 4];
    let mut j = 0;
    while j < 4 {
        let mut i = 0;
        while i < 4 {
            let [lo, hi] = FOLD[PIECES - 1 - (4 * j + i)];
            t[j][2 * i] = lo;
            t[j][2 * i + 1] = hi;
            i += 1;
        }
        j += 1;
    }
    t
};

/// `VPERMB` indices that move a register's octets up 12 places (octet `i` from `i - 12`; the
/// first 12 are zeroed by the mask [`UP_12_MASK`]).
#[cfg(target_arch = "x86_64")]
static UP_12: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 12;
    while i < 64 {
        t[i] = (i - 12) as u8;
        i += 1;
    }
    t
};

/// The octets [`UP_12`] fills.
#[cfg(target_arch = "x86_64")]
const UP_12_MASK: u64 = !0xfff;

/// [`clmul_parity`] four pieces an instruction (AVX-512 `VPCLMULQDQ`): pieces 0..16 (octets
/// `16k - 12 .. 16k + 4`) are four 64-octet registers, from octets -12 (the first 12 zero:
/// octets 0..52 moved up 12 places), 52, 116 and 180; each lane is folded straight to the
/// last piece (octets 244..260; the parity's place, octets 260..264, is not read) by its own
/// keys, the four lanes of the four sums are added, and the last piece is added before
/// [`reduce128`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq,pclmulqdq,sse4.1")]
fn clmul512_parity(line: &[u64; FEC_BLOCK_WORDS]) -> u32 {
    let octets = line.as_ptr().cast::<u8>();
    // SAFETY: octets 0..64, 52..116, 116..180, 180..244 and 244..260 are inside the 264 of
    // `line`; UP_12 and the keys are 64 readable octets.
    let (x0, x1, x2, x3, last) = unsafe {
        let up = _mm512_loadu_si512(UP_12.as_ptr().cast());
        (
            _mm512_maskz_permutexvar_epi8(UP_12_MASK, up, _mm512_loadu_si512(octets.cast())),
            _mm512_loadu_si512(octets.wrapping_add(52).cast()),
            _mm512_loadu_si512(octets.wrapping_add(116).cast()),
            _mm512_loadu_si512(octets.wrapping_add(180).cast()),
            _mm_loadu_si128(octets.wrapping_add(244).cast()),
        )
    };
    let fold = |x: __m512i, keys: &[u64; 8]| {
        // SAFETY: a key row is 64 readable octets.
        let k = unsafe { _mm512_loadu_si512(keys.as_ptr().cast()) };
        _mm512_xor_si512(
            _mm512_clmulepi64_epi128(x, k, 0x00),
            _mm512_clmulepi64_epi128(x, k, 0x11),
        )
    };
    let [k0, k1, k2, k3] = &FOLD512;
    let sum = _mm512_ternarylogic_epi64(
        _mm512_xor_si512(fold(x0, k0), fold(x1, k1)),
        fold(x2, k2),
        fold(x3, k3),
        0x96,
    );
    let lanes = _mm_xor_si128(
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<0>(sum),
            _mm512_extracti32x4_epi32::<1>(sum),
        ),
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(sum),
            _mm512_extracti32x4_epi32::<3>(sum),
        ),
    );
    reduce128(_mm_xor_si128(lanes, last))
}

/// The reflected CRC register from a 128-bit remainder at the last piece: to 96 bits, to 64,
/// then the Barrett reduction to 32 (crc32fast's steps, without its final inversion: the
/// parity has no final XOR).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn reduce128(x: __m128i) -> u32 {
    let k34 = _mm_set_epi64x(K4 as i64, K3 as i64);
    let low32 = _mm_set_epi32(0, 0, 0, !0);
    let x = _mm_xor_si128(_mm_clmulepi64_si128(x, k34, 0x10), _mm_srli_si128::<8>(x));
    let x = _mm_xor_si128(
        _mm_clmulepi64_si128(_mm_and_si128(x, low32), _mm_set_epi64x(0, K5 as i64), 0x00),
        _mm_srli_si128::<4>(x),
    );
    let pu = _mm_set_epi64x(U_PRIME as i64, P_X as i64);
    let t1 = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pu, 0x10);
    let t2 = _mm_clmulepi64_si128(_mm_and_si128(t1, low32), pu, 0x00);
    _mm_extract_epi32::<1>(_mm_xor_si128(x, t2)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use fec_core::rs::CODEWORD_WORDS;
    use proptest::prelude::*;

    /// The constants' formulas give crc32fast's for the Ethernet CRC's polynomial.
    #[test]
    fn key_formulas_give_crc32fasts_constants_for_the_ethernet_polynomial() {
        let p = 0x1_04c1_1db7;
        assert_eq!(fold_key(544, p), 0x1_5444_2bd4);
        assert_eq!(fold_key(480, p), 0x1_c6e4_1596);
        assert_eq!(fold_key(160, p), 0x1_7519_97d0);
        assert_eq!(fold_key(96, p), 0x0_ccaa_009e);
        assert_eq!(fold_key(64, p), 0x1_63cd_6124);
        assert_eq!(reflected_poly(p), 0x1_db71_0641);
        assert_eq!(reflected_mu(p), 0x1_f701_1641);
    }

    #[test]
    fn this_machine_has_pclmulqdq() {
        assert!(has_pclmul(), "CI's machine has PCLMULQDQ");
    }

    /// A message bit alone, in every place, and the high half of word 32 ignored.
    #[test]
    fn clmul_parity_equals_the_tables_on_every_single_bit() {
        let k = parity_kernel();
        for bit in 0..2112 {
            let mut line = [0u64; FEC_BLOCK_WORDS];
            line[bit / 64] = 1 << (bit % 64);
            let want = ParityKernel::TABLES.parity_line_bits(&line);
            assert_eq!(k.parity_line_bits(&line), want, "bit {bit}");
            assert_eq!(both_clmul_parities(&line), [want, want], "bit {bit}");
        }
    }

    /// The parity by 16-octet pieces (`PCLMULQDQ`) and four pieces a register (AVX-512
    /// `VPCLMULQDQ`, which `parity_kernel` picks on this machine).
    fn both_clmul_parities(line: &[u64; FEC_BLOCK_WORDS]) -> [u32; 2] {
        assert!(
            has_pclmul() && has_parity_clmul512(),
            "this machine has AVX-512 VPCLMULQDQ"
        );
        // SAFETY: both asked for above.
        unsafe { [clmul_parity(line), clmul512_parity(line)] }
    }

    /// Each message bit alone, and the parity bits not read.
    #[test]
    fn clmul_remainder_equals_the_tables_on_every_single_bit() {
        assert!(
            has_rs_clmul(),
            "this machine has AVX-512 VPCLMULQDQ and VBMI"
        );
        let k = remainder_kernel();
        for bit in 0..CODEWORD_WORDS * 64 {
            let mut words = [0u64; CODEWORD_WORDS];
            words[bit / 64] = 1 << (bit % 64);
            assert_eq!(
                k.message_remainder(&words),
                RemainderKernel::TABLES.message_remainder(&words),
                "bit {bit}"
            );
        }
    }

    proptest! {
        #[test]
        fn clmul_remainder_equals_the_tables(words in prop::collection::vec(any::<u64>(), CODEWORD_WORDS)) {
            let words: [u64; CODEWORD_WORDS] = words.try_into().unwrap();
            prop_assert_eq!(
                remainder_kernel().message_remainder(&words),
                RemainderKernel::TABLES.message_remainder(&words)
            );
        }

        /// A message where it lies in a word stream: from any bit (the kernel on an octet, the
        /// tables elsewhere), in a stream that may end before the codeword does.
        #[test]
        fn clmul_remainder_at_an_offset_equals_the_tables(
            words in prop::collection::vec(any::<u64>(), CODEWORD_WORDS - 8..CODEWORD_WORDS + 6),
            offset in 0usize..200,
        ) {
            prop_assert_eq!(
                remainder_kernel().message_remainder_at(&words, offset),
                RemainderKernel::TABLES.message_remainder_at(&words, offset)
            );
            let octet = offset / 8 * 8;
            prop_assert_eq!(
                remainder_kernel().message_remainder_at(&words, octet),
                RemainderKernel::TABLES.message_remainder_at(&words, octet)
            );
        }

        #[test]
        fn clmul_parity_equals_the_tables(words in prop::array::uniform32(any::<u64>()), last in any::<u64>()) {
            let mut line = [0u64; FEC_BLOCK_WORDS];
            line[..32].copy_from_slice(&words);
            line[32] = last;
            let k = parity_kernel();
            let want = ParityKernel::TABLES.parity_line_bits(&line);
            prop_assert_eq!(k.parity_line_bits(&line), want);
            prop_assert_eq!(both_clmul_parities(&line), [want, want]);
            prop_assert_eq!(k.syndrome(&line), fec_core::base_r::syndrome(&line));
        }
    }
}
