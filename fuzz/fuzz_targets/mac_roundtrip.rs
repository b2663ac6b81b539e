//! Frames and gaps through MAC TX, the transmit PCS, the receive PCS and MAC RX.
//!
//! Input: knob bytes (IFG, DIC mode, padding, scrambler seed), then per item an op byte
//! (what to send: a frame, a frame with its own good or bad FCS, an aborted frame, idle or
//! ordered-set transfers) and its length; frame octets come from the input (a counting
//! pattern once it runs out).
//!
//! Invariants:
//! - without aborted frames the MAC's output is a legal XGMII sequence: the PCS round trip
//!   gives it back identical, with no errored block; with them, every transfer comes back as
//!   itself or `/E/` x8;
//! - an aborted frame ends in `/E/` (`T_TYPE` E), and the transmit state machine's
//!   `TX_E --S--> TX_E` arrow turns a `/S/` in the very next transfer into `EBLOCK_T`: such a
//!   frame is lost (its octets land in the aborted frame). A frame is lost exactly when the
//!   transfer before its `/S/` has `T_TYPE` E;
//! - every other frame comes back once, in order, at the transfer and lane where it was sent,
//!   its content identical: DA..payload, the zero pad and an FCS computed here with
//!   crc32fast; its class is Ok, or Runt below 64 octets (unpadded), FrameCheckSequenceError /
//!   Fragment for a deliberately bad FCS, ErrorCharacter for an aborted frame;
//! - the gap before a frame sent right after another is the gap the transmitter chose; with
//!   the deficit idle count and an IFG of at least 11 it is IFG + (count before - count
//!   after), the count staying in 0..=3; without it, IFG rounded up to a column start;
//! - TX and RX counters agree with what was sent;
//! - a second MAC and transmit PCS sending every frame with a computed FCS through the packet
//!   doors (`encode_frame_packet`, `encode_packet`; the rest as transfers through
//!   `encode_slice`) give the same line blocks and end in the same state; the PCS refuses a
//!   packet only with its encoder in `TX_D` or `TX_E` (after an aborted frame), and the frame
//!   then goes as transfers.
#![no_main]

use baser_fuzz::Input;
use libfuzzer_sys::fuzz_target;
use mac_core::frame::MaxFrameLength;
use mac_core::rx::{MacRx, RxClass, RxConfig};
use mac_core::{DicMode, MacTx, Padding, StartLanes, TxConfig};
use pcs_core::XgmiiWord;
use pcs_core::SCRAMBLER_STATE_MASK;
use pcs_core::{encode_word, Block, BlockClass};
use pcs_core::{EncoderConfig, TxState};
use pcs_core::{PcsRx, PcsRxConfig, PcsTx};

struct Sent {
    data: Vec<u8>,
    class: RxClass,
    /// Index of the transfer holding its `/S/`.
    start_word: usize,
    /// The transmitter's gap after the previous frame, if this frame followed it directly.
    gap: Option<u64>,
}

fn class_for(len: usize, fcs_good: bool) -> RxClass {
    match (len < 64, fcs_good) {
        (true, true) => RxClass::Runt,
        (true, false) => RxClass::Fragment,
        (false, true) => RxClass::Ok,
        (false, false) => RxClass::FrameCheckSequenceError,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let (k_ifg, k_mode, k_pad) = (input.u8(), input.u8(), input.u8());
    let seed = input.u64() & SCRAMBLER_STATE_MASK;
    let ifg = u16::from(k_ifg % 48);
    let dic = match k_mode % 3 {
        0 => DicMode::Strict,
        1 => DicMode::Off,
        _ => DicMode::ResetOnIdle,
    };
    let padding = match k_pad % 3 {
        0 => Padding::default(),
        1 => Padding::Off,
        _ => Padding::To(u16::from(k_pad / 3 % 80)),
    };
    let mut tx = MacTx::new(TxConfig {
        ifg_octets: ifg,
        dic,
        padding,
        // The gap predictions below are the standard's; lane-4 starts are a test-bench mode
        // with 4 more idles (tested in mac-core against the test benches' counter rule).
        start_lanes: StartLanes::Both,
    });

    // The packet doors' side.
    let (mut ptx, mut ppcs) = (tx.clone(), PcsTx::new(EncoderConfig::default(), seed));
    let mut plines: Vec<Block> = Vec::new();
    let mut octets = vec![0u8; 1700];
    let as_transfers = |ppcs: &mut PcsTx, plines: &mut Vec<Block>, w: &[XgmiiWord]| {
        let mut l = vec![Block::IDLE; w.len()];
        ppcs.encode_slice(w, &mut l);
        plines.extend(l);
    };

    let mut words: Vec<XgmiiWord> = Vec::new();
    let mut sent: Vec<Sent> = Vec::new();
    let mut counter = 0u8;
    let mut follows_frame = false;
    let (mut tx_ok_octets, mut tx_ok_frames, mut aborted) = (0u64, 0u64, 0u64);
    while !input.is_empty() {
        let op = input.u8();
        let len = usize::from(input.u16() % 1600);
        if op % 8 >= 5 {
            // Time with no frame: idles (or sequence ordered sets, which stand in for them).
            let n = usize::from(op >> 3) % 4 + 1;
            let mut buf = vec![XgmiiWord::IDLE; n];
            if op % 8 == 7 {
                tx.fill_with(XgmiiWord::LOCAL_FAULT, &mut buf);
                ptx.fill_with(XgmiiWord::LOCAL_FAULT, &mut buf);
            } else {
                tx.idle(&mut buf);
                ptx.idle(&mut buf);
            }
            as_transfers(&mut ppcs, &mut plines, &buf);
            words.extend(buf);
            follows_frame = false;
            continue;
        }
        let mut frame = input.bytes(len).to_vec();
        while frame.len() < len {
            frame.push(counter);
            counter = counter.wrapping_add(1);
        }
        let gap_before = follows_frame.then(|| tx.last_gap_octets()).flatten();
        let dic_before = tx.deficit_idle_count();
        let start_word = words.len() + tx.owed_idle_octets() / 8;
        let mut buf = vec![XgmiiWord::IDLE; (len.max(80) + tx.owed_idle_octets()) / 8 + 8];
        let (n, expect) = match op % 8 {
            0 | 1 => {
                let mut wire = frame.clone();
                wire.resize(len + padding.pad_octets(len), 0);
                wire.extend(crc32fast::hash(&wire).to_le_bytes());
                let n = tx.encode_frame(&frame, &mut buf);
                let mut packet = Vec::new();
                let state = ppcs.encoder.state();
                let sent = ptx
                    .encode_frame_packet(&frame, &mut octets, |p, o| {
                        packet = vec![Block::IDLE; p.idles + o.len() / 8 + 3];
                        let k = ppcs.encode_packet(p.idles, p.lane, o, &mut packet);
                        packet.truncate(k.unwrap_or(0));
                        k.is_some()
                    })
                    .expect("the buffer was large enough and the frame short enough");
                match sent {
                    Some(k) => {
                        assert_eq!(Ok(k), n, "the packet's blocks and the frame's transfers");
                        assert_eq!(k, packet.len());
                        plines.extend(packet);
                    }
                    None => {
                        assert!(
                            matches!(state, TxState::Data | TxState::Error),
                            "the PCS refused a packet in {state:?}"
                        );
                        let mut pbuf = buf.clone();
                        let k = ptx.encode_frame(&frame, &mut pbuf).expect("as above");
                        as_transfers(&mut ppcs, &mut plines, &pbuf[..k]);
                    }
                }
                tx_ok_frames += 1;
                tx_ok_octets += wire.len() as u64;
                (n, (class_for(wire.len(), true), wire))
            }
            2 | 3 => {
                let good = op % 8 == 2;
                let fcs = crc32fast::hash(&frame) ^ if good { 0 } else { u32::from(op | 1) };
                frame.extend(fcs.to_le_bytes());
                let n = tx.encode_frame_with_fcs(&frame, &mut buf);
                let mut pbuf = buf.clone();
                let k = ptx
                    .encode_frame_with_fcs(&frame, &mut pbuf)
                    .expect("as below");
                as_transfers(&mut ppcs, &mut plines, &pbuf[..k]);
                tx_ok_frames += 1;
                tx_ok_octets += frame.len() as u64;
                (n, (class_for(frame.len(), good), frame))
            }
            _ => {
                aborted += 1;
                let mut pbuf = buf.clone();
                let k = ptx.encode_aborted(&frame, &mut pbuf).expect("as below");
                as_transfers(&mut ppcs, &mut plines, &pbuf[..k]);
                (
                    tx.encode_aborted(&frame, &mut buf),
                    (RxClass::ErrorCharacter, frame),
                )
            }
        };
        let n = n.expect("the buffer was large enough and the frame short enough");
        assert!(ptx == tx, "the packet door left the MAC in another state");
        words.extend_from_slice(&buf[..n]);
        sent.push(Sent {
            data: expect.1,
            class: expect.0,
            start_word,
            gap: gap_before.map(|g| g as u64),
        });
        follows_frame = true;

        // The gap the transmitter just chose after this frame.
        let gap = tx.last_gap_octets().expect("a gap after a frame");
        let dic_after = tx.deficit_idle_count();
        assert!(dic_after <= 3, "deficit idle count {dic_after}");
        let ifg = usize::from(ifg.max(1));
        match dic {
            DicMode::Strict | DicMode::ResetOnIdle if ifg >= 11 => assert_eq!(
                gap as i64,
                ifg as i64 + i64::from(dic_before) - i64::from(dic_after),
                "gap with the deficit idle count"
            ),
            DicMode::Off if ifg >= 8 => {
                assert!(
                    (ifg..ifg + 4).contains(&gap),
                    "gap {gap} without DIC, IFG {ifg}"
                )
            }
            _ => {}
        }
    }
    // Idles at the end: the last /T/ needs a control block after it.
    let mut tail = [XgmiiWord::IDLE; 4];
    tx.idle(&mut tail);
    ptx.idle(&mut tail);
    as_transfers(&mut ppcs, &mut plines, &tail);
    words.extend(tail);
    assert_eq!(tx.stats().frames_transmitted_ok, tx_ok_frames);
    assert_eq!(tx.stats().octets_transmitted_ok, tx_ok_octets);
    assert_eq!(tx.stats().frames_lost_due_to_int_mac_xmit_error, aborted);

    // Through the PCS.
    let mut pcs_tx = PcsTx::new(EncoderConfig::default(), seed);
    let mut pcs_rx = PcsRx::new(PcsRxConfig {
        descrambler_state: seed,
        ..PcsRxConfig::default()
    });
    let mut back = Vec::with_capacity(words.len());
    let mut lines = Vec::with_capacity(words.len());
    for &w in &words {
        let (line, _) = pcs_tx.step(w);
        lines.push(line);
        back.extend(pcs_rx.push(line, true).rx.map(|e| e.word));
    }
    assert!(
        plines == lines,
        "the packet doors' line differs from the transfers'"
    );
    assert!(
        ppcs == pcs_tx,
        "the packet doors left the PCS in another state"
    );
    back.extend(pcs_rx.flush().map(|e| e.word));
    if aborted == 0 {
        assert_eq!(
            pcs_rx.status.errored_count(),
            0,
            "the MAC sent an illegal sequence"
        );
        assert!(back == words, "the PCS round trip changed the MAC's output");
    }
    for (i, (&w, &b)) in words.iter().zip(&back).enumerate() {
        assert!(
            b == w || b == XgmiiWord::ERROR,
            "transfer {i}: {w} came back as {b}"
        );
    }
    // An aborted frame ends in /E/ (T_TYPE E, TX_E). TX_E --S--> TX_E: a frame whose /S/ is
    // in the very next transfer is sent as EBLOCK_T and never starts at the receiver; its
    // octets land in the aborted frame. Exactly those frames are lost.
    let lost: Vec<bool> = sent
        .iter()
        .map(|s| {
            let w = words[s.start_word];
            assert!(w.octet(0) == 0xfb || w.octet(4) == 0xfb);
            let after_e =
                s.start_word > 0 && encode_word(words[s.start_word - 1]).class == BlockClass::Error;
            assert_eq!(back[s.start_word] == XgmiiWord::ERROR, after_e);
            after_e
        })
        .collect();

    // MAC RX.
    let mut rx = MacRx::<{ mac_core::frame::MAX_FRAME_OCTETS }>::new(RxConfig {
        max_frame_length: MaxFrameLength::Jumbo,
    });
    let mut got = Vec::new();
    rx.push_slice(&back, |f| {
        got.push((f.class, f.data.to_vec(), f.start, f.gap_octets))
    });
    let arrived: Vec<&Sent> = sent
        .iter()
        .zip(&lost)
        .filter(|(_, &l)| !l)
        .map(|(s, _)| s)
        .collect();
    assert_eq!(got.len(), arrived.len(), "frames lost or invented");
    for (i, ((class, data, start, gap), s)) in got.iter().zip(&arrived).enumerate() {
        assert_eq!(*class, s.class, "frame {i}");
        assert!(start.lane == 0 || start.lane == 4, "frame {i}");
        assert_eq!(start.word, s.start_word as u64, "frame {i}");
        if s.class != RxClass::ErrorCharacter {
            assert!(*data == s.data, "frame {i}: content changed");
        }
        if s.gap.is_some() && aborted == 0 {
            assert_eq!(*gap, s.gap, "frame {i}: gap");
        }
    }
    let ok = arrived.iter().filter(|s| s.class == RxClass::Ok);
    assert_eq!(rx.stats().frames_received_ok, ok.clone().count() as u64);
    assert_eq!(
        rx.stats().octets_received_ok,
        ok.map(|s| s.data.len() as u64).sum::<u64>()
    );
    assert_eq!(rx.stats().starts, arrived.len() as u64);
    assert_eq!(rx.stats().misaligned_starts, 0);
});
