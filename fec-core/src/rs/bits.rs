//! Bit fields in line-ordered word arrays: bit `b` of a stream is bit `b % 64` of word
//! `b / 64`, so bit 0 of word 0 is the first bit on the line (the `.bits` convention read as
//! little-endian 64-bit words). Out-of-range words read as zero and are never written.

/// Mask of the low `n` bits (`n` in `0..=64`).
#[inline]
pub(crate) const fn low_mask(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The 64 bits starting at bit `offset` (bit 0 of the result is bit `offset`).
#[inline]
pub(crate) fn read64(words: &[u64], offset: usize) -> u64 {
    let w = offset / 64;
    let s = (offset % 64) as u32;
    let lo = words.get(w).copied().unwrap_or(0);
    let hi = words.get(w + 1).copied().unwrap_or(0);
    // `(hi << 1) << (63 - s)` is `hi << (64 - s)` and 0 for s == 0, without a branch.
    (lo >> s) | ((hi << 1) << (63 - s))
}

/// The `n` (0..=64) bits starting at bit `offset`.
#[inline]
pub(crate) fn read_bits(words: &[u64], offset: usize, n: u32) -> u64 {
    read64(words, offset) & low_mask(n)
}

/// XORs the low `n` (0..=64) bits of `value` into the stream at bit `offset`. On a zeroed
/// stream this writes them.
#[inline]
pub(crate) fn xor_bits(words: &mut [u64], offset: usize, n: u32, value: u64) {
    let v = value & low_mask(n);
    let w = offset / 64;
    let s = (offset % 64) as u32;
    if let Some(x) = words.get_mut(w) {
        *x ^= v << s;
    }
    let spill = (v >> 1) >> (63 - s);
    if spill != 0 {
        if let Some(x) = words.get_mut(w + 1) {
            *x ^= spill;
        }
    }
}

/// Overwrites the `n` (0..=64) bits at `offset` with the low `n` bits of `value`.
#[inline]
pub(crate) fn write_bits(words: &mut [u64], offset: usize, n: u32, value: u64) {
    let old = read_bits(words, offset, n);
    xor_bits(words, offset, n, old ^ value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn write_then_read_gives_the_value_back(
            words in prop::array::uniform4(any::<u64>()),
            offset in 0usize..192,
            n in 0u32..=64,
            value in any::<u64>(),
        ) {
            let mut w = words;
            write_bits(&mut w, offset, n, value);
            prop_assert_eq!(read_bits(&w, offset, n), value & low_mask(n));
            // Bits outside the field are untouched.
            for b in 0..256 {
                if b < offset || b >= offset + n as usize {
                    prop_assert_eq!(w[b / 64] >> (b % 64) & 1, words[b / 64] >> (b % 64) & 1);
                }
            }
        }
    }
}
