//! Test patterns: generators (§49.2.8) and checkers (§49.2.12) for PRBS31, the square wave,
//! the pseudo-random pattern and the scrambled idle pattern, with the MDIO test-pattern control
//! register (3.42) and the test-pattern error counter (3.43).
//!
//! Bit order: the first bit on the wire is bit 0. The bit-stream patterns (PRBS31, square wave)
//! bypass the encoder and the scrambler and cover the whole 66-bit stream, sync headers
//! included. They are offered two ways over the same stream:
//!
//! ```text
//!  stream bits   b0 b1 | b2 ... b65 | b66 b67 | b68 ... b131 | ...
//!  as blocks     sync  | payload    | sync    | payload      |      (66 bits per block)
//!  as words      word 0 = b0..b63 | word 1 = b64..b127 | ...         (64 bits per word)
//! ```
//!
//! A generator can mix `next_block`, `next_word` and `next_bits` calls: each continues the
//! stream where the previous call stopped. Likewise for the checkers.
//!
//! PRBS31 (`1 + x^28 + x^31`, `b_n = b_{n-28} ^ b_{n-31}`):
//!
//! ```text
//!        ┌──────────────────────(+)<───────────────┐
//!        │                       ^                 │
//!        v   ┌────┬────┬─ ... ──┴──┬─ ... ─┬─────┐  │
//!  b_n ──┴──>│ S0 │ S1 │ ... │ S27 │  ...  │ S30 ├──┘    S_k = b_{n-1-k}
//!            └────┴────┴─────┴─────┴───────┴─────┘
//! ```
//!
//! Word-parallel form: the state `s` holds the last 31 bits, bit 30 the newest (`s[k] =
//! b_{n-31+k}`). The part of the next 64 bits that reaches back into the state is
//! `t = s ^ (s >> 3)` (its bits 0..27 are already the next 28 stream bits). The taps that reach
//! into the same word are resolved without a loop by multiplying by the inverse of
//! `1 + x^28 + x^31` modulo `x^64`, which is `1 + x^28 + x^31 + x^56 + x^62` (because
//! `(1 + u)(1 + u + u^2) = 1 + u^3` and `u^3 = (x^28 + x^31)^3` starts at `x^84`):
//! `w = t ^ (t << 28) ^ (t << 31) ^ (t << 56) ^ (t << 62)`.
//!
//! Error counter: each checker counts into a [`TestPatternErrorCounter`] (16 bits, clear on
//! read, saturating, as MDIO 3.43) and keeps a 64-bit total for reports.
//!
//! Spec: IEEE 802.3 §49.2.8, §49.2.12, Figure 49-9, §45.2.3.17, §45.2.3.18.

use crate::block::{Block, SyncHeader};
use crate::scramble::{scramble_payload, Descrambler, Scrambler, SCRAMBLER_STATE_MASK};

/// Mask of the low `n` bits; `n >= 64` gives all ones.
const fn low_mask(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Mask of the 31 PRBS31 state bits.
const PRBS31_MASK: u64 = (1 << 31) - 1;

/// The test-pattern error counter of MDIO register 3.43: 16 bits, cleared when read, and
/// saturating at `0xffff` instead of rolling over.
///
/// Spec: IEEE 802.3 §45.2.3.18, §49.2.12.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TestPatternErrorCounter(u16);

impl TestPatternErrorCounter {
    /// A counter holding zero.
    #[must_use]
    pub const fn new() -> Self {
        Self(0)
    }

    /// Adds `errors`, holding at `0xffff`.
    ///
    /// Spec: IEEE 802.3 §45.2.3.18.
    pub fn add(&mut self, errors: u64) {
        let sum = u64::from(self.0).saturating_add(errors);
        self.0 = u16::try_from(sum).unwrap_or(u16::MAX);
    }

    /// The value, without clearing it (not an MDIO access).
    #[must_use]
    pub const fn value(&self) -> u16 {
        self.0
    }

    /// An MDIO read: returns the value and clears the counter.
    ///
    /// Spec: IEEE 802.3 §45.2.3.18.
    pub fn read(&mut self) -> u16 {
        core::mem::take(&mut self.0)
    }
}

/// Counts errors into both the 16-bit register and a 64-bit total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
struct Tally {
    counter: TestPatternErrorCounter,
    total: u64,
}

impl Tally {
    fn add(&mut self, errors: u64) -> u64 {
        self.counter.add(errors);
        self.total = self.total.saturating_add(errors);
        errors
    }
}

/// The methods every checker shares: a slice at a time, the 3.43 counter and the total.
macro_rules! checker_counters {
    ($checker:ty, $unit:literal) => {
        impl $checker {
            /// Checks received blocks; returns how many were errors.
            pub fn check_blocks(&mut self, blocks: &[Block]) -> u64 {
                blocks.iter().map(|&b| self.check_block(b)).sum()
            }

            /// The test-pattern error counter (3.43).
            pub fn error_counter(&mut self) -> &mut TestPatternErrorCounter {
                &mut self.tally.counter
            }

            #[doc = concat!("All ", $unit, " errors counted since construction (saturating).")]
            #[must_use]
            pub const fn total_errors(&self) -> u64 {
                self.tally.total
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// PRBS31
// ---------------------------------------------------------------------------------------------

/// Whether the PRBS31 bits are sent as the LFSR produces them or complemented.
///
/// Spec: IEEE 802.3 §49.2.8, Figure 49-9.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Prbs31Polarity {
    /// The LFSR output `b_n` as is (after the all-ones state: 28 zeros, then 3 ones).
    // reading: IEEE 802.3 Figure 49-9 as drafted in 802.3ae D4.01 takes the output from the
    // LFSR input without an inverter; whether the published figure added one (as ITU-T O.150,
    // verilog-ethernet and Intel's 10G PCS do) is unverified, so the default is non-inverted.
    #[default]
    Normal,
    /// The complement of the LFSR output, as ITU-T O.150 and common RTL send it (after the
    /// all-ones state: 28 ones, then 3 zeros).
    Inverted,
}

impl Prbs31Polarity {
    const fn mask(self, n: u32) -> u64 {
        match self {
            Self::Normal => 0,
            Self::Inverted => low_mask(n),
        }
    }
}

/// The PRBS31 test-pattern generator, `1 + x^28 + x^31` over the whole 66-bit stream.
///
/// Spec: IEEE 802.3 §49.2.8, Figure 49-9.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Prbs31Generator {
    /// The last 31 LFSR output bits (before any inversion), bit 30 the newest.
    state: u32,
    polarity: Prbs31Polarity,
}

impl Default for Prbs31Generator {
    fn default() -> Self {
        Self::new(Self::DEFAULT_STATE, Prbs31Polarity::Normal)
    }
}

impl Prbs31Generator {
    /// The state the generator starts from unless told otherwise: all ones (as common RTL).
    pub const DEFAULT_STATE: u32 = PRBS31_MASK as u32;

    /// A generator whose state (the last 31 LFSR bits, bit 30 the newest, uninverted) is
    /// `state`, masked to 31 bits. The all-zero state is the LFSR's lock-up state: it yields
    /// zeros (ones if inverted) for ever.
    #[must_use]
    pub const fn new(state: u32, polarity: Prbs31Polarity) -> Self {
        Self {
            state: state & (PRBS31_MASK as u32),
            polarity,
        }
    }

    /// The state: the last 31 LFSR output bits, bit 30 the newest, uninverted.
    #[must_use]
    pub const fn state(&self) -> u32 {
        self.state
    }

    /// The polarity.
    #[must_use]
    pub const fn polarity(&self) -> Prbs31Polarity {
        self.polarity
    }

    /// The next `n` stream bits (`n` is clamped to 64) in bits `n-1..0`, bit 0 first.
    ///
    /// Spec: IEEE 802.3 §49.2.8.
    pub fn next_bits(&mut self, n: u32) -> u64 {
        let n = n.min(64);
        let s = self.state as u64;
        let t = s ^ (s >> 3);
        let w = (t ^ (t << 28) ^ (t << 31) ^ (t << 56) ^ (t << 62)) & low_mask(n);
        self.state = prbs31_shift_in(s, w, n);
        w ^ self.polarity.mask(n)
    }

    /// The next 64 stream bits.
    pub fn next_word(&mut self) -> u64 {
        self.next_bits(64)
    }

    /// Fills `words` with the next stream bits, 64 per word.
    pub fn fill_words(&mut self, words: &mut [u64]) {
        for w in words {
            *w = self.next_word();
        }
    }

    /// The next 66 stream bits as a block: the first two are the sync header.
    ///
    /// Spec: IEEE 802.3 §49.2.8.
    pub fn next_block(&mut self) -> Block {
        let sync = SyncHeader::from_bits(self.next_bits(2) as u8);
        let payload = self.next_bits(64);
        Block { sync, payload }
    }

    /// Fills `blocks` with the next stream bits, 66 per block.
    pub fn fill_blocks(&mut self, blocks: &mut [Block]) {
        for b in blocks {
            *b = self.next_block();
        }
    }
}

/// The last 31 bits of `state` (31 bits) followed by the low `n` bits of `bits` (`n <= 64`).
const fn prbs31_shift_in(state: u64, bits: u64, n: u32) -> u32 {
    let all = (state as u128) | ((bits as u128) << 31);
    ((all >> n) as u64 & PRBS31_MASK) as u32
}

/// The PRBS31 checker: it predicts each received bit from the 31 bits received before it
/// (`b_n = b_{n-28} ^ b_{n-31}`) and counts the bits that differ, so it is self-synchronizing
/// and needs no seed.
///
/// One wrong bit on the line is counted three times: once itself and once in each of the two
/// predictions it feeds, 28 and 31 bits later. The first 31 bits after [`new`](Self::new) or
/// [`reset`](Self::reset) are not counted (there is nothing to predict them from).
///
/// Spec: IEEE 802.3 §49.2.12.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Prbs31Checker {
    /// The last 31 received bits after undoing the inversion, bit 30 the newest.
    state: u32,
    /// How many bits have been received since reset, up to 31.
    history_bits: u8,
    polarity: Prbs31Polarity,
    tally: Tally,
}

impl Prbs31Checker {
    /// A checker for a stream of `polarity`, with no history and zero errors.
    #[must_use]
    pub const fn new(polarity: Prbs31Polarity) -> Self {
        Self {
            state: 0,
            history_bits: 0,
            polarity,
            tally: Tally {
                counter: TestPatternErrorCounter::new(),
                total: 0,
            },
        }
    }

    /// Forgets the history (the next 31 bits are not counted again); keeps the counters.
    pub fn reset(&mut self) {
        self.state = 0;
        self.history_bits = 0;
    }

    /// Checks the next `n` received bits (`n` clamped to 64), bit 0 first; returns the number
    /// of bit errors found in them.
    ///
    /// Spec: IEEE 802.3 §49.2.12.
    pub fn check_bits(&mut self, bits: u64, n: u32) -> u64 {
        let n = n.min(64);
        let mask = low_mask(n);
        let r = (bits ^ self.polarity.mask(n)) & mask;
        let s = self.state as u64;
        let predicted = s ^ (s >> 3) ^ (r << 28) ^ (r << 31);
        // Bit i is predictable once 31 bits precede it: history_bits + i >= 31.
        let unpredictable = low_mask(31u32.saturating_sub(self.history_bits as u32));
        let errors = (predicted ^ r) & mask & !unpredictable;
        self.state = prbs31_shift_in(s, r, n);
        self.history_bits = (self.history_bits as u32 + n).min(31) as u8;
        self.tally.add(errors.count_ones() as u64)
    }

    /// Checks the next 64 received bits; returns the bit errors found.
    pub fn check_word(&mut self, word: u64) -> u64 {
        self.check_bits(word, 64)
    }

    /// Checks received words, 64 bits each; returns the bit errors found.
    pub fn check_words(&mut self, words: &[u64]) -> u64 {
        words.iter().map(|&w| self.check_word(w)).sum()
    }

    /// Checks the next 66 received bits given as a block; returns the bit errors found.
    pub fn check_block(&mut self, block: Block) -> u64 {
        self.check_bits(block.sync.to_bits() as u64, 2) + self.check_bits(block.payload, 64)
    }
}

checker_counters!(Prbs31Checker, "bit");

// ---------------------------------------------------------------------------------------------
// Square wave
// ---------------------------------------------------------------------------------------------

/// The run length `n` of the square wave: `n` ones then `n` zeros, `n` in 4..=11.
///
/// Spec: IEEE 802.3 §49.2.8.
// reading: n in 4..=11 (SPEC-NOTES U); other values are rejected by `try_new`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SquareWaveRun(u8);

impl SquareWaveRun {
    /// The shortest run.
    pub const MIN: u8 = 4;
    /// The longest run.
    pub const MAX: u8 = 11;

    /// The run length `n`, if it is in 4..=11.
    #[must_use]
    pub const fn try_new(n: u8) -> Option<Self> {
        if n >= Self::MIN && n <= Self::MAX {
            Some(Self(n))
        } else {
            None
        }
    }

    /// The run length `n`.
    #[must_use]
    pub const fn to_u8(self) -> u8 {
        self.0
    }

    /// The period `2n` in bits.
    #[must_use]
    pub const fn period_bits(self) -> u8 {
        2 * self.0
    }

    /// 128 bits of the wave from phase 0 (`n` ones first), bit 0 first.
    const fn wave(self) -> u128 {
        let run = (1u128 << self.0) - 1;
        let period = 2 * self.0 as u32;
        let mut wave = 0u128;
        let mut k = 0;
        while k < 128 {
            wave |= run << k;
            k += period;
        }
        wave
    }
}

/// The square-wave generator over the whole 66-bit stream: `n` ones, `n` zeros, repeated.
///
/// Spec: IEEE 802.3 §49.2.8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SquareWaveGenerator {
    run: SquareWaveRun,
    /// Position in the period of the next bit: `0..n` ones, `n..2n` zeros.
    phase: u8,
    /// 128 bits of the wave from phase 0; a window of it from `phase` is the output.
    wave: u128,
}

impl SquareWaveGenerator {
    /// A generator whose first bit starts a run of ones.
    #[must_use]
    pub const fn new(run: SquareWaveRun) -> Self {
        Self::at_phase(run, 0)
    }

    /// A generator whose next bit is at `phase` of the period (reduced modulo `2n`):
    /// `0..n` are the ones, `n..2n` the zeros.
    #[must_use]
    pub const fn at_phase(run: SquareWaveRun, phase: u8) -> Self {
        Self {
            run,
            phase: phase % run.period_bits(),
            wave: run.wave(),
        }
    }

    /// The run length.
    #[must_use]
    pub const fn run(&self) -> SquareWaveRun {
        self.run
    }

    /// The position in the period of the next bit.
    #[must_use]
    pub const fn phase(&self) -> u8 {
        self.phase
    }

    /// The next `n` stream bits (`n` clamped to 64), bit 0 first.
    ///
    /// Spec: IEEE 802.3 §49.2.8.
    pub fn next_bits(&mut self, n: u32) -> u64 {
        let n = n.min(64);
        // phase < 22, so the window phase..phase+64 lies inside the 128 stored bits.
        let out = (self.wave >> self.phase) as u64 & low_mask(n);
        let period = self.run.period_bits() as u32;
        self.phase = ((self.phase as u32 + n) % period) as u8;
        out
    }

    /// The next 64 stream bits.
    pub fn next_word(&mut self) -> u64 {
        self.next_bits(64)
    }

    /// Fills `words` with the next stream bits, 64 per word.
    pub fn fill_words(&mut self, words: &mut [u64]) {
        for w in words {
            *w = self.next_word();
        }
    }

    /// The next 66 stream bits as a block: the first two are the sync header.
    pub fn next_block(&mut self) -> Block {
        let sync = SyncHeader::from_bits(self.next_bits(2) as u8);
        let payload = self.next_bits(64);
        Block { sync, payload }
    }

    /// Fills `blocks` with the next stream bits, 66 per block.
    pub fn fill_blocks(&mut self, blocks: &mut [Block]) {
        for b in blocks {
            *b = self.next_block();
        }
    }
}

/// Where the square-wave checker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
enum SquareWaveSync {
    /// Nothing received yet.
    Start,
    /// No edge yet; the last bit received.
    Searching { last_bit: u64 },
    /// Phase found: the expected stream.
    Locked(SquareWaveGenerator),
}

/// The square-wave checker: it takes the phase from the first edge it sees (a rising edge
/// starts a run of ones, a falling edge a run of zeros) and from then on counts every bit that
/// differs from the wave.
///
/// Bits before the first edge are not counted, so a stuck line counts nothing: look at
/// [`is_locked`](Self::is_locked). A wrong first edge (a line error before the real one) puts
/// the phase off and makes most later bits count; [`reset`](Self::reset) starts the search
/// again.
///
/// Spec: IEEE 802.3 §49.2.12.
// reading: §49.2.12 defines checkers for the pseudo-random and PRBS31 patterns only; this
// checker is the model's extension, as the brief asks (find the phase from the first edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SquareWaveChecker {
    run: SquareWaveRun,
    sync: SquareWaveSync,
    tally: Tally,
}

impl SquareWaveChecker {
    /// A checker for a wave of `run`, searching for its first edge.
    #[must_use]
    pub const fn new(run: SquareWaveRun) -> Self {
        Self {
            run,
            sync: SquareWaveSync::Start,
            tally: Tally {
                counter: TestPatternErrorCounter::new(),
                total: 0,
            },
        }
    }

    /// Whether the phase has been found (an edge has been seen).
    #[must_use]
    pub const fn is_locked(&self) -> bool {
        matches!(self.sync, SquareWaveSync::Locked(_))
    }

    /// Searches for a new first edge; keeps the counters.
    pub fn reset(&mut self) {
        self.sync = SquareWaveSync::Start;
    }

    /// Checks the next `n` received bits (`n` clamped to 64), bit 0 first; returns the number
    /// of bits that differ from the wave.
    pub fn check_bits(&mut self, bits: u64, n: u32) -> u64 {
        let n = n.min(64);
        if n == 0 {
            return 0;
        }
        let mask = low_mask(n);
        let bits = bits & mask;
        let last_bit = match self.sync {
            SquareWaveSync::Locked(mut expected) => {
                let errors = (bits ^ expected.next_bits(n)).count_ones() as u64;
                self.sync = SquareWaveSync::Locked(expected);
                return self.tally.add(errors);
            }
            // The first bit has no predecessor: pretend it was itself (no edge at bit 0).
            SquareWaveSync::Start => bits & 1,
            SquareWaveSync::Searching { last_bit } => last_bit,
        };
        let edges = (bits ^ ((bits << 1) | last_bit)) & mask;
        if edges == 0 {
            self.sync = SquareWaveSync::Searching {
                last_bit: (bits >> (n - 1)) & 1,
            };
            return 0;
        }
        let edge = edges.trailing_zeros();
        let rest = bits >> edge;
        let phase = if rest & 1 == 1 { 0 } else { self.run.to_u8() };
        let mut expected = SquareWaveGenerator::at_phase(self.run, phase);
        let errors = (rest ^ expected.next_bits(n - edge)).count_ones() as u64;
        self.sync = SquareWaveSync::Locked(expected);
        self.tally.add(errors)
    }

    /// Checks the next 64 received bits.
    pub fn check_word(&mut self, word: u64) -> u64 {
        self.check_bits(word, 64)
    }

    /// Checks received words, 64 bits each.
    pub fn check_words(&mut self, words: &[u64]) -> u64 {
        words.iter().map(|&w| self.check_word(w)).sum()
    }

    /// Checks the next 66 received bits given as a block.
    pub fn check_block(&mut self, block: Block) -> u64 {
        self.check_bits(block.sync.to_bits() as u64, 2) + self.check_bits(block.payload, 64)
    }
}

checker_counters!(SquareWaveChecker, "bit");

// ---------------------------------------------------------------------------------------------
// Pseudo-random
// ---------------------------------------------------------------------------------------------

/// The data pattern fed to the scrambler in pseudo-random mode (3.42 bit 0).
///
/// Spec: IEEE 802.3 §49.2.8, §45.2.3.17.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DataPattern {
    /// 3.42 bit 0 = 0: two Local Fault ordered sets.
    #[default]
    LocalFault,
    /// 3.42 bit 0 = 1: 64 zeros.
    Zeros,
}

impl DataPattern {
    /// The 64-bit payload fed to the scrambler for every block.
    ///
    /// Spec: IEEE 802.3 §49.2.8.
    // reading: the Local Fault pattern is the payload of two Local Fault ordered sets as
    // 64B/66B encodes them (`LBLOCK_T.payload`, 0x0100000001000055), sent with the data
    // header like every pseudo-random block (SPEC-NOTES U).
    #[must_use]
    pub const fn payload(self) -> u64 {
        match self {
            Self::LocalFault => Block::LBLOCK_T.payload,
            Self::Zeros => 0,
        }
    }
}

/// A 58-bit seed from the four 16-bit MDIO registers that hold it (3.34..3.37 for seed A,
/// 3.38..3.41 for seed B): `registers[0]` is bits 15:0, ..., `registers[3]` bits 57:48 (its
/// bits 15:10 are ignored).
///
/// Spec: IEEE 802.3 §45.2.3.16.
#[must_use]
pub const fn seed_from_registers(registers: [u16; 4]) -> u64 {
    let [r0, r1, r2, r3] = registers;
    ((r0 as u64) | (r1 as u64) << 16 | (r2 as u64) << 32 | (r3 as u64) << 48) & SCRAMBLER_STATE_MASK
}

/// The four register values holding a 58-bit seed (bits above 57 are dropped); the inverse of
/// [`seed_from_registers`].
///
/// Spec: IEEE 802.3 §45.2.3.16.
#[must_use]
pub const fn seed_to_registers(seed: u64) -> [u16; 4] {
    let seed = seed & SCRAMBLER_STATE_MASK;
    [
        seed as u16,
        (seed >> 16) as u16,
        (seed >> 32) as u16,
        (seed >> 48) as u16,
    ]
}

/// Blocks sent from each seed before the scrambler is reloaded with the next one.
// reading: 128 blocks per seed (SPEC-NOTES U).
pub const PSEUDO_RANDOM_BLOCKS_PER_SEED: u16 = 128;

/// The four seeds of one pseudo-random cycle, in order: seed A, its complement, seed B, its
/// complement (each 58 bits, in the scrambler-state convention of [`Scrambler`](crate::Scrambler)).
///
/// Spec: IEEE 802.3 §49.2.8.
// reading: the cycle A, !A, B, !B with a reload at each segment start (SPEC-NOTES U), and the
// seed value loaded as is into the state (seed bit 57 = the most recent line bit); the figure's
// S0..S57 labelling could instead mean the bit-reversed mapping.
#[must_use]
pub const fn pseudo_random_seeds(seed_a: u64, seed_b: u64) -> [u64; 4] {
    [
        seed_a & SCRAMBLER_STATE_MASK,
        !seed_a & SCRAMBLER_STATE_MASK,
        seed_b & SCRAMBLER_STATE_MASK,
        !seed_b & SCRAMBLER_STATE_MASK,
    ]
}

/// The pseudo-random test-pattern generator: the scrambler, reloaded with seed A, !A, B, !B
/// every 128 blocks, fed a fixed [`DataPattern`]; every block has the data sync header.
///
/// Spec: IEEE 802.3 §49.2.8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PseudoRandomGenerator {
    seeds: [u64; 4],
    pattern: DataPattern,
    scrambler: Scrambler,
    /// Index of the next block in the 512-block cycle.
    block_index: u16,
}

impl PseudoRandomGenerator {
    /// A generator at the start of a cycle (the next block is the first from seed A).
    #[must_use]
    pub const fn new(seed_a: u64, seed_b: u64, pattern: DataPattern) -> Self {
        let seeds = pseudo_random_seeds(seed_a, seed_b);
        Self {
            seeds,
            pattern,
            scrambler: Scrambler::new(seed_a),
            block_index: 0,
        }
    }

    /// Index of the next block in the cycle of `4 * 128` blocks.
    #[must_use]
    pub const fn block_index(&self) -> u16 {
        self.block_index
    }

    /// The next block.
    ///
    /// Spec: IEEE 802.3 §49.2.8.
    pub fn next_block(&mut self) -> Block {
        let segment = self.block_index / PSEUDO_RANDOM_BLOCKS_PER_SEED;
        if self.block_index % PSEUDO_RANDOM_BLOCKS_PER_SEED == 0 {
            let seed = self.seeds.get(segment as usize).copied().unwrap_or(0);
            self.scrambler = Scrambler::new(seed);
        }
        self.block_index = (self.block_index + 1) % (4 * PSEUDO_RANDOM_BLOCKS_PER_SEED);
        Block::data(self.scrambler.scramble(self.pattern.payload()))
    }

    /// Fills `blocks` with the next blocks.
    pub fn fill_blocks(&mut self, blocks: &mut [Block]) {
        for b in blocks {
            *b = self.next_block();
        }
    }
}

/// The pseudo-random test-pattern checker: counts received blocks that are not the next block
/// of the pattern.
///
/// A block passes if it has the data sync header and its payload is the data pattern
/// scrambled either from the previous received line bits (the state a self-synchronizing
/// descrambler has: every block but a segment's first) or from one of the four segment seeds
/// (a segment's first block: at a reload the transmitter's state jumps to the seed, so the
/// line does not continue the previous state and a plain descrambler would count a false
/// error there). Accepting any of the four seeds needs no knowledge of where the segments
/// start, so the checker can start anywhere in the cycle.
///
/// One wrong line bit at payload bit `i` fails its block and, when `i >= 6` (so the bit is
/// still in the 58-bit state), the next block too (unless that one starts a segment). The
/// payload of the first block after [`new`](Self::new) or [`reset`](Self::reset) has no line
/// state to be predicted from, so only its header is checked.
///
/// Spec: IEEE 802.3 §49.2.12.
// reading: acceptance by previous line state OR any segment seed, counting one error per
// failing block (the brief's reading; the standard's wording for reloads is unverified).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PseudoRandomChecker {
    pattern: DataPattern,
    /// The pattern scrambled from each segment seed: the first block of each segment.
    segment_first_blocks: [u64; 4],
    /// The last 58 received line bits, once a block has been received.
    line_state: Option<u64>,
    tally: Tally,
}

impl PseudoRandomChecker {
    /// A checker for the pattern of [`PseudoRandomGenerator::new`] with the same arguments.
    #[must_use]
    pub const fn new(seed_a: u64, seed_b: u64, pattern: DataPattern) -> Self {
        let [a, na, b, nb] = pseudo_random_seeds(seed_a, seed_b);
        let p = pattern.payload();
        Self {
            pattern,
            segment_first_blocks: [
                scramble_payload(a, p),
                scramble_payload(na, p),
                scramble_payload(b, p),
                scramble_payload(nb, p),
            ],
            line_state: None,
            tally: Tally {
                counter: TestPatternErrorCounter::new(),
                total: 0,
            },
        }
    }

    /// Forgets the line state; keeps the counters.
    pub fn reset(&mut self) {
        self.line_state = None;
    }

    /// Checks one received block; returns 1 if it is an error, else 0.
    ///
    /// Spec: IEEE 802.3 §49.2.12.
    pub fn check_block(&mut self, block: Block) -> u64 {
        let from_line = match self.line_state {
            Some(state) => scramble_payload(state, self.pattern.payload()) == block.payload,
            None => true, // nothing to predict from: not counted
        };
        let from_seed = self.segment_first_blocks.contains(&block.payload);
        let bad = block.sync != SyncHeader::DATA || !(from_line || from_seed);
        self.line_state = Some(block.payload >> 6);
        self.tally.add(bad as u64)
    }
}

checker_counters!(PseudoRandomChecker, "block");

// ---------------------------------------------------------------------------------------------
// Scrambled idle
// ---------------------------------------------------------------------------------------------

/// The scrambled idle test-pattern generator: idle blocks (control header, type 0x1E, eight
/// `/I/`) through the normal scrambler.
///
/// Spec: IEEE 802.3 §49.2.8, §45.2.3.17.
// reading: scrambled idle = the normal encoder's output when the XGMII carries only idles,
// scrambled as usual (SPEC-NOTES U).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ScrambledIdleGenerator {
    scrambler: Scrambler,
}

impl ScrambledIdleGenerator {
    /// A generator whose scrambler starts in `scrambler_state` (see [`Scrambler`](crate::Scrambler)).
    #[must_use]
    pub const fn new(scrambler_state: u64) -> Self {
        Self {
            scrambler: Scrambler::new(scrambler_state),
        }
    }

    /// The next block: a scrambled idle block.
    pub fn next_block(&mut self) -> Block {
        Block::control(self.scrambler.scramble(Block::IDLE.payload))
    }

    /// Fills `blocks` with the next blocks.
    pub fn fill_blocks(&mut self, blocks: &mut [Block]) {
        for b in blocks {
            *b = self.next_block();
        }
    }
}

/// The scrambled idle checker: descrambles each block and counts blocks that are not a valid
/// idle block (control header and payload `0x1e`, eight `/I/`).
///
/// The descrambler takes its state from the line; the payload of the first block after
/// [`new`](Self::new) or [`reset`](Self::reset) is not checked (its first 58 bits depend on the
/// unknown previous line bits), only its header. One wrong line bit at payload bit `i` fails its
/// block and, when `i >= 6`, the next one (the descrambler repeats it 39 and 58 bits later).
///
/// Spec: IEEE 802.3 §49.2.12.
// reading: count blocks that are not idle after descrambling (SPEC-NOTES U).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ScrambledIdleChecker {
    descrambler: Descrambler,
    primed: bool,
    tally: Tally,
}

impl ScrambledIdleChecker {
    /// A checker with no line history and zero errors.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the line history; keeps the counters.
    pub fn reset(&mut self) {
        self.primed = false;
    }

    /// Checks one received block; returns 1 if it is an error, else 0.
    pub fn check_block(&mut self, block: Block) -> u64 {
        let payload = self.descrambler.descramble(block.payload);
        let payload_bad = self.primed && payload != Block::IDLE.payload;
        self.primed = true;
        let bad = block.sync != SyncHeader::CONTROL || payload_bad;
        self.tally.add(bad as u64)
    }
}

checker_counters!(ScrambledIdleChecker, "block");

// ---------------------------------------------------------------------------------------------
// MDIO 3.42
// ---------------------------------------------------------------------------------------------

/// Which pattern the test-pattern generator and checker use (3.42 bit 1).
///
/// Spec: IEEE 802.3 §45.2.3.17.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TestPatternSelect {
    /// 3.42 bit 1 = 0: the pseudo-random pattern.
    #[default]
    PseudoRandom,
    /// 3.42 bit 1 = 1: the square wave.
    SquareWave,
}

/// What one direction of the PCS sends or checks, resolved from [`TestPatternControl`].
///
/// Spec: IEEE 802.3 §49.2.8, §49.2.12, §45.2.3.17.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TestMode {
    /// No test pattern: normal data.
    Normal,
    /// PRBS31 (bit 4 for TX, bit 5 for RX).
    Prbs31,
    /// Scrambled idle (bit 7 with the direction's test-pattern enable).
    ScrambledIdle,
    /// Pseudo-random with the given data pattern (test-pattern enable, bit 1 = 0).
    PseudoRandom(DataPattern),
    /// Square wave (test-pattern enable, bit 1 = 1; TX only, see [`TestPatternControl::rx_mode`]).
    SquareWave,
}

/// The 10GBASE-R PCS test-pattern control register, MDIO 3.42.
///
/// Spec: IEEE 802.3 §45.2.3.17.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TestPatternControl {
    /// Bit 0: data pattern select.
    pub data_pattern: DataPattern,
    /// Bit 1: test pattern select.
    pub test_pattern: TestPatternSelect,
    /// Bit 2: receive test-pattern enable.
    pub rx_test_pattern_enable: bool,
    /// Bit 3: transmit test-pattern enable.
    pub tx_test_pattern_enable: bool,
    /// Bit 4: PRBS31 transmit test-pattern enable.
    pub tx_prbs31_enable: bool,
    /// Bit 5: PRBS31 receive test-pattern enable.
    pub rx_prbs31_enable: bool,
    /// Bit 7: scrambled idle test-pattern enable.
    pub scrambled_idle_enable: bool,
    /// The register bits this model does not interpret (bit 6, PRBS9 in later editions, and
    /// bits 15:8), kept so a register value round-trips.
    pub other_bits: u16,
}

impl TestPatternControl {
    /// Bits with a field of their own.
    const MODELLED: u16 = 0b1011_1111;

    /// Decodes a register value.
    ///
    /// Spec: IEEE 802.3 §45.2.3.17.
    #[must_use]
    pub const fn from_register(value: u16) -> Self {
        const fn bit(value: u16, k: u32) -> bool {
            value >> k & 1 == 1
        }
        Self {
            data_pattern: if bit(value, 0) {
                DataPattern::Zeros
            } else {
                DataPattern::LocalFault
            },
            test_pattern: if bit(value, 1) {
                TestPatternSelect::SquareWave
            } else {
                TestPatternSelect::PseudoRandom
            },
            rx_test_pattern_enable: bit(value, 2),
            tx_test_pattern_enable: bit(value, 3),
            tx_prbs31_enable: bit(value, 4),
            rx_prbs31_enable: bit(value, 5),
            scrambled_idle_enable: bit(value, 7),
            other_bits: value & !Self::MODELLED,
        }
    }

    /// Encodes the register value.
    ///
    /// Spec: IEEE 802.3 §45.2.3.17.
    #[must_use]
    pub const fn to_register(self) -> u16 {
        let data = match self.data_pattern {
            DataPattern::LocalFault => 0,
            DataPattern::Zeros => 1,
        };
        let select = match self.test_pattern {
            TestPatternSelect::PseudoRandom => 0,
            TestPatternSelect::SquareWave => 1,
        };
        (self.other_bits & !Self::MODELLED)
            | data
            | select << 1
            | (self.rx_test_pattern_enable as u16) << 2
            | (self.tx_test_pattern_enable as u16) << 3
            | (self.tx_prbs31_enable as u16) << 4
            | (self.rx_prbs31_enable as u16) << 5
            | (self.scrambled_idle_enable as u16) << 7
    }

    /// What the transmitter sends.
    ///
    /// Spec: IEEE 802.3 §49.2.8.
    // reading: PRBS31 enable wins over everything; scrambled idle needs the TX test-pattern
    // enable (bit 7 is shared by both directions) and wins over bit 1 (U).
    #[must_use]
    pub const fn tx_mode(self) -> TestMode {
        Self::mode(
            self.tx_prbs31_enable,
            self.tx_test_pattern_enable,
            self.scrambled_idle_enable,
            self.test_pattern,
            self.data_pattern,
        )
    }

    /// What the receiver checks. With bit 1 = square wave the receiver reports
    /// [`TestMode::SquareWave`]; §49.2.12 defines no square-wave checker, the model's
    /// [`SquareWaveChecker`] stands in.
    ///
    /// Spec: IEEE 802.3 §49.2.12.
    // reading: as `tx_mode`, with bits 5 and 2 (U).
    #[must_use]
    pub const fn rx_mode(self) -> TestMode {
        Self::mode(
            self.rx_prbs31_enable,
            self.rx_test_pattern_enable,
            self.scrambled_idle_enable,
            self.test_pattern,
            self.data_pattern,
        )
    }

    const fn mode(
        prbs31: bool,
        test_pattern_enable: bool,
        scrambled_idle: bool,
        select: TestPatternSelect,
        data: DataPattern,
    ) -> TestMode {
        match (prbs31, test_pattern_enable, scrambled_idle, select) {
            (true, _, _, _) => TestMode::Prbs31,
            (false, false, _, _) => TestMode::Normal,
            (false, true, true, _) => TestMode::ScrambledIdle,
            (false, true, false, TestPatternSelect::PseudoRandom) => TestMode::PseudoRandom(data),
            (false, true, false, TestPatternSelect::SquareWave) => TestMode::SquareWave,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitvec::prelude::*;
    use proptest::prelude::*;

    type Bits = BitVec<u64, Lsb0>;

    // ---- bit-serial references, written from the recurrences, not from the code above ----

    /// PRBS31 bit by bit: the 31 state bits (oldest first), then `b_n = b_{n-28} ^ b_{n-31}`.
    /// Returns the `len` output bits, uninverted.
    fn prbs31_serial(state: u32, len: usize) -> Bits {
        let mut v: Bits = (0..31).map(|k| state >> k & 1 == 1).collect();
        for _ in 0..len {
            let n = v.len();
            let b = v[n - 28] ^ v[n - 31];
            v.push(b);
        }
        v.split_off(31)
    }

    fn words_of(bits: &BitSlice<u64, Lsb0>) -> Vec<u64> {
        bits.chunks(64).map(|c| c.load_le::<u64>()).collect()
    }

    fn blocks_of(bits: &BitSlice<u64, Lsb0>) -> Vec<Block> {
        bits.chunks_exact(66)
            .map(|c| Block {
                sync: SyncHeader::from_bits(c[..2].load_le::<u8>()),
                payload: c[2..].load_le::<u64>(),
            })
            .collect()
    }

    fn bits_of_words(words: &[u64]) -> Bits {
        let mut v = Bits::new();
        for w in words {
            v.extend_from_bitslice(w.view_bits::<Lsb0>());
        }
        v
    }

    /// A fresh PRBS31 checker bit by bit: bit i (i >= 31) is an error if it differs from
    /// `r_{i-28} ^ r_{i-31}` of the received bits (uninverted first).
    fn prbs31_check_serial(rx: &BitSlice<u64, Lsb0>, polarity: Prbs31Polarity) -> u64 {
        let r: Bits = rx
            .iter()
            .map(|b| *b ^ (polarity == Prbs31Polarity::Inverted))
            .collect();
        (31..r.len())
            .filter(|&i| r[i] != (r[i - 28] ^ r[i - 31]))
            .count() as u64
    }

    /// The square wave bit by bit: bit k is 1 iff `(phase + k) mod 2n < n`.
    fn square_serial(n: u8, phase: u8, len: usize) -> Bits {
        let (n, phase) = (n as usize, phase as usize);
        (0..len).map(|k| (phase + k) % (2 * n) < n).collect()
    }

    /// A fresh square-wave checker bit by bit: find the first k >= 1 with `r[k] != r[k-1]`,
    /// its phase is 0 for a 1 and n for a 0; count mismatches from k on.
    fn square_check_serial(n: u8, r: &BitSlice<u64, Lsb0>) -> u64 {
        let Some(k) = (1..r.len()).find(|&k| r[k] != r[k - 1]) else {
            return 0;
        };
        let phase = if r[k] { 0 } else { n };
        let expected = square_serial(n, phase, r.len() - k);
        r[k..]
            .iter()
            .zip(expected.iter())
            .filter(|(a, b)| **a != **b)
            .count() as u64
    }

    /// The §49.2.6 scrambler bit by bit, `s_i = d_i ^ s_{i-39} ^ s_{i-58}`, from a 58-bit state
    /// whose bit 0 is the oldest line bit.
    fn scramble_serial(state: u64, payload: u64) -> u64 {
        let mut s: Bits = (0..58).map(|k| state >> k & 1 == 1).collect();
        for i in 0..64 {
            let n = s.len();
            let b = (payload >> i & 1 == 1) ^ s[n - 39] ^ s[n - 58];
            s.push(b);
        }
        s[58..].load_le::<u64>()
    }

    /// The pseudo-random sequence block by block: 128 blocks per seed, A, !A, B, !B, the
    /// scrambler reloaded at each segment start, data header.
    fn pseudo_random_serial(a: u64, b: u64, pattern: u64, len: usize) -> Vec<Block> {
        let m = (1u64 << 58) - 1;
        let seeds = [a & m, !a & m, b & m, !b & m];
        let mut state = 0;
        (0..len)
            .map(|i| {
                if i % 128 == 0 {
                    state = seeds[(i / 128) % 4];
                }
                let line = scramble_serial(state, pattern);
                state = line >> 6;
                Block::data(line)
            })
            .collect()
    }

    // ---- PRBS31 ----

    #[test]
    fn prbs31_first_64_bits_from_all_ones_match_hand_derivation() {
        // From all ones: b_0..b_27 = 1 ^ 1 = 0; b_28..b_30 = b_{0..2} ^ 1 = 1;
        // b_31..b_55 = b_{3..27} ^ b_{0..24} = 0; b_56..b_58 = b_{28..30} ^ b_{25..27} = 1;
        // b_59..b_61 = b_{31..33} ^ b_{28..30} = 1; b_62, b_63 = b_{34,35} ^ b_{31,32} = 0.
        let expected = 0x3f00_0000_7000_0000;
        assert_eq!(Prbs31Generator::default().next_word(), expected);
        assert_eq!(words_of(&prbs31_serial(0x7fff_ffff, 64)), [expected]);
    }

    #[test]
    fn prbs31_inverted_is_the_complement_of_the_lfsr_output() {
        let mut g = Prbs31Generator::new(0x7fff_ffff, Prbs31Polarity::Inverted);
        assert_eq!(g.next_word(), !0x3f00_0000_7000_0000);
        let mut n = Prbs31Generator::new(0x1234_5678, Prbs31Polarity::Normal);
        let mut i = Prbs31Generator::new(0x1234_5678, Prbs31Polarity::Inverted);
        for _ in 0..100 {
            assert_eq!(n.next_word(), !i.next_word());
        }
    }

    #[test]
    fn prbs31_satisfies_its_recurrence_at_every_position_for_100000_bits() {
        let mut g = Prbs31Generator::default();
        let mut words = vec![0; 100_000 / 64 + 1];
        g.fill_words(&mut words);
        let v = bits_of_words(&words);
        let bad = (31..v.len())
            .filter(|&n| v[n] != (v[n - 28] ^ v[n - 31]))
            .count();
        assert_eq!(bad, 0);
        // And it is not trivially constant.
        let ones = v.count_ones();
        assert!(ones > v.len() * 45 / 100 && ones < v.len() * 55 / 100);
    }

    #[test]
    fn prbs31_period_is_2_pow_31_minus_1() {
        // 2^31 - 1 is prime, so returning to the start state after 2^31 - 1 bits (and not
        // after 1 bit) proves the period is exactly 2^31 - 1: a maximal-length sequence.
        let start = Prbs31Generator::DEFAULT_STATE;
        let mut g = Prbs31Generator::default();
        g.next_bits(1);
        assert_ne!(g.state(), start);
        let mut g = Prbs31Generator::default();
        let len: u64 = (1 << 31) - 1;
        for _ in 0..len / 64 {
            g.next_word();
        }
        g.next_bits((len % 64) as u32);
        assert_eq!(g.state(), start);
    }

    #[test]
    fn prbs31_blocks_take_the_sync_header_from_the_first_two_stream_bits() {
        let mut g = Prbs31Generator::default();
        let mut blocks = [Block::IDLE; 20];
        g.fill_blocks(&mut blocks);
        assert_eq!(
            &blocks[..],
            &blocks_of(&prbs31_serial(0x7fff_ffff, 66 * 20))[..]
        );
        // The first block: bits 0, 1 are zero (invalid header 0b00), payload = bits 2..65.
        assert_eq!(blocks[0].sync, SyncHeader::from_bits(0));
        assert_eq!(
            blocks[0].payload & 0xffff_ffff,
            0x3f00_0000_7000_0000u64 >> 2 & 0xffff_ffff
        );
    }

    #[test]
    fn prbs31_checker_counts_zero_on_a_clean_stream() {
        for polarity in [Prbs31Polarity::Normal, Prbs31Polarity::Inverted] {
            let mut g = Prbs31Generator::new(0x0bad_cafe, polarity);
            let mut words = [0; 200];
            g.fill_words(&mut words);
            let mut blocks = [Block::IDLE; 200];
            g.fill_blocks(&mut blocks);
            let mut c = Prbs31Checker::new(polarity);
            assert_eq!(c.check_words(&words), 0);
            assert_eq!(c.check_blocks(&blocks), 0);
            assert_eq!(c.total_errors(), 0);
            assert_eq!(c.error_counter().read(), 0);
        }
    }

    #[test]
    fn prbs31_checker_with_the_wrong_polarity_fails_every_predicted_bit() {
        // An inverted stream obeys c_n = !(c_{n-28} ^ c_{n-31}), so every prediction fails.
        let mut g = Prbs31Generator::new(0x7fff_ffff, Prbs31Polarity::Inverted);
        let mut c = Prbs31Checker::new(Prbs31Polarity::Normal);
        let words: Vec<u64> = (0..10).map(|_| g.next_word()).collect();
        assert_eq!(c.check_words(&words), 640 - 31);
    }

    #[test]
    fn prbs31_checker_does_not_count_its_first_31_bits() {
        let mut c = Prbs31Checker::new(Prbs31Polarity::Normal);
        // 31 bits of anything: nothing to predict from.
        assert_eq!(c.check_bits(0x5555_5555, 31), 0);
        // Bit 31 is predicted from bits 3 and 0 (0 ^ 1 = 1): a 0 is an error, a 1 is not.
        let mut d = c;
        assert_eq!(c.check_bits(0, 1), 1);
        assert_eq!(d.check_bits(1, 1), 0);
    }

    #[test]
    fn prbs31_checker_counts_three_errors_for_one_line_bit_error() {
        // One line error is counted at itself and in the predictions 28 and 31 bits later.
        let mut g = Prbs31Generator::default();
        let mut words = [0; 8];
        g.fill_words(&mut words);
        words[3] ^= 1 << 17;
        let mut c = Prbs31Checker::new(Prbs31Polarity::Normal);
        assert_eq!(c.check_words(&words), 3);
        assert_eq!(c.error_counter().read(), 3);
        assert_eq!(c.error_counter().read(), 0, "3.43 clears on read");
        assert_eq!(c.total_errors(), 3);
    }

    #[test]
    fn prbs31_checker_reset_forgets_the_history_and_keeps_the_counts() {
        let mut a = Prbs31Generator::new(0x7fff_ffff, Prbs31Polarity::Normal);
        let mut b = Prbs31Generator::new(0x1357_9bdf, Prbs31Polarity::Normal);
        let mut c = Prbs31Checker::new(Prbs31Polarity::Normal);
        let mut word = a.next_word();
        word ^= 1 << 40;
        assert_eq!(
            c.check_word(word),
            1,
            "bit 40, predicted from bits 12 and 9"
        );
        // After a reset an unrelated phase counts nothing: its first 31 bits are history.
        c.reset();
        for _ in 0..20 {
            assert_eq!(c.check_word(b.next_word()), 0);
        }
        assert_eq!(c.total_errors(), 1);
    }

    #[test]
    fn prbs31_checker_counts_a_block_as_its_66_bits() {
        // A block is its 2 header bits then its 64 payload bits. With the checker in step, a
        // flip of header bit 0 (stream bit 66) counts there and in the predictions of bits 94
        // and 97 (payload bits 26 and 29); a flip of payload bit 63 (bit 131) counts there, its
        // spoiled predictions fall in the next block: 1 in the header, 3 in the payload.
        let mut g = Prbs31Generator::default();
        let mut blocks = [Block::IDLE; 4];
        g.fill_blocks(&mut blocks);
        let mut c = Prbs31Checker::new(Prbs31Polarity::Normal);
        assert_eq!(c.check_block(blocks[0]), 0);
        let mut b = blocks[1];
        b.sync = SyncHeader::from_bits(b.sync.to_bits() ^ 1);
        b.payload ^= 1 << 63;
        assert_eq!(c.check_block(b), 4);
    }

    #[test]
    fn prbs31_checker_resynchronizes_after_31_clean_bits() {
        // Switch to an unrelated PRBS31 phase after 1000 bits: only bits whose 31-bit history
        // straddles the switch can be counted; from 31 bits after it, nothing.
        let mut a = Prbs31Generator::new(0x7fff_ffff, Prbs31Polarity::Normal);
        let mut b = Prbs31Generator::new(0x1357_9bdf, Prbs31Polarity::Normal);
        let mut c = Prbs31Checker::new(Prbs31Polarity::Normal);
        for _ in 0..1000 {
            assert_eq!(c.check_bits(a.next_bits(1), 1), 0);
        }
        let straddling = c.check_bits(b.next_bits(31), 31);
        assert!(straddling > 0 && straddling <= 31);
        for _ in 0..100 {
            assert_eq!(c.check_word(b.next_word()), 0);
        }
    }

    proptest! {
        #[test]
        fn prbs31_generator_matches_bit_serial(
            state in any::<u32>(),
            chunks in prop::collection::vec(0u32..=70, 0..40),
            inverted in any::<bool>(),
        ) {
            let polarity = if inverted { Prbs31Polarity::Inverted } else { Prbs31Polarity::Normal };
            let mut g = Prbs31Generator::new(state, polarity);
            let mut fast = Bits::new();
            for &n in &chunks {
                let w = g.next_bits(n);
                let n = n.min(64) as usize;
                prop_assert_eq!(w & !low_mask(n as u32), 0);
                fast.extend_from_bitslice(&w.view_bits::<Lsb0>()[..n]);
            }
            let mut serial = prbs31_serial(state & 0x7fff_ffff, fast.len());
            if inverted {
                serial = !serial;
            }
            prop_assert_eq!(fast, serial);
        }

        #[test]
        fn prbs31_checker_matches_bit_serial(
            words in prop::collection::vec(any::<u64>(), 0..20),
            inverted in any::<bool>(),
        ) {
            let polarity = if inverted { Prbs31Polarity::Inverted } else { Prbs31Polarity::Normal };
            let mut c = Prbs31Checker::new(polarity);
            prop_assert_eq!(c.check_words(&words), prbs31_check_serial(&bits_of_words(&words), polarity));
        }

        #[test]
        fn prbs31_checker_counts_three_per_isolated_bit_error(
            state in 1u32..0x7fff_ffff,
            gaps in prop::collection::vec(32usize..300, 1..10),
        ) {
            let mut g = Prbs31Generator::new(state, Prbs31Polarity::Normal);
            let mut words = vec![0; 64];
            g.fill_words(&mut words);
            let mut v = bits_of_words(&words);
            let mut at = 0;
            let mut flipped = 0;
            for gap in gaps {
                at += gap; // >= 31 past the start and past the previous error
                if at + 32 > v.len() { break; }
                let b = v[at];
                v.set(at, !b);
                flipped += 1;
            }
            let mut c = Prbs31Checker::new(Prbs31Polarity::Normal);
            prop_assert_eq!(c.check_words(&words_of(&v)), 3 * flipped);
        }

        #[test]
        fn prbs31_chunked_equals_whole(
            words in prop::collection::vec(any::<u64>(), 0..20),
            chunks in prop::collection::vec(0u32..=64, 0..60),
        ) {
            let v = bits_of_words(&words);
            let mut whole = Prbs31Checker::new(Prbs31Polarity::Normal);
            let mut chunked = Prbs31Checker::new(Prbs31Polarity::Normal);
            let mut at = 0;
            for n in chunks {
                let n = (n as usize).min(v.len() - at);
                let bits = if n == 0 { 0 } else { v[at..at + n].load_le::<u64>() };
                chunked.check_bits(bits, n as u32);
                at += n;
            }
            let rest = &v[at..];
            for c in rest.chunks(64) {
                chunked.check_bits(c.load_le::<u64>(), c.len() as u32);
            }
            prop_assert_eq!(chunked.total_errors(), whole.check_words(&words));
        }
    }

    // ---- Square wave ----

    fn run(n: u8) -> SquareWaveRun {
        SquareWaveRun::try_new(n).unwrap()
    }

    #[test]
    fn square_wave_run_accepts_only_4_to_11() {
        let accepted: Vec<u8> = (0..=255)
            .filter(|&n| SquareWaveRun::try_new(n).is_some())
            .collect();
        assert_eq!(accepted, (4..=11).collect::<Vec<u8>>());
    }

    #[test]
    fn square_wave_words_are_n_ones_then_n_zeros_bit_0_first() {
        let mut g = SquareWaveGenerator::new(run(4));
        assert_eq!(g.next_word(), 0x0f0f_0f0f_0f0f_0f0f);
        let mut g = SquareWaveGenerator::new(run(8));
        assert_eq!(g.next_word(), 0x00ff_00ff_00ff_00ff);
        assert_eq!(g.next_word(), 0x00ff_00ff_00ff_00ff);
        // n = 5, period 10: ones at 0..5, 10..15, ..., 60..64; the next word starts at
        // phase 64 mod 10 = 4: one 1, then five 0s, ...
        let mut g = SquareWaveGenerator::new(run(5));
        let first = (0..7).fold(0u64, |w, k| w | 0x1f << (10 * k));
        assert_eq!(g.next_word(), first);
        assert_eq!(g.next_word() & 0x7ff, 0b111_1100_0001);
    }

    #[test]
    fn square_wave_n11_gives_the_same_block_every_time() {
        // 66 = 3 periods of 22: stream ones at 0..11, 22..33, 44..55 -> sync bits 0, 1 = 1, 1;
        // payload (stream bits 2..66) ones at 0..9, 20..31, 42..53.
        let ones = |a: u32, b: u32| ((1u64 << (b - a)) - 1) << a;
        let expected = Block {
            sync: SyncHeader::from_bits(0b11),
            payload: ones(0, 9) | ones(20, 31) | ones(42, 53),
        };
        let mut g = SquareWaveGenerator::new(run(11));
        for _ in 0..10 {
            assert_eq!(g.next_block(), expected);
        }
    }

    #[test]
    fn square_wave_checker_ignores_bits_above_n_and_relocks_after_reset() {
        let mut g = SquareWaveGenerator::new(run(6));
        let mut c = SquareWaveChecker::new(run(6));
        // 10 bits at a time, with garbage above them: only the 10 count.
        for _ in 0..30 {
            let bits = g.next_bits(10) | 0xdead_beef << 10;
            assert_eq!(c.check_bits(bits, 10), 0);
        }
        assert!(c.is_locked());
        // Half a period off: every bit differs, until a reset finds the new phase.
        let mut h = SquareWaveGenerator::at_phase(run(6), g.phase() + 6);
        assert_eq!(c.check_word(h.next_word()), 64);
        c.reset();
        assert!(!c.is_locked());
        for _ in 0..10 {
            assert_eq!(c.check_word(h.next_word()), 0);
        }
        assert_eq!(c.total_errors(), 64);
        // A block is its 2 header bits then its 64 payload bits: one flip in each, 2 errors.
        let mut blocks = [Block::IDLE; 2];
        h.fill_blocks(&mut blocks);
        blocks[1].sync = SyncHeader::from_bits(blocks[1].sync.to_bits() ^ 2);
        blocks[1].payload ^= 1 << 5;
        assert_eq!(c.check_block(blocks[0]), 0);
        assert_eq!(c.check_block(blocks[1]), 2);
    }

    #[test]
    fn square_wave_checker_counts_zero_on_a_clean_stream_from_any_phase() {
        for n in 4..=11 {
            for phase in 0..2 * n {
                let mut g = SquareWaveGenerator::at_phase(run(n), phase);
                assert_eq!(g.phase(), phase);
                let mut c = SquareWaveChecker::new(run(n));
                let mut blocks = [Block::IDLE; 30];
                g.fill_blocks(&mut blocks);
                assert_eq!(c.check_blocks(&blocks), 0);
                assert!(c.is_locked());
                // 30 blocks are 1980 bits: the phase has moved on by as many, modulo 2n.
                assert_eq!(
                    u32::from(g.phase()),
                    (u32::from(phase) + 1980) % (2 * u32::from(n))
                );
                let mut words = [0; 30];
                g.fill_words(&mut words);
                assert_eq!(c.check_words(&words), 0);
            }
        }
    }

    #[test]
    fn square_wave_checker_never_locks_on_a_stuck_line() {
        let mut c = SquareWaveChecker::new(run(6));
        assert_eq!(c.check_words(&[u64::MAX; 10]), 0);
        assert!(!c.is_locked());
        // A wave of the wrong run length locks and counts.
        let mut g = SquareWaveGenerator::new(run(7));
        let words: Vec<u64> = (0..10).map(|_| g.next_word()).collect();
        assert!(c.check_words(&words) > 0);
    }

    #[test]
    fn square_wave_checker_takes_its_phase_from_the_first_edge() {
        // Five ones then the n = 4 wave from its zeros: the first edge (1 -> 0 at bit 5)
        // says phase n there; nothing before it is counted.
        let mut c = SquareWaveChecker::new(run(4));
        let word = 0b1_1111 | 0x0f0f_0f0f_0f0f_0f0f_u64 << 9;
        assert_eq!(c.check_word(word), 0);
        assert_eq!(c.check_word(!0x0f0f_0f0f_0f0f_0f0f_u64.rotate_left(9)), 64);
    }

    proptest! {
        #[test]
        fn square_wave_generator_matches_bit_serial(
            n in 4u8..=11,
            phase in any::<u8>(),
            chunks in prop::collection::vec(0u32..=70, 0..40),
        ) {
            let mut g = SquareWaveGenerator::at_phase(run(n), phase);
            let mut fast = Bits::new();
            for &k in &chunks {
                let w = g.next_bits(k);
                let k = k.min(64) as usize;
                prop_assert_eq!(w & !low_mask(k as u32), 0);
                fast.extend_from_bitslice(&w.view_bits::<Lsb0>()[..k]);
            }
            prop_assert_eq!(fast.clone(), square_serial(n, phase % (2 * n), fast.len()));
        }

        #[test]
        fn square_wave_checker_matches_bit_serial(
            n in 4u8..=11,
            words in prop::collection::vec(any::<u64>(), 0..10),
            stuck in prop::collection::vec(prop::bool::ANY, 0..3),
        ) {
            // Lead with whole stuck words now and then, so the search crosses word borders.
            let mut all: Vec<u64> = stuck.iter().map(|&b| if b { u64::MAX } else { 0 }).collect();
            all.extend(words);
            let mut c = SquareWaveChecker::new(run(n));
            prop_assert_eq!(c.check_words(&all), square_check_serial(n, &bits_of_words(&all)));
        }

        #[test]
        fn square_wave_checker_counts_each_flipped_bit_after_the_first_edge(
            n in 4u8..=11,
            phase in 1u8..22,
            flips in prop::collection::btree_set(32usize..1280, 0..20),
        ) {
            // Phase >= 1 within a period of 8..22 bits: the first edge is before bit 22.
            let mut g = SquareWaveGenerator::at_phase(run(n), phase);
            let mut words = [0; 20];
            g.fill_words(&mut words);
            let mut v = bits_of_words(&words);
            for &i in &flips {
                let b = v[i];
                v.set(i, !b);
            }
            let mut c = SquareWaveChecker::new(run(n));
            prop_assert_eq!(c.check_words(&words_of(&v)), flips.len() as u64);
        }

        #[test]
        fn square_wave_chunked_equals_whole(
            n in 4u8..=11,
            words in prop::collection::vec(any::<u64>(), 0..10),
            chunks in prop::collection::vec(0u32..=64, 0..30),
        ) {
            let v = bits_of_words(&words);
            let mut whole = SquareWaveChecker::new(run(n));
            let mut chunked = SquareWaveChecker::new(run(n));
            let mut at = 0;
            for k in chunks {
                let k = (k as usize).min(v.len() - at);
                let bits = if k == 0 { 0 } else { v[at..at + k].load_le::<u64>() };
                chunked.check_bits(bits, k as u32);
                at += k;
            }
            for c in v[at..].chunks(64) {
                chunked.check_bits(c.load_le::<u64>(), c.len() as u32);
            }
            prop_assert_eq!(chunked.total_errors(), whole.check_words(&words));
        }
    }

    // ---- Pseudo-random ----

    #[test]
    fn local_fault_data_pattern_is_two_encoded_local_fault_ordered_sets() {
        // reading: LF pattern = LBLOCK_T payload. Type 0x55 in 7:0, O codes 0, lanes 1..3 and
        // 5..7 = 00 00 01: byte 3 and byte 7 are 0x01.
        assert_eq!(DataPattern::LocalFault.payload(), 0x0100_0000_0100_0055);
        assert_eq!(DataPattern::Zeros.payload(), 0);
    }

    #[test]
    fn seed_registers_hold_bits_15_0_first_and_57_48_in_the_fourth() {
        let seed = seed_from_registers([0x1111, 0x2222, 0x3333, 0xffff]);
        assert_eq!(seed, 0x03ff_3333_2222_1111);
        assert_eq!(seed_to_registers(seed), [0x1111, 0x2222, 0x3333, 0x03ff]);
        assert_eq!(
            seed_from_registers(seed_to_registers(0x0123_4567_89ab_cdef)),
            0x0123_4567_89ab_cdef & SCRAMBLER_STATE_MASK
        );
    }

    #[test]
    fn pseudo_random_first_block_from_all_ones_seed_and_zeros_matches_hand_derivation() {
        // From all ones: s_i = 0 ^ 1 ^ 1 = 0 for i < 39, s_i = s_{i-39} ^ 1 = 1 for i in 39..58,
        // then s_i = s_{i-39} ^ s_{i-58} = 0 ^ 0 for i in 58..64.
        let mut g = PseudoRandomGenerator::new(SCRAMBLER_STATE_MASK, 0, DataPattern::Zeros);
        assert_eq!(g.next_block(), Block::data(((1 << 19) - 1) << 39));
    }

    #[test]
    fn pseudo_random_reloads_a_not_a_b_not_b_every_128_blocks() {
        // reading: seeds A = 0 and B = 0 with the zeros pattern: the scrambler stays at 0 for
        // segments A and B; segments !A and !B start from all ones (the hand value above).
        let from_ones = ((1u64 << 19) - 1) << 39;
        let mut g = PseudoRandomGenerator::new(0, 0, DataPattern::Zeros);
        let mut blocks = vec![Block::IDLE; 1024 + 1];
        g.fill_blocks(&mut blocks);
        for (i, b) in blocks.iter().enumerate() {
            assert_eq!(b.sync, SyncHeader::DATA);
            match (i % 512) / 128 {
                0 | 2 => assert_eq!(b.payload, 0, "block {i}"),
                _ => {}
            }
        }
        for first in [128, 384, 640, 896] {
            assert_eq!(blocks[first].payload, from_ones, "block {first}");
            assert_ne!(blocks[first + 1].payload, 0);
        }
        assert_eq!(g.block_index(), 1);
        let _ = g.next_block();
        assert_eq!(g.block_index(), 2);
    }

    #[test]
    fn pseudo_random_and_scrambled_idle_checkers_forget_the_line_on_reset() {
        // A stream from other seeds, mid-segment: nothing predicts its first block after a
        // reset, and the blocks after it follow from the line.
        let (a, b) = (0x0123_4567_89ab_cdef, 0x0fed_cba9_8765_4321);
        let mut g = PseudoRandomGenerator::new(a, b, DataPattern::Zeros);
        let mut ours = vec![Block::IDLE; 300];
        g.fill_blocks(&mut ours);
        let mut h = PseudoRandomGenerator::new(5, 6, DataPattern::Zeros);
        let mut theirs = vec![Block::IDLE; 50];
        h.fill_blocks(&mut theirs);
        let mut c = PseudoRandomChecker::new(a, b, DataPattern::Zeros);
        assert_eq!(c.check_blocks(&ours), 0);
        let mut d = c;
        assert_eq!(
            d.check_blocks(&theirs[20..30]),
            1,
            "without a reset, the jump counts"
        );
        c.reset();
        assert_eq!(c.check_blocks(&theirs[20..30]), 0);
        // The same for scrambled idles from another scrambler state.
        let mut g = ScrambledIdleGenerator::new(0x0123_4567_89ab_cdef);
        let mut h = ScrambledIdleGenerator::new(0x0fff_0000_ffff_0000);
        let mut ours = [Block::IDLE; 20];
        let mut theirs = [Block::IDLE; 20];
        g.fill_blocks(&mut ours);
        h.fill_blocks(&mut theirs);
        let mut c = ScrambledIdleChecker::new();
        assert_eq!(c.check_blocks(&ours), 0);
        let mut d = c;
        assert_eq!(
            d.check_blocks(&theirs),
            1,
            "without a reset, the jump counts"
        );
        c.reset();
        assert_eq!(c.check_blocks(&theirs), 0);
        assert_eq!(c.total_errors(), 0);
    }

    #[test]
    fn pseudo_random_checker_counts_zero_on_clean_cycles_from_any_start() {
        for pattern in [DataPattern::LocalFault, DataPattern::Zeros] {
            let (a, b) = (0x0123_4567_89ab_cdef, 0x0fed_cba9_8765_4321);
            let mut g = PseudoRandomGenerator::new(a, b, pattern);
            let mut blocks = vec![Block::IDLE; 1500];
            g.fill_blocks(&mut blocks);
            for start in [0, 1, 127, 128, 300, 511] {
                let mut c = PseudoRandomChecker::new(a, b, pattern);
                assert_eq!(c.check_blocks(&blocks[start..]), 0, "start {start}");
            }
            // The other pattern fails every block after the first (which has no prediction;
            // the segment starts do not match the other pattern's seed blocks either).
            let other = match pattern {
                DataPattern::LocalFault => DataPattern::Zeros,
                DataPattern::Zeros => DataPattern::LocalFault,
            };
            let mut c = PseudoRandomChecker::new(a, b, other);
            assert_eq!(c.check_blocks(&blocks[..600]), 599);
        }
    }

    #[test]
    fn pseudo_random_checker_counts_each_block_without_the_data_header() {
        let mut g = PseudoRandomGenerator::new(1, 2, DataPattern::LocalFault);
        let mut blocks = vec![Block::IDLE; 600];
        g.fill_blocks(&mut blocks);
        for (i, h) in [(0, 0b01), (10, 0b00), (128, 0b11), (200, 0b01)] {
            blocks[i].sync = SyncHeader::from_bits(h);
        }
        let mut c = PseudoRandomChecker::new(1, 2, DataPattern::LocalFault);
        assert_eq!(c.check_blocks(&blocks), 4);
        assert_eq!(c.error_counter().read(), 4);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        #[test]
        fn pseudo_random_matches_bit_serial_scrambler_with_reloads(
            a in any::<u64>(),
            b in any::<u64>(),
            zeros in any::<bool>(),
        ) {
            let pattern = if zeros { DataPattern::Zeros } else { DataPattern::LocalFault };
            let mut g = PseudoRandomGenerator::new(a, b, pattern);
            let mut fast = vec![Block::IDLE; 600];
            g.fill_blocks(&mut fast);
            prop_assert_eq!(fast, pseudo_random_serial(a, b, pattern.payload(), 600));
        }

        #[test]
        fn pseudo_random_checker_counts_one_block_or_two_per_line_bit_error(
            a in any::<u64>(),
            b in any::<u64>(),
            block in 1usize..500,
            bit in 0u32..64,
        ) {
            // An error at payload bit i reaches the descrambled bits i, i+39, i+58: the next
            // block too when i >= 6 (unless the next block starts a segment: seed-accepted).
            let mut g = PseudoRandomGenerator::new(a, b, DataPattern::LocalFault);
            let mut blocks = vec![Block::IDLE; 520];
            g.fill_blocks(&mut blocks);
            blocks[block].payload ^= 1 << bit;
            let next_starts_segment = (block + 1) % 128 == 0;
            let expected = if bit >= 6 && !next_starts_segment { 2 } else { 1 };
            let mut c = PseudoRandomChecker::new(a, b, DataPattern::LocalFault);
            prop_assert_eq!(c.check_blocks(&blocks), expected);
        }

        #[test]
        fn pseudo_random_chunked_equals_whole(
            a in any::<u64>(),
            payloads in prop::collection::vec(any::<u64>(), 0..40),
            split in 0usize..40,
        ) {
            let mut g = PseudoRandomGenerator::new(a, !a, DataPattern::Zeros);
            let mut blocks: Vec<Block> = (0..300).map(|_| g.next_block()).collect();
            for (k, p) in payloads.iter().enumerate() {
                blocks[(k * 7) % 300].payload ^= p;
            }
            let split = split.min(blocks.len());
            let mut whole = PseudoRandomChecker::new(a, !a, DataPattern::Zeros);
            let mut chunked = whole;
            let n = whole.check_blocks(&blocks);
            let m = chunked.check_blocks(&blocks[..split]) + chunked.check_blocks(&blocks[split..]);
            prop_assert_eq!(n, m);
        }
    }

    // ---- Scrambled idle ----

    #[test]
    fn scrambled_idle_blocks_descramble_to_idle_blocks() {
        let mut g = ScrambledIdleGenerator::new(0x0155_5555_5555_5555);
        let mut d = Descrambler::new(0x0155_5555_5555_5555);
        for _ in 0..100 {
            let b = g.next_block();
            assert_eq!(b.sync, SyncHeader::CONTROL);
            assert_eq!(d.descramble(b.payload), 0x1e);
        }
    }

    #[test]
    fn scrambled_idle_checker_counts_zero_on_a_clean_stream_from_any_state() {
        let mut g = ScrambledIdleGenerator::new(0x0123_4567_89ab_cdef);
        let mut blocks = [Block::IDLE; 100];
        g.fill_blocks(&mut blocks);
        let mut c = ScrambledIdleChecker::new();
        assert_eq!(c.check_blocks(&blocks), 0);
        // Unscrambled idles are errors once the descrambler has history.
        let mut c = ScrambledIdleChecker::new();
        assert_eq!(c.check_blocks(&[Block::IDLE; 10]), 9);
    }

    proptest! {
        #[test]
        fn scrambled_idle_checker_counts_one_block_or_two_per_line_bit_error(
            state in any::<u64>(),
            block in 1usize..20,
            bit in 0u32..64,
        ) {
            let mut g = ScrambledIdleGenerator::new(state);
            let mut blocks = [Block::IDLE; 30];
            g.fill_blocks(&mut blocks);
            blocks[block].payload ^= 1 << bit;
            let mut c = ScrambledIdleChecker::new();
            prop_assert_eq!(c.check_blocks(&blocks), if bit >= 6 { 2 } else { 1 });
        }
    }

    proptest! {
        #[test]
        fn no_input_panics(
            steps in prop::collection::vec((any::<u64>(), any::<u32>(), any::<u8>()), 0..40),
            seed in any::<u64>(),
        ) {
            let mut prbs = Prbs31Generator::new(seed as u32, Prbs31Polarity::Inverted);
            let mut prbs_c = Prbs31Checker::new(Prbs31Polarity::Normal);
            let mut sq_c = SquareWaveChecker::new(run(4 + (seed % 8) as u8));
            let mut pr_c = PseudoRandomChecker::new(seed, !seed, DataPattern::LocalFault);
            let mut si_c = ScrambledIdleChecker::new();
            for (bits, n, h) in steps {
                let mut sq = SquareWaveGenerator::at_phase(run(4 + h % 8), h);
                let _ = (prbs.next_bits(n), sq.next_bits(n));
                let block = Block { sync: SyncHeader::from_bits(h), payload: bits };
                let _ = (prbs_c.check_bits(bits, n), sq_c.check_bits(bits, n));
                let _ = (prbs_c.check_block(block), sq_c.check_block(block));
                let _ = (pr_c.check_block(block), si_c.check_block(block));
                let _ = TestPatternControl::from_register(bits as u16).tx_mode();
            }
        }
    }

    // ---- 3.42 / 3.43 ----

    #[test]
    fn error_counter_saturates_at_ffff_and_clears_on_read() {
        let mut c = TestPatternErrorCounter::new();
        c.add(0xfffe);
        assert_eq!(c.value(), 0xfffe);
        c.add(5);
        assert_eq!(c.value(), 0xffff);
        c.add(u64::MAX);
        assert_eq!(c.read(), 0xffff);
        assert_eq!(c.read(), 0);
        c.add(7);
        assert_eq!(c.read(), 7);
    }

    #[test]
    fn checker_counter_saturates_but_total_keeps_counting() {
        // 2000 words of an inverted stream through a normal checker: 128000 - 31 errors.
        let mut g = Prbs31Generator::new(0x7fff_ffff, Prbs31Polarity::Inverted);
        let mut c = Prbs31Checker::new(Prbs31Polarity::Normal);
        for _ in 0..2000 {
            c.check_word(g.next_word());
        }
        assert_eq!(c.total_errors(), 128_000 - 31);
        assert_eq!(c.error_counter().read(), 0xffff);
    }

    #[test]
    fn test_pattern_control_round_trips_every_register_value() {
        for v in 0..=u16::MAX {
            assert_eq!(TestPatternControl::from_register(v).to_register(), v);
        }
    }

    #[test]
    fn test_pattern_control_bits_are_the_3_42_fields() {
        let f = TestPatternControl::from_register;
        assert_eq!(f(0), TestPatternControl::default());
        assert_eq!(f(1 << 0).data_pattern, DataPattern::Zeros);
        assert_eq!(f(1 << 1).test_pattern, TestPatternSelect::SquareWave);
        assert!(f(1 << 2).rx_test_pattern_enable);
        assert!(f(1 << 3).tx_test_pattern_enable);
        assert!(f(1 << 4).tx_prbs31_enable);
        assert!(f(1 << 5).rx_prbs31_enable);
        assert!(f(1 << 7).scrambled_idle_enable);
        assert_eq!(f(1 << 6).other_bits, 1 << 6);
        assert_eq!(f(0xff00).other_bits, 0xff00);
        assert_eq!(
            f(0xbf),
            TestPatternControl {
                data_pattern: DataPattern::Zeros,
                test_pattern: TestPatternSelect::SquareWave,
                rx_test_pattern_enable: true,
                tx_test_pattern_enable: true,
                tx_prbs31_enable: true,
                rx_prbs31_enable: true,
                scrambled_idle_enable: true,
                other_bits: 0,
            }
        );
    }

    #[test]
    fn test_mode_follows_the_enable_bits() {
        // reading: PRBS31 first, then the direction's enable with scrambled idle over bit 1.
        let m = |v| {
            (
                TestPatternControl::from_register(v).tx_mode(),
                TestPatternControl::from_register(v).rx_mode(),
            )
        };
        assert_eq!(m(0x0000), (TestMode::Normal, TestMode::Normal));
        assert_eq!(m(0x0010), (TestMode::Prbs31, TestMode::Normal));
        assert_eq!(m(0x0020), (TestMode::Normal, TestMode::Prbs31));
        assert_eq!(
            m(0x001c),
            (
                TestMode::Prbs31,
                TestMode::PseudoRandom(DataPattern::LocalFault)
            )
        );
        assert_eq!(
            m(0x0009),
            (TestMode::PseudoRandom(DataPattern::Zeros), TestMode::Normal)
        );
        assert_eq!(m(0x0006), (TestMode::Normal, TestMode::SquareWave));
        assert_eq!(m(0x0080), (TestMode::Normal, TestMode::Normal));
        assert_eq!(m(0x008a), (TestMode::ScrambledIdle, TestMode::Normal));
    }
}
