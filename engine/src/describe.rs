//! Human renderings of XGMII transfers and blocks for divergence reports.

use pcs_core::decode_block;
use pcs_core::{Block, BlockType, ControlChar, Lane, XgmiiWord};

/// The name of a control character: `/I/`, `/S/`, … or `/0x1c/` for others.
pub fn char_name(c: ControlChar) -> String {
    match c {
        ControlChar::IDLE => "/I/".into(),
        ControlChar::LPI => "/LI/".into(),
        ControlChar::START => "/S/".into(),
        ControlChar::TERMINATE => "/T/".into(),
        ControlChar::ERROR => "/E/".into(),
        ControlChar::SEQUENCE => "/Q/".into(),
        ControlChar::SIGNAL => "/Fsig/".into(),
        ControlChar(x) => format!("/{x:02x}/"),
    }
}

/// Lanes 0..7 of a transfer: data as two hex digits, control characters by name.
pub fn lanes(w: XgmiiWord) -> String {
    w.lanes()
        .iter()
        .map(|l| match *l {
            Lane::Data(d) => format!("{d:02x}"),
            Lane::Control(c) => char_name(c),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A block as in the `.b66` file, its type and what it decodes to.
pub fn block(b: Block) -> String {
    let d = decode_block(b);
    let kind = if b.sync == pcs_core::SyncHeader::DATA {
        "data".to_string()
    } else {
        match b.block_type() {
            Some(t) => format!("type 0x{:02x}", t as u8),
            None if b.sync == pcs_core::SyncHeader::CONTROL => {
                format!("unknown type 0x{:02x}", b.payload as u8)
            }
            None => "invalid header".into(),
        }
    };
    let mut s = format!("{b}  ({kind}: {})", lanes(d.word));
    if let Some(e) = d.error {
        s.push_str(&format!("  [{e}]"));
    }
    s
}

/// The lane of the first differing bit between two payloads, as the payload layout of `t`
/// places it (data blocks: lane = bit / 8).
pub fn differing_bit(a: u64, b: u64) -> Option<u32> {
    let x = a ^ b;
    (x != 0).then(|| x.trailing_zeros())
}

/// Which field of a block a payload bit belongs to (Figure 49-7 layouts).
pub fn field_of_bit(b: Block, bit: u32) -> String {
    if b.sync == pcs_core::SyncHeader::DATA {
        return format!("lane {} (data)", bit / 8);
    }
    if bit < 8 {
        return "block type field".into();
    }
    let code = |bit: u32| format!("lane {} (control code)", (bit - 8) / 7);
    let data = |bit: u32| format!("lane {} (data)", bit / 8);
    let o = |lane: u32| format!("lane {lane} (O code)");
    match b.block_type() {
        Some(BlockType::Control) => code(bit),
        Some(BlockType::ControlOrdered) => match bit {
            8..=35 => code(bit),
            36..=39 => o(4),
            _ => data(bit),
        },
        Some(BlockType::ControlStart) => match bit {
            8..=35 => code(bit),
            36..=39 => "pad bits".into(),
            _ => data(bit),
        },
        Some(BlockType::OrderedStart | BlockType::OrderedOrdered) => match bit {
            32..=35 => o(0),
            36..=39 if b.block_type() == Some(BlockType::OrderedOrdered) => o(4),
            36..=39 => "pad bits".into(),
            _ => data(bit),
        },
        Some(BlockType::Start) => data(bit),
        Some(BlockType::OrderedControl) => match bit {
            8..=31 => data(bit),
            32..=35 => o(0),
            _ => code(bit),
        },
        Some(t) => {
            let k = t.terminate_lane().unwrap_or(0) as u32;
            if bit < 8 + 8 * k {
                format!("lane {} (data)", (bit - 8) / 8)
            } else if (bit - 8) / 7 > k {
                code(bit)
            } else {
                "pad bits".into()
            }
        }
        None => format!("payload bit {bit}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_name_control_characters() {
        assert_eq!(
            lanes(XgmiiWord::new(0xd555_5555_5555_55fb, 0x01)),
            "/S/ 55 55 55 55 55 55 d5"
        );
        assert_eq!(lanes(XgmiiWord::LOCAL_FAULT), "/Q/ 00 00 01 /Q/ 00 00 01");
        assert_eq!(
            lanes(XgmiiWord::new(0x1c, 0x01)),
            "/1c/ 00 00 00 00 00 00 00"
        );
    }

    #[test]
    fn block_rendering_shows_type_and_decode_error() {
        assert_eq!(
            block(Block::IDLE),
            "1 000000000000001e  (type 0x1e: /I/ /I/ /I/ /I/ /I/ /I/ /I/ /I/)"
        );
        assert!(block(Block::control(0x42)).ends_with("[unknown block type 0x42 (Figure 49-7)]"));
    }

    #[test]
    fn field_of_bit_names_lanes_of_terminate_blocks() {
        let t3 = Block::control(0xb4);
        assert_eq!(field_of_bit(t3, 3), "block type field");
        assert_eq!(field_of_bit(t3, 20), "lane 1 (data)");
        assert_eq!(field_of_bit(t3, 33), "pad bits");
        assert_eq!(field_of_bit(t3, 40), "lane 4 (control code)");
        assert_eq!(field_of_bit(Block::data(0), 63), "lane 7 (data)");
        let oo = Block::control(0x55);
        assert_eq!(field_of_bit(oo, 40), "lane 5 (data)");
        assert_eq!(field_of_bit(oo, 37), "lane 4 (O code)");
        assert_eq!(
            field_of_bit(Block::control(0x4b), 50),
            "lane 6 (control code)"
        );
    }
}
