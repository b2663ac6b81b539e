//! A receive case replayed into a DUT one serdes clock at a time, and judged live: the line's
//! 66-bit clocks out (a bit dropped wherever the DUT asks for a bit slip), what the DUT says
//! in (frames, levels, pulses, counters), the verdict at the end in the model's words. The
//! C ABI's `baser_case` (and through it the DPI-C package) is this, translated.

use super::judge::{self, DutFrame, DutSaid, DutShape};
use super::line::Cursor;
use super::Expected;
use pcs_core::Block;
use std::collections::BTreeMap;

/// One replay of a receive case.
pub struct Replay {
    expected: Expected,
    shape: DutShape,
    cursor: Cursor,
    said: DutSaid,
    clock: u64,
    /// The octets of the frame the DUT is delivering.
    partial: Vec<u8>,
}

impl Replay {
    /// A replay of the line's serdes clocks (`units`, as `Line::units` cut them) against
    /// `expected`, for a DUT of `shape`.
    pub fn new(expected: Expected, units: Vec<Block>, shape: DutShape) -> Self {
        Self {
            expected,
            shape,
            cursor: Cursor::new(units, BTreeMap::new()),
            said: DutSaid::default(),
            clock: 0,
            partial: Vec::new(),
        }
    }

    /// The case's expected outcome.
    pub fn expected(&self) -> &Expected {
        &self.expected
    }

    /// The next serdes clock's 66 bits (`slip`: the DUT asked for a bit slip, so one bit is
    /// dropped first), or `None` once the line is out.
    pub fn next(&mut self, slip: bool) -> Option<Block> {
        if self.cursor.left() < 2 {
            return None;
        }
        self.clock += 1;
        Some(self.cursor.take(slip))
    }

    /// Clocks given so far.
    pub fn clocks(&self) -> u64 {
        self.clock
    }

    /// The DUT delivered octets of a frame (an AXI-stream beat's valid octets); `last`: the
    /// frame ends here, with its bad-frame flag `bad`.
    pub fn frame_octets(&mut self, octets: &[u8], last: bool, bad: bool) {
        self.partial.extend_from_slice(octets);
        if last {
            self.said.frames.push(DutFrame {
                octets: std::mem::take(&mut self.partial),
                bad,
                clock: self.clock,
            });
        }
    }

    /// A status output's level this clock (`block_lock`, `hi_ber`, `link_up`,
    /// `local_fault`, `remote_fault`).
    pub fn level(&mut self, role: &str, value: bool) {
        self.said.level(role, self.clock, value);
    }

    /// A pulse output was high this clock (`bad_frame`, `bad_fcs`).
    pub fn pulse(&mut self, role: &str) {
        *self.said.pulses.entry(role.to_string()).or_insert(0) += 1;
    }

    /// A counter's value: the first call for a role is its value before the case, the last
    /// its value after.
    pub fn counter(&mut self, role: &str, value: u64) {
        self.said
            .counters
            .entry(role.to_string())
            .and_modify(|(_, after)| *after = value)
            .or_insert((value, value));
    }

    /// Every divergence, the first one first (none: the DUT passes).
    pub fn verdict(&self) -> Vec<String> {
        judge::rx(&self.expected, &self.shape, &self.said)
    }
}
