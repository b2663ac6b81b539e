//! The receive FEC: line bits in from any bit offset, FEC block lock, decoding, 32 blocks out
//! per FEC block with what happened to it.
//!
//! ```text
//!  line words/octets --> 2112-bit candidate --descramble, syndrome--> FecBlockLock --slip--+
//!        ^                      |                                                        |
//!        |                      +--(locked: correct)--> 32 blocks + FecRxEvent            |
//!        +--------------------------- next candidate 2112 (+1 on slip) bits later -------+
//! ```
//!
//! [`FecRx`] holds at most one FEC block of bits (a 34-word buffer; no allocation). Feed it
//! words ([`feed`](FecRx::feed), then [`next_fec_block`](FecRx::next_fec_block)) or whole
//! slices ([`push_words`](FecRx::push_words), [`push_bytes`](FecRx::push_bytes)); each tested
//! candidate FEC block yields one [`FecRxBlock`]: its 32 decoded blocks and a [`FecRxEvent`]
//! (bit offset, outcome, syndrome, lock status and change). Every candidate yields its blocks,
//! locked or not; `fec_block_lock` in the event says whether they are worth anything (it is
//! the `block_lock` the PCS receives when the FEC is on). Correction is active only while
//! locked; the counters count only then.
//!
//! Spec: IEEE 802.3 §74.7.4.7, §74.7.4.4.1, §74.7.1, §74.7.4.2.

use pcs_core::Block;
use pcs_core::Progress;

use super::decode::{
    decode_descrambled_into, Correction, DecodeOptions, DecodeOutcome, ErrorIndication,
    ErrorMarking,
};
use super::lock::{FecBlockLock, FecLockAction, FecLockConfig, LockChange};
use super::parity::ParityKernel;
use super::pn2112::{apply_pn2112, PN2112};
use super::status::{CounterRead, FecCounters};
use super::transcode::{BLOCKS_PER_FEC_BLOCK, FEC_BLOCK_BITS, FEC_BLOCK_WORDS};

/// Receiver settings.
///
/// Spec: IEEE 802.3 §74.7.4.7; Clause 45 registers 1.170 to 1.175.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecRxConfig {
    /// FEC block lock `n`, `m` and loss criterion (U).
    pub lock: FecLockConfig,
    /// Error indication toward the PCS (off by default).
    pub error_indication: ErrorIndication,
    /// Which blocks an uncorrectable FEC block marks (U).
    pub error_marking: ErrorMarking,
    /// What reading a counter does (U).
    pub counter_read: CounterRead,
}

/// What happened to one tested candidate FEC block.
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecRxEvent {
    /// Absolute offset of the candidate's first bit in the received stream (bit 0 = the first
    /// bit ever fed).
    pub bit_offset: u64,
    /// What the decoder did (correction only if locked before this block).
    pub outcome: DecodeOutcome,
    /// The syndrome after descrambling (bit `i` the coefficient of `x^i`).
    pub syndrome: u32,
    /// `fec_block_lock` after this block was tested.
    pub fec_block_lock: bool,
    /// Whether this block acquired or lost lock.
    pub lock_change: LockChange,
    /// Whether the receiver slipped one bit after this block.
    pub action: FecLockAction,
}

/// One tested FEC block: its 32 decoded blocks and its event.
///
/// Spec: IEEE 802.3 §74.7.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecRxBlock {
    /// The 32 blocks, in line order.
    pub blocks: [Block; BLOCKS_PER_FEC_BLOCK],
    /// What happened.
    pub event: FecRxEvent,
}

impl FecRxBlock {
    /// A placeholder record (idle blocks, a clean unlocked event at offset 0), to fill output
    /// slices before a call.
    pub const EMPTY: Self = Self {
        blocks: [Block::IDLE; BLOCKS_PER_FEC_BLOCK],
        event: FecRxEvent {
            bit_offset: 0,
            outcome: DecodeOutcome::Clean,
            syndrome: 0,
            fec_block_lock: false,
            lock_change: LockChange::Unchanged,
            action: FecLockAction::Hold,
        },
    };
}

/// Buffer words: one FEC block (33 words) plus up to 63 bits of the next.
const BUF_WORDS: usize = FEC_BLOCK_WORDS + 1;

/// The 2112 bits of a FEC block, as octets.
const FEC_BLOCK_OCTETS: usize = FEC_BLOCK_BITS / 8;

/// The 2112 bits of a FEC block, as a buffer bit count.
const BLOCK_BITS: u32 = FEC_BLOCK_BITS as u32;

/// The receive FEC: FEC block lock in front of the decoder.
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecRx {
    config: FecRxConfig,
    lock: FecBlockLock,
    counters: FecCounters,
    /// Received bits from the current candidate's first bit: bit `j` of word `k` is the
    /// candidate's bit `64k + j`.
    buf: [u64; BUF_WORDS],
    /// Valid bits in `buf`.
    buf_bits: u32,
    /// Bits still to drop from the input (a slip that arrived with no bit buffered).
    skip_bits: u32,
    /// Absolute offset of `buf` bit 0.
    next_bit: u64,
    lock_acquired_at: Option<u64>,
    lock_losses: u64,
    fec_blocks: u64,
    parity: ParityKernel,
}

impl Default for FecRx {
    fn default() -> Self {
        Self::new(FecRxConfig::default())
    }
}

impl FecRx {
    /// A receiver at the first bit to be fed, FEC block lock in `LOCK_INIT`.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn new(config: FecRxConfig) -> Self {
        Self {
            config,
            lock: FecBlockLock::new(config.lock),
            counters: FecCounters::new(config.counter_read),
            buf: [0; BUF_WORDS],
            buf_bits: 0,
            skip_bits: 0,
            next_bit: 0,
            lock_acquired_at: None,
            lock_losses: 0,
            fec_blocks: 0,
            parity: ParityKernel::TABLES,
        }
    }

    /// This receiver computing the syndrome with `kernel` (the tables by default).
    ///
    /// Spec: IEEE 802.3 §74.7.4.4, §74.7.4.7.
    #[must_use]
    pub const fn with_parity_kernel(mut self, kernel: ParityKernel) -> Self {
        self.parity = kernel;
        self
    }

    /// A receiver that knows the first bit fed starts a FEC block: locked there from the start
    /// (an offline decode of a dump cut at a FEC block boundary).
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn new_locked(config: FecRxConfig) -> Self {
        let mut rx = Self::new(config);
        rx.lock = FecBlockLock::locked(config.lock);
        rx.lock_acquired_at = Some(0);
        rx
    }

    /// A receiver that knows a FEC block starts at bit `bit` of what is fed (`bit` below
    /// 2112): the bits before it are dropped, and it is locked there (an offline decode of a
    /// dump whose FEC block boundary was found first). Event offsets count from the first bit
    /// fed.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn new_locked_at(config: FecRxConfig, bit: u16) -> Self {
        let mut rx = Self::new_locked(config);
        rx.skip_bits = bit as u32;
        rx.next_bit = bit as u64;
        rx.lock_acquired_at = Some(bit as u64);
        rx
    }

    /// The settings.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn config(&self) -> &FecRxConfig {
        &self.config
    }

    /// The FEC block lock state machine.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn lock(&self) -> &FecBlockLock {
        &self.lock
    }

    /// `fec_block_lock`.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn fec_block_lock(&self) -> bool {
        self.lock.fec_block_lock()
    }

    /// The corrected / uncorrected counters.
    ///
    /// Spec: IEEE 802.3 Clause 45, registers 1.172 to 1.175.
    #[must_use]
    pub const fn counters(&self) -> &FecCounters {
        &self.counters
    }

    /// The counters, for register reads (which may clear them).
    ///
    /// Spec: IEEE 802.3 Clause 45, registers 1.172 to 1.175.
    pub fn counters_mut(&mut self) -> &mut FecCounters {
        &mut self.counters
    }

    /// Absolute offset of the first bit of the FEC block at which lock was last acquired.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn lock_acquired_at(&self) -> Option<u64> {
        self.lock_acquired_at
    }

    /// How many times lock was lost.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn lock_losses(&self) -> u64 {
        self.lock_losses
    }

    /// Candidate FEC blocks tested so far.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn fec_blocks(&self) -> u64 {
        self.fec_blocks
    }

    /// Absolute offset at which the next candidate FEC block starts.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn next_fec_block_offset(&self) -> u64 {
        self.next_bit
    }

    /// Bits received and not yet part of a tested FEC block.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn buffered_bits(&self) -> u32 {
        self.buf_bits
    }

    /// Appends the low `n` bits (1..=64) of `value` to the buffer, after any pending slip.
    /// The caller makes sure fewer than 2112 bits are buffered.
    #[inline]
    fn put_bits(&mut self, value: u64, n: u32) {
        let drop = self.skip_bits.min(n);
        self.skip_bits -= drop;
        let n = n - drop;
        if n == 0 {
            return;
        }
        let value =
            value.checked_shr(drop).unwrap_or(0) & u64::MAX.checked_shr(64 - n).unwrap_or(0);
        let (q, r) = ((self.buf_bits / 64) as usize, self.buf_bits % 64);
        if let Some(w) = self.buf.get_mut(q) {
            *w = (*w & !(u64::MAX << r)) | value << r;
        }
        if r + n > 64 {
            if let Some(w) = self.buf.get_mut(q + 1) {
                *w = value >> (64 - r);
            }
        }
        self.buf_bits += n;
    }

    /// Feeds one 64-bit word of the received stream (bit 0 first on the line).
    ///
    /// # Errors
    /// `Err(word)` when a whole FEC block is buffered: take it with
    /// [`next_fec_block`](Self::next_fec_block) first.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[inline]
    pub fn feed(&mut self, word: u64) -> Result<(), u64> {
        if self.buf_bits >= BLOCK_BITS {
            return Err(word);
        }
        self.put_bits(word, 64);
        Ok(())
    }

    /// Appends 33 words at once (2112 bits) to a buffer holding less than one word.
    #[inline]
    fn put_fec_block_of_words(&mut self, words: &[u64; FEC_BLOCK_WORDS]) {
        let r = self.buf_bits;
        let kept = self.buf.first().copied().unwrap_or(0) & !(u64::MAX << r);
        if r == 0 {
            if let Some(head) = self.buf.first_chunk_mut::<FEC_BLOCK_WORDS>() {
                *head = *words;
            }
        } else {
            // buf[k] = the top r bits of word k - 1, then the low 64 - r bits of word k.
            let mut prev = kept;
            for (slot, &w) in self.buf.iter_mut().zip(words) {
                *slot = prev | w << r;
                prev = w >> (64 - r);
            }
            if let Some(last) = self.buf.last_mut() {
                *last = prev;
            }
        }
        self.buf_bits += BLOCK_BITS;
    }

    /// Tests and decodes the FEC block at the current boundary once 2112 bits are buffered;
    /// steps FEC block lock, slips if it asks, counts.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7, §74.7.1.
    #[inline]
    pub fn next_fec_block(&mut self) -> Option<FecRxBlock> {
        let mut record = FecRxBlock::EMPTY;
        self.next_fec_block_into(&mut record).then_some(record)
    }

    /// [`next_fec_block`](Self::next_fec_block) writing into `record`; returns whether a FEC
    /// block was tested (`record` is untouched otherwise).
    ///
    /// Spec: IEEE 802.3 §74.7.4.7, §74.7.1.
    #[inline]
    pub fn next_fec_block_into(&mut self, record: &mut FecRxBlock) -> bool {
        self.next_fec_block_to(&mut record.blocks, &mut record.event)
    }

    /// [`FecRx::next_fec_block_into`] writing the blocks and the event apart.
    #[inline]
    fn next_fec_block_to(
        &mut self,
        blocks: &mut [Block; BLOCKS_PER_FEC_BLOCK],
        event: &mut FecRxEvent,
    ) -> bool {
        if self.buf_bits < BLOCK_BITS {
            return false;
        }
        let Some(&line) = self.buf.first_chunk::<FEC_BLOCK_WORDS>() else {
            return false;
        };
        let mut words = line;
        apply_pn2112(&mut words);
        let action = self.test_fec_block(&mut words, blocks, event);
        self.consume(action);
        true
    }

    /// Tests and decodes the FEC block `line` at the current boundary into `record`: steps
    /// FEC block lock and counts; returns the lock's action (the caller drops the FEC block,
    /// and one more bit on a slip).
    #[inline]
    fn test_fec_block(
        &mut self,
        words: &mut [u64; FEC_BLOCK_WORDS],
        blocks: &mut [Block; BLOCKS_PER_FEC_BLOCK],
        event: &mut FecRxEvent,
    ) -> FecLockAction {
        let options = DecodeOptions {
            correction: if self.lock.fec_block_lock() {
                Correction::Active
            } else {
                Correction::Inactive
            },
            error_indication: self.config.error_indication,
            error_marking: self.config.error_marking,
        };
        let (outcome, syndrome) = decode_descrambled_into(words, options, blocks, self.parity);
        let step = self.lock.step(outcome);
        self.counters.count(outcome);
        let bit_offset = self.next_bit;
        match step.change {
            LockChange::Acquired => self.lock_acquired_at = Some(bit_offset),
            LockChange::Lost => self.lock_losses = self.lock_losses.wrapping_add(1),
            LockChange::Unchanged => {}
        }
        self.fec_blocks = self.fec_blocks.wrapping_add(1);
        *event = FecRxEvent {
            bit_offset,
            outcome,
            syndrome,
            fec_block_lock: self.lock.fec_block_lock(),
            lock_change: step.change,
            action: step.action,
        };
        step.action
    }

    /// Drops the tested FEC block (and one more bit on a slip) from the buffer.
    #[inline]
    fn consume(&mut self, action: FecLockAction) {
        // 2112 = 33 words: what follows the block is the low `rest` bits of word 33.
        let rest = self.buf_bits - BLOCK_BITS;
        let tail = self.buf.get(FEC_BLOCK_WORDS).copied().unwrap_or(0);
        let slip = u32::from(action == FecLockAction::SlipOneBit);
        self.next_bit = self.next_bit.wrapping_add(u64::from(BLOCK_BITS + slip));
        if let Some(w) = self.buf.first_mut() {
            *w = tail >> slip;
        }
        if rest >= slip {
            self.buf_bits = rest - slip;
        } else {
            self.buf_bits = 0;
            self.skip_bits += slip;
        }
    }

    /// [`FecRx::consume`] of a FEC block tested where it lay in the input, with nothing
    /// buffered: the bit after it (two on a slip) is the next boundary.
    #[inline]
    fn consume_unbuffered(&mut self, action: FecLockAction) {
        let slip = u32::from(action == FecLockAction::SlipOneBit);
        self.next_bit = self.next_bit.wrapping_add(u64::from(BLOCK_BITS + slip));
        self.skip_bits += slip;
    }

    /// Feeds `words` and writes one record per tested FEC block into `out`, stopping when
    /// `out` is full or the words run out. Returns the words taken and records written; words
    /// not taken are for the next call.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    pub fn push_words(&mut self, words: &[u64], out: &mut [FecRxBlock]) -> Progress {
        let mut progress = Progress::default();
        let mut words = words;
        while let Some(slot) = out.get_mut(progress.produced) {
            if self.next_fec_block_into(slot) {
                progress.produced += 1;
                continue;
            }
            // A whole FEC block of words at once when less than a word is buffered.
            if self.buf_bits < 64 && self.skip_bits == 0 {
                if let Some((block, rest)) = words.split_first_chunk::<FEC_BLOCK_WORDS>() {
                    self.put_fec_block_of_words(block);
                    words = rest;
                    progress.consumed += FEC_BLOCK_WORDS;
                    continue;
                }
            }
            let Some((&word, rest)) = words.split_first() else {
                break;
            };
            self.put_bits(word, 64);
            words = rest;
            progress.consumed += 1;
        }
        progress
    }

    /// Feeds `octets` (bit 0 of octet 0 first on the line: the `.bits` layout) and writes one
    /// record per tested FEC block into `out`, as [`push_words`](Self::push_words). Returns the
    /// octets taken and records written.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    pub fn push_bytes(&mut self, octets: &[u8], out: &mut [FecRxBlock]) -> Progress {
        self.push_bytes_to(octets, out)
    }

    /// [`FecRx::push_bytes`] writing each tested FEC block's event to `events` and its 32
    /// blocks to `blocks` (the `i`-th's from block `32 i`: the blocks of FEC blocks in a row
    /// lie in a row), stopping when either has no room for one more.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    pub fn push_bytes_apart(
        &mut self,
        octets: &[u8],
        events: &mut [FecRxEvent],
        blocks: &mut [Block],
    ) -> Progress {
        self.push_bytes_to(octets, &mut Apart { events, blocks })
    }

    /// [`FecRx::push_bytes`] into any [`Records`].
    fn push_bytes_to(&mut self, octets: &[u8], out: &mut (impl Records + ?Sized)) -> Progress {
        let mut progress = Progress::default();
        let mut octets = octets;
        while let Some((blocks, event)) = out.slot(progress.produced) {
            if self.next_fec_block_to(blocks, event) {
                progress.produced += 1;
                continue;
            }
            // A whole FEC block of octets at once when less than a word is buffered; tested
            // where it lies (not through the buffer) when none is.
            if self.buf_bits < 64 && self.skip_bits == 0 {
                if let Some((block, rest)) = octets.split_first_chunk::<FEC_BLOCK_OCTETS>() {
                    octets = rest;
                    progress.consumed += FEC_BLOCK_OCTETS;
                    if self.buf_bits == 0 {
                        let mut words = descrambled_octets(block);
                        let action = self.test_fec_block(&mut words, blocks, event);
                        self.consume_unbuffered(action);
                        progress.produced += 1;
                    } else {
                        self.put_fec_block_of_words(&super::from_octets(block));
                    }
                    continue;
                }
            }
            if let Some((eight, rest)) = octets.split_first_chunk::<8>() {
                self.put_bits(u64::from_le_bytes(*eight), 64);
                octets = rest;
                progress.consumed += 8;
            } else if let Some((&one, rest)) = octets.split_first() {
                self.put_bits(u64::from(one), 8);
                octets = rest;
                progress.consumed += 1;
            } else {
                break;
            }
        }
        progress
    }
}

/// A FEC block's octets as words with PN-2112 removed, in one pass.
#[inline]
fn descrambled_octets(octets: &[u8; FEC_BLOCK_OCTETS]) -> [u64; FEC_BLOCK_WORDS] {
    let mut words = PN2112;
    for (w, chunk) in words.iter_mut().zip(octets.chunks_exact(8)) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(chunk);
        *w ^= u64::from_le_bytes(eight);
    }
    words
}

/// Where a receiver writes the FEC blocks it tests: slot `i`'s 32 blocks and event.
trait Records {
    fn slot(&mut self, i: usize) -> Option<(&mut [Block; BLOCKS_PER_FEC_BLOCK], &mut FecRxEvent)>;
}

impl Records for [FecRxBlock] {
    fn slot(&mut self, i: usize) -> Option<(&mut [Block; BLOCKS_PER_FEC_BLOCK], &mut FecRxEvent)> {
        self.get_mut(i).map(|r| (&mut r.blocks, &mut r.event))
    }
}

/// Events and blocks apart: event `i`, blocks `32 i .. 32 i + 32`.
struct Apart<'a> {
    events: &'a mut [FecRxEvent],
    blocks: &'a mut [Block],
}

impl Records for Apart<'_> {
    fn slot(&mut self, i: usize) -> Option<(&mut [Block; BLOCKS_PER_FEC_BLOCK], &mut FecRxEvent)> {
        let blocks = self
            .blocks
            .get_mut(BLOCKS_PER_FEC_BLOCK * i..)
            .and_then(|b| b.first_chunk_mut())?;
        Some((blocks, self.events.get_mut(i)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base_r::encode::encode;
    use crate::base_r::lock::FEC_LOCK_N;
    use crate::base_r::tests_support::{blocks_from, BitStream};
    use crate::vectors::cl74_vip;
    use proptest::prelude::*;

    /// `prefix` random bits, then `count` encoded FEC blocks; returns the stream and the blocks.
    fn stream(prefix: usize, count: usize, seed: u64) -> (BitStream, Vec<[Block; 32]>) {
        let mut s = BitStream::default();
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        for _ in 0..prefix {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push_bits(x >> 33 & 1, 1);
        }
        let groups: Vec<[Block; 32]> = (0..count)
            .map(|i| blocks_from(seed ^ (i as u64 + 1) << 20))
            .collect();
        for g in &groups {
            for w in encode(g) {
                s.push_bits(w, 64);
            }
        }
        (s, groups)
    }

    /// Runs a receiver over all of `words`; returns every record.
    fn run(rx: &mut FecRx, words: &[u64]) -> Vec<FecRxBlock> {
        let mut all = Vec::new();
        let mut out = vec![FecRxBlock::EMPTY; 5];
        let mut rest = words;
        loop {
            let p = rx.push_words(rest, &mut out);
            all.extend_from_slice(&out[..p.produced]);
            rest = &rest[p.consumed..];
            if p.consumed == 0 && p.produced == 0 {
                return all;
            }
        }
    }

    /// Where a receiver starting at bit 0 acquires lock on a stream whose FEC blocks start at
    /// `offset`: candidates start at 2113 j until one is aligned, then n good blocks.
    fn expected_lock_bit(offset: u64) -> u64 {
        let j = (0..)
            .find(|&j: &u64| 2113 * j >= offset && (2113 * j - offset) % 2112 == 0)
            .unwrap();
        2113 * j + 2112 * (u64::from(FEC_LOCK_N) - 1)
    }

    fn check_lock_from(offset: usize) {
        let j = expected_lock_bit(offset as u64) / 2112 + 4;
        let (s, groups) = stream(offset, j as usize, offset as u64 + 11);
        let mut rx = FecRx::default();
        let recs = run(&mut rx, &s.words());
        let want = expected_lock_bit(offset as u64);
        assert_eq!(rx.lock_acquired_at(), Some(want), "offset {offset}");
        let acquired: Vec<&FecRxBlock> = recs
            .iter()
            .filter(|r| r.event.lock_change == LockChange::Acquired)
            .collect();
        assert_eq!(acquired.len(), 1);
        assert_eq!(acquired[0].event.bit_offset, want);
        // Before: every candidate slipped or was one of the n good ones; after: clean blocks
        // equal to what was sent.
        let k = ((want - offset as u64) / 2112) as usize;
        assert_eq!(acquired[0].blocks, groups[k]);
        let after: Vec<&FecRxBlock> = recs
            .iter()
            .skip_while(|r| r.event.bit_offset <= want)
            .collect();
        assert!(!after.is_empty());
        for (i, r) in after.iter().enumerate() {
            assert!(r.event.fec_block_lock);
            assert_eq!(r.event.outcome, DecodeOutcome::Clean);
            assert_eq!(r.blocks, groups[k + 1 + i]);
        }
        assert_eq!(rx.lock_losses(), 0);
    }

    #[test]
    fn lock_acquires_from_offsets_0_1_33_2111_and_reports_the_bit() {
        for offset in [0, 1, 33, 64, 2111] {
            check_lock_from(offset);
        }
    }

    #[test]
    fn lock_acquires_from_an_offset_past_one_fec_block() {
        check_lock_from(2112 + 500);
    }

    #[test]
    fn captured_vip_vector_decodes_to_its_blocks() {
        let (blocks, codeword) = cl74_vip();
        let mut rx = FecRx::new_locked(FecRxConfig::default());
        let recs = run(&mut rx, &codeword);
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].blocks, blocks);
        assert_eq!(recs[0].event.outcome, DecodeOutcome::Clean);
        assert_eq!(recs[0].event.syndrome, 0);
    }

    #[test]
    fn locked_at_a_known_offset_decodes_every_fec_block_from_there() {
        for offset in [0usize, 1, 7, 1237, 2111] {
            let (s, groups) = stream(offset, 3, offset as u64 + 5);
            let mut rx = FecRx::new_locked_at(FecRxConfig::default(), offset as u16);
            let recs = run(&mut rx, &s.words());
            assert_eq!(recs.len(), 3, "offset {offset}");
            for (i, r) in recs.iter().enumerate() {
                assert_eq!(r.event.bit_offset, (offset + 2112 * i) as u64);
                assert!(r.event.fec_block_lock);
                assert_eq!(r.event.outcome, DecodeOutcome::Clean);
                assert_eq!(r.blocks, groups[i]);
            }
            assert_eq!(rx.lock_acquired_at(), Some(offset as u64));
        }
    }

    /// Gives FEC blocks `fec_blocks` of a stream that starts at a FEC block two far-apart
    /// 13-bit bursts each: uncorrectable.
    fn spoil(words: &mut [u64], fec_blocks: core::ops::Range<usize>) {
        for fb in fec_blocks {
            for n in [fb * 2112 + 100, fb * 2112 + 1500] {
                words[n / 64] ^= 0b1_0000_0000_0001 << (n % 64) as u64;
            }
        }
    }

    #[test]
    fn lock_drops_after_m_uncorrectable_blocks_and_relocks() {
        let (s, groups) = stream(0, 2130, 5);
        let mut words = s.words();
        // FEC blocks 4..12 (8 of them) get two far-apart 13-bit bursts: uncorrectable.
        spoil(&mut words, 4..12);
        let mut rx = FecRx::new(FecRxConfig {
            error_indication: ErrorIndication::Enabled,
            ..FecRxConfig::default()
        });
        let recs = run(&mut rx, &words);
        let changes: Vec<(u64, LockChange)> = recs
            .iter()
            .filter(|r| r.event.lock_change != LockChange::Unchanged)
            .map(|r| (r.event.bit_offset, r.event.lock_change))
            .collect();
        // Locked at block 1 (n = 2); lost at block 11, the 8th uncorrectable one; after the
        // slip the candidates start at 12 * 2112 + 1 + 2113 j, aligned again for j = 2111 (at
        // 2124 * 2112), locked one block later.
        assert_eq!(
            changes,
            vec![
                (2112, LockChange::Acquired),
                (11 * 2112, LockChange::Lost),
                (2125 * 2112, LockChange::Acquired),
            ]
        );
        assert_eq!(recs[11].event.action, FecLockAction::SlipOneBit);
        for r in &recs[4..12] {
            assert_eq!(r.event.outcome, DecodeOutcome::Uncorrectable);
            assert_eq!(r.blocks[0].sync, crate::base_r::decode::ERROR_SYNC_HEADER);
            assert!(
                r.blocks[1].sync.is_valid(),
                "only blocks 0, 8, 16, 24 marked"
            );
        }
        assert_eq!(rx.counters().uncorrected_blocks(), 8);
        assert_eq!(
            (rx.lock_losses(), rx.lock_acquired_at()),
            (1, Some(2125 * 2112))
        );
        let last = recs.last().unwrap();
        assert!(last.event.fec_block_lock);
        assert_eq!(last.blocks, groups[2129]);
    }

    #[test]
    fn seven_uncorrectable_blocks_keep_lock() {
        let (s, _) = stream(0, 20, 6);
        let mut words = s.words();
        spoil(&mut words, 4..11);
        let mut rx = FecRx::default();
        let recs = run(&mut rx, &words);
        assert!(recs[2..].iter().all(|r| r.event.fec_block_lock));
        assert_eq!(rx.lock_losses(), 0);
        assert_eq!(rx.counters().uncorrected_blocks(), 7);
    }

    #[test]
    fn correction_only_after_lock() {
        let (s, groups) = stream(0, 6, 9);
        // A single-bit error in FEC block 0 (tested unlocked) and in block 3 (locked).
        let mut words = s.words();
        words[10] ^= 1 << 5;
        let mut rx = FecRx::default();
        let recs = run(&mut rx, &words);
        assert_eq!(recs[0].event.outcome, DecodeOutcome::BadParity);
        assert_eq!(recs[0].event.action, FecLockAction::SlipOneBit);
        // Line bit 645 is payload bit 59 of block 9 (row 9 starts at 585): passed as received.
        assert_eq!(recs[0].blocks[9].payload, groups[0][9].payload ^ 1 << 59);
        assert!(
            recs.iter().all(|r| !r.event.fec_block_lock),
            "never locked: every candidate after is misaligned"
        );
        assert_eq!(rx.counters().corrected_blocks(), 0);

        let mut words = s.words();
        let n = 3 * 2112 + 777;
        words[n / 64] ^= 1 << (n % 64);
        let mut rx = FecRx::default();
        let recs = run(&mut rx, &words);
        let want = crate::base_r::decode::Burst::try_new(777, 1).unwrap();
        assert_eq!(recs[3].event.outcome, DecodeOutcome::Corrected(want));
        assert_eq!(recs[3].blocks, groups[3]);
        assert_eq!(rx.counters().corrected_blocks(), 1);
    }

    #[test]
    fn feed_refuses_a_word_while_a_fec_block_waits() {
        let (_, codeword) = cl74_vip();
        let mut rx = FecRx::new_locked(FecRxConfig::default());
        for &w in &codeword {
            assert_eq!(rx.feed(w), Ok(()));
        }
        assert_eq!(rx.feed(7), Err(7));
        assert!(rx.next_fec_block().is_some());
        assert_eq!(rx.feed(7), Ok(()));
        assert_eq!(rx.next_fec_block(), None);
    }

    #[test]
    fn slip_with_an_empty_buffer_drops_the_next_bit() {
        // An unlocked receiver fed exactly 2112 bits of garbage slips with nothing buffered.
        let mut rx = FecRx::default();
        for _ in 0..33 {
            rx.feed(0x5555_0000_ffff_1234).unwrap();
        }
        let r = rx.next_fec_block().unwrap();
        assert_eq!(r.event.action, FecLockAction::SlipOneBit);
        assert_eq!(rx.next_fec_block_offset(), 2113);
        rx.feed(0b10).unwrap();
        assert_eq!(rx.buffered_bits(), 63);
    }

    /// Events and blocks written apart give the records `push_bytes` gives, and it stops
    /// when either has no room for one more FEC block.
    #[test]
    fn push_bytes_apart_gives_the_records_of_push_bytes() {
        let (s, _) = stream(5, 7, 3);
        let octets: Vec<u8> = s.words().iter().flat_map(|w| w.to_le_bytes()).collect();
        let want = {
            let mut rx = FecRx::default();
            let mut out = vec![FecRxBlock::EMPTY; 20];
            let p = rx.push_bytes(&octets, &mut out);
            out.truncate(p.produced);
            out
        };
        for (events, blocks) in [(20, 20 * 32), (3, 20 * 32), (20, 2 * 32 + 31)] {
            let mut rx = FecRx::default();
            let mut got = Vec::new();
            let mut ev = vec![FecRxBlock::EMPTY.event; events];
            let mut bl = vec![Block::IDLE; blocks];
            let mut rest = &octets[..];
            loop {
                let p = rx.push_bytes_apart(rest, &mut ev, &mut bl);
                for (i, e) in ev[..p.produced].iter().enumerate() {
                    let b: [Block; 32] = bl[32 * i..32 * i + 32].try_into().unwrap();
                    got.push(FecRxBlock {
                        blocks: b,
                        event: *e,
                    });
                }
                assert!(p.produced <= events.min(blocks / 32));
                rest = &rest[p.consumed..];
                if p.consumed == 0 && p.produced == 0 {
                    break;
                }
            }
            assert_eq!(got, want, "{events} events, {blocks} blocks");
        }
    }

    /// FEC blocks tested where they lie in the octets (the buffer empty at a boundary: a
    /// stream whose FEC blocks start on an octet, also after slips) give the records of the
    /// words fed through the buffer.
    #[test]
    fn fec_blocks_tested_in_place_give_the_records_of_the_buffered_path() {
        for offset in [0, 1, 8, 64, 2112, 2120, 4232] {
            let (s, _) = stream(offset, 6, offset as u64);
            let words = s.words();
            let want = run(&mut FecRx::default(), &words);
            let octets: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            for piece in [264, 265, 1000, octets.len()] {
                let mut rx = FecRx::default();
                let mut got = Vec::new();
                let mut out = vec![FecRxBlock::EMPTY; 3];
                for p in octets.chunks(piece) {
                    let mut rest = p;
                    loop {
                        let n = rx.push_bytes(rest, &mut out);
                        got.extend_from_slice(&out[..n.produced]);
                        rest = &rest[n.consumed..];
                        if n.produced < out.len() && rest.is_empty() {
                            break;
                        }
                    }
                }
                assert_eq!(got, want, "offset {offset}, pieces of {piece}");
            }
        }
    }

    proptest! {
        #[test]
        fn bytes_and_words_in_any_pieces_give_the_same_records(
            offset in 0usize..300,
            cuts in prop::collection::vec(1usize..400, 1..6),
            seed in any::<u64>(),
        ) {
            // Starting at the boundary the receiver locks at once; the prefix exercises slips.
            let (s, _) = stream(offset, 4, seed);
            let words = s.words();
            let mut whole = FecRx::default();
            let want = run(&mut whole, &words);
            let octets: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut rx = FecRx::default();
            let mut got = Vec::new();
            let mut out = vec![FecRxBlock::EMPTY; 2];
            let mut rest = &octets[..];
            for &c in cuts.iter().cycle() {
                let p = rx.push_bytes(&rest[..c.min(rest.len())], &mut out);
                got.extend_from_slice(&out[..p.produced]);
                rest = &rest[p.consumed..];
                if rest.is_empty() && p.produced == 0 { break; }
            }
            prop_assert_eq!(got, want);
        }

        #[test]
        fn encode_then_receive_gives_the_blocks_back(seed in any::<u64>(), count in 1usize..6) {
            let (s, groups) = stream(0, count, seed);
            let mut rx = FecRx::default();
            let recs = run(&mut rx, &s.words());
            prop_assert_eq!(recs.len(), count);
            for (r, g) in recs.iter().zip(&groups) {
                prop_assert_eq!(r.event.outcome, DecodeOutcome::Clean);
                prop_assert_eq!(&r.blocks, g);
            }
        }
    }

    proptest! {
        // Each case runs up to 2111 slips through about 2113 FEC blocks.
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn lock_acquires_from_a_random_offset(offset in 0usize..2112) {
            check_lock_from(offset);
        }
    }
}
