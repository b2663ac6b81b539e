//! FEC block lock: find the 2112-bit FEC block boundary in a received bit stream. It replaces
//! the PCS's sync-header block lock when the FEC is on.
//!
//! ```text
//!  LOCK_INIT / SLIP --good--> GOOD_PARITY --good (good_cnt = n)--> LOCKED <--good or corrected--+
//!       ^    |                   |    \--good (good_cnt < n)--/      |                        |
//!       |    \--bad: slip--------+--bad: slip                         \--uncorrectable--> BAD_BLOCK
//!       |                                                                                 |
//!       \------------------------ uncorrectable (bad_cnt = m): lose lock, slip -----------/
//! ```
//!
//! One [`step`](FecBlockLock::step) per tested candidate FEC block: the receiver descrambles the
//! 2112 bits at the current boundary and tests the syndrome. Unlocked, a zero syndrome counts
//! toward `n`; any other restarts the count and slips the boundary one bit (the next candidate
//! starts 2112 + 1 bits after this one). After `n` good blocks in a row, `fec_block_lock` is
//! set and correction starts. Locked, `m` uncorrectable blocks in a row drop lock and slip.
//!
//! The state names are this model's: the figure of §74.7.4.7 was not read; its shape (test,
//! slip one bit, `n` to lock, restart on a failure among the `n`, `m` bad to lose) is from the
//! project's fact sheet (V); the values of `n` and `m` and what counts as "bad" are U.
//!
//! Spec: IEEE 802.3 §74.7.4.7.

use super::decode::DecodeOutcome;

/// `n`: consecutive good candidate blocks (zero syndrome) to acquire FEC block lock.
///
/// U: the standard's value was not read. 2 is the Synopsys VIP model's value ("lock after 2
/// zero-syndrome blocks"), its own design. A later correction is this constant.
///
/// Spec: IEEE 802.3 §74.7.4.7.
pub const FEC_LOCK_N: u8 = 2;

/// `m`: consecutive bad blocks (see [`LossCriterion`]) that drop FEC block lock.
///
/// U: the standard's value was not read. 8 is the Synopsys VIP model's value ("loss after 8
/// consecutive uncorrectable blocks"), its own design.
///
/// Spec: IEEE 802.3 §74.7.4.7.
pub const FEC_LOCK_M: u8 = 8;

/// What counts as a bad block toward `m` once locked.
///
/// U: the VIP model and the project's brief count uncorrectable blocks (default); one vendor
/// (Efinix) writes "m consecutive blocks with bad parity", which would also count corrected
/// ones ([`BadParity`](Self::BadParity)).
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LossCriterion {
    /// A block the decoder could not correct (U: default).
    #[default]
    Uncorrectable,
    /// Any block with a non-zero syndrome, corrected or not.
    BadParity,
}

impl LossCriterion {
    /// Whether a locked block with this outcome counts toward `m`.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn is_bad(self, outcome: DecodeOutcome) -> bool {
        match self {
            Self::Uncorrectable => {
                matches!(
                    outcome,
                    DecodeOutcome::Uncorrectable | DecodeOutcome::BadParity
                )
            }
            Self::BadParity => !outcome.is_clean(),
        }
    }
}

/// FEC block lock settings. `n` and `m` of 0 act as 1.
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecLockConfig {
    /// Consecutive good blocks to lock (U: default [`FEC_LOCK_N`]).
    pub n: u8,
    /// Consecutive bad blocks to lose lock (U: default [`FEC_LOCK_M`]).
    pub m: u8,
    /// What counts as bad (U: default [`LossCriterion::Uncorrectable`]).
    pub loss: LossCriterion,
}

impl Default for FecLockConfig {
    fn default() -> Self {
        Self {
            n: FEC_LOCK_N,
            m: FEC_LOCK_M,
            loss: LossCriterion::Uncorrectable,
        }
    }
}

/// FEC block lock states (this model's names; see the module doc).
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FecLockState {
    /// `LOCK_INIT`: after reset; not locked, the first candidate starts at the first bit
    /// received.
    LockInit,
    /// `SLIP`: not locked; the last candidate failed and the boundary moved one bit later.
    Slip,
    /// `GOOD_PARITY`: not locked; `good_cnt` (1..n) good blocks in a row at this boundary.
    GoodParity,
    /// `LOCKED`: `fec_block_lock`; the last block was not bad.
    Locked,
    /// `BAD_BLOCK`: `fec_block_lock`; `bad_cnt` (1..m) bad blocks in a row.
    BadBlock,
}

/// What the receiver must do after a candidate was tested.
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FecLockAction {
    /// Keep the boundary: the next FEC block starts right after this one.
    Hold,
    /// Move the boundary one bit later: the next candidate starts 2113 bits after this one.
    SlipOneBit,
}

/// A change of `fec_block_lock` on a step.
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LockChange {
    /// No change.
    Unchanged,
    /// Lock acquired on this block (its `n`th good one).
    Acquired,
    /// Lock lost on this block (its `m`th bad one).
    Lost,
}

/// One step's result.
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecLockStep {
    /// Whether to slip.
    pub action: FecLockAction,
    /// Whether lock changed.
    pub change: LockChange,
}

/// The FEC block lock state machine, one [`step`](Self::step) per tested FEC block.
///
/// Spec: IEEE 802.3 §74.7.4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecBlockLock {
    config: FecLockConfig,
    state: FecLockState,
    good_cnt: u8,
    bad_cnt: u8,
}

impl Default for FecBlockLock {
    fn default() -> Self {
        Self::new(FecLockConfig::default())
    }
}

impl FecBlockLock {
    /// The machine in `LOCK_INIT`: not locked.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn new(config: FecLockConfig) -> Self {
        Self {
            config,
            state: FecLockState::LockInit,
            good_cnt: 0,
            bad_cnt: 0,
        }
    }

    /// The machine already locked (for a receiver that knows the boundary: an offline decode
    /// of a dump that starts at a FEC block).
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn locked(config: FecLockConfig) -> Self {
        Self {
            config,
            state: FecLockState::Locked,
            good_cnt: 0,
            bad_cnt: 0,
        }
    }

    /// The settings.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn config(&self) -> FecLockConfig {
        self.config
    }

    /// The current state.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn state(&self) -> FecLockState {
        self.state
    }

    /// `fec_block_lock`: the boundary is found; correction is active.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn fec_block_lock(&self) -> bool {
        matches!(self.state, FecLockState::Locked | FecLockState::BadBlock)
    }

    /// Good blocks in a row while not locked.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn good_cnt(&self) -> u8 {
        self.good_cnt
    }

    /// Bad blocks in a row while locked.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    #[must_use]
    pub const fn bad_cnt(&self) -> u8 {
        self.bad_cnt
    }

    /// Back to `LOCK_INIT`, keeping the settings.
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    pub fn reset(&mut self) {
        *self = Self::new(self.config);
    }

    /// Tests one candidate FEC block, given what the decoder made of it (with correction
    /// active only when [`fec_block_lock`](Self::fec_block_lock) was set).
    ///
    /// Spec: IEEE 802.3 §74.7.4.7.
    pub fn step(&mut self, outcome: DecodeOutcome) -> FecLockStep {
        use FecLockState as S;
        let (n, m) = (self.config.n.max(1), self.config.m.max(1));
        let hold = |change| FecLockStep {
            action: FecLockAction::Hold,
            change,
        };
        let slip = |change| FecLockStep {
            action: FecLockAction::SlipOneBit,
            change,
        };
        match self.state {
            S::LockInit | S::Slip | S::GoodParity => {
                if !outcome.is_clean() {
                    // A failure, also among the n: restart and slip one bit.
                    self.state = S::Slip;
                    self.good_cnt = 0;
                    return slip(LockChange::Unchanged);
                }
                self.good_cnt = self.good_cnt.saturating_add(1);
                if self.good_cnt < n {
                    self.state = S::GoodParity;
                    return hold(LockChange::Unchanged);
                }
                self.state = S::Locked;
                self.good_cnt = 0;
                self.bad_cnt = 0;
                hold(LockChange::Acquired)
            }
            S::Locked | S::BadBlock => {
                if !self.config.loss.is_bad(outcome) {
                    self.state = S::Locked;
                    self.bad_cnt = 0;
                    return hold(LockChange::Unchanged);
                }
                self.bad_cnt = self.bad_cnt.saturating_add(1);
                if self.bad_cnt < m {
                    self.state = S::BadBlock;
                    return hold(LockChange::Unchanged);
                }
                self.state = S::Slip;
                self.bad_cnt = 0;
                self.good_cnt = 0;
                slip(LockChange::Lost)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base_r::decode::Burst;

    const GOOD: DecodeOutcome = DecodeOutcome::Clean;
    const BAD_PARITY: DecodeOutcome = DecodeOutcome::BadParity;
    const UNCORRECTABLE: DecodeOutcome = DecodeOutcome::Uncorrectable;

    fn corrected() -> DecodeOutcome {
        DecodeOutcome::Corrected(Burst::try_new(5, 1).unwrap())
    }

    fn locked_machine() -> FecBlockLock {
        let mut l = FecBlockLock::default();
        l.step(GOOD);
        l.step(GOOD);
        assert!(l.fec_block_lock());
        l
    }

    #[test]
    fn u_defaults_are_n_2_m_8_uncorrectable() {
        let c = FecLockConfig::default();
        assert_eq!((c.n, c.m, c.loss), (2, 8, LossCriterion::Uncorrectable));
    }

    #[test]
    fn lock_needs_n_good_blocks_in_a_row() {
        let mut l = FecBlockLock::default();
        assert_eq!(l.state(), FecLockState::LockInit);
        let s = l.step(GOOD);
        assert_eq!(
            (s.action, s.change),
            (FecLockAction::Hold, LockChange::Unchanged)
        );
        assert!(!l.fec_block_lock());
        assert_eq!((l.state(), l.good_cnt()), (FecLockState::GoodParity, 1));
        let s = l.step(GOOD);
        assert_eq!(
            (s.action, s.change),
            (FecLockAction::Hold, LockChange::Acquired)
        );
        assert!(l.fec_block_lock());
    }

    #[test]
    fn a_failure_among_the_n_restarts_and_slips() {
        let mut l = FecBlockLock::new(FecLockConfig {
            n: 4,
            ..FecLockConfig::default()
        });
        for _ in 0..3 {
            assert_eq!(l.step(GOOD).action, FecLockAction::Hold);
        }
        let s = l.step(BAD_PARITY);
        assert_eq!(s.action, FecLockAction::SlipOneBit);
        assert_eq!((l.state(), l.good_cnt()), (FecLockState::Slip, 0));
        for _ in 0..3 {
            l.step(GOOD);
        }
        assert!(!l.fec_block_lock());
        assert_eq!(l.step(GOOD).change, LockChange::Acquired);
    }

    #[test]
    fn unlocked_bad_parity_slips_every_time() {
        let mut l = FecBlockLock::default();
        for _ in 0..5 {
            assert_eq!(l.step(BAD_PARITY).action, FecLockAction::SlipOneBit);
        }
        assert!(!l.fec_block_lock());
    }

    #[test]
    fn lock_drops_after_m_uncorrectable_in_a_row() {
        let mut l = locked_machine();
        for i in 1..8 {
            let s = l.step(UNCORRECTABLE);
            assert_eq!(
                (s.action, s.change),
                (FecLockAction::Hold, LockChange::Unchanged)
            );
            assert_eq!((l.state(), l.bad_cnt()), (FecLockState::BadBlock, i));
        }
        let s = l.step(UNCORRECTABLE);
        assert_eq!(
            (s.action, s.change),
            (FecLockAction::SlipOneBit, LockChange::Lost)
        );
        assert!(!l.fec_block_lock());
        assert_eq!(l.state(), FecLockState::Slip);
    }

    #[test]
    fn a_good_or_corrected_block_restarts_the_bad_count() {
        for good in [GOOD, corrected()] {
            let mut l = locked_machine();
            for _ in 0..7 {
                l.step(UNCORRECTABLE);
            }
            l.step(good);
            assert_eq!((l.state(), l.bad_cnt()), (FecLockState::Locked, 0));
            for _ in 0..7 {
                assert_eq!(l.step(UNCORRECTABLE).change, LockChange::Unchanged);
            }
            assert!(l.fec_block_lock());
        }
    }

    #[test]
    fn bad_parity_criterion_counts_corrected_blocks() {
        let mut l = FecBlockLock::locked(FecLockConfig {
            m: 2,
            loss: LossCriterion::BadParity,
            ..FecLockConfig::default()
        });
        l.step(corrected());
        assert_eq!(l.step(corrected()).change, LockChange::Lost);
        let mut l = FecBlockLock::locked(FecLockConfig {
            m: 2,
            ..FecLockConfig::default()
        });
        l.step(corrected());
        assert_eq!(l.step(corrected()).change, LockChange::Unchanged);
    }

    #[test]
    fn zero_n_and_m_act_as_one() {
        let mut l = FecBlockLock::new(FecLockConfig {
            n: 0,
            m: 0,
            ..FecLockConfig::default()
        });
        assert_eq!(l.step(GOOD).change, LockChange::Acquired);
        assert_eq!(l.step(UNCORRECTABLE).change, LockChange::Lost);
    }

    #[test]
    fn reset_returns_to_lock_init() {
        let mut l = locked_machine();
        l.reset();
        assert_eq!(l, FecBlockLock::default());
    }
}
