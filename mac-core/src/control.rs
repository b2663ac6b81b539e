//! MAC Control frames: PAUSE (Annex 31B) and priority-based flow control (Annex 31D).
//!
//! ```text
//! | DA 01-80-C2-00-00-01 | SA | 0x8808 | opcode (2) | parameters | reserved zeros | FCS |
//!   PAUSE: opcode 0x0001, pause_time (2)            -> 60 octets before the FCS
//!   PFC:   opcode 0x0101, class-enable vector (2: 0x00, e7..e0), time[0..8] (2 each)
//! ```
//!
//! All fields are big endian. Quanta are in units of 512 bit times.
//!
//! Spec: IEEE 802.3 §31.4, §31.5.1, Annex 31B.2, Annex 31D.2.

use crate::frame::{ether_type, MIN_FRAME_OCTETS_WITHOUT_FCS};

/// Type field of every MAC Control frame.
///
/// Spec: IEEE 802.3 §31.4.1.3.
pub const MAC_CONTROL_ETHER_TYPE: u16 = 0x8808;

/// The reserved multicast address PAUSE and PFC frames are sent to.
///
/// Spec: IEEE 802.3 Annex 31B.3.1, Annex 31D.3.
pub const MAC_CONTROL_MULTICAST: [u8; 6] = [0x01, 0x80, 0xc2, 0x00, 0x00, 0x01];

/// PAUSE opcode.
///
/// Spec: IEEE 802.3 Annex 31A, Annex 31B.
pub const OPCODE_PAUSE: u16 = 0x0001;

/// PFC opcode.
///
/// Spec: IEEE 802.3 Annex 31A, Annex 31D.
pub const OPCODE_PFC: u16 = 0x0101;

/// A decoded MAC Control frame.
///
/// Spec: IEEE 802.3 §31.4, Annex 31A.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MacControl {
    /// PAUSE with its `pause_time` in quanta.
    Pause {
        /// Pause time, units of 512 bit times.
        quanta: u16,
    },
    /// Priority-based flow control.
    Pfc {
        /// Bit i set: `time[i]` applies to priority class i.
        class_enable: u8,
        /// Pause time per priority class, in quanta.
        timers: [u16; 8],
    },
    /// A MAC Control frame with another opcode (counted as unsupported).
    Other {
        /// The opcode.
        opcode: u16,
    },
}

/// The transmit buffer is too small for the frame.
///
/// Spec: none (API).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BufferTooSmall {
    /// Octets or words the call needed.
    pub needed: usize,
}

impl core::fmt::Display for BufferTooSmall {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "buffer too small: {} needed", self.needed)
    }
}

impl core::error::Error for BufferTooSmall {}

impl MacControl {
    /// Recognises a MAC Control frame (DA through payload; a trailing FCS is ignored): type
    /// 0x8808 after SA and an opcode. The destination address is not checked (a PAUSE may be
    /// sent to the station's own address as well); see [`is_mac_control_multicast`].
    ///
    /// Spec: IEEE 802.3 §31.4.1, Annex 31B.3, Annex 31D.3.
    #[must_use]
    pub fn parse(frame: &[u8]) -> Option<Self> {
        if ether_type(frame) != Some(MAC_CONTROL_ETHER_TYPE) {
            return None;
        }
        let (_, params) = frame.split_first_chunk::<14>()?;
        let (op, params) = params.split_first_chunk::<2>()?;
        let be = |b: Option<(&[u8; 2], &[u8])>| b.map(|(v, _)| u16::from_be_bytes(*v));
        Some(match u16::from_be_bytes(*op) {
            OPCODE_PAUSE => Self::Pause {
                quanta: be(params.split_first_chunk::<2>())?,
            },
            OPCODE_PFC => {
                let (cev, times) = params.split_first_chunk::<2>()?;
                let (times, _) = times.split_first_chunk::<16>()?;
                let mut timers = [0u16; 8];
                for (t, chunk) in timers.iter_mut().zip(times.chunks_exact(2)) {
                    *t = be(chunk.split_first_chunk::<2>())?;
                }
                Self::Pfc {
                    class_enable: cev[1],
                    timers,
                }
            }
            opcode => Self::Other { opcode },
        })
    }

    /// The opcode.
    ///
    /// Spec: IEEE 802.3 Annex 31A.
    #[must_use]
    pub const fn opcode(&self) -> u16 {
        match *self {
            Self::Pause { .. } => OPCODE_PAUSE,
            Self::Pfc { .. } => OPCODE_PFC,
            Self::Other { opcode } => opcode,
        }
    }

    /// Writes the frame (DA 01-80-C2-00-00-01, `src`, type, opcode, parameters, zeros to 60
    /// octets; no FCS, the MAC appends it) into `out` and returns its length, 60.
    ///
    /// # Errors
    /// [`BufferTooSmall`] if `out` is shorter than 60 octets.
    ///
    /// Spec: IEEE 802.3 §31.4.1, Annex 31B.2, Annex 31D.2.
    pub fn write(&self, src: [u8; 6], out: &mut [u8]) -> Result<usize, BufferTooSmall> {
        const LEN: usize = MIN_FRAME_OCTETS_WITHOUT_FCS as usize;
        let (frame, _) = out
            .split_first_chunk_mut::<LEN>()
            .ok_or(BufferTooSmall { needed: LEN })?;
        let mut bytes = [0u8; LEN];
        let mut pos = 0;
        let mut put = |b: &[u8]| {
            for &x in b {
                if let Some(slot) = bytes.get_mut(pos) {
                    *slot = x;
                }
                pos += 1;
            }
        };
        put(&MAC_CONTROL_MULTICAST);
        put(&src);
        put(&MAC_CONTROL_ETHER_TYPE.to_be_bytes());
        put(&self.opcode().to_be_bytes());
        match *self {
            Self::Pause { quanta } => put(&quanta.to_be_bytes()),
            Self::Pfc {
                class_enable,
                timers,
            } => {
                put(&[0, class_enable]);
                for t in timers {
                    put(&t.to_be_bytes());
                }
            }
            Self::Other { .. } => {}
        }
        *frame = bytes;
        Ok(LEN)
    }
}

/// True if `frame` is addressed to 01-80-C2-00-00-01.
///
/// Spec: IEEE 802.3 Annex 31B.3.1.
#[must_use]
pub fn is_mac_control_multicast(frame: &[u8]) -> bool {
    frame.split_first_chunk::<6>().map(|(da, _)| *da) == Some(MAC_CONTROL_MULTICAST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_01_80_c2_00_00_01_is_the_mac_control_address() {
        let mut f = [0u8; 64];
        f[..6].copy_from_slice(&MAC_CONTROL_MULTICAST);
        assert!(is_mac_control_multicast(&f));
        assert!(is_mac_control_multicast(&f[..6]));
        assert!(!is_mac_control_multicast(&f[..5]));
        f[5] = 0x02; // 01-80-C2-00-00-02: slow protocols, not MAC Control
        assert!(!is_mac_control_multicast(&f));
        assert!(!is_mac_control_multicast(&[0xff; 64]));
    }

    #[test]
    fn buffer_too_small_says_how_much() {
        assert_eq!(
            BufferTooSmall { needed: 64 }.to_string(),
            "buffer too small: 64 needed"
        );
    }

    #[test]
    fn pause_frame_layout_is_annex_31b() {
        let mut buf = [0xeeu8; 64];
        let n = MacControl::Pause { quanta: 0xffff }
            .write([2, 0, 0, 0, 0, 9], &mut buf)
            .unwrap();
        assert_eq!(n, 60);
        assert_eq!(buf[..6], [0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
        assert_eq!(buf[6..12], [2, 0, 0, 0, 0, 9]);
        assert_eq!(buf[12..18], [0x88, 0x08, 0x00, 0x01, 0xff, 0xff]);
        assert!(buf[18..60].iter().all(|&b| b == 0));
        assert_eq!(buf[60], 0xee);
        assert_eq!(
            MacControl::parse(&buf[..60]),
            Some(MacControl::Pause { quanta: 0xffff })
        );
        assert!(is_mac_control_multicast(&buf));
    }

    #[test]
    fn pfc_frame_layout_is_annex_31d() {
        let mut buf = [0u8; 60];
        let timers = [1, 2, 3, 4, 5, 6, 7, 0x8000];
        let pfc = MacControl::Pfc {
            class_enable: 0x81,
            timers,
        };
        pfc.write([0; 6], &mut buf).unwrap();
        assert_eq!(buf[12..16], [0x88, 0x08, 0x01, 0x01]);
        assert_eq!(buf[16..18], [0x00, 0x81]);
        assert_eq!(buf[18..20], [0, 1]);
        assert_eq!(buf[32..34], [0x80, 0x00]);
        assert_eq!(MacControl::parse(&buf), Some(pfc));
    }

    #[test]
    fn other_types_and_opcodes() {
        let mut buf = [0u8; 60];
        assert_eq!(MacControl::parse(&buf), None);
        buf[12..16].copy_from_slice(&[0x88, 0x08, 0x00, 0x02]);
        assert_eq!(
            MacControl::parse(&buf),
            Some(MacControl::Other { opcode: 2 })
        );
        assert_eq!(MacControl::parse(&buf[..15]), None);
        assert_eq!(
            MacControl::Pause { quanta: 1 }.write([0; 6], &mut [0u8; 59]),
            Err(BufferTooSmall { needed: 60 })
        );
    }
}
