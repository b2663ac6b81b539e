//! MAC frames: the frame check sequence, padding, length limits and a zero-copy view.
//!
//! A frame is the octets from the destination address to the FCS, as Clause 3 draws it:
//!
//! ```text
//! | DA (6) | SA (6) | [TPID 0x8100 + TCI (4)] | type/length (2) | data + pad | FCS (4) |
//!  <------------------------- 64 ..= 1518 (1522 tagged, 2000 envelope) ----------------->
//! ```
//!
//! On XGMII it is preceded by `/S/`, six `0x55` and the SFD `0xd5` (the `/S/` replaces the
//! first preamble octet). The FCS is CRC-32/ISO-HDLC (`zlib.crc32`) of the frame, appended least
//! significant octet first; the CRC of frame + FCS is the constant [`FCS_RESIDUE`].
//!
//! Spec: IEEE 802.3 §3.1.1, §3.2.9, §4.2.7.1, §4.4.2.

use crc::{Crc, Table, CRC_32_ISO_HDLC};

/// The Ethernet CRC, table driven (slice-by-16). A `static` so the 16 KiB table exists once.
///
/// Spec: IEEE 802.3 §3.2.9.
pub static FCS: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISO_HDLC);

/// The CRC of a frame followed by its correct FCS, in the `crc` crate's convention (reflected,
/// final complement): `FCS.checksum(frame ++ fcs.to_le_bytes()) == FCS_RESIDUE`.
///
/// Spec: IEEE 802.3 §3.2.9.
pub const FCS_RESIDUE: u32 = 0x2144_df1c;

/// Octets of the FCS field.
///
/// Spec: IEEE 802.3 §3.2.9.
pub const FCS_OCTETS: usize = 4;

/// A preamble octet.
///
/// Spec: IEEE 802.3 §3.2.1, §4.2.5.
pub const PREAMBLE_OCTET: u8 = 0x55;

/// The start frame delimiter.
///
/// Spec: IEEE 802.3 §3.2.2.
pub const SFD: u8 = 0xd5;

/// Octets from `/S/` to the SFD inclusive (the `/S/` stands in for the first preamble octet).
///
/// Spec: IEEE 802.3 §46.3.1.2.
pub const PREAMBLE_SFD_OCTETS: usize = 8;

/// The minimum frame, FCS included (`minFrameSize` = 512 bits).
///
/// Spec: IEEE 802.3 §4.4.2.
pub const MIN_FRAME_OCTETS: usize = 64;

/// What short frames are padded to before the FCS is appended.
///
/// Spec: IEEE 802.3 §4.2.3.3, §4.4.2.
pub const MIN_FRAME_OCTETS_WITHOUT_FCS: u16 = 60;

/// `maxUntaggedFrameSize`, FCS included.
///
/// Spec: IEEE 802.3 §4.4.2, Table 4-2.
pub const MAX_UNTAGGED_FRAME_OCTETS: usize = 1518;

/// The maximum of a frame carrying one Q-tag (TPID 0x8100), FCS included.
///
/// Spec: IEEE 802.3 §3.5, §4.4.2.
pub const MAX_TAGGED_FRAME_OCTETS: usize = 1522;

/// `maxEnvelopeFrameSize`, FCS included.
///
/// Spec: IEEE 802.3 §3.2.7, §4A.4, Table 4A-2.
pub const MAX_ENVELOPE_FRAME_OCTETS: usize = 2000;

/// The customary jumbo frame limit (9000 octets of data + 18): outside the standard.
///
/// Spec: none (vendor practice).
pub const MAX_JUMBO_FRAME_OCTETS: usize = 9018;

/// The largest frame this model transmits or buffers, FCS included: 16 KiB.
///
/// Spec: none (model limit).
pub const MAX_FRAME_OCTETS: usize = 16 * 1024;

/// The Q-tag protocol identifier (C-VLAN).
///
/// Spec: IEEE 802.3 §3.5; IEEE 802.1Q §9.5.
pub const TPID_VLAN: u16 = 0x8100;

/// A CRC-32 engine (the ISO-HDLC CRC of the FCS): how the MAC computes and checks the FCS.
/// [`TableFcs`], the `crc` crate's table-driven CRC, is the default and needs nothing from
/// the platform; a host can plug in a faster engine (carry-less multiply, e.g. `crc32fast`)
/// as the type parameter of [`crate::tx::MacTx`] and [`crate::rx::MacRx`].
///
/// Spec: IEEE 802.3 §3.2.9.
pub trait FcsEngine {
    /// A computation in progress.
    type Digest: Clone;
    /// A digest over no octets yet.
    fn digest() -> Self::Digest;
    /// Adds octets.
    fn update(digest: &mut Self::Digest, bytes: &[u8]);
    /// The CRC of everything added.
    fn finalize(digest: Self::Digest) -> u32;
    /// The CRC of `bytes`.
    #[inline]
    fn checksum(bytes: &[u8]) -> u32 {
        let mut d = Self::digest();
        Self::update(&mut d, bytes);
        Self::finalize(d)
    }
    /// Whether `frame_with_fcs` (DA through FCS) ends in its right FCS: its CRC is
    /// [`FCS_RESIDUE`]. What a receiver asks of every frame; an engine may answer it by a path
    /// of its own (the host's, for the 64-octet frame).
    ///
    /// Spec: IEEE 802.3 §3.2.9, §4.2.9 (frameCheckError).
    #[inline]
    fn fcs_good(frame_with_fcs: &[u8]) -> bool {
        Self::checksum(frame_with_fcs) == FCS_RESIDUE
    }
}

/// The default FCS engine: the `crc` crate's CRC_32_ISO_HDLC with a 16-way table ([`FCS`]).
///
/// Spec: IEEE 802.3 §3.2.9.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TableFcs;

impl FcsEngine for TableFcs {
    type Digest = crc::Digest<'static, u32, Table<16>>;

    #[inline]
    fn digest() -> Self::Digest {
        FCS.digest()
    }

    #[inline]
    fn update(digest: &mut Self::Digest, bytes: &[u8]) {
        digest.update(bytes);
    }

    #[inline]
    fn finalize(digest: Self::Digest) -> u32 {
        digest.finalize()
    }

    #[inline]
    fn checksum(bytes: &[u8]) -> u32 {
        FCS.checksum(bytes)
    }
}

/// The CRC-32 of `bytes` with the default engine.
///
/// Spec: IEEE 802.3 §3.2.9.
#[must_use]
#[inline]
pub fn crc32(bytes: &[u8]) -> u32 {
    TableFcs::checksum(bytes)
}

/// The FCS of `frame` (DA through the last pad octet): append it with `to_le_bytes`.
///
/// Spec: IEEE 802.3 §3.2.9.
#[must_use]
pub fn fcs(frame: &[u8]) -> u32 {
    crc32(frame)
}

/// The FCS of `frame` followed by `pad_octets` zero octets.
///
/// Spec: IEEE 802.3 §3.2.9, §4.2.3.3.
#[must_use]
pub fn fcs_padded(frame: &[u8], pad_octets: usize) -> u32 {
    fcs_padded_with::<TableFcs>(frame, pad_octets)
}

/// [`fcs_padded`] with engine `E`.
///
/// Spec: IEEE 802.3 §3.2.9, §4.2.3.3.
#[must_use]
#[inline]
pub fn fcs_padded_with<E: FcsEngine>(frame: &[u8], pad_octets: usize) -> u32 {
    const ZEROS: [u8; 64] = [0; 64];
    if pad_octets == 0 {
        return E::checksum(frame);
    }
    let mut digest = E::digest();
    E::update(&mut digest, frame);
    let mut left = pad_octets;
    while left > 0 {
        let n = left.min(ZEROS.len());
        E::update(&mut digest, ZEROS.get(..n).unwrap_or(&[]));
        left -= n;
    }
    E::finalize(digest)
}

/// True if `frame_with_fcs` ends in the correct FCS of the octets before it (residue check).
///
/// Spec: IEEE 802.3 §3.2.9, §4.2.4.1.2.
#[must_use]
pub fn is_fcs_good(frame_with_fcs: &[u8]) -> bool {
    frame_with_fcs.len() >= FCS_OCTETS && crc32(frame_with_fcs) == FCS_RESIDUE
}

/// Whether and to what length the transmitter pads short frames (before the FCS).
///
/// Spec: IEEE 802.3 §4.2.3.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Padding {
    /// Send frames as given (a short frame leaves as a runt).
    Off,
    /// Pad with zeros to this many octets before the FCS (60 in the standard).
    To(u16),
}

impl Default for Padding {
    fn default() -> Self {
        Self::To(MIN_FRAME_OCTETS_WITHOUT_FCS)
    }
}

impl Padding {
    /// Zero octets to append to a frame of `len` octets (without FCS).
    ///
    /// Spec: IEEE 802.3 §4.2.3.3.
    #[must_use]
    pub const fn pad_octets(self, len: usize) -> usize {
        match self {
            Self::Off => 0,
            Self::To(min) => (min as usize).saturating_sub(len),
        }
    }
}

/// The receiver's maximum frame length (FCS included): frames longer than it are
/// "frame too long" errors.
///
/// Spec: IEEE 802.3 §4.2.4.2.1, §4.4.2, §3.2.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MaxFrameLength {
    /// 1518 octets, or 1522 for a frame whose type field is the Q-tag TPID 0x8100.
    #[default]
    Basic,
    /// 2000 octets (envelope frames, 802.3as).
    Envelope,
    /// 9018 octets (jumbo; outside the standard).
    Jumbo,
    /// Any other limit, FCS included.
    Octets(u16),
}

impl MaxFrameLength {
    /// The limit that applies to `frame` (FCS included), read from its type field for
    /// [`MaxFrameLength::Basic`].
    ///
    /// Spec: IEEE 802.3 §3.5, §4.4.2, Table 4-2.
    #[must_use]
    #[inline]
    pub fn limit_for(self, frame: &[u8]) -> usize {
        match self {
            Self::Basic if ether_type(frame) == Some(TPID_VLAN) => MAX_TAGGED_FRAME_OCTETS,
            Self::Basic => MAX_UNTAGGED_FRAME_OCTETS,
            Self::Envelope => MAX_ENVELOPE_FRAME_OCTETS,
            Self::Jumbo => MAX_JUMBO_FRAME_OCTETS,
            Self::Octets(n) => n as usize,
        }
    }
}

/// The type/length field (octets 12..14, big endian), if the frame is that long.
///
/// Spec: IEEE 802.3 §3.2.6.
#[must_use]
pub fn ether_type(frame: &[u8]) -> Option<u16> {
    let (_, rest) = frame.split_first_chunk::<12>()?;
    let (t, _) = rest.split_first_chunk::<2>()?;
    Some(u16::from_be_bytes(*t))
}

/// The destination address kind, for the multicast/broadcast counters.
///
/// Spec: IEEE 802.3 §3.2.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AddressKind {
    /// Individual address (I/G bit clear).
    Unicast,
    /// Group address other than all ones.
    Multicast,
    /// All ones.
    Broadcast,
}

impl AddressKind {
    /// The kind of the destination address at the start of `frame` (`None` if shorter than 6).
    ///
    /// Spec: IEEE 802.3 §3.2.3.
    #[must_use]
    pub fn of_frame(frame: &[u8]) -> Option<Self> {
        let (da, _) = frame.split_first_chunk::<6>()?;
        Some(if *da == [0xff; 6] {
            Self::Broadcast
        } else if da[0] & 1 != 0 {
            Self::Multicast
        } else {
            Self::Unicast
        })
    }
}

/// Why a byte slice is not a frame.
///
/// Spec: IEEE 802.3 §3.1.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ParseFrameError {
    /// Fewer than 18 octets (DA, SA, type/length, FCS).
    TooShort {
        /// The slice length.
        len: usize,
    },
}

impl core::fmt::Display for ParseFrameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::TooShort { len } => write!(
                f,
                "{len} octets cannot hold DA, SA, type and FCS (18 octets, 3.1.1)"
            ),
        }
    }
}

impl core::error::Error for ParseFrameError {}

/// A received frame (FCS included), split once into its fields.
///
/// Spec: IEEE 802.3 §3.1.1, Figure 3-1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FrameView<'a> {
    dst: &'a [u8; 6],
    src: &'a [u8; 6],
    ether_type: u16,
    payload: &'a [u8],
    fcs: &'a [u8; 4],
}

impl<'a> FrameView<'a> {
    /// Splits `bytes` (DA through FCS).
    ///
    /// # Errors
    /// [`ParseFrameError::TooShort`] below 18 octets.
    ///
    /// Spec: IEEE 802.3 §3.1.1.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ParseFrameError> {
        let short = ParseFrameError::TooShort { len: bytes.len() };
        let (dst, rest) = bytes.split_first_chunk::<6>().ok_or(short)?;
        let (src, rest) = rest.split_first_chunk::<6>().ok_or(short)?;
        let (ty, rest) = rest.split_first_chunk::<2>().ok_or(short)?;
        let (payload, fcs) = rest.split_last_chunk::<4>().ok_or(short)?;
        Ok(Self {
            dst,
            src,
            ether_type: u16::from_be_bytes(*ty),
            payload,
            fcs,
        })
    }

    /// Destination address.
    ///
    /// Spec: IEEE 802.3 §3.2.4.
    #[must_use]
    pub fn dst(&self) -> [u8; 6] {
        *self.dst
    }

    /// Source address.
    ///
    /// Spec: IEEE 802.3 §3.2.5.
    #[must_use]
    pub fn src(&self) -> [u8; 6] {
        *self.src
    }

    /// The type/length field after SA (0x8100 for a Q-tagged frame).
    ///
    /// Spec: IEEE 802.3 §3.2.6.
    #[must_use]
    pub fn ether_type(&self) -> u16 {
        self.ether_type
    }

    /// True if the frame carries a Q-tag (TPID 0x8100).
    ///
    /// Spec: IEEE 802.3 §3.5.
    #[must_use]
    pub fn is_vlan_tagged(&self) -> bool {
        self.ether_type == TPID_VLAN
    }

    /// The octets between the type field and the FCS (data and pad).
    ///
    /// Spec: IEEE 802.3 §3.2.7, §3.2.8.
    #[must_use]
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    /// The FCS field as received (least significant octet first on the wire).
    ///
    /// Spec: IEEE 802.3 §3.2.9.
    #[must_use]
    pub fn fcs(&self) -> u32 {
        u32::from_le_bytes(*self.fcs)
    }

    /// The destination address kind.
    ///
    /// Spec: IEEE 802.3 §3.2.3.
    #[must_use]
    pub fn address_kind(&self) -> AddressKind {
        AddressKind::of_frame(self.dst).unwrap_or(AddressKind::Unicast)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bitwise CRC-32, written from the definition in §3.2.9 (LSB-first shift register,
    /// reflected polynomial 0xEDB88320, preset to ones, complemented at the end).
    fn crc32_bitwise(data: &[u8]) -> u32 {
        let mut reg = 0xffff_ffffu32;
        for &byte in data {
            for bit in 0..8 {
                let inp = u32::from((byte >> bit) & 1);
                let fb = (reg ^ inp) & 1;
                reg >>= 1;
                if fb != 0 {
                    reg ^= 0xedb8_8320;
                }
            }
        }
        !reg
    }

    /// An engine with only the three required methods, the bitwise register behind them: the
    /// trait's own `checksum` (digest, update, finalize) must give the CRC.
    struct BitwiseFcs;

    impl FcsEngine for BitwiseFcs {
        type Digest = u32;
        fn digest() -> u32 {
            0xffff_ffff
        }
        fn update(reg: &mut u32, bytes: &[u8]) {
            *reg = !crc32_bitwise_from(!*reg, bytes);
        }
        fn finalize(reg: u32) -> u32 {
            !reg
        }
    }

    /// [`crc32_bitwise`] continued from the CRC of earlier octets.
    fn crc32_bitwise_from(crc: u32, data: &[u8]) -> u32 {
        let mut reg = !crc;
        for &byte in data {
            for bit in 0..8 {
                let fb = (reg ^ u32::from((byte >> bit) & 1)) & 1;
                reg >>= 1;
                if fb != 0 {
                    reg ^= 0xedb8_8320;
                }
            }
        }
        !reg
    }

    #[test]
    fn an_engine_without_its_own_checksum_gets_the_traits() {
        assert_eq!(BitwiseFcs::checksum(b"123456789"), 0xcbf4_3926);
        assert_eq!(BitwiseFcs::checksum(b""), 0);
        // Fed in pieces, as the receiver does.
        let data: [u8; 100] = core::array::from_fn(|i| (i * 37 + 5) as u8);
        let mut d = BitwiseFcs::digest();
        BitwiseFcs::update(&mut d, &data[..33]);
        BitwiseFcs::update(&mut d, &data[33..]);
        assert_eq!(BitwiseFcs::finalize(d), TableFcs::checksum(&data));
        assert_eq!(BitwiseFcs::checksum(&data), crc32_bitwise(&data));
    }

    #[test]
    fn fcs_of_check_string_is_cbf43926() {
        // The CRC-32 check value (zlib.crc32(b"123456789")).
        assert_eq!(fcs(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32fast::hash(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn fcs_of_known_frame_matches_literal() {
        // zlib.crc32(bytes(range(60))) == 0xb0ec7fee (computed with Python's zlib).
        let frame: std::vec::Vec<u8> = (0u8..60).collect();
        assert_eq!(fcs(&frame), 0xb0ec_7fee);
        assert_eq!(fcs(&[0u8; 60]), crc32_bitwise(&[0u8; 60]));
    }

    #[test]
    fn fcs_appended_lsb_first_gives_residue_2144df1c() {
        let frame: std::vec::Vec<u8> = (0u8..60).collect();
        let mut with = frame.clone();
        with.extend_from_slice(&fcs(&frame).to_le_bytes());
        assert_eq!(FCS.checksum(&with), FCS_RESIDUE);
        assert!(is_fcs_good(&with));
        with[10] ^= 1;
        assert!(!is_fcs_good(&with));
    }

    #[test]
    fn fcs_padded_equals_fcs_of_zero_extended_frame() {
        let frame = [0xa5u8; 17];
        let mut ext = frame.to_vec();
        ext.resize(200, 0);
        assert_eq!(fcs_padded(&frame, 183), fcs(&ext));
    }

    #[test]
    fn padding_fills_to_60_octets_before_fcs() {
        assert_eq!(Padding::default().pad_octets(14), 46);
        assert_eq!(Padding::default().pad_octets(60), 0);
        assert_eq!(Padding::default().pad_octets(1000), 0);
        assert_eq!(Padding::Off.pad_octets(14), 0);
        assert_eq!(Padding::To(100).pad_octets(14), 86);
    }

    #[test]
    fn max_length_is_1522_only_for_q_tagged_frames() {
        let mut f = [0u8; 20];
        assert_eq!(MaxFrameLength::Basic.limit_for(&f), 1518);
        f[12] = 0x81;
        assert_eq!(MaxFrameLength::Basic.limit_for(&f), 1522);
        assert_eq!(MaxFrameLength::Envelope.limit_for(&f), 2000);
        assert_eq!(MaxFrameLength::Jumbo.limit_for(&f), 9018);
        assert_eq!(MaxFrameLength::Octets(777).limit_for(&f), 777);
    }

    #[test]
    fn frame_view_splits_fields() {
        let mut f = [0u8; 64];
        f[..6].copy_from_slice(&[0xff; 6]);
        f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        f[12..14].copy_from_slice(&[0x88, 0x08]);
        f[60..].copy_from_slice(&0x1234_5678u32.to_le_bytes());
        let v = FrameView::parse(&f).unwrap();
        assert_eq!(v.ether_type(), 0x8808);
        assert_eq!(v.payload().len(), 46);
        assert_eq!(v.fcs(), 0x1234_5678);
        assert_eq!(v.address_kind(), AddressKind::Broadcast);
        assert_eq!(
            FrameView::parse(&f[..17]),
            Err(ParseFrameError::TooShort { len: 17 })
        );
        assert_eq!(v.dst(), [0xff; 6]);
        assert_eq!(v.src(), [2, 0, 0, 0, 0, 1]);
        assert!(!v.is_vlan_tagged());
        f[12..14].copy_from_slice(&[0x81, 0x00]);
        assert!(FrameView::parse(&f).unwrap().is_vlan_tagged());
        // S-tag (0x88a8) is not the Q-tag's TPID.
        f[12..14].copy_from_slice(&[0x88, 0xa8]);
        assert!(!FrameView::parse(&f).unwrap().is_vlan_tagged());
        assert_eq!(
            ParseFrameError::TooShort { len: 17 }.to_string(),
            "17 octets cannot hold DA, SA, type and FCS (18 octets, 3.1.1)"
        );
    }

    #[test]
    fn digest_in_pieces_equals_one_shot() {
        let data: std::vec::Vec<u8> = (0..300u32).map(|i| (i * 31) as u8).collect();
        let mut d = TableFcs::digest();
        for chunk in data.chunks(7) {
            TableFcs::update(&mut d, chunk);
        }
        assert_eq!(TableFcs::finalize(d), fcs(&data));
        assert_eq!(fcs_padded_with::<TableFcs>(&data, 0), fcs(&data));
    }

    proptest::proptest! {
        #[test]
        fn fcs_matches_crc32fast_and_bitwise(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000)) {
            let f = fcs(&data);
            proptest::prop_assert_eq!(f, FCS.checksum(&data));
            proptest::prop_assert_eq!(f, crc32fast::hash(&data));
            proptest::prop_assert_eq!(f, crc32_bitwise(&data));
        }
    }
}
