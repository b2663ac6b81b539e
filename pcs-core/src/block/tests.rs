//! Block format tests. Expected payloads are packed by hand from the field ranges of
//! Figure 49-7 (as listed in SPEC-NOTES), independently of the encoder's shifts.
use super::*;
use crate::xgmii::{ControlChar as C, Lane};
use proptest::prelude::*;

/// Packs `(value, lsb)` fields into a payload, as the figure lists them.
fn pack(fields: &[(u64, u32)]) -> u64 {
    fields.iter().fold(0, |p, &(v, lsb)| p | (v << lsb))
}

fn word(lanes: [Lane; 8]) -> XgmiiWord {
    XgmiiWord::from_lanes(lanes)
}

use Lane::{Control as K, Data as D};

#[test]
fn eblock_t_is_the_known_value() {
    assert_eq!(Block::EBLOCK_T.to_string(), "1 3c78f1e3c78f1e1e");
}

#[test]
fn idle_block_is_type_1e_with_zero_codes() {
    assert_eq!(Block::IDLE, Block::control(0x1e));
    assert_eq!(encode_word(XgmiiWord::IDLE).block, Block::IDLE);
}

#[test]
fn control_codes_fill_lanes_0_to_7_valid_or_not() {
    let c = |v| ControlCode::try_new(v).unwrap();
    assert_eq!(Block::from_control_codes([c(0x00); 8]), Block::IDLE);
    assert_eq!(Block::from_control_codes([c(0x1e); 8]), Block::EBLOCK_T);
    let reserved = word([0x1c, 0x3c, 0x7c, 0xbc, 0xdc, 0xf7, 0x06, 0x07].map(|ch| K(C(ch))));
    let codes = [0x2d, 0x33, 0x4b, 0x55, 0x66, 0x78, 0x06, 0x00].map(c);
    assert_eq!(
        Block::from_control_codes(codes),
        encode_word(reserved).block
    );
    // 0x01 is no code of Table 49-1: it is held, and the block decodes as E
    let invalid = Block::from_control_codes([c(0x01); 8]);
    assert_eq!(invalid.payload, 0x0204_0810_2040_811e);
    assert_eq!(decode_block(invalid).class, BlockClass::Error);
}

#[test]
fn lblock_t_decodes_to_local_fault_in_lanes_0_and_4() {
    let d = decode_block(Block::LBLOCK_T);
    assert_eq!(d.class, BlockClass::Control);
    assert_eq!(d.word, XgmiiWord::LOCAL_FAULT);
}

#[test]
fn sync_header_integers_are_wire_order_reversed() {
    // IEEE `01` (data): first bit 0, second bit 1 -> integer 0b10.
    assert_eq!(SyncHeader::DATA.to_bits(), 2);
    assert_eq!(SyncHeader::CONTROL.to_bits(), 1);
    assert!(!SyncHeader::from_bits(0).is_valid());
    assert!(!SyncHeader::from_bits(3).is_valid());
}

#[test]
fn exactly_15_block_types_are_valid() {
    let valid: Vec<u8> = (0..=255u8)
        .filter(|&t| BlockType::from_u8(t).is_some())
        .collect();
    assert_eq!(
        valid,
        [
            0x1e, 0x2d, 0x33, 0x4b, 0x55, 0x66, 0x78, 0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1,
            0xff
        ]
    );
    for t in BlockType::ALL {
        assert_eq!(BlockType::from_u8(t as u8), Some(t));
    }
}

#[test]
fn table_49_1_has_nine_valid_codes_and_two_o_codes() {
    let codes: Vec<u8> = (0..0x80u8)
        .filter(|&c| ControlCode::try_new(c).and_then(|c| c.to_char()).is_some())
        .collect();
    assert_eq!(
        codes,
        [0x00, 0x06, 0x1e, 0x2d, 0x33, 0x4b, 0x55, 0x66, 0x78]
    );
    let chars: Vec<u8> = codes
        .iter()
        .map(|&c| ControlCode::try_new(c).unwrap().to_char().unwrap().0)
        .collect();
    assert_eq!(
        chars,
        [0x07, 0x06, 0xfe, 0x1c, 0x3c, 0x7c, 0xbc, 0xdc, 0xf7]
    );
    let o: Vec<u8> = (0..16u8)
        .filter(|&o| OCode::try_new(o).unwrap().to_char().is_some())
        .collect();
    assert_eq!(o, [0x0, 0xf]);
}

/// One hand-derived case per block format: the XGMII transfer and the payload packed from
/// the figure's field ranges.
fn hand_cases() -> Vec<(XgmiiWord, BlockClass, Block)> {
    let (i, e, r0, r5) = (C::IDLE, C::ERROR, C(0x1c), C(0xf7));
    let (q, f, s, t) = (C::SEQUENCE, C::SIGNAL, C::START, C::TERMINATE);
    vec![
        // 0x1E: C0..C7 at 8+7k. /I/ 0x00, reserved 0x1c -> 0x2d, 0xf7 -> 0x78.
        (
            word([K(i), K(r0), K(i), K(i), K(i), K(i), K(i), K(r5)]),
            BlockClass::Control,
            Block::control(pack(&[(0x1e, 0), (0x2d, 15), (0x78, 57)])),
        ),
        // 0x2D: C0..C3 35:8, O4 39:36, D5..D7 63:40.
        (
            word([K(i), K(i), K(i), K(i), K(q), D(0xa5), D(0x5a), D(0x01)]),
            BlockClass::Control,
            Block::control(pack(&[(0x2d, 0), (0x0, 36), (0x01_5a_a5, 40)])),
        ),
        // 0x33: C0..C3 35:8, 39:36 = 0, D5..D7 63:40. /E/ before /S/ is allowed (S type).
        (
            word([K(e), K(i), K(i), K(i), K(s), D(0x55), D(0x55), D(0x55)]),
            BlockClass::Start,
            Block::control(pack(&[(0x33, 0), (0x1e, 8), (0x55_55_55, 40)])),
        ),
        // 0x66: D1..D3 31:8, O0 35:32, 39:36 = 0, D5..D7 63:40.
        (
            word([K(f), D(1), D(2), D(3), K(s), D(0x55), D(0x55), D(0x55)]),
            BlockClass::Start,
            Block::control(pack(&[
                (0x66, 0),
                (0x03_02_01, 8),
                (0xf, 32),
                (0x55_55_55, 40),
            ])),
        ),
        // 0x55: D1..D3 31:8, O0 35:32, O4 39:36, D5..D7 63:40.
        (
            word([K(q), D(0), D(0), D(2), K(f), D(7), D(8), D(9)]),
            BlockClass::Control,
            Block::control(pack(&[
                (0x55, 0),
                (0x02_00_00, 8),
                (0x0, 32),
                (0xf, 36),
                (0x09_08_07, 40),
            ])),
        ),
        // 0x78: D1..D7 63:8.
        (
            word([
                K(s),
                D(0x55),
                D(0x55),
                D(0x55),
                D(0x55),
                D(0x55),
                D(0x55),
                D(0xd5),
            ]),
            BlockClass::Start,
            Block::control(pack(&[(0x78, 0), (0xd5_55_55_55_55_55_55, 8)])),
        ),
        // 0x4B: D1..D3 31:8, O0 35:32, C4..C7 63:36.
        (
            word([K(q), D(0), D(0), D(1), K(i), K(i), K(e), K(i)]),
            BlockClass::Control,
            Block::control(pack(&[(0x4b, 0), (0x01_00_00, 8), (0x1e, 50)])),
        ),
        // 0x87: 14:8 = 0, C1..C7 63:15.
        (
            word([K(t), K(i), K(i), K(i), K(i), K(i), K(i), K(r0)]),
            BlockClass::Terminate,
            Block::control(pack(&[(0x87, 0), (0x2d, 57)])),
        ),
        // 0x99: D0 15:8, 21:16 = 0, C2..C7 63:22.
        (
            word([D(0xde), K(t), K(i), K(i), K(i), K(i), K(i), K(e)]),
            BlockClass::Terminate,
            Block::control(pack(&[(0x99, 0), (0xde, 8), (0x1e, 57)])),
        ),
        // 0xAA: D0..D1 23:8, 28:24 = 0, C3..C7 63:29.
        (
            word([D(1), D(2), K(t), K(r0), K(i), K(i), K(i), K(i)]),
            BlockClass::Terminate,
            Block::control(pack(&[(0xaa, 0), (0x02_01, 8), (0x2d, 29)])),
        ),
        // 0xB4: D0..D2 31:8, 35:32 = 0, C4..C7 63:36.
        (
            word([D(1), D(2), D(3), K(t), K(i), K(i), K(i), K(i)]),
            BlockClass::Terminate,
            Block::control(pack(&[(0xb4, 0), (0x03_02_01, 8)])),
        ),
        // 0xCC: D0..D3 39:8, 42:40 = 0, C5..C7 63:43.
        (
            word([D(1), D(2), D(3), D(4), K(t), K(r5), K(i), K(i)]),
            BlockClass::Terminate,
            Block::control(pack(&[(0xcc, 0), (0x04_03_02_01, 8), (0x78, 43)])),
        ),
        // 0xD2: D0..D4 47:8, 49:48 = 0, C6..C7 63:50.
        (
            word([D(1), D(2), D(3), D(4), D(5), K(t), K(i), K(i)]),
            BlockClass::Terminate,
            Block::control(pack(&[(0xd2, 0), (0x05_04_03_02_01, 8)])),
        ),
        // 0xE1: D0..D5 55:8, 56 = 0, C7 63:57.
        (
            word([D(1), D(2), D(3), D(4), D(5), D(6), K(t), K(e)]),
            BlockClass::Terminate,
            Block::control(pack(&[(0xe1, 0), (0x06_05_04_03_02_01, 8), (0x1e, 57)])),
        ),
        // 0xFF: D0..D6 63:8.
        (
            word([D(1), D(2), D(3), D(4), D(5), D(6), D(7), K(t)]),
            BlockClass::Terminate,
            Block::control(pack(&[(0xff, 0), (0x07_06_05_04_03_02_01, 8)])),
        ),
        // Data.
        (
            XgmiiWord::from_data(0x0123_4567_89ab_cdef),
            BlockClass::Data,
            Block::data(0x0123_4567_89ab_cdef),
        ),
    ]
}

#[test]
fn every_block_format_matches_its_hand_derivation() {
    let cases = hand_cases();
    assert_eq!(cases.len(), 16);
    for (w, class, block) in cases {
        let enc = encode_word(w);
        assert_eq!(
            (enc.class, enc.block, enc.error),
            (class, block, None),
            "encode {w}"
        );
        let dec = decode_block(block);
        assert_eq!(
            (dec.class, dec.word, dec.error),
            (class, w, None),
            "decode {block}"
        );
    }
}

#[test]
fn a_stray_character_makes_the_word_e_and_stateless_encode_puts_e_in_its_lane() {
    // 0x00 with its control bit set (lane 1) has no code.
    let w = XgmiiWord::new(0x0707_0707_0707_0007, 0xff);
    let enc = encode_word(w);
    assert_eq!(enc.class, BlockClass::Error);
    assert_eq!(
        enc.error,
        Some(EncodeWordError::InvalidControlCharacter { lane: 1, octet: 0 })
    );
    assert_eq!(enc.block, Block::control(pack(&[(0x1e, 0), (0x1e, 15)])));
}

#[test]
fn error_character_among_eight_controls_is_class_e_both_ways() {
    let w = XgmiiWord::IDLE.with_lane(3, K(C::ERROR));
    let enc = encode_word(w);
    assert_eq!(enc.class, BlockClass::Error);
    assert_eq!(enc.error, Some(EncodeWordError::ErrorCharacter { lane: 3 }));
    let dec = decode_block(enc.block);
    assert_eq!(dec.class, BlockClass::Error);
    assert_eq!(dec.error, Some(DecodeBlockError::ErrorCode { lane: 3 }));
    assert_eq!(dec.word, w);
}

/// Without EEE there is no LI type: `/LI/` among eight control characters (alone or mixed
/// with `/I/`) is T_TYPE and R_TYPE E (SPEC-NOTES: C excludes `/LI/`; a mix of `/I/` and
/// `/LI/` is E in Clause 49). The block still carries the codes as sent (0x06 in lane 2).
#[test]
fn low_power_idle_among_eight_controls_is_class_e_without_eee() {
    for w in [
        XgmiiWord::IDLE.with_lane(2, K(C::LPI)),
        XgmiiWord::splat(C::LPI),
    ] {
        let enc = encode_word(w);
        assert_eq!(enc.class, BlockClass::Error, "{w:?}");
        let lane = if w == XgmiiWord::splat(C::LPI) { 0 } else { 2 };
        assert_eq!(enc.error, Some(EncodeWordError::LowPowerIdle { lane }));
        let dec = decode_block(enc.block);
        assert_eq!(dec.class, BlockClass::Error);
        assert_eq!(dec.error, Some(DecodeBlockError::LowPowerIdleCode { lane }));
        assert_eq!(block_class(enc.block), BlockClass::Error);
        assert_eq!(dec.word, w);
    }
    // Hand-packed: type 0x1E, lane 2 code 0x06 (bits 22..28): payload 0x0000_0000_0180_001e.
    let enc = encode_word(XgmiiWord::IDLE.with_lane(2, K(C::LPI)));
    assert_eq!(enc.block, Block::control(0x0000_0000_0180_001e));
    // Through the encoder's state machine: TX_C --E--> TX_E sends EBLOCK_T.
    let mut e = crate::encode::Encoder::new(Default::default());
    e.step(XgmiiWord::IDLE);
    assert_eq!(
        e.step(XgmiiWord::IDLE.with_lane(2, K(C::LPI))).block,
        Block::EBLOCK_T
    );
}

#[test]
fn words_that_fit_no_format_are_e_and_encode_to_eblock_t() {
    let cases = [
        // /S/ in lane 2.
        XgmiiWord::new(0x0000_0000_00fb_0000, 0x04),
        // /T/ followed by data.
        XgmiiWord::new(0x0000_0000_0000_00fd, 0x01),
        // /Q/ in lane 0 followed by a control character in lane 1.
        XgmiiWord::new(0x0707_0707_0707_079c, 0xf3),
        // /S/ in lane 4 after data.
        XgmiiWord::new(0x0000_00fb_0000_0000, 0x10),
        // control in lane 7 only.
        XgmiiWord::new(0x0700_0000_0000_0000, 0x80),
    ];
    for w in cases {
        let enc = encode_word(w);
        assert_eq!(enc.class, BlockClass::Error, "{w}");
        assert_eq!(enc.block, Block::EBLOCK_T, "{w}");
        assert_eq!(
            enc.error,
            Some(EncodeWordError::NoBlockFormat { ctrl: w.ctrl })
        );
    }
}

#[test]
fn all_241_unlisted_types_and_both_invalid_headers_are_class_e() {
    let mut unknown = 0;
    for t in 0..=255u8 {
        let d = decode_block(Block::control(t as u64));
        if BlockType::from_u8(t).is_none() {
            unknown += 1;
            assert_eq!(d.class, BlockClass::Error);
            assert_eq!(d.error, Some(DecodeBlockError::UnknownBlockType(t)));
            assert_eq!(d.word, XgmiiWord::ERROR);
        }
    }
    assert_eq!(unknown, 241);
    for sh in [0, 3] {
        let d = decode_block(Block {
            sync: SyncHeader::from_bits(sh),
            payload: 0x1e,
        });
        assert_eq!(
            d.error,
            Some(DecodeBlockError::InvalidSyncHeader(SyncHeader::from_bits(
                sh
            )))
        );
    }
}

#[test]
fn invalid_o_code_is_class_e() {
    let d = decode_block(Block::control(pack(&[(0x4b, 0), (0x3, 32)])));
    assert_eq!(d.class, BlockClass::Error);
    assert_eq!(
        d.error,
        Some(DecodeBlockError::InvalidOCode { lane: 0, code: 3 })
    );
}

/// Pad bits (the zeros of Figure 49-7) per block type.
fn pad_mask(t: u8) -> u64 {
    let bits = |lo: u32, hi: u32| ((1u64 << (hi - lo + 1)) - 1) << lo;
    match t {
        0x33 | 0x66 => bits(36, 39),
        0x87 => bits(8, 14),
        0x99 => bits(16, 21),
        0xaa => bits(24, 28),
        0xb4 => bits(32, 35),
        0xcc => bits(40, 42),
        0xd2 => bits(48, 49),
        0xe1 => bits(56, 56),
        _ => 0,
    }
}

#[test]
fn pad_mask_equals_the_hand_table() {
    for t in BlockType::ALL {
        assert_eq!(t.pad_mask(), pad_mask(t as u8), "{t:?}");
    }
}

fn valid_code() -> impl Strategy<Value = u8> {
    prop::sample::select(vec![0x00u8, 0x06, 0x1e, 0x2d, 0x33, 0x4b, 0x55, 0x66, 0x78])
}

/// A block of any listed type with valid codes and O codes, random data and random pads.
fn valid_block() -> impl Strategy<Value = Block> {
    (
        prop::sample::select(BlockType::ALL.to_vec()),
        any::<u64>(),
        prop::array::uniform8(valid_code()),
        prop::sample::select(vec![0u64, 0xf]),
        prop::sample::select(vec![0u64, 0xf]),
        any::<bool>(),
    )
        .prop_map(|(t, data, codes, o0, o4, is_data)| {
            if is_data {
                return Block::data(data);
            }
            let t = t as u8;
            let code_bits = |lanes: core::ops::Range<usize>| {
                lanes.fold(0u64, |p, j| p | (codes[j] as u64) << (8 + 7 * j))
            };
            let mut p = (data & !0xff & !0xffff_ffff_ffff_ff00) | t as u64;
            p |= match t {
                0x1e => code_bits(0..8),
                0x2d => code_bits(0..4) | o4 << 36 | (data & 0xffff_ff00_0000_0000),
                0x33 => code_bits(0..4) | (data & 0xffff_ff00_0000_0000),
                0x66 => (data & 0xffff_ff00_ffff_ff00) | o0 << 32,
                0x55 => (data & 0xffff_ff00_ffff_ff00) | o0 << 32 | o4 << 36,
                0x78 => data & !0xff,
                0x4b => (data & 0xffff_ff00) | o0 << 32 | code_bits(4..8),
                _ => {
                    let k = BlockType::from_u8(t).unwrap().terminate_lane().unwrap();
                    let d = if k == 0 {
                        0
                    } else {
                        data & ((1 << (8 * k)) - 1)
                    };
                    d << 8 | code_bits(k + 1..8)
                }
            };
            Block::control(p | (data.rotate_left(17) & pad_mask(t)))
        })
}

proptest! {
    #[test]
    fn encode_inverts_decode_for_every_valid_block(b in valid_block()) {
        let dec = decode_block(b);
        // Every valid block decodes; 0x1E with /E/ or /LI/ (no EEE) is the one valid format
        // of class E.
        let has_error_code = b.sync == SyncHeader::CONTROL && b.payload as u8 == 0x1e
            && (0..8).any(|j| matches!((b.payload >> (8 + 7 * j)) & 0x7f, 0x1e | 0x06));
        prop_assert_eq!(dec.class == BlockClass::Error, has_error_code);
        let enc = encode_word(dec.word);
        prop_assert_eq!(enc.class, dec.class);
        let pads = if b.sync == SyncHeader::CONTROL { pad_mask(b.payload as u8) } else { 0 };
        prop_assert_eq!(enc.block, Block { sync: b.sync, payload: b.payload & !pads });
    }

    #[test]
    fn decode_inverts_encode_for_every_word_of_class_c_s_t_d(data in any::<u64>(), ctrl in any::<u8>()) {
        let w = XgmiiWord::new(data, ctrl);
        let enc = encode_word(w);
        if enc.class != BlockClass::Error {
            let dec = decode_block(enc.block);
            prop_assert_eq!(dec.class, enc.class);
            prop_assert_eq!(dec.word, w);
        }
    }

    #[test]
    fn decode_never_fails_on_any_block(sh in 0u8..4, p in any::<u64>()) {
        let d = decode_block(Block { sync: SyncHeader::from_bits(sh), payload: p });
        prop_assert_eq!(d.class == BlockClass::Error, d.error.is_some());
    }

    #[test]
    fn quick_decoders_agree_with_decode_block(
        sh in 0u8..4,
        p in any::<u64>(),
        lane in 0u32..8,
        idle_codes in any::<bool>(),
        kind in 0u8..5,
    ) {
        // Terminates in every lane with idle codes (and with random ones), idles, /S/ in
        // lane 0 and random blocks.
        let types = [0x87u64, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff];
        let b = match kind {
            0 => {
                let mut payload = p & !0xff | types[lane as usize];
                if idle_codes {
                    payload &= !u64::MAX.checked_shl(8 + 7 * (lane + 1)).unwrap_or(0);
                }
                Block { sync: SyncHeader::CONTROL, payload }
            }
            1 => Block::IDLE,
            2 => Block { sync: SyncHeader::CONTROL, payload: p & !0xff | 0x78 },
            3 if idle_codes => Block { sync: SyncHeader::CONTROL, payload: p & !0x0f_ffff_ffff | 0x33 },
            _ => Block { sync: SyncHeader::from_bits(sh), payload: p },
        };
        let full = decode_block(b);
        prop_assert_eq!(block_class(b), full.class);
        match decode_idle_terminate(b) {
            Some(word) => {
                prop_assert_eq!(full.class, BlockClass::Terminate);
                prop_assert_eq!(word, full.word);
            }
            // A terminate whose lanes after the /T/ carry idle codes is never missed.
            None => prop_assert!(!(kind == 0 && idle_codes)),
        }
        match decode_idle_start(b) {
            Some(word) => {
                prop_assert_eq!(full.class, BlockClass::Start);
                prop_assert_eq!(word, full.word);
            }
            None => prop_assert!(!(kind == 2 || kind == 3 && idle_codes)),
        }
    }
}

/// The small accessors, against Figure 49-7 and Table 49-1 as written in SPEC-NOTES.
#[test]
fn accessors_follow_figure_49_7_and_table_49_1() {
    // Terminate types by /T/ lane: 0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff.
    let t = [0x87u8, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff];
    for (lane, &v) in t.iter().enumerate() {
        assert_eq!(
            BlockType::terminate(lane),
            BlockType::from_u8(v),
            "lane {lane}"
        );
        assert!(BlockType::terminate(lane).is_some());
        assert_eq!(
            BlockType::terminate(lane).unwrap().terminate_lane(),
            Some(lane)
        );
    }
    assert_eq!(BlockType::terminate(8), None);
    // 7-bit control codes and 4-bit O codes: the edges of their ranges.
    assert_eq!(
        ControlCode::try_new(0x7f).map(ControlCode::to_u8),
        Some(0x7f)
    );
    assert_eq!(ControlCode::try_new(0x80), None);
    assert_eq!(ControlCode::ERROR.to_u8(), 0x1e);
    assert_eq!(
        ControlCode::from_char(C::ERROR).map(ControlCode::to_u8),
        Some(0x1e)
    );
    assert_eq!(OCode::try_new(0xf).map(OCode::to_u8), Some(0xf));
    assert_eq!(OCode::try_new(0x10), None);
    assert_eq!(OCode::from_char(C::SEQUENCE), Some(OCode::SEQUENCE));
    assert_eq!(OCode::SEQUENCE.to_u8(), 0);
    assert_eq!(OCode::from_char(C(0x5c)).map(OCode::to_u8), Some(0xf));
    assert_eq!(OCode::from_char(C::IDLE), None);
    // The type field is read only from a control block.
    assert_eq!(Block::control(0x78).block_type(), Some(BlockType::Start));
    assert_eq!(Block::data(0x78).block_type(), None);
    assert_eq!(
        Block {
            sync: SyncHeader::from_bits(3),
            payload: 0x78
        }
        .block_type(),
        None
    );
}

#[test]
fn encode_errors_name_the_lane_and_the_rule() {
    let cases = [
        (
            EncodeWordError::NoBlockFormat { ctrl: 0x0f },
            "control mask 0x0f with these characters fits no block format (Figure 49-7)",
        ),
        (
            EncodeWordError::InvalidControlCharacter {
                lane: 3,
                octet: 0x42,
            },
            "lane 3: control character 0x42 has no 7-bit code (Table 49-1)",
        ),
        (
            EncodeWordError::ErrorCharacter { lane: 5 },
            "lane 5: /E/ among eight control characters (T_TYPE E, 49.2.13.2.3)",
        ),
        (
            EncodeWordError::LowPowerIdle { lane: 0 },
            "lane 0: /LI/ among eight control characters, without EEE (T_TYPE E, 49.2.13.2.3)",
        ),
    ];
    for (e, text) in cases {
        assert_eq!(e.to_string(), text);
    }
}

/// Near misses of the ordered-set formats: the mask of an O block (0xf1: lane 0 control,
/// 0x1f: lanes 0..4 control) with a character in the O position that is no ordered set fits
/// no format of Figure 49-7.
#[test]
fn an_o_position_without_an_ordered_set_fits_no_format() {
    let idle = K(C::IDLE);
    let w1 = word([idle, D(1), D(2), D(3), idle, idle, idle, idle]);
    let w2 = word([idle, idle, idle, idle, idle, D(5), D(6), D(7)]);
    for (w, ctrl) in [(w1, 0xf1), (w2, 0x1f)] {
        assert_eq!(w.ctrl, ctrl);
        let e = encode_word(w);
        assert_eq!(
            e.error,
            Some(EncodeWordError::NoBlockFormat { ctrl }),
            "{w:?}"
        );
        assert_eq!(e.block, Block::EBLOCK_T);
    }
    // The same transfers with /Q/ in the O position are O blocks.
    let q = K(C::SEQUENCE);
    let w1 = word([q, D(1), D(2), D(3), idle, idle, idle, idle]);
    let w2 = word([idle, idle, idle, idle, q, D(5), D(6), D(7)]);
    assert_eq!(
        encode_word(w1).block.block_type(),
        Some(BlockType::OrderedControl)
    );
    assert_eq!(
        encode_word(w2).block.block_type(),
        Some(BlockType::ControlOrdered)
    );
}

/// Near misses of the terminate decoder's all-idle shortcut: one code bit set anywhere after
/// the `/T/` means that lane is not `/I/` (another control character, or `/E/` with an
/// error); the other trailing lanes stay `/I/`.
#[test]
fn one_code_bit_after_the_terminate_is_not_an_idle() {
    let t = [0x87u64, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff];
    for (k, &ty) in t.iter().enumerate() {
        for lane in k + 1..8 {
            for bit in 0..7 {
                // Lanes 0..k are data octets 1..=k; codes follow the data (Figure 49-7).
                let data: u64 = (0..k as u64).map(|i| (i + 1) << (8 + 8 * i)).sum();
                let code_at = 8 + 7 * lane + bit;
                let p = ty | data | (1u64 << code_at);
                let d = decode_block(Block::control(p));
                let l = d.word.lane(lane);
                assert!(
                    l != Lane::Control(C::IDLE) || d.error.is_some(),
                    "T{k}, lane {lane}, code bit {bit}: {d:?}"
                );
                for other in (k + 1..8).filter(|&o| o != lane) {
                    assert_eq!(
                        d.word.lane(other),
                        Lane::Control(C::IDLE),
                        "T{k} lane {other}"
                    );
                }
            }
        }
    }
}

/// Near misses of the start decoder's shortcut: a 0x33 block (/S/ in lane 4) whose lanes 0..3
/// carry any code but /I/ is left to decode_block.
#[test]
fn a_lane_4_start_after_other_controls_is_not_the_idle_shortcut() {
    for bit in 8..36 {
        let b = Block::control(0x33 | 1u64 << bit | 0x0123_4500_0000_0000);
        assert_eq!(decode_idle_start(b), None, "code bit {bit}");
        let full = decode_block(b);
        assert_ne!(
            full.word.lane((bit - 8) / 7),
            Lane::Control(C::IDLE),
            "bit {bit}"
        );
    }
    let clean = Block::control(0x33 | 0x0123_4500_0000_0000);
    assert_eq!(decode_idle_start(clean), Some(decode_block(clean).word));
}
