//! Codeword lock: find the marker at any bit offset, confirm it a period later, keep lock
//! while markers keep coming.
//!
//! ```text
//!            marker found by the bit search
//!   HUNT ─────────────────────────────────────> CONFIRM(1) ──...──> LOCKED(bad = 0)
//!    ^     expected marker bad                     │ marker good, count = lock_markers
//!    ├──────────────────────────────────────── CONFIRM(n)
//!    │     bad = unlock_bad_markers                          marker bad: bad += 1
//!    └──────────────────────────────────────── LOCKED(bad) <─ marker good: bad = 0
//! ```
//!
//! U: the standard's FEC synchronization diagram was not read. Defaults: lock after 2
//! markers in consecutive periods (the Clause 82/91 "find a first, confirm a second" shape),
//! unlock after 2 consecutive bad markers (the VIP tolerates one bad marker), exact match of
//! the 256 AM bits. All three are options of `RsFecConfig`.
//!
//! Spec: IEEE 802.3 §108.5.3 (codeword marker lock; subclause text not read), §91.5.3.1.

/// Lock state. `Confirm` and `Locked` are aligned: the receiver knows where codewords start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LockState {
    /// Searching every bit offset for the marker.
    Hunt,
    /// Markers seen so far at the expected places, fewer than `lock_markers`.
    Confirm {
        /// Markers seen.
        markers: u8,
    },
    /// Locked; `bad` consecutive bad markers since the last good one.
    Locked {
        /// Consecutive bad markers.
        bad: u8,
    },
}

/// What a marker did to the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LockTransition {
    /// No change of lock.
    Stay,
    /// Lock acquired.
    Acquired,
    /// A marker expected while confirming was bad: back to the search.
    ConfirmFailed,
    /// Lock lost.
    Lost,
}

/// The codeword lock state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CodewordLock {
    state: LockState,
    lock_markers: u8,
    unlock_bad_markers: u8,
}

impl CodewordLock {
    /// A lock in `Hunt` (counts of 0 are taken as 1).
    #[must_use]
    pub const fn new(lock_markers: u8, unlock_bad_markers: u8) -> Self {
        Self {
            state: LockState::Hunt,
            lock_markers: if lock_markers == 0 { 1 } else { lock_markers },
            unlock_bad_markers: if unlock_bad_markers == 0 {
                1
            } else {
                unlock_bad_markers
            },
        }
    }

    /// The state.
    #[must_use]
    pub const fn state(&self) -> LockState {
        self.state
    }

    /// Whether locked.
    #[must_use]
    pub const fn is_locked(&self) -> bool {
        matches!(self.state, LockState::Locked { .. })
    }

    /// Whether codeword boundaries are known (confirming or locked).
    #[must_use]
    pub const fn is_aligned(&self) -> bool {
        !matches!(self.state, LockState::Hunt)
    }

    /// The search found a marker (only in `Hunt`).
    pub fn found(&mut self) -> LockTransition {
        if self.state != LockState::Hunt {
            return LockTransition::Stay;
        }
        if self.lock_markers <= 1 {
            self.state = LockState::Locked { bad: 0 };
            LockTransition::Acquired
        } else {
            self.state = LockState::Confirm { markers: 1 };
            LockTransition::Stay
        }
    }

    /// A marker was expected (codeword 0 of a period while aligned); `good` when it matched.
    pub fn expected(&mut self, good: bool) -> LockTransition {
        use {LockState as S, LockTransition as T};
        let (state, t) = match (self.state, good) {
            (S::Hunt, _) => (S::Hunt, T::Stay),
            (S::Confirm { markers }, true) if markers.saturating_add(1) >= self.lock_markers => {
                (S::Locked { bad: 0 }, T::Acquired)
            }
            (S::Confirm { markers }, true) => (
                S::Confirm {
                    markers: markers.saturating_add(1),
                },
                T::Stay,
            ),
            (S::Confirm { .. }, false) => (S::Hunt, T::ConfirmFailed),
            (S::Locked { .. }, true) => (S::Locked { bad: 0 }, T::Stay),
            (S::Locked { bad }, false) if bad.saturating_add(1) >= self.unlock_bad_markers => {
                (S::Hunt, T::Lost)
            }
            (S::Locked { bad }, false) => (
                S::Locked {
                    bad: bad.saturating_add(1),
                },
                T::Stay,
            ),
        };
        self.state = state;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_needs_two_markers_by_default() {
        let mut l = CodewordLock::new(2, 2);
        assert_eq!(l.found(), LockTransition::Stay);
        assert!(l.is_aligned() && !l.is_locked());
        assert_eq!(l.expected(true), LockTransition::Acquired);
        assert!(l.is_locked());
    }

    #[test]
    fn lock_on_the_first_marker_when_asked() {
        let mut l = CodewordLock::new(1, 2);
        assert_eq!(l.found(), LockTransition::Acquired);
    }

    #[test]
    fn a_bad_second_marker_sends_the_search_back() {
        let mut l = CodewordLock::new(2, 2);
        l.found();
        assert_eq!(l.expected(false), LockTransition::ConfirmFailed);
        assert_eq!(l.state(), LockState::Hunt);
    }

    #[test]
    fn one_bad_marker_is_tolerated_two_lose_lock() {
        let mut l = CodewordLock::new(2, 2);
        l.found();
        l.expected(true);
        assert_eq!(l.expected(false), LockTransition::Stay);
        assert_eq!(l.expected(true), LockTransition::Stay);
        assert_eq!(l.expected(false), LockTransition::Stay);
        assert_eq!(l.expected(false), LockTransition::Lost);
        assert_eq!(l.state(), LockState::Hunt);
    }
}
