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
use crate::scramble::{scramble_payload, Descrambler, Scrambler, STATE_MASK};

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
        let sum = (self.0 as u64).saturating_add(errors);
        self.0 = if sum > u16::MAX as u64 {
            u16::MAX
        } else {
            sum as u16
        };
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
        let n = if n > 64 { 64 } else { n };
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
        let n = if n > 64 { 64 } else { n };
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

    /// Checks received blocks; returns the bit errors found.
    pub fn check_blocks(&mut self, blocks: &[Block]) -> u64 {
        blocks.iter().map(|&b| self.check_block(b)).sum()
    }

    /// The test-pattern error counter (3.43).
    pub fn error_counter(&mut self) -> &mut TestPatternErrorCounter {
        &mut self.tally.counter
    }

    /// All bit errors counted since construction (saturating), whatever the register reads.
    #[must_use]
    pub const fn total_errors(&self) -> u64 {
        self.tally.total
    }
}

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
        let n = if n > 64 { 64 } else { n };
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
        let n = if n > 64 { 64 } else { n };
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

    /// Checks received blocks.
    pub fn check_blocks(&mut self, blocks: &[Block]) -> u64 {
        blocks.iter().map(|&b| self.check_block(b)).sum()
    }

    /// The test-pattern error counter (3.43).
    pub fn error_counter(&mut self) -> &mut TestPatternErrorCounter {
        &mut self.tally.counter
    }

    /// All bit errors counted since construction (saturating).
    #[must_use]
    pub const fn total_errors(&self) -> u64 {
        self.tally.total
    }
}

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
    ((r0 as u64) | (r1 as u64) << 16 | (r2 as u64) << 32 | (r3 as u64) << 48) & STATE_MASK
}

/// The four register values holding a 58-bit seed (bits above 57 are dropped); the inverse of
/// [`seed_from_registers`].
///
/// Spec: IEEE 802.3 §45.2.3.16.
#[must_use]
pub const fn seed_to_registers(seed: u64) -> [u16; 4] {
    let seed = seed & STATE_MASK;
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
/// complement (each 58 bits, in the scrambler-state convention of [`crate::scramble`]).
///
/// Spec: IEEE 802.3 §49.2.8.
// reading: the cycle A, !A, B, !B with a reload at each segment start (SPEC-NOTES U), and the
// seed value loaded as is into the state (seed bit 57 = the most recent line bit); the figure's
// S0..S57 labelling could instead mean the bit-reversed mapping.
#[must_use]
pub const fn pseudo_random_seeds(seed_a: u64, seed_b: u64) -> [u64; 4] {
    [
        seed_a & STATE_MASK,
        !seed_a & STATE_MASK,
        seed_b & STATE_MASK,
        !seed_b & STATE_MASK,
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

    /// Checks received blocks; returns how many were errors.
    pub fn check_blocks(&mut self, blocks: &[Block]) -> u64 {
        blocks.iter().map(|&b| self.check_block(b)).sum()
    }

    /// The test-pattern error counter (3.43).
    pub fn error_counter(&mut self) -> &mut TestPatternErrorCounter {
        &mut self.tally.counter
    }

    /// All block errors counted since construction (saturating).
    #[must_use]
    pub const fn total_errors(&self) -> u64 {
        self.tally.total
    }
}

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
    /// A generator whose scrambler starts in `scrambler_state` (see [`crate::scramble`]).
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

    /// Checks received blocks; returns how many were errors.
    pub fn check_blocks(&mut self, blocks: &[Block]) -> u64 {
        blocks.iter().map(|&b| self.check_block(b)).sum()
    }

    /// The test-pattern error counter (3.43).
    pub fn error_counter(&mut self) -> &mut TestPatternErrorCounter {
        &mut self.tally.counter
    }

    /// All block errors counted since construction (saturating).
    #[must_use]
    pub const fn total_errors(&self) -> u64 {
        self.tally.total
    }
}

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

