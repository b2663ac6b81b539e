//! The frame judge through `check`'s door (`baser_engine::judge::compare`) on arbitrary pairs of
//! expected and received frame lists.
//!
//! Input: a count of expected frames, each from a small alphabet of lengths (around the
//! 60-octet padding limit) and fill octets so that equal contents occur; then received
//! frames, each a copy of an expected frame (padded or exact, perhaps with one octet
//! changed) or a frame of its own, with a MAC class.
//!
//! Invariants:
//! - one result per expected frame, in expected order, with its index and length;
//! - every received frame is used exactly once: by one matched / reordered / corrupted
//!   result or as one extra frame; so matched + reordered + corrupted + missing == expected
//!   and matched + reordered + corrupted + extra == received;
//! - a matched or reordered frame has the expected content (padded to 60, or exact); a
//!   corrupted one reports the first octet where they differ, correctly; the matched ones
//!   are in receive order; a duplicate names an expected frame with that content;
//! - order is RFC 4737's: a frame received intact is reordered exactly when a frame of a later
//!   expected position was received intact before it;
//! - a corrupted frame resembles its expected frame (3/4 of the octets of the longer equal at
//!   the same offsets, checked here independently) or lies between its in-order neighbours;
//! - "missing" means not received in any form: no frame left over as unexpected resembles a
//!   missing expected frame;
//! - the expected frames received intact and in order are all matched, with nothing extra.
#![no_main]

use baser_engine::judge::{compare, content, Expected, Status, MIN_UNPADDED};
use baser_engine::rx::{class_name, ReceivedFrame};
use baser_engine::tx::Placement;
use baser_fuzz::Input;
use libfuzzer_sys::fuzz_target;
use mac_core::rx::RxClass;

const LENGTHS: [usize; 8] = [0, 1, 14, 59, 60, 61, 64, 100];
const CLASSES: [RxClass; 8] = [
    RxClass::Ok,
    RxClass::Ok,
    RxClass::Ok,
    RxClass::FrameCheckSequenceError,
    RxClass::Runt,
    RxClass::Truncated,
    RxClass::ErrorCharacter,
    RxClass::FrameTooLong,
];

fn padded(e: &Expected) -> Vec<u8> {
    let mut d = e.data.clone();
    if d.len() < MIN_UNPADDED {
        d.resize(MIN_UNPADDED, 0);
    }
    d
}

/// The form of `e` a received frame is compared with: exact when both are runts.
fn form(e: &Expected, body: &[u8]) -> Vec<u8> {
    if e.data.len() < MIN_UNPADDED && body.len() < MIN_UNPADDED {
        e.data.clone()
    } else {
        padded(e)
    }
}

/// The 3/4 rule, written out independently of the judge.
fn alike(e: &[u8], r: &[u8]) -> bool {
    let n = e.len().max(r.len());
    let mut same = 0;
    for i in 0..e.len().min(r.len()) {
        if e[i] == r[i] {
            same += 1;
        }
    }
    n > 0 && 4 * same >= 3 * n
}

fn received(index: usize, body: Vec<u8>, class: RxClass) -> ReceivedFrame {
    let mut data = body;
    data.extend([0xde, 0xad, 0xbe, 0xef]);
    ReceivedFrame {
        index: index as u64,
        class,
        len: data.len(),
        data,
        fcs_ok: class == RxClass::Ok,
        start: Placement {
            block: index as u64 * 20,
            lane: if index.is_multiple_of(2) { 0 } else { 4 },
        },
        gap_octets: None,
        link_down: false,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let n = usize::from(input.u8() % 24);
    let expected: Vec<Expected> = (0..n)
        .map(|i| {
            let k = input.u8();
            let mut data = vec![k >> 3 & 3; LENGTHS[usize::from(k & 7)]];
            if k & 0x80 != 0 && !data.is_empty() {
                let at = usize::from(input.u8()) % data.len();
                data[at] = input.u8();
            }
            Expected {
                index: i as u64 * 3 + 1,
                data,
            }
        })
        .collect();
    let mut recv: Vec<ReceivedFrame> = Vec::new();
    while !input.is_empty() && recv.len() < 64 {
        let op = input.u8();
        let class = CLASSES[usize::from(op >> 5)];
        let body = match (op & 3, expected.len()) {
            (0, _) | (_, 0) => {
                let len = LENGTHS[usize::from(input.u8() & 7)];
                vec![input.u8() & 3; len]
            }
            (1, m) => padded(&expected[usize::from(input.u8()) % m]),
            (2, m) => expected[usize::from(input.u8()) % m].data.clone(),
            _ => {
                let mut d = padded(&expected[usize::from(input.u8()) % expected.len()]);
                let at = usize::from(input.u8()) % d.len();
                d[at] ^= input.u8() | 1;
                d
            }
        };
        recv.push(received(recv.len(), body, class));
    }

    let c = compare(&expected, &recv);
    assert_eq!(c.frames.len(), expected.len());
    let mut used = vec![0u32; recv.len()];
    let mut last_matched: Option<u64> = None;
    for (r, e) in c.frames.iter().zip(&expected) {
        assert_eq!(r.expected_index, e.index);
        assert_eq!(r.length, e.data.len());
        let Some(ri) = r.received_index else {
            assert_eq!(r.status, Status::Missing);
            assert!(r.class.is_none() && r.first_difference.is_none());
            continue;
        };
        assert_ne!(r.status, Status::Missing);
        let got = &recv[ri as usize];
        used[ri as usize] += 1;
        assert_eq!(r.class, Some(class_name(got.class)));
        assert_eq!(r.start_block, Some(got.start.block));
        let body = content(got);
        match r.status {
            Status::Matched | Status::Reordered => {
                assert!(
                    body == padded(e) || body == e.data,
                    "matched with other content"
                );
                assert!(r.first_difference.is_none());
                if r.status == Status::Matched {
                    assert!(
                        last_matched < Some(ri),
                        "matched frames out of receive order"
                    );
                    last_matched = Some(ri);
                }
            }
            Status::Corrupted => {
                let d = r
                    .first_difference
                    .as_ref()
                    .expect("a corrupted frame has a difference");
                let p = form(e, body);
                assert_eq!(p[..d.offset.min(p.len())], body[..d.offset.min(body.len())]);
                assert_eq!(d.expected, p.get(d.offset).copied());
                assert_eq!(d.actual, body.get(d.offset).copied());
                assert_ne!(d.expected, d.actual);
            }
            Status::Missing => unreachable!(),
        }
        assert_eq!(
            r.failed(),
            r.status != Status::Matched || got.class != RxClass::Ok
        );
    }
    for x in &c.extra {
        used[x.received_index as usize] += 1;
        let got = &recv[x.received_index as usize];
        assert_eq!(x.class, class_name(got.class));
        if let Some(dup) = x.duplicate_of {
            let e = expected
                .iter()
                .find(|e| e.index == dup)
                .expect("a real index");
            let body = content(got);
            assert!(body == padded(e) || body == e.data);
        }
    }
    assert!(
        used.iter().all(|&u| u == 1),
        "received frames used {used:?}"
    );
    let count = |s: Status| c.frames.iter().filter(|r| r.status == s).count();
    let (m, o, x, l) = (
        count(Status::Matched),
        count(Status::Reordered),
        count(Status::Corrupted),
        count(Status::Missing),
    );
    assert_eq!(m + o + x + l, expected.len());
    assert_eq!(m + o + x + c.extra.len(), recv.len());
    // RFC 4737: intact frames in receive order; reordered exactly when a later position came
    // before.
    let mut intact: Vec<(u64, usize, Status)> = c
        .frames
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.status, Status::Matched | Status::Reordered))
        .map(|(pos, r)| (r.received_index.unwrap(), pos, r.status))
        .collect();
    intact.sort_unstable_by_key(|t| t.0);
    let mut highest: Option<usize> = None;
    for &(_, pos, status) in &intact {
        let late = highest.is_some_and(|h| h > pos);
        assert_eq!(status == Status::Reordered, late, "RFC 4737 order");
        highest = highest.max(Some(pos));
    }
    // A corrupted frame resembles its expected frame, or lies between its in-order
    // neighbours.
    let spine: Vec<(u64, usize)> = intact
        .iter()
        .filter(|t| t.2 == Status::Matched)
        .map(|t| (t.0, t.1))
        .collect();
    for (pos, r) in c.frames.iter().enumerate() {
        if r.status != Status::Corrupted {
            continue;
        }
        let ri = r.received_index.unwrap();
        let body = content(&recv[ri as usize]);
        let k = spine.partition_point(|&(a, _)| a < ri);
        let lo = k.checked_sub(1).map_or(0, |j| spine[j].1 + 1);
        let hi = spine.get(k).map_or(expected.len(), |s| s.1);
        assert!(
            alike(&form(&expected[pos], body), body) || (lo..hi).contains(&pos),
            "corrupted frame {pos} neither resembles nor sits in its place"
        );
    }
    // Missing: received in no form. No unexpected frame resembles a missing frame.
    for x in c.extra.iter().filter(|x| x.duplicate_of.is_none()) {
        let body = content(&recv[x.received_index as usize]);
        for (e, r) in expected.iter().zip(&c.frames) {
            if r.status == Status::Missing {
                assert!(
                    !alike(&form(e, body), body),
                    "unexpected frame {} resembles missing frame {}",
                    x.received_index,
                    e.index
                );
            }
        }
    }

    // The expected frames received intact, in order: all matched.
    let intact: Vec<ReceivedFrame> = expected
        .iter()
        .enumerate()
        .map(|(i, e)| received(i, padded(e), RxClass::Ok))
        .collect();
    let c = compare(&expected, &intact);
    assert!(c.extra.is_empty());
    assert!(c
        .frames
        .iter()
        .all(|r| r.status == Status::Matched && !r.failed()));
});
