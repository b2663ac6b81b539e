//! BASE-R FEC ability, control and counters as the Clause 45 MDIO registers show them (PMA/PMD
//! device 1).
//!
//! ```text
//!  1.170  bit 0 FEC ability                 bit 1 FEC error indication ability
//!  1.171  bit 0 FEC enable (U)              bit 1 FEC enable error indication (U)
//!  1.172  corrected blocks counter, bits 15:0      1.173  bits 31:16
//!  1.174  uncorrected blocks counter, bits 15:0    1.175  bits 31:16
//! ```
//!
//! [`FecCounters`] counts what the decoder did to each FEC block while locked. The 32-bit
//! counters saturate (U); reading the low register returns bits 15:0, copies bits 31:16 into
//! the high register's holding copy, and clears the counter (U, [`CounterRead::ClearOnRead`],
//! the default; [`CounterRead::Keep`] leaves it). Read the low register first, then the high.
//!
//! Spec: IEEE 802.3 Clause 45, registers 1.170 to 1.175.

use super::decode::DecodeOutcome;
use crate::read_counter_low;

/// MDIO register 1.170, BASE-R FEC ability.
///
/// Spec: IEEE 802.3 Clause 45, register 1.170.
pub const REG_FEC_ABILITY: u16 = 170;
/// MDIO register 1.171, BASE-R FEC control.
///
/// Spec: IEEE 802.3 Clause 45, register 1.171.
pub const REG_FEC_CONTROL: u16 = 171;
/// MDIO register 1.172, FEC corrected blocks counter, bits 15:0.
///
/// Spec: IEEE 802.3 Clause 45, register 1.172.
pub const REG_CORRECTED_BLOCKS_LOW: u16 = 172;
/// MDIO register 1.173, FEC corrected blocks counter, bits 31:16.
///
/// Spec: IEEE 802.3 Clause 45, register 1.173.
pub const REG_CORRECTED_BLOCKS_HIGH: u16 = 173;
/// MDIO register 1.174, FEC uncorrected blocks counter, bits 15:0.
///
/// Spec: IEEE 802.3 Clause 45, register 1.174.
pub const REG_UNCORRECTED_BLOCKS_LOW: u16 = 174;
/// MDIO register 1.175, FEC uncorrected blocks counter, bits 31:16.
///
/// Spec: IEEE 802.3 Clause 45, register 1.175.
pub const REG_UNCORRECTED_BLOCKS_HIGH: u16 = 175;

/// 1.170 bit 0: BASE-R FEC ability.
///
/// Spec: IEEE 802.3 Clause 45, register 1.170.
pub const ABILITY_FEC: u16 = 1;
/// 1.170 bit 1: BASE-R FEC error indication ability.
///
/// Spec: IEEE 802.3 Clause 45, register 1.170.
pub const ABILITY_ERROR_INDICATION: u16 = 1 << 1;
/// The value of 1.170 for this model: both abilities.
///
/// Spec: IEEE 802.3 Clause 45, register 1.170.
pub const FEC_ABILITY: u16 = ABILITY_FEC | ABILITY_ERROR_INDICATION;

/// 1.171 bit 0: FEC enable.
///
/// U: no register-bit source found (one vendor register has FEC enable at bit 0); this bit
/// mirrors the ability bit.
///
/// Spec: IEEE 802.3 Clause 45, register 1.171.
pub const CONTROL_FEC_ENABLE: u16 = 1;
/// 1.171 bit 1: FEC enable error indication.
///
/// U: no register-bit source found; this bit mirrors the ability bit.
///
/// Spec: IEEE 802.3 Clause 45, register 1.171.
pub const CONTROL_ERROR_INDICATION_ENABLE: u16 = 1 << 1;

/// What reading a counter's low register does to the counter.
///
/// U: the semantics of 1.172 to 1.175 were not found. The default clears on read, as the
/// Clause 45 error counters of the PCS do (and as this project models 3.33).
///
/// Spec: IEEE 802.3 Clause 45, registers 1.172 to 1.175.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CounterRead {
    /// Reading the low register clears the counter (U: default).
    #[default]
    ClearOnRead,
    /// Reading changes nothing (the high register still returns the copy taken with the low).
    Keep,
}

/// The corrected and uncorrected FEC blocks counters (32 bits each, saturating: U).
///
/// Spec: IEEE 802.3 Clause 45, registers 1.172 to 1.175.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FecCounters {
    read: CounterRead,
    corrected: u32,
    uncorrected: u32,
    corrected_high: u16,
    uncorrected_high: u16,
}

impl FecCounters {
    /// Counters at zero.
    ///
    /// Spec: IEEE 802.3 Clause 45, registers 1.172 to 1.175.
    #[must_use]
    pub const fn new(read: CounterRead) -> Self {
        Self {
            read,
            corrected: 0,
            uncorrected: 0,
            corrected_high: 0,
            uncorrected_high: 0,
        }
    }

    /// Counts one decoded FEC block: a correction in 1.172/1.173, an uncorrectable block in
    /// 1.174/1.175, saturating at `u32::MAX` (U).
    ///
    /// Spec: IEEE 802.3 Clause 45, registers 1.172 to 1.175.
    pub fn count(&mut self, outcome: DecodeOutcome) {
        match outcome {
            DecodeOutcome::Corrected(_) => self.corrected = self.corrected.saturating_add(1),
            DecodeOutcome::Uncorrectable => {
                self.uncorrected = self.uncorrected.saturating_add(1);
            }
            DecodeOutcome::Clean | DecodeOutcome::BadParity => {}
        }
    }

    /// FEC blocks corrected (the whole counter, without the effects of a register read).
    ///
    /// Spec: IEEE 802.3 Clause 45, registers 1.172, 1.173.
    #[must_use]
    pub const fn corrected_blocks(&self) -> u32 {
        self.corrected
    }

    /// FEC blocks found uncorrectable (the whole counter, without the effects of a read).
    ///
    /// Spec: IEEE 802.3 Clause 45, registers 1.174, 1.175.
    #[must_use]
    pub const fn uncorrected_blocks(&self) -> u32 {
        self.uncorrected
    }

    /// Reads MDIO register `1.reg` (170 to 175); `None` for any other register. 1.171 reads
    /// as both enables set (the model runs when it is used).
    ///
    /// Spec: IEEE 802.3 Clause 45, registers 1.170 to 1.175.
    pub fn read_register(&mut self, reg: u16) -> Option<u16> {
        let clear = self.read == CounterRead::ClearOnRead;
        Some(match reg {
            REG_FEC_ABILITY => FEC_ABILITY,
            REG_FEC_CONTROL => CONTROL_FEC_ENABLE | CONTROL_ERROR_INDICATION_ENABLE,
            REG_CORRECTED_BLOCKS_LOW => {
                read_counter_low(&mut self.corrected, &mut self.corrected_high, clear)
            }
            REG_CORRECTED_BLOCKS_HIGH => self.corrected_high,
            REG_UNCORRECTED_BLOCKS_LOW => {
                read_counter_low(&mut self.uncorrected, &mut self.uncorrected_high, clear)
            }
            REG_UNCORRECTED_BLOCKS_HIGH => self.uncorrected_high,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base_r::decode::Burst;

    fn corrected() -> DecodeOutcome {
        DecodeOutcome::Corrected(Burst::try_new(0, 1).unwrap())
    }

    #[test]
    fn ability_register_1_170_has_fec_and_error_indication() {
        let mut c = FecCounters::default();
        assert_eq!(c.read_register(170), Some(0b11));
        assert_eq!((ABILITY_FEC, ABILITY_ERROR_INDICATION), (1, 2));
        assert_eq!(c.read_register(169), None);
        assert_eq!(c.read_register(176), None);
    }

    #[test]
    fn u_control_bits_are_0_enable_1_error_indication() {
        assert_eq!(
            (CONTROL_FEC_ENABLE, CONTROL_ERROR_INDICATION_ENABLE),
            (1, 2)
        );
    }

    #[test]
    fn counters_count_corrected_and_uncorrectable_only() {
        let mut c = FecCounters::default();
        for o in [
            DecodeOutcome::Clean,
            corrected(),
            DecodeOutcome::Uncorrectable,
            DecodeOutcome::BadParity,
            corrected(),
        ] {
            c.count(o);
        }
        assert_eq!((c.corrected_blocks(), c.uncorrected_blocks()), (2, 1));
    }

    #[test]
    fn u_counters_saturate_at_u32_max() {
        let mut c = FecCounters {
            corrected: u32::MAX - 1,
            uncorrected: u32::MAX,
            ..FecCounters::default()
        };
        c.count(corrected());
        c.count(corrected());
        c.count(DecodeOutcome::Uncorrectable);
        assert_eq!(
            (c.corrected_blocks(), c.uncorrected_blocks()),
            (u32::MAX, u32::MAX)
        );
    }

    #[test]
    fn u_reading_the_low_register_latches_the_high_half_and_clears() {
        let mut c = FecCounters {
            corrected: 0x0003_0004,
            uncorrected: 0x0005_0006,
            ..FecCounters::default()
        };
        assert_eq!(c.read_register(172), Some(4));
        c.count(corrected()); // after the read: not in the latched high half
        assert_eq!(c.read_register(173), Some(3));
        assert_eq!(c.corrected_blocks(), 1, "cleared by the read");
        assert_eq!(c.read_register(174), Some(6));
        assert_eq!(c.read_register(175), Some(5));
        assert_eq!(c.uncorrected_blocks(), 0);
        assert_eq!(CounterRead::default(), CounterRead::ClearOnRead);
    }

    #[test]
    fn keep_mode_leaves_the_counter() {
        let mut c = FecCounters {
            corrected: 0x0001_0002,
            ..FecCounters::new(CounterRead::Keep)
        };
        assert_eq!(c.read_register(172), Some(2));
        assert_eq!(c.read_register(173), Some(1));
        assert_eq!(c.corrected_blocks(), 0x0001_0002);
    }
}
