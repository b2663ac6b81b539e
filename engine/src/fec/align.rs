//! A Clause 74 line read offline: its FEC block boundary found first, then every FEC block
//! from the first whole one decoded with lock held (what `check` reads a dump with, as it
//! reads a plain `.bits` dump; an RS-FEC line is decoded from its first marker instead).
//!
//! ```text
//! line bytes --held--> candidate bit p = 0, 1, 2, ...: the n FEC blocks at p, p + 2112, ...
//!                      descrambled (PN-2112), syndrome zero?  --yes--> boundary p mod 2112
//! ```
//!
//! A receiver slips one bit a FEC block, so it needs up to 2111 FEC blocks before it tests
//! the right boundary: a short dump cut at an odd bit never locks. Offline, every candidate is
//! tested on the same bits; the receiver's criterion (`n` FEC blocks in a row with a zero
//! syndrome, [`base_r::FecLockConfig::n`]) is kept, and the FEC blocks before the ones found
//! are decoded (and corrected) too.
//!
//! Spec: IEEE 802.3 §74.7.4.7 (the lock criterion), §74.7.4.4.1 (PN-2112).

use fec_core::base_r;

/// Candidate boundaries tested before the search gives up and the line goes to a receiver as
/// it is (a dump whose first 2^21 bits hold no `n` good FEC blocks in a row: reset fill, or
/// not a Clause 74 line).
pub(super) const SEARCH_BITS: u64 = 1 << 21;

/// The line held while its FEC block boundary is searched for.
#[derive(Debug)]
pub(super) struct FcAlign {
    /// The receiver's settings (lock `n`, and what the decoder is made with once found).
    pub(super) config: base_r::FecRxConfig,
    /// The line bytes received so far.
    pub(super) held: Vec<u8>,
    /// The next candidate boundary (a line bit).
    next: u64,
    /// The syndrome's kernel: the one the receiver decodes with (`fec_kernels`), as every
    /// candidate is a whole syndrome.
    kernel: base_r::ParityKernel,
}

/// What the search says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Search {
    /// More bits are needed.
    Waiting,
    /// A FEC block starts at this bit of the line (below 2112).
    Found(u16),
    /// No boundary in the first [`SEARCH_BITS`].
    GaveUp,
}

impl FcAlign {
    /// A search with nothing received.
    pub(super) fn new(config: base_r::FecRxConfig) -> Self {
        Self {
            config,
            held: Vec::new(),
            next: 0,
            kernel: crate::fec_kernels::parity_kernel(),
        }
    }

    /// Takes line bytes (bit 0 of the first byte first on the line) and searches on.
    pub(super) fn push(&mut self, bytes: &[u8]) -> Search {
        self.held.extend_from_slice(bytes);
        let n = u64::from(self.config.lock.n.max(1));
        let have = self.held.len() as u64 * 8;
        let fec_block = base_r::FEC_BLOCK_BITS as u64;
        while self.next + n * fec_block <= have {
            if self.next >= SEARCH_BITS {
                return Search::GaveUp;
            }
            let p = self.next;
            if (0..n).all(|k| clean_at(self.kernel, &self.held, p + k * fec_block)) {
                return Search::Found((p % fec_block) as u16);
            }
            self.next += 1;
        }
        Search::Waiting
    }
}

/// The FEC block whose first bit is line bit `bit` of `bytes` has a zero syndrome once
/// descrambled.
fn clean_at(kernel: base_r::ParityKernel, bytes: &[u8], bit: u64) -> bool {
    let mut line = [0u64; base_r::FEC_BLOCK_WORDS];
    for (k, w) in line.iter_mut().enumerate() {
        *w = word_at(bytes, bit + 64 * k as u64);
    }
    base_r::apply_pn2112(&mut line);
    kernel.syndrome(&line) == 0
}

/// The 64 line bits from line bit `bit` of `bytes` (bit 0 first; zeros past the end).
fn word_at(bytes: &[u8], bit: u64) -> u64 {
    let first = (bit / 8) as usize;
    let mut window = [0u8; 16];
    for (to, from) in window
        .iter_mut()
        .zip(bytes.get(first..).unwrap_or_default())
    {
        *to = *from;
    }
    (u128::from_le_bytes(window) >> (bit % 8)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bits` line bits of `bytes` from bit `from` (bit 0 first), packed again.
    fn cut(bytes: &[u8], from: u64) -> Vec<u8> {
        let bits = bytes.len() as u64 * 8 - from;
        (0..bits.div_ceil(8))
            .map(|i| {
                (0..8)
                    .filter(|j| i * 8 + j < bits)
                    .map(|j| {
                        let b = from + i * 8 + j;
                        ((bytes[(b / 8) as usize] >> (b % 8)) & 1) << j
                    })
                    .sum()
            })
            .collect()
    }

    #[test]
    fn word_at_reads_any_bit_offset() {
        let bytes: Vec<u8> = (0..20).map(|i| (i * 37 + 5) as u8).collect();
        for bit in [0u64, 1, 7, 8, 13, 64, 90] {
            let c = cut(&bytes, bit);
            let mut eight = [0u8; 8];
            for (t, f) in eight.iter_mut().zip(&c) {
                *t = *f;
            }
            assert_eq!(word_at(&bytes, bit), u64::from_le_bytes(eight), "bit {bit}");
        }
    }

    #[test]
    fn finds_the_boundary_of_a_line_cut_at_any_bit() {
        let blocks: Vec<[pcs_core::Block; 32]> = (0..4u64)
            .map(|i| {
                core::array::from_fn(|k| pcs_core::Block {
                    sync: pcs_core::SyncHeader::DATA,
                    payload: (i * 32 + k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                })
            })
            .collect();
        let line: Vec<u8> = blocks
            .iter()
            .flat_map(|b| base_r::to_octets(&base_r::encode(b)))
            .collect();
        for from in [0u64, 1, 1237, 2111, 2112 + 5] {
            let mut a = FcAlign::new(base_r::FecRxConfig::default());
            let want = ((2112 - from % 2112) % 2112) as u16;
            assert_eq!(
                a.push(&cut(&line, from)),
                Search::Found(want),
                "cut at {from}"
            );
        }
    }
}
