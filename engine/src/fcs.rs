//! The host's FCS engine: `crc32fast` (carry-less multiplication where the CPU has it,
//! chosen at run time), plugged into the cores' MAC through `mac_core::frame::FcsEngine`.
//! The cores keep their portable table engine; the tests check both give the same FCS.

use mac_core::frame::FcsEngine;
use std::sync::OnceLock;

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
