//! The FCS by carry-less multiplication, where the CPU has it, for the frames the chains
//! spend most on.
//!
//! - A long frame ([`checksum`], 272 octets or more, AVX-512 `VPCLMULQDQ`): 256 octets a turn
//!   in 16 independent 128-bit lanes, then every lane and every 16-octet piece left folded
//!   straight to the frame's end at once (a tree, where crc32fast folds its lanes one after
//!   the other: the latency the transmitter waits for before a frame's last block).
//! - The 64-octet frame a receiver checks ([`checksum_64`], `PCLMULQDQ`) and the 60-octet
//!   frame a transmitter sends unpadded ([`checksum_60`]): their pieces built from 8-octet
//!   loads (which a receiver's just-written transfers can forward) and folded to the last
//!   piece at once.
//!
//! Both end as crc32fast does: the 128-bit remainder reduced to the CRC (`reduce128`).
//!
//! The arithmetic (Intel, "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ"),
//! bit-reflected: a 128-bit piece `x` that lies `D` bits before a later piece counts there as
//! `x.lo * k(D + 32) ^ x.hi * k(D - 32)`, with `k(e)` the reflection of `x^e mod P` shifted
//! left one bit ([`fold_key`], which the tests check [`FOLD`] against). The octets before the
//! first 16-octet piece that ends a multiple of 16 from the end (`len % 16` of them) are read
//! as a piece of their own with zeros in front, which a CRC over a register of zero ignores.
//!
//! Spec: IEEE 802.3 §3.2.9 (the FCS); the CRC is the one `mac_core::frame::TableFcs` computes.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m128i, __m512i, _mm512_broadcast_i32x4, _mm512_clmulepi64_epi128, _mm512_extracti32x4_epi32,
    _mm512_loadu_si512, _mm512_maskz_loadu_epi8, _mm512_ternarylogic_epi64, _mm512_xor_si512,
    _mm512_zextsi128_si512, _mm_and_si128, _mm_clmulepi64_si128, _mm_extract_epi32,
    _mm_loadu_si128, _mm_set_epi32, _mm_set_epi64x, _mm_srli_si128, _mm_ternarylogic_epi64,
    _mm_xor_si128,
};
use std::sync::atomic::{AtomicU8, Ordering};

/// The shortest frame [`checksum`] takes: one 16-octet head and 256 octets for the lanes.
pub const MIN_OCTETS: usize = 272;

/// Fold keys: row `i` moves a piece `31 - i` pieces of 16 octets ahead (`[k(D + 32),
/// k(D - 32)]`, `D = 128 (31 - i)`); rows past 30 are zero (a piece already at the end, or
/// no piece: masked out).
pub const FOLD: [[u64; 2]; 48] = [
    [0x0398e2ff2, 0x1cf247394], // 31 chunks
    [0x119adc226, 0x145972f08], // 30 chunks
    [0x144c76d92, 0x1b631f204], // 29 chunks
    [0x0ad0d2bb2, 0x0cd669a40], // 28 chunks
    [0x13484efdc, 0x0f9d9c7ee], // 27 chunks
    [0x04b700aa8, 0x0eea395c4], // 26 chunks
    [0x150fc8004, 0x04470ac44], // 25 chunks
    [0x1f79525b0, 0x0d31343ea], // 24 chunks
    [0x07eaed122, 0x09b9bdbd0], // 23 chunks
    [0x11e6a95a2, 0x12af2c15a], // 22 chunks
    [0x1ad568056, 0x1c712203a], // 21 chunks
    [0x00e9bd5cc, 0x115b87256], // 20 chunks
    [0x032b0733c, 0x0ff6f2fc2], // 19 chunks
    [0x1f7228078, 0x1aaa44c18], // 18 chunks
    [0x0a749e894, 0x16269a506], // 17 chunks
    [0x11542778a, 0x1322d1430], // 16 chunks
    [0x1db06f64c, 0x1c47d2a9c], // 15 chunks
    [0x19159bb02, 0x125f17dfc], // 14 chunks
    [0x1b35adb0e, 0x1e7146aac], // 13 chunks
    [0x1821d8bc0, 0x12e958ac4], // 12 chunks
    [0x1816ab61c, 0x10aae2566], // 11 chunks
    [0x0e3543be0, 0x14b57d3f0], // 10 chunks
    [0x1fdc60a7c, 0x03f41287a], // 9 chunks
    [0x1e88ef372, 0x14a7fe880], // 8 chunks
    [0x1ea89367e, 0x1d7cfc6ac], // 7 chunks
    [0x0df068dc2, 0x18cb44e58], // 6 chunks
    [0x1c7569e54, 0x0ae0b5394], // 5 chunks
    [0x154442bd4, 0x1c6e41596], // 4 chunks
    [0x03db1ecdc, 0x174359406], // 3 chunks
    [0x0f1da05aa, 0x15a546366], // 2 chunks
    [0x1751997d0, 0x0ccaa009e], // 1 chunks
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
    [0x000000000, 0x000000000], // none
];

/// `k(128 + 32)`, `k(128 - 32)`: one piece ahead.
const K3: i64 = 0x1_7519_97d0;
const K4: i64 = 0x0_ccaa_009e;
/// `k(64)`: 96 bits down to 64.
const K5: i64 = 0x1_63cd_6124;
/// The polynomial, reflected, and `floor(x^64 / P)` reflected, for the Barrett reduction.
const P_X: i64 = 0x1_db71_0641;
const U_PRIME: i64 = 0x1_f701_1641;

/// `k(e)`: `x^e mod P` (P = 0x104C11DB7), bit-reflected over 32 bits, shifted left one bit.
#[must_use]
pub const fn fold_key(e: u32) -> u64 {
    let mut r: u64 = 1;
    let mut i = 0;
    while i < e {
        r <<= 1;
        if r & (1 << 32) != 0 {
            r ^= 0x1_04c1_1db7;
        }
        i += 1;
    }
    ((r as u32).reverse_bits() as u64) << 1
}

/// Whether this CPU has what [`checksum`] needs (asked once).
#[must_use]
pub fn available() -> bool {
    static HAS: AtomicU8 = AtomicU8::new(0);
    match HAS.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let has = std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("vpclmulqdq")
                && std::arch::is_x86_feature_detected!("pclmulqdq")
                && std::arch::is_x86_feature_detected!("sse4.1");
            HAS.store(if has { 1 } else { 2 }, Ordering::Relaxed);
            has
        }
    }
}

/// Whether this CPU has `PCLMULQDQ` and SSE4.1, what [`checksum_60`] and [`checksum_64`] need
/// (asked once). (Written out as [`available`] is: a shared helper taking the detection as a
/// closure measured 2 % slower on the uniform mix, by where the code then lay.)
#[must_use]
pub fn has_pclmul() -> bool {
    static HAS: AtomicU8 = AtomicU8::new(0);
    match HAS.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let has = std::arch::is_x86_feature_detected!("pclmulqdq")
                && std::arch::is_x86_feature_detected!("sse4.1");
            HAS.store(if has { 1 } else { 2 }, Ordering::Relaxed);
            has
        }
    }
}

/// The CRC-32 of `data` (as `crc32fast::hash`), or `None` when `data` is shorter than
/// [`MIN_OCTETS`] or the CPU lacks the instructions.
#[must_use]
#[inline]
pub fn checksum(data: &[u8]) -> Option<u32> {
    if data.len() < MIN_OCTETS || !available() {
        return None;
    }
    // SAFETY: `available` found every feature `crc_long` is compiled for.
    Some(unsafe { crc_long(data) })
}

/// 64 octets from the start of `d`, which holds at least 64.
#[inline(always)]
fn load64(d: &[u8]) -> __m512i {
    let d = d.get(..64).unwrap_or_else(|| unreachable_load());
    // SAFETY: `d` is 64 readable octets; the load needs no alignment; the callers are compiled
    // with AVX-512.
    unsafe { _mm512_loadu_si512(d.as_ptr().cast()) }
}

/// 16 octets from the start of `d`, which holds at least 16.
#[inline(always)]
fn load16(d: &[u8]) -> __m128i {
    let d = d.get(..16).unwrap_or_else(|| unreachable_load());
    // SAFETY: `d` is 16 readable octets; the load needs no alignment (SSE2, always there).
    unsafe { _mm_loadu_si128(d.as_ptr().cast()) }
}

/// The callers slice what they load after checking the length; never reached.
#[cold]
fn unreachable_load() -> &'static [u8] {
    &[0; 64]
}

/// Folds the 16 lanes of `v` ahead by the keys in `k` and adds `next`.
#[inline(always)]
fn fold_into(v: __m512i, k: __m512i, next: __m512i) -> __m512i {
    // SAFETY (of the intrinsics): the callers are compiled with AVX-512 and VPCLMULQDQ.
    unsafe {
        let a = _mm512_clmulepi64_epi128(v, k, 0x00);
        let b = _mm512_clmulepi64_epi128(v, k, 0x11);
        _mm512_ternarylogic_epi64(a, b, next, 0x96)
    }
}

/// Four rows of [`FOLD`] from `row` (at most 44) as one register.
#[inline(always)]
fn keys(row: usize) -> __m512i {
    let rows = FOLD.get(row..row + 4).unwrap_or(&FOLD[44..]);
    // SAFETY: four rows are 64 readable octets.
    unsafe { _mm512_loadu_si512(rows.as_ptr().cast()) }
}

/// [`checksum`] on a CPU with the features below and `data.len() >= MIN_OCTETS`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1")]
fn crc_long(data: &[u8]) -> u32 {
    // The register before the first octet (`!0`), on the first four octets.
    const REG: u128 = 0xffff_ffff;
    let p = data.len() % 16;
    // The `p` octets before the aligned pieces, as a piece ending where they start; the
    // register's octets from `p` on fall into the first aligned piece.
    let head = data
        .first_chunk::<16>()
        .map_or(0, |h| u128::from_le_bytes(*h))
        ^ REG;
    let head = head.checked_shl(8 * (16 - p as u32)).unwrap_or(0);
    let spill = REG.checked_shr(8 * p as u32).unwrap_or(0);
    let split = |v: u128| _mm_set_epi64x((v >> 64) as i64, v as i64);
    let k34 = _mm_set_epi64x(K4, K3);
    let (h, k) = (split(head), k34);
    let first = _mm_ternarylogic_epi64(
        _mm_clmulepi64_si128(h, k, 0x00),
        _mm_clmulepi64_si128(h, k, 0x11),
        split(spill),
        0x96,
    );

    let mut d = data.get(p..).unwrap_or_default();
    let mut v0 = _mm512_xor_si512(load64(d), _mm512_zextsi128_si512(first));
    let mut v1 = load64(d.get(64..).unwrap_or_default());
    let mut v2 = load64(d.get(128..).unwrap_or_default());
    let mut v3 = load64(d.get(192..).unwrap_or_default());
    d = d.get(256..).unwrap_or_default();
    let ahead16 = _mm512_broadcast_i32x4(_mm_set_epi64x(FOLD[15][1] as i64, FOLD[15][0] as i64));
    while let (Some(a), Some(b), Some(c), Some(e)) = (
        d.get(..64),
        d.get(64..128),
        d.get(128..192),
        d.get(192..256),
    ) {
        v0 = fold_into(v0, ahead16, load64(a));
        v1 = fold_into(v1, ahead16, load64(b));
        v2 = fold_into(v2, ahead16, load64(c));
        v3 = fold_into(v3, ahead16, load64(e));
        d = d.get(256..).unwrap_or_default();
    }

    // `q` < 16 whole pieces left: every lane and every piece folded straight to the last piece,
    // which is added as it is.
    let q = d.len() / 16;
    let zero = _mm512_zextsi128_si512(_mm_set_epi64x(0, 0));
    let mut x = _mm512_ternarylogic_epi64(
        fold_into(v0, keys(16 - q), zero),
        fold_into(v1, keys(20 - q), zero),
        fold_into(v2, keys(24 - q), zero),
        0x96,
    );
    let mut y = fold_into(v3, keys(28 - q), zero);
    let last = match q.checked_sub(1) {
        None => _mm512_extracti32x4_epi32(v3, 3),
        Some(l) => load16(d.get(16 * l..).unwrap_or_default()),
    };
    for (t, piece) in d.get(..16 * q).unwrap_or_default().chunks(64).enumerate() {
        let mask = u64::MAX >> (64 - piece.len());
        // SAFETY: the mask reads `piece.len()` octets, all inside `piece`; masked-off octets
        // are not read (AVX-512BW masked loads do not fault on them).
        let v = unsafe { _mm512_maskz_loadu_epi8(mask, piece.as_ptr().cast()) };
        if t % 2 == 0 {
            x = fold_into(v, keys(32 - q + 4 * t), x);
        } else {
            y = fold_into(v, keys(32 - q + 4 * t), y);
        }
    }
    let z = _mm512_xor_si512(x, y);
    let x = _mm_ternarylogic_epi64(
        _mm_xor_si128(
            _mm512_extracti32x4_epi32(z, 0),
            _mm512_extracti32x4_epi32(z, 1),
        ),
        _mm_xor_si128(
            _mm512_extracti32x4_epi32(z, 2),
            _mm512_extracti32x4_epi32(z, 3),
        ),
        last,
        0x96,
    );

    reduce128(x)
}

/// The CRC-32 of a 64-octet frame (the shortest a receiver checks with its FCS), or `None`
/// for another length or a CPU without `PCLMULQDQ`. Its four 16-octet pieces are built from
/// 8-octet loads, which the store of each transfer a receiver has just written into its frame
/// can forward (a 16-octet load spans two such stores and waits for both to reach the
/// cache), and the first three are folded straight to the last at once.
#[must_use]
#[inline]
pub fn checksum_64(data: &[u8]) -> Option<u32> {
    let data = <&[u8; 64]>::try_from(data).ok()?;
    if !has_pclmul() {
        return None;
    }
    // SAFETY: `has_pclmul` found the features `crc_64` is compiled for.
    Some(unsafe { crc_64(data) })
}

/// [`checksum_64`] on a CPU with `PCLMULQDQ`.
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn crc_64(data: &[u8; 64]) -> u32 {
    let at = |i: usize| octets8(data, i);
    // The register before the first octet (`!0`) on the frame's first four octets.
    fold_four([
        _mm_set_epi64x(at(8), at(0) ^ 0xffff_ffff),
        _mm_set_epi64x(at(24), at(16)),
        _mm_set_epi64x(at(40), at(32)),
        _mm_set_epi64x(at(56), at(48)),
    ])
}

/// The CRC-32 of a 60-octet frame (the shortest a transmitter sends unpadded: 64 octets
/// with its FCS), or `None` for another length or a CPU without `PCLMULQDQ`. Its first 12
/// octets are a piece with four zero octets in front (a CRC over a register of zero ignores
/// them), the other 48 three pieces; all built from 8-octet loads and folded to the last
/// piece at once, where crc32fast folds them one after the other and then shuffles the 12
/// octets left into place.
#[must_use]
#[inline]
pub fn checksum_60(data: &[u8]) -> Option<u32> {
    let data = <&[u8; 60]>::try_from(data).ok()?;
    if !has_pclmul() {
        return None;
    }
    // SAFETY: `has_pclmul` found the features `crc_60` is compiled for.
    Some(unsafe { crc_60(data) })
}

/// [`checksum_60`] on a CPU with `PCLMULQDQ`. (Written apart from [`crc_64`], as is its
/// wrapper: one const-generic function for both lengths measured 3 % slower on the uniform
/// TX chain here, by where the code then lay.)
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn crc_60(data: &[u8; 60]) -> u32 {
    let at = |i: usize| octets8(data, i);
    // The register before the first octet (`!0`) on the frame's first four octets; octets
    // 0..12 as a piece with four zero octets in front.
    let first4 = data
        .first_chunk::<4>()
        .map_or(0, |b| u32::from_le_bytes(*b))
        ^ !0;
    fold_four([
        _mm_set_epi64x(at(4), i64::from(first4) << 32),
        _mm_set_epi64x(at(20), at(12)),
        _mm_set_epi64x(at(36), at(28)),
        _mm_set_epi64x(at(52), at(44)),
    ])
}

/// The 8 octets of `data` from `i` (little-endian), 0 past its end.
#[inline(always)]
fn octets8(data: &[u8], i: usize) -> i64 {
    data.get(i..i + 8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, i64::from_le_bytes)
}

/// The CRC of four consecutive 16-octet pieces ending the frame: the first three folded
/// straight to the last (3, 2 and 1 pieces ahead) at once.
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn fold_four([x0, x1, x2, x3]: [__m128i; 4]) -> u32 {
    let fold = |x: __m128i, ahead: usize| {
        let [lo, hi] = FOLD[31 - ahead];
        let key = _mm_set_epi64x(hi as i64, lo as i64);
        _mm_xor_si128(
            _mm_clmulepi64_si128(x, key, 0x00),
            _mm_clmulepi64_si128(x, key, 0x11),
        )
    };
    reduce128(_mm_xor_si128(
        _mm_xor_si128(fold(x0, 3), fold(x1, 2)),
        _mm_xor_si128(fold(x2, 1), x3),
    ))
}

/// The CRC from a 128-bit remainder at the frame's last piece: to 96 bits, to 64, then the
/// Barrett reduction to 32 (crc32fast's steps).
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn reduce128(x: __m128i) -> u32 {
    let k34 = _mm_set_epi64x(K4, K3);
    let low32 = _mm_set_epi32(0, 0, 0, !0);
    let x = _mm_xor_si128(_mm_clmulepi64_si128(x, k34, 0x10), _mm_srli_si128(x, 8));
    let x = _mm_xor_si128(
        _mm_clmulepi64_si128(_mm_and_si128(x, low32), _mm_set_epi64x(0, K5), 0x00),
        _mm_srli_si128(x, 4),
    );
    let pu = _mm_set_epi64x(U_PRIME, P_X);
    let t1 = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pu, 0x10);
    let t2 = _mm_clmulepi64_si128(_mm_and_si128(t1, low32), pu, 0x00);
    !(_mm_extract_epi32(_mm_xor_si128(x, t2), 1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mac_core::frame::{FcsEngine, TableFcs};

    /// The 60-octet path against the cores' table engine, on many frames and offsets; other
    /// lengths are refused.
    #[test]
    fn the_60_octet_path_equals_the_table_engine() {
        assert!(has_pclmul(), "CI's machine has PCLMULQDQ");
        let buf: Vec<u8> = (0..4200u32)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 13) as u8)
            .collect();
        for off in 0..4096 {
            let d = &buf[off..off + 60];
            assert_eq!(checksum_60(d), Some(TableFcs::checksum(d)), "at {off}");
        }
        for len in [0, 16, 59, 61, 64] {
            assert_eq!(checksum_60(&buf[..len]), None, "{len} octets");
        }
    }

    /// The 64-octet path against the cores' table engine, on many frames and offsets; other
    /// lengths are refused.
    #[test]
    fn the_64_octet_path_equals_the_table_engine() {
        assert!(has_pclmul(), "CI's machine has PCLMULQDQ");
        let buf: Vec<u8> = (0..4200u32)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 13) as u8)
            .collect();
        for off in 0..4096 {
            let d = &buf[off..off + 64];
            assert_eq!(checksum_64(d), Some(TableFcs::checksum(d)), "at {off}");
        }
        for len in [0, 16, 60, 63, 65, 128] {
            assert_eq!(checksum_64(&buf[..len]), None, "{len} octets");
        }
    }

    #[test]
    fn fold_keys_are_the_powers_of_x_they_name() {
        for (i, row) in FOLD.iter().enumerate() {
            let m = 31 - i as i64;
            let want = if m > 0 {
                [fold_key(128 * m as u32 + 32), fold_key(128 * m as u32 - 32)]
            } else {
                [0, 0]
            };
            assert_eq!(*row, want, "row {i}");
        }
        assert_eq!(fold_key(160), K3 as u64);
        assert_eq!(fold_key(96), K4 as u64);
        assert_eq!(fold_key(64), K5 as u64);
    }

    /// Every length from the shortest to past two turns of the lanes, at every alignment of
    /// the head, against the cores' table engine.
    #[test]
    fn equals_the_table_engine_at_every_length_and_offset() {
        if !available() {
            eprintln!("skipped: this CPU lacks AVX-512 VPCLMULQDQ");
            return;
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let buf: Vec<u8> = (0..2200)
            .map(|_| {
                s = s
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (s >> 56) as u8
            })
            .collect();
        assert_eq!(checksum(&buf[..MIN_OCTETS - 1]), None);
        for len in MIN_OCTETS..=2100 {
            for off in [0, 1, 7, 15, 33] {
                let d = &buf[off..off + len];
                assert_eq!(
                    checksum(d),
                    Some(TableFcs::checksum(d)),
                    "{len} octets at {off}"
                );
            }
        }
    }
}
