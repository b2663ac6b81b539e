//! Arbitrary XGMII transfers through MAC RX.
//!
//! Input: one knob byte (maximum frame length), then 9 bytes per transfer: control mask,
//! 8 data octets (lane 0 first).
//!
//! Invariants, against an independent lane-by-lane reference written from the rules in
//! `rx.rs`'s module doc (a `/S/` in lane 0 or 4 starts a frame wherever it is; `/E/` marks
//! the frame; any other control character ends it; classes by precedence; FCS checked here
//! with crc32fast, not mac-core's CRC):
//! - every `/S/` in lane 0/4 is counted in `starts` and accounted for by exactly one frame,
//!   except one still open at the end; `/S/` in other lanes are `misaligned_starts`;
//! - each frame's class, length, content (up to the buffer size), FCS verdict, start, end
//!   and gap equal the reference's;
//! - the counters add up: ok + bad == frames; bad == the sum of the error classes; each
//!   class counter == the frames of that class; octets_received_ok == the lengths of the ok
//!   frames; jabbers <= too long; multicast, broadcast, VLAN and MAC Control counters count
//!   exactly the ok frames with that property;
//! - `push_slice` and word-by-word `push` give the same frames and counters; a 100-octet
//!   buffer gives the same frames, truncated, with the limit capped at the buffer.
#![no_main]

use baser_fuzz::Input;
use libfuzzer_sys::fuzz_target;
use mac_core::rx::{FrameEnd, MacRx, RxClass, RxConfig, RxState, StartPosition};
use mac_core::{MaxFrameLength, RxStats};
use pcs_core::{ControlChar, XgmiiWord};

const SMALL: usize = 100;

#[derive(Clone, Debug, PartialEq)]
struct Got {
    class: RxClass,
    data: Vec<u8>,
    len: usize,
    fcs_ok: bool,
    start: StartPosition,
    gap: Option<u64>,
    end: FrameEnd,
    control: bool,
}

/// The reference receiver: one lane at a time, whole frames kept.
#[derive(Default)]
struct Reference {
    state: Option<u8>, // None idle, Some(0..=6) preamble octets seen, Some(7) data
    buf: Vec<u8>,
    preamble_ok: bool,
    error: bool,
    start: (u64, u8),
    last_end: Option<u64>,
    starts: u64,
    misaligned: u64,
    frames: Vec<RefFrame>,
}

/// A frame of the reference receiver: class, octets, FCS good, start (transfer, lane), the
/// end of the previous frame, how it ended.
type RefFrame = (RxClass, Vec<u8>, bool, (u64, u8), Option<u64>, FrameEnd);

fn fcs_ok(data: &[u8]) -> bool {
    let Some(n) = data.len().checked_sub(4) else {
        return false;
    };
    let fcs = u32::from_le_bytes([data[n], data[n + 1], data[n + 2], data[n + 3]]);
    crc32fast::hash(&data[..n]) == fcs
}

fn limit(max: MaxFrameLength, data: &[u8], n: usize) -> usize {
    let l = match max {
        MaxFrameLength::Basic if data.len() >= 14 && data[12..14] == [0x81, 0x00] => 1522,
        MaxFrameLength::Basic => 1518,
        MaxFrameLength::Envelope => 2000,
        MaxFrameLength::Jumbo => 9018,
        MaxFrameLength::Octets(v) => usize::from(v),
    };
    l.min(n.max(64))
}

impl Reference {
    fn run(&mut self, words: &[XgmiiWord], max: MaxFrameLength, n: usize) {
        for (wi, w) in words.iter().enumerate() {
            for lane in 0..8u8 {
                let octet = (w.data >> (8 * lane)) as u8;
                let pos = wi as u64 * 8 + u64::from(lane);
                if w.ctrl >> lane & 1 == 0 {
                    match self.state {
                        None => {}
                        Some(7) => self.buf.push(octet),
                        Some(k) => {
                            if octet != if k < 6 { 0x55 } else { 0xd5 } {
                                self.preamble_ok = false;
                            }
                            self.state = Some(k + 1);
                        }
                    }
                    continue;
                }
                if let Some(k) = self.state {
                    if octet == 0xfe {
                        self.error = true;
                        continue;
                    }
                    let end = if octet == 0xfd {
                        FrameEnd::Terminate
                    } else {
                        FrameEnd::Control(ControlChar(octet))
                    };
                    let len = self.buf.len();
                    let good = fcs_ok(&self.buf);
                    let class = if self.error {
                        RxClass::ErrorCharacter
                    } else if end != FrameEnd::Terminate {
                        RxClass::Truncated
                    } else if k != 7 || !self.preamble_ok {
                        RxClass::BadPreamble
                    } else if len > limit(max, &self.buf, n) {
                        RxClass::FrameTooLong
                    } else if len < 64 {
                        if good {
                            RxClass::Runt
                        } else {
                            RxClass::Fragment
                        }
                    } else if !good {
                        RxClass::FrameCheckSequenceError
                    } else {
                        RxClass::Ok
                    };
                    let start = self.start.0 * 8 + u64::from(self.start.1);
                    let gap = self.last_end.map(|e| start - e);
                    self.last_end = Some(pos);
                    let data = std::mem::take(&mut self.buf);
                    self.frames.push((class, data, good, self.start, gap, end));
                    self.state = None;
                }
                if octet == 0xfb {
                    if lane == 0 || lane == 4 {
                        self.starts += 1;
                        self.state = Some(0);
                        self.buf.clear();
                        self.preamble_ok = true;
                        self.error = false;
                        self.start = (wi as u64, lane);
                    } else {
                        self.misaligned += 1;
                    }
                }
            }
        }
    }
}

fn check_against<const N: usize>(
    got: &[Got],
    rx: &MacRx<N>,
    reference: &Reference,
    words: &[XgmiiWord],
) {
    let s = rx.stats();
    assert_eq!(s.starts, reference.starts, "starts");
    assert_eq!(
        s.misaligned_starts, reference.misaligned,
        "misaligned starts"
    );
    let open = u64::from(rx.state() != RxState::Idle);
    assert_eq!(open, u64::from(reference.state.is_some()));
    assert_eq!(
        got.len() as u64 + open,
        s.starts,
        "a start not accounted for"
    );
    assert_eq!(got.len(), reference.frames.len());
    for (i, (g, r)) in got.iter().zip(&reference.frames).enumerate() {
        let (class, data, good, start, gap, end) = r;
        assert_eq!(g.class, *class, "frame {i}");
        assert_eq!(g.len, data.len(), "frame {i}");
        assert_eq!(g.data, data[..data.len().min(N)], "frame {i}");
        assert_eq!(g.fcs_ok, *good, "frame {i}");
        assert_eq!((g.start.word, g.start.lane), *start, "frame {i}");
        assert_eq!(g.gap, *gap, "frame {i}");
        assert_eq!(g.end, *end, "frame {i}");
        // The start really is an /S/ in lane 0 or 4 of that transfer.
        let w = words[g.start.word as usize];
        assert!(g.start.lane == 0 || g.start.lane == 4);
        assert!(w.is_control(g.start.lane.into()) && w.octet(g.start.lane.into()) == 0xfb);
        assert!(!g.control || g.class == RxClass::Ok);
    }
    check_stats(s, got);
}

fn check_stats(s: &RxStats, got: &[Got]) {
    let count = |c: RxClass| got.iter().filter(|g| g.class == c).count() as u64;
    let ok: Vec<&Got> = got.iter().filter(|g| g.class == RxClass::Ok).collect();
    assert_eq!(s.frames_received_ok, ok.len() as u64);
    assert_eq!(
        s.frames_received_ok + s.frames_received_bad,
        got.len() as u64
    );
    assert_eq!(
        s.frames_received_bad,
        s.frame_check_sequence_errors
            + s.frame_too_long_errors
            + s.undersize_frames
            + s.fragments
            + s.symbol_error_frames
            + s.truncated_frames
            + s.bad_preamble_frames
    );
    assert_eq!(
        s.frame_check_sequence_errors,
        count(RxClass::FrameCheckSequenceError)
    );
    assert_eq!(s.frame_too_long_errors, count(RxClass::FrameTooLong));
    assert_eq!(s.undersize_frames, count(RxClass::Runt));
    assert_eq!(s.fragments, count(RxClass::Fragment));
    assert_eq!(s.symbol_error_frames, count(RxClass::ErrorCharacter));
    assert_eq!(s.truncated_frames, count(RxClass::Truncated));
    assert_eq!(s.bad_preamble_frames, count(RxClass::BadPreamble));
    let jabbers = got
        .iter()
        .filter(|g| g.class == RxClass::FrameTooLong && !g.fcs_ok)
        .count() as u64;
    assert_eq!(s.jabbers, jabbers);
    assert!(s.jabbers <= s.frame_too_long_errors);
    assert_eq!(
        s.octets_received_ok,
        ok.iter().map(|g| g.len as u64).sum::<u64>()
    );
    let bcast = ok.iter().filter(|g| g.data[..6] == [0xff; 6]).count() as u64;
    let mcast = ok.iter().filter(|g| g.data[0] & 1 == 1).count() as u64 - bcast;
    let vlan = ok.iter().filter(|g| g.data[12..14] == [0x81, 0x00]).count() as u64;
    assert_eq!(s.broadcast_frames_received_ok, bcast);
    assert_eq!(s.multicast_frames_received_ok, mcast);
    assert_eq!(s.vlan_tagged_frames_received_ok, vlan);
    let control = ok.iter().filter(|g| g.control).count() as u64;
    assert_eq!(s.mac_control_frames_received, control);
    assert_eq!(
        s.mac_control_frames_received,
        s.pause_mac_ctrl_frames_received + s.pfc_frames_received + s.unsupported_opcodes_received
    );
}

fn collect<const N: usize>(rx: &mut MacRx<N>, words: &[XgmiiWord], one_by_one: bool) -> Vec<Got> {
    let mut got = Vec::new();
    let mut take = |f: &mac_core::RxFrame<'_>| {
        got.push(Got {
            class: f.class,
            data: f.data.to_vec(),
            len: f.len,
            fcs_ok: f.fcs_ok,
            start: f.start,
            gap: f.gap_octets,
            end: f.end,
            control: f.control.is_some(),
        })
    };
    if one_by_one {
        for &w in words {
            rx.push(w, &mut take);
        }
    } else {
        rx.push_slice(words, &mut take);
    }
    got
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let knob = input.u8();
    let max = match knob % 5 {
        0 => MaxFrameLength::Basic,
        1 => MaxFrameLength::Envelope,
        2 => MaxFrameLength::Jumbo,
        _ => MaxFrameLength::Octets(input.u16()),
    };
    let mut words = Vec::with_capacity(input.len() / 9);
    while !input.is_empty() {
        let ctrl = input.u8();
        words.push(XgmiiWord::new(input.u64(), ctrl));
    }
    let config = RxConfig {
        max_frame_length: max,
    };

    let mut a = MacRx::<{ mac_core::frame::MAX_FRAME_OCTETS }>::new(config);
    let got_a = collect(&mut a, &words, false);
    let mut b = MacRx::<{ mac_core::frame::MAX_FRAME_OCTETS }>::new(config);
    let got_b = collect(&mut b, &words, true);
    assert_eq!(got_a, got_b, "push_slice and push disagree");
    assert_eq!(a.stats(), b.stats());
    assert_eq!(a.words_seen(), words.len() as u64);

    let mut reference = Reference::default();
    reference.run(&words, max, mac_core::frame::MAX_FRAME_OCTETS);
    check_against(&got_a, &a, &reference, &words);

    let mut c = MacRx::<SMALL>::new(config);
    let got_c = collect(&mut c, &words, false);
    let mut reference = Reference::default();
    reference.run(&words, max, SMALL);
    check_against(&got_c, &c, &reference, &words);
});
