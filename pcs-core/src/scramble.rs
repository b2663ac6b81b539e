//! The self-synchronizing scrambler and descrambler, polynomial `1 + x^39 + x^58`, applied to
//! the 64-bit payload only (sync headers pass unscrambled).
//!
//! ```text
//!  payload bit d_i ──(+)──────────────────────────────┬──> scrambled bit s_i (to the line)
//!                    ^                                │
//!                    │   ┌─────┬─────┬─ ... ─┬─────┐  │
//!                    └(+)┤ S1  │ ... │ S39 .. │ S58 │<─┘   S_k = s_{i-k}
//!                      ^ └─────┴─────┴─ ... ─┴─────┘
//!                      └── taps S39 and S58
//! ```
//!
//! `s_i = d_i ^ s_{i-39} ^ s_{i-58}`; the descrambler computes `d_i = s_i ^ s_{i-39} ^ s_{i-58}`
//! from the received bits, so it needs no seed and recovers from any state after 58 bits.
//!
//! State convention (the `scrambler_state_reg` of common RTL): a 58-bit integer holding the
//! last 58 line bits, bit 57 the most recent and bit 0 the oldest, so that after a block
//! `state == scrambled_payload >> 6`. Default state: all ones.
//!
//! Word-parallel form: with `t = d ^ state ^ (state >> 19)` (every term that reaches into the
//! previous block), bits 0..38 of the output are final; the taps reaching back into the same
//! block are 39 and 58 bits behind, so `s = t ^ (t << 39) ^ (t << 58)` completes it without a
//! loop-carried chain. Descrambling is the same without the fixed point:
//! `d = s ^ (s << 39) ^ (s << 58) ^ state ^ (state >> 19)`.
//!
//! Spec: IEEE 802.3 §49.2.6 (scrambler), §49.2.10 (descrambler), Figures 49-8 and 49-10.

/// Mask of the 58 state bits.
pub const SCRAMBLER_STATE_MASK: u64 = (1 << 58) - 1;

/// The state both directions start from unless told otherwise: all ones.
pub const SCRAMBLER_DEFAULT_STATE: u64 = SCRAMBLER_STATE_MASK;

/// Scrambles one payload from `state`; returns the line payload. The new state is
/// `line >> 6`.
#[inline]
#[must_use]
pub const fn scramble_payload(state: u64, payload: u64) -> u64 {
    let t = payload ^ state ^ (state >> 19);
    t ^ (t << 39) ^ (t << 58)
}

/// Descrambles one line payload received after `state`; the new state is `line >> 6`.
#[inline]
#[must_use]
pub const fn descramble_payload(state: u64, line: u64) -> u64 {
    // `line << 39 ^ line << 58` written as one shift of `line ^ line << 19`: one register copy
    // fewer per block in the receive chain's data run (rustc 1.95, x86-64).
    line ^ ((line ^ (line << 19)) << 39) ^ (state ^ (state >> 19))
}

/// The transmit scrambler.
///
/// Spec: IEEE 802.3 §49.2.6, Figure 49-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Scrambler {
    state: u64,
}

impl Default for Scrambler {
    fn default() -> Self {
        Self::new(SCRAMBLER_DEFAULT_STATE)
    }
}

impl Scrambler {
    /// A scrambler whose state is `state` (masked to 58 bits; see the module doc).
    #[must_use]
    pub const fn new(state: u64) -> Self {
        Self {
            state: state & SCRAMBLER_STATE_MASK,
        }
    }

    /// The state: the last 58 line bits, bit 57 the most recent.
    #[must_use]
    pub const fn state(&self) -> u64 {
        self.state
    }

    /// Scrambles one 64-bit payload.
    #[inline]
    pub fn scramble(&mut self, payload: u64) -> u64 {
        let line = scramble_payload(self.state, payload);
        self.state = line >> 6;
        line
    }

    /// Scrambles two consecutive payloads ([`crate::fused::scramble_pair`]).
    ///
    /// Spec: IEEE 802.3 §49.2.6, Figure 49-8.
    #[inline]
    pub(crate) fn scramble_pair(&mut self, first: u64, second: u64) -> (u64, u64) {
        let (a, b) = crate::fused::scramble_pair(self.state, first, second);
        self.state = b >> 6;
        (a, b)
    }

    /// Scrambles a slice of payloads in place, two at a time.
    pub fn scramble_slice(&mut self, payloads: &mut [u64]) {
        let mut pairs = payloads.chunks_exact_mut(2);
        for pair in &mut pairs {
            if let [a, b] = pair {
                (*a, *b) = self.scramble_pair(*a, *b);
            }
        }
        for p in pairs.into_remainder() {
            *p = self.scramble(*p);
        }
    }
}

/// The receive descrambler. It takes its state from the line, so any initial state is right
/// after the first 58 bits.
///
/// Spec: IEEE 802.3 §49.2.10, Figure 49-10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Descrambler {
    state: u64,
}

impl Default for Descrambler {
    fn default() -> Self {
        Self::new(SCRAMBLER_DEFAULT_STATE)
    }
}

impl Descrambler {
    /// A descrambler whose state is `state` (masked to 58 bits).
    #[must_use]
    pub const fn new(state: u64) -> Self {
        Self {
            state: state & SCRAMBLER_STATE_MASK,
        }
    }

    /// The state: the last 58 line bits received, bit 57 the most recent.
    #[must_use]
    pub const fn state(&self) -> u64 {
        self.state
    }

    /// Descrambles one 64-bit line payload.
    #[inline]
    pub fn descramble(&mut self, line: u64) -> u64 {
        let payload = descramble_payload(self.state, line);
        self.state = line >> 6;
        payload
    }

    /// Descrambles a slice of payloads in place.
    pub fn descramble_slice(&mut self, payloads: &mut [u64]) {
        for p in payloads {
            *p = self.descramble(*p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitvec::prelude::*;
    use proptest::prelude::*;

    /// Bit-serial reference straight from §49.2.6: `s_i = d_i ^ s_{i-39} ^ s_{i-58}` over a
    /// bit vector holding the 58 state bits (oldest first) followed by the output.
    fn scramble_serial(state: u64, payloads: &[u64]) -> Vec<u64> {
        let mut line: BitVec<u64, Lsb0> = BitVec::new();
        line.extend((0..58).map(|k| state >> k & 1 == 1));
        for &p in payloads {
            for i in 0..64 {
                let n = line.len();
                let bit = (p >> i & 1 == 1) ^ line[n - 39] ^ line[n - 58];
                line.push(bit);
            }
        }
        line[58..].chunks(64).map(|c| c.load_le::<u64>()).collect()
    }

    /// Bit-serial descrambler: `d_i = s_i ^ s_{i-39} ^ s_{i-58}` over the received bits.
    fn descramble_serial(state: u64, lines: &[u64]) -> Vec<u64> {
        let mut rx: BitVec<u64, Lsb0> = BitVec::new();
        rx.extend((0..58).map(|k| state >> k & 1 == 1));
        for &l in lines {
            rx.extend_from_bitslice(l.view_bits::<Lsb0>());
        }
        let out: BitVec<u64, Lsb0> = (58..rx.len())
            .map(|n| rx[n] ^ rx[n - 39] ^ rx[n - 58])
            .collect();
        out.chunks(64).map(|c| c.load_le::<u64>()).collect()
    }

    #[test]
    fn all_zero_payload_from_all_ones_matches_hand_computation() {
        // From all ones: s_i = 0 ^ 1 ^ 1 = 0 for i < 39 (both taps in the state), then
        // s_i = s_{i-39} ^ 1 = 1 for 39 <= i < 58, then s_i = s_{i-39} ^ s_{i-58}:
        // i in 58..64 -> s_{19..25} ^ s_{0..6} = 0 ^ 0 = 0.
        let expected = ((1u64 << 19) - 1) << 39;
        assert_eq!(Scrambler::default().scramble(0), expected);
        assert_eq!(scramble_serial(SCRAMBLER_DEFAULT_STATE, &[0]), [expected]);
    }

    #[test]
    fn state_after_a_block_is_the_line_payload_shifted_by_six() {
        let mut s = Scrambler::default();
        let line = s.scramble(0x1e);
        assert_eq!(s.state(), line >> 6);
    }

    proptest! {
        #[test]
        fn scramble_matches_bit_serial(state in any::<u64>(), p in prop::collection::vec(any::<u64>(), 0..32)) {
            let mut s = Scrambler::new(state);
            let mut fast = p.clone();
            s.scramble_slice(&mut fast);
            prop_assert_eq!(&fast, &scramble_serial(state & SCRAMBLER_STATE_MASK, &p));
            // The slice goes two at a time: the state after it is the last line payload's.
            if let Some(last) = fast.last() {
                prop_assert_eq!(s.state(), last >> 6);
            }
        }

        #[test]
        fn a_pair_is_two_single_steps(state in any::<u64>(), a in any::<u64>(), b in any::<u64>()) {
            let mut one = Scrambler::new(state);
            let want = (one.scramble(a), one.scramble(b));
            let mut two = Scrambler::new(state);
            prop_assert_eq!(two.scramble_pair(a, b), want);
            prop_assert_eq!(two.state(), one.state());
        }

        #[test]
        fn descramble_matches_bit_serial(state in any::<u64>(), l in prop::collection::vec(any::<u64>(), 0..32)) {
            let mut d = Descrambler::new(state);
            let mut fast = l.clone();
            d.descramble_slice(&mut fast);
            prop_assert_eq!(&fast, &descramble_serial(state & SCRAMBLER_STATE_MASK, &l));
        }

        #[test]
        fn descramble_inverts_scramble_from_the_same_state(state in any::<u64>(), p in prop::collection::vec(any::<u64>(), 0..32)) {
            let mut line = p.clone();
            Scrambler::new(state).scramble_slice(&mut line);
            Descrambler::new(state).descramble_slice(&mut line);
            prop_assert_eq!(line, p);
        }

        #[test]
        fn descrambler_recovers_after_58_bits_from_any_state(tx in any::<u64>(), rx in any::<u64>(), p in prop::collection::vec(any::<u64>(), 2..16)) {
            let mut line = p.clone();
            Scrambler::new(tx).scramble_slice(&mut line);
            Descrambler::new(rx).descramble_slice(&mut line);
            // Only the first 58 bits may differ.
            prop_assert_eq!(line[0] >> 58, p[0] >> 58);
            prop_assert_eq!(&line[1..], &p[1..]);
        }

        #[test]
        fn one_line_error_becomes_exactly_three_payload_errors(p in prop::collection::vec(any::<u64>(), 3..8), bit in 0usize..64) {
            let mut line = p.clone();
            Scrambler::default().scramble_slice(&mut line);
            line[0] ^= 1 << bit;
            Descrambler::default().descramble_slice(&mut line);
            let mut errors = Vec::new();
            for (k, (a, b)) in line.iter().zip(&p).enumerate() {
                let x = a ^ b;
                errors.extend((0..64).filter(|i| x >> i & 1 == 1).map(|i| 64 * k + i));
            }
            prop_assert_eq!(errors, vec![bit, bit + 39, bit + 58]);
        }
    }
}
