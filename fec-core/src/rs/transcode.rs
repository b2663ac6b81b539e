//! 64B/66B to 256B/257B transcoding: four scrambled 66-bit blocks in 257 bits, and back.
//!
//! ```text
//!  t bit:   0    1    2    3    4    5 ...                                     256
//!  all data: 1 | payload 0 (64) | payload 1 | payload 2 | payload 3                 (1+256)
//!  else:     0 | f0 f1 f2 f3 | payloads; the first control block's 8-bit type field
//!                              keeps only its low nibble: payload[3:0] then payload[63:8]
//!                              (4 + 56 = 60 bits), every other block 64 bits     (5+60+192)
//!  f_k = 1 when block k is a data block, 0 when it is a control block
//!  then, always: t[4:0] ^= t[12:8]   (header whitening; the receiver undoes it first:
//!                                     t[12:8] is never changed by it)
//! ```
//!
//! The blocks are the PCS's **scrambled** blocks, so the dropped high nibble is a scrambled
//! nibble. The 15 block types of Figure 49-7 have 15 distinct low nibbles (none is 0), so
//! the receiver ([`Untranscoder`]) recovers the type: it descrambles the retained low nibble
//! with the PCS descrambler's history, looks the type up, and scrambles the type's high
//! nibble again with the same history. The history it needs is the 58 line bits before the
//! block; the untranscoder keeps its own PCS descrambler (`pcs_core`'s, state = last
//! payload >> 6 by the DESIGN.md convention) fed with every payload it outputs, so only the
//! first control block of a stream, when nothing came before it, depends on the initial
//! state (see [`Untranscoder::new`]).
//!
//! Spec: IEEE 802.3 §91.5.2.5 (transcoder), §91.5.3.5 (receive), used by §108.5.2.4.

use pcs_core::{descramble_payload, scramble_payload, Descrambler};
use pcs_core::{Block, BlockType, SyncHeader};

use super::bits;

/// Bits of a transcoded block.
///
/// Spec: IEEE 802.3 §91.5.2.5.
pub const TRANSCODED_BITS: usize = 257;

/// 66-bit blocks per transcoded block.
pub const BLOCKS_PER_TRANSCODED: usize = 4;

/// The sync header the untranscoder gives blocks it cannot rebuild (an unknown type nibble,
/// or a header claiming a control block and four data flags).
///
/// U: Clause 91's handling of a malformed 257-bit header was not read. This model gives all
/// four blocks of the malformed transcoded block this invalid header (`0b11`, the value the
/// VIP uses for error marking), so the PCS counts them as bad sync headers.
pub const MALFORMED_SYNC: SyncHeader = SyncHeader::from_bits(0b11);

/// Words a transcoded block can touch in a word stream: 257 bits from any bit of a word.
const SPAN_WORDS: usize = 6;

/// One 257-bit transcoded block, bit 0 first on the line (`t[0]` in bit 0 of word 0,
/// `t[256]` in bit 0 of word 4). Any 257-bit pattern can be held.
///
/// Spec: IEEE 802.3 §91.5.2.5.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Transcoded257 {
    words: [u64; 5],
}

impl Transcoded257 {
    /// From five words, bit 0 of word 0 first; bits above `t[256]` are dropped.
    #[must_use]
    pub const fn from_words(words: [u64; 5]) -> Self {
        let mut w = words;
        w[4] &= 1;
        Self { words: w }
    }

    /// The five words, bit 0 of word 0 first; bits above `t[256]` are zero.
    #[must_use]
    pub const fn words(&self) -> &[u64; 5] {
        &self.words
    }

    /// The `n` (0..=64) bits from `t[offset]`.
    #[must_use]
    pub fn read_bits(&self, offset: usize, n: u32) -> u64 {
        bits::read_bits(&self.words, offset, n)
    }

    /// Reads 257 bits at line bit `offset` of a word stream.
    #[inline]
    pub(crate) fn read_from(words: &[u64], offset: usize) -> Self {
        // The six words the bits can touch, checked once (the fast path: a codeword's
        // slots always have them); else word by word, reading zeros past the end.
        let w = offset / 64;
        let s = (offset % 64) as u32;
        if let Some(src) = words.get(w..).and_then(|d| d.first_chunk::<SPAN_WORDS>()) {
            let mut out = [0u64; 5];
            for (k, o) in out.iter_mut().enumerate() {
                let (lo, hi) = (src.get(k), src.get(k + 1));
                let (lo, hi) = (lo.copied().unwrap_or(0), hi.copied().unwrap_or(0));
                *o = (lo >> s) | ((hi << 1) << (63 - s));
            }
            return Self::from_words(out);
        }
        Self::from_words([
            bits::read64(words, offset),
            bits::read64(words, offset + 64),
            bits::read64(words, offset + 128),
            bits::read64(words, offset + 192),
            bits::read_bits(words, offset + 256, 1),
        ])
    }

    /// ORs the 257 bits into a word stream at line bit `offset` (a write when those bits
    /// are zero, as in a codeword being built).
    #[inline]
    pub(crate) fn or_into(&self, words: &mut [u64], offset: usize) {
        let w = offset / 64;
        let s = (offset % 64) as u32;
        // The six words the bits can touch, checked once (the fast path: a codeword's slots
        // always have them); else word by word, dropping what falls past the end.
        if let Some(dst) = words
            .get_mut(w..)
            .and_then(|d| d.first_chunk_mut::<SPAN_WORDS>())
        {
            let mut carry = 0;
            for (d, &v) in dst.iter_mut().zip(self.words.iter().chain([0].iter())) {
                *d |= carry | v << s;
                carry = (v >> 1) >> (63 - s);
            }
            return;
        }
        for (k, &v) in self.words.iter().enumerate() {
            if let Some(x) = words.get_mut(w + k) {
                *x |= v << s;
            }
            if let Some(x) = words.get_mut(w + k + 1) {
                *x |= (v >> 1) >> (63 - s);
            }
        }
    }

    /// `t[4:0] ^= t[12:8]`: applied by the transmitter after building the block and by the
    /// receiver before reading it (its own inverse: `t[12:8]` is not touched).
    ///
    /// Spec: IEEE 802.3 §91.5.2.5. Mark V*: FEC-NOTES §2.2 (the captured codeword needs it).
    #[must_use]
    pub const fn whitened(self) -> Self {
        let mut w = self.words;
        w[0] ^= (w[0] >> 8) & 0x1f;
        Self { words: w }
    }
}

/// Whether a block counts as data for the transcoder flags: header bit 1 (the second bit on
/// the line), 1 for data (`0b10`), 0 for control (`0b01`).
///
/// U: a block with an invalid header (`0b00`, `0b11`) at the transmitter is classified by
/// this same bit (`0b11` as data, `0b00` as control); the PCS never sends one.
const fn is_data(block: &Block) -> bool {
    block.sync.to_bits() & 0b10 != 0
}

/// Bit `k` set when block `k` is a data block ([`is_data`]).
#[inline(always)]
fn data_flags(blocks: &[Block; BLOCKS_PER_TRANSCODED]) -> u64 {
    blocks
        .iter()
        .enumerate()
        .fold(0u64, |f, (k, b)| f | u64::from(is_data(b)) << k)
}

/// [`data_flags`] of four data blocks.
const ALL_DATA: u64 = (1 << BLOCKS_PER_TRANSCODED) - 1;

/// Transcodes four scrambled 66-bit blocks (block 0 first on the line).
///
/// Spec: IEEE 802.3 §91.5.2.5.
#[must_use]
#[inline]
pub fn transcode(blocks: &[Block; BLOCKS_PER_TRANSCODED]) -> Transcoded257 {
    let [b0, b1, b2, b3] = blocks;
    let (p0, p1, p2, p3) = (b0.payload, b1.payload, b2.payload, b3.payload);
    let flags = data_flags(blocks);
    let words = if flags == ALL_DATA {
        [
            1 | p0 << 1,
            p0 >> 63 | p1 << 1,
            p1 >> 63 | p2 << 1,
            p2 >> 63 | p3 << 1,
            p3 >> 63,
        ]
    } else {
        transcode_control(blocks, flags)
    };
    Transcoded257 { words }.whitened()
}

/// The 257 bits (not whitened) of four blocks with a control block among them (`flags` not
/// all ones): `0`, the flags, then each block's field: 64 bits from `t[5 + 64k]` before the
/// first control block, its own 60 (the type's low nibble, payload bits 8..63) there, 64
/// bits from `t[1 + 64k]` after it. Each block's field is put at both places and the right
/// one kept, so that no branch depends on where the control block is.
#[inline(never)]
fn transcode_control(blocks: &[Block; BLOCKS_PER_TRANSCODED], flags: u64) -> [u64; 5] {
    let first = (!flags & 0xf).trailing_zeros() as usize;
    // `q`: the fields from `t[5 + 64k]` (up to the first control block), `r`: those from
    // `t[1 + 64k]` (after it).
    let mut q = [0u64; BLOCKS_PER_TRANSCODED];
    let mut r = [0u64; BLOCKS_PER_TRANSCODED];
    for (k, ((b, q), r)) in blocks.iter().zip(&mut q).zip(&mut r).enumerate() {
        let p = b.payload;
        let own = (p & 0xf) | (p >> 8) << 4;
        *q = if k < first {
            p
        } else if k == first {
            own
        } else {
            0
        };
        *r = if k > first { p } else { 0 };
    }
    let [q0, q1, q2, q3] = q;
    let [r0, r1, r2, r3] = r;
    [
        flags << 1 | q0 << 5 | r0 << 1,
        q0 >> 59 | q1 << 5 | r0 >> 63 | r1 << 1,
        q1 >> 59 | q2 << 5 | r1 >> 63 | r2 << 1,
        q2 >> 59 | q3 << 5 | r2 >> 63 | r3 << 1,
        q3 >> 59 | r3 >> 63,
    ]
}

/// The block type whose low nibble is `nibble`, as a table: `None` for nibble 0.
// Built at compile time: an index out of range would fail the build, not panic.
#[allow(clippy::indexing_slicing)]
const TYPE_BY_LOW_NIBBLE: [Option<BlockType>; 16] = {
    let mut t = [None; 16];
    let mut i = 0;
    while i < BlockType::ALL.len() {
        let ty = BlockType::ALL[i];
        t[(ty as u8 & 0xf) as usize] = Some(ty);
        i += 1;
    }
    t
};

/// How one transcoded block came back.
///
/// Spec: IEEE 802.3 §91.5.3.5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum UntranscodeStatus {
    /// Four blocks rebuilt.
    Ok,
    /// The descrambled low nibble of the first control block's type (given) is not the low
    /// nibble of any Figure 49-7 type: the four blocks carry [`MALFORMED_SYNC`].
    UnknownTypeNibble(u8),
    /// `t[0] = 0` (some control block) but all four flags say data: the four blocks carry
    /// [`MALFORMED_SYNC`].
    NoControlBlock,
}

/// The receive transcoder (257 bits back to four 66-bit blocks), with the descrambler
/// history that rebuilds the dropped type nibble.
///
/// Spec: IEEE 802.3 §91.5.3.5.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Untranscoder {
    /// The PCS descrambler fed with every scrambled payload output: its state is the last 58
    /// payload bits, bit 57 the most recent (DESIGN.md).
    history: Descrambler,
}

impl Untranscoder {
    /// An untranscoder whose history is `state`: the scrambler state (the last 58 line
    /// bits) before the first block it will output. That is exactly the transmitting PCS
    /// scrambler's seed when the stream starts at its first block. Only a first control
    /// block at position 0 of the first transcoded block depends on it; every later block
    /// uses the payloads output before it.
    #[must_use]
    pub const fn new(state: u64) -> Self {
        Self {
            history: Descrambler::new(state),
        }
    }

    /// The history: the last 58 payload bits output (or the initial state).
    #[must_use]
    pub const fn state(&self) -> u64 {
        self.history.state()
    }

    /// Rebuilds four scrambled 66-bit blocks from one transcoded block and feeds their
    /// payloads to the history. Never fails: a malformed block gives blocks with
    /// [`MALFORMED_SYNC`] and says why.
    ///
    /// Spec: IEEE 802.3 §91.5.3.5.
    #[inline(always)]
    pub fn untranscode(
        &mut self,
        t: &Transcoded257,
        out: &mut [Block; BLOCKS_PER_TRANSCODED],
    ) -> UntranscodeStatus {
        let t = t.whitened();
        let [t0, t1, t2, t3, t4] = t.words;
        let status = if t0 & 1 == 1 {
            let payloads = [
                t0 >> 1 | t1 << 63,
                t1 >> 1 | t2 << 63,
                t2 >> 1 | t3 << 63,
                t3 >> 1 | t4 << 63,
            ];
            for (b, payload) in out.iter_mut().zip(payloads) {
                *b = Block {
                    sync: SyncHeader::DATA,
                    payload,
                };
            }
            UntranscodeStatus::Ok
        } else {
            self.untranscode_control(&t, out)
        };
        if let Some(last) = out.last() {
            // The descrambler's state is the last payload's top 58 bits.
            self.history.descramble(last.payload);
        }
        status
    }

    /// [`Untranscoder::untranscode`] of the 257 bits at line bit `bit` of `words` (zeros
    /// past the end). An all-data block's four payloads are read straight from the words,
    /// each with one shift (by a constant where `bit` is one: the function is inlined; its
    /// whitened bits, `t[4:1]`, put right after); any other is read whole first.
    ///
    /// Spec: IEEE 802.3 §91.5.3.5.
    #[inline(always)]
    pub(crate) fn untranscode_at(
        &mut self,
        words: &[u64],
        bit: usize,
        out: &mut [Block; BLOCKS_PER_TRANSCODED],
    ) -> UntranscodeStatus {
        let s = (bit % 64) as u32;
        let Some(&[a0, a1, a2, a3, a4]) = words.get(bit / 64..).and_then(|w| w.first_chunk())
        else {
            return self.untranscode(&Transcoded257::read_from(words, bit), out);
        };
        // The 64 bits from `t[1 + 64k]`: `(lo >> (s + 1)) | (hi << (63 - s))`.
        let at = |lo: u64, hi: u64| (lo >> s >> 1) | ((hi << 1) << (62 - s.min(62)));
        let p0 = at(a0, a1);
        // `t[0]` whitened by `t[8]` (payload 0 bit 7): the all-data flag.
        if ((a0 >> s) ^ (p0 >> 7)) & 1 == 0 || s >= 63 {
            return self.untranscode(&Transcoded257::read_from(words, bit), out);
        }
        let payloads = [p0 ^ ((p0 >> 8) & 0xf), at(a1, a2), at(a2, a3), at(a3, a4)];
        for (b, payload) in out.iter_mut().zip(payloads) {
            *b = Block {
                sync: SyncHeader::DATA,
                payload,
            };
        }
        // The descrambler's state is the last payload's top 58 bits.
        self.history.descramble(payloads[3]);
        UntranscodeStatus::Ok
    }

    /// `t[0] = 0`: flags, then the payloads with the first control block's nibble rebuilt.
    /// Every block's field is read at both places it can start (before the first control
    /// block, from `t[5 + 64k]`; after it, 4 type bits fewer, from `t[1 + 64k]`) and the
    /// right one picked, so that no branch depends on where the control block is. (Kept out
    /// of line: [`Untranscoder::untranscode`] is inlined into the codeword loop, where most
    /// transcoded blocks are all data.)
    #[inline(never)]
    fn untranscode_control(
        &self,
        t: &Transcoded257,
        out: &mut [Block; BLOCKS_PER_TRANSCODED],
    ) -> UntranscodeStatus {
        let [t0, t1, t2, t3, t4] = t.words;
        let flags = (t0 >> 1) & 0xf;
        let first = (!flags & 0xf).trailing_zeros() as usize;
        if first >= BLOCKS_PER_TRANSCODED {
            return no_control_block(t, out);
        }
        let before = [
            t0 >> 5 | t1 << 59,
            t1 >> 5 | t2 << 59,
            t2 >> 5 | t3 << 59,
            t3 >> 5 | t4 << 59,
        ];
        let after = [
            t0 >> 1 | t1 << 63,
            t1 >> 1 | t2 << 63,
            t2 >> 1 | t3 << 63,
            t3 >> 1 | t4 << 63,
        ];
        let mut payloads = after;
        let mut own = 0;
        for (k, (p, b)) in payloads.iter_mut().zip(before).enumerate() {
            if k <= first {
                *p = b;
            }
            if k == first {
                own = b;
            }
        }
        // History before the first control block: the block before it in this transcoded
        // block (a descrambler's state is the last payload's top 58 bits), or the last
        // payload output before this one.
        let state = payloads
            .get(first.wrapping_sub(1))
            .map_or(self.history.state(), |p| p >> 6);
        // Payload bits 0..7 depend only on the history (the taps reach 39 and 58 bits back):
        // descramble the kept nibble, complete the type, scramble it again. An unknown nibble
        // goes back with a plain high nibble of 0 (on the line: the kept low nibble under the
        // keystream's high nibble).
        let nibble = descramble_payload(state, own & 0xf) & 0xf;
        let (plain, status) = match TYPE_BY_LOW_NIBBLE.get(nibble as usize).copied().flatten() {
            Some(ty) => (u64::from(ty as u8), UntranscodeStatus::Ok),
            None => (nibble, UntranscodeStatus::UnknownTypeNibble(nibble as u8)),
        };
        let rest = (own >> 4) & (u64::MAX >> 8);
        let typed = (scramble_payload(state, plain) & 0xff) | (rest << 8);
        let ok = status == UntranscodeStatus::Ok;
        for (k, (b, p)) in out.iter_mut().zip(payloads).enumerate() {
            // Header bit 1 is the data flag: 0b10 data, 0b01 control.
            let sync = if ok {
                SyncHeader::from_bits(1 + (flags >> k & 1) as u8)
            } else {
                MALFORMED_SYNC
            };
            let payload = if k == first { typed } else { p };
            *b = Block { sync, payload };
        }
        status
    }
}

/// `t[0] = 0` with four data flags: four blocks with [`MALFORMED_SYNC`], their payloads read
/// as if all data.
#[cold]
fn no_control_block(
    t: &Transcoded257,
    out: &mut [Block; BLOCKS_PER_TRANSCODED],
) -> UntranscodeStatus {
    for (k, b) in out.iter_mut().enumerate() {
        *b = Block {
            sync: MALFORMED_SYNC,
            payload: t.read_bits(1 + 64 * k, 64),
        };
    }
    UntranscodeStatus::NoControlBlock
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcs_core::Scrambler;
    use proptest::prelude::*;

    /// Appends bit fields to a 257-bit block, bit 0 first.
    #[derive(Default)]
    struct Packer {
        words: [u64; 5],
        pos: usize,
    }

    impl Packer {
        /// Appends the low `n` (1..=64) bits of `v`.
        fn push(&mut self, v: u64, n: u32) {
            bits::xor_bits(&mut self.words, self.pos, n, v);
            self.pos += n as usize;
        }
    }

    /// The field-by-field packing of four blocks with a control block among them that
    /// [`transcode_control`] replaced, kept as its reference.
    fn transcode_control_reference(
        blocks: &[Block; BLOCKS_PER_TRANSCODED],
        flags: u64,
    ) -> [u64; 5] {
        let mut packer = Packer::default();
        packer.push(flags << 1, 5);
        let mut first = true;
        for b in blocks {
            if first && !is_data(b) {
                first = false;
                packer.push(b.payload & 0xf, 4);
                packer.push(b.payload >> 8, 56);
            } else {
                packer.push(b.payload, 64);
            }
        }
        packer.words
    }

    /// Reads consecutive bit fields of a 257-bit block, bit 0 first.
    struct Unpacker {
        words: [u64; 5],
        pos: usize,
    }

    impl Unpacker {
        /// The next `n` (1..=64) bits.
        fn take(&mut self, n: usize) -> u64 {
            let v = bits::read_bits(&self.words, self.pos, n as u32);
            self.pos += n;
            v
        }
    }

    impl Untranscoder {
        /// The field-by-field untranscoding of a `t[0] = 0` block that
        /// [`Untranscoder::untranscode_control`] replaced, kept as its reference.
        fn untranscode_control_reference(
            &self,
            t: &Transcoded257,
            out: &mut [Block; BLOCKS_PER_TRANSCODED],
        ) -> UntranscodeStatus {
            let flags = t.read_bits(1, 4);
            let first = (!flags & 0xf).trailing_zeros() as usize;
            if first >= BLOCKS_PER_TRANSCODED {
                for (k, b) in out.iter_mut().enumerate() {
                    *b = Block {
                        sync: MALFORMED_SYNC,
                        payload: t.read_bits(1 + 64 * k, 64),
                    };
                }
                return UntranscodeStatus::NoControlBlock;
            }
            let mut status = UntranscodeStatus::Ok;
            let mut fields = Unpacker {
                words: t.words,
                pos: 5,
            };
            // History before the first control block: the block before it in this transcoded
            // block, or the last payload output before this one.
            let mut history = self.history;
            for (k, b) in out.iter_mut().enumerate() {
                let data = flags >> k & 1 == 1;
                let sync = if data {
                    SyncHeader::DATA
                } else {
                    SyncHeader::CONTROL
                };
                let payload = if k == first {
                    let low = fields.take(4);
                    let rest = fields.take(56);
                    // Payload bits 0..7 depend only on the history (the taps reach 39 and 58 bits
                    // back): descramble the kept nibble, complete the type, scramble it again. An
                    // unknown nibble goes back with a plain high nibble of 0 (on the line: the
                    // kept low nibble under the keystream's high nibble).
                    let nibble = descramble_payload(history.state(), low) & 0xf;
                    let plain = match TYPE_BY_LOW_NIBBLE.get(nibble as usize).copied().flatten() {
                        Some(ty) => u64::from(ty as u8),
                        None => {
                            status = UntranscodeStatus::UnknownTypeNibble(nibble as u8);
                            nibble
                        }
                    };
                    (scramble_payload(history.state(), plain) & 0xff) | (rest << 8)
                } else {
                    fields.take(64)
                };
                history.descramble(payload);
                *b = Block { sync, payload };
            }
            if status != UntranscodeStatus::Ok {
                for b in out.iter_mut() {
                    b.sync = MALFORMED_SYNC;
                }
            }
            status
        }
    }

    /// A scrambled stream of four blocks per pattern: bit k of `pattern` = block k is data.
    fn blocks_for(pattern: u8, types: [BlockType; 4], payloads: [u64; 4], seed: u64) -> [Block; 4] {
        let mut s = Scrambler::new(seed);
        let mut out = [Block::IDLE; 4];
        for k in 0..4 {
            let data = pattern >> k & 1 == 1;
            let plain = if data {
                payloads[k]
            } else {
                (payloads[k] & !0xff) | u64::from(types[k] as u8)
            };
            out[k] = Block {
                sync: if data {
                    SyncHeader::DATA
                } else {
                    SyncHeader::CONTROL
                },
                payload: s.scramble(plain),
            };
        }
        out
    }

    #[test]
    fn fifteen_block_types_have_fifteen_distinct_nonzero_low_nibbles() {
        let n = TYPE_BY_LOW_NIBBLE.iter().filter(|t| t.is_some()).count();
        assert_eq!(n, 15);
        assert_eq!(TYPE_BY_LOW_NIBBLE[0], None);
    }

    #[test]
    fn all_data_sets_t0_and_keeps_the_payloads_behind_the_whitening() {
        let blocks = [Block {
            sync: SyncHeader::DATA,
            payload: 0,
        }; 4];
        let t = transcode(&blocks);
        // t = 1 then zeros; whitening XORs t[12:8] = 0 into t[4:0].
        assert_eq!(t.words(), &[1, 0, 0, 0, 0]);
    }

    #[test]
    fn header_whitening_xors_bits_8_to_12_into_bits_0_to_4() {
        let blocks = [Block {
            sync: SyncHeader::DATA,
            payload: 0x1f << 7, // t[8..13] = payload bits 7..11
        }; 4];
        let t = transcode(&blocks);
        assert_eq!(t.read_bits(0, 5), 0b11110); // 0b00001 ^ 0b11111
        assert_eq!(t.read_bits(8, 5), 0b11111);
    }

    #[test]
    fn first_control_block_loses_its_high_type_nibble() {
        let mut blocks = [Block {
            sync: SyncHeader::DATA,
            payload: u64::MAX,
        }; 4];
        blocks[1] = Block {
            sync: SyncHeader::CONTROL,
            payload: 0xabcd_ef01_2345_675e,
        };
        let t = transcode(&blocks).whitened(); // undo the whitening to read the fields
        assert_eq!(t.read_bits(0, 5), 0b1_1010); // t0 = 0, flags 1,0,1,1
        assert_eq!(t.read_bits(5, 64), u64::MAX);
        assert_eq!(t.read_bits(69, 4), 0xe);
        assert_eq!(t.read_bits(73, 56), 0x00ab_cdef_0123_4567);
        assert_eq!(t.read_bits(129, 64), u64::MAX);
    }

    #[test]
    fn u_invalid_tx_headers_are_classified_by_header_bit_1() {
        let mut blocks = [Block {
            sync: SyncHeader::DATA,
            payload: 0,
        }; 4];
        blocks[1].sync = SyncHeader::from_bits(0b11); // counts as data
        assert_eq!(transcode(&blocks).whitened().read_bits(0, 1), 1);
        blocks[2].sync = SyncHeader::from_bits(0b00); // counts as control
        assert_eq!(transcode(&blocks).whitened().read_bits(0, 5), 0b1_0110);
    }

    #[test]
    fn a_zero_type_nibble_gives_four_malformed_blocks() {
        // Descrambled nibble 0 is no block type. With history 0 the keystream is 0.
        let mut blocks = [Block::IDLE; 4];
        blocks[0].payload = 0x10; // low nibble 0
        let t = transcode(&blocks);
        let mut rx = Untranscoder::new(0);
        let mut out = [Block::IDLE; 4];
        assert_eq!(
            rx.untranscode(&t, &mut out),
            UntranscodeStatus::UnknownTypeNibble(0)
        );
        assert!(out.iter().all(|b| b.sync == MALFORMED_SYNC));
    }

    #[test]
    fn control_header_with_four_data_flags_gives_four_malformed_blocks() {
        let t = Transcoded257::from_words([0b1_1110, 0, 0, 0, 0]).whitened();
        let mut out = [Block::IDLE; 4];
        let status = Untranscoder::new(0).untranscode(&t, &mut out);
        assert_eq!(status, UntranscodeStatus::NoControlBlock);
        assert!(out.iter().all(|b| b.sync == MALFORMED_SYNC));
    }

    #[test]
    fn round_trip_for_every_pattern_and_block_type_exhaustively() {
        for pattern in 0u8..16 {
            for (i, &ty) in BlockType::ALL.iter().enumerate() {
                // The first control block has type `ty`; later ones the next types.
                let types = [0, 1, 2, 3].map(|k| BlockType::ALL[(i + k) % 15]);
                let seed = 0x2aa_aaaa_aaaa_aaaa ^ (u64::from(pattern) << 20) ^ i as u64;
                let payloads = [0, 1, 2, 3].map(|k| (seed ^ k).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                let blocks = blocks_for(pattern, types, payloads, seed);
                let mut rx = Untranscoder::new(seed);
                let mut out = [Block::IDLE; 4];
                let t = transcode(&blocks);
                assert_eq!(t.whitened().read_bits(0, 1) == 1, pattern == 0xf);
                assert_eq!(rx.untranscode(&t, &mut out), UntranscodeStatus::Ok);
                assert_eq!(out, blocks, "pattern {pattern:04b}, type {ty:?}");
            }
        }
    }

    proptest! {
        /// Read where it lies in a word stream, at any bit, an all-data block by its
        /// payloads' own shifts: what reading it whole and untranscoding it gives (blocks,
        /// status and the history after it), also for every other kind of block.
        #[test]
        fn untranscode_at_a_bit_equals_reading_it_whole_first(
            words in prop::collection::vec(any::<u64>(), 0..9),
            bit in 0usize..320,
            data in any::<bool>(),
            state in any::<u64>(),
        ) {
            let mut words = words;
            if data && bit / 64 < words.len() {
                // Make the whitened t[0] a 1 (an all-data block) half the time.
                let t = Transcoded257::read_from(&words, bit).whitened();
                if t.words()[0] & 1 == 0 {
                    words[bit / 64] ^= 1 << (bit % 64);
                }
            }
            let (mut a, mut b) = (Untranscoder::new(state), Untranscoder::new(state));
            let (mut got, mut want) = ([Block::IDLE; 4], [Block::IDLE; 4]);
            prop_assert_eq!(
                a.untranscode_at(&words, bit, &mut got),
                b.untranscode(&Transcoded257::read_from(&words, bit), &mut want)
            );
            prop_assert_eq!(got, want);
            prop_assert_eq!(a.state(), b.state());
        }

        /// The branch-light transcoding of four blocks with a control block among them
        /// equals the field-by-field reference, wherever the control blocks are.
        #[test]
        fn control_transcoding_equals_the_field_by_field_reference(
            payloads in prop::array::uniform4(any::<u64>()),
            headers in prop::array::uniform4(0u8..4),
        ) {
            let blocks: [Block; 4] = core::array::from_fn(|k| Block {
                sync: SyncHeader::from_bits(headers[k]),
                payload: payloads[k],
            });
            let flags = data_flags(&blocks);
            prop_assume!(flags != ALL_DATA);
            prop_assert_eq!(
                transcode_control(&blocks, flags),
                transcode_control_reference(&blocks, flags)
            );
        }

        /// The branch-light untranscoding of a `t[0] = 0` block equals the field-by-field
        /// reference on any bits and any history: the first control block anywhere, a known
        /// or unknown type nibble, four data flags.
        #[test]
        fn control_untranscoding_equals_the_field_by_field_reference(
            words in prop::array::uniform5(any::<u64>()),
            state in any::<u64>(),
        ) {
            let t = Transcoded257::from_words(words);
            let u = Untranscoder::new(state);
            let mut got = [Block::IDLE; 4];
            let mut want = [Block::IDLE; 4];
            prop_assert_eq!(
                u.untranscode_control(&t, &mut got),
                u.untranscode_control_reference(&t, &mut want)
            );
            prop_assert_eq!(got, want);
        }
    }

    proptest! {
        /// `or_into` and `read_from` (six words checked at once where the stream has them,
        /// word by word near its end) equal a bit-by-bit copy, at any offset of any stream.
        #[test]
        fn or_into_and_read_from_equal_a_bit_by_bit_copy(
            t in prop::array::uniform5(any::<u64>()),
            stream in prop::collection::vec(any::<u64>(), 0..12),
            offset in 0usize..800,
        ) {
            let t = Transcoded257::from_words(t);
            let bit = |w: &[u64], b: usize| w.get(b / 64).map_or(0, |x| x >> (b % 64) & 1);
            let mut got = stream.clone();
            t.or_into(&mut got, offset);
            let mut want = stream.clone();
            for b in 0..TRANSCODED_BITS {
                let n = offset + b;
                if let Some(x) = want.get_mut(n / 64) {
                    *x |= bit(t.words(), b) << (n % 64);
                }
            }
            prop_assert_eq!(&got, &want);
            let mut read = [0u64; 5];
            for b in 0..TRANSCODED_BITS {
                read[b / 64] |= bit(&stream, offset + b) << (b % 64);
            }
            prop_assert_eq!(Transcoded257::read_from(&stream, offset), Transcoded257::from_words(read));
        }

        /// Every one of the 16 data/control patterns, with any block types: the receiver
        /// seeded with the transmitter's scrambler seed gives the four blocks back.
        #[test]
        fn round_trip_for_all_16_patterns_and_every_block_type(
            pattern in 0u8..16,
            types in prop::array::uniform4(prop::sample::select(BlockType::ALL.to_vec())),
            payloads in prop::array::uniform4(any::<u64>()),
            seed in any::<u64>(),
        ) {
            let seed = seed & pcs_core::SCRAMBLER_STATE_MASK;
            let blocks = blocks_for(pattern, types, payloads, seed);
            let mut rx = Untranscoder::new(seed);
            let mut out = [Block::IDLE; 4];
            prop_assert_eq!(rx.untranscode(&transcode(&blocks), &mut out), UntranscodeStatus::Ok);
            prop_assert_eq!(out, blocks);
            prop_assert_eq!(rx.state(), blocks[3].payload >> 6);
        }

        /// The history carries over: a stream of transcoded blocks decodes from its second
        /// transcoded block on whatever the initial state.
        #[test]
        fn history_carries_across_transcoded_blocks(
            patterns in prop::collection::vec(0u8..16, 2..8),
            seed in any::<u64>(),
            wrong in any::<u64>(),
            payload in any::<u64>(),
        ) {
            let mut s = Scrambler::new(seed);
            let mut rx = Untranscoder::new(wrong);
            for (g, &pattern) in patterns.iter().enumerate() {
                let mut blocks = [Block::IDLE; 4];
                for (k, b) in blocks.iter_mut().enumerate() {
                    let data = pattern >> k & 1 == 1;
                    let ty = BlockType::ALL[(g * 4 + k) % 15] as u64;
                    let plain = payload.rotate_left((g * 4 + k) as u32);
                    *b = if data {
                        Block { sync: SyncHeader::DATA, payload: s.scramble(plain) }
                    } else {
                        Block { sync: SyncHeader::CONTROL, payload: s.scramble(plain & !0xff | ty) }
                    };
                }
                let mut out = [Block::IDLE; 4];
                let status = rx.untranscode(&transcode(&blocks), &mut out);
                if g > 0 {
                    prop_assert_eq!(status, UntranscodeStatus::Ok);
                    prop_assert_eq!(out, blocks);
                }
            }
        }
    }
}
