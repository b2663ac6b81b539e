//! Block lock in front of a receive gearbox: the composition of two stages, [`RxGearbox`]
//! (bits to 66-bit blocks at the current alignment) and [`BlockLock`] (the lock state
//! diagram). Push the received bytes or serdes words (starting at any bit), and it yields
//! every block with its absolute bit offset and the lock status, slipping as asked.
//!
//! ```text
//!  serdes words --> RxGearbox --66-bit block--> BlockLock --block_lock, slip--+
//!                      ^                                                      |
//!                      +---------------------- slip one bit ------------------+
//! ```
//!
//! The cross-stage fast path lives here too: [`BlockAligner::push_words_locked`] cuts blocks
//! with the gearbox's word path while lock holds and counts their valid headers in runs; the
//! stages' own files hold only their diagrams and each stage's own shortcuts.
//!
//! Spec: IEEE 802.3 §49.2.9, Fig. 49-14.

use crate::block::Block;
use crate::gearbox::{Progress, RxGearbox, SerdesWord};
use crate::lock::{BlockLock, LockAction};

/// A received block with what block lock made of its header.
///
/// Spec: IEEE 802.3 §49.2.9.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AlignedBlock {
    /// The 66 bits at the alignment in force when the block was cut.
    pub block: Block,
    /// Absolute offset of the block's first bit in the received stream.
    pub bit_offset: u64,
    /// `block_lock` after this block's header was tested (true from the 64th valid header on).
    pub block_lock: bool,
    /// Whether this header made the aligner slip (the next block starts one bit later).
    pub action: LockAction,
}

/// How many blocks of `blocks`, at most `limit`, have valid headers before the first
/// invalid one. Whole chunks of 16 are tested without branches.
#[inline]
fn valid_run(blocks: &[Block], limit: usize) -> usize {
    let blocks = blocks.get(..limit).unwrap_or(blocks);
    let mut run = 0;
    for chunk in blocks.chunks(16) {
        if chunk.iter().fold(true, |all, b| all & b.sync.is_valid()) {
            run += chunk.len();
        } else {
            return run + chunk.iter().take_while(|b| b.sync.is_valid()).count();
        }
    }
    run
}

/// What [`BlockAligner::push_words_locked`] did.
///
/// Spec: IEEE 802.3 §49.2.9.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LockedRun {
    /// Words taken.
    pub consumed: usize,
    /// Blocks written.
    pub produced: usize,
    /// The last block written lost block lock (`block_lock` false after its header).
    pub lost_lock: bool,
}

/// Block lock in front of a receive gearbox: words of a received stream in (starting at any
/// bit), blocks out with their lock status, slipping whenever block lock asks.
///
/// Spec: IEEE 802.3 §49.2.9, Fig. 49-14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BlockAligner<W> {
    gearbox: RxGearbox<W>,
    lock: BlockLock,
    slips: u64,
}

impl<W: SerdesWord> Default for BlockAligner<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: SerdesWord> BlockAligner<W> {
    /// An aligner at the first bit to be fed, block lock in `LOCK_INIT`.
    ///
    /// Spec: IEEE 802.3 §49.2.9.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            gearbox: RxGearbox::new(),
            lock: BlockLock::new(),
            slips: 0,
        }
    }

    /// An aligner whose first block starts `bit_offset` bits into the stream, already locked
    /// there ([`BlockLock::locked`]): the offline view of a dump whose boundary is known.
    ///
    /// Spec: IEEE 802.3 §49.2.9.
    #[must_use]
    pub fn locked_at(bit_offset: u32) -> Self {
        let mut gearbox = RxGearbox::new();
        gearbox.slip_bits(bit_offset);
        Self {
            gearbox,
            lock: BlockLock::locked(),
            slips: 0,
        }
    }

    /// The block lock state machine.
    ///
    /// Spec: IEEE 802.3 §49.2.9.
    #[must_use]
    pub const fn lock(&self) -> &BlockLock {
        &self.lock
    }

    /// Slips made so far.
    ///
    /// Spec: IEEE 802.3 §49.2.9.
    #[must_use]
    pub const fn slips(&self) -> u64 {
        self.slips
    }

    /// Absolute offset at which the next block will start.
    ///
    /// Spec: IEEE 802.3 §49.2.9.
    #[must_use]
    pub const fn next_block_offset(&self) -> u64 {
        self.gearbox.next_block_offset()
    }

    /// Feeds one word of the received stream.
    ///
    /// # Errors
    /// `Err(word)` when the gearbox is full: take blocks first.
    ///
    /// Spec: IEEE 802.3 §49.2.9.
    pub fn feed(&mut self, word: W) -> Result<(), W> {
        self.gearbox.feed(word)
    }

    /// Cuts the next block, tests its header, and slips if block lock asks.
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-14.
    #[inline(always)]
    pub fn next_block(&mut self) -> Option<AlignedBlock> {
        let rx = self.gearbox.next_block()?;
        let action = self.lock.step(rx.block.sync);
        if action == LockAction::SlipOneBit {
            self.gearbox.slip();
            self.slips = self.slips.wrapping_add(1);
        }
        Some(AlignedBlock {
            block: rx.block,
            bit_offset: rx.bit_offset,
            block_lock: self.lock.block_lock(),
            action,
        })
    }

    /// Feeds `words` and writes the blocks into `out`, stopping when `out` is full. Returns the
    /// words taken and blocks written; words not taken are for the next call.
    ///
    /// Spec: IEEE 802.3 §49.2.9.
    pub fn push_words(&mut self, words: &[W], out: &mut [AlignedBlock]) -> Progress {
        let mut progress = Progress::default();
        let mut words = words.iter();
        loop {
            let Some(slot) = out.get_mut(progress.produced) else {
                return progress;
            };
            if let Some(block) = self.next_block() {
                *slot = block;
                progress.produced += 1;
                continue;
            }
            let Some(&word) = words.next() else {
                return progress;
            };
            if self.feed(word).is_err() {
                return progress;
            }
            progress.consumed += 1;
        }
    }

    /// The fast path of a locked receiver: cuts blocks from `words` into `out` while block
    /// lock holds, testing every header with the lock state diagram as
    /// [`push_words`](Self::push_words) does, without the per-block [`AlignedBlock`] record.
    /// Every block written had `block_lock` true and made no slip, except the last one when
    /// [`LockedRun::lost_lock`] is set: its header lost lock (and the slip is made). Stops at
    /// the end of `words` or `out`; does nothing unless locked.
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-14.
    pub fn push_words_locked(&mut self, words: &[W], out: &mut [Block]) -> LockedRun {
        let mut run = LockedRun::default();
        while self.lock.block_lock() && !run.lost_lock {
            let (Some(rest), Some(room)) = (words.get(run.consumed..), out.get_mut(run.produced..))
            else {
                break;
            };
            if room.is_empty() {
                break;
            }
            // The steady state: the gearbox's fast path. Valid headers in the steady state are
            // only counted, in runs; any other header goes through the diagram, and the blocks
            // after one that loses lock are left.
            let lock = &mut self.lock;
            let mut slip = false;
            let p = self.gearbox.cut_words(rest, room, |blocks, known_valid| {
                let mut i = 0;
                while i < blocks.len() {
                    let steady = usize::from(lock.steady_valid_headers());
                    let run = if i < known_valid {
                        (known_valid - i).min(steady)
                    } else {
                        valid_run(blocks.get(i..).unwrap_or_default(), steady)
                    };
                    lock.take_steady_valid_headers(run as u8);
                    i += run;
                    let Some(block) = blocks.get(i) else {
                        break;
                    };
                    slip = lock.step(block.sync) == LockAction::SlipOneBit;
                    i += 1;
                    if !lock.block_lock() {
                        break;
                    }
                }
                i
            });
            run.consumed += p.consumed;
            run.produced += p.produced;
            if slip {
                self.gearbox.slip();
                self.slips = self.slips.wrapping_add(1);
            }
            run.lost_lock = !self.lock.block_lock();
            if p.consumed != 0 || p.produced != 0 {
                continue;
            }
            // The gearbox is off its fast path (bits pending, or a block held): one block or
            // one word the general way.
            if let Some(block) = self.next_block() {
                if let Some(slot) = out.get_mut(run.produced) {
                    *slot = block.block;
                }
                run.produced += 1;
                run.lost_lock = !block.block_lock;
            } else if let Some(&word) = rest.first() {
                if self.feed(word).is_err() {
                    break;
                }
                run.consumed += 1;
            } else {
                break;
            }
        }
        run
    }

    /// Iterates over the blocks that `words` complete, feeding words as needed.
    ///
    /// Spec: IEEE 802.3 §49.2.9.
    pub fn blocks<'a>(&'a mut self, words: &'a [W]) -> AlignedBlocks<'a, W> {
        AlignedBlocks {
            aligner: self,
            words,
        }
    }
}

/// Iterator over aligned blocks; see [`BlockAligner::blocks`].
///
/// Spec: IEEE 802.3 §49.2.9.
#[derive(Debug)]
pub struct AlignedBlocks<'a, W> {
    aligner: &'a mut BlockAligner<W>,
    words: &'a [W],
}

impl<W: SerdesWord> AlignedBlocks<'_, W> {
    /// Words not yet fed.
    #[must_use]
    pub fn remaining(&self) -> &[W] {
        self.words
    }
}

impl<W: SerdesWord> Iterator for AlignedBlocks<'_, W> {
    type Item = AlignedBlock;

    fn next(&mut self) -> Option<AlignedBlock> {
        loop {
            if let Some(block) = self.aligner.next_block() {
                return Some(block);
            }
            let (&word, rest) = self.words.split_first()?;
            self.aligner.feed(word).ok()?;
            self.words = rest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::SyncHeader;
    use crate::gearbox::TxGearbox;
    use crate::scramble::Scrambler;
    use bitvec::prelude::*;
    use proptest::prelude::*;
    use LockAction::{Hold, SlipOneBit};

    const V: SyncHeader = SyncHeader::DATA;
    const C: SyncHeader = SyncHeader::CONTROL;
    const BAD: SyncHeader = SyncHeader::from_bits(0b11);

    #[test]
    fn an_aligner_locked_at_an_offset_cuts_there_and_keeps_lock_on_valid_headers() {
        // Blocks of 66 bits after 13 bits of noise: the aligner locked at 13 cuts them from
        // the first block, block_lock true throughout, no slips.
        let blocks: Vec<Block> = (0..100u64)
            .map(|i| Block {
                sync: if i % 3 == 0 {
                    SyncHeader::CONTROL
                } else {
                    SyncHeader::DATA
                },
                payload: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            })
            .collect();
        let mut bits: Vec<bool> = (0..13).map(|i| i % 2 == 1).collect();
        for b in &blocks {
            let sh = b.sync.to_bits();
            bits.extend((0..2).map(|i| (sh >> i) & 1 == 1));
            bits.extend((0..64).map(|i| (b.payload >> i) & 1 == 1));
        }
        let bytes: Vec<u8> = bits
            .chunks(8)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u8, |a, (i, &x)| a | u8::from(x) << i)
            })
            .collect();
        let mut a = BlockAligner::<u8>::locked_at(13);
        let got: Vec<AlignedBlock> = a.blocks(&bytes).collect();
        assert_eq!(got.len(), 100);
        for (g, b) in got.iter().zip(&blocks) {
            assert_eq!(g.block, *b);
            assert!(g.block_lock);
        }
        assert_eq!(got[0].bit_offset, 13);
        assert_eq!(a.slips(), 0);
        // 16 invalid headers in a window lose it, as for a receiver that locked by itself.
        let mut l = BlockLock::locked();
        let lost = (0..64).position(|_| {
            l.step(SyncHeader::from_bits(0));
            !l.block_lock()
        });
        assert_eq!(lost, Some(15));
    }

    /// `n` scrambled blocks with random payloads and random valid headers.
    fn scrambled_stream(n: usize, seed: u64) -> Vec<Block> {
        let mut x = seed | 1;
        let mut scrambler = Scrambler::default();
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let sync = if x >> 63 == 1 { V } else { C };
                Block {
                    sync,
                    payload: scrambler.scramble(x.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                }
            })
            .collect()
    }

    /// The stream's bytes after dropping its first `offset` bits.
    fn bytes_from_offset(blocks: &[Block], offset: usize) -> Vec<u8> {
        let mut tx = TxGearbox::<u8>::new();
        let mut bytes: Vec<u8> = blocks.iter().flat_map(|&b| tx.push_block(b)).collect();
        bytes.extend(tx.flush().map(|p| p.word));
        let bits = bytes.view_bits::<Lsb0>();
        bits[offset..]
            .chunks(8)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u8, |w, (i, b)| w | (u8::from(*b) << i))
            })
            .collect()
    }

    #[test]
    fn lock_from_every_start_offset_at_the_true_boundary() {
        let blocks = scrambled_stream(800, 0x5eed);
        for offset in 0..=65usize {
            let bytes = bytes_from_offset(&blocks, offset);
            let mut aligner = BlockAligner::<u8>::new();
            let out: Vec<AlignedBlock> = aligner.blocks(&bytes).collect();
            // Every wrong alignment slips exactly once (a clean stream never slips at the
            // true one), and each slip moves the boundary one bit later, so the count is the
            // distance to the next true boundary.
            let want_slips = (66 - offset) % 66;
            assert_eq!(aligner.slips(), want_slips as u64, "offset {offset}");
            assert!(aligner.slips() <= 65);
            let first_locked = out.iter().position(|b| b.block_lock).unwrap();
            // The true alignment starts right after the last slip; lock comes on its 64th
            // header.
            let last_slip = out.iter().rposition(|b| b.action == SlipOneBit);
            let first_true = last_slip.map_or(0, |i| i + 1);
            assert_eq!(first_locked, first_true + 63, "offset {offset}");
            for b in &out[first_true..] {
                let true_bit = b.bit_offset as usize + offset;
                assert_eq!(true_bit % 66, 0, "offset {offset}");
                assert_eq!(b.block, blocks[true_bit / 66]);
                assert_eq!(b.action, Hold);
            }
            assert!(out[first_locked..].iter().all(|b| b.block_lock));
        }
    }

    proptest! {
        #[test]
        fn push_words_locked_matches_push_words(
            seed in any::<u64>(),
            offset in 0usize..66,
            errors in prop::collection::vec((0usize..1200, 1usize..40), 0..6),
            rooms in prop::collection::vec(1usize..300, 1..6),
        ) {
            // A scrambled stream with bursts of bad headers (some lose lock), from any offset.
            let mut blocks = scrambled_stream(1200, seed);
            for (at, len) in errors {
                for b in blocks.iter_mut().skip(at).take(len) {
                    b.sync = BAD;
                }
            }
            let bytes = bytes_from_offset(&blocks, offset);
            let words: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let mut reference = BlockAligner::<u64>::new();
            let want: Vec<(Block, bool)> = reference
                .blocks(&words)
                .map(|a| (a.block, a.block_lock))
                .collect();
            // Under test: the fast path while locked, block by block otherwise.
            let mut a = BlockAligner::<u64>::new();
            let mut got = Vec::new();
            let mut rest: &[u64] = &words;
            let mut out = vec![Block::IDLE; 300];
            for &room in rooms.iter().cycle().take(100_000) {
                if a.lock().block_lock() {
                    let r = a.push_words_locked(rest, &mut out[..room]);
                    let n = r.produced;
                    for (i, &b) in out[..n].iter().enumerate() {
                        got.push((b, !(r.lost_lock && i + 1 == n)));
                    }
                    rest = &rest[r.consumed..];
                    if r.consumed != 0 || r.produced != 0 {
                        continue;
                    }
                }
                if let Some(b) = a.next_block() {
                    got.push((b.block, b.block_lock));
                } else if let Some((&w, tail)) = rest.split_first() {
                    a.feed(w).unwrap();
                    rest = tail;
                } else {
                    break;
                }
            }
            prop_assert_eq!(got.len(), want.len());
            prop_assert!(got == want);
            prop_assert_eq!(a.slips(), reference.slips());
            prop_assert_eq!(a.next_block_offset(), reference.next_block_offset());
            prop_assert_eq!(a.lock(), reference.lock());
        }

        #[test]
        fn any_stream_yields_blocks_66_or_67_bits_apart(words in prop::collection::vec(any::<u32>(), 0..200)) {
            let mut aligner = BlockAligner::<u32>::new();
            let out: Vec<AlignedBlock> = aligner.blocks(&words).collect();
            // Every whole block at the final alignment was cut, and none beyond the input.
            let total = 32 * words.len() as u64;
            prop_assert!(aligner.next_block_offset() + 66 > total);
            if let Some(last) = out.last() {
                prop_assert!(last.bit_offset + 66 <= total);
            }
            for pair in out.windows(2) {
                let step = pair[1].bit_offset - pair[0].bit_offset;
                let slipped = pair[0].action == SlipOneBit;
                prop_assert_eq!(step, if slipped { 67 } else { 66 });
            }
        }
    }

    #[test]
    fn aligner_push_words_in_chunks_equals_iterator() {
        let blocks = scrambled_stream(300, 7);
        let bytes = bytes_from_offset(&blocks, 23);
        let mut a = BlockAligner::<u8>::new();
        let want: Vec<AlignedBlock> = a.blocks(&bytes).collect();
        let mut b = BlockAligner::<u8>::new();
        let mut got = Vec::new();
        let mut out = [AlignedBlock {
            block: Block::IDLE,
            bit_offset: 0,
            block_lock: false,
            action: Hold,
        }; 5];
        let mut rest: &[u8] = &bytes;
        loop {
            let p = b.push_words(&rest[..rest.len().min(37)], &mut out);
            got.extend_from_slice(&out[..p.produced]);
            rest = &rest[p.consumed..];
            if p.consumed == 0 && p.produced == 0 {
                break;
            }
        }
        assert_eq!(got, want);
        assert_eq!(a.slips(), b.slips());
    }
}
