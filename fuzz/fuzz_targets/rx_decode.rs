//! Arbitrary blocks through the receive PCS (BER monitor, descrambler, RX state machine,
//! status registers).
//!
//! Input: one knob byte (decoder mode, look-ahead, link-down output, BER window, BER
//! lock-loss reset, descrambler bypass), eight bytes of descrambler state, then 9 bytes per
//! block: header byte (bits 1:0 the sync header, bit 2 set = `block_lock` false), 8 bytes
//! of payload.
//!
//! Invariants:
//! - one event per block pushed: `push` returns the previous block's event (latency one),
//!   `flush` the last one, a second `flush` nothing;
//! - every event's arrow is the one of the receive state table (transcribed independently
//!   from the table in `decode.rs`'s module doc, with `R_TYPE_NEXT` from the next block),
//!   its `from` is the previous event's `to`, and its word is `DECODE(block)`, `EBLOCK_R` or
//!   `LBLOCK_R`, exactly as the state and knobs say;
//! - `ber_bad_sh` only on an invalid header (and, with the strict lock-loss reset, only while
//!   locked); the 3.33 BER counter equals the number of `ber_bad_sh` steps and never exceeds
//!   the invalid headers pushed; the errored-blocks counter equals the events with
//!   `to == RX_E`; register 3.32 shows the last block's `block_lock` / `hi_ber`; reading
//!   3.33, 3.44 and 3.45 gives both counters back whole;
//! - (descrambling) the batch path `decode_slice`, fed the same blocks in runs of one lock
//!   status cut at uneven points, gives the same transfers and leaves the same BER monitor,
//!   decoder, descrambler and registers; also when it stops in front of long data runs
//!   (`Stops::ForOctets`, cut points permitting) and `decode_data_run` takes them as octets,
//!   into rooms of uneven size, or is called where no run is; and when `decode_packet`
//!   takes whole packets as octets (their transfers rebuilt by `DecodedPacket::transfer`),
//!   or, where no start is pending, takes nothing and changes nothing.
#![no_main]

use baser_fuzz::Input;
use libfuzzer_sys::fuzz_target;
use pcs_core::XgmiiWord;
use pcs_core::SCRAMBLER_STATE_MASK;
use pcs_core::{decode_block, Block, BlockClass, SyncHeader};
use pcs_core::{BerConfig, LockLossReset};
use pcs_core::{DecoderConfig, LinkDownOutput, LookAhead, RxEvent, RxLink, RxMode, RxState};
use pcs_core::{PcsRx, PcsRxConfig, Stops};
use pcs_core::{STATUS_1_BLOCK_LOCK, STATUS_1_HIGH_BER, STATUS_1_RECEIVE_LINK};

/// The receive state table (rows: from RX_INIT, RX_C, RX_D, RX_T, RX_E; columns: R_TYPE C,
/// S, D, T with next S/C, T otherwise, E), as in 802.3 Figure 49-15 (802.3-2008 numbering).
const TABLE: [&[u8; 6]; 5] = [b"CDEEEE", b"CDEEEE", b"EEDTEE", b"CDEEEE", b"CEDTEE"];

fn row(s: RxState) -> usize {
    match s {
        RxState::Init => 0,
        RxState::Control => 1,
        RxState::Data => 2,
        RxState::Terminate => 3,
        RxState::Error => 4,
    }
}

fn state(letter: u8) -> RxState {
    match letter {
        b'C' => RxState::Control,
        b'D' => RxState::Data,
        b'T' => RxState::Terminate,
        _ => RxState::Error,
    }
}

fn expected_to(from: RxState, class: BlockClass, terminate_ok: bool) -> RxState {
    let col = match class {
        BlockClass::Control => 0,
        BlockClass::Start => 1,
        BlockClass::Data => 2,
        BlockClass::Terminate if terminate_ok => 3,
        BlockClass::Terminate => 4,
        BlockClass::Error => 5,
    };
    state(TABLE[row(from)][col])
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let knobs = input.u8();
    let decoder = DecoderConfig {
        mode: if knobs & 1 == 0 {
            RxMode::StateMachine
        } else {
            RxMode::Stateless
        },
        look_ahead: if knobs & 2 == 0 {
            LookAhead::On
        } else {
            LookAhead::Off
        },
        link_down: if knobs & 4 == 0 {
            LinkDownOutput::LocalFault
        } else {
            LinkDownOutput::Decode
        },
    };
    let ber_lock_loss = if knobs & 16 == 0 {
        LockLossReset::ResetMonitor
    } else {
        LockLossReset::KeepRunning
    };
    let config = PcsRxConfig {
        decoder,
        // A short window so that hi_ber rises and clears within a fuzz input.
        ber: if knobs & 8 == 0 {
            BerConfig::TEN_GBASE_R
        } else {
            BerConfig {
                ticks_per_block: 1,
                window_ticks: 24,
                threshold: 4,
            }
        },
        ber_lock_loss,
        descrambler_state: input.u64() & SCRAMBLER_STATE_MASK,
    };
    let descramble = knobs & 32 != 0;
    let mut rx = PcsRx::new(config);
    // The same line blocks again through the batch path (decode_slice, with its steady-state
    // shortcuts), in runs of one lock status cut at uneven points: it must give the same
    // transfers and leave the same monitor and registers.
    let mut slice_rx = PcsRx::new(config);
    let mut lines: Vec<(Block, bool)> = Vec::new();

    // (descrambled block, link at its arrival)
    let mut pushed: Vec<(Block, RxLink)> = Vec::new();
    let mut events: Vec<RxEvent> = Vec::new();
    let mut ber_bad_sh = 0u64;
    let mut invalid_headers = 0u64;
    while !input.is_empty() {
        let h = input.u8();
        let line = Block {
            sync: SyncHeader::from_bits(h & 3),
            payload: input.u64(),
        };
        let block_lock = h & 4 == 0;
        lines.push((line, block_lock));
        let step = if descramble {
            rx.push(line, block_lock)
        } else {
            rx.push_descrambled(line, block_lock)
        };
        assert_eq!(step.block.sync, line.sync);
        if !descramble {
            assert_eq!(step.block, line);
        }
        // Latency one: an event for every block but the first, at the next push.
        assert_eq!(step.rx.is_some(), !pushed.is_empty());
        if !line.sync.is_valid() {
            invalid_headers += 1;
        }
        if step.ber_bad_sh {
            ber_bad_sh += 1;
            assert!(!line.sync.is_valid(), "ber_bad_sh on a valid header");
            if ber_lock_loss == LockLossReset::ResetMonitor {
                assert!(block_lock, "ber_bad_sh while the monitor is held reset");
            }
        }
        if ber_lock_loss == LockLossReset::ResetMonitor && !block_lock {
            assert!(!step.hi_ber, "hi_ber while the monitor is held reset");
        }
        let s1 = rx.status.status_1();
        assert_eq!(s1 & STATUS_1_BLOCK_LOCK != 0, block_lock);
        assert_eq!(s1 & STATUS_1_HIGH_BER != 0, step.hi_ber);
        assert_eq!(s1 & STATUS_1_RECEIVE_LINK != 0, block_lock && !step.hi_ber);
        pushed.push((
            step.block,
            RxLink {
                block_lock,
                hi_ber: step.hi_ber,
            },
        ));
        events.extend(step.rx);
    }
    if descramble {
        let mut got: Vec<XgmiiWord> = Vec::new();
        let mut out = vec![XgmiiWord::IDLE; 64];
        let mut at = 0;
        while at < lines.len() {
            let lock = lines[at].1;
            let run = lines[at..].iter().take_while(|l| l.1 == lock).count();
            let blocks: Vec<Block> = lines[at..at + run].iter().map(|l| l.0).collect();
            let mut rest: &[Block] = &blocks;
            let mut cut = 1 + at % 37;
            while !rest.is_empty() {
                let take = rest.len().min(cut);
                let room = 1 + (cut * 7) % 50;
                let runs = if cut % 3 == 0 {
                    Stops::Never
                } else {
                    Stops::ForOctets
                };
                let r = slice_rx.decode_slice(&rest[..take], lock, &mut out[..room], runs);
                let (c, n) = (r.consumed, r.written);
                assert!(r.by_diagram <= n);
                assert!(c <= take && n <= room);
                assert!(!r.at_long_run || runs == Stops::ForOctets);
                got.extend_from_slice(&out[..n]);
                rest = &rest[c..];
                if runs == Stops::ForOctets {
                    // The run as octets (or, where none is, nothing).
                    let mut octets = vec![0u8; (cut * 5) % 300];
                    let k = slice_rx.decode_data_run(rest, lock, &mut octets);
                    assert!(k * 8 <= octets.len() && k <= rest.len());
                    got.extend(
                        octets.chunks_exact(8).take(k).map(|o| {
                            XgmiiWord::from_data(u64::from_le_bytes(o.try_into().unwrap()))
                        }),
                    );
                    rest = &rest[k..];
                    // Packets as octets while they are taken (or, where no start is
                    // pending, nothing, and nothing changed).
                    loop {
                        let mut octets = vec![0u8; (cut * 37) % 1600];
                        let before = slice_rx;
                        let Some(p) = slice_rx.decode_packet(rest, lock, &mut octets) else {
                            assert_eq!(slice_rx, before, "a packet not taken changes nothing");
                            break;
                        };
                        assert!(p.transfers <= rest.len() && p.octets <= octets.len());
                        got.extend((0..p.transfers).map(|i| p.transfer(&octets, i).unwrap()));
                        rest = &rest[p.transfers..];
                    }
                }
                cut = 1 + (cut * 13 + c) % 64;
            }
            at += run;
        }
        let want: Vec<XgmiiWord> = events.iter().map(|e| e.word).collect();
        assert_eq!(got, want, "decode_slice and push disagree");
        assert_eq!(
            slice_rx.status, rx.status,
            "decode_slice and push: registers"
        );
        assert_eq!(slice_rx.ber, rx.ber, "decode_slice and push: BER monitor");
        assert_eq!(
            slice_rx.decoder, rx.decoder,
            "decode_slice and push: decoder"
        );
        assert_eq!(slice_rx.descrambler, rx.descrambler);
    }
    let last = rx.flush();
    assert_eq!(last.is_some(), !pushed.is_empty());
    events.extend(last);
    assert!(rx.flush().is_none(), "a second flush decided a block");
    assert_eq!(events.len(), pushed.len(), "one event per block");

    let mut prev = RxState::Init;
    for (i, (e, &(block, link))) in events.iter().zip(&pushed).enumerate() {
        let dec = decode_block(block);
        assert_eq!(e.class, dec.class, "block {i}");
        assert_eq!(e.error, dec.error, "block {i}");
        assert_eq!(e.from, prev, "block {i}: from is not the previous to");
        let down = !link.is_up() && decoder.link_down == LinkDownOutput::LocalFault;
        assert_eq!(e.link_down, down, "block {i}");
        let next_class = pushed.get(i + 1).map(|&(b, _)| decode_block(b).class);
        if down {
            assert_eq!(e.to, RxState::Init, "block {i}");
            assert_eq!(e.word, XgmiiWord::LOCAL_FAULT, "block {i}");
        } else {
            let terminate_ok = match decoder.look_ahead {
                LookAhead::On => {
                    matches!(next_class, Some(BlockClass::Start | BlockClass::Control))
                }
                LookAhead::Off => true,
            };
            assert_eq!(
                e.to,
                expected_to(e.from, dec.class, terminate_ok),
                "block {i}: {e}"
            );
            let want_next = match (dec.class, decoder.look_ahead) {
                (BlockClass::Terminate, LookAhead::On) => next_class,
                _ => None,
            };
            assert_eq!(e.next, want_next, "block {i}");
            let word = match (decoder.mode, e.to) {
                (RxMode::StateMachine, RxState::Error) => XgmiiWord::ERROR,
                _ => dec.word,
            };
            assert_eq!(e.word, word, "block {i}");
        }
        assert!(
            e.word == dec.word || e.word == XgmiiWord::ERROR || e.word == XgmiiWord::LOCAL_FAULT
        );
        prev = e.to;
    }

    // Errored blocks: entries to RX_E; for a block-by-block decoder, the blocks of R_TYPE E.
    let errored = events
        .iter()
        .filter(|e| match decoder.mode {
            RxMode::Stateless => !e.link_down && e.class == BlockClass::Error,
            RxMode::StateMachine => e.to == RxState::Error,
        })
        .count() as u64;
    assert_eq!(u64::from(rx.status.errored_count()), errored);
    assert!(u64::from(rx.status.errored_count()) <= pushed.len() as u64);
    assert_eq!(u64::from(rx.status.ber_count()), ber_bad_sh);
    assert!(ber_bad_sh <= invalid_headers);
    assert_eq!(rx.ber.ber_bad_sh_total(), ber_bad_sh);
    // 3.33 then 3.44 / 3.45 give the 22-bit counters back; reading clears them.
    let s2 = rx.status.read_status_2();
    let ber_high = rx.status.read_ber_high_order();
    let err_high = rx.status.read_errored_blocks_high_order();
    assert_eq!(
        u64::from(s2 >> 8 & 0x3f) | u64::from(ber_high) << 6,
        ber_bad_sh
    );
    assert_eq!(
        u64::from(s2 & 0xff) | u64::from(err_high & 0x3fff) << 8,
        errored
    );
    assert_eq!(rx.status.ber_count(), 0);
    assert_eq!(rx.status.errored_count(), 0);
});
