//! Shortcuts of the transmit stages that the engine's fused TX paths compose: the scrambler
//! two payloads a step, and the packet door's data blocks straight from a frame's octets.
//! Neither is a stage door: each computes what its stage's door computes, without the state
//! the door keeps (`a_pair_is_two_single_steps` in `scramble.rs` and the packet-door
//! proptests in `pcs.rs` prove it). Firmware and RTL models use the stage doors
//! ([`crate::scramble::Scrambler`], [`crate::pcs::PcsTx`]); this module is the one place the
//! engine reaches past them.

use crate::block::Block;
use crate::scramble::scramble_payload;

/// Scrambles two consecutive payloads from `state`; returns both line payloads. The new state
/// is `second >> 6`. Same result as two [`scramble_payload`] steps, with half the
/// loop-carried chain per block: over the 128 bits of the pair, `t = first ^ state ^ (state >> 19)` in the
/// low word and `second` in the high word, and the taps inside the pair are
/// `1 / (1 + x^39 + x^58) mod x^128 = 1 + x^39 + x^58 + x^78 + x^116 + x^117`, so the high word
/// is `h ^ h << 39 ^ h << 58` plus what the low word carries into it:
/// `t >> 25 ^ t >> 6 ^ t << 14 ^ t << 52 ^ t << 53`, summed as a tree (three XORs deep from
/// `t`: in a run of pairs, the dependency chain from one pair to the next is 7 operations
/// long, not 10).
///
/// Spec: IEEE 802.3 §49.2.6, Figure 49-8.
#[inline]
#[must_use]
pub const fn scramble_pair(state: u64, first: u64, second: u64) -> (u64, u64) {
    let t = (first ^ state) ^ (state >> 19);
    let lo = t ^ ((t << 39) ^ (t << 58));
    let hi = ((second ^ (second << 39) ^ (second << 58)) ^ (t >> 6))
        ^ (((t >> 25) ^ (t << 14)) ^ ((t << 52) ^ (t << 53)));
    (lo, hi)
}

/// Scrambles whole transfers of data `octets` into data blocks, from the scrambler state
/// `state`, as many as `line` has room for; returns the state after them.
///
/// Spec: IEEE 802.3 §49.2.4.3 (Figure 49-7, the data block), §49.2.6.
#[inline(always)]
pub fn scramble_octets(state: u64, octets: &[u8], line: &mut [Block]) -> u64 {
    // As `PcsTx::scramble_data_pairs`: the last line payload in a register, two blocks a turn.
    let mut last = state << 6;
    let mut taken = 0;
    for (o, l) in octets.chunks_exact(16).zip(line.chunks_exact_mut(2)) {
        let (Some((a, b)), [l0, l1]) = (o.split_first_chunk::<8>(), l) else {
            break;
        };
        let b = b.first_chunk::<8>().copied().unwrap_or_default();
        let (s0, s1) = scramble_pair(last >> 6, u64::from_le_bytes(*a), u64::from_le_bytes(b));
        *l0 = Block::data(s0);
        *l1 = Block::data(s1);
        last = s1;
        taken += 2;
    }
    let rest = octets.get(8 * taken..).unwrap_or_default();
    if let (Some(o), Some(l)) = (rest.first_chunk::<8>(), line.get_mut(taken)) {
        *l = Block::data(scramble_payload(last >> 6, u64::from_le_bytes(*o)));
        last = l.payload;
    }
    last >> 6
}
