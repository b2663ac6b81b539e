//! The 25G codeword marker (CWM): 257 bits at the start of the message of the first
//! codeword of every marker period, in place of one transcoded block.
//!
//! ```text
//!  bit 0      64         128        192        256
//!  | AM0      | AM1      | AM2      | AM3      | pad |
//!  AM0 = C1 68 21 33 3E 97 DE CC   (100G PCS lane 0 marker, BIP3/BIP7 fixed to 33/CC)
//!  AM1 = F0 C4 E6 33 0F 3B 19 CC   AM2 = C5 65 9B 33 3A 9A 64 CC   AM3 = A2 79 3D 33 5D 86 C2 CC
//!  octets in line order, each octet LSB first; octets 4..7 are the complements of 0..3
//! ```
//!
//! A marker codeword carries the marker and 19 transcoded blocks (76 66-bit blocks); every
//! other codeword 20 (80 blocks). The marker is placed as is: no header whitening, no
//! transcoding (U: the VIP puts the AM octets at the start of the message; no captured marker
//! codeword was available to check it bit for bit).
//!
//! Spec: IEEE 802.3 §108.5.2 (codeword marker insertion). Marks: FEC-NOTES §2.3.

use super::bits;
use super::transcode::Transcoded257;

/// The four 64-bit alignment markers of the codeword marker, octets in line order.
///
/// Mark V: two independent implementations (FEC-NOTES §2.3: VIP `RS108_AM`, Tofino driver).
pub const AM_OCTETS: [[u8; 8]; 4] = [
    [0xC1, 0x68, 0x21, 0x33, 0x3E, 0x97, 0xDE, 0xCC],
    [0xF0, 0xC4, 0xE6, 0x33, 0x0F, 0x3B, 0x19, 0xCC],
    [0xC5, 0x65, 0x9B, 0x33, 0x3A, 0x9A, 0x64, 0xCC],
    [0xA2, 0x79, 0x3D, 0x33, 0x5D, 0x86, 0xC2, 0xCC],
];

/// The value of the marker's 257th bit (the pad after AM3).
///
/// U: one source (the VIP) puts a single 0 as the 257th bit. The receiver does not compare
/// it.
pub const MARKER_PAD_BIT: u64 = 0;

/// The 257-bit codeword marker, bit 0 first on the line.
pub const MARKER: Transcoded257 = Transcoded257::from_words([
    u64::from_le_bytes(AM_OCTETS[0]),
    u64::from_le_bytes(AM_OCTETS[1]),
    u64::from_le_bytes(AM_OCTETS[2]),
    u64::from_le_bytes(AM_OCTETS[3]),
    MARKER_PAD_BIT,
]);

/// Marker bits the receiver compares (AM0..AM3; the pad is not compared).
pub const MARKER_COMPARED_BITS: usize = 256;

/// Codewords per marker period: a marker every this many codewords.
///
/// U: no standard text; two secondary sources (VIP notes, RU record "25G: every 1024
/// words") agree on 1024 for 25G. Option: `RsFecConfig::marker_period_codewords`.
pub const MARKER_PERIOD_CODEWORDS: u32 = 1024;

/// The marker period of the Synopsys VIP's default configuration (non-standard), for
/// testing against it.
pub const VIP_MARKER_PERIOD_CODEWORDS: u32 = 16;

/// Bits among AM0..AM3 that differ from the marker, for the 256 bits at line bit `offset`
/// of a word stream.
#[must_use]
pub fn marker_mismatch_bits(words: &[u64], offset: usize) -> u32 {
    MARKER
        .words()
        .iter()
        .take(4)
        .enumerate()
        .map(|(k, m)| (bits::read64(words, offset + 64 * k) ^ m).count_ones())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_octets_4_to_7_complement_0_to_3() {
        for am in AM_OCTETS {
            for i in 0..4 {
                assert_eq!(am[i + 4], !am[i]);
            }
        }
    }

    #[test]
    fn marker_is_am0_to_am3_lsb_first_then_a_zero_pad() {
        // First line bits: 0xC1 LSB first = 1,0,0,0,0,0,1,1.
        let first: Vec<u64> = (0..8).map(|b| MARKER.read_bits(b, 1)).collect();
        assert_eq!(first, [1, 0, 0, 0, 0, 0, 1, 1]);
        assert_eq!(MARKER.read_bits(192, 64), 0xCCC2_865D_333D_79A2);
        assert_eq!(MARKER.read_bits(256, 1), 0);
        assert_eq!(marker_mismatch_bits(MARKER.words(), 0), 0);
    }
}
