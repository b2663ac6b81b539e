//! The high symbol error rate monitor (`hi_ser`, MDIO 1.201.2).
//!
//! ```text
//!  symbol errors summed over consecutive, non-overlapping windows of 8192 codewords
//!  count > K (417 for RS(528,514))  ->  hi_ser
//! ```
//!
//! hi_ser rises in the codeword whose errors take the window's count above K (the moment a
//! counting implementation knows), and at each window's end it becomes `count > K` for the
//! window just completed, so it falls at the end of the first window with at most K errors.
//! U: when within the window hi_ser rises and when it falls are this model's reading; the
//! window, K and the comparison (> K) are V. The first window starts with the first
//! codeword decoded.
//!
//! Spec: IEEE 802.3 §91.5.3.3 (K = 417 for RS(528,514)), Clause 45 register 1.201 bit 2.

/// Codewords per symbol-error window.
///
/// Spec: IEEE 802.3 §91.5.3.3. Mark V (AMD PG203, Intel 683723).
pub const SER_WINDOW_CODEWORDS: u32 = 8192;

/// K: hi_ser when a window holds more symbol errors than this.
///
/// Spec: IEEE 802.3 §91.5.3.3. Mark V (AMD PG203 "K=417", Intel 683723 "exceeded 417").
pub const SER_THRESHOLD: u32 = 417;

/// The hi_ser monitor.
///
/// Spec: IEEE 802.3 §91.5.3.3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SerMonitor {
    /// Symbol errors in the current window.
    count: u32,
    /// Codewords in the current window.
    codewords: u32,
    /// hi_ser.
    hi_ser: bool,
}

impl SerMonitor {
    /// A monitor at the start of a window, hi_ser false.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            count: 0,
            codewords: 0,
            hi_ser: false,
        }
    }

    /// `hi_ser`.
    #[must_use]
    pub const fn hi_ser(&self) -> bool {
        self.hi_ser
    }

    /// Symbol errors counted so far in the current window.
    #[must_use]
    pub const fn window_count(&self) -> u32 {
        self.count
    }

    /// Takes one codeword's symbol errors. Returns true when the window's count went above
    /// K in this codeword (the event that starts the sync-header corruption period).
    ///
    /// Spec: IEEE 802.3 §91.5.3.3.
    pub fn record(&mut self, symbol_errors: u32) -> bool {
        let before = self.count;
        self.count = before.saturating_add(symbol_errors);
        self.codewords += 1;
        // The count only grows inside a window, so it passes K at most once in it.
        let trip = before <= SER_THRESHOLD && self.count > SER_THRESHOLD;
        self.hi_ser |= trip;
        if self.codewords >= SER_WINDOW_CODEWORDS {
            self.hi_ser = self.count > SER_THRESHOLD;
            self.count = 0;
            self.codewords = 0;
        }
        trip
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds a window of 8192 codewords holding `total` symbol errors, spread over its
    /// codewords (at most 7 each), and reports whether hi_ser was ever set.
    fn window(m: &mut SerMonitor, total: u32) -> bool {
        let mut left = total;
        let mut seen = false;
        for _ in 0..SER_WINDOW_CODEWORDS {
            let e = left.min(7);
            left -= e;
            m.record(e);
            seen |= m.hi_ser();
        }
        seen
    }

    #[test]
    fn hi_ser_trips_at_418_symbol_errors_in_8192_codewords() {
        let mut m = SerMonitor::new();
        assert!(window(&mut m, 418));
        assert!(m.hi_ser(), "stays set after a window above K");
    }

    #[test]
    fn hi_ser_does_not_trip_at_417() {
        let mut m = SerMonitor::new();
        assert!(!window(&mut m, 417));
        assert!(!window(&mut m, 417));
    }

    #[test]
    fn hi_ser_falls_after_a_window_at_or_below_k() {
        let mut m = SerMonitor::new();
        window(&mut m, 1000);
        assert!(m.hi_ser());
        window(&mut m, 417);
        assert!(!m.hi_ser());
    }

    #[test]
    fn windows_do_not_overlap() {
        // 413 at the end of one window and 413 at the start of the next (826 within 118
        // codewords): no hi_ser, the windows are counted apart.
        let mut m = SerMonitor::new();
        for i in 0..2 * SER_WINDOW_CODEWORDS {
            let near_edge = (SER_WINDOW_CODEWORDS - 59..SER_WINDOW_CODEWORDS + 59).contains(&i);
            m.record(if near_edge { 7 } else { 0 });
            assert!(!m.hi_ser());
        }
    }
}
