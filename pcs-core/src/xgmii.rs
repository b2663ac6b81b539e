//! XGMII, the PCS service interface: one 64-bit transfer = eight lanes of one octet each plus
//! an 8-bit control mask (two 32-bit XGMII columns per transfer).
//!
//! Lane `i` is `data` bits `8i+7..8i` and is a control character iff `ctrl` bit `i` is set;
//! lane 0 is the first on the wire. These are the `xgmii_txd[63:0]` / `xgmii_txc[7:0]` port
//! values of common 64-bit XGMII RTL.
//!
//! Spec: IEEE 802.3 §46.2, Table 46-3; §49.2.4.4, Table 49-1.

/// An XGMII control character (an octet sent with its control bit set). Any octet can be held:
/// unknown ones are what broken RTL sends and what a receiver must report.
///
/// Spec: IEEE 802.3 §46.2.2, Table 46-3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ControlChar(pub u8);

impl ControlChar {
    /// Idle `/I/`.
    pub const IDLE: Self = Self(0x07);
    /// Low power idle `/LI/` (EEE).
    pub const LPI: Self = Self(0x06);
    /// Start `/S/`, lane 0 of a 32-bit column only.
    pub const START: Self = Self(0xfb);
    /// Terminate `/T/`.
    pub const TERMINATE: Self = Self(0xfd);
    /// Error `/E/`.
    pub const ERROR: Self = Self(0xfe);
    /// Sequence ordered set `/Q/` (link fault signalling, §46.3.4).
    pub const SEQUENCE: Self = Self(0x9c);
    /// Signal ordered set `/Fsig/`.
    pub const SIGNAL: Self = Self(0x5c);
    /// The six reserved control characters of Table 49-1, in the table's order.
    pub const RESERVED: [Self; 6] = [
        Self(0x1c),
        Self(0x3c),
        Self(0x7c),
        Self(0xbc),
        Self(0xdc),
        Self(0xf7),
    ];

    /// True for `/Q/` and `/Fsig/`, the characters that start an ordered set.
    #[must_use]
    pub const fn is_ordered_set(self) -> bool {
        matches!(self.0, 0x9c | 0x5c)
    }

    /// True for every character listed in Table 46-3 (the seven named ones and the six
    /// reserved ones).
    #[must_use]
    pub const fn is_known(self) -> bool {
        matches!(
            self.0,
            0x07 | 0x06
                | 0xfb
                | 0xfd
                | 0xfe
                | 0x9c
                | 0x5c
                | 0x1c
                | 0x3c
                | 0x7c
                | 0xbc
                | 0xdc
                | 0xf7
        )
    }
}

/// One lane of an XGMII transfer, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Lane {
    /// A data octet (control bit clear).
    Data(u8),
    /// A control character (control bit set).
    Control(ControlChar),
}

/// One 64-bit XGMII transfer (`tx_raw` / `rx_raw` of Clause 49): eight lanes plus the control
/// mask. Every pair of values can arrive from a DUT, so both fields are public.
///
/// Spec: IEEE 802.3 §46.2, §49.2.13.2.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct XgmiiWord {
    /// Lane `i` in bits `8i+7..8i`.
    pub data: u64,
    /// Bit `i` set: lane `i` is a control character.
    pub ctrl: u8,
}

impl XgmiiWord {
    /// Eight idles.
    pub const IDLE: Self = Self::splat(ControlChar::IDLE);
    /// Eight `/E/`: what the receive state machine emits in `RX_E` (`EBLOCK_R`, §49.2.13.2.3).
    pub const ERROR: Self = Self::splat(ControlChar::ERROR);
    /// Local Fault sequence ordered sets in lanes 0 and 4 (`LBLOCK_R`, §49.2.13.2.3, §46.3.4).
    pub const LOCAL_FAULT: Self = Self {
        data: 0x0100_009c_0100_009c,
        ctrl: 0x11,
    };
    /// Remote Fault sequence ordered sets in lanes 0 and 4 (§46.3.4).
    pub const REMOTE_FAULT: Self = Self {
        data: 0x0200_009c_0200_009c,
        ctrl: 0x11,
    };

    /// A transfer from its two port values.
    #[must_use]
    pub const fn new(data: u64, ctrl: u8) -> Self {
        Self { data, ctrl }
    }

    /// Eight data octets.
    #[must_use]
    pub const fn from_data(data: u64) -> Self {
        Self { data, ctrl: 0 }
    }

    /// The same control character in all eight lanes.
    #[must_use]
    pub const fn splat(c: ControlChar) -> Self {
        Self {
            data: u64::from_ne_bytes([c.0; 8]),
            ctrl: 0xff,
        }
    }

    /// A transfer from eight lanes, lane 0 first.
    #[must_use]
    pub fn from_lanes(lanes: [Lane; 8]) -> Self {
        let mut word = Self::default();
        for (i, lane) in lanes.into_iter().enumerate() {
            word = word.with_lane(i, lane);
        }
        word
    }

    /// The octet in lane `i` (taken modulo 8), whatever its control bit says.
    #[must_use]
    pub const fn octet(self, i: usize) -> u8 {
        (self.data >> (8 * (i & 7))) as u8
    }

    /// True if lane `i` (modulo 8) carries a control character.
    #[must_use]
    pub const fn is_control(self, i: usize) -> bool {
        self.ctrl & (1 << (i & 7)) != 0
    }

    /// Lane `i` (modulo 8).
    #[must_use]
    pub const fn lane(self, i: usize) -> Lane {
        if self.is_control(i) {
            Lane::Control(ControlChar(self.octet(i)))
        } else {
            Lane::Data(self.octet(i))
        }
    }

    /// All eight lanes, lane 0 first.
    #[must_use]
    pub const fn lanes(self) -> [Lane; 8] {
        [
            self.lane(0),
            self.lane(1),
            self.lane(2),
            self.lane(3),
            self.lane(4),
            self.lane(5),
            self.lane(6),
            self.lane(7),
        ]
    }

    /// This transfer with lane `i` (modulo 8) replaced.
    #[must_use]
    pub const fn with_lane(self, i: usize, lane: Lane) -> Self {
        let shift = 8 * (i & 7);
        let bit = 1u8 << (i & 7);
        let (octet, ctrl) = match lane {
            Lane::Data(d) => (d, self.ctrl & !bit),
            Lane::Control(c) => (c.0, self.ctrl | bit),
        };
        Self {
            data: (self.data & !(0xff << shift)) | ((octet as u64) << shift),
            ctrl,
        }
    }
}

impl core::fmt::Display for XgmiiWord {
    /// The `.xgmii` trace line form: `CC DDDDDDDDDDDDDDDD`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:02x} {:016x}", self.ctrl, self.data)
    }
}

/// The first `min(8, bytes.len())` octets as a little-endian word (the first octet in bits
/// 7..0), zero above them: at most two loads, whatever the length (a copy of a variable
/// length would be a call to `memcpy`, once or twice per frame): the octets of a partial
/// transfer, for the MAC writing transfers and for the PCS encoding a packet from its octets.
#[inline]
#[must_use]
pub fn load_le(bytes: &[u8]) -> u64 {
    if let Some(w) = bytes.first_chunk::<8>() {
        return u64::from_le_bytes(*w);
    }
    let n = bytes.len();
    if let (Some(lo), Some(hi)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        // 4..=7 octets: two loads that overlap in the middle, where they agree.
        return u64::from(u32::from_le_bytes(*lo))
            | u64::from(u32::from_le_bytes(*hi)) << (8 * (n - 4));
    }
    if let (Some(lo), Some(hi)) = (bytes.first_chunk::<2>(), bytes.last_chunk::<2>()) {
        // 2 or 3 octets: the same with two 16-bit loads.
        return u64::from(u16::from_le_bytes(*lo))
            | u64::from(u16::from_le_bytes(*hi)) << (8 * (n - 2));
    }
    bytes.first().map_or(0, |&b| u64::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lane_zero_is_the_least_significant_octet() {
        let w = XgmiiWord::new(0x0706_0504_0302_01fb, 0x01);
        assert_eq!(w.lane(0), Lane::Control(ControlChar::START));
        assert_eq!(w.lane(1), Lane::Data(0x01));
        assert_eq!(w.lane(7), Lane::Data(0x07));
    }

    #[test]
    fn local_fault_is_sequence_00_00_01_in_lanes_0_and_4() {
        let lf = XgmiiWord::LOCAL_FAULT.lanes();
        for base in [0, 4] {
            assert_eq!(lf[base], Lane::Control(ControlChar::SEQUENCE));
            assert_eq!(lf[base + 1], Lane::Data(0));
            assert_eq!(lf[base + 2], Lane::Data(0));
            assert_eq!(lf[base + 3], Lane::Data(1));
        }
    }

    #[test]
    fn from_lanes_inverts_lanes() {
        let w = XgmiiWord::new(0x1234_5678_9abc_def0, 0xa5);
        assert_eq!(XgmiiWord::from_lanes(w.lanes()), w);
    }

    #[test]
    fn display_is_the_trace_line_format() {
        let mut s = std::string::String::new();
        core::fmt::write(&mut s, format_args!("{}", XgmiiWord::IDLE)).unwrap();
        assert_eq!(s, "ff 0707070707070707");
    }

    #[test]
    fn table_46_3_has_thirteen_known_characters() {
        assert_eq!(
            (0..=255u8).filter(|&c| ControlChar(c).is_known()).count(),
            13
        );
    }

    proptest! {
        #[test]
        fn load_le_is_the_first_octets_in_order_and_zero_above(bytes in proptest::collection::vec(any::<u8>(), 0..12)) {
            let mut want = 0u64;
            for (i, &b) in bytes.iter().take(8).enumerate() {
                want |= u64::from(b) << (8 * i);
            }
            prop_assert_eq!(load_le(&bytes), want);
        }
    }
}
