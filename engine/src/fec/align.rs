//! A FEC line read offline: its boundary found first, then every FEC block or codeword from
//! the first whole one decoded with lock held (what `check` reads a dump with, as it reads a
//! plain `.bits` dump).
//!
//! ```text
//! Clause 74: line bytes --held--> candidate bit p = 0, 1, 2, ...: the n FEC blocks at p,
//!            p + 2112, ... descrambled (PN-2112), syndrome zero?  --yes--> boundary p mod 2112
//! RS-FEC:    line bytes --held--> candidate bit p: the codewords at p and p + 5280 nonzero
//!            with a zero remainder?  --yes--> boundary p mod 5280; or a receiver's marker
//!            search on the same bits finds a marker at bit b --> boundary b mod 5280
//!            --> RsOffline: every codeword from there decoded, a marker codeword told by
//!            its marker
//! ```
//!
//! A receiver slips one bit a FEC block, so it needs up to 2111 FEC blocks before it tests
//! the right boundary: a short dump cut at an odd bit never locks. Offline, every candidate is
//! tested on the same bits; the receiver's criterion (`n` FEC blocks in a row with a zero
//! syndrome, [`base_r::FecLockConfig::n`]) is kept, and the FEC blocks before the ones found
//! are decoded (and corrected) too.
//!
//! An RS-FEC receiver locks on the codeword marker, one every `marker_period_codewords`
//! (1024) codewords: a dump cut after a marker would be decoded from the next one only.
//! Offline, two clean codewords in a row (RS(528,514): a random place passes with
//! probability 2^-280; an all-zero place, the reset fill of many benches, does not count) or
//! a marker, whichever comes first, give the boundary, and every codeword from the first
//! whole one is decoded; a codeword is a marker codeword when it carries the marker, as the
//! receiver's search tells one (the AM bits as they came, or after the RS decoder corrected
//! the codeword).
//!
//! Spec: IEEE 802.3 §74.7.4.7 (the lock criterion), §74.7.4.4.1 (PN-2112), §108.5.3 (the
//! RS-FEC receive function; its lock on the marker is a U reading: `rs::RsFecConfig`).

use fec_core::{base_r, rs};
use pcs_core::Block;

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
    /// A FEC block or codeword starts at this bit of the line (below its length).
    Found(u16),
    /// No boundary in the first [`SEARCH_BITS`] (an RS-FEC line: and no marker).
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

/// An RS-FEC line held while its codeword boundary is searched for.
#[derive(Debug)]
pub(super) struct RsAlign {
    /// The line bytes received so far.
    pub(super) held: Vec<u8>,
    /// The next candidate boundary (a line bit).
    next: u64,
    /// The remainder's kernel: the one the receiver decodes with (`fec_kernels`).
    kernel: rs::RemainderKernel,
    /// A receiver's marker search on the same bytes (a line whose codewords all carry errors
    /// is found by its marker); if the search gives up, it goes on as the line's receiver.
    pub(super) hunt: Box<rs::Receiver>,
}

impl RsAlign {
    /// A search with nothing received.
    ///
    /// # Errors
    /// A setting the receiver refuses.
    pub(super) fn new(config: &rs::RsFecConfig) -> Result<Self, rs::ConfigError> {
        let kernel = crate::fec_kernels::remainder_kernel();
        Ok(Self {
            held: Vec::new(),
            next: 0,
            kernel,
            hunt: Box::new(rs::Receiver::new(config)?.with_remainder_kernel(kernel)),
        })
    }

    /// Takes line bytes (bit 0 of the first byte first on the line) and searches on.
    pub(super) fn push(&mut self, bytes: &[u8]) -> Search {
        self.held.extend_from_slice(bytes);
        let cw = rs::CODEWORD_BITS as u64;
        let mut marker = None;
        self.hunt.push_bytes(bytes, |ev| {
            if let rs::RxEvent::MarkerFound { bit } = ev {
                marker.get_or_insert(bit);
            }
        });
        let have = self.held.len() as u64 * 8;
        while self.next + 2 * cw <= have && marker.is_none_or(|m| self.next < m) {
            if self.next >= SEARCH_BITS {
                break;
            }
            let p = self.next;
            if codeword_clean_at(self.kernel, &self.held, p)
                && codeword_clean_at(self.kernel, &self.held, p + cw)
            {
                return Search::Found((p % cw) as u16);
            }
            self.next += 1;
        }
        match marker {
            Some(m) => Search::Found((m % cw) as u16),
            None if self.next >= SEARCH_BITS => Search::GaveUp,
            None => Search::Waiting,
        }
    }
}

/// The 83 words of the codeword whose first bit is line bit `bit` of `bytes` (the bits past
/// its 5280 zero).
fn codeword_words(bytes: &[u8], bit: u64) -> [u64; rs::CODEWORD_WORDS] {
    let mut words = [0u64; rs::CODEWORD_WORDS];
    for (k, w) in words.iter_mut().enumerate() {
        *w = word_at(bytes, bit + 64 * k as u64);
    }
    let tail = rs::CODEWORD_BITS % 64;
    if let (Some(last), true) = (words.last_mut(), tail != 0) {
        *last &= (1u64 << tail) - 1;
    }
    words
}

/// The codeword whose first bit is line bit `bit` of `bytes` is not all zero and its
/// remainder is zero.
fn codeword_clean_at(kernel: rs::RemainderKernel, bytes: &[u8], bit: u64) -> bool {
    let words = codeword_words(bytes, bit);
    if words.iter().all(|&w| w == 0) {
        return false;
    }
    rs::remainder_with(&rs::Codeword::from_words(words), kernel) == [0; rs::PARITY]
}

/// The descrambler history before the codeword at line bit `first` of `line`: the last
/// transcoded block of the codeword before it (the 257 bits before its 140 parity bits,
/// uncorrected) untranscoded, whose last block's payload is always whole (a first control
/// block in its last place takes its history from the data block before it). `None` when the
/// line does not reach that far back. The receiver learns the same from the codeword before
/// its marker; this makes the first block right when it is a first control block, whose
/// type's high nibble is rebuilt from the history.
fn history_before(line: &[u8], first: u64) -> Option<u64> {
    let parity = rs::PARITY_BITS as u64;
    let at = first.checked_sub(parity + rs::TRANSCODED_BITS as u64)?;
    let mut words = [0u64; 5];
    for (k, w) in words.iter_mut().enumerate() {
        *w = word_at(line, at + 64 * k as u64);
    }
    words[4] &= 1;
    let mut u = rs::Untranscoder::new(pcs_core::SCRAMBLER_DEFAULT_STATE);
    let mut out = [Block::IDLE; rs::BLOCKS_PER_TRANSCODED];
    let _ = u.untranscode(&rs::Transcoded257::from_words(words), &mut out);
    Some(u.state())
}

/// An RS-FEC line read offline from its first whole codeword with lock held: every codeword
/// decoded, each a marker codeword when it carries the marker.
#[derive(Debug)]
pub(super) struct RsOffline {
    decoder: rs::CodewordDecoder,
    /// Line bytes not yet decoded; its first byte is line bit `base`.
    held: Vec<u8>,
    base: u64,
    /// The next codeword's first line bit.
    next: u64,
    /// Codewords since the last marker codeword (the period's index, as the receiver's).
    index: u32,
    period: u32,
    max_mismatch: u32,
    started: bool,
    blocks: [Block; rs::BLOCKS_PER_CODEWORD],
}

/// Bytes [`RsOffline`] drops at a time from the front of what it holds.
const DROP_OCTETS: usize = 1 << 16;

impl RsOffline {
    /// The decoder of `config` from the codeword at line bit `first` of `line` (the bytes
    /// before it teach the descrambler history, see [`history_before`]).
    ///
    /// # Errors
    /// A setting the decoder refuses.
    pub(super) fn new(
        config: &rs::RsFecConfig,
        first: u64,
        line: &[u8],
    ) -> Result<Self, rs::ConfigError> {
        let config = rs::RsFecConfig {
            initial_descrambler_state: history_before(line, first)
                .unwrap_or(config.initial_descrambler_state),
            ..*config
        };
        Ok(Self {
            decoder: rs::CodewordDecoder::new(&config)?
                .with_remainder_kernel(crate::fec_kernels::remainder_kernel()),
            held: Vec::new(),
            base: 0,
            next: first,
            index: 0,
            period: config.marker_period_codewords.max(1),
            max_mismatch: u32::from(config.marker_mismatch_bits_max),
            started: false,
            blocks: [Block::IDLE; rs::BLOCKS_PER_CODEWORD],
        })
    }

    /// The codeword carries the marker: its AM bits as they came, or after the RS decoder
    /// corrected it (as the receiver's search tells one, `rs::SEARCH_MISMATCH_BITS`).
    fn carries_marker(&self, words: &[u64; rs::CODEWORD_WORDS]) -> bool {
        let m = rs::marker_mismatch_bits(words, 0);
        if m <= self.max_mismatch {
            return true;
        }
        if m > rs::SEARCH_MISMATCH_BITS {
            return false;
        }
        let mut cw = rs::Codeword::from_words(*words);
        matches!(
            rs::decode(&mut cw, rs::CorrectionMode::Correct),
            rs::DecodeOutcome::Clean | rs::DecodeOutcome::Corrected(_)
        ) && rs::marker_mismatch_bits(cw.words(), 0) <= self.max_mismatch
    }

    /// Takes line bytes and decodes every whole codeword: a `LockAcquired` at the first, then
    /// a `Codeword` event each, as the receiver's.
    pub(super) fn push(&mut self, bytes: &[u8], mut on_event: impl FnMut(rs::RxEvent<'_>)) {
        if !self.started {
            self.started = true;
            on_event(rs::RxEvent::LockAcquired { bit: self.next });
        }
        self.held.extend_from_slice(bytes);
        let cw = rs::CODEWORD_BITS as u64;
        while self.next + cw <= self.base + self.held.len() as u64 * 8 {
            let words = codeword_words(&self.held, self.next - self.base);
            let is_marker = self.carries_marker(&words);
            if is_marker {
                self.index = 0;
            }
            let mismatch = is_marker.then(|| rs::marker_mismatch_bits(&words, 0));
            let mut codeword = rs::Codeword::from_words(words);
            let report = self
                .decoder
                .decode(&mut codeword, is_marker, &mut self.blocks);
            on_event(rs::RxEvent::Codeword {
                bit: self.next,
                index_in_period: self.index,
                marker_mismatch_bits: mismatch,
                report,
                blocks: self.blocks.get(..report.blocks()).unwrap_or_default(),
            });
            self.next += cw;
            self.index = (self.index + 1) % self.period;
        }
        let done = ((self.next - self.base) / 8) as usize;
        if done >= DROP_OCTETS {
            self.held.drain(..done);
            self.base += done as u64 * 8;
        }
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
/// `bytes` from line bit `from` on, packed again (bit 0 first): a dump cut at any bit (the
/// tests of this file and of `fec.rs`).
pub(super) fn cut(bytes: &[u8], from: u64) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
