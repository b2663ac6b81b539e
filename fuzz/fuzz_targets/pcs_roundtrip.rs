//! XGMII transfers through the transmit PCS (encoder, scrambler) and back through the
//! receive PCS (descrambler, decoder) with the same scrambler seed.
//!
//! Input: one knob byte, eight bytes of scrambler seed, then either
//! - (knob bit 0 clear) a program for a *legal* sequence: each byte picks idles / control
//!   transfers / ordered sets, or a packet (`/S/` in lane 0 or 4, data transfers, `/T/` in
//!   any lane followed by idles), with data octets from the input; a control transfer always
//!   ends it; or
//! - (knob bit 0 set) arbitrary transfers, 9 bytes each (control mask, 8 data octets);
//!   knob bit 1 snaps every control octet to a character of Table 46-3 (or keeps it raw), so
//!   that the fuzzer meets valid formats often.
//!
//! Invariants:
//! - every transfer comes back at the same position (the RX latency is absorbed);
//! - a legal sequence comes back identical, with no `TX_E` / `RX_E` and no errored block;
//! - an arbitrary sequence comes back transfer by transfer as itself or as `/E/` x8
//!   (`EBLOCK_R`); a transfer that drove the TX machine into `TX_E` is sent as `EBLOCK_T`
//!   and comes back as `/E/`; `DECODE(ENCODE(w)) == w` with the same class for every
//!   transfer whose `T_TYPE` is not E;
//! - the receiver's errored-block count equals the `/E/` transfers it produced, and both
//!   scramblers end in the same state;
//! - `encode_slice` (the transmitter's short paths and two-block scrambler steps), fed the
//!   same transfers in uneven chunks, gives the same line blocks as `step`.
#![no_main]

use baser_fuzz::Input;
use libfuzzer_sys::fuzz_target;
use pcs_core::RxState;
use pcs_core::SCRAMBLER_STATE_MASK;
use pcs_core::{decode_block, encode_word, Block, BlockClass};
use pcs_core::{ControlChar, XgmiiWord};
use pcs_core::{EncoderConfig, TxState};
use pcs_core::{PcsRx, PcsRxConfig, PcsTx};

/// Control characters with a 7-bit code other than `/E/` and `/LI/` (Table 49-1): without
/// EEE, `/LI/` among eight control characters is T_TYPE E, so a legal sequence has none.
const CODED: [u8; 7] = [0x07, 0x1c, 0x3c, 0x7c, 0xbc, 0xdc, 0xf7];
/// Every character of Table 46-3.
const KNOWN: [u8; 13] = [
    0x07, 0x06, 0xfb, 0xfd, 0xfe, 0x9c, 0x5c, 0x1c, 0x3c, 0x7c, 0xbc, 0xdc, 0xf7,
];

fn coded(b: u8) -> u64 {
    u64::from(CODED[usize::from(b) % CODED.len()])
}

fn ordered(b: u8) -> u64 {
    u64::from(if b & 1 == 0 {
        ControlChar::SEQUENCE.0
    } else {
        ControlChar::SIGNAL.0
    })
}

/// Four control characters with codes (lanes 0..4 of a transfer).
fn four_codes(input: &mut Input) -> u64 {
    (0..4).fold(0, |acc, i| acc | coded(input.u8()) << (8 * i))
}

/// Three data octets in lanes `first..first + 3`.
fn three_data(input: &mut Input, first: u32) -> u64 {
    (0..3).fold(0, |acc, i| acc | u64::from(input.u8()) << (8 * (first + i)))
}

fn control_word(input: &mut Input) -> XgmiiWord {
    let k = input.u8();
    match k % 5 {
        0 => XgmiiWord::IDLE,
        1 => {
            let data = (0..8).fold(0, |acc, i| acc | coded(input.u8()) << (8 * i));
            XgmiiWord::new(data, 0xff)
        }
        2 => {
            let data = ordered(k / 8) | three_data(input, 1) | four_codes(input) << 32;
            XgmiiWord::new(data, 0xf1)
        }
        3 => {
            let data = four_codes(input) | ordered(k / 8) << 32 | three_data(input, 5);
            XgmiiWord::new(data, 0x1f)
        }
        _ => {
            let data = ordered(k / 8)
                | three_data(input, 1)
                | ordered(k / 16) << 32
                | three_data(input, 5);
            XgmiiWord::new(data, 0x11)
        }
    }
}

fn start_word(input: &mut Input) -> XgmiiWord {
    let k = input.u8();
    let s = u64::from(ControlChar::START.0);
    match k % 3 {
        0 => XgmiiWord::new(s | (input.u64() << 8), 0x01),
        1 => XgmiiWord::new(four_codes(input) | s << 32 | three_data(input, 5), 0x1f),
        _ => XgmiiWord::new(
            ordered(k / 4) | three_data(input, 1) | s << 32 | three_data(input, 5),
            0x11,
        ),
    }
}

fn terminate_word(input: &mut Input) -> XgmiiWord {
    let lane = u32::from(input.u8() % 8);
    let mut data = 0u64;
    for i in 0..8 {
        let octet = if i < lane {
            u64::from(input.u8())
        } else if i == lane {
            u64::from(ControlChar::TERMINATE.0)
        } else {
            u64::from(ControlChar::IDLE.0)
        };
        data |= octet << (8 * i);
    }
    XgmiiWord::new(data, 0xffu8 << lane)
}

fn legal(input: &mut Input) -> Vec<XgmiiWord> {
    let mut words = Vec::new();
    while !input.is_empty() {
        let op = input.u8();
        if op & 1 == 0 {
            words.push(control_word(input));
        } else {
            words.push(start_word(input));
            for _ in 0..(op >> 1) % 8 {
                words.push(XgmiiWord::from_data(input.u64()));
            }
            words.push(terminate_word(input));
        }
    }
    // A terminate is only valid when a start or control transfer follows it.
    words.push(XgmiiWord::IDLE);
    words
}

fn arbitrary(input: &mut Input, snap: bool) -> Vec<XgmiiWord> {
    let mut words = Vec::new();
    while !input.is_empty() {
        let ctrl = input.u8();
        let mut data = input.u64();
        if snap {
            for i in 0..8 {
                if ctrl >> i & 1 == 1 {
                    let octet = (data >> (8 * i)) as u8;
                    if let Some(&c) = KNOWN.get(usize::from(octet % 16)) {
                        data = data & !(0xff << (8 * i)) | u64::from(c) << (8 * i);
                    }
                }
            }
        }
        words.push(XgmiiWord::new(data, ctrl));
    }
    words
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let knobs = input.u8();
    let seed = input.u64() & SCRAMBLER_STATE_MASK;
    let is_legal = knobs & 1 == 0;
    let words = if is_legal {
        legal(&mut input)
    } else {
        arbitrary(&mut input, knobs & 2 != 0)
    };

    let mut tx = PcsTx::new(EncoderConfig::default(), seed);
    let mut rx = PcsRx::new(PcsRxConfig {
        descrambler_state: seed,
        ..PcsRxConfig::default()
    });
    // The batch path (encode_slice: short paths, two blocks per scrambler step) on a second
    // transmitter, fed in uneven chunks: the same line blocks as step by step.
    let mut batch_tx = PcsTx::new(EncoderConfig::default(), seed);
    let mut batch = vec![Block::IDLE; words.len()];
    let mut at = 0;
    let mut cut = 1 + words.len() % 7;
    while at < words.len() {
        let end = (at + cut).min(words.len());
        assert_eq!(
            batch_tx.encode_slice(&words[at..end], &mut batch[at..end]),
            end - at
        );
        at = end;
        cut = 1 + (cut * 5 + 3) % 40;
    }
    let mut out = Vec::with_capacity(words.len());
    let mut rx_states = Vec::with_capacity(words.len());
    for (i, &w) in words.iter().enumerate() {
        let (line, ev) = tx.step(w);
        assert_eq!(
            batch[i], line,
            "transfer {i}: encode_slice and step disagree"
        );
        let enc = encode_word(w);
        assert_eq!(ev.class, enc.class, "transfer {i}");
        if ev.to == TxState::Error {
            assert_eq!(
                ev.block,
                Block::EBLOCK_T,
                "transfer {i}: TX_E sends EBLOCK_T"
            );
        } else {
            assert_eq!(ev.block, enc.block, "transfer {i}: ENCODE");
        }
        if enc.class != BlockClass::Error {
            let dec = decode_block(enc.block);
            assert_eq!(dec.class, enc.class, "transfer {i} {w}: class");
            assert_eq!(dec.word, w, "transfer {i}: DECODE(ENCODE(w)) != w");
        }
        assert!(
            !is_legal || ev.to != TxState::Error,
            "transfer {i} {w}: TX_E on a legal sequence"
        );
        let step = rx.push(line, true);
        assert_eq!(step.block, ev.block, "transfer {i}: descrambled block");
        assert!(!step.hi_ber);
        if let Some(e) = step.rx {
            out.push(e.word);
            rx_states.push(e.to);
        }
    }
    if let Some(e) = rx.flush() {
        out.push(e.word);
        rx_states.push(e.to);
    }
    assert_eq!(
        out.len(),
        words.len(),
        "one transfer back per transfer sent"
    );
    assert_eq!(tx.scrambler.state(), rx.descrambler.state());

    let mut errored = 0u32;
    for (i, ((&w, &o), &to)) in words.iter().zip(&out).zip(&rx_states).enumerate() {
        if to == RxState::Error {
            errored += 1;
            assert_eq!(o, XgmiiWord::ERROR, "transfer {i}");
        } else {
            assert_eq!(o, w, "transfer {i}");
        }
    }
    assert_eq!(rx.status.errored_count(), errored);
    if is_legal {
        assert_eq!(out, words, "a legal sequence did not come back identical");
        assert_eq!(errored, 0);
    }
    // A transfer sent as EBLOCK_T comes back as /E/.
    let mut enc = pcs_core::Encoder::default();
    for (i, (&w, &o)) in words.iter().zip(&out).enumerate() {
        if enc.step(w).to == TxState::Error {
            assert_eq!(
                o,
                XgmiiWord::ERROR,
                "transfer {i}: TX_E did not come back as /E/"
            );
        }
    }
});
