//! Golden vectors: every case in `vectors/` is regenerated from its definition here and must
//! equal the committed files byte for byte. `BASER_BLESS=1 cargo test --test golden` rewrites
//! them on purpose. vectors/README.md says how each case was made and what checked it.

use baser_engine::Profile;
use baser_files::b66::{B66Header, B66Reader, B66Writer, Scrambling};
use baser_files::pcap::FrameWriter;
use baser_files::xgmii::XgmiiWriter;
use pcs_core::TxGearbox;
use pcs_core::{Block, SyncHeader, XgmiiWord};
use pcs_core::{Scrambler, SCRAMBLER_DEFAULT_STATE};
use std::path::{Path, PathBuf};
use testbench::cmd::encode::{encode, EncodeArgs};
use testbench::command::{Output, Verdict};

/// What goes into a case.
enum Input {
    /// Frames through the MAC (without FCS); `pad` = pad short frames.
    Frames { frames: Vec<Vec<u8>>, pad: bool },
    /// An XGMII trace through the PCS only.
    Xgmii(Vec<XgmiiWord>),
}

struct Case {
    name: &'static str,
    input: Input,
}

/// A frame: broadcast-free unicast addresses, the local experimental type 0x88b5, a payload
/// that says which frame it is.
fn frame(index: usize, len: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x88, 0xb5];
    let mut x = (index as u32)
        .wrapping_mul(2_654_435_761)
        .wrapping_add(len as u32);
    while f.len() < len {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        f.push(x as u8);
    }
    f.truncate(len);
    f
}

fn frames(lengths: &[usize]) -> Vec<Vec<u8>> {
    lengths
        .iter()
        .enumerate()
        .map(|(i, &n)| frame(i, n))
        .collect()
}

fn w(data: u64, ctrl: u8) -> XgmiiWord {
    XgmiiWord::new(data, ctrl)
}

const I: XgmiiWord = XgmiiWord::IDLE;

/// One transfer of each Figure 49-7 format (and data), in an order the transmit state
/// machine accepts, with /Fsig/ and the reserved control characters.
fn control_block_trace() -> Vec<XgmiiWord> {
    let d = |x: u64| w(x, 0);
    let mut t = vec![I, I];
    // 0x1E with reserved characters 0x1c 0x3c 0x7c 0xbc 0xdc 0xf7, /LI/ and /I/.
    t.push(w(0x0706_f7dc_bc7c_3c1c, 0xff));
    // 0x4B: /Q/ Local Fault + controls; 0x2D: controls + /Fsig/; 0x55: /Q/ and /Fsig/.
    t.push(w(0x0707_0707_0100_009c, 0xf1));
    t.push(w(0x0302_015c_0707_0707, 0x1f));
    t.push(w(0x0000_015c_0200_009c, 0x11));
    // Eight packets: each start format, data, and /T/ in every lane 0..7.
    let starts = [
        w(0xd555_5555_5555_55fb, 0x01), // 0x78
        w(0x5555_55fb_0707_0707, 0x1f), // 0x33
        w(0x5555_55fb_0100_009c, 0x11), // 0x66
        w(0xd555_5555_5555_55fb, 0x01),
    ];
    for k in 0..8usize {
        let s = starts[k % starts.len()];
        t.push(s);
        if s.ctrl != 0x01 {
            t.push(d(0x0011_2233_4455_66d5));
        }
        t.push(d(0x8877_6655_4433_2211 ^ k as u64));
        let data_mask = if k == 0 { 0 } else { (1u64 << (8 * k)) - 1 };
        let idles = if k == 7 {
            0
        } else {
            0x0707_0707_0707_0707u64 & !((1u64 << (8 * (k + 1))) - 1)
        };
        t.push(w(
            (0xa5a5_a5a5_a5a5_a5a5 & data_mask) | 0xfd << (8 * k) | idles,
            0xffu8 << k,
        ));
        t.push(I);
    }
    t.extend([I, I]);
    t
}

/// Local Fault, then Remote Fault sequence ordered sets, between idles.
fn link_fault_trace() -> Vec<XgmiiWord> {
    let mut t = vec![I; 4];
    t.extend([XgmiiWord::LOCAL_FAULT; 8]);
    // A single ordered set per transfer (0x4B), as a Clause 46 RS sends in lane 0 only.
    t.extend([w(0x0707_0707_0200_009c, 0xf1); 8]);
    t.extend([XgmiiWord::REMOTE_FAULT; 8]);
    t.extend([I; 4]);
    t
}

/// Transfers the transmit state machine must turn into EBLOCK_T.
fn invalid_xgmii_trace() -> Vec<XgmiiWord> {
    vec![
        I,
        I,
        w(0x0011_2233_4455_6677, 0x00), // data without a start (TX_C --D--> TX_E)
        I,
        w(0x0000_0000_00fb_0707, 0x07), // /S/ in lane 2: fits no format
        I,
        w(0x0707_0707_0707_0700, 0xff), // 0x00 with its control bit: no 7-bit code
        I,
        w(0xd555_5555_5555_55fb, 0x01), // start
        w(0x0000_0000_0000_00fd, 0x01), // /T/ followed by data: no format
        w(0x0707_0707_0707_07fe, 0xff), // /E/ among idles: T_TYPE E
        I,
        w(0xd555_5555_5555_55fb, 0x01), // start
        I,                              // idle inside a packet (TX_D --C--> TX_E)
        I,
        I,
    ]
}

/// The P802.3df example input sequences, each after two idles.
fn p802_3df_trace() -> Vec<XgmiiWord> {
    let word = |c: char| match c {
        'S' => w(0xd555_5555_5555_55fb, 0x01),
        'D' => w(0x0011_2233_4455_6677, 0),
        'T' => w(0x0707_0707_07fd_aabb, 0xfc),
        'C' => I,
        _ => w(0x0707_0707_0707_07fe, 0xff),
    };
    let mut t = Vec::new();
    for seq in [
        "SDDECS", "SDDTESD", "SDETCSD", "SEDTCSD", "SDDTTCC", "SDDTTSD", "SDDCCD", "SDDCSD",
        "SDDESD",
    ] {
        t.extend([I, I]);
        t.extend(seq.chars().map(word));
    }
    t.extend([I, I]);
    t
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "demo",
            input: Input::Frames {
                frames: frames(&[64, 60, 1514, 61, 127, 20, 300, 66, 1000, 75]),
                pad: true,
            },
        },
        Case {
            name: "control-blocks",
            input: Input::Xgmii(control_block_trace()),
        },
        Case {
            name: "terminate-lanes",
            input: Input::Frames {
                frames: frames(&[60, 61, 62, 63, 64, 65, 66, 67]),
                pad: true,
            },
        },
        Case {
            name: "dic",
            input: Input::Frames {
                frames: frames(&(60..=131).collect::<Vec<_>>()),
                pad: true,
            },
        },
        Case {
            name: "short-frames",
            input: Input::Frames {
                frames: frames(&[20, 59, 60]),
                pad: true,
            },
        },
        Case {
            name: "runts",
            input: Input::Frames {
                frames: frames(&[20, 59, 60]),
                pad: false,
            },
        },
        Case {
            name: "jumbo",
            input: Input::Frames {
                frames: frames(&[1514, 9000]),
                pad: true,
            },
        },
        Case {
            name: "link-fault",
            input: Input::Xgmii(link_fault_trace()),
        },
        Case {
            name: "invalid-xgmii",
            input: Input::Xgmii(invalid_xgmii_trace()),
        },
        Case {
            name: "p802.3df",
            input: Input::Xgmii(p802_3df_trace()),
        },
    ]
}

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors")
}

/// Writes a case's input and runs `baser encode` on it into `dir`.
fn generate(case: &Case, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let (input, pad) = match &case.input {
        Input::Frames { frames, pad } => {
            let p = dir.join("frames.pcap");
            let mut wr = FrameWriter::new(std::fs::File::create(&p).unwrap()).unwrap();
            for (i, f) in frames.iter().enumerate() {
                wr.write(std::time::Duration::from_micros(i as u64), f)
                    .unwrap();
            }
            wr.finish().unwrap();
            (p, *pad)
        }
        Input::Xgmii(words) => {
            let p = dir.join("input.xgmii");
            let mut wr =
                XgmiiWriter::new(std::fs::File::create(&p).unwrap(), &[case.name]).unwrap();
            for &x in words {
                wr.write(x).unwrap();
            }
            wr.finish().unwrap();
            (p, true)
        }
    };
    let args = EncodeArgs {
        input: input.clone(),
        xgmii: Some(dir.join("expected.xgmii")),
        b66: Some(dir.join("expected.b66")),
        b66_unscrambled: Some(dir.join("expected-unscrambled.b66")),
        bits: Some(dir.join("expected.bits")),
        vcd: None,
        ifg: 12,
        no_dic: false,
        lane4_starts: false,
        seed: None,
        fcs_included: false,
        idle_blocks: 128,
        no_pad: !pad,
        profile: Profile::Ieee,
        line: Default::default(),
        inject: Vec::new(),
    };
    let quiet = Output {
        quiet: true,
        verbose: 0,
    };
    assert_eq!(encode(&args, quiet).unwrap(), Verdict::Pass);
    if case.name == "demo" {
        make_demo_dut(dir);
    }
}

/// The demo DUT capture: the model's stream with three deliberate faults.
/// 1. frame 6 (300 octets) is missing: its blocks are idle blocks;
/// 2. an invalid sync header (00) on the last block (an idle after the last frame);
/// 3. one line bit flipped in frame 2 (1514 octets), payload bit 20 of the block 40 blocks
///    after its start: three descrambled bit errors, an FCS error.
fn make_demo_dut(dir: &Path) {
    let r = B66Reader::new(
        std::io::BufReader::new(std::fs::File::open(dir.join("expected-unscrambled.b66")).unwrap()),
        &dir.join("expected-unscrambled.b66"),
    )
    .unwrap();
    let mut blocks: Vec<Block> = r.map(Result::unwrap).collect();
    let starts: Vec<usize> = blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| pcs_core::decode_block(**b).class == pcs_core::BlockClass::Start)
        .map(|(i, _)| i)
        .collect();
    let is_t = |b: &Block| pcs_core::decode_block(*b).class == pcs_core::BlockClass::Terminate;
    // Fault 1: frame 6 missing.
    let s6 = starts[6];
    let t6 = s6 + blocks[s6..].iter().position(is_t).unwrap();
    for b in &mut blocks[s6..=t6] {
        *b = Block::IDLE;
    }
    // Fault 2: invalid sync header.
    let last = blocks.len() - 1;
    blocks[last].sync = SyncHeader::from_bits(0);
    // Scramble, then fault 3 on the line.
    let mut scr = Scrambler::new(SCRAMBLER_DEFAULT_STATE);
    let mut line: Vec<Block> = blocks
        .iter()
        .map(|b| Block {
            sync: b.sync,
            payload: scr.scramble(b.payload),
        })
        .collect();
    line[starts[2] + 40].payload ^= 1 << 20;
    let header = B66Header {
        scrambling: Scrambling::Scrambled,
        scrambler_state: Some(SCRAMBLER_DEFAULT_STATE),
    };
    let mut wr =
        B66Writer::new(std::fs::File::create(dir.join("dut.b66")).unwrap(), header).unwrap();
    for b in &line {
        wr.write(*b).unwrap();
    }
    wr.finish().unwrap();
    // The same stream as serial bits, starting 60 bits into a block (block lock slips 6 times).
    let mut gb = TxGearbox::<u8>::new();
    let mut bytes = Vec::new();
    for b in &line {
        bytes.extend(gb.push_block(*b));
    }
    bytes.extend(gb.flush().map(|p| p.word));
    let total_bits = line.len() * 66;
    let bit = |n: usize| {
        if n < total_bits {
            bytes[n / 8] >> (n % 8) & 1
        } else {
            0
        }
    };
    let shifted: Vec<u8> = (0..(total_bits - 60).div_ceil(8))
        .map(|i| (0..8).fold(0u8, |acc, j| acc | bit(60 + 8 * i + j) << j))
        .collect();
    std::fs::write(dir.join("dut.bits"), shifted).unwrap();
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    if let (Ok(x), Ok(y)) = (std::str::from_utf8(a), std::str::from_utf8(b)) {
        for (n, (l, r)) in x.lines().zip(y.lines()).enumerate() {
            if l != r {
                return format!("line {}: committed `{l}`, regenerated `{r}`", n + 1);
            }
        }
        return format!("{} vs {} lines", x.lines().count(), y.lines().count());
    }
    let i = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    format!("byte {i} ({} vs {} bytes)", a.len(), b.len())
}

#[test]
fn golden_vectors_regenerate_identically() {
    let bless = std::env::var_os("BASER_BLESS").is_some_and(|v| v == "1");
    let tmp = std::env::temp_dir().join(format!("baser-golden-{}", std::process::id()));
    let mut failures = Vec::new();
    for case in cases() {
        let fresh = tmp.join(case.name);
        generate(&case, &fresh);
        let committed = vectors().join(case.name);
        for entry in std::fs::read_dir(&fresh).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            let new = std::fs::read(entry.path()).unwrap();
            let target = committed.join(&name);
            if bless {
                std::fs::create_dir_all(&committed).unwrap();
                std::fs::write(&target, &new).unwrap();
                continue;
            }
            match std::fs::read(&target) {
                Ok(old) if old == new => {}
                Ok(old) => failures.push(format!(
                    "{}/{}: {}",
                    case.name,
                    name.to_string_lossy(),
                    first_difference(&old, &new)
                )),
                Err(_) => {
                    failures.push(format!("{}/{}: missing", case.name, name.to_string_lossy()))
                }
            }
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
    assert!(
        failures.is_empty(),
        "golden vectors differ (regenerate on purpose with BASER_BLESS=1):\n{}",
        failures.join("\n")
    );
}

#[test]
fn demo_dut_bits_start_60_bits_into_a_block() {
    // The .bits demo must exercise block lock from an odd offset.
    let bits = std::fs::read(vectors().join("demo/dut.bits")).unwrap();
    let b66 = std::fs::read_to_string(vectors().join("demo/dut.b66")).unwrap();
    let blocks = b66.lines().filter(|l| !l.starts_with('#')).count();
    assert_eq!(bits.len(), (blocks * 66 - 60).div_ceil(8));
}

#[test]
fn control_block_case_holds_all_15_block_types() {
    let r = B66Reader::new(
        std::io::BufReader::new(
            std::fs::File::open(vectors().join("control-blocks/expected-unscrambled.b66")).unwrap(),
        ),
        Path::new("x"),
    )
    .unwrap();
    let mut types: Vec<u8> = r
        .map(Result::unwrap)
        .filter(|b| b.sync == SyncHeader::CONTROL)
        .map(|b| b.payload as u8)
        .collect();
    types.sort_unstable();
    types.dedup();
    assert_eq!(
        types,
        [
            0x1e, 0x2d, 0x33, 0x4b, 0x55, 0x66, 0x78, 0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1,
            0xff
        ]
    );
}
