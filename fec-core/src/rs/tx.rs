//! The RS-FEC transmitter: scrambled 66-bit blocks in, 5280-bit codewords out.
//!
//! ```text
//!  blocks --4--> transcode (257) --19 or 20--> message (5140) --> parity --> codeword
//!  codeword 0 of each period:  marker (257) + 19 transcoded = 76 blocks
//!  every other codeword:       20 transcoded                = 80 blocks
//! ```
//!
//! Rate: 80 blocks in one codeword leave the line rate unchanged, so each marker costs 4
//! blocks of the PCS's stream per period. The transmitter says how many blocks the codeword
//! being filled takes ([`Transmitter::blocks_in_codeword`]) and how many it still needs
//! ([`Transmitter::blocks_needed`]); the engine stalls its PCS source for 4 block times per
//! period. U: who makes room is not sourced; this is the reading of the Xilinx RS-FEC
//! `tx_cwm_flag` interface (the MAC/PCS side stalls), not the VIP's (a PCS clocked at
//! 319/320). Here the PCS stream loses nothing: the engine simply offers fewer blocks per
//! codeword time.
//!
//! Spec: IEEE 802.3 §108.5.2 (transmit function), §91.5.2.5, §91.5.2.7.

use pcs_core::Block;

use super::codeword::{Codeword, LineWords, CODEWORD_WORDS};
use super::config::{ConfigError, RsFecConfig};
use super::encode::{encode_in_place, encode_in_place_with, RemainderKernel};
use super::marker::MARKER;
use super::transcode::{transcode, Transcoded257, BLOCKS_PER_TRANSCODED, TRANSCODED_BITS};

/// Transcoded blocks per codeword message.
///
/// Spec: IEEE 802.3 §108.5.2.
pub const TRANSCODED_PER_CODEWORD: usize = 20;
/// 66-bit blocks in a codeword without the marker.
pub const BLOCKS_PER_CODEWORD: usize = TRANSCODED_PER_CODEWORD * BLOCKS_PER_TRANSCODED;
/// 66-bit blocks in a marker codeword (the marker takes one transcoded block's place).
pub const BLOCKS_PER_MARKER_CODEWORD: usize = BLOCKS_PER_CODEWORD - BLOCKS_PER_TRANSCODED;

/// The index in a marker period of the codeword after codeword `index` (`index` below
/// `period`): `(index + 1) % period` without the division it would cost every codeword.
#[inline]
pub(crate) const fn next_in_period(index: u32, period: u32) -> u32 {
    let next = index.saturating_add(1);
    if next >= period {
        0
    } else {
        next
    }
}

/// Transcodes groups of four blocks into the message from transcoded slot `first` on, then
/// computes the parity.
fn fill_and_encode(cw: &mut Codeword, first: usize, blocks: &[Block]) {
    for (g, four) in blocks.chunks_exact(BLOCKS_PER_TRANSCODED).enumerate() {
        if let Ok(four) = <&[Block; BLOCKS_PER_TRANSCODED]>::try_from(four) {
            transcode(four).or_into(cw.words_mut(), TRANSCODED_BITS * (first + g));
        }
    }
    encode_in_place(cw);
}

/// Encodes 80 scrambled blocks as one codeword without the marker.
///
/// Spec: IEEE 802.3 §108.5.2, §91.5.2.5, §91.5.2.7.
#[must_use]
pub fn encode_codeword(blocks: &[Block; BLOCKS_PER_CODEWORD]) -> Codeword {
    let mut cw = Codeword::ZERO;
    fill_and_encode(&mut cw, 0, blocks);
    cw
}

/// Encodes the codeword marker and 76 scrambled blocks as the first codeword of a period.
///
/// Spec: IEEE 802.3 §108.5.2.
#[must_use]
pub fn encode_marker_codeword(blocks: &[Block; BLOCKS_PER_MARKER_CODEWORD]) -> Codeword {
    let mut cw = Codeword::ZERO;
    MARKER.or_into(cw.words_mut(), 0);
    fill_and_encode(&mut cw, 1, blocks);
    cw
}

/// The streaming transmitter.
///
/// Spec: IEEE 802.3 §108.5.2.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Transmitter {
    /// Codewords per marker period.
    period: u32,
    /// Index in the period of the codeword being filled (0 = marker codeword).
    index: u32,
    /// Blocks waiting for a group of four.
    pending: [Block; BLOCKS_PER_TRANSCODED],
    pending_len: usize,
    /// Transcoded slots of `codeword` filled (the marker counts as one).
    slots: usize,
    /// The codeword being filled, or the last one completed when `complete`.
    codeword: Codeword,
    complete: bool,
    codewords: u64,
    kernel: RemainderKernel,
}

impl Transmitter {
    /// A transmitter whose first codeword is a marker codeword.
    ///
    /// # Errors
    ///
    /// Any [`ConfigError`] of [`RsFecConfig::validate`].
    pub fn new(config: &RsFecConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut tx = Self {
            period: config.marker_period_codewords,
            index: 0,
            pending: [Block::IDLE; BLOCKS_PER_TRANSCODED],
            pending_len: 0,
            slots: 0,
            codeword: Codeword::ZERO,
            complete: false,
            codewords: 0,
            kernel: RemainderKernel::TABLES,
        };
        tx.start_codeword();
        Ok(tx)
    }

    /// This transmitter computing the parity with `kernel` (the tables by default).
    ///
    /// Spec: IEEE 802.3 §91.5.2.7.
    #[must_use]
    pub const fn with_remainder_kernel(mut self, kernel: RemainderKernel) -> Self {
        self.kernel = kernel;
        self
    }

    fn start_codeword(&mut self) {
        self.codeword = Codeword::ZERO;
        self.complete = false;
        self.slots = 0;
        if self.index == 0 {
            MARKER.or_into(self.codeword.words_mut(), 0);
            self.slots = 1;
        }
    }

    /// Whether the codeword the next block goes into is a marker codeword.
    #[must_use]
    pub const fn is_marker_codeword(&self) -> bool {
        self.index == 0
    }

    /// Blocks the codeword the next block goes into takes in all: 76 for a marker codeword,
    /// 80 otherwise.
    #[must_use]
    pub const fn blocks_in_codeword(&self) -> usize {
        if self.is_marker_codeword() {
            BLOCKS_PER_MARKER_CODEWORD
        } else {
            BLOCKS_PER_CODEWORD
        }
    }

    /// Blocks still needed to complete the codeword the next block goes into.
    #[must_use]
    pub const fn blocks_needed(&self) -> usize {
        if self.complete {
            return self.blocks_in_codeword();
        }
        let slots = self
            .slots
            .saturating_sub(self.is_marker_codeword() as usize);
        let done = slots * BLOCKS_PER_TRANSCODED + self.pending_len;
        self.blocks_in_codeword().saturating_sub(done)
    }

    /// Index in the marker period of the codeword the next block goes into (0 = marker).
    #[must_use]
    pub const fn index_in_period(&self) -> u32 {
        self.index
    }

    /// Codewords completed so far.
    #[must_use]
    pub const fn codewords(&self) -> u64 {
        self.codewords
    }

    /// Transcodes one group of four blocks into the codeword being filled; true when that
    /// completes (and encodes) the codeword.
    fn add_group(&mut self, four: &[Block; BLOCKS_PER_TRANSCODED]) -> bool {
        if self.complete {
            self.start_codeword();
        }
        transcode(four).or_into(self.codeword.words_mut(), TRANSCODED_BITS * self.slots);
        self.slots += 1;
        if self.slots < TRANSCODED_PER_CODEWORD {
            return false;
        }
        encode_in_place_with(&mut self.codeword, self.kernel);
        self.complete = true;
        self.codewords += 1;
        self.index = next_in_period(self.index, self.period);
        true
    }

    /// Transcodes whole groups of four (no more than the codeword being filled has room for)
    /// into it from its next slot, appended a line word at a time (no word read back but
    /// the part word where they start); true when they complete (and encode) the codeword.
    /// As [`Transmitter::add_group`] group by group.
    fn add_groups(&mut self, blocks: &[Block]) -> bool {
        let mut out = WordWriter::at(self.codeword.words_mut(), TRANSCODED_BITS * self.slots);
        for group in blocks.chunks_exact(BLOCKS_PER_TRANSCODED) {
            if let Ok(four) = <&[Block; BLOCKS_PER_TRANSCODED]>::try_from(group) {
                out.put_transcoded(&transcode(four));
                self.slots += 1;
            }
        }
        out.finish();
        if self.slots < TRANSCODED_PER_CODEWORD {
            return false;
        }
        encode_in_place_with(&mut self.codeword, self.kernel);
        self.complete = true;
        self.codewords += 1;
        self.index = next_in_period(self.index, self.period);
        true
    }

    /// Takes one scrambled block; returns the codeword it completes, if it completes one.
    ///
    /// Spec: IEEE 802.3 §108.5.2.
    pub fn push(&mut self, block: Block) -> Option<&Codeword> {
        if self.complete {
            self.start_codeword();
        }
        if let Some(slot) = self.pending.get_mut(self.pending_len) {
            *slot = block;
            self.pending_len += 1;
        }
        if self.pending_len < BLOCKS_PER_TRANSCODED {
            return None;
        }
        self.pending_len = 0;
        let four = self.pending;
        self.add_group(&four).then_some(&self.codeword)
    }

    /// Takes a slice of scrambled blocks; calls `on_codeword` with each codeword completed.
    /// Same result as [`Transmitter::push`] block by block; whole groups of four go straight
    /// from the slice to the transcoder.
    ///
    /// Spec: IEEE 802.3 §108.5.2.
    pub fn push_slice(&mut self, blocks: &[Block], mut on_codeword: impl FnMut(&Codeword)) {
        let mut rest = blocks;
        while self.pending_len != 0 {
            let Some((&b, later)) = rest.split_first() else {
                return;
            };
            rest = later;
            if let Some(cw) = self.push(b) {
                on_codeword(cw);
            }
        }
        // Whole groups straight from the slice into the codeword, a line word at a time.
        while rest.len() >= BLOCKS_PER_TRANSCODED {
            if self.complete {
                self.start_codeword();
            }
            let room = TRANSCODED_PER_CODEWORD.saturating_sub(self.slots);
            let take = room.min(rest.len() / BLOCKS_PER_TRANSCODED) * BLOCKS_PER_TRANSCODED;
            let Some((groups, later)) = rest.split_at_checked(take) else {
                break;
            };
            rest = later;
            if self.add_groups(groups) {
                on_codeword(&self.codeword);
            }
        }
        for &b in rest {
            if let Some(cw) = self.push(b) {
                on_codeword(cw);
            }
        }
    }
}

/// What [`Transmitter::push_slice_to_line`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LinePush {
    /// Blocks taken.
    pub consumed: usize,
    /// Whole line words written.
    pub produced: usize,
}

impl Transmitter {
    /// Codewords that `n` more blocks complete.
    #[must_use]
    pub fn codewords_completed_by(&self, n: usize) -> usize {
        let mut need = self.blocks_needed();
        let mut index = self.index;
        let mut left = n;
        let mut done = 0;
        while left >= need {
            left -= need;
            done += 1;
            index = next_in_period(index, self.period);
            need = if index == 0 {
                BLOCKS_PER_MARKER_CODEWORD
            } else {
                BLOCKS_PER_CODEWORD
            };
        }
        done
    }

    /// Takes scrambled blocks and appends every codeword they complete to a line word stream:
    /// after `line`'s carried bits, its whole words written to `out` from its start (room for
    /// 83 words a codeword: [`Transmitter::codewords_completed_by`]). A codeword begun before
    /// is finished in the transmitter and packed by [`LineWords::push_words`]; one that
    /// begins and ends in `blocks` is transcoded straight into `out` and its parity computed
    /// where it lies there. Stops before a codeword `out` has no room for (the blocks from
    /// it are not taken); blocks that complete no codeword wait in the transmitter.
    ///
    /// The same line words as [`Transmitter::push_slice`] with [`LineWords::push_words`].
    ///
    /// Spec: IEEE 802.3 §108.5.2, §91.5.2.7.
    pub fn push_slice_to_line(
        &mut self,
        blocks: &[Block],
        line: &mut LineWords,
        out: &mut [u64],
    ) -> LinePush {
        let mut rest = blocks;
        let mut produced = 0;
        let need = self.blocks_needed();
        if need != self.blocks_in_codeword() && rest.len() >= need {
            // The codeword being filled, begun by earlier blocks.
            let (Some(room), Some((now, later))) =
                (out.first_chunk_mut(), rest.split_at_checked(need))
            else {
                return LinePush::default();
            };
            self.push_slice(now, |cw| produced = line.push_words(cw, room));
            rest = later;
        }
        while rest.len() >= self.blocks_needed() {
            let room = out
                .get_mut(produced..)
                .and_then(|o| o.first_chunk_mut::<CODEWORD_WORDS>());
            let (Some(room), Some((now, later))) =
                (room, rest.split_at_checked(self.blocks_needed()))
            else {
                break;
            };
            produced += self.encode_to_line(now, line, room);
            rest = later;
        }
        if rest.len() < self.blocks_needed() {
            // Completes no codeword.
            self.push_slice(rest, |_| {});
            rest = &[];
        }
        LinePush {
            consumed: blocks.len() - rest.len(),
            produced,
        }
    }

    /// Encodes the blocks of a whole codeword (76 or 80, none waiting in the transmitter)
    /// straight into line words: `line`'s carried bits, the marker if it is a marker
    /// codeword, the transcoded blocks, the parity of the message read where it lies; the
    /// whole words go to `room` and the part word after them back to `line`. Returns the
    /// whole words written.
    fn encode_to_line(
        &mut self,
        blocks: &[Block],
        line: &mut LineWords,
        room: &mut [u64; CODEWORD_WORDS],
    ) -> usize {
        let (carry, start) = line.pending();
        let marker = self.is_marker_codeword();
        // The message at constant shifts where the codeword starts on a word or half word
        // (always, from a packer that began on a word); else a slot at a time.
        let mut out = match start {
            0 => put_message::<0>(room, carry, marker, blocks),
            32 => put_message::<32>(room, carry, marker, blocks),
            _ => {
                let mut out = WordWriter {
                    words: room,
                    next: 0,
                    acc: carry,
                    fill: start,
                };
                if marker {
                    out.put_transcoded(&MARKER);
                }
                for group in blocks.chunks_exact(BLOCKS_PER_TRANSCODED) {
                    if let Ok(four) = <&[Block; BLOCKS_PER_TRANSCODED]>::try_from(group) {
                        out.put_transcoded(&transcode(four));
                    }
                }
                out
            }
        };
        out.store_part();
        let p = self
            .kernel
            .message_remainder_at(out.words.as_slice(), start as usize);
        out.put(p[0], 64);
        out.put(p[1], 64);
        out.put(p[2] & 0xfff, 12);
        *line = LineWords::with_pending(out.acc, out.fill);
        // The transmitter's own codeword is not the one just made: marked complete, it is
        // started afresh by the next block.
        self.complete = true;
        self.codewords += 1;
        self.index = next_in_period(self.index, self.period);
        out.next
    }
}

/// The 20 transcoded slots of a codeword's message (the marker in slot 0 of a marker
/// codeword, then the groups of four of `blocks`) written to `room` from line bit `START`,
/// after the `START` bits of `carry`: each slot written out ([`put_slot`]) at its constant
/// word and shift. Returns the writer after the message, its part word not yet stored.
#[inline(always)]
fn put_message<'a, const START: usize>(
    room: &'a mut [u64; CODEWORD_WORDS],
    carry: u64,
    marker: bool,
    blocks: &[Block],
) -> WordWriter<'a> {
    let first = usize::from(marker);
    let mut acc = carry;
    macro_rules! slots {
        ($($slot:literal)*) => {
            $(acc = put_slot::<START, $slot>(room, acc, &slot_value::<$slot>(first, blocks));)*
        };
    }
    slots!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
    const _: () = assert!(TRANSCODED_PER_CODEWORD == 20, "one slot a line above");
    let end = START + TRANSCODED_BITS * TRANSCODED_PER_CODEWORD;
    WordWriter {
        words: room,
        next: end / 64,
        acc,
        fill: (end % 64) as u32,
    }
}

/// The transcoded block of slot `SLOT`: the marker in slot 0 when `first` is 1, else group
/// `SLOT - first` of `blocks` (zeros past their end).
#[inline(always)]
fn slot_value<const SLOT: usize>(first: usize, blocks: &[Block]) -> Transcoded257 {
    let Some(group) = SLOT.checked_sub(first) else {
        return MARKER;
    };
    blocks
        .get(BLOCKS_PER_TRANSCODED * group..)
        .and_then(|b| b.first_chunk::<BLOCKS_PER_TRANSCODED>())
        .map(transcode)
        .unwrap_or_default()
}

/// Slot `SLOT`'s 257 bits at line bit `START + 257 SLOT` of `room`: its first four words,
/// the bits of `acc` (the part word before them) under the first, stored; returns the part
/// word after them (the last bits of the fourth word and `t[256]`).
#[inline(always)]
fn put_slot<const START: usize, const SLOT: usize>(
    room: &mut [u64; CODEWORD_WORDS],
    acc: u64,
    t: &Transcoded257,
) -> u64 {
    let bit = START + TRANSCODED_BITS * SLOT;
    let s = (bit % 64) as u32;
    let [t0, t1, t2, t3, t4] = *t.words();
    // The bits of `v` above the `64 - s` that fit in its word (none when `s` is 0).
    let above = |v: u64| (v >> 1) >> (63 - s);
    if let Some(dst) = room
        .get_mut(bit / 64..)
        .and_then(|d| d.first_chunk_mut::<4>())
    {
        *dst = [
            acc | t0 << s,
            above(t0) | t1 << s,
            above(t1) | t2 << s,
            above(t2) | t3 << s,
        ];
    }
    above(t3) | t4 << s
}

/// Appends transcoded blocks to a codeword being filled (zero from where they start), a
/// whole word at a time.
struct WordWriter<'a> {
    words: &'a mut [u64; CODEWORD_WORDS],
    /// The word the next whole word goes to.
    next: usize,
    /// Bits not yet stored, from bit 0.
    acc: u64,
    /// How many (0..64).
    fill: u32,
}

impl<'a> WordWriter<'a> {
    /// A writer that appends from bit `offset`, the bits before it kept.
    fn at(words: &'a mut [u64; CODEWORD_WORDS], offset: usize) -> Self {
        let next = offset / 64;
        let fill = (offset % 64) as u32;
        let acc = words.get(next).copied().unwrap_or(0) & !(u64::MAX << fill);
        Self {
            words,
            next,
            acc,
            fill,
        }
    }

    /// Appends the low `n` (1..=64) bits of `v`, whose bits above them are zero.
    #[inline(always)]
    fn put(&mut self, v: u64, n: u32) {
        self.acc |= v << self.fill;
        let total = self.fill + n;
        if total >= 64 {
            if let Some(w) = self.words.get_mut(self.next) {
                *w = self.acc;
            }
            self.next += 1;
            // The bits of `v` not stored: `v >> (64 - fill)`, none when `fill` is 0.
            self.acc = (v >> 1) >> (63 - self.fill);
            self.fill = total - 64;
        } else {
            self.fill = total;
        }
    }

    /// Appends the 257 bits of a transcoded block: its four whole words stored at once (one
    /// bounds check; the part word kept in `acc` before them goes out with the first), then
    /// its last bit.
    #[inline(always)]
    fn put_transcoded(&mut self, t: &Transcoded257) {
        let [w0, w1, w2, w3, w4] = *t.words();
        let f = self.fill;
        // The bits of `v` above the `64 - f` that fit in the word being filled.
        let above = |v: u64| (v >> 1) >> (63 - f);
        let acc = self.acc;
        if let Some(dst) = self
            .words
            .get_mut(self.next..)
            .and_then(|d| d.first_chunk_mut::<4>())
        {
            *dst = [
                acc | w0 << f,
                above(w0) | w1 << f,
                above(w1) | w2 << f,
                above(w2) | w3 << f,
            ];
            self.next += 4;
            self.acc = above(w3);
            self.put(w4, 1);
            return;
        }
        self.put(w0, 64);
        self.put(w1, 64);
        self.put(w2, 64);
        self.put(w3, 64);
        self.put(w4, 1);
    }

    /// Stores the part word (its bits not yet filled zero) where the next whole word goes,
    /// and keeps it: more may be appended.
    fn store_part(&mut self) {
        if let Some(w) = self.words.get_mut(self.next) {
            *w = self.acc;
        }
    }

    /// Stores the last part word (the words after it are still zero).
    fn finish(self) {
        if let Some(w) = self.words.get_mut(self.next) {
            *w = self.acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rs::decode::{decode, CorrectionMode, DecodeOutcome};
    use crate::rs::marker::marker_mismatch_bits;
    use crate::rs::transcode::Transcoded257;
    use crate::vectors::cl108_vip;
    use pcs_core::SyncHeader;

    fn blocks(n: usize, salt: u64) -> Vec<Block> {
        (0..n as u64)
            .map(|i| Block {
                sync: if (i ^ salt) % 3 == 0 {
                    SyncHeader::CONTROL
                } else {
                    SyncHeader::DATA
                },
                payload: (i + salt).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            })
            .collect()
    }

    #[test]
    fn captured_vip_codeword_is_reproduced_bit_for_bit() {
        let (blocks, want) = cl108_vip();
        let cw = encode_codeword(&blocks);
        let diff: Vec<usize> = (0..5280).filter(|&b| cw.bit(b) != want.bit(b)).collect();
        assert_eq!(diff, Vec::<usize>::new(), "differing line bits");
        assert_eq!(cw, want);
    }

    #[test]
    fn marker_codeword_is_marker_then_19_transcoded_then_parity() {
        let b = blocks(76, 5);
        let cw = encode_marker_codeword(&b.clone().try_into().unwrap());
        assert_eq!(marker_mismatch_bits(cw.words(), 0), 0);
        assert_eq!(Transcoded257::read_from(cw.words(), 0), MARKER);
        for g in 0..19 {
            let four: [Block; 4] = b[4 * g..4 * g + 4].try_into().unwrap();
            assert_eq!(
                Transcoded257::read_from(cw.words(), 257 * (g + 1)),
                transcode(&four)
            );
        }
        let mut c = cw.clone();
        assert_eq!(
            decode(&mut c, CorrectionMode::Correct),
            DecodeOutcome::Clean
        );
    }

    #[test]
    fn transmitter_puts_the_marker_in_codeword_0_of_every_period() {
        let config = RsFecConfig {
            marker_period_codewords: 3,
            ..RsFecConfig::IEEE
        };
        let mut tx = Transmitter::new(&config).unwrap();
        let stream = blocks(76 + 80 + 80 + 76 + 80, 1);
        let mut sizes = Vec::new();
        let mut cws = Vec::new();
        let mut fed = 0;
        while fed < stream.len() {
            let n = tx.blocks_needed();
            sizes.push((tx.index_in_period(), n));
            tx.push_slice(&stream[fed..fed + n], |cw| cws.push(cw.clone()));
            fed += n;
        }
        assert_eq!(sizes, [(0, 76), (1, 80), (2, 80), (0, 76), (1, 80)]);
        assert_eq!(cws.len(), 5);
        assert_eq!(
            cws[0],
            encode_marker_codeword(&stream[..76].try_into().unwrap())
        );
        assert_eq!(
            cws[1],
            encode_codeword(&stream[76..156].try_into().unwrap())
        );
        assert_eq!(
            cws[3],
            encode_marker_codeword(&stream[236..312].try_into().unwrap())
        );
        assert_eq!(tx.codewords(), 5);
    }

    #[test]
    fn push_slice_in_any_pieces_equals_push_block_by_block() {
        let config = RsFecConfig {
            marker_period_codewords: 2,
            ..RsFecConfig::IEEE
        };
        let stream = blocks(3 * 156 + 17, 3);
        let mut one = Transmitter::new(&config).unwrap();
        let want: Vec<Codeword> = stream
            .iter()
            .filter_map(|&b| one.push(b).cloned())
            .collect();
        for piece in [1, 3, 5, 7, 80, 81, 200] {
            let mut tx = Transmitter::new(&config).unwrap();
            let mut got = Vec::new();
            for p in stream.chunks(piece) {
                tx.push_slice(p, |cw| got.push(cw.clone()));
            }
            assert_eq!(got, want, "pieces of {piece}");
            assert_eq!(tx.blocks_needed(), one.blocks_needed());
        }
    }

    /// The line words of `push_slice` packed by `LineWords::push_words`.
    fn packed(tx: &mut Transmitter, line: &mut LineWords, blocks: &[Block], out: &mut Vec<u64>) {
        let mut room = [0u64; CODEWORD_WORDS];
        tx.push_slice(blocks, |cw| {
            let n = line.push_words(cw, &mut room);
            out.extend_from_slice(&room[..n]);
        });
    }

    /// Codewords transcoded straight into the line words (and those begun in an earlier
    /// piece, finished in the transmitter) give the line words of `push_slice` packed by
    /// `push_words`, in any pieces, with the same carried bits and blocks waiting; with too
    /// little room it stops before the codeword it has no room for.
    #[test]
    fn push_slice_to_line_in_any_pieces_equals_push_slice_packed() {
        let config = RsFecConfig {
            marker_period_codewords: 3,
            ..RsFecConfig::IEEE
        };
        let stream = blocks(7 * 236 + 41, 11);
        let mut one = Transmitter::new(&config).unwrap();
        let mut one_line = LineWords::new();
        let mut want = Vec::new();
        packed(&mut one, &mut one_line, &stream, &mut want);
        for piece in [1, 4, 75, 76, 80, 81, 157, 300, 2000] {
            let mut tx = Transmitter::new(&config).unwrap();
            let mut line = LineWords::new();
            let mut got = Vec::new();
            for p in stream.chunks(piece) {
                let at = got.len();
                got.resize(at + tx.codewords_completed_by(p.len()) * CODEWORD_WORDS, 0);
                let done = tx.push_slice_to_line(p, &mut line, &mut got[at..]);
                assert_eq!(done.consumed, p.len(), "pieces of {piece}");
                got.truncate(at + done.produced);
            }
            assert_eq!(got, want, "pieces of {piece}");
            assert_eq!(line, one_line, "pieces of {piece}");
            assert_eq!(tx.blocks_needed(), one.blocks_needed(), "pieces of {piece}");
            assert_eq!(tx.codewords(), one.codewords(), "pieces of {piece}");
        }
        // Room for two codewords: it takes the blocks of two and no more.
        let mut tx = Transmitter::new(&config).unwrap();
        let mut line = LineWords::new();
        let mut out = vec![0u64; 2 * CODEWORD_WORDS];
        let done = tx.push_slice_to_line(&stream, &mut line, &mut out);
        assert_eq!(done.consumed, 76 + 80);
        assert_eq!(&out[..done.produced], &want[..done.produced]);
        let mut rest = Vec::new();
        packed(&mut tx, &mut line, &stream[done.consumed..], &mut rest);
        out.truncate(done.produced);
        out.extend(rest);
        assert_eq!(out, want);
    }

    #[test]
    fn blocks_needed_counts_down_one_per_block() {
        let mut tx = Transmitter::new(&RsFecConfig::IEEE).unwrap();
        for (i, b) in blocks(76, 9).into_iter().enumerate() {
            assert_eq!(tx.blocks_needed(), 76 - i);
            let done = tx.push(b).is_some();
            assert_eq!(done, i == 75);
        }
        assert_eq!(tx.blocks_needed(), 80);
        assert!(!tx.is_marker_codeword());
    }
}
