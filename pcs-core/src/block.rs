//! 66-bit blocks: the sync header, the block type field, the 7-bit control codes and O codes,
//! and the stateless mapping between one XGMII transfer and one block in both directions.
//!
//! A block is a 2-bit sync header and a 64-bit payload, both sent bit 0 first. The payload is
//! held as a `u64` whose bit 0 is the first payload bit on the wire, so the block type field is
//! bits 7..0 and the `.b66` line form is `H PPPPPPPPPPPPPPPP`.
//!
//! ```text
//!  wire order ->  | h0 h1 | p0 p1 ... p7 | p8 ...                       p63 |
//!                 | sync  | block type   | codes, O codes, data octets       |
//! ```
//!
//! Control codes are 7 bits each; the code of lane `j` always sits at payload bits
//! `8+7j+6..8+7j`. Data octets of lane `i` sit where they sit on XGMII (bits `8i+7..8i`),
//! except in the terminate blocks, where lane `i` is at bits `8i+15..8i+8`.
//!
//! Spec: IEEE 802.3 §49.2.4, Figure 49-7, Table 49-1.

use crate::xgmii::{ControlChar, XgmiiWord};

/// Sync header as a 2-bit integer, bit 0 first on the wire.
///
/// IEEE writes data `01` and control `10` in wire order; as integers they are 2 and 1.
/// `0b00` and `0b11` are kept: receivers must count them.
///
/// Spec: IEEE 802.3 §49.2.4.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SyncHeader(u8);

impl SyncHeader {
    /// Data block header (IEEE `01`).
    pub const DATA: Self = Self(0b10);
    /// Control block header (IEEE `10`).
    pub const CONTROL: Self = Self(0b01);

    /// The header from its two bits (higher bits are ignored); bit 0 is first on the wire.
    #[must_use]
    pub const fn from_bits(bits: u8) -> Self {
        Self(bits & 0b11)
    }

    /// The header as a 2-bit integer, bit 0 first on the wire.
    #[must_use]
    pub const fn to_bits(self) -> u8 {
        self.0
    }

    /// `sh_valid`: the header is `01` or `10`.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.2 (`sh_valid`).
    #[must_use]
    pub const fn is_valid(self) -> bool {
        matches!(self.0, 0b01 | 0b10)
    }
}

/// The block type field of a control block (the first payload octet).
///
/// Each variant's doc shows what lanes 0..7 carry (`C` control code, `O` O code, `S` start,
/// `T` terminate, `D` data).
///
/// Spec: IEEE 802.3 §49.2.4.4, Figure 49-7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum BlockType {
    /// `C0 C1 C2 C3 C4 C5 C6 C7`
    Control = 0x1e,
    /// `C0 C1 C2 C3 O4 D5 D6 D7`
    ControlOrdered = 0x2d,
    /// `C0 C1 C2 C3 S4 D5 D6 D7`
    ControlStart = 0x33,
    /// `O0 D1 D2 D3 S4 D5 D6 D7`
    OrderedStart = 0x66,
    /// `O0 D1 D2 D3 O4 D5 D6 D7`
    OrderedOrdered = 0x55,
    /// `S0 D1 D2 D3 D4 D5 D6 D7`
    Start = 0x78,
    /// `O0 D1 D2 D3 C4 C5 C6 C7`
    OrderedControl = 0x4b,
    /// `T0 C1 C2 C3 C4 C5 C6 C7`
    Terminate0 = 0x87,
    /// `D0 T1 C2 C3 C4 C5 C6 C7`
    Terminate1 = 0x99,
    /// `D0 D1 T2 C3 C4 C5 C6 C7`
    Terminate2 = 0xaa,
    /// `D0 D1 D2 T3 C4 C5 C6 C7`
    Terminate3 = 0xb4,
    /// `D0 D1 D2 D3 T4 C5 C6 C7`
    Terminate4 = 0xcc,
    /// `D0 D1 D2 D3 D4 T5 C6 C7`
    Terminate5 = 0xd2,
    /// `D0 D1 D2 D3 D4 D5 T6 C7`
    Terminate6 = 0xe1,
    /// `D0 D1 D2 D3 D4 D5 D6 T7`
    Terminate7 = 0xff,
}

impl BlockType {
    /// All 15 block types of Figure 49-7, in the figure's order.
    pub const ALL: [Self; 15] = [
        Self::Control,
        Self::ControlOrdered,
        Self::ControlStart,
        Self::OrderedStart,
        Self::OrderedOrdered,
        Self::Start,
        Self::OrderedControl,
        Self::Terminate0,
        Self::Terminate1,
        Self::Terminate2,
        Self::Terminate3,
        Self::Terminate4,
        Self::Terminate5,
        Self::Terminate6,
        Self::Terminate7,
    ];

    /// The block type for a type field value; `None` for the 241 values Figure 49-7 does not
    /// list.
    #[must_use]
    pub const fn from_u8(value: u8) -> Option<Self> {
        Some(match value {
            0x1e => Self::Control,
            0x2d => Self::ControlOrdered,
            0x33 => Self::ControlStart,
            0x66 => Self::OrderedStart,
            0x55 => Self::OrderedOrdered,
            0x78 => Self::Start,
            0x4b => Self::OrderedControl,
            0x87 => Self::Terminate0,
            0x99 => Self::Terminate1,
            0xaa => Self::Terminate2,
            0xb4 => Self::Terminate3,
            0xcc => Self::Terminate4,
            0xd2 => Self::Terminate5,
            0xe1 => Self::Terminate6,
            0xff => Self::Terminate7,
            _ => return None,
        })
    }

    /// The terminate block whose `/T/` is in lane `lane` (0..=7); `None` otherwise.
    #[must_use]
    pub const fn terminate(lane: usize) -> Option<Self> {
        Some(match lane {
            0 => Self::Terminate0,
            1 => Self::Terminate1,
            2 => Self::Terminate2,
            3 => Self::Terminate3,
            4 => Self::Terminate4,
            5 => Self::Terminate5,
            6 => Self::Terminate6,
            7 => Self::Terminate7,
            _ => return None,
        })
    }

    /// The payload bits this format leaves zero (the pads of Figure 49-7); receivers ignore
    /// them (see `decode_block`).
    ///
    /// Spec: IEEE 802.3 §49.2.4.4, Figure 49-7.
    #[must_use]
    pub const fn pad_mask(self) -> u64 {
        const fn bits(lo: u32, hi: u32) -> u64 {
            ((1u64 << (hi - lo + 1)) - 1) << lo
        }
        match self {
            Self::ControlStart | Self::OrderedStart => bits(36, 39),
            Self::Terminate0 => bits(8, 14),
            Self::Terminate1 => bits(16, 21),
            Self::Terminate2 => bits(24, 28),
            Self::Terminate3 => bits(32, 35),
            Self::Terminate4 => bits(40, 42),
            Self::Terminate5 => bits(48, 49),
            Self::Terminate6 => bits(56, 56),
            _ => 0,
        }
    }

    /// The lane of the `/T/` for a terminate block type.
    #[must_use]
    pub const fn terminate_lane(self) -> Option<usize> {
        Some(match self {
            Self::Terminate0 => 0,
            Self::Terminate1 => 1,
            Self::Terminate2 => 2,
            Self::Terminate3 => 3,
            Self::Terminate4 => 4,
            Self::Terminate5 => 5,
            Self::Terminate6 => 6,
            Self::Terminate7 => 7,
            _ => return None,
        })
    }
}

/// A 7-bit control code as carried in a control block. Any 7-bit value can be held; the nine of
/// Table 49-1 are the valid ones.
///
/// Spec: IEEE 802.3 §49.2.4.4, Table 49-1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ControlCode(u8);

impl ControlCode {
    /// `/I/`.
    pub const IDLE: Self = Self(0x00);
    /// `/LI/`.
    pub const LPI: Self = Self(0x06);
    /// `/E/`.
    pub const ERROR: Self = Self(0x1e);

    /// A code from a 7-bit value; `None` if `value` has bit 7 set.
    #[must_use]
    pub const fn try_new(value: u8) -> Option<Self> {
        if value < 0x80 {
            Some(Self(value))
        } else {
            None
        }
    }

    /// The 7-bit value.
    #[must_use]
    pub const fn to_u8(self) -> u8 {
        self.0
    }

    /// The code for an XGMII control character; `None` for `/S/`, `/T/`, `/Q/`, `/Fsig/`
    /// (which blocks carry by type or O code) and for characters not in Table 49-1.
    #[must_use]
    pub const fn from_char(c: ControlChar) -> Option<Self> {
        Some(Self(match c.0 {
            0x07 => 0x00,
            0x06 => 0x06,
            0xfe => 0x1e,
            0x1c => 0x2d,
            0x3c => 0x33,
            0x7c => 0x4b,
            0xbc => 0x55,
            0xdc => 0x66,
            0xf7 => 0x78,
            _ => return None,
        }))
    }

    /// The XGMII control character of a valid code; `None` for the 119 invalid codes.
    #[must_use]
    pub const fn to_char(self) -> Option<ControlChar> {
        Some(ControlChar(match self.0 {
            0x00 => 0x07,
            0x06 => 0x06,
            0x1e => 0xfe,
            0x2d => 0x1c,
            0x33 => 0x3c,
            0x4b => 0x7c,
            0x55 => 0xbc,
            0x66 => 0xdc,
            0x78 => 0xf7,
            _ => return None,
        }))
    }
}

/// A 4-bit O code: which ordered set a control block carries.
///
/// Spec: IEEE 802.3 §49.2.4.4, Table 49-1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OCode(u8);

impl OCode {
    /// Sequence ordered set `/Q/`.
    pub const SEQUENCE: Self = Self(0x0);
    /// Signal ordered set `/Fsig/`.
    pub const SIGNAL: Self = Self(0xf);

    /// An O code from a 4-bit value; `None` if `value` > 15.
    #[must_use]
    pub const fn try_new(value: u8) -> Option<Self> {
        if value < 0x10 {
            Some(Self(value))
        } else {
            None
        }
    }

    /// The 4-bit value.
    #[must_use]
    pub const fn to_u8(self) -> u8 {
        self.0
    }

    /// The O code for `/Q/` or `/Fsig/`.
    #[must_use]
    pub const fn from_char(c: ControlChar) -> Option<Self> {
        match c.0 {
            0x9c => Some(Self::SEQUENCE),
            0x5c => Some(Self::SIGNAL),
            _ => None,
        }
    }

    /// The ordered-set character of a valid O code; `None` for the 14 invalid ones.
    #[must_use]
    pub const fn to_char(self) -> Option<ControlChar> {
        match self.0 {
            0x0 => Some(ControlChar::SEQUENCE),
            0xf => Some(ControlChar::SIGNAL),
            _ => None,
        }
    }
}

/// A 66-bit block: sync header and payload, bit 0 of each first on the wire.
///
/// Spec: IEEE 802.3 §49.2.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Block {
    /// The sync header.
    pub sync: SyncHeader,
    /// The 64-bit payload, bit 0 first on the wire (block type field in bits 7..0).
    pub payload: u64,
}

/// Payload of a control block whose eight lanes all carry the same 7-bit code.
const fn splat_code(code: u8) -> u64 {
    Block::from_control_codes([ControlCode(code); 8]).payload
}

impl Block {
    /// The idle block: type 0x1E and eight `/I/` codes.
    pub const IDLE: Self = Self::control(splat_code(0x00));
    /// `EBLOCK_T`: type 0x1E and eight `/E/` codes (`1 3c78f1e3c78f1e1e`).
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.3.
    pub const EBLOCK_T: Self = Self::control(splat_code(0x1e));
    /// `LBLOCK_T`: two Local Fault ordered sets (type 0x55, O codes 0, data `00 00 01`).
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.3.
    pub const LBLOCK_T: Self = Self::control(0x0100_0000_0100_0055);

    /// The control block of type 0x1E carrying `codes`, lane 0 first: valid codes or not
    /// (a code of Table 49-1 for each lane is what a transmitter sends; any other is a
    /// receiver's test).
    ///
    /// Spec: IEEE 802.3 §49.2.4.4, Figure 49-7, Table 49-1.
    #[must_use]
    pub const fn from_control_codes(codes: [ControlCode; 8]) -> Self {
        let mut payload = BlockType::Control as u64;
        let mut shift = 8; // lane k's code in bits 8 + 7k ..= 14 + 7k
        let mut rest: &[ControlCode] = &codes;
        while let [code, tail @ ..] = rest {
            payload |= (code.0 as u64) << shift;
            shift += 7;
            rest = tail;
        }
        Self::control(payload)
    }

    /// A block with the control sync header.
    #[must_use]
    pub const fn control(payload: u64) -> Self {
        Self {
            sync: SyncHeader::CONTROL,
            payload,
        }
    }

    /// A block with the data sync header.
    #[must_use]
    pub const fn data(payload: u64) -> Self {
        Self {
            sync: SyncHeader::DATA,
            payload,
        }
    }

    /// The block type field, if this is a control block with a listed type.
    #[must_use]
    pub const fn block_type(self) -> Option<BlockType> {
        if self.sync.0 == SyncHeader::CONTROL.0 {
            BlockType::from_u8(self.payload as u8)
        } else {
            None
        }
    }
}

impl core::fmt::Display for Block {
    /// The `.b66` line form: `H PPPPPPPPPPPPPPPP`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:x} {:016x}", self.sync.0, self.payload)
    }
}

/// The class of an XGMII transfer or a block: the value of `T_TYPE(tx_raw)` or
/// `R_TYPE(rx_coded)`.
///
/// Spec: IEEE 802.3 §49.2.13.2.3 (T_TYPE, R_TYPE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BlockClass {
    /// `C`: idles, ordered sets, other valid control characters.
    Control,
    /// `S`: a start of packet.
    Start,
    /// `T`: a terminate.
    Terminate,
    /// `D`: eight data octets.
    Data,
    /// `E`: anything else.
    Error,
}

impl BlockClass {
    /// The spec's letter: `C`, `S`, `T`, `D` or `E`.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2.3 (T_TYPE, R_TYPE).
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Self::Control => 'C',
            Self::Start => 'S',
            Self::Terminate => 'T',
            Self::Data => 'D',
            Self::Error => 'E',
        }
    }
}

/// Why an XGMII transfer has `T_TYPE` = E.
///
/// Spec: IEEE 802.3 §49.2.13.2.3 (T_TYPE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EncodeWordError {
    /// The control mask and the `/S/`, `/T/`, `/Q/`, `/Fsig/` positions fit none of the 15
    /// block formats of Figure 49-7.
    NoBlockFormat {
        /// The transfer's control mask.
        ctrl: u8,
    },
    /// A control character with no 7-bit code where the format needs one (Table 49-1).
    InvalidControlCharacter {
        /// The lane (0..=7).
        lane: u8,
        /// The octet.
        octet: u8,
    },
    /// `/E/` in a transfer of eight control characters (T_TYPE C excludes it).
    ErrorCharacter {
        /// The first lane carrying `/E/`.
        lane: u8,
    },
    /// `/LI/` in a transfer of eight control characters: T_TYPE C excludes it, and without
    /// EEE (not modelled) there is no LI type, so the transfer is E.
    LowPowerIdle {
        /// The first lane carrying `/LI/`.
        lane: u8,
    },
}

impl core::fmt::Display for EncodeWordError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::NoBlockFormat { ctrl } => write!(
                f,
                "control mask 0x{ctrl:02x} with these characters fits no block format (Figure 49-7)"
            ),
            Self::InvalidControlCharacter { lane, octet } => write!(
                f,
                "lane {lane}: control character 0x{octet:02x} has no 7-bit code (Table 49-1)"
            ),
            Self::ErrorCharacter { lane } => write!(
                f,
                "lane {lane}: /E/ among eight control characters (T_TYPE E, 49.2.13.2.3)"
            ),
            Self::LowPowerIdle { lane } => write!(
                f,
                "lane {lane}: /LI/ among eight control characters, without EEE (T_TYPE E, 49.2.13.2.3)"
            ),
        }
    }
}

impl core::error::Error for EncodeWordError {}

/// Why a received block has `R_TYPE` = E.
///
/// Spec: IEEE 802.3 §49.2.13.2.3 (R_TYPE), Figure 49-7, Table 49-1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DecodeBlockError {
    /// Sync header `00` or `11`.
    InvalidSyncHeader(SyncHeader),
    /// A block type field value Figure 49-7 does not list.
    UnknownBlockType(u8),
    /// A 7-bit control code Table 49-1 does not list.
    InvalidControlCode {
        /// The lane (0..=7).
        lane: u8,
        /// The 7-bit code.
        code: u8,
    },
    /// An O code other than 0x0 and 0xF.
    InvalidOCode {
        /// The lane (0 or 4).
        lane: u8,
        /// The 4-bit code.
        code: u8,
    },
    /// `/E/` in a block of eight control codes (R_TYPE C excludes it).
    ErrorCode {
        /// The first lane carrying `/E/`.
        lane: u8,
    },
    /// `/LI/` in a block of eight control codes: R_TYPE C excludes it, and without EEE (not
    /// modelled) there is no LI type, so the block is E.
    LowPowerIdleCode {
        /// The first lane carrying `/LI/`.
        lane: u8,
    },
}

impl core::fmt::Display for DecodeBlockError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::InvalidSyncHeader(sh) => {
                write!(f, "invalid sync header {} (49.2.4.3)", sh.0)
            }
            Self::UnknownBlockType(t) => {
                write!(f, "unknown block type 0x{t:02x} (Figure 49-7)")
            }
            Self::InvalidControlCode { lane, code } => {
                write!(
                    f,
                    "lane {lane}: invalid control code 0x{code:02x} (Table 49-1)"
                )
            }
            Self::InvalidOCode { lane, code } => {
                write!(f, "lane {lane}: invalid O code 0x{code:x} (Table 49-1)")
            }
            Self::ErrorCode { lane } => {
                write!(
                    f,
                    "lane {lane}: /E/ in a control block (R_TYPE E, 49.2.13.2.3)"
                )
            }
            Self::LowPowerIdleCode { lane } => {
                write!(
                    f,
                    "lane {lane}: /LI/ in a control block, without EEE (R_TYPE E, 49.2.13.2.3)"
                )
            }
        }
    }
}

impl core::error::Error for DecodeBlockError {}

/// What the stateless encoder made of one XGMII transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Encoded {
    /// `T_TYPE` of the transfer.
    pub class: BlockClass,
    /// The block: `ENCODE(tx_raw)` for a transfer of class C, S, T or D. For class E it is the
    /// block-by-block (stateless) encoding: the matching format with `/E/` in every lane whose
    /// control character has no code, or `EBLOCK_T` when no format matches.
    pub block: Block,
    /// Why the class is E.
    pub error: Option<EncodeWordError>,
}

/// What the stateless decoder made of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decoded {
    /// `R_TYPE` of the block.
    pub class: BlockClass,
    /// The transfer: `DECODE(rx_coded)` for a block of class C, S, T or D. For class E it is the
    /// block-by-block (stateless) decoding: `/E/` in every lane whose code is invalid, eight
    /// `/E/` for an invalid header or block type.
    pub word: XgmiiWord,
    /// Why the class is E.
    pub error: Option<DecodeBlockError>,
}

const START: u64 = ControlChar::START.0 as u64;
const TERMINATE: u64 = ControlChar::TERMINATE.0 as u64;

/// The 7-bit code field for lane `lane` of a transfer, or `/E/` with an error.
#[inline]
fn code_of(word: XgmiiWord, lane: usize, error: &mut Option<EncodeWordError>) -> u64 {
    let c = ControlChar(word.octet(lane));
    let code = match ControlCode::from_char(c) {
        Some(code) => code.0,
        None => {
            error.get_or_insert(EncodeWordError::InvalidControlCharacter {
                lane: lane as u8,
                octet: c.0,
            });
            ControlCode::ERROR.0
        }
    };
    (code as u64) << (8 + 7 * lane)
}

/// Codes for lanes `from..8`.
#[inline]
fn codes_from(word: XgmiiWord, from: usize, error: &mut Option<EncodeWordError>) -> u64 {
    let mut payload = 0;
    for lane in from..8 {
        payload |= code_of(word, lane, error);
    }
    payload
}

/// Codes for lanes `0..4`.
#[inline]
fn codes_low(word: XgmiiWord, error: &mut Option<EncodeWordError>) -> u64 {
    let mut payload = 0;
    for lane in 0..4 {
        payload |= code_of(word, lane, error);
    }
    payload
}

/// Data octets of lanes 1..3 and 5..7, in place.
const DATA_1_3_5_7: u64 = 0xffff_ff00_ffff_ff00;

/// Encodes one XGMII transfer into one block without state: `T_TYPE(tx_raw)` and
/// `ENCODE(tx_raw)`.
///
/// Spec: IEEE 802.3 §49.2.4, Figure 49-7; §49.2.13.2.3 (T_TYPE, ENCODE).
#[must_use]
#[inline]
pub fn encode_word(word: XgmiiWord) -> Encoded {
    let mut error = None;
    let data = word.data;
    let lane = |i: usize| ControlChar(word.octet(i));
    let (class, block) = match word.ctrl {
        0x00 => (BlockClass::Data, Block::data(data)),
        0xff if word == XgmiiWord::IDLE => (BlockClass::Control, Block::IDLE),
        0xff if lane(0) == ControlChar::TERMINATE => (
            BlockClass::Terminate,
            Block::control(BlockType::Terminate0 as u64 | codes_from(word, 1, &mut error)),
        ),
        0xff => {
            let payload = BlockType::Control as u64 | codes_from(word, 0, &mut error);
            // T_TYPE C: eight valid control characters, none of them /E/ or /LI/ (no EEE).
            if error.is_none() {
                if let Some(i) = (0..8).find(|&i| lane(i) == ControlChar::ERROR) {
                    error = Some(EncodeWordError::ErrorCharacter { lane: i as u8 });
                } else if let Some(i) = (0..8).find(|&i| lane(i) == ControlChar::LPI) {
                    error = Some(EncodeWordError::LowPowerIdle { lane: i as u8 });
                }
            }
            (BlockClass::Control, Block::control(payload))
        }
        0x01 if data as u8 as u64 == START => (
            BlockClass::Start,
            Block::control((data & !0xff) | BlockType::Start as u64),
        ),
        0xf1 if lane(0).is_ordered_set() => {
            let o = o_code_of(lane(0));
            (
                BlockClass::Control,
                Block::control(
                    BlockType::OrderedControl as u64
                        | (data & 0xffff_ff00)
                        | o << 32
                        | codes_from(word, 4, &mut error),
                ),
            )
        }
        0x1f if lane(4) == ControlChar::START => (
            BlockClass::Start,
            Block::control(
                BlockType::ControlStart as u64
                    | codes_low(word, &mut error)
                    | (data & 0xffff_ff00_0000_0000),
            ),
        ),
        0x1f if lane(4).is_ordered_set() => (
            BlockClass::Control,
            Block::control(
                BlockType::ControlOrdered as u64
                    | codes_low(word, &mut error)
                    | o_code_of(lane(4)) << 36
                    | (data & 0xffff_ff00_0000_0000),
            ),
        ),
        0x11 if lane(0).is_ordered_set() && lane(4) == ControlChar::START => (
            BlockClass::Start,
            Block::control(
                BlockType::OrderedStart as u64 | (data & DATA_1_3_5_7) | o_code_of(lane(0)) << 32,
            ),
        ),
        0x11 if lane(0).is_ordered_set() && lane(4).is_ordered_set() => (
            BlockClass::Control,
            Block::control(
                BlockType::OrderedOrdered as u64
                    | (data & DATA_1_3_5_7)
                    | o_code_of(lane(0)) << 32
                    | o_code_of(lane(4)) << 36,
            ),
        ),
        ctrl => {
            // Terminate in lane k: lanes 0..k data, lanes k..8 control, lane k = /T/.
            let k = ctrl.trailing_zeros() as usize;
            match BlockType::terminate(k) {
                Some(t) if ctrl == 0xff << k && (data >> (8 * k)) as u8 as u64 == TERMINATE => {
                    let data_mask = (1u64 << (8 * k)) - 1;
                    (
                        BlockClass::Terminate,
                        Block::control(
                            t as u64
                                | (data & data_mask) << 8
                                | codes_from(word, k + 1, &mut error),
                        ),
                    )
                }
                _ => {
                    error = Some(EncodeWordError::NoBlockFormat { ctrl });
                    (BlockClass::Error, Block::EBLOCK_T)
                }
            }
        }
    };
    let class = if error.is_some() {
        BlockClass::Error
    } else {
        class
    };
    Encoded {
        class,
        block,
        error,
    }
}

/// Characters for lanes `from..8` (the control lanes after a `/T/`): idles without lookups
/// when their codes are all zero, as they nearly always are.
#[inline]
fn trailing_chars(payload: u64, from: usize, error: &mut Option<DecodeBlockError>) -> u64 {
    let codes = payload.checked_shr(8 + 7 * from as u32).unwrap_or(0);
    if codes == 0 {
        XgmiiWord::IDLE.data & u64::MAX.checked_shl(8 * from as u32).unwrap_or(0)
    } else {
        chars(payload, from, 8, error)
    }
}

/// The lane of the `/T/` for each block type byte (8 for a byte that is no terminate type):
/// [`BlockType::terminate_lane`] in one lookup. (Built at compile time: an index out of range
/// would fail the build, not panic.)
#[allow(clippy::indexing_slicing)]
const TERMINATE_LANE: [u8; 256] = {
    let types = [
        BlockType::Terminate0,
        BlockType::Terminate1,
        BlockType::Terminate2,
        BlockType::Terminate3,
        BlockType::Terminate4,
        BlockType::Terminate5,
        BlockType::Terminate6,
        BlockType::Terminate7,
    ];
    let mut t = [8u8; 256];
    let mut k = 0;
    while k < types.len() {
        t[types[k] as usize] = k as u8;
        k += 1;
    }
    t
};

/// The lane of the `/T/` of a terminate block whose lanes after it all carry the idle code
/// (its data lanes are lanes 0 to it, in bits 8.. of the payload). `None` for any other block.
///
/// Spec: IEEE 802.3 §49.2.4, Figure 49-7.
#[must_use]
#[inline(always)]
pub(crate) fn idle_terminate_lane(block: Block) -> Option<u32> {
    if block.sync != SyncHeader::CONTROL {
        return None;
    }
    let p = block.payload;
    let k = u32::from(
        TERMINATE_LANE
            .get(usize::from(p as u8))
            .copied()
            .unwrap_or(8),
    );
    if k > 7 || p.checked_shr(8 + 7 * (k + 1)).unwrap_or(0) != 0 {
        return None;
    }
    Some(k)
}

/// The transfer of a terminate block whose lanes after the `/T/` all carry the idle code (as
/// nearly every terminate does): [`decode_block`]'s word for it, without the per-lane lookups.
/// `None` for any other block.
///
/// Spec: IEEE 802.3 §49.2.4, Figure 49-7; §49.2.13.2.3 (DECODE).
#[must_use]
#[inline]
pub(crate) fn decode_idle_terminate(block: Block) -> Option<XgmiiWord> {
    let k = idle_terminate_lane(block)?;
    let p = block.payload;
    let data = (p >> 8) & !u64::MAX.checked_shl(8 * k).unwrap_or(0);
    let idles = XgmiiWord::IDLE.data & u64::MAX.checked_shl(8 * (k + 1)).unwrap_or(0);
    Some(XgmiiWord::new(
        data | TERMINATE << (8 * k) | idles,
        0xffu8 << k,
    ))
}

/// The transfer of a start block with `/S/` in lane 0, or in lane 4 after four idles (the two
/// starts a MAC with the deficit idle count sends): [`decode_block`]'s word for it, without the
/// per-lane lookups. `None` for any other block.
///
/// Spec: IEEE 802.3 §49.2.4, Figure 49-7; §49.2.13.2.3 (DECODE).
#[must_use]
#[inline]
pub(crate) fn decode_idle_start(block: Block) -> Option<XgmiiWord> {
    if block.sync != SyncHeader::CONTROL {
        return None;
    }
    let p = block.payload;
    match p as u8 {
        0x78 => Some(XgmiiWord::new(p & !0xff | START, 0x01)),
        // Lanes 0..3: four 7-bit idle codes (zero) in bits 8..35.
        0x33 if (p >> 8) & 0x0fff_ffff == 0 => Some(XgmiiWord::new(
            XgmiiWord::IDLE.data & 0xffff_ffff | START << 32 | (p & 0xffff_ff00_0000_0000),
            0x1f,
        )),
        _ => None,
    }
}

/// The class of a block, `R_TYPE(rx_coded)`: [`decode_block`]'s, quicker for the blocks that
/// follow a terminate nearly always (idles, a start in lane 0).
///
/// Spec: IEEE 802.3 §49.2.13.2.3 (R_TYPE).
#[must_use]
#[inline]
pub fn block_class(block: Block) -> BlockClass {
    if block.sync == SyncHeader::DATA {
        BlockClass::Data
    } else if block == Block::IDLE {
        BlockClass::Control
    } else if decode_idle_start(block).is_some() {
        BlockClass::Start
    } else {
        decode_block(block).class
    }
}

/// The O code of `/Q/` (0x0) or `/Fsig/` (0xF); callers have checked `is_ordered_set`.
#[inline]
fn o_code_of(c: ControlChar) -> u64 {
    match OCode::from_char(c) {
        Some(o) => o.0 as u64,
        None => OCode::SEQUENCE.0 as u64,
    }
}

/// The control character for the code of lane `lane`, or `/E/` with an error.
#[inline]
fn char_of(payload: u64, lane: usize, error: &mut Option<DecodeBlockError>) -> u64 {
    let code = ((payload >> (8 + 7 * lane)) & 0x7f) as u8;
    let c = match ControlCode(code).to_char() {
        Some(c) => c,
        None => {
            error.get_or_insert(DecodeBlockError::InvalidControlCode {
                lane: lane as u8,
                code,
            });
            ControlChar::ERROR
        }
    };
    (c.0 as u64) << (8 * lane)
}

/// Characters for lanes `from..to`.
#[inline]
fn chars(payload: u64, from: usize, to: usize, error: &mut Option<DecodeBlockError>) -> u64 {
    let mut data = 0;
    for lane in from..to {
        data |= char_of(payload, lane, error);
    }
    data
}

/// The ordered-set character for the O code at `shift`, or `/E/` with an error.
#[inline]
fn o_char(payload: u64, shift: u32, lane: usize, error: &mut Option<DecodeBlockError>) -> u64 {
    let code = ((payload >> shift) & 0xf) as u8;
    let c = match OCode(code).to_char() {
        Some(c) => c,
        None => {
            error.get_or_insert(DecodeBlockError::InvalidOCode {
                lane: lane as u8,
                code,
            });
            ControlChar::ERROR
        }
    };
    (c.0 as u64) << (8 * lane)
}

/// Decodes one block into one XGMII transfer without state: `R_TYPE(rx_coded)` and
/// `DECODE(rx_coded)`. Pad bits (the zeros of Figure 49-7) are not checked.
///
/// Spec: IEEE 802.3 §49.2.4, Figure 49-7; §49.2.13.2.3 (R_TYPE, DECODE).
// reading: pad bits are ignored on receive, as common RTL does (SPEC-NOTES: U).
#[must_use]
#[inline]
pub fn decode_block(block: Block) -> Decoded {
    let p = block.payload;
    if block == Block::IDLE {
        // The most common control block, without the per-lane lookups.
        return Decoded {
            class: BlockClass::Control,
            word: XgmiiWord::IDLE,
            error: None,
        };
    }
    let mut error = None;
    let (class, word) = match block.sync {
        SyncHeader::DATA => (BlockClass::Data, XgmiiWord::from_data(p)),
        SyncHeader::CONTROL => match BlockType::from_u8(p as u8) {
            Some(BlockType::Control) => {
                let word = XgmiiWord::new(chars(p, 0, 8, &mut error), 0xff);
                // R_TYPE C: eight valid codes, none of them /E/ or /LI/ (no EEE).
                if error.is_none() {
                    if let Some(i) = (0..8).find(|&i| word.octet(i) == ControlChar::ERROR.0) {
                        error = Some(DecodeBlockError::ErrorCode { lane: i as u8 });
                    } else if let Some(i) = (0..8).find(|&i| word.octet(i) == ControlChar::LPI.0) {
                        error = Some(DecodeBlockError::LowPowerIdleCode { lane: i as u8 });
                    }
                }
                (BlockClass::Control, word)
            }
            Some(BlockType::ControlOrdered) => (
                BlockClass::Control,
                XgmiiWord::new(
                    chars(p, 0, 4, &mut error)
                        | o_char(p, 36, 4, &mut error)
                        | (p & 0xffff_ff00_0000_0000),
                    0x1f,
                ),
            ),
            Some(BlockType::ControlStart) => (
                BlockClass::Start,
                XgmiiWord::new(
                    chars(p, 0, 4, &mut error) | START << 32 | (p & 0xffff_ff00_0000_0000),
                    0x1f,
                ),
            ),
            Some(BlockType::OrderedStart) => (
                BlockClass::Start,
                XgmiiWord::new(
                    o_char(p, 32, 0, &mut error) | START << 32 | (p & DATA_1_3_5_7),
                    0x11,
                ),
            ),
            Some(BlockType::OrderedOrdered) => (
                BlockClass::Control,
                XgmiiWord::new(
                    o_char(p, 32, 0, &mut error)
                        | o_char(p, 36, 4, &mut error)
                        | (p & DATA_1_3_5_7),
                    0x11,
                ),
            ),
            Some(BlockType::Start) => {
                (BlockClass::Start, XgmiiWord::new((p & !0xff) | START, 0x01))
            }
            Some(BlockType::OrderedControl) => (
                BlockClass::Control,
                XgmiiWord::new(
                    o_char(p, 32, 0, &mut error) | (p & 0xffff_ff00) | chars(p, 4, 8, &mut error),
                    0xf1,
                ),
            ),
            Some(t) => {
                let k: usize = t.terminate_lane().unwrap_or_default();
                let data_mask = (1u64 << (8 * k)) - 1;
                (
                    BlockClass::Terminate,
                    XgmiiWord::new(
                        (p >> 8) & data_mask
                            | TERMINATE << (8 * k)
                            | trailing_chars(p, k + 1, &mut error),
                        0xffu8 << k,
                    ),
                )
            }
            None => {
                error = Some(DecodeBlockError::UnknownBlockType(p as u8));
                (BlockClass::Error, XgmiiWord::ERROR)
            }
        },
        sh => {
            error = Some(DecodeBlockError::InvalidSyncHeader(sh));
            (BlockClass::Error, XgmiiWord::ERROR)
        }
    };
    let class = if error.is_some() {
        BlockClass::Error
    } else {
        class
    };
    Decoded { class, word, error }
}

#[cfg(test)]
mod tests;
