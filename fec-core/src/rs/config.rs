//! The RS-FEC options: the standard's control bits (1.200) and every U reading of the model,
//! each a field with its default and the source of the default.
//!
//! Spec: IEEE 802.3 §91.5.3.3, §108.5, Clause 45 register 1.200.

use super::marker::MARKER_PERIOD_CODEWORDS;

/// Which 25G RS-FEC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RsVariant {
    /// IEEE 802.3 Clause 108 (802.3by).
    #[default]
    Ieee,
    /// The 25G/50G Ethernet Consortium RS-FEC ("Schedule 3"): refused by
    /// [`RsFecConfig::validate`], its differences from Clause 108 are not sourced.
    Consortium,
}

/// Which 66-bit blocks of a codeword get an invalid sync header when the decoder indicates
/// an error (an uncorrectable codeword with indication on, or the hi_ser period).
///
/// U: the standard's choice was not read. Default [`ErrorMarking::AllBlocks`], the VIP's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ErrorMarking {
    /// Every block of the codeword (76 or 80) gets sync header `0b11` (VIP).
    #[default]
    AllBlocks,
    /// The first block of each transcoded block (19 or 20 per codeword) gets `0b11`: an
    /// alternative reading, kept so that a correction is a one-line change.
    FirstOfEachTranscoded,
}

/// A configuration the model refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ConfigError {
    /// Bypass correction and bypass indication both set: not allowed in IEEE mode.
    BypassBoth,
    /// The Consortium variant: not modelled.
    ConsortiumNotSourced,
    /// A marker period of zero codewords.
    ZeroMarkerPeriod,
    /// `lock_markers` or `unlock_bad_markers` zero.
    ZeroLockCount,
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::BypassBoth => {
                "bypass correction (1.200.0) and bypass indication (1.200.1) together are not \
                 allowed in IEEE mode (§91.5.3.3)"
            }
            Self::ConsortiumNotSourced => {
                "the 25G/50G Consortium RS-FEC differs from Clause 108 in ways not sourced; \
                 refused"
            }
            Self::ZeroMarkerPeriod => "marker period of zero codewords",
            Self::ZeroLockCount => "lock and unlock marker counts must be at least 1",
        })
    }
}

impl core::error::Error for ConfigError {}

/// Codewords per second at 25.78125 GBd: 25.78125e9 / 5280 = 4 882 812.5.
const CODEWORDS_PER_SECOND_X2: u64 = 9_765_625;

/// Codewords (at 25.78125 GBd, one every 204.8 ns) in `ms` milliseconds, rounded up.
#[must_use]
pub const fn codewords_in_ms(ms: u32) -> u32 {
    let x2 = CODEWORDS_PER_SECOND_X2 * ms as u64;
    (x2.div_ceil(2000)) as u32
}

/// How long hi_ser makes the decoder corrupt sync headers when indication is bypassed:
/// 60 ms at 25.78125 GBd, 292 969 codewords.
///
/// Spec: IEEE 802.3 §91.5.3.3 ("60 ms to 75 ms", V via AMD PG203 and Intel 683723). The
/// lower end is the default; 75 ms is 366 211 codewords.
pub const HI_SER_CORRUPT_CODEWORDS: u32 = codewords_in_ms(60);

/// Every option of the RS-FEC model. [`RsFecConfig::IEEE`] is the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RsFecConfig {
    /// IEEE or Consortium (refused).
    pub variant: RsVariant,
    /// 1.200.0 bypass correction: the decoder detects and counts but does not correct.
    /// U: a codeword with errors left in it then counts as uncorrected (1.204) and, with
    /// indication on, is marked; its located symbols count as symbol errors (1.210).
    ///
    /// Spec: Clause 45 register 1.200 bit 0; §91.5.3.3.
    pub bypass_correction: bool,
    /// 1.200.1 bypass error indication: uncorrectable codewords pass without marked sync
    /// headers; hi_ser then marks them for [`Self::hi_ser_corrupt_codewords`].
    ///
    /// Spec: Clause 45 register 1.200 bit 1; §91.5.3.3.
    pub bypass_indication: bool,
    /// Codewords per marker period. U: default [`MARKER_PERIOD_CODEWORDS`] (1024); the
    /// Synopsys VIP default is 16.
    pub marker_period_codewords: u32,
    /// Markers seen at the expected places in consecutive periods before lock (the first
    /// one found by the search counts). U: default 2, the shape of the Clause 82/91 lock
    /// diagrams (find a first marker, confirm the second); 1 locks on the first marker.
    pub lock_markers: u8,
    /// Consecutive bad markers (at the expected place) that lose lock. U: default 2 (the
    /// VIP tolerates one bad marker and relocks after two bad periods).
    pub unlock_bad_markers: u8,
    /// Bits of AM0..AM3 that may differ from the marker for it to count as found / good.
    /// U: default 0 (exact match of the 256 fixed bits).
    pub marker_mismatch_bits_max: u16,
    /// Which blocks an error indication invalidates. U: default all (VIP).
    pub error_marking: ErrorMarking,
    /// Codewords during which hi_ser corrupts sync headers when indication is bypassed.
    /// Default [`HI_SER_CORRUPT_CODEWORDS`] (60 ms at 25G).
    pub hi_ser_corrupt_codewords: u32,
    /// Symbol errors an uncorrectable codeword adds to the symbol error counter (1.210) and
    /// the hi_ser count. U: default 8 = t + 1, the fewest an uncorrectable codeword holds.
    pub uncorrectable_symbol_errors: u16,
    /// The receive untranscoder's initial descrambler history (DESIGN.md state convention):
    /// only a first control block at the very start of the decoded stream uses it. Default
    /// all ones, the PCS scrambler's default seed (exact in loopback from the first block).
    pub initial_descrambler_state: u64,
}

impl Default for RsFecConfig {
    fn default() -> Self {
        Self::IEEE
    }
}

impl RsFecConfig {
    /// The IEEE defaults: correction and indication on, 1024-codeword period, lock on 2
    /// markers, unlock on 2 bad markers, exact marker match, all blocks marked.
    pub const IEEE: Self = Self {
        variant: RsVariant::Ieee,
        bypass_correction: false,
        bypass_indication: false,
        marker_period_codewords: MARKER_PERIOD_CODEWORDS,
        lock_markers: 2,
        unlock_bad_markers: 2,
        marker_mismatch_bits_max: 0,
        error_marking: ErrorMarking::AllBlocks,
        hi_ser_corrupt_codewords: HI_SER_CORRUPT_CODEWORDS,
        uncorrectable_symbol_errors: 8,
        initial_descrambler_state: pcs_core::SCRAMBLER_DEFAULT_STATE,
    };

    /// The IEEE defaults with the Synopsys VIP's 16-codeword marker period.
    pub const VIP: Self = Self {
        marker_period_codewords: super::marker::VIP_MARKER_PERIOD_CODEWORDS,
        ..Self::IEEE
    };

    /// 66-bit blocks the PCS stream gives per marker period: 80 per codeword, 4 fewer for the
    /// marker (81 916 with the 1024-codeword period). The engine paces its PCS source by it.
    #[must_use]
    pub const fn blocks_per_period(&self) -> u64 {
        (80 * self.marker_period_codewords as u64).saturating_sub(4)
    }

    /// The MDIO 1.200 value: bit 0 bypass correction, bit 1 bypass indication.
    ///
    /// Spec: Clause 45 register 1.200.
    #[must_use]
    pub const fn control_register(&self) -> u16 {
        (self.bypass_correction as u16) | (self.bypass_indication as u16) << 1
    }

    /// Checks the options.
    ///
    /// # Errors
    ///
    /// [`ConfigError::BypassBoth`] when both bypasses are set (IEEE mode forbids it),
    /// [`ConfigError::ConsortiumNotSourced`] for the Consortium variant,
    /// [`ConfigError::ZeroMarkerPeriod`] and [`ConfigError::ZeroLockCount`] for zero counts.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if matches!(self.variant, RsVariant::Consortium) {
            return Err(ConfigError::ConsortiumNotSourced);
        }
        if self.bypass_correction && self.bypass_indication {
            return Err(ConfigError::BypassBoth);
        }
        if self.marker_period_codewords == 0 {
            return Err(ConfigError::ZeroMarkerPeriod);
        }
        if self.lock_markers == 0 || self.unlock_bad_markers == 0 {
            return Err(ConfigError::ZeroLockCount);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bypassing_correction_and_indication_together_is_refused() {
        let c = RsFecConfig {
            bypass_correction: true,
            bypass_indication: true,
            ..RsFecConfig::IEEE
        };
        assert_eq!(c.validate(), Err(ConfigError::BypassBoth));
        assert_eq!(c.control_register(), 0b11);
    }

    #[test]
    fn consortium_is_refused_by_name() {
        let c = RsFecConfig {
            variant: RsVariant::Consortium,
            ..RsFecConfig::IEEE
        };
        assert_eq!(c.validate(), Err(ConfigError::ConsortiumNotSourced));
        assert!(ConfigError::ConsortiumNotSourced
            .to_string()
            .contains("Consortium RS-FEC differs from Clause 108"));
    }

    #[test]
    fn u_defaults_are_the_documented_readings() {
        let c = RsFecConfig::default();
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.marker_period_codewords, 1024);
        assert_eq!(RsFecConfig::VIP.marker_period_codewords, 16);
        assert_eq!((c.lock_markers, c.unlock_bad_markers), (2, 2));
        assert_eq!(c.marker_mismatch_bits_max, 0);
        assert_eq!(c.error_marking, ErrorMarking::AllBlocks);
        assert_eq!(c.uncorrectable_symbol_errors, 8);
        assert_eq!(c.initial_descrambler_state, (1 << 58) - 1);
        assert_eq!(c.blocks_per_period(), 81_916);
    }

    #[test]
    fn sixty_to_seventy_five_ms_in_codewords_at_25g() {
        // One codeword = 5280 / 25.78125e9 s = 204.8 ns.
        assert_eq!(HI_SER_CORRUPT_CODEWORDS, 292_969);
        assert_eq!(codewords_in_ms(75), 366_211);
    }
}
