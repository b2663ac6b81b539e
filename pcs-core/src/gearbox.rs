//! The gearbox: 66-bit blocks to a serial bit stream (bytes or 16/32/64-bit serdes words) and
//! back, at any bit offset.
//!
//! Blocks go back to back on the wire, each sent bit 0 first: sync header bit 0, sync header
//! bit 1, then payload bits 0..63. Bytes and serdes words are filled the same way: bit 0 of a
//! word is the first of its bits on the wire, and word 0 comes before word 1.
//!
//! ```text
//!  line bit   0    1    2    3   ...   65 | 66   67   68  ...
//!             h0   h1   p0   p1  ...  p63 | h0'  h1'  p0' ...     (block n | block n+1)
//!  u8 words   [ byte 0: bits 0..7 ][ byte 1: bits 8..15 ] ... byte 8: bits 64..71 = p62 p63 h0' ...
//!  u64 words  [ word 0: line bits 0..63 ][ word 1: line bits 64..127 ] ...
//! ```
//!
//! Both directions keep the bits in flight in a `u128` accumulator whose bit 0 is the oldest
//! bit, so a block or a word moves with one shift and one mask (no per-bit loop).
//!
//! - [`TxGearbox`] packs blocks into words; [`TxGearbox::flush`] hands out the partial last
//!   word and says how many of its bits are valid.
//! - [`RxGearbox`] takes words incrementally and cuts 66-bit blocks at its current alignment,
//!   which starts at the first bit fed and moves one bit later on each [`RxGearbox::slip`]
//!   (what block lock asks for). Each block carries the absolute bit offset of its first bit.
//! - A gearbox that hands the fabric 32 blocks in 33 clocks (a vendor "synchronous gearbox"
//!   with a sequence counter) is a serdes form of the engine's live models
//!   (`baser_engine::live::SerdesForm::Gearbox64`/`Gearbox32`), not a stage of this crate.
//!
//! Spec: IEEE 802.3 §49.2.4 (transmission order), Figure 49-7.

use core::marker::PhantomData;

use crate::block::{Block, SyncHeader};

/// Bits in one block: a 2-bit sync header and a 64-bit payload.
///
/// Spec: IEEE 802.3 §49.2.4.
pub const BLOCK_BITS: u32 = 66;

/// Mask of the 66 block bits in a `u128`.
const BLOCK_MASK: u128 = (1 << BLOCK_BITS) - 1;

/// Capacity of the accumulators in bits.
const ACC_BITS: u32 = u128::BITS;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A word of the serial interface: a byte or a 16/32/64-bit serdes word, bit 0 first on the
/// wire. Implemented for `u8`, `u16`, `u32` and `u64` only.
///
/// Spec: IEEE 802.3 §49.2.4.
pub trait SerdesWord: sealed::Sealed + Copy + Default + Eq + core::fmt::Debug {
    /// The width in bits.
    const BITS: u32;
    /// The word zero-extended.
    fn to_u64(self) -> u64;
    /// The low `BITS` bits of `bits`.
    fn from_u64_truncating(bits: u64) -> Self;
}

macro_rules! serdes_word {
    ($($t:ty),*) => {$(
        impl SerdesWord for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline]
            fn to_u64(self) -> u64 {
                u64::from(self)
            }
            #[inline]
            fn from_u64_truncating(bits: u64) -> Self {
                bits as $t
            }
        }
    )*};
}
serdes_word!(u8, u16, u32, u64);

/// A block as 66 line bits in a `u128`, bit 0 first on the wire.
///
/// Spec: IEEE 802.3 §49.2.4.
#[inline]
#[must_use]
pub const fn block_to_bits(block: Block) -> u128 {
    (block.sync.to_bits() as u128) | ((block.payload as u128) << 2)
}

/// The block whose 66 line bits are the low bits of `bits` (higher bits are ignored).
///
/// Spec: IEEE 802.3 §49.2.4.
#[inline]
#[must_use]
pub const fn bits_to_block(bits: u128) -> Block {
    Block {
        sync: SyncHeader::from_bits((bits & 0b11) as u8),
        payload: ((bits & BLOCK_MASK) >> 2) as u64,
    }
}

/// How much a batch call consumed and produced.
///
/// Spec: IEEE 802.3 §49.2.4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Progress {
    /// Input items taken (blocks or words).
    pub consumed: usize,
    /// Output items written.
    pub produced: usize,
}

/// The last, partial word of a stream: the bits after `valid_bits` are zero padding.
///
/// Spec: IEEE 802.3 §49.2.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PartialWord<W> {
    /// The word; bits `valid_bits..` are zero.
    pub word: W,
    /// How many bits, from bit 0, carry line bits (1..W::BITS).
    pub valid_bits: u32,
}

/// Most words one block can complete: 9 bytes (up to 7 bits held plus 66).
const MAX_WORDS_PER_BLOCK: usize = 9;

/// The words one [`TxGearbox::push_block`] completed, in wire order (an iterator).
///
/// Spec: IEEE 802.3 §49.2.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxWords<W> {
    words: [W; MAX_WORDS_PER_BLOCK],
    len: u8,
    next: u8,
}

impl<W: SerdesWord> TxWords<W> {
    fn empty() -> Self {
        Self {
            words: [W::default(); MAX_WORDS_PER_BLOCK],
            len: 0,
            next: 0,
        }
    }

    fn push(&mut self, word: W) {
        if let Some(slot) = self.words.get_mut(usize::from(self.len)) {
            *slot = word;
            self.len = self.len.saturating_add(1);
        }
    }

    /// The words not yet iterated.
    #[must_use]
    pub fn as_slice(&self) -> &[W] {
        self.words
            .get(usize::from(self.next)..usize::from(self.len))
            .unwrap_or(&[])
    }
}

impl<W: SerdesWord> Iterator for TxWords<W> {
    type Item = W;

    fn next(&mut self) -> Option<W> {
        if self.next >= self.len {
            return None;
        }
        let word = self.words.get(usize::from(self.next)).copied();
        self.next = self.next.saturating_add(1);
        word
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::from(self.len.saturating_sub(self.next));
        (n, Some(n))
    }
}

impl<W: SerdesWord> ExactSizeIterator for TxWords<W> {}

/// Blocks in a gearbox group: 32 blocks of 66 bits are exactly 33 words of 64 bits.
const GROUP_BLOCKS: usize = 32;
/// Words of 64 bits in a gearbox group.
const GROUP_WORDS: usize = 33;

/// All ones, as a value the optimiser cannot see through. [`pack32`] and [`cut32`] mask one
/// half of each `hi << k | lo >> (64 - k)` with it, so that the compiler keeps two shifts and
/// an OR instead of fusing them into a double shift (`SHLD`/`SHRD`): one takes about two
/// cycles on AMD cores (measured on this project's x86-64 machine: 1.9 cycles of throughput,
/// against about 0.2 for a plain shift), and each does 32 of them per 32 blocks (TX chain,
/// uniform mix: the gearbox's time 95 -> 55 ms in 300 runs of 2,000 frames).
#[inline]
fn opaque_ones() -> u64 {
    core::hint::black_box(u64::MAX)
}

/// Packs 32 blocks into 33 words of 64 bits, the first block at bit 0 of the first word,
/// with constant shifts (the macro unrolls the 32 steps).
///
/// Block k starts at bit 66k = 64k + 2k, bit 2k of word k: its sync header goes to bits
/// 2k..2k+1 and its payload from bit 2k+2 on; the payload's top 2k+2 bits spill into word k+1
/// (`payload >> (62 - 2k)`).
///
/// Spec: IEEE 802.3 §49.2.4.
#[inline]
fn pack32<W: SerdesWord>(blocks: &[Block; GROUP_BLOCKS], out: &mut [W; GROUP_WORDS]) {
    let keep = opaque_ones();
    let mut carry = 0u64;
    macro_rules! step {
        ($($k:literal)*) => {$(
            let block = blocks[$k];
            let sh: u32 = 2 * $k;
            out[$k] = W::from_u64_truncating(
                carry
                    | u64::from(block.sync.to_bits()) << sh
                    | block.payload.checked_shl(sh + 2).unwrap_or(0),
            );
            carry = block.payload >> (62 - sh) & keep;
        )*};
    }
    step!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    out[GROUP_BLOCKS] = W::from_u64_truncating(carry);
}

/// Transmit gearbox: 66-bit blocks in, words of `W` out, bit 0 first.
///
/// Spec: IEEE 802.3 §49.2.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxGearbox<W> {
    /// Line bits not yet in a word; bit 0 is the oldest.
    acc: u128,
    /// How many bits of `acc` are valid (`< W::BITS` between calls).
    len: u32,
    /// Line bits pushed so far (blocks times 66).
    bits_in: u64,
    word: PhantomData<W>,
}

impl<W: SerdesWord> Default for TxGearbox<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: SerdesWord> TxGearbox<W> {
    /// An empty gearbox: the first block pushed starts at bit 0 of the first word.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            acc: 0,
            len: 0,
            bits_in: 0,
            word: PhantomData,
        }
    }

    /// Line bits held that do not yet fill a word.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[must_use]
    pub const fn pending_bits(&self) -> u32 {
        self.len
    }

    /// Line bits pushed so far; the next block starts at this absolute bit offset.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[must_use]
    pub const fn bit_offset(&self) -> u64 {
        self.bits_in
    }

    /// Counts `groups` whole groups of 32 blocks that the caller packed into words itself, as
    /// [`TxGearbox::push_blocks`] would have (33 words a group: block `m` of a group at bit
    /// `66m`), which it can do only where a group starts: while the gearbox holds no bits.
    /// Returns whether it counted them (`false`, and nothing changed, while bits are held).
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    pub fn packed_groups(&mut self, groups: u64) -> bool {
        if self.len != 0 {
            return false;
        }
        let bits = u64::from(BLOCK_BITS) * GROUP_BLOCKS as u64;
        self.bits_in = self.bits_in.wrapping_add(bits.wrapping_mul(groups));
        true
    }

    /// Moves completed words from the accumulator into `out`.
    fn drain(&mut self, out: &mut TxWords<W>) {
        while self.len >= W::BITS {
            out.push(W::from_u64_truncating(self.acc as u64));
            self.acc = self.acc.checked_shr(W::BITS).unwrap_or(0);
            self.len -= W::BITS;
        }
    }

    /// Moves completed words from the accumulator into `out` from `*at` on (the caller has
    /// checked the room).
    #[inline]
    fn drain_into(&mut self, out: &mut [W], at: &mut usize) {
        while self.len >= W::BITS {
            if let Some(slot) = out.get_mut(*at) {
                *slot = W::from_u64_truncating(self.acc as u64);
            }
            *at += 1;
            self.acc = self.acc.checked_shr(W::BITS).unwrap_or(0);
            self.len -= W::BITS;
        }
    }

    /// Pushes one block; returns the words it completed (none to nine, by width).
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    pub fn push_block(&mut self, block: Block) -> TxWords<W> {
        let mut out = TxWords::empty();
        // Two steps keep the accumulator within 128 bits: at most 63 held + 2, then at most
        // 63 held + 64.
        self.acc |= u128::from(block.sync.to_bits()) << self.len;
        self.len += 2;
        self.drain(&mut out);
        self.acc |= u128::from(block.payload) << self.len;
        self.len += 64;
        self.drain(&mut out);
        self.bits_in = self.bits_in.wrapping_add(u64::from(BLOCK_BITS));
        out
    }

    /// Words the next block will complete.
    const fn words_for_next_block(&self) -> usize {
        ((self.len + BLOCK_BITS) / W::BITS) as usize
    }

    /// Pushes blocks while `out` has room for the words they complete; returns how many blocks
    /// were taken and words written. A block whose words do not fit is left for the next call.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    pub fn push_blocks(&mut self, blocks: &[Block], out: &mut [W]) -> Progress {
        let mut progress = Progress::default();
        if W::BITS == 64 {
            // It takes every block while two words of room are left: this loop then sees at
            // most one block, with room for one word.
            self.push_blocks_u64(blocks, out, &mut progress);
        }
        for &block in blocks.get(progress.consumed..).unwrap_or_default() {
            let room = out.len().saturating_sub(progress.produced);
            if self.words_for_next_block() > room {
                break;
            }
            // All 66 bits fit at once: fewer than 32 bits are held for narrower words, and for
            // 64-bit words the count held is even and below 64.
            self.acc |= block_to_bits(block) << self.len;
            self.len += BLOCK_BITS;
            self.drain_into(out, &mut progress.produced);
            self.bits_in = self.bits_in.wrapping_add(u64::from(BLOCK_BITS));
            progress.consumed += 1;
        }
        progress
    }

    /// The 64-bit word fast path of [`TxGearbox::push_blocks`]: 32 blocks are exactly 33
    /// words, so whenever the gearbox holds no bits, a group of 32 blocks is packed with
    /// constant shifts ([`pack32`]). Stops where the general path must go on (bits held, fewer
    /// than 32 blocks left, or fewer than 33 words of room).
    fn push_blocks_u64(&mut self, blocks: &[Block], out: &mut [W], progress: &mut Progress) {
        // Between calls the held count is even and below 64 (66-bit blocks into 64-bit words).
        let mut held = self.acc as u64;
        let mut len = self.len;
        let (mut b, mut w) = (0, 0);
        loop {
            if len == 0 {
                if let (Some(group), Some(words)) = (
                    blocks.get(b..b + GROUP_BLOCKS),
                    out.get_mut(w..w + GROUP_WORDS),
                ) {
                    if let (Ok(group), Ok(words)) = (
                        <&[Block; GROUP_BLOCKS]>::try_from(group),
                        <&mut [W; GROUP_WORDS]>::try_from(words),
                    ) {
                        pack32(group, words);
                        b += GROUP_BLOCKS;
                        w += GROUP_WORDS;
                        continue;
                    }
                }
            }
            // One block, without branches: it completes one word, or two when 62 bits were
            // held; both words are written (room for two is checked) and the count advances
            // by one or two.
            let (Some(&block), Some([first, second])) = (
                blocks.get(b),
                out.get_mut(w..w + 2)
                    .and_then(|o| <&mut [W; 2]>::try_from(o).ok()),
            ) else {
                break;
            };
            let bits = (u128::from(block.payload) << 2 | u128::from(block.sync.to_bits())) << len
                | u128::from(held);
            *first = W::from_u64_truncating(bits as u64);
            *second = W::from_u64_truncating((bits >> 64) as u64);
            let wrapped = len == 62;
            w += 1 + usize::from(wrapped);
            held = if wrapped { 0 } else { (bits >> 64) as u64 };
            len = (len + 2) & 63;
            b += 1;
        }
        self.acc = u128::from(held);
        self.len = len;
        self.bits_in = self.bits_in.wrapping_add(u64::from(BLOCK_BITS) * b as u64);
        progress.consumed += b;
        progress.produced += w;
    }

    /// Ends the stream: returns the held bits as a zero-padded word, or `None` if the last
    /// block ended on a word boundary. The next block then starts a new word.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    pub fn flush(&mut self) -> Option<PartialWord<W>> {
        if self.len == 0 {
            return None;
        }
        let mask = (1u128 << self.len) - 1;
        let word = W::from_u64_truncating((self.acc & mask) as u64);
        let valid_bits = self.len;
        self.acc = 0;
        self.len = 0;
        Some(PartialWord { word, valid_bits })
    }
}

/// Cuts 32 blocks from `window`, the first starting at bit `P` of word 0 (`P` below 64), with
/// constant shifts only: block m starts at bit `P + 66m`, so once `P` is a constant every
/// word index and shift of the 32 steps is one. The receive gearbox's phase does not change
/// from one group to the next (32 blocks are exactly 33 words), so [`RxGearbox::cut_words`]
/// picks the instance once per call. Returns how many of the 32 blocks, from the first, have
/// a valid sync header.
///
/// The halves of a payload that straddles two words are joined by two shifts and an OR (one
/// masked with [`opaque_ones`]), not a double shift: see [`pack32`].
///
/// Spec: IEEE 802.3 §49.2.4.
#[inline(always)]
fn cut32<W: SerdesWord, const P: usize>(window: &[W; 34], out: &mut [Block; GROUP_BLOCKS]) -> u32 {
    let keep = opaque_ones();
    let word = |k: usize| window.get(k).map_or(0, |w| w.to_u64());
    // The 32 sync headers side by side, the first block's in the top two bits and block m's
    // in bits 62 - 2m..63 - 2m: each is shifted in at the bottom, a chain that the compiler
    // keeps in one register (ORed in place, they were kept on the stack for a vector OR).
    let mut headers = 0u64;
    macro_rules! step {
        ($($m:literal)*) => {$(
            let q = P + 66 * $m;
            let (i, s) = (q / 64, (q % 64) as u32);
            let sync = if s < 63 {
                word(i) >> s & 0b11
            } else {
                word(i) >> 63 | (word(i + 1) & 1) << 1
            };
            let (j, t) = ((q + 2) / 64, ((q + 2) % 64) as u32);
            let payload = if t == 0 {
                word(j)
            } else {
                word(j) >> t | word(j + 1) << (64 - t) & keep
            };
            headers = headers << 2 | sync;
            out[$m] = Block {
                sync: SyncHeader::from_bits(sync as u8),
                payload,
            };
        )*};
    }
    step!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    // A header is valid when its two bits differ (01 or 10); block m's verdict is bit
    // 62 - 2m of `invalid`, so the first invalid block is at half its leading zeros.
    let invalid = !(headers ^ headers >> 1) & 0x5555_5555_5555_5555;
    invalid.leading_zeros() / 2
}

/// Cuts groups of 32 blocks into `out` from `cut` on, while `words` and `out` hold a whole
/// group, block k starting at bit `66k - held` of `words`, which is `P` modulo 64 for every
/// group. Counts in `valid` the blocks with valid headers while it equals `cut` (no invalid
/// header seen yet). Returns the new `cut`.
#[inline(always)]
fn cut_groups<W: SerdesWord, const P: usize>(
    words: &[W],
    out: &mut [Block],
    mut cut: usize,
    held: u32,
    valid: &mut usize,
) -> usize {
    loop {
        let base = ((66 * cut as u64 - u64::from(held)) >> 6) as usize;
        let (Some(window), Some(group)) = (
            words
                .get(base..base + 34)
                .and_then(|w| <&[W; 34]>::try_from(w).ok()),
            out.get_mut(cut..cut + GROUP_BLOCKS)
                .and_then(|o| <&mut [Block; GROUP_BLOCKS]>::try_from(o).ok()),
        ) else {
            return cut;
        };
        let group_valid = cut32::<W, P>(window, group) as usize;
        if *valid == cut {
            *valid += group_valid;
        }
        cut += GROUP_BLOCKS;
    }
}

/// A block cut from a received stream, with the absolute bit offset of its first bit (bit 0
/// is the first bit fed to the [`RxGearbox`]).
///
/// Spec: IEEE 802.3 §49.2.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxBlock {
    /// The 66 bits at the current alignment.
    pub block: Block,
    /// Absolute offset of the block's first bit (its sync header bit 0).
    pub bit_offset: u64,
}

/// Receive gearbox: words of `W` in, 66-bit blocks out at the current alignment.
///
/// Streaming and allocation-free: it holds at most 128 bits plus one fed word. Bits that do
/// not yet form a block stay for the next feed. [`slip`](Self::slip) drops one bit, so that
/// every later block starts one bit later; a slip with no bit held drops the next bit fed.
///
/// Spec: IEEE 802.3 §49.2.4, §49.2.9 (slip).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxGearbox<W> {
    /// Bits held; bit 0 is the oldest, at absolute offset `bit_offset`.
    acc: u128,
    /// Valid bits in `acc` (at most 128).
    len: u32,
    /// The rest of a fed word that did not fit in `acc`; bit 0 is the oldest.
    pending: u64,
    /// Valid bits in `pending`.
    pending_len: u32,
    /// Slips requested and not yet applied for lack of bits.
    owed_slips: u32,
    /// Absolute offset of `acc` bit 0.
    bit_offset: u64,
    word: PhantomData<W>,
}

impl<W: SerdesWord> Default for RxGearbox<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: SerdesWord> RxGearbox<W> {
    /// An empty gearbox: the first block starts at the first bit fed.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            acc: 0,
            len: 0,
            pending: 0,
            pending_len: 0,
            owed_slips: 0,
            bit_offset: 0,
            word: PhantomData,
        }
    }

    /// Absolute offset at which the next block will start (slips requested included).
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[must_use]
    pub const fn next_block_offset(&self) -> u64 {
        self.bit_offset.wrapping_add(self.owed_slips as u64)
    }

    /// Bits held and not yet cut into a block (before owed slips are applied).
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[must_use]
    pub const fn buffered_bits(&self) -> u32 {
        self.len + self.pending_len
    }

    /// Moves bits from `pending` into `acc` while there is room.
    fn refill(&mut self) {
        let n = self.pending_len.min(ACC_BITS - self.len);
        if n == 0 {
            return;
        }
        let mask = u64::MAX.checked_shr(64 - n).unwrap_or(0);
        self.acc |= u128::from(self.pending & mask) << self.len;
        self.pending = self.pending.checked_shr(n).unwrap_or(0);
        self.len += n;
        self.pending_len -= n;
    }

    /// Refills and applies owed slips while bits are available.
    fn settle(&mut self) {
        loop {
            self.refill();
            let drop = self.owed_slips.min(self.len);
            if drop == 0 {
                return;
            }
            self.acc = self.acc.checked_shr(drop).unwrap_or(0);
            self.len -= drop;
            self.owed_slips -= drop;
            self.bit_offset = self.bit_offset.wrapping_add(u64::from(drop));
        }
    }

    /// Feeds one word. Hands it back if the previous word has not been absorbed yet: take
    /// blocks with [`next_block`](Self::next_block) first.
    ///
    /// # Errors
    /// `Err(word)` when the gearbox is full (more than 128 bits held).
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[inline]
    pub fn feed(&mut self, word: W) -> Result<(), W> {
        // Fast path: nothing pending, no slip owed, room for the whole word.
        if self.pending_len == 0 && self.owed_slips == 0 && ACC_BITS - self.len >= W::BITS {
            self.acc |= u128::from(word.to_u64()) << self.len;
            self.len += W::BITS;
            return Ok(());
        }
        self.feed_slow(word)
    }

    /// [`feed`](Self::feed) with bits pending or slips owed, out of line.
    #[cold]
    #[inline(never)]
    fn feed_slow(&mut self, word: W) -> Result<(), W> {
        self.settle();
        if self.pending_len != 0 {
            return Err(word);
        }
        self.pending = word.to_u64();
        self.pending_len = W::BITS;
        self.settle();
        Ok(())
    }

    /// Cuts the next block at the current alignment, if 66 bits are held.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[inline]
    pub fn next_block(&mut self) -> Option<RxBlock> {
        // Fast path: nothing pending and no slip owed, so settling would change nothing.
        if self.pending_len == 0 && self.owed_slips == 0 {
            return (self.len >= BLOCK_BITS).then(|| self.cut_block());
        }
        self.next_block_slow()
    }

    /// Takes the 66 bits at the front of the accumulator (the caller checked they are there).
    #[inline]
    fn cut_block(&mut self) -> RxBlock {
        let out = RxBlock {
            block: bits_to_block(self.acc),
            bit_offset: self.bit_offset,
        };
        self.acc >>= BLOCK_BITS;
        self.len -= BLOCK_BITS;
        self.bit_offset = self.bit_offset.wrapping_add(u64::from(BLOCK_BITS));
        out
    }

    /// [`next_block`](Self::next_block) with bits pending or slips owed, out of line.
    #[cold]
    #[inline(never)]
    fn next_block_slow(&mut self) -> Option<RxBlock> {
        self.settle();
        if self.len < BLOCK_BITS {
            return None;
        }
        let out = self.cut_block();
        self.settle();
        Some(out)
    }

    /// The steady-state path of a receiver fed 64-bit words: cuts blocks straight from
    /// `words` by their bit position (each block independent of the one before, a few shifts
    /// each) into `out`, then lets `accept` look at them (with how many of them, from the
    /// first, are known to have a valid sync header) and say how many to keep, counted from
    /// the first; the gearbox then stands right after the blocks kept, as if they had been
    /// cut one by one with [`feed`](Self::feed) and [`next_block`](Self::next_block), and the
    /// words after them are not taken. Returns `(words taken, blocks kept)`.
    ///
    /// Does nothing (returns zeros) unless the words are 64 bits wide, nothing is pending, no
    /// slip is owed and no whole block is held; it also leaves the last one or two blocks of
    /// `words` to the general path.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    #[inline]
    pub(crate) fn cut_words(
        &mut self,
        words: &[W],
        out: &mut [Block],
        accept: impl FnOnce(&[Block], usize) -> usize,
    ) -> Progress {
        let nothing = Progress::default();
        if W::BITS != 64 || self.pending_len != 0 || self.owed_slips != 0 || self.len >= BLOCK_BITS
        {
            return nothing;
        }
        let (Some(first), Some(&w0), Some(&w1)) = (out.first_mut(), words.first(), words.get(1))
        else {
            return nothing;
        };
        // Block 0: the bits held, then the first 66 - len bits of the words. Block k >= 1
        // starts at bit 66k - len of the words.
        let held = self.len;
        let w01 = u128::from(w1.to_u64()) << 64 | u128::from(w0.to_u64());
        *first = bits_to_block(self.acc | w01 << held);
        // Blocks known to have valid headers, from the first on, while no invalid one is seen.
        let mut valid = usize::from(first.sync.is_valid());
        // Block k needs words[i] and words[i + 1], i = (66k - held + 2) / 64, for its payload
        // (its sync header lies in the same two words or the two before).
        let limit = (words.len() as u64 - 1) * 64;
        let mut cut = 1;
        // Groups of 32 blocks from windows of 34 words (32 blocks span 33 words and up to 63
        // bits of one more), with fixed-size arrays so that no index is checked; one instance
        // per phase, all shifts constant. Block 1, the first of the groups, starts at bit
        // 66 - held (held is below 66).
        let phase = ((66 - u64::from(held)) & 63) as usize;
        macro_rules! by_phase {
            ($($p:literal)*) => {
                match phase {
                    $($p => cut_groups::<W, $p>(words, out, cut, held, &mut valid),)*
                    _ => cut,
                }
            };
        }
        cut = by_phase!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28
            29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58
            59 60 61 62 63);
        for (k, slot) in out.iter_mut().enumerate().skip(cut) {
            let q = 66 * k as u64 - u64::from(held);
            if q + 2 >= limit {
                break;
            }
            let (i, sh) = ((q >> 6) as usize, (q & 63) as u32);
            let (j, sh2) = (((q + 2) >> 6) as usize, ((q + 2) & 63) as u32);
            let pair = |i: usize| {
                let lo = words.get(i).map_or(0, |w| w.to_u64());
                let hi = words.get(i + 1).map_or(0, |w| w.to_u64());
                u128::from(hi) << 64 | u128::from(lo)
            };
            *slot = Block {
                sync: SyncHeader::from_bits((pair(i) >> sh) as u8 & 0b11),
                payload: (pair(j) >> sh2) as u64,
            };
            cut += 1;
        }
        let kept = accept(out.get(..cut).unwrap_or_default(), valid).min(cut);
        if kept == 0 {
            return nothing;
        }
        // Bits after the last block kept, up to the end of the word holding its last bit.
        let end = 66 * kept as u64 - u64::from(held);
        let taken = end.div_ceil(64) as usize;
        let rest = (taken as u64 * 64 - end) as u32;
        let last = words.get(taken - 1).map_or(0, |w| w.to_u64());
        self.acc = u128::from(last.checked_shr(64 - rest).unwrap_or(0));
        self.len = rest;
        self.bit_offset = self
            .bit_offset
            .wrapping_add(u64::from(BLOCK_BITS) * kept as u64);
        Progress {
            consumed: taken,
            produced: kept,
        }
    }

    /// Slips one bit: the next block starts one bit later than it would have.
    ///
    /// Spec: IEEE 802.3 §49.2.9 (`SLIP`).
    pub fn slip(&mut self) {
        self.slip_bits(1);
    }

    /// Slips `bits` bits (e.g. to start reading a stream at a chosen offset).
    ///
    /// Spec: IEEE 802.3 §49.2.9 (`SLIP`).
    pub fn slip_bits(&mut self, bits: u32) {
        self.owed_slips = self.owed_slips.saturating_add(bits);
        self.settle();
    }

    /// Feeds `words` and writes the blocks they complete into `out`, stopping early when `out`
    /// is full. Returns the words taken and blocks written; words not taken are for the next
    /// call.
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    pub fn push_words(&mut self, words: &[W], out: &mut [RxBlock]) -> Progress {
        let mut progress = Progress::default();
        let mut words = words.iter();
        loop {
            // Drain before feeding, so that blocks never wait behind a full buffer.
            while self.holds_a_block() {
                let Some(slot) = out.get_mut(progress.produced) else {
                    return progress;
                };
                let Some(block) = self.next_block() else {
                    break;
                };
                *slot = block;
                progress.produced += 1;
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

    /// At least one block is held, slips owed included.
    const fn holds_a_block(&self) -> bool {
        self.len + self.pending_len >= BLOCK_BITS.saturating_add(self.owed_slips)
    }

    /// Iterates over the blocks that `words` complete, feeding words as needed. Dropping the
    /// iterator early leaves the words not yet fed in [`RxBlocks::remaining`].
    ///
    /// Spec: IEEE 802.3 §49.2.4.
    pub fn blocks<'a>(&'a mut self, words: &'a [W]) -> RxBlocks<'a, W> {
        RxBlocks {
            gearbox: self,
            words,
        }
    }
}

/// Iterator over the blocks of a slice of words; see [`RxGearbox::blocks`].
///
/// Spec: IEEE 802.3 §49.2.4.
#[derive(Debug)]
pub struct RxBlocks<'a, W> {
    gearbox: &'a mut RxGearbox<W>,
    words: &'a [W],
}

impl<W: SerdesWord> RxBlocks<'_, W> {
    /// Slips one bit before the next block (what block lock asks for).
    ///
    /// Spec: IEEE 802.3 §49.2.9 (`SLIP`).
    pub fn slip(&mut self) {
        self.gearbox.slip();
    }

    /// Words not yet fed.
    #[must_use]
    pub fn remaining(&self) -> &[W] {
        self.words
    }
}

impl<W: SerdesWord> Iterator for RxBlocks<'_, W> {
    type Item = RxBlock;

    fn next(&mut self) -> Option<RxBlock> {
        loop {
            if let Some(block) = self.gearbox.next_block() {
                return Some(block);
            }
            let (&word, rest) = self.words.split_first()?;
            self.gearbox.feed(word).ok()?;
            self.words = rest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitvec::prelude::*;
    use proptest::prelude::*;

    /// Bit-serial reference: the line bits of `blocks`, one `push` per bit in wire order.
    fn serial_bits(blocks: &[Block]) -> BitVec<u64, Lsb0> {
        let mut bits = BitVec::new();
        for b in blocks {
            bits.push(b.sync.to_bits() & 1 == 1);
            bits.push(b.sync.to_bits() >> 1 & 1 == 1);
            for i in 0..64 {
                bits.push(b.payload >> i & 1 == 1);
            }
        }
        bits
    }

    /// Bit-serial reference: words of `width` bits, bit 0 of a word first.
    fn serial_words(bits: &BitSlice<u64, Lsb0>, width: usize) -> Vec<u64> {
        bits.chunks(width)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u64, |w, (i, b)| w | (u64::from(*b) << i))
            })
            .collect()
    }

    /// All words of a stream from the fast gearbox, the flushed partial word included.
    fn pack<W: SerdesWord>(blocks: &[Block]) -> (Vec<u64>, Option<u32>) {
        let mut tx = TxGearbox::<W>::new();
        let mut words: Vec<u64> = Vec::new();
        for &b in blocks {
            words.extend(tx.push_block(b).map(SerdesWord::to_u64));
        }
        let partial = tx.flush();
        if let Some(p) = partial {
            words.push(p.word.to_u64());
        }
        (words, partial.map(|p| p.valid_bits))
    }

    fn block_strategy() -> impl Strategy<Value = Block> {
        (0u8..4, any::<u64>()).prop_map(|(h, p)| Block {
            sync: SyncHeader::from_bits(h),
            payload: p,
        })
    }

    fn random_blocks(n: usize, seed: u64) -> Vec<Block> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                Block {
                    sync: SyncHeader::from_bits((x >> 60) as u8),
                    payload: x.rotate_left(23) ^ 0x9e37_79b9_7f4a_7c15,
                }
            })
            .collect()
    }

    /// `blocks` as 64-bit words, after `offset` junk bits, the blocks a receiver that slips
    /// past the junk cuts from them one word and one block at a time, and that receiver after
    /// the last word: the fast path's reference. (Drained after every word, it takes them all.)
    fn words_after_junk(blocks: &[Block], offset: u32) -> (Vec<u64>, Vec<Block>, RxGearbox<u64>) {
        let mut bits = serial_bits(blocks);
        bits.extend((0..offset).map(|i| i % 2 == 0));
        bits.rotate_right(offset as usize);
        let words = serial_words(&bits, 64);
        let mut reference = RxGearbox::<u64>::new();
        reference.slip_bits(offset);
        let mut want = Vec::new();
        for &w in &words {
            reference.feed(w).unwrap();
            while let Some(b) = reference.next_block() {
                want.push(b.block);
            }
        }
        (words, want, reference)
    }

    /// Round trip for one word width from every start offset: the stream is packed, the first
    /// `offset` bits are replaced by junk bits prepended, and the reader slips to the block.
    fn round_trip_all_offsets<W: SerdesWord>() {
        let blocks = random_blocks(40, 0x1234_5678);
        let bits = serial_bits(&blocks);
        for offset in 0..=65usize {
            // Prepend `offset` junk bits, then pack into words with the bit-serial reference.
            let mut shifted: BitVec<u64, Lsb0> = BitVec::new();
            shifted.extend((0..offset).map(|i| i % 3 == 0));
            shifted.extend_from_bitslice(&bits);
            let words: Vec<W> = serial_words(&shifted, W::BITS as usize)
                .into_iter()
                .map(W::from_u64_truncating)
                .collect();
            let mut rx = RxGearbox::<W>::new();
            rx.slip_bits(offset as u32);
            let got: Vec<RxBlock> = rx.blocks(&words).collect();
            let want: Vec<RxBlock> = blocks
                .iter()
                .enumerate()
                .map(|(k, &block)| RxBlock {
                    block,
                    bit_offset: (offset + 66 * k) as u64,
                })
                .collect();
            assert_eq!(got, want, "width {} offset {offset}", W::BITS);
        }
    }

    #[test]
    fn block_bits_are_header_bit_0_then_header_bit_1_then_payload() {
        let b = Block {
            sync: SyncHeader::DATA,
            payload: 0x8000_0000_0000_0001,
        };
        // IEEE `01`: the first bit 0, the second 1; then p0 = 1 at line bit 2, p63 at bit 65.
        assert_eq!(block_to_bits(b), 0b10 | 1 << 2 | 1 << 65);
        assert_eq!(bits_to_block(block_to_bits(b)), b);
    }

    #[test]
    fn two_blocks_into_bytes_by_hand() {
        // Block 0: control header (line bits 1,0), payload 0x1e; block 1: data header, 0.
        let (bytes, valid) = pack::<u8>(&[Block::control(0x1e), Block::data(0)]);
        // Line bits: 1 0 | 0 1 1 1 1 0 0 0 ... (0x1e lsb first) | 58 zeros ... then block 1 at
        // bit 66: 0 1 (bit 67 set) and 64 zeros. Bit 67 is bit 3 of byte 8.
        let mut want = vec![0u64; 17];
        want[0] = 0b0111_1001; // bit0 = h0 = 1, bits 2..5 = 0x1e bits 1..4 (0x1e = 11110b)
        want[8] = 1 << 3;
        assert_eq!(bytes, want);
        assert_eq!(valid, Some(132 - 128));
    }

    #[test]
    fn round_trip_every_offset_bytes() {
        round_trip_all_offsets::<u8>();
    }

    #[test]
    fn round_trip_every_offset_16_bit_words() {
        round_trip_all_offsets::<u16>();
    }

    #[test]
    fn round_trip_every_offset_32_bit_words() {
        round_trip_all_offsets::<u32>();
    }

    #[test]
    fn round_trip_every_offset_64_bit_words() {
        round_trip_all_offsets::<u64>();
    }

    #[test]
    fn tx_then_rx_round_trip_every_width() {
        fn check<W: SerdesWord>(blocks: &[Block]) {
            let mut tx = TxGearbox::<W>::new();
            let mut words = vec![W::default(); 66 * blocks.len() / W::BITS as usize + 1];
            let p = tx.push_blocks(blocks, &mut words);
            assert_eq!(p.consumed, blocks.len());
            words.truncate(p.produced);
            if let Some(last) = tx.flush() {
                words.push(last.word);
            }
            let mut rx = RxGearbox::<W>::new();
            let back: Vec<Block> = rx.blocks(&words).map(|b| b.block).collect();
            assert_eq!(back, blocks, "width {}", W::BITS);
        }
        let blocks = random_blocks(100, 99);
        check::<u8>(&blocks);
        check::<u16>(&blocks);
        check::<u32>(&blocks);
        check::<u64>(&blocks);
    }

    #[test]
    fn flush_reports_valid_bits_for_every_width() {
        // 3 blocks = 198 bits: 198 mod 8 = 6, mod 16 = 6, mod 32 = 6, mod 64 = 6.
        let blocks = random_blocks(3, 5);
        assert_eq!(pack::<u8>(&blocks).1, Some(6));
        assert_eq!(pack::<u16>(&blocks).1, Some(6));
        assert_eq!(pack::<u32>(&blocks).1, Some(6));
        assert_eq!(pack::<u64>(&blocks).1, Some(6));
        // 32 blocks = 2112 bits = 33 u64 words exactly: nothing to flush.
        assert_eq!(pack::<u64>(&random_blocks(32, 5)).1, None);
    }

    #[test]
    fn push_block_counts_its_words_and_the_offset_advances_by_66_bits() {
        fn check<W: SerdesWord>() {
            let mut tx = TxGearbox::<W>::new();
            let mut words_out = 0u64;
            for (k, b) in random_blocks(70, 3).into_iter().enumerate() {
                let mut words = tx.push_block(b);
                let n = words.as_slice().len();
                assert_eq!(words.size_hint(), (n, Some(n)));
                assert_eq!(words.len(), n);
                if n > 0 {
                    let _ = words.next();
                    assert_eq!(words.len(), n - 1);
                }
                words_out += n as u64;
                assert_eq!(tx.bit_offset(), 66 * (k as u64 + 1));
                assert_eq!(
                    words_out * u64::from(W::BITS) + u64::from(tx.pending_bits()),
                    tx.bit_offset()
                );
            }
        }
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }

    #[test]
    fn packed_groups_counts_whole_groups_only_where_a_group_starts() {
        let mut tx = TxGearbox::<u64>::new();
        assert!(tx.packed_groups(2));
        assert_eq!(tx.bit_offset(), 2 * 32 * 66);
        // The next block starts a word of its own.
        let blocks = random_blocks(1, 3);
        let mut out = [0u64; 2];
        let p = tx.push_blocks(&blocks, &mut out);
        assert_eq!(p.produced, 1);
        assert_eq!(out[0], block_to_bits(blocks[0]) as u64);
        assert_eq!(tx.pending_bits(), 2);
        // Bits held: refused, and nothing changes.
        assert!(!tx.packed_groups(1));
        assert_eq!(tx.bit_offset(), 2 * 32 * 66 + 66);
        assert_eq!(tx.pending_bits(), 2);
    }

    #[test]
    fn push_blocks_stops_before_a_block_whose_words_do_not_fit() {
        let mut tx = TxGearbox::<u64>::new();
        let blocks = random_blocks(3, 7);
        let mut out = [0u64; 1];
        // Block 0 completes one word (66 bits), block 1 two more bits short of... 132 bits:
        // completes word 1 as well, which does not fit.
        let p = tx.push_blocks(&blocks, &mut out);
        assert_eq!(
            p,
            Progress {
                consumed: 1,
                produced: 1
            }
        );
        assert_eq!(tx.pending_bits(), 2);
    }

    #[test]
    fn slip_with_no_bits_held_drops_the_next_bit_fed() {
        let mut rx = RxGearbox::<u8>::new();
        rx.slip();
        assert_eq!(rx.next_block_offset(), 1);
        let bytes = [0xffu8; 9];
        let got: Vec<RxBlock> = rx.blocks(&bytes).collect();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].bit_offset, 1);
        assert_eq!(got[0].block.sync, SyncHeader::from_bits(3));
    }

    #[test]
    fn cut_words_leaves_at_most_two_blocks_to_the_general_path() {
        // The fast path must cover the stream: from any number of bits held (after `lead`
        // words the general way), it cuts every whole block of the words but the last one or
        // two, and says which lead run of them has valid headers.
        for lead in 0..4usize {
            for n in [2usize, 3, 10, 33, 34, 35, 36, 67, 68, 100, 200] {
                let mut blocks = random_blocks(n + lead + 2, 9);
                for b in &mut blocks[..40.min(n)] {
                    b.sync = SyncHeader::DATA;
                }
                let words = serial_words(&serial_bits(&blocks), 64);
                let mut rx = RxGearbox::<u64>::new();
                for &w in &words[..lead] {
                    rx.feed(w).unwrap();
                    while rx.next_block().is_some() {}
                }
                let held = u64::from(rx.buffered_bits());
                let words = &words[lead..lead + n];
                let whole = ((held + 64 * n as u64) / 66) as usize;
                let mut out = vec![Block::IDLE; whole + 1];
                let mut known = 0;
                let p = rx.cut_words(words, &mut out, |cut, valid| {
                    known = valid;
                    cut.len()
                });
                assert!(
                    p.produced <= whole && p.produced + 2 >= whole,
                    "lead {lead}, {n} words: {} of {whole} blocks cut",
                    p.produced
                );
                let first_invalid = out[..p.produced]
                    .iter()
                    .position(|b| !b.sync.is_valid())
                    .unwrap_or(p.produced);
                assert!(known <= first_invalid, "lead {lead}, {n} words");
                if n >= 36 {
                    // A group of 32 (from 34 words) was cut: its headers are known.
                    assert!(
                        known >= 33.min(first_invalid),
                        "lead {lead}, {n} words: {known}"
                    );
                }
            }
        }
    }

    #[test]
    fn cut_words_at_every_phase_equals_feed_and_next_block() {
        // The group cut has one instance per phase (where block 1 starts in its word): every
        // phase must give the blocks that feed and next_block give, and count the valid
        // headers up to a bad one at any place in the first groups, or through all of them.
        let mut phases = [false; 64];
        for offset in 0..66u32 {
            for bad in (0..100).map(Some).chain([None]) {
                let mut blocks = random_blocks(130, u64::from(offset) + 1);
                for b in &mut blocks {
                    b.sync = SyncHeader::from_bits(1 + (b.payload & 1) as u8);
                }
                if let Some(k) = bad {
                    blocks[k].sync = SyncHeader::from_bits(3 * (k % 2) as u8);
                }
                let (words, want, _) = words_after_junk(&blocks, offset);
                // The general way until the fast path takes the words, then one call.
                let mut rx = RxGearbox::<u64>::new();
                rx.slip_bits(offset);
                let mut got = Vec::new();
                let mut rest: &[u64] = &words;
                let mut out = vec![Block::IDLE; 140];
                loop {
                    let phase = (66 - rx.buffered_bits().min(66)) & 63;
                    let before = got.len();
                    let mut known = 0;
                    let p = rx.cut_words(rest, &mut out, |cut, valid| {
                        known = valid;
                        cut.len()
                    });
                    if p.produced > 0 {
                        phases[phase as usize] = true;
                        got.extend_from_slice(&out[..p.produced]);
                        rest = &rest[p.consumed..];
                        // Blocks known valid, counted from the first one cut.
                        let first_bad = bad
                            .and_then(|k| k.checked_sub(before))
                            .unwrap_or(usize::MAX);
                        if first_bad < 97 {
                            assert_eq!(known, first_bad, "offset {offset}, bad {bad:?}");
                        } else {
                            assert!((97..=p.produced).contains(&known), "offset {offset}");
                        }
                        break;
                    }
                    if let Some(b) = rx.next_block() {
                        got.push(b.block);
                    } else {
                        let (&w, tail) = rest.split_first().unwrap();
                        rx.feed(w).unwrap();
                        rest = tail;
                    }
                }
                for &w in rest {
                    rx.feed(w).unwrap();
                    while let Some(b) = rx.next_block() {
                        got.push(b.block);
                    }
                }
                assert_eq!(got, want, "offset {offset}, bad {bad:?}");
            }
        }
        assert!(phases.iter().all(|&p| p), "phases not reached: {phases:?}");
    }

    #[test]
    fn cut_words_declines_while_a_word_waits_or_a_slip_is_owed() {
        let words = serial_words(&serial_bits(&random_blocks(80, 4)), 64);
        let mut out = [Block::IDLE; 80];
        // 65 bits held, then a word that does not fit: the accumulator fills (128 bits) and
        // one bit waits beside it.
        let mut rx = RxGearbox::<u64>::new();
        rx.feed(words[0]).unwrap();
        rx.slip_bits(63);
        rx.feed(words[1]).unwrap();
        rx.feed(words[2]).unwrap();
        assert_eq!(rx.buffered_bits(), 129);
        let p = rx.cut_words(&words[3..], &mut out, |cut, _| cut.len());
        assert_eq!(p, Progress::default());
        // A slip owed (nothing held to drop yet).
        let mut rx = RxGearbox::<u64>::new();
        rx.slip_bits(5);
        let p = rx.cut_words(&words, &mut out, |cut, _| cut.len());
        assert_eq!(p, Progress::default());
        // A whole block held.
        let mut rx = RxGearbox::<u64>::new();
        rx.feed(words[0]).unwrap();
        rx.feed(words[1]).unwrap();
        let p = rx.cut_words(&words[2..], &mut out, |cut, _| cut.len());
        assert_eq!(p, Progress::default());
    }

    #[test]
    fn buffered_bits_count_what_is_fed_and_not_yet_cut() {
        let mut rx = RxGearbox::<u32>::new();
        assert_eq!(rx.buffered_bits(), 0);
        // 128 bits fill the accumulator; the fifth word waits beside it.
        for k in 1..=5u32 {
            assert_eq!(rx.feed(0x5555_5555), Ok(()));
            assert_eq!(rx.buffered_bits(), 32 * k);
        }
        assert!(rx.next_block().is_some());
        assert_eq!(rx.buffered_bits(), 160 - 66);
        assert!(rx.next_block().is_some());
        assert_eq!(rx.buffered_bits(), 160 - 132);
        assert!(rx.next_block().is_none());
        // A slip is owed, not taken, until bits are there to drop.
        rx.slip_bits(40);
        assert_eq!(rx.feed(0), Ok(()));
        assert_eq!(rx.buffered_bits(), 28 + 32 - 40);
        // A block held, even when part of it waits beside the accumulator (128 + 64 bits).
        let mut rx = RxGearbox::<u64>::new();
        for _ in 0..3 {
            assert_eq!(rx.feed(u64::MAX), Ok(()));
        }
        assert_eq!(rx.buffered_bits(), 192);
        assert!(rx.holds_a_block());
    }

    #[test]
    fn a_slip_through_the_iterator_moves_the_blocks_one_bit() {
        // The stream with one junk bit in front: one slip before the first block realigns it.
        let blocks = random_blocks(40, 21);
        let mut bits = serial_bits(&blocks);
        bits.insert(0, true);
        let words = serial_words(&bits, 64);
        let mut rx = RxGearbox::<u64>::new();
        let mut it = rx.blocks(&words);
        it.slip();
        let got: Vec<Block> = it.map(|b| b.block).collect();
        assert_eq!(got[..39], blocks[..39]);
    }

    #[test]
    fn feed_hands_the_word_back_when_full() {
        let mut rx = RxGearbox::<u64>::new();
        assert_eq!(rx.feed(1), Ok(()));
        assert_eq!(rx.feed(2), Ok(()));
        assert_eq!(rx.feed(3), Ok(())); // 192 bits: 128 held + 64 pending
        assert_eq!(rx.feed(4), Err(4));
        assert!(rx.next_block().is_some());
        assert_eq!(rx.feed(4), Ok(()));
    }

    proptest! {
        #[test]
        fn word_packing_matches_bit_serial(blocks in prop::collection::vec(block_strategy(), 0..40)) {
            let bits = serial_bits(&blocks);
            prop_assert_eq!(pack::<u8>(&blocks).0, serial_words(&bits, 8));
            prop_assert_eq!(pack::<u16>(&blocks).0, serial_words(&bits, 16));
            prop_assert_eq!(pack::<u32>(&blocks).0, serial_words(&bits, 32));
            prop_assert_eq!(pack::<u64>(&blocks).0, serial_words(&bits, 64));
        }

        #[test]
        fn chunked_pushes_equal_one_whole_push(
            blocks in prop::collection::vec(block_strategy(), 1..30),
            offset in 0u32..=65,
            cuts in prop::collection::vec(0usize..40, 0..8),
        ) {
            let (words, _) = pack::<u16>(&blocks);
            let words: Vec<u16> = words.into_iter().map(|w| w as u16).collect();
            let mut whole_rx = RxGearbox::<u16>::new();
            whole_rx.slip_bits(offset);
            let mut whole = vec![RxBlock { block: Block::IDLE, bit_offset: 0 }; blocks.len() + 1];
            let p = whole_rx.push_words(&words, &mut whole);
            prop_assert_eq!(p.consumed, words.len());
            whole.truncate(p.produced);

            let mut rx = RxGearbox::<u16>::new();
            rx.slip_bits(offset);
            let mut chunked = Vec::new();
            let mut rest: &[u16] = &words;
            for c in cuts {
                let (a, b) = rest.split_at(c.min(rest.len()));
                chunked.extend(rx.blocks(a));
                rest = b;
            }
            chunked.extend(rx.blocks(rest));
            prop_assert_eq!(chunked, whole);
        }

        #[test]
        fn push_blocks_equals_push_block_for_every_width(blocks in prop::collection::vec(block_strategy(), 0..200), room in 3usize..100) {
            fn run<W: SerdesWord>(blocks: &[Block], room: usize) -> Vec<u64> {
                let mut tx = TxGearbox::<W>::new();
                let mut got: Vec<u64> = Vec::new();
                let mut rest: &[Block] = blocks;
                let mut buf = vec![W::default(); room];
                while !rest.is_empty() {
                    let p = tx.push_blocks(rest, &mut buf);
                    got.extend(buf[..p.produced].iter().map(|w| w.to_u64()));
                    rest = &rest[p.consumed..];
                }
                assert_eq!(tx.bit_offset(), 66 * blocks.len() as u64);
                got.extend(tx.flush().map(|p| p.word.to_u64()));
                got
            }
            prop_assert_eq!(run::<u16>(&blocks, room.max(5)), pack::<u16>(&blocks).0);
            prop_assert_eq!(run::<u32>(&blocks, room), pack::<u32>(&blocks).0);
            prop_assert_eq!(run::<u64>(&blocks, room), pack::<u64>(&blocks).0);
        }

        #[test]
        fn cut_words_matches_feed_and_next_block(
            seed in any::<u64>(),
            n in 0usize..400,
            offset in 0u32..=65,
            lead in 0usize..4,
            calls in prop::collection::vec((1usize..120, 0usize..130), 1..12),
            all_valid in any::<bool>(),
        ) {
            let mut blocks = random_blocks(n, seed);
            if all_valid {
                // Long runs of valid headers: the count known valid then spans groups.
                for b in &mut blocks {
                    b.sync = SyncHeader::from_bits(1 + (b.payload & 1) as u8);
                }
            }
            // Reference: one word and one block at a time.
            let (words, want, reference) = words_after_junk(&blocks, offset);
            // Under test: a few words the general way, then batches of `room` blocks of which
            // `accept` are kept; the general way whenever the fast path declines.
            let mut rx = RxGearbox::<u64>::new();
            rx.slip_bits(offset);
            let mut got = Vec::new();
            let mut rest: &[u64] = &words;
            let general = |rx: &mut RxGearbox<u64>, rest: &mut &[u64], got: &mut Vec<Block>| {
                if let Some(b) = rx.next_block() {
                    got.push(b.block);
                } else if let Some((&w, tail)) = rest.split_first() {
                    rx.feed(w).map_err(|_| TestCaseError::fail("full"))?;
                    *rest = tail;
                }
                Ok::<(), TestCaseError>(())
            };
            for _ in 0..lead {
                general(&mut rx, &mut rest, &mut got)?;
            }
            let mut out = vec![Block::IDLE; 200];
            for &(room, accept) in calls.iter().cycle().take(2000) {
                if rest.is_empty() {
                    break;
                }
                let mut known_ok = true;
                let p = rx.cut_words(rest, &mut out[..room], |cut, known_valid| {
                    assert!(cut.len() <= room);
                    // The blocks said to have valid headers have them.
                    known_ok = known_valid <= cut.len()
                        && cut[..known_valid].iter().all(|b| b.sync.is_valid());
                    accept.min(cut.len())
                });
                prop_assert!(known_ok);
                prop_assert!(p.produced <= accept);
                got.extend_from_slice(&out[..p.produced]);
                rest = &rest[p.consumed..];
                if p.produced == 0 {
                    general(&mut rx, &mut rest, &mut got)?;
                }
            }
            while !rest.is_empty() || rx.holds_a_block() {
                general(&mut rx, &mut rest, &mut got)?;
            }
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(rx.next_block_offset(), reference.next_block_offset());
            prop_assert_eq!(rx.buffered_bits(), reference.buffered_bits());
        }

        #[test]
        fn push_blocks_in_pieces_equals_whole(blocks in prop::collection::vec(block_strategy(), 0..30), room in 9usize..20) {
            let (want, _) = pack::<u8>(&blocks);
            let mut tx = TxGearbox::<u8>::new();
            let mut got: Vec<u64> = Vec::new();
            let mut rest: &[Block] = &blocks;
            let mut buf = vec![0u8; room];
            while !rest.is_empty() {
                let p = tx.push_blocks(rest, &mut buf);
                got.extend(buf[..p.produced].iter().map(|&b| u64::from(b)));
                rest = &rest[p.consumed..];
            }
            if let Some(last) = tx.flush() {
                got.push(u64::from(last.word));
            }
            prop_assert_eq!(got, want);
        }
    }
}
