//! A case replayed into a DUT one clock at a time, and judged live. A receive case
//! ([`Replay`]): the line's 66-bit clocks out (a bit dropped wherever the DUT asks for a bit
//! slip), what the DUT says in (frames, levels, pulses, counters). A transmit case
//! ([`TxReplay`]): AXI-stream beats out as the DUT takes them, an idle line for its receiver,
//! its serdes output in. The verdict at the end in the model's words. The C ABI's
//! `baser_case` and `baser_case_tx` (and through them the DPI-C package) are these,
//! translated.

use super::judge::{self, DutFrame, DutSaid, DutShape, TxShape};
use super::line::{self, Cursor};
use super::pattern::{self, PatternRun};
use super::Expected;
use pcs_core::{Block, SyncHeader, SCRAMBLER_DEFAULT_STATE};
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

/// Clocks of a transmit run before its first beat (the DUT's receiver locks to the idle line:
/// an RS sends no frame while it receives Local Fault).
pub const TX_LEAD: u64 = 200;
/// Clocks without a data block on the DUT's line that end a transmit run, every beat taken.
pub const TX_SETTLE: u64 = 200;

/// One AXI-stream beat of a frame fed to the DUT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beat {
    /// Lane k (octet k of the beat) in bits 8k+7..8k.
    pub data: u64,
    /// The valid lanes (`tkeep`).
    pub keep: u8,
    /// The frame's last beat (`tlast`).
    pub last: bool,
    /// On the last beat: the frame is aborted (`tuser`).
    pub abort: bool,
}

/// The beats of `frames`, 8 octets each (those at `aborts` with the abort bit).
fn beats(frames: &[Vec<u8>], aborts: &[usize]) -> Vec<Beat> {
    let mut out = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let n = f.chunks(8).count();
        for (k, chunk) in f.chunks(8).enumerate() {
            let last = k + 1 == n;
            out.push(Beat {
                data: chunk
                    .iter()
                    .enumerate()
                    .fold(0, |d, (j, &o)| d | u64::from(o) << (8 * j)),
                keep: ((1u16 << chunk.len()) - 1) as u8,
                last,
                abort: last && aborts.contains(&i),
            });
        }
    }
    out
}

/// One replay of a transmit case: each clock, [`TxReplay::line`] takes the DUT's serdes
/// output, [`TxReplay::beat`] gives the beat to offer (after [`TX_LEAD`] clocks; held until
/// the DUT takes it), [`TxReplay::idle`] the idle line for its receiver. Done once every beat
/// is taken and [`TX_SETTLE`] clocks pass without a data block, or at a clock budget (a DUT
/// that never takes a beat or never stops sending: the verdict says so).
pub struct TxReplay {
    frames: Vec<Vec<u8>>,
    aborts: Vec<usize>,
    shape: TxShape,
    beats: Vec<Beat>,
    /// Beats taken.
    taken: usize,
    /// A beat was offered the clock before.
    offered: bool,
    /// The clock the last beat was taken at.
    last_taken: u64,
    /// The DUT's line, one block a clock.
    line: Vec<Block>,
    /// Clocks without a data block since every beat was taken.
    quiet: u64,
    budget: u64,
    idle_state: u64,
    /// The case's line for the DUT's receiver, as sent (empty: idles).
    receive: Vec<Block>,
    /// Clocks of the receive line given.
    rx_clock: usize,
}

impl TxReplay {
    /// A replay of `frames` (DA to the end of the payload; those at `aborts` with the abort
    /// bit) into a DUT of `shape`.
    pub fn new(frames: Vec<Vec<u8>>, aborts: Vec<usize>, shape: TxShape) -> Self {
        let beats = beats(&frames, &aborts);
        let budget =
            TX_LEAD + TX_SETTLE + 8 * (beats.len() as u64 + 8 * frames.len() as u64) + 2000;
        Self {
            frames,
            aborts,
            shape,
            beats,
            taken: 0,
            offered: false,
            last_taken: 0,
            line: Vec::new(),
            quiet: 0,
            budget,
            idle_state: SCRAMBLER_DEFAULT_STATE,
            receive: Vec::new(),
            rx_clock: 0,
        }
    }

    /// The same replay, its DUT's receiver given `receive` (a case's line as sent, one block a
    /// clock from the first, `conformance::tx_receive`; scrambled idles after it) instead of
    /// idles, and judged by [`judge::tx_link_fault`]. The run lasts at least as long.
    #[must_use]
    pub fn with_receive(mut self, receive: Vec<Block>) -> Self {
        self.budget += receive.len() as u64;
        self.receive = receive;
        self
    }

    /// The beat to offer this clock (`None`: `tvalid` low). `taken`: the beat offered the
    /// clock before was taken at this clock's edge (`tvalid && tready`).
    pub fn beat(&mut self, taken: bool) -> Option<Beat> {
        if taken && self.offered && self.taken < self.beats.len() {
            self.taken += 1;
            self.last_taken = self.clocks();
        }
        let beat = (self.clocks() > TX_LEAD && !self.done())
            .then(|| self.beats.get(self.taken).copied())
            .flatten();
        self.offered = beat.is_some();
        beat
    }

    /// The DUT's serdes output this clock (its 66 bits as sent: header, then data).
    /// Returns false once the run is done.
    pub fn line(&mut self, b: Block) -> bool {
        if !self.done() {
            self.line.push(b);
            let all = self.taken == self.beats.len();
            self.quiet = if all && b.sync != SyncHeader::DATA {
                self.quiet + 1
            } else {
                0
            };
        }
        !self.done()
    }

    /// The next clock of the DUT's receive line: the case's ([`TxReplay::with_receive`]),
    /// then an idle line (scrambled `/I/` blocks).
    pub fn idle(&mut self) -> Block {
        if let Some(&b) = self.receive.get(self.rx_clock) {
            self.rx_clock += 1;
            self.idle_state = b.payload >> 6; // the scrambler's state: its last 58 bits
            return b;
        }
        let (b, state) = line::scramble(&[line::idle()], self.idle_state);
        self.idle_state = state;
        b.first().copied().unwrap_or(line::idle())
    }

    /// The DUT's blocks taken so far.
    pub fn clocks(&self) -> u64 {
        self.line.len() as u64
    }

    /// Beats taken, of all.
    pub fn beats_taken(&self) -> (usize, usize) {
        (self.taken, self.beats.len())
    }

    /// Every beat taken and the line quiet for [`TX_SETTLE`] clocks, or the budget spent.
    pub fn done(&self) -> bool {
        let settled = self.taken == self.beats.len()
            && self.quiet >= TX_SETTLE
            && self.clocks() >= self.receive.len() as u64;
        settled || self.clocks() >= self.budget
    }

    /// Every divergence, the first one first (none: the DUT passes): the engine's
    /// [`judge::tx`] on the DUT's line, after a run the DUT did not end (beats never taken,
    /// a line that never went quiet).
    ///
    /// # Errors
    /// The run is not done, or the DUT's line is empty.
    pub fn verdict(&self) -> Result<Vec<String>, String> {
        let (taken, all) = self.beats_taken();
        if !self.done() {
            return Err(format!(
                "the transmit case is not done after {} clocks ({taken} of {all} beats taken): give the DUT's line each clock until the replay says it is done",
                self.clocks()
            ));
        }
        let mut out = Vec::new();
        if taken < all {
            out.push(format!(
                "the DUT took {taken} of {all} AXI-stream beats in {} clocks (tready; the last taken at clock {})",
                self.clocks(),
                self.last_taken
            ));
        } else if self.quiet < TX_SETTLE {
            out.push(format!(
                "the DUT's line still carried data blocks {} clocks after its last beat was taken (at clock {})",
                self.clocks() - self.last_taken,
                self.last_taken
            ));
        }
        if self.receive.is_empty() {
            out.extend(judge::tx(
                &self.frames,
                &self.aborts,
                &self.line,
                &self.shape,
            )?);
        } else {
            out.extend(judge::tx_link_fault(
                &self.frames,
                &self.receive,
                &self.line,
                0,
                &self.shape,
            )?);
        }
        Ok(out)
    }
}

/// One replay of a test-pattern case ([`super::pattern`]): each clock the DUT's serdes input
/// and its test-pattern enable out, then its error counter (`rx-prbs31`) or its serdes output
/// (`tx-prbs31`) in; the verdict once the run's clocks are out.
pub struct PatternReplay {
    run: PatternRun,
    /// `rx_errors` is a running total (its change counts), not a count per clock.
    total: bool,
    clock: u64,
    counted: u64,
    before: Option<u64>,
    line: Vec<Block>,
}

impl PatternReplay {
    /// A replay of `run`; `total`: the DUT's error output is a running counter.
    pub fn new(run: PatternRun, total: bool) -> Self {
        Self {
            run,
            total,
            clock: 0,
            counted: 0,
            before: None,
            line: Vec::new(),
        }
    }

    /// The run (its clocks, windows and expected count).
    pub fn run(&self) -> &PatternRun {
        &self.run
    }

    /// The next clock's serdes input and the level of the DUT's test-pattern enable (rx or
    /// tx, as the case), to drive until the next edge; `None` once the run is out.
    pub fn next_clock(&mut self) -> Option<(Block, bool)> {
        let b = *self.run.units.get(self.clock as usize)?;
        let (on, off) = self.run.enable;
        let enable = (on..off).contains(&self.clock);
        self.clock += 1;
        Some((b, enable))
    }

    /// Clocks given so far.
    pub fn clocks(&self) -> u64 {
        self.clock
    }

    /// The run's clocks are out: the verdict can be given.
    pub fn done(&self) -> bool {
        self.clock as usize >= self.run.units.len()
    }

    /// The DUT's test-pattern error output after the edge of the clock [`next_clock`](Self::next_clock)
    /// last gave (`rx-prbs31`).
    pub fn errors(&mut self, value: u64) {
        let k = self.clock.saturating_sub(1);
        let (from, until) = self.run.window;
        if !self.total {
            if (from..until).contains(&k) {
                self.counted += value;
            }
        } else if k + 1 == from {
            self.before = Some(value);
        } else if k + 1 == until {
            self.counted = value.wrapping_sub(self.before.unwrap_or(0));
        }
    }

    /// The DUT's serdes output after the edge of the clock [`next_clock`](Self::next_clock) last gave
    /// (`tx-prbs31`).
    pub fn line(&mut self, b: Block) {
        self.line.push(b);
    }

    /// Every divergence, the first one first (none: the DUT passes).
    ///
    /// # Errors
    /// The run's clocks are not all out yet.
    pub fn verdict(&self) -> Result<Vec<String>, String> {
        if !self.done() {
            return Err(format!(
                "{}: {} of its {} clocks given: the run is not done",
                self.run.case,
                self.clock,
                self.run.units.len()
            ));
        }
        Ok(if self.run.case == "rx-prbs31" {
            pattern::judge_rx(&self.run, self.counted)
        } else {
            pattern::judge_tx(&self.run, &self.line)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tx::{TxChain, TxOptions, VecSink};

    /// The model's own line for `frames`, as a DUT taking a beat a clock would send it.
    fn model_line(frames: &[Vec<u8>]) -> Vec<Block> {
        let mut c = TxChain::new(&TxOptions::default(), VecSink::default());
        for f in frames {
            c.frame(f, None).unwrap();
        }
        c.idle(400);
        c.flush();
        std::mem::take(&mut c.sink_mut().lines)
    }

    fn frames() -> Vec<Vec<u8>> {
        (0..6u8)
            .map(|i| vec![i; 60 + 13 * usize::from(i)])
            .collect()
    }

    #[test]
    fn beats_are_offered_after_the_lead_and_held_until_taken() {
        let mut r = TxReplay::new(vec![vec![1; 9], vec![2; 8]], vec![0], TxShape::default());
        for _ in 0..TX_LEAD {
            assert!(r.line(line::idle()));
            assert_eq!(r.beat(true), None);
        }
        assert!(r.line(line::idle()));
        let first = r.beat(false).unwrap();
        assert_eq!((first.keep, first.last), (0xff, false));
        assert!(r.line(line::idle()));
        assert_eq!(r.beat(false), Some(first), "held: not taken");
        assert!(r.line(line::idle()));
        let second = r.beat(true).unwrap();
        assert_eq!(
            (second.data, second.keep, second.last, second.abort),
            (1, 0x01, true, true)
        );
        assert!(r.line(line::idle()));
        let third = r.beat(true).unwrap();
        assert_eq!((third.keep, third.last, third.abort), (0xff, true, false));
        assert!(r.verdict().is_err_and(|e| e.contains("not done")));
    }

    #[test]
    fn the_models_line_passes_and_a_dut_that_takes_nothing_is_named() {
        let f = frames();
        let mut r = TxReplay::new(f.clone(), vec![], TxShape::default());
        let mut line = model_line(&f).into_iter();
        // a DUT that takes a beat a clock and sends the model's line after the lead
        let mut clock = 0;
        while r.line(if clock < TX_LEAD + 20 {
            line::idle()
        } else {
            line.next().unwrap_or(Block::IDLE)
        }) {
            r.beat(true);
            clock += 1;
        }
        let v = r.verdict().unwrap();
        assert_eq!(v, Vec::<String>::new());
        let mut stuck = TxReplay::new(f, vec![], TxShape::default());
        while stuck.line(Block::IDLE) {
            stuck.beat(false);
        }
        let v = stuck.verdict().unwrap();
        assert!(v[0].starts_with("the DUT took 0 of"), "{v:?}");
    }

    #[test]
    fn a_receive_line_is_given_then_idles_and_the_run_lasts_as_long() {
        let c = crate::conformance::find("tx-link-fault").unwrap();
        let receive = crate::conformance::tx_receive(c).unwrap().unwrap();
        let mut r = TxReplay::new(vec![vec![1; 60]], vec![], TxShape::default())
            .with_receive(receive.clone());
        let mut given = Vec::new();
        loop {
            given.push(r.idle()); // each clock: the receive line, the DUT's output, a beat
            if !r.line(Block::IDLE) {
                break;
            }
            r.beat(true);
        }
        assert!(r.clocks() >= receive.len() as u64);
        assert_eq!(given[..receive.len()], receive[..]);
        // the idles after it continue its scrambler: they descramble to /I/ from the first
        let mut d = pcs_core::Descrambler::default();
        for b in &given[..receive.len()] {
            d.descramble(b.payload);
        }
        given.push(r.idle());
        let next = given[receive.len()];
        assert_eq!(d.descramble(next.payload), line::idle().payload);
        // a DUT that sends nothing: named by the link fault verdict's frame check
        let v = r.verdict().unwrap();
        assert!(v.iter().any(|d| d.contains("missing")), "{v:?}");
    }

    #[test]
    fn a_pattern_replay_sums_the_window_and_judges_the_line() {
        use pcs_core::{Prbs31Checker, Prbs31Polarity};
        let run = pattern::rx_run(false);
        for total in [false, true] {
            let mut r = PatternReplay::new(run.clone(), total);
            let mut checker = Prbs31Checker::new(Prbs31Polarity::Normal);
            let mut running = 0u64;
            let mut enables = 0;
            while let Some((b, enable)) = r.next_clock() {
                assert!(r.verdict().is_err() || r.done());
                // a DUT checker with a one-clock register: this clock's count after the edge
                let e = if enable { checker.check_block(b) } else { 0 };
                enables += u64::from(enable);
                running += e;
                r.errors(if total { running } else { e });
            }
            assert_eq!(enables, run.enable.1 - run.enable.0);
            assert_eq!(r.verdict().unwrap(), Vec::<String>::new(), "total {total}");
        }
        // a DUT that counts nothing: named
        let mut r = PatternReplay::new(run.clone(), false);
        while r.next_clock().is_some() {
            r.errors(0);
        }
        assert!(r.verdict().unwrap()[0].contains("the DUT counted 0"));
        // tx: the idle line given back is no pattern
        let tx = pattern::tx_run(false);
        let mut r = PatternReplay::new(tx, false);
        assert!(r.verdict().unwrap_err().contains("not done"));
        while let Some((b, _)) = r.next_clock() {
            r.line(b);
        }
        assert!(r.verdict().unwrap()[0].contains("bit errors"));
    }
}
