//! The host's FCS engine: `crc32fast` (carry-less multiplication where the CPU has it,
//! chosen at run time), with [`wide`]'s paths where the CPU has their instructions: a frame
//! of [`wide::MIN_OCTETS`] or more (AVX-512 `VPCLMULQDQ`), the 60-octet frame a transmitter
//! sends unpadded, and the 64-octet frame a receiver checks ([`FcsEngine::fcs_good`]).
//! Plugged into the cores' MAC through `mac_core::frame::FcsEngine`; the cores keep their
//! portable table engine, and the tests check all of them give the same FCS.

use mac_core::frame::{FcsEngine, FCS_RESIDUE};
use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
pub mod wide;

/// CRC-32 (ISO-HDLC) by `crc32fast`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FastFcs;

impl FcsEngine for FastFcs {
    type Digest = crc32fast::Hasher;

    #[inline]
    fn digest() -> Self::Digest {
        // The CPU features are detected once; every digest after that is a copy.
        static PROTOTYPE: OnceLock<crc32fast::Hasher> = OnceLock::new();
        PROTOTYPE.get_or_init(crc32fast::Hasher::new).clone()
    }

    #[inline]
    fn update(digest: &mut Self::Digest, bytes: &[u8]) {
        digest.update(bytes);
    }

    #[inline]
    fn finalize(digest: Self::Digest) -> u32 {
        digest.finalize()
    }

    #[inline(always)]
    fn checksum(bytes: &[u8]) -> u32 {
        if bytes.len() >= LONG {
            return long_checksum(bytes);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(c) = wide::checksum_60(bytes) {
            return c;
        }
        let mut d = Self::digest();
        d.update(bytes);
        d.finalize()
    }

    #[inline(always)]
    fn fcs_good(frame_with_fcs: &[u8]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(c) = wide::checksum_64(frame_with_fcs) {
            return c == FCS_RESIDUE;
        }
        Self::checksum(frame_with_fcs) == FCS_RESIDUE
    }
}

/// From this length on, [`FastFcs::checksum`] takes [`long_checksum`].
#[cfg(target_arch = "x86_64")]
const LONG: usize = wide::MIN_OCTETS;
#[cfg(not(target_arch = "x86_64"))]
const LONG: usize = usize::MAX;

/// The CRC of a long frame: [`wide`] where the CPU has it. Kept out of line, so that the
/// short frames' path (a 64-octet frame at line rate) stays as small as it was.
#[inline(never)]
#[cold]
fn long_checksum(bytes: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(c) = wide::checksum(bytes) {
        return c;
    }
    crc32fast::hash(bytes)
}

/// The transmitter with the fast engine.
pub type MacTx = mac_core::tx::MacTx<FastFcs>;
/// The receiver with the fast engine.
pub type MacRx = mac_core::rx::MacRx<{ mac_core::frame::MAX_FRAME_OCTETS }, FastFcs>;

#[cfg(test)]
mod tests {
    use super::*;
    use mac_core::frame::{fcs_padded, fcs_padded_with, TableFcs};
    use proptest::prelude::*;

    /// A 64-octet frame (the receiver's own path) and others: good with its FCS, bad with any
    /// one bit flipped, as the table engine says.
    #[test]
    fn fcs_good_agrees_with_the_table_engine_on_every_flipped_bit() {
        for len in [16usize, 60, 64, 65, 300, 1518] {
            let body: Vec<u8> = (0..len - 4).map(|i| (i * 31 + len) as u8).collect();
            let mut frame = body.clone();
            frame.extend(TableFcs::checksum(&body).to_le_bytes());
            assert!(FastFcs::fcs_good(&frame), "{len} octets");
            for bit in 0..8 * len {
                frame[bit / 8] ^= 1 << (bit % 8);
                assert!(!FastFcs::fcs_good(&frame), "{len} octets, bit {bit}");
                assert!(!TableFcs::fcs_good(&frame));
                frame[bit / 8] ^= 1 << (bit % 8);
            }
        }
    }

    proptest! {
        #[test]
        fn fast_engine_equals_the_cores_table_engine(data in proptest::collection::vec(any::<u8>(), 0..3000), pad in 0usize..80) {
            prop_assert_eq!(FastFcs::checksum(&data), TableFcs::checksum(&data));
            prop_assert_eq!(fcs_padded_with::<FastFcs>(&data, pad), fcs_padded(&data, pad));
            let mut d = FastFcs::digest();
            for c in data.chunks(13) {
                FastFcs::update(&mut d, c);
            }
            prop_assert_eq!(FastFcs::finalize(d), TableFcs::checksum(&data));
        }
    }
}
