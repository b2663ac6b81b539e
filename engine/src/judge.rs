//! Frame-by-frame comparison of what a DUT delivered with what was expected.
//!
//! Matching works on content, then order:
//! 1. every received frame is matched to the first unused expected frame with the same
//!    content (an expected frame shorter than 60 octets matches its zero-padded form, since a
//!    receiver cannot remove padding);
//! 2. the longest run of matches whose expected order is increasing is "in order"; the other
//!    matches are "reordered";
//! 3. an unmatched received frame between two in-order matches is paired with the first
//!    unmatched expected frame between the same two: "corrupted", with the first differing
//!    octet;
//! 4. what is left is "missing" (expected) or "extra" (received).
//!
//! A matched frame whose FCS was bad, or that the MAC classified as anything but ok, fails
//! too.

use crate::rx::{class_name, ReceivedFrame};
use mac_core::rx::RxClass;
use serde::Serialize;
use std::collections::HashMap;

/// Minimum frame length without FCS: shorter expected frames arrive padded to this.
pub const MIN_UNPADDED: usize = 60;

/// An expected frame, as the model's MAC will send it (without FCS).
#[derive(Clone, Debug)]
pub struct Expected {
    /// Record index in the expected capture.
    pub index: u64,
    /// DA to end of payload.
    pub data: Vec<u8>,
}

impl Expected {
    /// The content a receiver delivers: padded to 60 octets with zeros.
    pub fn padded(&self) -> Vec<u8> {
        let mut d = self.data.clone();
        if d.len() < MIN_UNPADDED {
            d.resize(MIN_UNPADDED, 0);
        }
        d
    }
}

/// The content of a received frame without its FCS.
pub fn content(r: &ReceivedFrame) -> &[u8] {
    let n = r.data.len().saturating_sub(4);
    r.data.get(..n).unwrap_or_default()
}

/// Where two frames first differ.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Difference {
    /// Octet offset in the frame (0 = first octet of the destination address).
    pub offset: usize,
    /// The expected octet (absent past the expected frame's end).
    pub expected: Option<u8>,
    /// The received octet (absent past the received frame's end).
    pub actual: Option<u8>,
    /// The block (transfer) of the DUT stream holding that octet.
    pub block: u64,
    /// Its lane.
    pub lane: u8,
}

/// What happened to one expected frame.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Received intact, in order.
    Matched,
    /// Received intact, out of order.
    Reordered,
    /// Received with different content.
    Corrupted,
    /// Not received.
    Missing,
}

/// The verdict on one expected frame.
#[derive(Clone, Debug, Serialize)]
pub struct FrameResult {
    /// Index in the expected capture.
    pub expected_index: u64,
    /// Its length without FCS.
    pub length: usize,
    /// Matched, reordered, corrupted or missing.
    pub status: Status,
    /// The received frame it was paired with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received_index: Option<u64>,
    /// That frame's MAC classification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<&'static str>,
    /// Its `/S/` block and lane.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_block: Option<u64>,
    /// Lane of the `/S/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_lane: Option<u8>,
    /// First differing octet (corrupted frames).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_difference: Option<Difference>,
}

impl FrameResult {
    /// True unless matched in order with a good classification.
    pub fn failed(&self) -> bool {
        self.status != Status::Matched || self.class != Some("ok")
    }
}

/// A received frame that matched nothing.
#[derive(Clone, Debug, Serialize)]
pub struct ExtraFrame {
    /// Index among received frames.
    pub received_index: u64,
    /// MAC classification.
    pub class: &'static str,
    /// Octets after the SFD.
    pub length: usize,
    /// Its `/S/` block.
    pub start_block: u64,
    /// Its `/S/` lane.
    pub start_lane: u8,
    /// Matches an expected frame that another received frame already matched.
    pub duplicate_of: Option<u64>,
}

/// The comparison of all frames.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// One entry per expected frame, in expected order.
    pub frames: Vec<FrameResult>,
    /// Received frames that matched nothing.
    pub extra: Vec<ExtraFrame>,
}

/// First differing octet of `e` and `r`, placed in the DUT stream.
pub fn difference(e: &[u8], r: &ReceivedFrame) -> Option<Difference> {
    let got = content(r);
    let n = e.len().max(got.len());
    let offset = (0..n).find(|&i| e.get(i) != got.get(i))?;
    // The /S/ octet, six preamble octets and the SFD come before the destination address.
    let octet = r.start.block * 8 + r.start.lane as u64 + 8 + offset as u64;
    Some(Difference {
        offset,
        expected: e.get(offset).copied(),
        actual: got.get(offset).copied(),
        block: octet / 8,
        lane: (octet % 8) as u8,
    })
}

/// Indices (into `seq`) of a longest strictly increasing subsequence.
fn longest_increasing(seq: &[usize]) -> Vec<usize> {
    // Patience sorting with predecessor links.
    let mut tails: Vec<usize> = Vec::new(); // indices into seq
    let mut prev: Vec<Option<usize>> = vec![None; seq.len()];
    for (i, &v) in seq.iter().enumerate() {
        let pos = tails.partition_point(|&t| seq[t] < v);
        prev[i] = pos.checked_sub(1).map(|p| tails[p]);
        if pos == tails.len() {
            tails.push(i);
        } else {
            tails[pos] = i;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(i) = cur {
        out.push(i);
        cur = prev[i];
    }
    out.reverse();
    out
}

/// Compares expected and received frames.
pub fn compare(expected: &[Expected], received: &[ReceivedFrame]) -> Comparison {
    let padded: Vec<Vec<u8>> = expected.iter().map(Expected::padded).collect();
    // Each expected frame is found by its padded form and, when it is short, by its exact
    // form too (a DUT sending runts delivers them unpadded).
    let mut by_content: HashMap<&[u8], std::collections::VecDeque<usize>> = HashMap::new();
    for (i, d) in padded.iter().enumerate() {
        by_content.entry(d.as_slice()).or_default().push_back(i);
        if expected[i].data.len() < MIN_UNPADDED {
            by_content
                .entry(expected[i].data.as_slice())
                .or_default()
                .push_back(i);
        }
    }
    // 1. Content matches, in receive order.
    let mut matched_e: Vec<Option<usize>> = vec![None; received.len()];
    let mut used = vec![false; expected.len()];
    let mut duplicate: Vec<Option<u64>> = vec![None; received.len()];
    for (ri, r) in received.iter().enumerate() {
        let c = content(r);
        if let Some(q) = by_content.get_mut(c) {
            while q.front().is_some_and(|&e| used[e]) {
                q.pop_front();
            }
            if let Some(ei) = q.pop_front() {
                matched_e[ri] = Some(ei);
                used[ei] = true;
            } else if let Some(first) =
                (0..expected.len()).find(|&e| padded[e] == c || expected[e].data == c)
            {
                duplicate[ri] = Some(expected[first].index);
            }
        }
    }
    // 2. In-order matches: a longest increasing run of expected indices.
    let pairs: Vec<(usize, usize)> = matched_e
        .iter()
        .enumerate()
        .filter_map(|(ri, e)| e.map(|e| (ri, e)))
        .collect();
    let in_order: std::collections::HashSet<usize> =
        longest_increasing(&pairs.iter().map(|p| p.1).collect::<Vec<_>>())
            .into_iter()
            .map(|k| pairs[k].0)
            .collect();
    let mut results: Vec<Option<FrameResult>> = vec![None; expected.len()];
    let result =
        |ei: usize, r: &ReceivedFrame, status: Status, diff: Option<Difference>| FrameResult {
            expected_index: expected[ei].index,
            length: expected[ei].data.len(),
            status,
            received_index: Some(r.index),
            class: Some(class_name(r.class)),
            start_block: Some(r.start.block),
            start_lane: Some(r.start.lane),
            first_difference: diff,
        };
    for &(ri, ei) in &pairs {
        let status = if in_order.contains(&ri) {
            Status::Matched
        } else {
            Status::Reordered
        };
        results[ei] = Some(result(ei, &received[ri], status, None));
    }
    // 3. Corrupted: an unmatched received frame pairs with the first unmatched expected frame
    //    between the in-order matches around it.
    let mut anchor_e: Option<usize> = None; // expected index of the last in-order match
    let next_anchor = |from: usize| -> Option<usize> {
        (from..received.len())
            .find(|ri| in_order.contains(ri))
            .and_then(|ri| matched_e[ri])
    };
    let mut extra = Vec::new();
    for (ri, r) in received.iter().enumerate() {
        if let Some(ei) = matched_e[ri] {
            if in_order.contains(&ri) {
                anchor_e = Some(ei);
            }
            continue;
        }
        let lo = anchor_e.map_or(0, |a| a + 1);
        let hi = next_anchor(ri + 1).unwrap_or(expected.len());
        // The unmatched expected frame in range that agrees with it in the most octets.
        let got = content(r);
        let candidate = duplicate[ri]
            .is_none()
            .then(|| {
                (lo..hi).filter(|&e| !used[e]).take(256).max_by_key(|&e| {
                    let same = padded[e].iter().zip(got).filter(|(a, b)| a == b).count();
                    (same, std::cmp::Reverse(e))
                })
            })
            .flatten();
        match candidate {
            Some(ei) => {
                used[ei] = true;
                let diff = difference(&padded[ei], r);
                results[ei] = Some(result(ei, r, Status::Corrupted, diff));
                anchor_e = Some(ei);
            }
            None => extra.push(ExtraFrame {
                received_index: r.index,
                class: class_name(r.class),
                length: r.len,
                start_block: r.start.block,
                start_lane: r.start.lane,
                duplicate_of: duplicate[ri],
            }),
        }
    }
    // 4. Missing.
    let frames = results
        .into_iter()
        .enumerate()
        .map(|(ei, r)| {
            r.unwrap_or(FrameResult {
                expected_index: expected[ei].index,
                length: expected[ei].data.len(),
                status: Status::Missing,
                received_index: None,
                class: None,
                start_block: None,
                start_lane: None,
                first_difference: None,
            })
        })
        .collect();
    Comparison { frames, extra }
}

/// True if the class is a good frame.
pub fn is_good(c: RxClass) -> bool {
    c.is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tx::Placement;

    fn exp(i: u64, fill: u8, len: usize) -> Expected {
        Expected {
            index: i,
            data: vec![fill; len],
        }
    }

    fn rcv(i: u64, fill: u8, len: usize, block: u64) -> ReceivedFrame {
        let mut data = vec![fill; len.max(60)];
        data.extend([0xaa; 4]);
        ReceivedFrame {
            index: i,
            class: RxClass::Ok,
            len: data.len(),
            data,
            fcs_ok: true,
            start: Placement { block, lane: 0 },
            gap_octets: None,
            link_down: false,
        }
    }

    fn statuses(c: &Comparison) -> Vec<Status> {
        c.frames.iter().map(|f| f.status.clone()).collect()
    }

    #[test]
    fn identical_streams_match_in_order() {
        let e: Vec<_> = (0..4).map(|i| exp(i, i as u8, 64)).collect();
        let r: Vec<_> = (0..4).map(|i| rcv(i, i as u8, 64, 10 * i)).collect();
        let c = compare(&e, &r);
        assert_eq!(statuses(&c), vec![Status::Matched; 4]);
        assert!(c.extra.is_empty());
    }

    #[test]
    fn short_expected_frames_match_their_padded_form() {
        let e = vec![Expected {
            index: 0,
            data: vec![7; 20],
        }];
        let mut r = rcv(0, 0, 60, 0);
        r.data[..20].fill(7);
        assert_eq!(statuses(&compare(&e, &[r])), [Status::Matched]);
    }

    #[test]
    fn missing_extra_reordered_and_corrupted_are_told_apart() {
        let e: Vec<_> = (0..6).map(|i| exp(i, i as u8 + 1, 64)).collect();
        // Received: 1, 3, 2 (reordered), 4 corrupted at octet 10, 5 missing, extra 9 at the end.
        let mut bad = rcv(3, 5, 64, 40);
        bad.data[10] ^= 0x80;
        let r = vec![
            rcv(0, 1, 64, 0),
            rcv(1, 3, 64, 10),
            rcv(2, 2, 64, 20),
            bad,
            rcv(4, 6, 64, 50),
            rcv(5, 9, 64, 60),
        ];
        let c = compare(&e, &r);
        // Matches in receive order: e0, e2, e1, e5; the longest in-order run is e0, e1, e5.
        assert_eq!(
            statuses(&c),
            [
                Status::Matched,
                Status::Matched,
                Status::Reordered,
                Status::Missing,
                Status::Corrupted,
                Status::Matched
            ]
        );
        let d = c.frames[4].first_difference.clone().unwrap();
        // /S/ at block 40 lane 0: octet 320 + 8 + 10 = 338 -> block 42, lane 2.
        assert_eq!(
            d,
            Difference {
                offset: 10,
                expected: Some(5),
                actual: Some(5 ^ 0x80),
                block: 42,
                lane: 2
            }
        );
        assert_eq!(c.extra.len(), 1);
        assert_eq!(c.extra[0].received_index, 5);
    }

    #[test]
    fn a_duplicate_is_extra_and_names_the_original() {
        let e = vec![exp(0, 1, 64)];
        let r = vec![rcv(0, 1, 64, 0), rcv(1, 1, 64, 10)];
        let c = compare(&e, &r);
        assert_eq!(statuses(&c), [Status::Matched]);
        assert_eq!(c.extra[0].duplicate_of, Some(0));
    }

    #[test]
    fn longest_increasing_finds_a_longest_run() {
        assert_eq!(longest_increasing(&[0, 2, 1, 3]).len(), 3);
        assert_eq!(longest_increasing(&[3, 2, 1]).len(), 1);
        assert_eq!(longest_increasing(&[]).len(), 0);
    }
}
