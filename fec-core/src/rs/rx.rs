//! The RS-FEC receiver: line bits in, codeword lock, RS decoding, 257b→66b, error
//! indication, hi_ser, counters; scrambled 66-bit blocks and per-codeword reports out.
//!
//! ```text
//!  line bits ─> Receiver ─ lock (marker search at every bit, confirm, keep) ─┐
//!                 ┌──────────────────────────────────────────────────────────┘
//!                 └> CodewordDecoder: RS decode ─> untranscode (19 or 20 x 4 blocks)
//!                                     ─> error marking / hi_ser ─> counters ─> blocks
//! ```
//!
//! [`CodewordDecoder`] works on codewords whose boundaries are known (the engine may use it
//! alone); [`Receiver`] finds the boundaries in a bit stream that may start at any bit. Both
//! are streaming, allocation-free: the receiver holds one codeword of line bits (86 words)
//! and hands each decoded codeword's blocks (76 or 80) to the caller's closure as a slice.
//!
//! Error indication: a codeword the decoder leaves with errors (uncorrectable, or any
//! errored codeword when correction is bypassed) gets its blocks' sync headers set to
//! [`ERROR_SYNC`] as [`ErrorMarking`] says, unless indication is bypassed (1.200.1). With
//! indication bypassed, hi_ser marks every codeword for `hi_ser_corrupt_codewords`
//! codewords (60 ms at 25G) from the codeword that tripped it, so that the PCS sees a high
//! BER.
//!
//! Spec: IEEE 802.3 §108.5.3 (receive function), §91.5.3.3 (decoder, error indication,
//! hi_ser), §91.5.3.5.

use pcs_core::{Block, SyncHeader};

use super::bits;
use super::codeword::{Codeword, CODEWORD_BITS, CODEWORD_WORDS, MESSAGE_BITS};
use super::config::{ConfigError, ErrorMarking, RsFecConfig};
use super::decode::{decode_with, CorrectionMode, DecodeOutcome};
use super::encode::RemainderKernel;
use super::lock::{CodewordLock, LockState, LockTransition};
use super::marker::{marker_mismatch_bits, MARKER, MARKER_COMPARED_BITS};
use super::ser::SerMonitor;
use super::status::{LiveStatus, RsFecCounters, RsFecStatus};
use super::transcode::{UntranscodeStatus, Untranscoder, BLOCKS_PER_TRANSCODED, TRANSCODED_BITS};
use super::tx::{
    next_in_period, BLOCKS_PER_CODEWORD, BLOCKS_PER_MARKER_CODEWORD, TRANSCODED_PER_CODEWORD,
};

/// The sync header error indication gives a block.
///
/// U: "sync headers ... are deliberately invalidated" (Intel 683723) is V; the value `0b11`
/// is the VIP's.
pub const ERROR_SYNC: SyncHeader = SyncHeader::from_bits(0b11);

/// What happened to one codeword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CodewordReport {
    /// The decoder's result.
    pub outcome: DecodeOutcome,
    /// A marker codeword (76 blocks) or not (80).
    pub is_marker: bool,
    /// Symbol errors counted for this codeword (1.210 and hi_ser).
    pub symbol_errors: u32,
    /// Sync headers were invalidated (error indication or the hi_ser period).
    pub marked: bool,
    /// hi_ser after this codeword.
    pub hi_ser: bool,
    /// Transcoded blocks that could not be rebuilt (their blocks carry an invalid header).
    pub malformed_transcoded: u8,
}

impl CodewordReport {
    /// Number of blocks the codeword gave (76 or 80).
    #[must_use]
    pub const fn blocks(&self) -> usize {
        if self.is_marker {
            BLOCKS_PER_MARKER_CODEWORD
        } else {
            BLOCKS_PER_CODEWORD
        }
    }
}

/// Decodes aligned codewords to blocks, with error indication, hi_ser and counters.
///
/// Spec: IEEE 802.3 §108.5.3, §91.5.3.3.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CodewordDecoder {
    config: RsFecConfig,
    untranscoder: Untranscoder,
    ser: SerMonitor,
    /// Codewords still to mark because of hi_ser (indication bypassed).
    corrupt_left: u32,
    status: RsFecStatus,
    kernel: RemainderKernel,
}

impl CodewordDecoder {
    /// A decoder with the untranscoder seeded from `config.initial_descrambler_state`.
    ///
    /// # Errors
    ///
    /// Any [`ConfigError`] of [`RsFecConfig::validate`].
    pub const fn new(config: &RsFecConfig) -> Result<Self, ConfigError> {
        if let Err(e) = config.validate() {
            return Err(e);
        }
        Ok(Self {
            config: *config,
            untranscoder: Untranscoder::new(config.initial_descrambler_state),
            ser: SerMonitor::new(),
            corrupt_left: 0,
            status: RsFecStatus::new(),
            kernel: RemainderKernel::TABLES,
        })
    }

    /// This decoder checking codewords with `kernel` (the tables by default).
    ///
    /// Spec: IEEE 802.3 §91.5.3.3.
    #[must_use]
    pub const fn with_remainder_kernel(mut self, kernel: RemainderKernel) -> Self {
        self.kernel = kernel;
        self
    }

    /// The configuration.
    #[must_use]
    pub const fn config(&self) -> &RsFecConfig {
        &self.config
    }

    /// The untranscoder (its descrambler history).
    #[must_use]
    pub const fn untranscoder(&self) -> &Untranscoder {
        &self.untranscoder
    }

    /// `hi_ser` now.
    #[must_use]
    pub const fn hi_ser(&self) -> bool {
        self.ser.hi_ser()
    }

    /// The counters, without reading (clearing) them.
    #[must_use]
    pub const fn counters(&self) -> RsFecCounters {
        self.status.counters()
    }

    /// Reads MDIO register 1.`reg` (1.200–1.211), `aligned` being the receiver's lock.
    /// `None` for other addresses.
    ///
    /// Spec: Clause 45 registers 1.200–1.211.
    pub fn read_register(&mut self, reg: u16, aligned: bool) -> Option<u16> {
        let live = LiveStatus {
            control: self.config.control_register(),
            aligned,
            hi_ser: self.ser.hi_ser(),
        };
        self.status.read(reg, live)
    }

    fn mode(&self) -> CorrectionMode {
        if self.config.bypass_correction {
            CorrectionMode::Bypass
        } else {
            CorrectionMode::Correct
        }
    }

    /// Rebuilds the codeword's blocks into `out` (76 for a marker codeword, then 80);
    /// returns how many transcoded blocks were malformed. The 20 slots are written out one
    /// by one ([`CodewordDecoder::untranscode_slot`]), so that each reads its 257 bits at a
    /// constant offset (shifts by constants, not by a register).
    fn untranscode(
        &mut self,
        words: &[u64; CODEWORD_WORDS],
        is_marker: bool,
        out: &mut [Block; BLOCKS_PER_CODEWORD],
    ) -> u8 {
        let first = usize::from(is_marker);
        let mut malformed = 0;
        macro_rules! slots {
            ($($slot:literal)*) => {
                $(malformed += self.untranscode_slot::<$slot>(words, first, out);)*
            };
        }
        slots!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
        const _: () = assert!(TRANSCODED_PER_CODEWORD == 20, "one slot a line above");
        malformed
    }

    /// Transcoded slot `SLOT` of the codeword into its four blocks of `out` (none before
    /// slot `first`: the marker's); 1 when it was malformed.
    #[inline(always)]
    fn untranscode_slot<const SLOT: usize>(
        &mut self,
        words: &[u64; CODEWORD_WORDS],
        first: usize,
        out: &mut [Block; BLOCKS_PER_CODEWORD],
    ) -> u8 {
        let Some(at) = SLOT.checked_sub(first) else {
            return 0;
        };
        let four = out
            .get_mut(BLOCKS_PER_TRANSCODED * at..)
            .and_then(|o| o.first_chunk_mut::<BLOCKS_PER_TRANSCODED>());
        let Some(four) = four else {
            return 0;
        };
        // (A constant: the shifts below are by constants.)
        let status = self
            .untranscoder
            .untranscode_at(words, TRANSCODED_BITS * SLOT, four);
        u8::from(status != UntranscodeStatus::Ok)
    }

    /// Decodes one aligned codeword: corrects `codeword` in place (unless bypassed), writes
    /// its 76 or 80 scrambled blocks to the front of `out`, marks them if the decoder
    /// indicates an error, updates hi_ser and the counters.
    ///
    /// Spec: IEEE 802.3 §108.5.3, §91.5.3.3.
    pub fn decode(
        &mut self,
        codeword: &mut Codeword,
        is_marker: bool,
        out: &mut [Block; BLOCKS_PER_CODEWORD],
    ) -> CodewordReport {
        let outcome = decode_with(codeword, self.mode(), self.kernel);
        self.decoded(codeword.words(), outcome, is_marker, out)
    }

    /// [`CodewordDecoder::decode`] of the codeword in line bits `0..5280` of `words` (the
    /// bits after them are not read) when it is a codeword, read where it lies: `None`, and
    /// nothing done, when it is not (decode a copy of it with [`CodewordDecoder::decode`]).
    ///
    /// Spec: IEEE 802.3 §108.5.3, §91.5.3.3.
    pub fn decode_if_clean(
        &mut self,
        words: &[u64; CODEWORD_WORDS],
        is_marker: bool,
        out: &mut [Block; BLOCKS_PER_CODEWORD],
    ) -> Option<CodewordReport> {
        let p = self.kernel.message_remainder(words);
        let clean = p[0] == bits::read64(words, MESSAGE_BITS)
            && p[1] == bits::read64(words, MESSAGE_BITS + 64)
            && p[2] == bits::read_bits(words, MESSAGE_BITS + 128, 12);
        clean.then(|| self.decoded(words, DecodeOutcome::Clean, is_marker, out))
    }

    /// The rest of [`CodewordDecoder::decode`] once the RS decoder said `outcome` and left
    /// the codeword's line bits in `words`.
    fn decoded(
        &mut self,
        words: &[u64; CODEWORD_WORDS],
        outcome: DecodeOutcome,
        is_marker: bool,
        out: &mut [Block; BLOCKS_PER_CODEWORD],
    ) -> CodewordReport {
        let symbol_errors = match outcome {
            DecodeOutcome::Clean => 0,
            DecodeOutcome::Corrected(p) | DecodeOutcome::NotCorrected(p) => u32::from(p.symbols()),
            DecodeOutcome::Uncorrectable => u32::from(self.config.uncorrectable_symbol_errors),
        };
        if self.ser.record(symbol_errors) && self.config.bypass_indication {
            self.corrupt_left = self.config.hi_ser_corrupt_codewords;
        }
        let malformed = self.untranscode(words, is_marker, out);
        let marked = if self.config.bypass_indication {
            let m = self.corrupt_left > 0;
            self.corrupt_left = self.corrupt_left.saturating_sub(1);
            m
        } else {
            outcome.has_errors_left()
        };
        let report = CodewordReport {
            outcome,
            is_marker,
            symbol_errors,
            marked,
            hi_ser: self.ser.hi_ser(),
            malformed_transcoded: malformed,
        };
        if marked {
            let blocks = out.iter_mut().take(report.blocks());
            match self.config.error_marking {
                ErrorMarking::AllBlocks => blocks.for_each(|b| b.sync = ERROR_SYNC),
                ErrorMarking::FirstOfEachTranscoded => {
                    blocks
                        .step_by(BLOCKS_PER_TRANSCODED)
                        .for_each(|b| b.sync = ERROR_SYNC);
                }
            }
        }
        self.status.record(&outcome, symbol_errors, report.hi_ser);
        report
    }

    /// Decodes and untranscodes a codeword only to feed the descrambler history (while
    /// confirming lock: the codeword before the marker); no counters, no hi_ser.
    fn learn_history(&mut self, codeword: &mut Codeword, is_marker: bool) {
        let _ = decode_with(codeword, self.mode(), self.kernel);
        let mut scratch = [Block::IDLE; BLOCKS_PER_CODEWORD];
        let _ = self.untranscode(codeword.words(), is_marker, &mut scratch);
    }
}

/// The little-endian word of up to 8 octets (the first octet's bit 0 first on the line).
#[inline(always)]
fn le_word(octets: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    for (d, s) in a.iter_mut().zip(octets) {
        *d = *s;
    }
    u64::from_le_bytes(a)
}

/// The codeword at bit 0 of a receiver's line buffer.
fn codeword_at_head(buf: &[u64; BUF_WORDS]) -> Codeword {
    Codeword::from_words(buf.first_chunk().copied().unwrap_or([0; CODEWORD_WORDS]))
}

/// Where [`Receiver::push_bytes_into`] decodes blocks: `out` from `written` on.
struct Dest<'o> {
    out: &'o mut [Block],
    written: usize,
}

impl Dest<'_> {
    /// Nowhere: every codeword's blocks go to the receiver's own buffer.
    fn none() -> Self {
        Dest {
            out: &mut [],
            written: 0,
        }
    }
}

/// What the receiver reports. Bit positions count line bits from the first bit pushed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RxEvent<'a> {
    /// The search found a marker starting at `bit`.
    MarkerFound {
        /// First bit of the marker codeword.
        bit: u64,
    },
    /// Lock acquired on the marker codeword starting at `bit`.
    LockAcquired {
        /// First bit of the marker codeword.
        bit: u64,
    },
    /// While confirming, the marker expected at `bit` was not there: back to the search.
    ConfirmFailed {
        /// Where the marker was expected.
        bit: u64,
    },
    /// Lock lost at the (bad) marker expected at `bit`: back to the search.
    LockLost {
        /// Where the marker was expected.
        bit: u64,
    },
    /// One codeword decoded (only while locked).
    Codeword {
        /// First bit of the codeword.
        bit: u64,
        /// Index in the marker period (0 = marker codeword).
        index_in_period: u32,
        /// For a marker codeword, the AM bits that differed from the marker.
        marker_mismatch_bits: Option<u32>,
        /// The decoder's report.
        report: CodewordReport,
        /// The 76 or 80 scrambled blocks, in line order.
        blocks: &'a [Block],
    },
}

/// The most marker bits that may differ where the search still asks the RS decoder whether
/// the codeword there carries the marker: 7 correctable symbols of 10 bits (U: a search rule of
/// this model's; a random place matches this well about once in 2^39 tries).
pub const SEARCH_MISMATCH_BITS: u32 = 70;

/// The most AM0 bits (the marker's first 64) that may differ at a place the search looks at
/// further.
const SEARCH_AM0_MISMATCH_BITS: u32 = 40;

/// Words of the receiver's line buffer: one codeword plus an input word, with room.
const BUF_WORDS: usize = CODEWORD_WORDS + 3;

/// The streaming receiver.
///
/// Spec: IEEE 802.3 §108.5.3.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Receiver {
    decoder: CodewordDecoder,
    lock: CodewordLock,
    /// Line bits not yet consumed; buffer bit 0 is stream bit `consumed`.
    buf: [u64; BUF_WORDS],
    fill: usize,
    consumed: u64,
    /// Aligned: index in the period of the codeword at buffer bit 0.
    index: u32,
    /// The codeword at buffer bit 0 is the marker the search just found.
    just_found: bool,
    blocks: [Block; BLOCKS_PER_CODEWORD],
}

impl Receiver {
    /// A receiver searching for the marker.
    ///
    /// # Errors
    ///
    /// Any [`ConfigError`] of [`RsFecConfig::validate`].
    pub const fn new(config: &RsFecConfig) -> Result<Self, ConfigError> {
        let decoder = match CodewordDecoder::new(config) {
            Ok(d) => d,
            Err(e) => return Err(e),
        };
        Ok(Self {
            decoder,
            lock: CodewordLock::new(config.lock_markers, config.unlock_bad_markers),
            buf: [0; BUF_WORDS],
            fill: 0,
            consumed: 0,
            index: 0,
            just_found: false,
            blocks: [Block::IDLE; BLOCKS_PER_CODEWORD],
        })
    }

    /// This receiver checking codewords with `kernel` (the tables by default).
    ///
    /// Spec: IEEE 802.3 §91.5.3.3.
    #[must_use]
    pub const fn with_remainder_kernel(mut self, kernel: RemainderKernel) -> Self {
        self.decoder.kernel = kernel;
        self
    }

    /// The lock state.
    #[must_use]
    pub const fn lock_state(&self) -> LockState {
        self.lock.state()
    }

    /// Whether locked (FEC align status, 1.201.14).
    #[must_use]
    pub const fn is_locked(&self) -> bool {
        self.lock.is_locked()
    }

    /// The codeword decoder (counters, hi_ser, history).
    #[must_use]
    pub const fn decoder(&self) -> &CodewordDecoder {
        &self.decoder
    }

    /// The counters, without reading (clearing) them.
    #[must_use]
    pub const fn counters(&self) -> RsFecCounters {
        self.decoder.counters()
    }

    /// Line bits pushed so far.
    #[must_use]
    pub const fn bits_received(&self) -> u64 {
        self.consumed + self.fill as u64
    }

    /// Reads MDIO register 1.`reg` (1.200–1.211); `None` for other addresses.
    ///
    /// Spec: Clause 45 registers 1.200–1.211.
    pub fn read_register(&mut self, reg: u16) -> Option<u16> {
        let aligned = self.lock.is_locked();
        self.decoder.read_register(reg, aligned)
    }

    /// Pushes line octets (bit 0 of octet 0 first, the `.bits` convention): whole words of
    /// them straight into the line buffer, as [`Receiver::push_words`] takes words.
    pub fn push_bytes(&mut self, bytes: &[u8], on_event: impl FnMut(RxEvent<'_>)) {
        let _ = self.push_bytes_into(bytes, &mut [], on_event);
    }

    /// [`Receiver::push_bytes`], the blocks of each codeword decoded while locked written
    /// straight to `out`, one codeword after another from its start, while it has room for
    /// all of them (each [`RxEvent::Codeword`]'s `blocks` then lie there; once it has none,
    /// they come from the receiver's own buffer, as without `out`). Returns how many blocks
    /// it wrote to `out`.
    pub fn push_bytes_into(
        &mut self,
        bytes: &[u8],
        out: &mut [Block],
        mut on_event: impl FnMut(RxEvent<'_>),
    ) -> usize {
        let mut dest = Dest { out, written: 0 };
        let mut rest = bytes;
        while rest.len() >= 8 {
            let take = self.words_to_take(rest.len() / 8);
            let Some((now, later)) = rest.split_at_checked(8 * take).filter(|_| take > 0) else {
                // Not reached (see `push_words`).
                let Some((word, later)) = rest.split_first_chunk::<8>() else {
                    break;
                };
                self.put_bits(u64::from_le_bytes(*word), 64);
                self.process(&mut on_event, &mut dest);
                rest = later;
                continue;
            };
            self.append_octets(now);
            rest = later;
            self.process(&mut on_event, &mut dest);
        }
        for &b in rest {
            self.put_bits(u64::from(b), 8);
            self.process(&mut on_event, &mut dest);
        }
        dest.written
    }

    /// Whole words to append next, of `available`: aligned, just enough to complete the
    /// codeword; hunting, as much as fits (one word kept for the carry).
    fn words_to_take(&self, available: usize) -> usize {
        let room = ((BUF_WORDS * 64).saturating_sub(self.fill) / 64).saturating_sub(1);
        let want = if self.lock.is_aligned() {
            CODEWORD_BITS.saturating_sub(self.fill).div_ceil(64)
        } else {
            room
        };
        want.min(room).min(available)
    }

    /// Pushes 64-bit line words (bit 0 first).
    pub fn push_words(&mut self, words: &[u64], mut on_event: impl FnMut(RxEvent<'_>)) {
        let mut rest = words;
        while !rest.is_empty() {
            let take = self.words_to_take(rest.len());
            if take == 0 {
                // Not reached (after `process` the buffer holds less than a codeword);
                // one word through the general path keeps it total.
                if let Some((&w, later)) = rest.split_first() {
                    self.push_bits(w, 64, &mut on_event);
                    rest = later;
                }
                continue;
            }
            let (now, later) = rest.split_at(take);
            self.append_words(now);
            rest = later;
            self.process(&mut on_event, &mut Dest::none());
        }
    }

    /// Pushes the low `n` (0..=64) bits of `value`, bit 0 first.
    pub fn push_bits(&mut self, value: u64, n: u32, mut on_event: impl FnMut(RxEvent<'_>)) {
        self.put_bits(value, n);
        self.process(&mut on_event, &mut Dest::none());
    }

    /// Appends the low `n` (0..=64) bits of `value`, bit 0 first (not yet processed).
    fn put_bits(&mut self, value: u64, n: u32) {
        let n = n.min(64);
        let v = value & bits::low_mask(n);
        let w = self.fill / 64;
        let s = (self.fill % 64) as u32;
        if let Some(x) = self.buf.get_mut(w) {
            *x = (*x & bits::low_mask(s)) | v << s;
        }
        if let Some(x) = self.buf.get_mut(w + 1) {
            *x = (v >> 1) >> (63 - s);
        }
        self.fill = (self.fill + n as usize).min(BUF_WORDS * 64);
    }

    /// Appends whole words at `fill` (the caller leaves room): each buffer word is stored
    /// once, the partial word carried in a register.
    fn append_words(&mut self, words: &[u64]) {
        let s = (self.fill % 64) as u32;
        let first = self.fill / 64;
        let dest = self.buf.get_mut(first..).unwrap_or(&mut []);
        if s == 0 {
            // On a word boundary (every other codeword of an aligned stream): a copy.
            let n = dest.len().min(words.len());
            if let (Some(d), Some(w)) = (dest.get_mut(..n), words.get(..n)) {
                d.copy_from_slice(w);
            }
            if let Some(d) = dest.get_mut(n) {
                *d = 0;
            }
            self.fill = (self.fill + 64 * n).min(BUF_WORDS * 64);
            return;
        }
        let mut carry = dest.first().copied().unwrap_or(0) & bits::low_mask(s);
        let mut stored = 0;
        for (d, &v) in dest.iter_mut().zip(words) {
            *d = carry | v << s;
            carry = (v >> 1) >> (63 - s);
            stored += 1;
        }
        if let Some(d) = dest.get_mut(stored) {
            *d = carry;
        }
        self.fill = (self.fill + 64 * stored).min(BUF_WORDS * 64);
    }

    /// [`Receiver::append_words`] of the whole words of `octets` (the caller leaves room).
    /// Where the buffer ends on an octet (always, on a line locked at an octet), the octets
    /// are copied as they are: the part word's, then whole words, then the next part word's.
    fn append_octets(&mut self, octets: &[u8]) {
        let s = self.fill % 64;
        if s % 8 != 0 {
            self.append(octets.chunks_exact(8).map(le_word));
            return;
        }
        let n = octets.len() / 8;
        // Octets the part word takes to be whole (8 on a word boundary: a whole word).
        let head = 8 - s / 8;
        let Some(dest) = self.buf.get_mut(self.fill / 64..=self.fill / 64 + n) else {
            return;
        };
        let (Some((part, words)), Some((first, rest))) =
            (dest.split_first_mut(), octets.split_at_checked(head))
        else {
            return;
        };
        *part =
            (*part & bits::low_mask(s as u32)) | le_word(first).checked_shl(s as u32).unwrap_or(0);
        let mut chunks = rest.chunks_exact(8);
        for (d, c) in words.iter_mut().zip(&mut chunks) {
            *d = le_word(c);
        }
        if let Some(d) = words.last_mut() {
            // The octets after the last whole word (none on a word boundary).
            *d = le_word(chunks.remainder());
        }
        self.fill = (self.fill + 64 * n).min(BUF_WORDS * 64);
    }

    /// [`Receiver::append_words`] of words as they come (the caller leaves room).
    #[inline(always)]
    fn append(&mut self, words: impl Iterator<Item = u64>) {
        let s = (self.fill % 64) as u32;
        let first = self.fill / 64;
        let dest = self.buf.get_mut(first..).unwrap_or(&mut []);
        let mut carry = dest.first().copied().unwrap_or(0) & bits::low_mask(s);
        let mut stored = 0;
        for (d, v) in dest.iter_mut().zip(words) {
            *d = carry | v << s;
            carry = (v >> 1) >> (63 - s);
            stored += 1;
        }
        if let Some(d) = dest.get_mut(stored) {
            *d = carry;
        }
        self.fill = (self.fill + 64 * stored).min(BUF_WORDS * 64);
    }

    /// Drops the first `n` buffered bits. Buffer words past the one holding bit `fill` may
    /// hold stale bits: nothing reads them before they are written.
    fn discard(&mut self, n: usize) {
        let n = n.min(self.fill);
        let rest = self.fill - n;
        let words = rest.div_ceil(64);
        for i in 0..words {
            let v = bits::read64(&self.buf, n + 64 * i);
            if let Some(w) = self.buf.get_mut(i) {
                *w = v;
            }
        }
        if rest % 64 != 0 {
            if let Some(w) = self.buf.get_mut(words - 1) {
                *w &= bits::low_mask((rest % 64) as u32);
            }
        }
        self.fill = rest;
        self.consumed += n as u64;
    }

    /// Whether `mismatch` marker bits count as the marker (`marker_mismatch_bits_max`).
    fn marker_matches(&self, mismatch: u32) -> bool {
        mismatch <= u32::from(self.decoder.config.marker_mismatch_bits_max)
    }

    /// Searches the buffer for the marker; true when found (now at buffer bit 0). Drops the
    /// bits before the place it stopped at: the marker, a place whose codeword is not all
    /// buffered yet (the search resumes there), or the last bits too few to test. A place
    /// whose marker bits differ in more than `marker_mismatch_bits_max` bits but at most
    /// [`SEARCH_MISMATCH_BITS`] is taken when the codeword there, corrected by the RS decoder,
    /// carries the marker (a marker codeword with correctable errors is found at once).
    fn hunt(&mut self) -> bool {
        let am0 = MARKER.words()[0];
        let mut s = 0;
        let mut found = false;
        while s + MARKER_COMPARED_BITS <= self.fill {
            // AM0 first (one word): most places are rejected by it.
            if (bits::read64(&self.buf, s) ^ am0).count_ones() <= SEARCH_AM0_MISMATCH_BITS {
                let m = marker_mismatch_bits(&self.buf, s);
                let here = if self.marker_matches(m) {
                    Some(true)
                } else if m <= SEARCH_MISMATCH_BITS {
                    self.codeword_at(s).map(|cw| self.carries_marker(cw))
                } else {
                    Some(false)
                };
                // The marker, or a codeword not all buffered yet: the search stops here.
                if here != Some(false) {
                    found = here == Some(true);
                    break;
                }
            }
            s += 1;
        }
        self.discard(s);
        found
    }

    /// The codeword at buffer bit `s`; `None` while not all of it is buffered.
    fn codeword_at(&self, s: usize) -> Option<Codeword> {
        if s + CODEWORD_BITS > self.fill {
            return None;
        }
        let mut words = [0u64; CODEWORD_WORDS];
        for (i, w) in words.iter_mut().enumerate() {
            *w = bits::read64(&self.buf, s + 64 * i);
        }
        Some(Codeword::from_words(words))
    }

    /// The codeword at buffer bit 0 (the caller knows it is all buffered).
    fn head_codeword(&self) -> Codeword {
        codeword_at_head(&self.buf)
    }

    /// Whether `cw`, corrected by the RS decoder, carries the marker: the marker is inside
    /// the codeword the parity protects, so symbol errors the code corrects do not cost a
    /// marker (U: the standard's marker check was not read; a check on the raw bits alone
    /// would lose lock on correctable errors, which a receiver that corrects them has no
    /// reason to do).
    fn carries_marker(&self, mut cw: Codeword) -> bool {
        match decode_with(&mut cw, CorrectionMode::Correct, self.decoder.kernel) {
            DecodeOutcome::Clean | DecodeOutcome::Corrected(_) => {
                self.marker_matches(marker_mismatch_bits(cw.words(), 0))
            }
            DecodeOutcome::NotCorrected(_) | DecodeOutcome::Uncorrectable => false,
        }
    }

    fn process(&mut self, on_event: &mut impl FnMut(RxEvent<'_>), dest: &mut Dest<'_>) {
        loop {
            if !self.lock.is_aligned() {
                if !self.hunt() {
                    return;
                }
                self.index = 0;
                self.just_found = true;
                on_event(RxEvent::MarkerFound { bit: self.consumed });
                if self.lock.found() == LockTransition::Acquired {
                    on_event(RxEvent::LockAcquired { bit: self.consumed });
                }
                continue;
            }
            if self.fill < CODEWORD_BITS {
                return;
            }
            self.aligned_codeword(on_event, dest);
        }
    }

    /// Handles the codeword at buffer bit 0 while aligned, its blocks decoded into `dest` when
    /// it has room for them. When the lock goes back to the search, the codeword is left in
    /// the buffer for it.
    fn aligned_codeword(&mut self, on_event: &mut impl FnMut(RxEvent<'_>), dest: &mut Dest<'_>) {
        let bit = self.consumed;
        let is_marker = self.index == 0;
        let mismatch = is_marker.then(|| marker_mismatch_bits(&self.buf, 0));
        if let (Some(m), false) = (mismatch, self.just_found) {
            let good = self.marker_matches(m) || self.carries_marker(self.head_codeword());
            match self.lock.expected(good) {
                LockTransition::Stay => {}
                LockTransition::Acquired => on_event(RxEvent::LockAcquired { bit }),
                LockTransition::ConfirmFailed => {
                    on_event(RxEvent::ConfirmFailed { bit });
                    return;
                }
                LockTransition::Lost => {
                    on_event(RxEvent::LockLost { bit });
                    return;
                }
            }
        }
        self.just_found = false;
        let period = self.decoder.config.marker_period_codewords;
        if self.lock.is_locked() {
            let room = dest
                .out
                .get_mut(dest.written..)
                .and_then(|o| o.first_chunk_mut::<BLOCKS_PER_CODEWORD>());
            let in_dest = room.is_some();
            let target = room.unwrap_or(&mut self.blocks);
            // A clean codeword is decoded where it lies in the buffer; any other from a copy.
            let clean = self
                .buf
                .first_chunk()
                .and_then(|w| self.decoder.decode_if_clean(w, is_marker, target));
            let report = match clean {
                Some(report) => report,
                None => {
                    let mut cw = codeword_at_head(&self.buf);
                    self.decoder.decode(&mut cw, is_marker, target)
                }
            };
            let blocks = target.get(..report.blocks()).unwrap_or(&[]);
            on_event(RxEvent::Codeword {
                bit,
                index_in_period: self.index,
                marker_mismatch_bits: mismatch,
                report,
                blocks,
            });
            if in_dest {
                dest.written += report.blocks();
            }
        } else if self.index + 1 == period {
            let mut cw = self.head_codeword();
            self.decoder.learn_history(&mut cw, is_marker);
        }
        self.discard(CODEWORD_BITS);
        self.index = next_in_period(self.index, period);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rs::status::{REG_CORRECTED_HIGH, REG_CORRECTED_LOW, REG_STATUS};
    use crate::rs::tx::{encode_codeword, Transmitter};
    use crate::rs::RsVariant;
    use crate::vectors::cl108_vip;
    use pcs_core::BlockType;
    use pcs_core::Scrambler;
    use proptest::prelude::*;

    /// A scrambled PCS-like stream: data blocks and control blocks of every type.
    fn pcs_blocks(n: usize, salt: u64) -> Vec<Block> {
        let mut s = Scrambler::default();
        (0..n as u64)
            .map(|i| {
                let x = (i ^ salt).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                if x >> 61 < 3 {
                    let ty = BlockType::ALL[(x % 15) as usize] as u64;
                    Block {
                        sync: SyncHeader::CONTROL,
                        payload: s.scramble(x & !0xff | ty),
                    }
                } else {
                    Block {
                        sync: SyncHeader::DATA,
                        payload: s.scramble(x),
                    }
                }
            })
            .collect()
    }

    /// The TX's line bits for `blocks` (as many whole codewords as they fill).
    fn line_bits(config: &RsFecConfig, blocks: &[Block]) -> Vec<bool> {
        let mut tx = Transmitter::new(config).unwrap();
        let mut bits = Vec::new();
        tx.push_slice(blocks, |cw| {
            bits.extend((0..CODEWORD_BITS).map(|b| cw.bit(b)))
        });
        bits
    }

    fn to_bytes(bits: &[bool]) -> Vec<u8> {
        bits.chunks(8)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u8, |a, (i, &b)| a | u8::from(b) << i)
            })
            .collect()
    }

    /// Everything a receiver reported, owned.
    #[derive(Debug, Default)]
    struct Seen {
        events: Vec<String>,
        blocks: Vec<Block>,
        reports: Vec<(u32, CodewordReport)>,
    }

    fn receive(config: &RsFecConfig, bytes: &[u8], chunk: usize) -> (Receiver, Seen) {
        let mut rx = Receiver::new(config).unwrap();
        let mut seen = Seen::default();
        for c in bytes.chunks(chunk.max(1)) {
            rx.push_bytes(c, |e| match e {
                RxEvent::Codeword {
                    index_in_period,
                    report,
                    blocks,
                    ..
                } => {
                    seen.blocks.extend_from_slice(blocks);
                    seen.reports.push((index_in_period, report));
                }
                other => seen.events.push(format!("{other:?}")),
            });
        }
        (rx, seen)
    }

    /// Octets whole words at a time straight into the line buffer (copied as they are where
    /// the buffer ends on an octet, shifted elsewhere) give what one octet at a time gives,
    /// from every bit offset of a word and in pieces of any length.
    #[test]
    fn push_bytes_in_words_equals_one_octet_at_a_time_from_every_offset() {
        let blocks = pcs_blocks(76 + 3 * 80 + 2 * (76 + 3 * 80), 5);
        let line = line_bits(&PERIOD_4, &blocks);
        for offset in 0..72 {
            let mut bits: Vec<bool> = (0..offset).map(|i| i % 3 == 1).collect();
            bits.extend(&line);
            let bytes = to_bytes(&bits);
            let (want_rx, want) = receive(&PERIOD_4, &bytes, 1);
            assert_eq!(want.reports.len(), 8, "offset {offset}");
            for piece in [9, 64, 700, bytes.len()] {
                let (rx, seen) = receive(&PERIOD_4, &bytes, piece);
                assert_eq!(
                    seen.events, want.events,
                    "offset {offset}, pieces of {piece}"
                );
                assert_eq!(
                    seen.reports, want.reports,
                    "offset {offset}, pieces of {piece}"
                );
                assert_eq!(
                    seen.blocks, want.blocks,
                    "offset {offset}, pieces of {piece}"
                );
                assert_eq!(rx.bits_received(), want_rx.bits_received());
            }
        }
    }

    /// Blocks decoded straight into the caller's slice while it has room for a whole
    /// codeword's, then from the receiver's own buffer: the same events and blocks as
    /// `push_bytes`, those written to the slice being the first ones handed on.
    #[test]
    fn push_bytes_into_a_slice_gives_what_push_bytes_gives() {
        let blocks = pcs_blocks(76 + 3 * 80 + 2 * (76 + 3 * 80), 9);
        let bytes = to_bytes(&line_bits(&PERIOD_4, &blocks));
        let (_, want) = receive(&PERIOD_4, &bytes, bytes.len());
        for room in [0, 79, 80, 156, 239, 2000] {
            let mut rx = Receiver::new(&PERIOD_4).unwrap();
            let mut out = vec![Block::IDLE; room];
            let mut seen = Seen::default();
            let written = rx.push_bytes_into(&bytes, &mut out, |e| {
                if let RxEvent::Codeword {
                    blocks,
                    report,
                    index_in_period,
                    ..
                } = e
                {
                    seen.blocks.extend_from_slice(blocks);
                    seen.reports.push((index_in_period, report));
                }
            });
            assert_eq!(seen.blocks, want.blocks, "room {room}");
            assert_eq!(seen.reports, want.reports, "room {room}");
            assert!(written <= room && written + BLOCKS_PER_CODEWORD > room.min(want.blocks.len()));
            assert_eq!(&out[..written], &want.blocks[..written], "room {room}");
        }
    }

    const PERIOD_4: RsFecConfig = RsFecConfig {
        marker_period_codewords: 4,
        ..RsFecConfig::IEEE
    };

    /// A history whose keystream for payload bits 0..7 is `key` (bits 0..7 of the state;
    /// bits 19..26 zero).
    const fn history_with_key(key: u8) -> u64 {
        key as u64
    }

    #[test]
    fn captured_vip_codeword_decodes_to_its_80_blocks() {
        let (want, codeword) = cl108_vip();
        // The 80 blocks are Remote Fault ordered sets, type 0x55; the line before block 0
        // is not in the capture, so the history is the one block 0's type byte implies.
        let key = (want[0].payload as u8) ^ BlockType::OrderedOrdered as u8;
        let config = RsFecConfig {
            initial_descrambler_state: history_with_key(key),
            ..RsFecConfig::IEEE
        };
        let mut dec = CodewordDecoder::new(&config).unwrap();
        let mut cw = codeword.clone();
        let mut out = [Block::IDLE; 80];
        let report = dec.decode(&mut cw, false, &mut out);
        assert_eq!(report.outcome, DecodeOutcome::Clean);
        assert!(!report.marked);
        assert_eq!(out, want);
        // Seven symbol errors change nothing.
        let mut cw = codeword;
        for i in 0..7 {
            cw.xor_symbol(75 * i + 3, 0x2a5);
        }
        let mut dec = CodewordDecoder::new(&config).unwrap();
        let report = dec.decode(&mut cw, false, &mut out);
        assert_eq!(report.symbol_errors, 7);
        assert_eq!(out, want);
    }

    #[test]
    fn captured_vip_codeword_from_the_default_history_differs_only_in_the_first_type_nibble() {
        let (want, mut codeword) = cl108_vip();
        let mut dec = CodewordDecoder::new(&RsFecConfig::IEEE).unwrap();
        let mut out = [Block::IDLE; 80];
        dec.decode(&mut codeword, false, &mut out);
        assert_eq!(out[4..], want[4..]);
        // The first transcoded block: payload bits other than the high type nibble agree.
        for (o, w) in out[..4].iter().zip(&want[..4]) {
            assert_eq!(o.payload & !0xf0, w.payload & !0xf0);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// The receiver finds the marker at any bit offset, in any input chunking, locks on
        /// the second marker, and gives back the transmitted blocks from there on.
        #[test]
        fn receiver_locks_from_any_bit_offset(
            offset in 0usize..2 * CODEWORD_BITS,
            noise in any::<u64>(),
            chunk in 1usize..200,
        ) {
            let blocks = pcs_blocks(76 + 3 * 80 + 2 * (76 + 3 * 80), noise);
            let mut bits: Vec<bool> = (0..offset)
                .map(|i| (noise.rotate_left(i as u32) ^ (i as u64 * 7)) & 1 == 1)
                .collect();
            bits.extend(line_bits(&PERIOD_4, &blocks));
            let (rx, seen) = receive(&PERIOD_4, &to_bytes(&bits), chunk);
            let first = offset as u64;
            let second = first + 4 * CODEWORD_BITS as u64;
            prop_assert_eq!(
                &seen.events,
                &[
                    format!("MarkerFound {{ bit: {first} }}"),
                    format!("LockAcquired {{ bit: {second} }}"),
                ]
            );
            prop_assert!(rx.is_locked());
            // Decoded from the second period's marker codeword: 8 codewords.
            prop_assert_eq!(seen.reports.len(), 8);
            prop_assert_eq!(&seen.blocks[..], &blocks[316..]);
            prop_assert!(seen.reports.iter().all(|(_, r)| r.outcome == DecodeOutcome::Clean));
            let idx: Vec<u32> = seen.reports.iter().map(|(i, _)| *i).collect();
            prop_assert_eq!(idx, vec![0, 1, 2, 3, 0, 1, 2, 3]);
        }
    }

    #[test]
    fn lock_on_the_first_marker_when_lock_markers_is_1() {
        let config = RsFecConfig {
            lock_markers: 1,
            ..PERIOD_4
        };
        let blocks = pcs_blocks(316, 3);
        let mut bits = vec![true; 13];
        bits.extend(line_bits(&config, &blocks));
        let (_, seen) = receive(&config, &to_bytes(&bits), 64);
        assert_eq!(
            seen.events,
            ["MarkerFound { bit: 13 }", "LockAcquired { bit: 13 }"]
        );
        assert_eq!(seen.reports.len(), 4);
        // Block 0 needs the history before the stream: the default seed is the TX's.
        assert_eq!(seen.blocks, blocks);
    }

    /// Flips bit 0 of 8 symbols of the marker codeword of period `p`: uncorrectable, with
    /// `in_marker` of them inside the marker's bits (symbols 0..25), the rest in the parity.
    fn spoil_marker(bits: &mut [bool], p: usize, in_marker: usize) {
        let at = 4 * CODEWORD_BITS * p;
        for k in 0..8 {
            let symbol = if k < in_marker { 3 * k } else { 520 - k };
            bits[at + 10 * symbol] ^= true;
        }
    }

    #[test]
    fn a_corrected_marker_is_good_one_bad_marker_keeps_lock_two_in_a_row_lose_it() {
        let blocks = pcs_blocks(8 * 316, 4);
        let mut bits = line_bits(&PERIOD_4, &blocks);
        let marker_at = |p: usize| 4 * CODEWORD_BITS * p;
        bits[marker_at(1) + 100] ^= true; // corrected by the decoder: a good marker
        spoil_marker(&mut bits, 3, 8); // one bad marker: tolerated
        spoil_marker(&mut bits, 5, 8); // two in a row: lost
        spoil_marker(&mut bits, 6, 8);
        let (rx, seen) = receive(&PERIOD_4, &to_bytes(&bits), 660);
        let m = |p: usize| marker_at(p) as u64;
        assert_eq!(
            seen.events,
            [
                format!("MarkerFound {{ bit: {} }}", m(0)),
                format!("LockAcquired {{ bit: {} }}", m(1)),
                format!("LockLost {{ bit: {} }}", m(6)),
                format!("MarkerFound {{ bit: {} }}", m(7)),
            ]
        );
        assert!(!rx.is_locked());
        // Periods 1 to 5 decoded: the marker of period 1 corrected, those of 3 and 5 not.
        assert_eq!(seen.reports.len(), 20);
        let corrected = seen
            .reports
            .iter()
            .filter(|(_, r)| matches!(r.outcome, DecodeOutcome::Corrected(_)))
            .count();
        let uncorrectable = seen
            .reports
            .iter()
            .filter(|(_, r)| r.outcome == DecodeOutcome::Uncorrectable)
            .count();
        assert_eq!((corrected, uncorrectable), (1, 2));
        assert_eq!(seen.blocks[..2 * 316], blocks[316..3 * 316]);
    }

    #[test]
    fn u_marker_tolerance_counts_a_marker_with_few_bad_bits_as_good() {
        let blocks = pcs_blocks(4 * 316, 12);
        let mut bits = line_bits(&PERIOD_4, &blocks);
        // Uncorrectable marker codewords whose marker has 3 bad bits.
        for p in 2..4 {
            spoil_marker(&mut bits, p, 3);
        }
        let exact = receive(&PERIOD_4, &to_bytes(&bits), 100).1;
        assert!(exact.events.iter().any(|e| e.starts_with("LockLost")));
        let tolerant = RsFecConfig {
            marker_mismatch_bits_max: 3,
            ..PERIOD_4
        };
        let (rx, seen) = receive(&tolerant, &to_bytes(&bits), 100);
        assert!(rx.is_locked());
        assert_eq!(seen.reports.len(), 12);
        assert_eq!(seen.blocks[..316], blocks[316..2 * 316]);
    }

    fn errored(blocks: &[Block], errors: &[(usize, u16)]) -> Codeword {
        let mut cw = encode_codeword(blocks.try_into().unwrap());
        for &(p, m) in errors {
            cw.xor_symbol(p, m);
        }
        cw
    }

    /// A fresh decoder on the codeword of `pcs_blocks(80, salt)` with `errors` injected: the
    /// decoder after it, its report and the 80 blocks out.
    fn decode_errored(
        config: &RsFecConfig,
        salt: u64,
        errors: &[(usize, u16)],
    ) -> (CodewordDecoder, CodewordReport, [Block; 80]) {
        let mut dec = CodewordDecoder::new(config).unwrap();
        let mut out = [Block::IDLE; 80];
        let r = dec.decode(&mut errored(&pcs_blocks(80, salt), errors), false, &mut out);
        (dec, r, out)
    }

    /// Nine symbol errors the decoder flags (checked).
    const NINE: [(usize, u16); 9] = [
        (0, 1),
        (60, 3),
        (120, 7),
        (180, 0xf),
        (240, 0x1f),
        (300, 0x3f),
        (360, 0x7f),
        (420, 0xff),
        (480, 0x1ff),
    ];

    #[test]
    fn uncorrectable_codeword_marks_all_80_sync_headers() {
        let (dec, r, out) = decode_errored(&RsFecConfig::IEEE, 5, &NINE);
        assert_eq!(r.outcome, DecodeOutcome::Uncorrectable);
        assert!(r.marked);
        assert!(out.iter().all(|b| b.sync == ERROR_SYNC));
        let c = dec.counters();
        assert_eq!(
            (
                c.corrected_codewords,
                c.uncorrected_codewords,
                c.symbol_errors
            ),
            (0, 1, 8)
        );
    }

    #[test]
    fn first_of_each_transcoded_marking_marks_20_blocks() {
        let config = RsFecConfig {
            error_marking: ErrorMarking::FirstOfEachTranscoded,
            ..RsFecConfig::IEEE
        };
        let (_, _, out) = decode_errored(&config, 5, &NINE);
        let marked: Vec<usize> = (0..80).filter(|&i| out[i].sync == ERROR_SYNC).collect();
        assert_eq!(marked, (0..80).step_by(4).collect::<Vec<_>>());
    }

    #[test]
    fn bypass_indication_leaves_uncorrectable_blocks_unmarked() {
        let config = RsFecConfig {
            bypass_indication: true,
            ..RsFecConfig::IEEE
        };
        let (_, r, out) = decode_errored(&config, 6, &NINE);
        assert_eq!(r.outcome, DecodeOutcome::Uncorrectable);
        assert!(!r.marked);
        assert!(out.iter().all(|b| b.sync.is_valid()));
    }

    #[test]
    fn bypass_correction_delivers_errors_marked_and_counts_them_uncorrected() {
        let config = RsFecConfig {
            bypass_correction: true,
            ..RsFecConfig::IEEE
        };
        let (dec, r, _) = decode_errored(&config, 7, &[(10, 1), (11, 2)]);
        assert!(matches!(r.outcome, DecodeOutcome::NotCorrected(_)));
        assert!(r.marked);
        let c = dec.counters();
        assert_eq!(
            (
                c.corrected_codewords,
                c.uncorrected_codewords,
                c.symbol_errors
            ),
            (0, 1, 2)
        );
    }

    #[test]
    fn corrected_codewords_and_symbol_errors_are_counted_and_read_over_mdio() {
        let blocks = pcs_blocks(80, 8);
        let mut dec = CodewordDecoder::new(&RsFecConfig::IEEE).unwrap();
        let mut out = [Block::IDLE; 80];
        for k in 0..3 {
            let r = dec.decode(
                &mut errored(&blocks, &[(k, 0x3ff), (k + 9, 1)]),
                false,
                &mut out,
            );
            assert_eq!(
                r.outcome.errors().map(|p| (p.symbols(), p.bits())),
                Some((2, 11))
            );
            assert!(!r.marked);
            assert_eq!(&out[..], &blocks[..]);
        }
        let c = dec.counters();
        assert_eq!(
            (
                c.corrected_codewords,
                c.uncorrected_codewords,
                c.symbol_errors
            ),
            (3, 0, 6)
        );
        assert_eq!(dec.read_register(REG_CORRECTED_LOW, true), Some(3));
        assert_eq!(dec.read_register(REG_CORRECTED_HIGH, true), Some(0));
        assert_eq!(dec.read_register(REG_STATUS, true), Some(0x4103));
    }

    /// Feeds 8192 codewords of which the first `n7` hold 7 symbol errors and one more holds
    /// `extra`; returns the reports.
    fn ser_window(config: &RsFecConfig, n7: usize, extra: usize) -> Vec<CodewordReport> {
        let blocks = pcs_blocks(80, 9);
        let clean = encode_codeword(&blocks.clone().try_into().unwrap());
        let seven: Vec<(usize, u16)> = (0..7).map(|i| (70 * i + 1, 0x100)).collect();
        let mut dec = CodewordDecoder::new(config).unwrap();
        let mut out = [Block::IDLE; 80];
        (0..8192)
            .map(|i| {
                let mut cw = if i < n7 {
                    errored(&blocks, &seven)
                } else if i == n7 {
                    errored(&blocks, &seven[..extra])
                } else {
                    clean.clone()
                };
                dec.decode(&mut cw, false, &mut out)
            })
            .collect()
    }

    #[test]
    fn decoder_hi_ser_trips_at_418_symbol_errors_in_8192_codewords_not_at_417() {
        // 59 x 7 + 4 = 417, 59 x 7 + 5 = 418.
        let at_417 = ser_window(&RsFecConfig::IEEE, 59, 4);
        assert!(at_417.iter().all(|r| !r.hi_ser));
        let at_418 = ser_window(&RsFecConfig::IEEE, 59, 5);
        assert!(!at_418[58].hi_ser && at_418[59].hi_ser && at_418[8191].hi_ser);
        // Indication on: corrected codewords are never marked, hi_ser or not.
        assert!(at_418.iter().all(|r| !r.marked));
    }

    #[test]
    fn hi_ser_with_indication_bypassed_marks_for_the_configured_codewords() {
        let config = RsFecConfig {
            bypass_indication: true,
            hi_ser_corrupt_codewords: 100,
            ..RsFecConfig::IEEE
        };
        let reports = ser_window(&config, 59, 5);
        let marked: Vec<usize> = (0..reports.len()).filter(|&i| reports[i].marked).collect();
        assert_eq!(marked, (59..159).collect::<Vec<_>>());
    }

    #[test]
    fn receiver_refuses_both_bypasses_and_the_consortium_variant() {
        let both = RsFecConfig {
            bypass_correction: true,
            bypass_indication: true,
            ..RsFecConfig::IEEE
        };
        assert_eq!(Receiver::new(&both).err(), Some(ConfigError::BypassBoth));
        let consortium = RsFecConfig {
            variant: RsVariant::Consortium,
            ..RsFecConfig::IEEE
        };
        assert_eq!(
            Transmitter::new(&consortium).err(),
            Some(ConfigError::ConsortiumNotSourced)
        );
    }

    /// TX -> line words (with `LineWords`) -> up to 7 symbol errors per codeword -> RX:
    /// every block comes back, and the counters hold what was injected.
    #[test]
    fn transmitter_to_receiver_through_symbol_errors() {
        use crate::rs::codeword::LineWords;
        let config = PERIOD_4;
        let blocks = pcs_blocks(4 * 316, 11);
        let mut tx = Transmitter::new(&config).unwrap();
        let mut words = Vec::new();
        let mut packer = LineWords::new();
        let (mut symbols, mut corrected) = (0u32, 0u32);
        let mut n = 0usize;
        tx.push_slice(&blocks, |cw| {
            let mut cw = cw.clone();
            let errors = n % 8; // 0..=7
            for e in 0..errors {
                cw.xor_symbol(
                    (n * 37 + e * 71) % 528,
                    (1 + n as u16 * 13 + e as u16) & 0x3ff | 1,
                );
            }
            // The receiver decodes from period 1 on (lock on its marker).
            if n >= 4 && errors > 0 {
                symbols += errors as u32;
                corrected += 1;
            }
            n += 1;
            packer.push(&cw, |w| words.push(w));
        });
        let mut rx = Receiver::new(&config).unwrap();
        let mut got = Vec::new();
        rx.push_words(&words, |e| {
            if let RxEvent::Codeword { blocks, report, .. } = e {
                assert!(!report.marked);
                got.extend_from_slice(blocks);
            }
        });
        assert_eq!(got, blocks[316..]);
        let c = rx.counters();
        assert_eq!(
            (
                c.corrected_codewords,
                c.uncorrected_codewords,
                c.symbol_errors
            ),
            (corrected, 0, symbols)
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any options the model accepts and any line bits: events, never a panic; while
        /// locked every codeword gives 76 or 80 blocks.
        #[test]
        fn any_config_and_any_bits_never_panic(
            period in 1u32..6,
            tolerance in prop::sample::select(vec![0u16, 3, 64, 300]),
            lock_markers in 1u8..4,
            unlock in 1u8..4,
            bypass in 0u8..3,
            marking in prop::bool::ANY,
            bytes in prop::collection::vec(any::<u8>(), 0..4000),
            chunk in 1usize..700,
        ) {
            let config = RsFecConfig {
                marker_period_codewords: period,
                marker_mismatch_bits_max: tolerance,
                lock_markers,
                unlock_bad_markers: unlock,
                bypass_correction: bypass == 1,
                bypass_indication: bypass == 2,
                error_marking: if marking { ErrorMarking::AllBlocks } else { ErrorMarking::FirstOfEachTranscoded },
                hi_ser_corrupt_codewords: 3,
                ..RsFecConfig::IEEE
            };
            let mut rx = Receiver::new(&config).unwrap();
            for c in bytes.chunks(chunk) {
                rx.push_bytes(c, |e| {
                    if let RxEvent::Codeword { report, blocks, .. } = e {
                        assert_eq!(blocks.len(), report.blocks());
                    }
                });
            }
            for reg in 195..215 {
                let _ = rx.read_register(reg);
            }
            prop_assert_eq!(rx.bits_received(), 8 * bytes.len() as u64);
        }
    }

    #[test]
    fn garbage_never_locks_and_never_panics() {
        let bytes: Vec<u8> = (0..20_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let (rx, seen) = receive(&RsFecConfig::VIP, &bytes, 37);
        assert!(seen.events.is_empty() && seen.reports.is_empty());
        assert_eq!(rx.bits_received(), 160_000);
    }
}
