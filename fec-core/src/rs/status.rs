//! RS-FEC counters and status as the Clause 45 MDIO registers show them.
//!
//! ```text
//!  1.200  bit 0 bypass correction enable      bit 1 bypass indication enable
//!  1.201  bit 0 bypass correction ability     bit 1 bypass indication ability
//!         bit 2 high SER (latching high)      bit 8 FEC lane 0 AM lock
//!         bit 14 FEC align status             (bit 15 PCS align status: the PCS's, reads 0)
//!  1.202 / 1.203  corrected codewords, low / high 16 bits
//!  1.204 / 1.205  uncorrected codewords, low / high
//!  1.210 / 1.211  symbol errors, FEC lane 0, low / high
//! ```
//!
//! The counters are 32 bits, saturating (non-rollover). Reading a low word returns it,
//! copies the high word into a holding register read by the next access to the high
//! address, and clears the counter. U: the latch is V (LAN80XX: "reading the low word
//! latches the high word"); clear-on-read is this model's reading of Clause 45's counter
//! wording, as pcs-core does for 3.33.
//!
//! What counts (this model's readings, U where the standard's text was not read):
//! corrected codewords = [`DecodeOutcome::Corrected`]; uncorrected codewords =
//! [`DecodeOutcome::Uncorrectable`] and, with bypass correction, codewords with errors left
//! ([`DecodeOutcome::NotCorrected`]); symbol errors = the symbols located (corrected or
//! not) plus `uncorrectable_symbol_errors` per uncorrectable codeword.
//!
//! Spec: Clause 45 registers 1.200–1.211; IEEE 802.3 §91.6 (variables).

use super::decode::DecodeOutcome;
use crate::read_counter_low;

/// MDIO 1.200, RS-FEC control.
pub const REG_CONTROL: u16 = 200;
/// MDIO 1.201, RS-FEC status.
pub const REG_STATUS: u16 = 201;
/// MDIO 1.202, corrected codewords counter, low 16 bits.
pub const REG_CORRECTED_LOW: u16 = 202;
/// MDIO 1.203, corrected codewords counter, high 16 bits.
pub const REG_CORRECTED_HIGH: u16 = 203;
/// MDIO 1.204, uncorrected codewords counter, low 16 bits.
pub const REG_UNCORRECTED_LOW: u16 = 204;
/// MDIO 1.205, uncorrected codewords counter, high 16 bits.
pub const REG_UNCORRECTED_HIGH: u16 = 205;
/// MDIO 1.210, symbol error counter FEC lane 0, low 16 bits.
pub const REG_SYMBOL_ERRORS_LOW: u16 = 210;
/// MDIO 1.211, symbol error counter FEC lane 0, high 16 bits.
pub const REG_SYMBOL_ERRORS_HIGH: u16 = 211;

/// 1.201 bit 0: bypass correction ability (this model has it).
pub const STATUS_BYPASS_CORRECTION_ABILITY: u16 = 1;
/// 1.201 bit 1: bypass indication ability (this model has it).
pub const STATUS_BYPASS_INDICATION_ABILITY: u16 = 1 << 1;
/// 1.201 bit 2: high SER, latching high.
pub const STATUS_HIGH_SER: u16 = 1 << 2;
/// 1.201 bit 8: AM (codeword marker) lock, FEC lane 0.
pub const STATUS_AM_LOCK_LANE_0: u16 = 1 << 8;
/// 1.201 bit 14: FEC align status.
pub const STATUS_FEC_ALIGN: u16 = 1 << 14;

/// The three counters.
///
/// Spec: Clause 45 registers 1.202–1.205, 1.210, 1.211.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RsFecCounters {
    /// `FEC_corrected_cw_counter` (1.202/1.203).
    pub corrected_codewords: u32,
    /// `FEC_uncorrected_cw_counter` (1.204/1.205).
    pub uncorrected_codewords: u32,
    /// `FEC_symbol_error_counter_0` (1.210/1.211).
    pub symbol_errors: u32,
}

/// Counters, latches and holding registers behind 1.200–1.211.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RsFecStatus {
    counters: RsFecCounters,
    /// 1.201.2: hi_ser was true since the last read.
    latched_hi_ser: bool,
    /// Holding registers for 1.203, 1.205, 1.211.
    held: [u16; 3],
}

/// What the status needs from the receiver at the moment of a read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LiveStatus {
    /// The 1.200 value.
    pub control: u16,
    /// Codeword lock (AM lock lane 0 and FEC align status, one lane at 25G).
    pub aligned: bool,
    /// `hi_ser` now.
    pub hi_ser: bool,
}

impl RsFecStatus {
    /// Counters zero, nothing latched.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            counters: RsFecCounters {
                corrected_codewords: 0,
                uncorrected_codewords: 0,
                symbol_errors: 0,
            },
            latched_hi_ser: false,
            held: [0; 3],
        }
    }

    /// The counters, without reading (clearing) them.
    #[must_use]
    pub const fn counters(&self) -> RsFecCounters {
        self.counters
    }

    /// Takes one decoded codeword: its outcome, the symbol errors it adds, hi_ser after it.
    ///
    /// Spec: Clause 45 registers 1.201–1.211.
    pub fn record(&mut self, outcome: &DecodeOutcome, symbol_errors: u32, hi_ser: bool) {
        let c = &mut self.counters;
        match outcome {
            DecodeOutcome::Clean => {}
            DecodeOutcome::Corrected(_) => {
                c.corrected_codewords = c.corrected_codewords.saturating_add(1);
            }
            DecodeOutcome::NotCorrected(_) | DecodeOutcome::Uncorrectable => {
                c.uncorrected_codewords = c.uncorrected_codewords.saturating_add(1);
            }
        }
        c.symbol_errors = c.symbol_errors.saturating_add(symbol_errors);
        self.latched_hi_ser |= hi_ser;
    }

    /// Reads register 1.`reg`; `None` for an address this model does not hold. Reads clear
    /// counters and latches (see the module doc).
    ///
    /// Spec: Clause 45 registers 1.200–1.211.
    pub fn read(&mut self, reg: u16, live: LiveStatus) -> Option<u16> {
        let c = &mut self.counters;
        let [h0, h1, h2] = &mut self.held;
        Some(match reg {
            REG_CONTROL => live.control,
            REG_STATUS => {
                let hi_ser = self.latched_hi_ser || live.hi_ser;
                self.latched_hi_ser = false;
                let mut v = STATUS_BYPASS_CORRECTION_ABILITY | STATUS_BYPASS_INDICATION_ABILITY;
                if hi_ser {
                    v |= STATUS_HIGH_SER;
                }
                if live.aligned {
                    v |= STATUS_AM_LOCK_LANE_0 | STATUS_FEC_ALIGN;
                }
                v
            }
            REG_CORRECTED_LOW => read_counter_low(&mut c.corrected_codewords, h0, true),
            REG_CORRECTED_HIGH => core::mem::take(h0),
            REG_UNCORRECTED_LOW => read_counter_low(&mut c.uncorrected_codewords, h1, true),
            REG_UNCORRECTED_HIGH => core::mem::take(h1),
            REG_SYMBOL_ERRORS_LOW => read_counter_low(&mut c.symbol_errors, h2, true),
            REG_SYMBOL_ERRORS_HIGH => core::mem::take(h2),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_saturate_instead_of_rolling_over() {
        let mut s = RsFecStatus::new();
        s.counters.symbol_errors = u32::MAX - 1;
        s.record(&DecodeOutcome::Uncorrectable, 8, false);
        assert_eq!(s.counters().symbol_errors, u32::MAX);
        assert_eq!(s.counters().uncorrected_codewords, 1);
    }

    #[test]
    fn reading_the_low_word_latches_the_high_word_and_clears() {
        let mut s = RsFecStatus::new();
        s.counters.corrected_codewords = 0x0012_3456;
        let live = LiveStatus::default();
        assert_eq!(s.read(REG_CORRECTED_LOW, live), Some(0x3456));
        assert_eq!(s.counters().corrected_codewords, 0);
        assert_eq!(s.read(REG_CORRECTED_HIGH, live), Some(0x0012));
        assert_eq!(s.read(REG_CORRECTED_HIGH, live), Some(0));
    }

    #[test]
    fn high_ser_latches_high_until_read() {
        let mut s = RsFecStatus::new();
        s.record(&DecodeOutcome::Clean, 0, true);
        let live = LiveStatus {
            control: 0,
            aligned: true,
            hi_ser: false,
        };
        let v = s.read(REG_STATUS, live).unwrap();
        assert_eq!(v & STATUS_HIGH_SER, STATUS_HIGH_SER);
        assert_eq!(v & (STATUS_FEC_ALIGN | STATUS_AM_LOCK_LANE_0), 0x4100);
        assert_eq!(s.read(REG_STATUS, live).unwrap() & STATUS_HIGH_SER, 0);
    }
}
