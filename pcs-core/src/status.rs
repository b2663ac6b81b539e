//! PCS status and counters as the Clause 45 MDIO registers show them.
//!
//! ```text
//!  3.32  bit 12 receive link status (PCS_status)   bit 1 high BER   bit 0 block lock
//!  3.33  bit 15 latched block lock (latching low)  bit 14 latched high BER (latching high)
//!        bits 13:8 BER counter bits 5:0            bits 7:0 errored blocks counter bits 7:0
//!  3.44  bits 15:0 BER counter bits 21:6
//!  3.45  bit 15 high order counters present        bits 13:0 errored blocks counter bits 21:8
//! ```
//!
//! [`PcsStatus`] is fed once per received block with what the receive path did
//! ([`PcsBlockEvents`]). The BER counter counts entries to `BER_BAD_SH`, the errored-blocks
//! counter entries to `RX_E`; both saturate and clear when read. Reads take `&mut self`
//! because reading clears counters and re-arms latched bits.
//!
//! How the halves latch together (SPEC-NOTES: unverified) is this model's reading: reading
//! 3.33 hands out the low bits, copies the high bits of both counters into the 3.44 / 3.45
//! holding registers and clears the counters; reading 3.44 or 3.45 hands out the copy and
//! clears it. Read 3.33 first, then 3.44 and 3.45, to get whole 22-bit values.
//!
//! Spec: IEEE 802.3 §49.2.14.1 (`PCS_status`), Clause 45 registers 3.32, 3.33, 3.44, 3.45.

/// MDIO register 3.32, BASE-R PCS status 1.
///
/// Spec: IEEE 802.3 Clause 45, register 3.32.
pub const REG_STATUS_1: u16 = 32;
/// MDIO register 3.33, BASE-R PCS status 2.
///
/// Spec: IEEE 802.3 Clause 45, register 3.33.
pub const REG_STATUS_2: u16 = 33;
/// MDIO register 3.44, BER high order counter.
///
/// Spec: IEEE 802.3 Clause 45, register 3.44.
pub const REG_BER_HIGH_ORDER: u16 = 44;
/// MDIO register 3.45, errored blocks high order counter.
///
/// Spec: IEEE 802.3 Clause 45, register 3.45.
pub const REG_ERRORED_BLOCKS_HIGH_ORDER: u16 = 45;

/// 3.32 bit 0: block lock.
///
/// Spec: IEEE 802.3 Clause 45, register 3.32.
pub const STATUS_1_BLOCK_LOCK: u16 = 1;
/// 3.32 bit 1: high BER.
///
/// Spec: IEEE 802.3 Clause 45, register 3.32.
pub const STATUS_1_HIGH_BER: u16 = 1 << 1;
/// 3.32 bit 12: receive link status (`PCS_status`).
///
/// Spec: IEEE 802.3 Clause 45, register 3.32; §49.2.14.1.
pub const STATUS_1_RECEIVE_LINK: u16 = 1 << 12;
/// 3.33 bit 15: latched block lock (latching low).
///
/// Spec: IEEE 802.3 Clause 45, register 3.33.
pub const STATUS_2_LATCHED_BLOCK_LOCK: u16 = 1 << 15;
/// 3.33 bit 14: latched high BER (latching high).
///
/// Spec: IEEE 802.3 Clause 45, register 3.33.
pub const STATUS_2_LATCHED_HIGH_BER: u16 = 1 << 14;
/// 3.45 bit 15: high order counters present.
///
/// Spec: IEEE 802.3 Clause 45, register 3.45.
pub const HIGH_ORDER_PRESENT: u16 = 1 << 15;

/// Width of the counters with the high order registers.
const WIDE_BITS: u32 = 22;
/// BER counter bits in 3.33.
const BER_LOW_BITS: u32 = 6;
/// Errored blocks counter bits in 3.33.
const ERRORED_LOW_BITS: u32 = 8;

/// Mask of the low `bits` bits of a `u32`.
const fn mask(bits: u32) -> u32 {
    (1 << bits) - 1
}

/// Whether the 22-bit counters with the high order registers 3.44 / 3.45 are implemented.
///
/// Spec: IEEE 802.3 Clause 45, register 3.45 bit 15.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HighOrderCounters {
    /// Only 3.33: a 6-bit BER counter and an 8-bit errored blocks counter; 3.44 and 3.45 read
    /// zero.
    Absent,
    /// 22-bit counters split over 3.33 and 3.44 / 3.45; 3.45 bit 15 reads one.
    #[default]
    Present,
}

/// What the receive path did for one block.
///
/// Spec: IEEE 802.3 §49.2.13 (variables `block_lock`, `hi_ber`), Fig. 49-15, Fig. 49-17.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PcsBlockEvents {
    /// `block_lock` after this block.
    pub block_lock: bool,
    /// `hi_ber` after this block.
    pub hi_ber: bool,
    /// The BER monitor entered `BER_BAD_SH`.
    pub ber_bad_sh: bool,
    /// The receive state machine entered `RX_E`.
    pub errored_block: bool,
}

/// The PCS status bits and counters behind MDIO registers 3.32, 3.33, 3.44 and 3.45.
///
/// Spec: IEEE 802.3 §49.2.14.1, Clause 45 registers 3.32, 3.33, 3.44, 3.45.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PcsStatus {
    high_order: HighOrderCounters,
    block_lock: bool,
    hi_ber: bool,
    /// 3.33.15: false once `block_lock` was false since the last read.
    latched_block_lock: bool,
    /// 3.33.14: true once `hi_ber` was true since the last read.
    latched_hi_ber: bool,
    ber_count: u32,
    errored_count: u32,
    /// 3.44 holding register (BER counter bits 21:6 at the last 3.33 read).
    ber_high: u16,
    /// 3.45 holding register bits 13:0 (errored blocks counter bits 21:8).
    errored_high: u16,
}

impl Default for PcsStatus {
    fn default() -> Self {
        Self::new(HighOrderCounters::Present)
    }
}

impl PcsStatus {
    /// Status after reset: no lock, counters zero, latched bits at their reset values.
    ///
    /// Spec: Clause 45 registers 3.32, 3.33, 3.44, 3.45.
    #[must_use]
    pub const fn new(high_order: HighOrderCounters) -> Self {
        Self {
            high_order,
            block_lock: false,
            hi_ber: false,
            latched_block_lock: false,
            latched_hi_ber: false,
            ber_count: 0,
            errored_count: 0,
            ber_high: 0,
            errored_high: 0,
        }
    }

    /// Saturation values of the BER and errored blocks counters.
    const fn limits(&self) -> (u32, u32) {
        match self.high_order {
            HighOrderCounters::Absent => (mask(BER_LOW_BITS), mask(ERRORED_LOW_BITS)),
            HighOrderCounters::Present => (mask(WIDE_BITS), mask(WIDE_BITS)),
        }
    }

    /// Takes the events of one received block.
    ///
    /// Spec: IEEE 802.3 Clause 45 register 3.33.
    pub fn update(&mut self, events: PcsBlockEvents) {
        self.block_lock = events.block_lock;
        self.hi_ber = events.hi_ber;
        self.latched_block_lock &= events.block_lock;
        self.latched_hi_ber |= events.hi_ber;
        if events.ber_bad_sh || events.errored_block {
            let (ber_max, errored_max) = self.limits();
            if events.ber_bad_sh {
                self.ber_count = self.ber_count.saturating_add(1).min(ber_max);
            }
            if events.errored_block {
                self.errored_count = self.errored_count.saturating_add(1).min(errored_max);
            }
        }
    }

    /// `PCS_status`: block lock and not high BER.
    ///
    /// Spec: IEEE 802.3 §49.2.14.1.
    #[must_use]
    pub const fn pcs_status(&self) -> bool {
        self.block_lock && !self.hi_ber
    }

    /// The BER counter, without reading (clearing) it.
    ///
    /// Spec: IEEE 802.3 Clause 45 registers 3.33, 3.44.
    #[must_use]
    pub const fn ber_count(&self) -> u32 {
        self.ber_count
    }

    /// The errored blocks counter, without reading (clearing) it.
    ///
    /// Spec: IEEE 802.3 Clause 45 registers 3.33, 3.45.
    #[must_use]
    pub const fn errored_count(&self) -> u32 {
        self.errored_count
    }

    /// Register 3.32 (no side effects).
    ///
    /// Spec: IEEE 802.3 Clause 45 register 3.32; §49.2.14.1.
    #[must_use]
    pub const fn status_1(&self) -> u16 {
        let mut value = 0;
        if self.block_lock {
            value |= STATUS_1_BLOCK_LOCK;
        }
        if self.hi_ber {
            value |= STATUS_1_HIGH_BER;
        }
        if self.pcs_status() {
            value |= STATUS_1_RECEIVE_LINK;
        }
        value
    }

    /// Reads register 3.33: returns the latched bits and the low counter bits, then re-arms
    /// the latched bits to the current values, copies the high counter bits into 3.44 / 3.45
    /// and clears both counters.
    ///
    /// Spec: IEEE 802.3 Clause 45 register 3.33.
    // reading: the high-order copy on a 3.33 read is this model's choice (SPEC-NOTES U).
    pub fn read_status_2(&mut self) -> u16 {
        let mut value = 0;
        if self.latched_block_lock {
            value |= STATUS_2_LATCHED_BLOCK_LOCK;
        }
        if self.latched_hi_ber {
            value |= STATUS_2_LATCHED_HIGH_BER;
        }
        value |= low_u16(self.ber_count & mask(BER_LOW_BITS)) << 8;
        value |= low_u16(self.errored_count & mask(ERRORED_LOW_BITS));
        if self.high_order == HighOrderCounters::Present {
            self.ber_high = low_u16(self.ber_count >> BER_LOW_BITS);
            self.errored_high = low_u16(self.errored_count >> ERRORED_LOW_BITS);
        }
        self.ber_count = 0;
        self.errored_count = 0;
        self.latched_block_lock = self.block_lock;
        self.latched_hi_ber = self.hi_ber;
        value
    }

    /// Reads register 3.44: BER counter bits 21:6 as copied by the last 3.33 read; clears
    /// the copy.
    ///
    /// Spec: IEEE 802.3 Clause 45 register 3.44.
    // reading: the copy is cleared on read, so a second read gives zero.
    pub fn read_ber_high_order(&mut self) -> u16 {
        core::mem::take(&mut self.ber_high)
    }

    /// Reads register 3.45: bit 15 high order present, bits 13:0 errored blocks counter bits
    /// 21:8 as copied by the last 3.33 read; clears the copy.
    ///
    /// Spec: IEEE 802.3 Clause 45 register 3.45.
    // reading: as for 3.44.
    pub fn read_errored_blocks_high_order(&mut self) -> u16 {
        let high = core::mem::take(&mut self.errored_high);
        match self.high_order {
            HighOrderCounters::Absent => 0,
            HighOrderCounters::Present => HIGH_ORDER_PRESENT | high,
        }
    }

    /// Reads MMD 3 register `register` (32, 33, 44 or 45); `None` for any other.
    ///
    /// Spec: IEEE 802.3 Clause 45 registers 3.32, 3.33, 3.44, 3.45.
    pub fn read(&mut self, register: u16) -> Option<u16> {
        match register {
            REG_STATUS_1 => Some(self.status_1()),
            REG_STATUS_2 => Some(self.read_status_2()),
            REG_BER_HIGH_ORDER => Some(self.read_ber_high_order()),
            REG_ERRORED_BLOCKS_HIGH_ORDER => Some(self.read_errored_blocks_high_order()),
            _ => None,
        }
    }
}

/// The low 16 bits of `value`.
const fn low_u16(value: u32) -> u16 {
    (value & 0xffff) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(block_lock: bool, hi_ber: bool, ber_bad_sh: bool, errored_block: bool) -> PcsBlockEvents {
        PcsBlockEvents {
            block_lock,
            hi_ber,
            ber_bad_sh,
            errored_block,
        }
    }

    fn feed(s: &mut PcsStatus, e: PcsBlockEvents, n: usize) {
        for _ in 0..n {
            s.update(e);
        }
    }

    #[test]
    fn pcs_status_is_block_lock_and_not_hi_ber() {
        let mut s = PcsStatus::default();
        for (lock, hi, want) in [
            (false, false, false),
            (false, true, false),
            (true, true, false),
            (true, false, true),
        ] {
            s.update(ev(lock, hi, false, false));
            assert_eq!(s.pcs_status(), want, "lock {lock} hi_ber {hi}");
        }
    }

    #[test]
    fn status_1_bit_0_block_lock_bit_1_high_ber_bit_12_receive_link() {
        let mut s = PcsStatus::default();
        assert_eq!(s.status_1(), 0);
        s.update(ev(true, false, false, false));
        assert_eq!(s.status_1(), 0x1001);
        s.update(ev(true, true, false, false));
        assert_eq!(s.status_1(), 0x0003);
        s.update(ev(false, true, false, false));
        assert_eq!(s.status_1(), 0x0002);
        assert_eq!(s.read(32), Some(0x0002));
    }

    #[test]
    fn status_2_bit_15_latches_low_block_lock_and_rearms_on_read() {
        let mut s = PcsStatus::default();
        feed(&mut s, ev(true, false, false, false), 3);
        // Block lock was false at reset: the first read shows the latched low.
        assert_eq!(s.read_status_2() & STATUS_2_LATCHED_BLOCK_LOCK, 0);
        assert_ne!(s.read_status_2() & STATUS_2_LATCHED_BLOCK_LOCK, 0);
        // A glitch low between reads is kept until read.
        s.update(ev(false, false, false, false));
        s.update(ev(true, false, false, false));
        assert_eq!(s.read_status_2() & STATUS_2_LATCHED_BLOCK_LOCK, 0);
        assert_ne!(s.read_status_2() & STATUS_2_LATCHED_BLOCK_LOCK, 0);
    }

    #[test]
    fn status_2_bit_14_latches_high_ber_and_rearms_on_read() {
        let mut s = PcsStatus::default();
        assert_eq!(s.read_status_2() & STATUS_2_LATCHED_HIGH_BER, 0);
        s.update(ev(true, true, false, false));
        s.update(ev(true, false, false, false));
        assert_ne!(s.read_status_2() & STATUS_2_LATCHED_HIGH_BER, 0);
        assert_eq!(s.read_status_2() & STATUS_2_LATCHED_HIGH_BER, 0);
        // Still high at the read: re-armed to one.
        s.update(ev(true, true, false, false));
        assert_ne!(s.read_status_2() & STATUS_2_LATCHED_HIGH_BER, 0);
        assert_ne!(s.read_status_2() & STATUS_2_LATCHED_HIGH_BER, 0);
    }

    #[test]
    fn status_2_bits_13_8_count_ber_bad_sh_and_clear_on_read() {
        let mut s = PcsStatus::default();
        feed(&mut s, ev(true, false, true, false), 5);
        assert_eq!(s.read_status_2() & 0x3fff, 5 << 8);
        assert_eq!(s.read_status_2() & 0x3fff, 0);
    }

    #[test]
    fn status_2_bits_7_0_count_errored_blocks_and_clear_on_read() {
        let mut s = PcsStatus::default();
        feed(&mut s, ev(true, false, false, true), 7);
        assert_eq!(s.read_status_2() & 0x3fff, 7);
        assert_eq!(s.read_status_2() & 0x3fff, 0);
    }

    #[test]
    fn register_bits_are_clause_45s() {
        // 3.32.0, 3.32.1, 3.32.12; 3.33.15, 3.33.14; 3.45.15, as numbered in Clause 45.
        assert_eq!(
            [
                STATUS_1_BLOCK_LOCK,
                STATUS_1_HIGH_BER,
                STATUS_1_RECEIVE_LINK,
                STATUS_2_LATCHED_BLOCK_LOCK,
                STATUS_2_LATCHED_HIGH_BER,
                HIGH_ORDER_PRESENT,
            ],
            [0x0001, 0x0002, 0x1000, 0x8000, 0x4000, 0x8000]
        );
        let mut s = PcsStatus::default();
        assert_eq!(
            s.read(45),
            Some(0x8000),
            "3.45.15: high order counters present"
        );
    }

    #[test]
    fn counters_saturate_at_6_and_8_bits_without_high_order() {
        let mut s = PcsStatus::new(HighOrderCounters::Absent);
        feed(&mut s, ev(true, false, true, true), 1000);
        assert_eq!(s.read_status_2() & 0x3fff, 63 << 8 | 255);
        assert_eq!(s.read_ber_high_order(), 0);
        assert_eq!(s.read_errored_blocks_high_order(), 0, "3.45.15 clear");
    }

    #[test]
    fn high_order_halves_are_copied_by_the_3_33_read() {
        // reading: 3.33 copies the high bits, 3.44/3.45 hand the copy out and clear it.
        let mut s = PcsStatus::default();
        feed(&mut s, ev(true, false, true, false), 100);
        feed(&mut s, ev(true, false, false, true), 300);
        // Before a 3.33 read the holding registers are empty.
        assert_eq!(s.read(44), Some(0));
        assert_eq!(s.read(45), Some(HIGH_ORDER_PRESENT));
        let low = s.read(33).unwrap();
        assert_eq!(low & 0x3fff, (100 & 63) << 8 | (300 & 255));
        // Counting goes on after the 3.33 read without changing the copy.
        feed(&mut s, ev(true, false, true, true), 1000);
        assert_eq!(s.read(44), Some(100 >> 6));
        assert_eq!(s.read(45), Some(HIGH_ORDER_PRESENT | 300 >> 8));
        assert_eq!(s.read(44), Some(0));
        assert_eq!(s.read(45), Some(HIGH_ORDER_PRESENT));
        assert_eq!((s.ber_count(), s.errored_count()), (1000, 1000));
    }

    #[test]
    fn counters_saturate_at_22_bits_with_high_order() {
        let mut s = PcsStatus::default();
        feed(&mut s, ev(true, false, true, true), (1 << 22) + 5);
        assert_eq!(
            (s.ber_count(), s.errored_count()),
            ((1 << 22) - 1, (1 << 22) - 1)
        );
        assert_eq!(s.read_status_2() & 0x3fff, 0x3f << 8 | 0xff);
        assert_eq!(s.read_ber_high_order(), 0xffff);
        assert_eq!(
            s.read_errored_blocks_high_order(),
            HIGH_ORDER_PRESENT | 0x3fff
        );
        assert_eq!((s.ber_count(), s.errored_count()), (0, 0));
    }

    #[test]
    fn other_registers_read_none() {
        let mut s = PcsStatus::default();
        assert_eq!(s.read(0), None);
        assert_eq!(s.read(34), None);
    }
}
