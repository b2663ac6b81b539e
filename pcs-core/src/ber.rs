//! The BER monitor: counts invalid sync headers in 125 µs windows and raises `hi_ber` on the
//! 16th of a window.
//!
//! ```text
//!  BER_MT_INIT --UCT--> START_TIMER --ber_test_sh--> BER_TEST_SH --!sh_valid--> BER_BAD_SH --ber_cnt=16--> HI_BER
//!                          ^   ^                       ^   |  ^_______ber_test_sh*ber_cnt<16_____|   |         |
//!                          |   |                       |___| ber_test_sh*sh_valid                    |         |
//!                          |   \---UCT--- GOOD_BER <---timer_done*ber_cnt<16 (from both)-------------/         |
//!                          \--------------------------------timer_done-----------------------------------------/
//! ```
//!
//! Time is an input: one [`BerMonitor::step`] per received header, and each header is one
//! block time. Time is counted in ticks so that the window is exact: at 10.3125 GBd a block is
//! 6.4 ns and 125 µs is 19 531.25 blocks, so a block is 4 ticks and the window 78 125 ticks.
//! When the timer expires it restarts at the instant it expired, carrying the overshoot into
//! the next window, so windows are 125 µs long on average (19 532, 19 531, 19 531, 19 531
//! headers, and again).
//!
//! Where a window boundary falls: header `n` after the timer start is at tick `n *
//! ticks_per_block`. A window `[t, t + window)` holds the headers whose tick lies in it; a
//! header at or after the expiry is tested in the next window (the expiry is handled first).
//!
//! Spec: IEEE 802.3 §49.2.13.2.5 (`125us_timer`), §49.2.13.3 (BER monitor), Fig. 49-13
//! (802.3-2008) / 49-15 (later editions).

use crate::block::SyncHeader;

/// Bound on arrows followed in one phase of a step.
const MAX_ARROWS: usize = 8;

/// Window, tick and threshold of a BER monitor.
///
/// Spec: IEEE 802.3 §49.2.13.2.5, Fig. 49-15.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BerConfig {
    /// Ticks of time per received header (one block).
    pub ticks_per_block: u32,
    /// Ticks in one timer window.
    pub window_ticks: u32,
    /// Invalid headers in a window that set `hi_ber`.
    pub threshold: u16,
}

impl BerConfig {
    /// 10GBASE-R: 16 invalid headers in 125 µs at 10.3125 GBd (quarter-block ticks).
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.5 (`125us_timer`), Fig. 49-15.
    pub const TEN_GBASE_R: Self = Self {
        ticks_per_block: 4,
        window_ticks: 78_125,
        threshold: 16,
    };

    /// 25GBASE-R: 97 invalid headers in 2 ms at 25.78125 GBd (781 250 blocks exactly).
    ///
    /// Spec: IEEE 802.3 §107 (25GBASE-R PCS, by reference to Clause 49).
    // reading: SPEC-NOTES lists "97 invalid headers in 2 ms" as unverified.
    pub const TWENTY_FIVE_GBASE_R: Self = Self {
        ticks_per_block: 1,
        window_ticks: 781_250,
        threshold: 97,
    };
}

impl Default for BerConfig {
    fn default() -> Self {
        Self::TEN_GBASE_R
    }
}

/// What the monitor does while block lock is false.
///
/// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-15 (global transition to `BER_MT_INIT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LockLossReset {
    /// Held in `BER_MT_INIT` while `block_lock` is false, as the diagram says (strict).
    #[default]
    ResetMonitor,
    /// Keep running on loss of lock (what much RTL does; a known deviation).
    KeepRunning,
}

/// BER monitor states. Each variant's doc is the spec's spelling.
///
/// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-13 (802.3-2008) / 49-15.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BerState {
    /// `BER_MT_INIT`
    BerMtInit,
    /// `START_TIMER`
    StartTimer,
    /// `BER_TEST_SH`
    BerTestSh,
    /// `BER_BAD_SH`
    BerBadSh,
    /// `HI_BER`
    HiBer,
    /// `GOOD_BER`
    GoodBer,
}

/// What one header did to the monitor.
///
/// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-15.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BerStep {
    /// `BER_BAD_SH` was entered (the MDIO 3.33 BER counter counts these).
    pub ber_bad_sh: bool,
    /// `hi_ber` after the step.
    pub hi_ber: bool,
}

/// The BER monitor state machine.
///
/// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-13 (802.3-2008) / 49-15.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BerMonitor {
    config: BerConfig,
    lock_loss: LockLossReset,
    state: BerState,
    hi_ber: bool,
    ber_test_sh: bool,
    sh_valid: bool,
    ber_cnt: u16,
    timer_running: bool,
    timer_done: bool,
    /// Ticks since the current window started.
    timer_ticks: u64,
    windows: u64,
    ber_bad_sh_total: u64,
}

impl Default for BerMonitor {
    fn default() -> Self {
        Self::new(BerConfig::TEN_GBASE_R, LockLossReset::ResetMonitor)
    }
}

impl BerMonitor {
    /// A monitor in `BER_MT_INIT`.
    ///
    /// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-15.
    #[must_use]
    pub const fn new(config: BerConfig, lock_loss: LockLossReset) -> Self {
        Self {
            config,
            lock_loss,
            state: BerState::BerMtInit,
            hi_ber: false,
            ber_test_sh: false,
            sh_valid: false,
            ber_cnt: 0,
            timer_running: false,
            timer_done: false,
            timer_ticks: 0,
            windows: 0,
            ber_bad_sh_total: 0,
        }
    }

    /// The configuration.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.5.
    #[must_use]
    pub const fn config(&self) -> BerConfig {
        self.config
    }

    /// The state the diagram waits in.
    ///
    /// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-15.
    #[must_use]
    pub const fn state(&self) -> BerState {
        self.state
    }

    /// `hi_ber`.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.2 (`hi_ber`).
    #[must_use]
    pub const fn hi_ber(&self) -> bool {
        self.hi_ber
    }

    /// `ber_cnt`: invalid headers counted in the current window.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.4 (`ber_cnt`).
    #[must_use]
    pub const fn ber_cnt(&self) -> u16 {
        self.ber_cnt
    }

    /// Windows completed (timer expiries) since the timer was first started.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.5 (`125us_timer`).
    #[must_use]
    pub const fn windows(&self) -> u64 {
        self.windows
    }

    /// Entries to `BER_BAD_SH` since construction (wrapping).
    ///
    /// Spec: IEEE 802.3 §45.2.3 (register 3.33 BER counter), Fig. 49-15.
    #[must_use]
    pub const fn ber_bad_sh_total(&self) -> u64 {
        self.ber_bad_sh_total
    }

    /// Tests one received header (`ber_test_sh`), one block time after the previous one.
    /// `block_lock` is the lock status for this header.
    ///
    /// Order within a step: the loss-of-lock reset; then the timer expiry if the window ended
    /// at or before this header; then the header; then one block time passes.
    ///
    /// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-13 (802.3-2008) / 49-15.
    pub fn step(&mut self, sync: SyncHeader, block_lock: bool) -> BerStep {
        if let Some(held) = self.held_in_init(block_lock) {
            return held;
        }
        // Fast path, the steady state: waiting in BER_TEST_SH, a valid header, the window not
        // over. The diagram takes BER_TEST_SH --ber_test_sh * sh_valid * !timer_done-->
        // BER_TEST_SH, which changes nothing but time.
        if sync.is_valid() && self.steady() {
            self.timer_ticks += u64::from(self.config.ticks_per_block);
            return BerStep {
                ber_bad_sh: false,
                hi_ber: self.hi_ber,
            };
        }
        self.diagram_step(sync)
    }

    /// The reference: [`BerMonitor::step`] without its fast path, every header through the
    /// diagram.
    #[cfg(test)]
    fn step_reference(&mut self, sync: SyncHeader, block_lock: bool) -> BerStep {
        if let Some(held) = self.held_in_init(block_lock) {
            return held;
        }
        self.diagram_step(sync)
    }

    /// The global arrow `!block_lock` -> `BER_MT_INIT`, held while it is true (unless the
    /// monitor keeps running on loss of lock).
    fn held_in_init(&mut self, block_lock: bool) -> Option<BerStep> {
        if block_lock || self.lock_loss != LockLossReset::ResetMonitor {
            return None;
        }
        self.enter(BerState::BerMtInit);
        Some(BerStep {
            ber_bad_sh: false,
            hi_ber: self.hi_ber,
        })
    }

    /// Waiting in `BER_TEST_SH` inside a window, after a valid header: a valid header now
    /// takes `BER_TEST_SH --ber_test_sh * sh_valid * !125us_timer_done--> BER_TEST_SH`.
    #[inline]
    fn steady(&self) -> bool {
        self.state == BerState::BerTestSh
            && self.sh_valid
            && self.timer_running
            && !self.timer_done
            && self.timer_ticks < u64::from(self.config.window_ticks)
    }

    /// One header through the diagram.
    fn diagram_step(&mut self, sync: SyncHeader) -> BerStep {
        if self.timer_running && self.timer_ticks >= u64::from(self.config.window_ticks) {
            self.timer_done = true;
        }
        let mut ber_bad_sh = self.run();
        // reading: `ber_test_sh` is an event per header, consumed in this step whatever the
        // state, so a header is never tested twice (e.g. after HI_BER --timer_done-->
        // START_TIMER).
        self.ber_test_sh = true;
        self.sh_valid = sync.is_valid();
        ber_bad_sh |= self.run();
        self.ber_test_sh = false;
        if self.timer_running {
            self.timer_ticks = self
                .timer_ticks
                .saturating_add(u64::from(self.config.ticks_per_block));
        }
        BerStep {
            ber_bad_sh,
            hi_ber: self.hi_ber,
        }
    }

    /// How many valid headers in a row, received with block lock, the monitor can take from
    /// now on without leaving its steady state (waiting in `BER_TEST_SH` inside a window);
    /// 0 when not in that state. [`BerMonitor::take_valid_headers`] takes them at once.
    ///
    /// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-15 (`BER_TEST_SH` --sh_valid * !timer_done-->).
    #[must_use]
    #[inline]
    pub(crate) fn steady_headers(&self) -> u64 {
        let window = u64::from(self.config.window_ticks);
        if !self.steady() {
            return 0;
        }
        // Header j (0-based) takes the fast arrow while ticks + j * per_block < window.
        (window - self.timer_ticks).div_ceil(u64::from(self.config.ticks_per_block.max(1)))
    }

    /// Takes `n` valid headers received with block lock, `n <= steady_headers()`: exactly what
    /// `n` calls of [`BerMonitor::step`] would do (only time passes).
    ///
    /// Spec: IEEE 802.3 §49.2.13.3, Fig. 49-15.
    #[inline]
    pub(crate) fn take_valid_headers(&mut self, n: u64) {
        let n = n.min(self.steady_headers());
        self.timer_ticks += n * u64::from(self.config.ticks_per_block);
    }

    /// [`BerMonitor::take_valid_headers`] without its bound, for a caller that has read
    /// [`BerMonitor::steady_headers`] since the last header and takes no more than that.
    #[inline]
    pub(crate) fn take_steady_headers(&mut self, n: u64) {
        self.timer_ticks += n * u64::from(self.config.ticks_per_block);
    }

    /// Follows arrows until the diagram waits; returns whether `BER_BAD_SH` was entered.
    fn run(&mut self) -> bool {
        let mut bad = false;
        for _ in 0..MAX_ARROWS {
            let Some(next) = self.arrow() else {
                break;
            };
            self.enter(next);
            bad |= next == BerState::BerBadSh;
        }
        bad
    }

    /// The arrow out of the current state whose condition holds, or `None` while it waits.
    // reading: the exit conditions as transcribed in the brief from Fig. 49-13/49-15 (the
    // figure itself was not available to check).
    const fn arrow(&self) -> Option<BerState> {
        use BerState as S;
        let (test, valid, done) = (self.ber_test_sh, self.sh_valid, self.timer_done);
        let below = self.ber_cnt < self.config.threshold;
        match self.state {
            S::BerMtInit => Some(S::StartTimer),         // UCT
            S::StartTimer if test => Some(S::BerTestSh), // ber_test_sh
            S::StartTimer => None,
            // ber_test_sh * sh_valid * !125us_timer_done
            S::BerTestSh if test && valid && !done => Some(S::BerTestSh),
            // !sh_valid
            S::BerTestSh if !valid => Some(S::BerBadSh),
            // 125us_timer_done * ber_cnt < 16
            S::BerTestSh if done && below => Some(S::GoodBer),
            S::BerTestSh => None,
            // ber_cnt = 16
            S::BerBadSh if !below => Some(S::HiBer),
            // ber_test_sh * ber_cnt < 16 * !125us_timer_done
            S::BerBadSh if test && !done => Some(S::BerTestSh),
            // 125us_timer_done * ber_cnt < 16
            S::BerBadSh if done => Some(S::GoodBer),
            S::BerBadSh => None,
            S::HiBer if done => Some(S::StartTimer), // 125us_timer_done
            S::HiBer => None,
            S::GoodBer => Some(S::StartTimer), // UCT
        }
    }

    /// Enters `state` and performs its actions.
    fn enter(&mut self, state: BerState) {
        use BerState as S;
        self.state = state;
        match state {
            S::BerMtInit => {
                self.hi_ber = false;
                self.ber_test_sh = false;
                self.timer_running = false;
                self.timer_done = false;
                self.timer_ticks = 0;
            }
            S::StartTimer => {
                self.ber_cnt = 0;
                // Restart at the expiry instant (overshoot carried) or start afresh.
                self.timer_ticks = if self.timer_done {
                    self.windows = self.windows.wrapping_add(1);
                    self.timer_ticks
                        .saturating_sub(u64::from(self.config.window_ticks))
                } else {
                    0
                };
                self.timer_running = true;
                self.timer_done = false;
            }
            S::BerTestSh => self.ber_test_sh = false,
            S::BerBadSh => {
                self.ber_cnt = self.ber_cnt.saturating_add(1);
                self.ber_test_sh = false;
                self.ber_bad_sh_total = self.ber_bad_sh_total.wrapping_add(1);
            }
            S::HiBer => self.hi_ber = true,
            S::GoodBer => self.hi_ber = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: SyncHeader = SyncHeader::DATA;
    const BAD: SyncHeader = SyncHeader::from_bits(0);

    /// Steps `n` headers, all `sh`, locked; returns the steps.
    fn run(m: &mut BerMonitor, sh: SyncHeader, n: usize) -> Vec<BerStep> {
        (0..n).map(|_| m.step(sh, true)).collect()
    }

    /// Steps valid headers until the current window ends; returns the headers stepped
    /// (the last of them is the first of the next window).
    fn to_next_window(m: &mut BerMonitor) -> usize {
        let w = m.windows();
        let mut n = 0;
        while m.windows() == w {
            m.step(V, true);
            n += 1;
        }
        n
    }

    #[test]
    fn window_lengths_over_4_windows_sum_to_78125_blocks() {
        let mut m = BerMonitor::default();
        // Header 0 starts the first window; window k ends when header n has n*4 >= k*78125.
        let mut lengths = Vec::new();
        let mut n = 1;
        m.step(V, true);
        for _ in 0..8 {
            let w = m.windows();
            while m.windows() == w {
                m.step(V, true);
                n += 1;
            }
            // The header that ended the window belongs to the next one.
            lengths.push(n - 1);
            n = 1;
        }
        assert_eq!(lengths[..4], [19_532, 19_531, 19_531, 19_531]);
        assert_eq!(lengths[..4].iter().sum::<usize>(), 78_125);
        assert_eq!(lengths[4..], lengths[..4]);
    }

    #[test]
    fn hi_ber_is_set_on_the_16th_invalid_header_in_a_window_not_the_15th() {
        let mut m = BerMonitor::default();
        run(&mut m, V, 100);
        let steps = run(&mut m, BAD, 15);
        assert!(steps.iter().all(|s| s.ber_bad_sh && !s.hi_ber));
        assert_eq!(m.ber_cnt(), 15);
        assert_eq!(m.state(), BerState::BerBadSh);
        let s = m.step(BAD, true);
        assert!(s.ber_bad_sh && s.hi_ber);
        assert_eq!(m.state(), BerState::HiBer);
    }

    #[test]
    fn invalid_headers_spread_over_a_window_count_and_fewer_than_16_clear() {
        let mut m = BerMonitor::default();
        for _ in 0..15 {
            m.step(BAD, true);
            run(&mut m, V, 1000);
        }
        assert_eq!(m.ber_cnt(), 15);
        assert!(!m.hi_ber());
        to_next_window(&mut m);
        assert_eq!(m.ber_cnt(), 0, "a new window restarts ber_cnt");
        assert!(!m.hi_ber());
    }

    #[test]
    fn hi_ber_stays_for_the_window_and_clears_after_a_later_full_good_window() {
        let mut m = BerMonitor::default();
        m.step(V, true);
        let bad = run(&mut m, BAD, 40);
        // Only 16 entries to BER_BAD_SH: HI_BER ignores headers until the timer is done.
        assert_eq!(bad.iter().filter(|s| s.ber_bad_sh).count(), 16);
        assert_eq!(m.ber_bad_sh_total(), 16);
        // Rest of window 1: hi_ber held.
        let w = m.windows();
        while m.windows() == w {
            assert!(m.step(V, true).hi_ber);
        }
        // Window 2 is a full window with no invalid header: hi_ber still set during it...
        assert!(m.hi_ber());
        assert_eq!(m.state(), BerState::BerTestSh);
        let w = m.windows();
        let mut steps = 0;
        while m.windows() == w {
            let s = m.step(V, true);
            steps += 1;
            if m.windows() == w {
                assert!(s.hi_ber, "step {steps} of window 2");
            } else {
                // ...and cleared at its end (GOOD_BER), before the first header of window 3.
                assert!(!s.hi_ber);
            }
        }
        assert_eq!(steps, 19_531);
    }

    #[test]
    fn hi_ber_stays_when_the_next_window_is_bad_too() {
        let mut m = BerMonitor::default();
        run(&mut m, BAD, 16);
        assert!(m.hi_ber());
        to_next_window(&mut m);
        run(&mut m, BAD, 16);
        to_next_window(&mut m);
        assert!(m.hi_ber(), "window 2 had 16: HI_BER again");
        to_next_window(&mut m);
        assert!(!m.hi_ber(), "window 3 was clean");
    }

    #[test]
    fn held_in_init_while_block_lock_is_false() {
        let mut m = BerMonitor::default();
        run(&mut m, BAD, 16);
        assert!(m.hi_ber());
        for _ in 0..100 {
            let s = m.step(BAD, false);
            assert!(!s.ber_bad_sh && !s.hi_ber);
        }
        assert_eq!(m.state(), BerState::BerMtInit);
        assert_eq!(m.ber_bad_sh_total(), 16);
        // Lock regained: the timer starts afresh at this header, which is tested.
        let s = m.step(BAD, true);
        assert!(s.ber_bad_sh);
        assert_eq!((m.state(), m.ber_cnt()), (BerState::BerBadSh, 1));
    }

    proptest::proptest! {
        /// The fast path of `step` and the batch `steady_headers`/`take_valid_headers` equal
        /// the diagram header by header, with short windows so that every state is visited.
        #[test]
        fn fast_paths_equal_the_diagram(
            headers in proptest::collection::vec((0u8..8, 0u8..40), 1..60),
            window_ticks in 9u32..48,
            threshold in 1u16..5,
            keep_running: bool,
        ) {
            let config = BerConfig {
                ticks_per_block: 4,
                window_ticks,
                threshold,
            };
            let lock_loss = if keep_running {
                LockLossReset::KeepRunning
            } else {
                LockLossReset::ResetMonitor
            };
            let mut fast = BerMonitor::new(config, lock_loss);
            let mut reference = fast;
            let mut batch = fast;
            // Runs of one kind: (kind, length); kind 0..5 a valid header with lock, 5 valid
            // without lock, 6 invalid with lock, 7 invalid without.
            for (kind, len) in headers {
                let (sync, lock) = match kind {
                    0..=4 => (V, true),
                    5 => (V, false),
                    6 => (BAD, true),
                    _ => (BAD, false),
                };
                let mut left = u64::from(len);
                while left > 0 {
                    let a = fast.step(sync, lock);
                    let b = reference.step_reference(sync, lock);
                    proptest::prop_assert_eq!(a, b);
                    proptest::prop_assert_eq!(fast, reference);
                    // The batch takes as many as the steady state allows at once.
                    let take = if sync.is_valid() && lock {
                        batch.steady_headers().min(left)
                    } else {
                        0
                    };
                    if take > 1 {
                        batch.take_valid_headers(take);
                        for _ in 1..take {
                            proptest::prop_assert_eq!(fast.step(sync, lock), BerStep {
                                ber_bad_sh: false,
                                hi_ber: fast.hi_ber(),
                            });
                            reference.step_reference(sync, lock);
                        }
                        left -= take;
                    } else {
                        batch.step(sync, lock);
                        left -= 1;
                    }
                    proptest::prop_assert_eq!(batch, reference);
                }
            }
        }
    }

    #[test]
    fn a_window_that_ends_on_an_invalid_header_still_closes() {
        let mut m = BerMonitor::default();
        m.step(V, true);
        // Headers until the window after this one starts (found on a copy).
        let k = to_next_window(&mut m.clone());
        let w = m.windows();
        run(&mut m, V, k - 2);
        // The window's last header is invalid: the monitor waits in BER_BAD_SH with 1 counted.
        assert!(m.step(BAD, true).ber_bad_sh);
        assert_eq!(
            (m.state(), m.ber_cnt(), m.windows()),
            (BerState::BerBadSh, 1, w)
        );
        // The next header is the first of the next window: BER_BAD_SH --125us_timer_done-->
        // GOOD_BER -> START_TIMER (ber_cnt 0) -> BER_TEST_SH.
        m.step(V, true);
        assert_eq!(
            (m.state(), m.ber_cnt(), m.windows()),
            (BerState::BerTestSh, 0, w + 1)
        );
    }

    #[test]
    fn keeps_running_on_loss_of_lock_with_the_knob_off() {
        let mut m = BerMonitor::new(BerConfig::TEN_GBASE_R, LockLossReset::KeepRunning);
        let steps: Vec<BerStep> = (0..16).map(|_| m.step(BAD, false)).collect();
        assert!(steps.iter().all(|s| s.ber_bad_sh));
        assert!(m.hi_ber());
        assert_eq!(m.state(), BerState::HiBer);
    }

    #[test]
    fn twenty_five_gbase_r_reading_has_97_in_781250_blocks() {
        let mut m = BerMonitor::new(BerConfig::TWENTY_FIVE_GBASE_R, LockLossReset::ResetMonitor);
        run(&mut m, BAD, 96);
        assert!(!m.hi_ber());
        m.step(BAD, true);
        assert!(m.hi_ber());
        // 2 ms is exactly 781 250 blocks: every window has the same length.
        let mut m = BerMonitor::new(BerConfig::TWENTY_FIVE_GBASE_R, LockLossReset::ResetMonitor);
        m.step(V, true);
        assert_eq!(to_next_window(&mut m), 781_250);
        assert_eq!(to_next_window(&mut m), 781_250);
    }
}
