//! Block lock: find the 66-bit block boundary in a received bit stream by testing sync headers
//! and slipping one bit whenever the current alignment shows an invalid one.
//!
//! [`BlockLock`] transcribes the lock state diagram; [`crate::align::BlockAligner`] puts it in
//! front of a receive gearbox (the composition of the two, with its fast path).
//!
//! ```text
//!  LOCK_INIT --UCT--> RESET_CNT --test_sh--> TEST_SH --sh_valid--> VALID_SH --sh_cnt=64*invld=0--> 64_GOOD
//!                        ^  ^                   ^  \--!sh_valid--> INVALID_SH --invld=16+!lock--> SLIP
//!                        |  |                   |________test_sh*sh_cnt<64_____|                   |
//!                        |  \______sh_cnt=64 (window over, fewer than 16 invalid)__________________|
//!                        \________________________________slip_done________________________________/
//! ```
//!
//! Lock takes 64 valid headers in a row; while unlocked, one invalid header slips one bit;
//! while locked, 16 invalid headers within a 64-header window lose lock (and slip once).
//!
//! Spec: IEEE 802.3 §49.2.9, §49.2.13.2 (variables), Fig. 49-12 (802.3-2008) / 49-14 (later
//! editions).

use crate::block::SyncHeader;

/// Headers in a lock window (`sh_cnt` limit).
///
/// Spec: IEEE 802.3 §49.2.13.2.5 (`sh_cnt`), Fig. 49-14.
pub const SH_WINDOW: u8 = 64;

/// Invalid headers in a window that lose lock (`sh_invld_cnt` limit).
///
/// Spec: IEEE 802.3 §49.2.13.2.5 (`sh_invld_cnt`), Fig. 49-14.
pub const SH_INVLD_LIMIT: u8 = 16;

/// Bound on arrows followed in one step (the longest chain is 5: SLIP, RESET_CNT, TEST_SH,
/// VALID_SH, 64_GOOD, RESET_CNT).
const MAX_ARROWS: usize = 8;

/// Lock state diagram states. Each variant's doc is the spec's spelling.
///
/// Spec: IEEE 802.3 §49.2.9, Fig. 49-12 (802.3-2008) / 49-14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LockState {
    /// `LOCK_INIT`
    LockInit,
    /// `RESET_CNT`
    ResetCnt,
    /// `TEST_SH`
    TestSh,
    /// `VALID_SH`
    ValidSh,
    /// `INVALID_SH`
    InvalidSh,
    /// `64_GOOD`
    Good64,
    /// `SLIP`
    Slip,
}

/// What the receiver must do after a header was tested.
///
/// Spec: IEEE 802.3 §49.2.9 (`SLIP` function), Fig. 49-14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LockAction {
    /// Keep the alignment.
    Hold,
    /// Move the block boundary one bit later before the next header.
    SlipOneBit,
}

/// The block lock state machine, one [`step`](Self::step) per received sync header.
///
/// Spec: IEEE 802.3 §49.2.9, Fig. 49-12 (802.3-2008) / 49-14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BlockLock {
    state: LockState,
    block_lock: bool,
    test_sh: bool,
    sh_valid: bool,
    sh_cnt: u8,
    sh_invld_cnt: u8,
    slip_done: bool,
}

impl Default for BlockLock {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockLock {
    /// The machine in `LOCK_INIT` (as after reset): not locked.
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-14.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            state: LockState::LockInit,
            block_lock: false,
            test_sh: false,
            sh_valid: false,
            sh_cnt: 0,
            sh_invld_cnt: 0,
            slip_done: false,
        }
    }

    /// The machine as just after it acquired lock (`64_GOOD` --> `RESET_CNT`, waiting for the
    /// next header with `block_lock` true): for a receiver that knows the block boundary
    /// already (an offline decode of a dump whose boundary was found first).
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-14 (the state 64_GOOD leaves).
    #[must_use]
    pub const fn locked() -> Self {
        Self {
            state: LockState::ResetCnt,
            block_lock: true,
            test_sh: false,
            sh_valid: true,
            sh_cnt: 0,
            sh_invld_cnt: 0,
            slip_done: false,
        }
    }

    /// Back to `LOCK_INIT` (`reset` or `!signal_ok`).
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-14.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// The state the diagram waits in.
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-14.
    #[must_use]
    pub const fn state(&self) -> LockState {
        self.state
    }

    /// `block_lock`.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.2 (`block_lock`).
    #[must_use]
    pub const fn block_lock(&self) -> bool {
        self.block_lock
    }

    /// `sh_cnt`: headers tested in the current window.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.5 (`sh_cnt`).
    #[must_use]
    pub const fn sh_cnt(&self) -> u8 {
        self.sh_cnt
    }

    /// `sh_invld_cnt`: invalid headers in the current window.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.5 (`sh_invld_cnt`).
    #[must_use]
    pub const fn sh_invld_cnt(&self) -> u8 {
        self.sh_invld_cnt
    }

    /// How many valid headers in a row, from here, would each only be counted: the diagram
    /// waits in `VALID_SH` mid-window and takes VALID_SH --test_sh * sh_cnt < 64--> TEST_SH
    /// --sh_valid--> VALID_SH for each, until the window's last header. Zero elsewhere.
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-14.
    #[inline]
    #[must_use]
    pub const fn steady_valid_headers(&self) -> u8 {
        match self.state {
            LockState::ValidSh => (SH_WINDOW - 1).saturating_sub(self.sh_cnt),
            _ => 0,
        }
    }

    /// Takes `n` valid headers, `n` at most [`steady_valid_headers`](Self::steady_valid_headers):
    /// the same as `n` calls of [`step`](Self::step) with a valid header, each returning
    /// [`LockAction::Hold`].
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-14.
    #[inline]
    pub(crate) fn take_steady_valid_headers(&mut self, n: u8) {
        let n = n.min(self.steady_valid_headers());
        if n != 0 {
            self.sh_cnt += n;
            self.sh_valid = true;
        }
    }

    /// Tests one received sync header (the `test_sh` event) and follows the arrows until the
    /// diagram waits again. Returns [`LockAction::SlipOneBit`] when it entered `SLIP`.
    ///
    /// Spec: IEEE 802.3 §49.2.9, Fig. 49-12 (802.3-2008) / 49-14.
    #[inline]
    pub fn step(&mut self, sync: SyncHeader) -> LockAction {
        // Fast path, the steady state: waiting in VALID_SH mid-window, a valid header. The
        // diagram takes VALID_SH --test_sh * sh_cnt < 64--> TEST_SH --sh_valid--> VALID_SH,
        // which only counts the header.
        if self.state == LockState::ValidSh && self.sh_cnt + 1 < SH_WINDOW && sync.is_valid() {
            self.sh_cnt += 1;
            self.sh_valid = true;
            return LockAction::Hold;
        }
        // The two steps around a window's end with valid headers, once per 64 headers:
        // VALID_SH --> TEST_SH --> VALID_SH (sh_cnt = 64) --> 64_GOOD (no invalid header in the
        // window) or straight --> RESET_CNT, waiting there; then RESET_CNT --test_sh-->
        // TEST_SH --sh_valid--> VALID_SH with sh_cnt = 1.
        if sync.is_valid() {
            if self.state == LockState::ValidSh && self.sh_cnt + 1 == SH_WINDOW {
                if self.sh_invld_cnt == 0 {
                    self.block_lock = true;
                }
                self.state = LockState::ResetCnt;
                self.sh_cnt = 0;
                self.sh_invld_cnt = 0;
                self.slip_done = false;
                self.sh_valid = true;
                return LockAction::Hold;
            }
            if self.state == LockState::ResetCnt {
                self.state = LockState::ValidSh;
                self.sh_cnt = 1;
                self.sh_valid = true;
                return LockAction::Hold;
            }
        }
        self.step_diagram(sync)
    }

    /// [`step`](Self::step) by the diagram, arrow by arrow.
    #[inline(never)]
    fn step_diagram(&mut self, sync: SyncHeader) -> LockAction {
        // reading: the diagram waits in SLIP for `slip_done`; the caller slips before handing
        // over the next header, so a header arriving in SLIP means the slip is done.
        if self.state == LockState::Slip {
            self.slip_done = true;
        }
        self.test_sh = true;
        self.sh_valid = sync.is_valid();
        let mut action = LockAction::Hold;
        for _ in 0..MAX_ARROWS {
            let Some(next) = self.arrow() else {
                break;
            };
            self.enter(next);
            if next == LockState::Slip {
                action = LockAction::SlipOneBit;
            }
        }
        // reading: `test_sh` is an event, consumed by this step whatever the state.
        self.test_sh = false;
        action
    }

    /// The arrow out of the current state whose condition holds, or `None` while it waits.
    // reading: the exit conditions as transcribed in the brief from Fig. 49-12/49-14 (the
    // figure itself was not available to check).
    const fn arrow(&self) -> Option<LockState> {
        use LockState as S;
        let (sh_cnt, invld, lock) = (self.sh_cnt, self.sh_invld_cnt, self.block_lock);
        match self.state {
            S::LockInit => Some(S::ResetCnt),               // UCT
            S::ResetCnt if self.test_sh => Some(S::TestSh), // test_sh
            S::ResetCnt => None,
            S::TestSh if self.sh_valid => Some(S::ValidSh), // sh_valid
            S::TestSh => Some(S::InvalidSh),                // !sh_valid
            // test_sh * sh_cnt < 64
            S::ValidSh if self.test_sh && sh_cnt < SH_WINDOW => Some(S::TestSh),
            // sh_cnt = 64 * sh_invld_cnt = 0
            S::ValidSh if sh_cnt >= SH_WINDOW && invld == 0 => Some(S::Good64),
            // sh_cnt = 64 * sh_invld_cnt > 0
            S::ValidSh if sh_cnt >= SH_WINDOW => Some(S::ResetCnt),
            S::ValidSh => None,
            S::Good64 => Some(S::ResetCnt), // UCT
            // sh_cnt = 64 * sh_invld_cnt < 16 * block_lock
            S::InvalidSh if sh_cnt >= SH_WINDOW && invld < SH_INVLD_LIMIT && lock => {
                Some(S::ResetCnt)
            }
            // sh_invld_cnt = 16 + !block_lock
            S::InvalidSh if invld >= SH_INVLD_LIMIT || !lock => Some(S::Slip),
            // test_sh * sh_cnt < 64 * sh_invld_cnt < 16 * block_lock
            S::InvalidSh if self.test_sh => Some(S::TestSh),
            S::InvalidSh => None,
            S::Slip if self.slip_done => Some(S::ResetCnt), // slip_done
            S::Slip => None,
        }
    }

    /// Enters `state` and performs its actions.
    fn enter(&mut self, state: LockState) {
        use LockState as S;
        self.state = state;
        match state {
            S::LockInit => {
                self.block_lock = false;
                self.test_sh = false;
            }
            S::ResetCnt => {
                self.sh_cnt = 0;
                self.sh_invld_cnt = 0;
                self.slip_done = false;
            }
            S::TestSh => self.test_sh = false,
            S::ValidSh => self.sh_cnt = self.sh_cnt.saturating_add(1),
            S::InvalidSh => {
                self.sh_cnt = self.sh_cnt.saturating_add(1);
                self.sh_invld_cnt = self.sh_invld_cnt.saturating_add(1);
            }
            S::Good64 => self.block_lock = true,
            S::Slip => self.block_lock = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use LockAction::{Hold, SlipOneBit};

    const V: SyncHeader = SyncHeader::DATA;
    const C: SyncHeader = SyncHeader::CONTROL;
    const BAD: SyncHeader = SyncHeader::from_bits(0b11);

    /// Steps each header; returns the actions.
    fn run(lock: &mut BlockLock, headers: impl IntoIterator<Item = SyncHeader>) -> Vec<LockAction> {
        headers.into_iter().map(|h| lock.step(h)).collect()
    }

    fn valid(n: usize) -> impl Iterator<Item = SyncHeader> {
        (0..n).map(|i| if i % 3 == 0 { C } else { V })
    }

    fn locked() -> BlockLock {
        let mut lock = BlockLock::new();
        run(&mut lock, valid(64));
        assert!(lock.block_lock());
        lock
    }

    fn slips(actions: &[LockAction]) -> usize {
        actions.iter().filter(|&&a| a == SlipOneBit).count()
    }

    // -- LOCK_INIT, RESET_CNT, TEST_SH, VALID_SH, 64_GOOD ------------------------------------

    #[test]
    fn new_machine_waits_in_lock_init_unlocked() {
        let lock = BlockLock::new();
        assert_eq!(lock.state(), LockState::LockInit);
        assert!(!lock.block_lock());
    }

    #[test]
    fn first_valid_header_waits_in_valid_sh_with_sh_cnt_1() {
        let mut lock = BlockLock::new();
        assert_eq!(lock.step(V), Hold);
        assert_eq!(
            (lock.state(), lock.sh_cnt(), lock.sh_invld_cnt()),
            (LockState::ValidSh, 1, 0)
        );
    }

    #[test]
    fn lock_needs_64_valid_headers_in_a_row() {
        let mut lock = BlockLock::new();
        assert_eq!(slips(&run(&mut lock, valid(63))), 0);
        assert!(!lock.block_lock(), "63 are not enough");
        assert_eq!(lock.sh_cnt(), 63);
        assert_eq!(lock.step(V), Hold);
        assert!(lock.block_lock(), "the 64th locks");
        // 64_GOOD --UCT--> RESET_CNT: a fresh window.
        assert_eq!((lock.state(), lock.sh_cnt()), (LockState::ResetCnt, 0));
    }

    #[test]
    fn an_invalid_header_restarts_the_count_to_lock() {
        let mut lock = BlockLock::new();
        run(&mut lock, valid(63));
        assert_eq!(lock.step(BAD), SlipOneBit);
        assert_eq!(lock.state(), LockState::Slip);
        run(&mut lock, valid(63));
        assert!(!lock.block_lock());
        lock.step(V);
        assert!(lock.block_lock());
    }

    #[test]
    fn locked_window_of_64_valid_headers_keeps_lock() {
        let mut lock = locked();
        assert_eq!(slips(&run(&mut lock, valid(64 * 3))), 0);
        assert!(lock.block_lock());
        assert_eq!(lock.state(), LockState::ResetCnt);
    }

    // -- INVALID_SH, SLIP ---------------------------------------------------------------------

    #[test]
    fn unlocked_invalid_header_slips_at_once() {
        for bad in [SyncHeader::from_bits(0), SyncHeader::from_bits(3)] {
            let mut lock = BlockLock::new();
            assert_eq!(lock.step(bad), SlipOneBit);
            assert_eq!(lock.state(), LockState::Slip);
            assert!(!lock.block_lock());
            // The next header is at the new alignment: SLIP --slip_done--> RESET_CNT -> TEST_SH.
            assert_eq!(lock.step(V), Hold);
            assert_eq!((lock.state(), lock.sh_cnt()), (LockState::ValidSh, 1));
        }
    }

    #[test]
    fn locked_15_invalid_headers_in_a_window_keep_lock() {
        let mut lock = locked();
        let window = (0..64).map(|i| if i % 4 == 1 && i < 60 { BAD } else { V });
        assert_eq!(window.clone().filter(|h| !h.is_valid()).count(), 15);
        assert_eq!(slips(&run(&mut lock, window)), 0);
        assert!(lock.block_lock());
        // INVALID_SH/VALID_SH --sh_cnt=64--> RESET_CNT.
        assert_eq!(
            (lock.state(), lock.sh_cnt(), lock.sh_invld_cnt()),
            (LockState::ResetCnt, 0, 0)
        );
    }

    #[test]
    fn locked_16_invalid_headers_in_a_window_lose_lock_and_slip_once() {
        let mut lock = locked();
        let window: Vec<SyncHeader> = (0..64).map(|i| if i % 4 == 1 { BAD } else { V }).collect();
        let actions = run(&mut lock, window.iter().copied().take(62));
        // The 16th invalid header is header 61 (i = 1, 5, ..., 61).
        assert_eq!(slips(&actions), 1);
        assert_eq!(actions[61], SlipOneBit);
        assert!(actions[..61].iter().all(|&a| a == Hold), "not on the 15th");
        assert!(!lock.block_lock());
        assert_eq!(lock.state(), LockState::Slip);
    }

    #[test]
    fn sixteen_invalid_headers_ending_a_window_lose_lock() {
        // sh_cnt = 64 and sh_invld_cnt = 16 together: SLIP, not RESET_CNT.
        let mut lock = locked();
        let actions = run(&mut lock, valid(48).chain([BAD; 16]));
        assert_eq!(slips(&actions), 1);
        assert_eq!(actions[63], SlipOneBit);
        assert!(!lock.block_lock());
    }

    #[test]
    fn a_window_that_ends_restarts_the_invalid_count() {
        // 8 invalid at the end of one window and 8 at the start of the next: 16 within 16
        // headers, but in two windows, so lock holds.
        let mut lock = locked();
        let actions = run(&mut lock, valid(56).chain([BAD; 8]).chain([BAD; 8]));
        assert_eq!(slips(&actions), 0);
        assert!(lock.block_lock());
        assert_eq!((lock.sh_cnt(), lock.sh_invld_cnt()), (8, 8));
        let actions = run(&mut lock, valid(56));
        assert_eq!(slips(&actions), 0);
        assert!(lock.block_lock());
    }

    #[test]
    fn losing_lock_then_relocks_after_64_valid_headers() {
        let mut lock = locked();
        run(&mut lock, [BAD; 16]);
        assert!(!lock.block_lock());
        run(&mut lock, valid(63));
        assert!(!lock.block_lock());
        lock.step(V);
        assert!(lock.block_lock());
    }

    proptest! {
        #[test]
        fn steady_runs_and_the_fast_step_match_the_diagram(
            headers in prop::collection::vec((0u8..4, 0u8..70), 0..120),
        ) {
            // `headers`: (header bits, then that many valid headers when the run applies).
            let mut diagram = BlockLock::new();
            let mut fast = BlockLock::new();
            let mut runs = BlockLock::new();
            for (h, n) in headers {
                let sync = SyncHeader::from_bits(h);
                let want = diagram.step_diagram(sync);
                prop_assert_eq!(fast.step(sync), want);
                prop_assert_eq!(runs.step(sync), want);
                let n = n.min(runs.steady_valid_headers());
                runs.take_steady_valid_headers(n);
                for i in 0..n {
                    let v = if i % 2 == 0 { V } else { C };
                    prop_assert_eq!(diagram.step_diagram(v), Hold);
                    prop_assert_eq!(fast.step(v), Hold);
                }
                prop_assert_eq!(fast, diagram);
                prop_assert_eq!(runs, diagram);
            }
        }
    }

    #[test]
    fn reset_returns_to_lock_init() {
        let mut l = BlockLock::new();
        for _ in 0..70 {
            l.step(V);
        }
        assert!(l.block_lock());
        l.reset();
        assert_eq!(l, BlockLock::new());
        assert!(!l.block_lock());
    }
}
