//! The verdict on a wire run: which expected frame each received frame is, by content.
//!
//! The receiver thread only *identifies* frames ([`Expectation::identify`]): a frame is an
//! expected content (content mode) or an expected position (tag mode, a sequence number at a
//! fixed offset), or unknown. After the run [`judge`] assigns them:
//! 1. each identified frame takes the first expected position of its content not yet taken
//!    (tag mode: its own position); when none is left it is a *duplicate*;
//! 2. a matched frame is *reordered* when it arrives after a frame of a later position
//!    (RFC 4737: its position is below the next expected one), otherwise *matched*; with
//!    `ordered == false` order is not judged;
//! 3. an unknown frame is *corrupted* when it resembles (at least 3/4 of its octets equal, at
//!    the same offsets) an expected frame not received, between the in-order neighbours of its
//!    arrival (tag mode: the position its tag names); the first differing octet is reported;
//! 4. what is left is *missing* (expected) or *unexpected* (received): unrelated traffic on the
//!    link never takes a test frame's place, because it never has a test frame's content.
//!
//! A receiver cannot remove padding: contents are compared padded to 60 octets with zeros.

use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Frames shorter than this (without FCS) arrive padded with zeros.
pub const MIN_UNPADDED: usize = 60;

/// A fast hasher over whole 8-octet words (frame contents are hashed per received frame).
#[derive(Default)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        let mut h = self.0 ^ bytes.len() as u64;
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        self.0 = h;
    }
}

type FrameMap = HashMap<Vec<u8>, u32, BuildHasherDefault<WordHasher>>;

/// What a received frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ident {
    /// The content of expected frame id (content mode).
    Content(u32),
    /// Expected position (tag mode).
    Position(u64),
    /// Nothing expected has this content.
    Unknown,
}

/// One frame as the receiver recorded it.
#[derive(Clone, Debug)]
pub struct Received {
    /// What it is.
    pub ident: Ident,
    /// Its length as delivered (VLAN tag re-inserted).
    pub length: usize,
    /// Receive time, ns since the epoch.
    pub time_ns: i64,
    /// Its content, kept for unknown frames only (corruption analysis and the report).
    pub data: Option<Vec<u8>>,
}

/// The frames a run must receive, in order.
pub struct Expectation {
    /// Distinct contents, padded to 60 octets.
    contents: Vec<Vec<u8>>,
    table: FrameMap,
    /// Content id of each record of the capture, in order.
    pattern: Vec<u32>,
    total: u64,
    tag: Option<usize>,
    strip_fcs: bool,
}

fn padded(data: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    if d.len() < MIN_UNPADDED {
        d.resize(MIN_UNPADDED, 0);
    }
    d
}

impl Expectation {
    /// `records` repeated until `total` positions; `tag` is the offset of a 32-bit big-endian
    /// sequence number written into every frame (positions modulo 2^32); `strip_fcs` also
    /// recognises a received frame that still carries 4 trailing FCS octets.
    pub fn new(records: &[Vec<u8>], total: u64, tag: Option<usize>, strip_fcs: bool) -> Self {
        let mut table = FrameMap::default();
        let mut contents = Vec::new();
        let mut pattern = Vec::with_capacity(records.len());
        for r in records {
            let key = padded(r);
            let id = *table.entry(key.clone()).or_insert_with(|| {
                contents.push(key);
                (contents.len() - 1) as u32
            });
            pattern.push(id);
        }
        Self {
            contents,
            table,
            pattern,
            total: if records.is_empty() { 0 } else { total },
            tag,
            strip_fcs,
        }
    }

    /// Positions expected.
    pub fn total(&self) -> u64 {
        self.total
    }

    fn id_at(&self, position: u64) -> u32 {
        let n = self.pattern.len() as u64;
        if n == 0 {
            return 0;
        }
        self.pattern
            .get((position % n) as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Index of the capture record sent at `position`.
    pub fn record_at(&self, position: u64) -> u64 {
        let n = self.pattern.len().max(1) as u64;
        position % n
    }

    /// The content expected at `position` (padded; tag written in tag mode).
    pub fn content(&self, position: u64) -> Cow<'_, [u8]> {
        let base = self
            .contents
            .get(self.id_at(position) as usize)
            .map_or(&[][..], Vec::as_slice);
        match self.tag {
            None => Cow::Borrowed(base),
            Some(off) => {
                let mut v = base.to_vec();
                if let Some(t) = v.get_mut(off..off + 4) {
                    t.copy_from_slice(&(position as u32).to_be_bytes());
                }
                Cow::Owned(v)
            }
        }
    }

    /// Identifies a received frame (DA onwards, VLAN tag in place).
    pub fn identify(&self, data: &[u8]) -> Ident {
        let ident = self.identify_exact(data);
        match ident {
            Ident::Unknown if self.strip_fcs && data.len() >= 4 + 14 => {
                self.identify_exact(data.get(..data.len() - 4).unwrap_or_default())
            }
            i => i,
        }
    }

    fn identify_exact(&self, data: &[u8]) -> Ident {
        let key: Cow<'_, [u8]> = if data.len() < MIN_UNPADDED {
            Cow::Owned(padded(data))
        } else {
            Cow::Borrowed(data)
        };
        match self.tag {
            None => self
                .table
                .get(key.as_ref())
                .map_or(Ident::Unknown, |&id| Ident::Content(id)),
            Some(off) => {
                let Some(t) = key.get(off..off + 4) else {
                    return Ident::Unknown;
                };
                let tag = u32::from_be_bytes([t[0], t[1], t[2], t[3]]);
                // Positions beyond 2^32 wrap: take the latest position with this tag.
                if self.total == 0 {
                    return Ident::Unknown;
                }
                let wraps = (self.total - 1) >> 32;
                let mut p = (wraps << 32) | u64::from(tag);
                if p >= self.total {
                    match p.checked_sub(1 << 32) {
                        Some(q) => p = q,
                        None => return Ident::Unknown,
                    }
                }
                let want = self.content(p);
                if want.as_ref() == key.as_ref() {
                    Ident::Position(p)
                } else {
                    Ident::Unknown
                }
            }
        }
    }

    /// The position a corrupted frame's tag names, if it is in range.
    fn tagged_position(&self, data: &[u8]) -> Option<u64> {
        let off = self.tag?;
        let t = data.get(off..off + 4)?;
        let p = u64::from(u32::from_be_bytes([t[0], t[1], t[2], t[3]]));
        (p < self.total).then_some(p)
    }
}

/// The class of one expected frame.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Received intact, in order.
    Matched,
    /// Received intact after a frame of a later position.
    Reordered,
    /// Received with different content.
    Corrupted,
    /// Not received.
    Missing,
}

/// Where a corrupted frame first differs from the expected one.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Difference {
    /// Octet offset (0 = first octet of the destination address).
    pub offset: usize,
    /// The expected octet (absent past the expected frame's end).
    pub expected: Option<u8>,
    /// The received octet (absent past the received frame's end).
    pub actual: Option<u8>,
}

/// The verdict on one expected position.
#[derive(Clone, Debug, Serialize)]
pub struct FrameVerdict {
    /// Position in the expected sequence.
    pub position: u64,
    /// Its record in the capture.
    pub record: u64,
    /// Expected length (without FCS, before padding).
    pub length: usize,
    /// What happened.
    pub class: Class,
    /// Arrival index of the received frame it was paired with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received_index: Option<u64>,
    /// Extra copies received.
    #[serde(skip_serializing_if = "is_zero")]
    pub duplicates: u32,
    /// Receive time minus send time (loopback), ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ns: Option<i64>,
    /// First differing octet (corrupted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_difference: Option<Difference>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl FrameVerdict {
    /// True unless matched in order exactly once.
    pub fn failed(&self) -> bool {
        self.class != Class::Matched || self.duplicates > 0
    }
}

/// A received frame that is no expected frame.
#[derive(Clone, Debug, Serialize)]
pub struct Unexpected {
    /// Arrival index.
    pub received_index: u64,
    /// Length.
    pub length: usize,
    /// Its first octets (up to 64), hex.
    pub head: String,
    /// Its EtherType (after one VLAN tag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ether_type: Option<String>,
}

/// A received extra copy of an expected frame.
#[derive(Clone, Debug, Serialize)]
pub struct Duplicate {
    /// Arrival index.
    pub received_index: u64,
    /// The expected position it repeats.
    pub position: u64,
}

/// How many of each.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    /// Expected positions.
    pub expected: u64,
    /// Received frames (all, including unrelated traffic).
    pub received: u64,
    /// Matched in order.
    pub matched: u64,
    /// Received out of order.
    pub reordered: u64,
    /// Received with different content.
    pub corrupted: u64,
    /// Not received.
    pub missing: u64,
    /// Extra copies.
    pub duplicated: u64,
    /// Received frames that are no expected frame.
    pub unexpected: u64,
}

/// The whole verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Judgement {
    /// Totals.
    pub counts: Counts,
    /// One per expected position.
    #[serde(skip)]
    pub frames: Vec<FrameVerdict>,
    /// Extra copies.
    pub duplicates: Vec<Duplicate>,
    /// Unrelated frames.
    pub unexpected: Vec<Unexpected>,
}

fn first_difference(e: &[u8], r: &[u8]) -> Option<Difference> {
    let n = e.len().max(r.len());
    (0..n)
        .find(|&i| e.get(i) != r.get(i))
        .map(|offset| Difference {
            offset,
            expected: e.get(offset).copied(),
            actual: r.get(offset).copied(),
        })
}

/// True when at least 3/4 of the octets of the longer frame are equal at the same offsets.
fn resembles(e: &[u8], r: &[u8]) -> bool {
    let n = e.len().max(r.len());
    let same = e.iter().zip(r).filter(|(a, b)| a == b).count();
    n > 0 && same * 4 >= n * 3
}

/// Candidates looked at for one unknown frame (nearest first).
const WINDOW: usize = 256;

/// Judges the received frames against the expectation. `sent_ns` holds the send time of each
/// position (empty: no latency); `lengths` the unpadded length of each capture record.
pub fn judge(
    exp: &Expectation,
    lengths: &[usize],
    received: &[Received],
    sent_ns: &[i64],
    ordered: bool,
) -> Judgement {
    let total = exp.total as usize;
    let mut taken: Vec<Option<u64>> = vec![None; total];
    let mut dups = vec![0u32; total];
    let mut duplicates = Vec::new();
    // Content mode: per content id, its positions in order and a cursor.
    let mut positions: Vec<Vec<u64>> = vec![Vec::new(); exp.contents.len()];
    if exp.tag.is_none() {
        for p in 0..exp.total {
            if let Some(v) = positions.get_mut(exp.id_at(p) as usize) {
                v.push(p);
            }
        }
    }
    let mut cursor = vec![0usize; exp.contents.len()];
    // Arrival order of matched positions: (arrival index, position).
    let mut arrivals: Vec<(usize, u64)> = Vec::new();
    let mut unknown: Vec<usize> = Vec::new();
    for (i, r) in received.iter().enumerate() {
        let pos = match r.ident {
            Ident::Content(c) => {
                let list = positions.get(c as usize).map_or(&[][..], Vec::as_slice);
                let cur = cursor.get_mut(c as usize);
                match cur {
                    Some(cur) if *cur < list.len() => {
                        let p = list.get(*cur).copied();
                        *cur += 1;
                        p.map(|p| (p, false))
                    }
                    Some(cur) => list.get(cur.saturating_sub(1)).map(|&p| (p, true)),
                    None => None,
                }
            }
            Ident::Position(p) => match taken.get(p as usize) {
                Some(None) => Some((p, false)),
                Some(Some(_)) => Some((p, true)),
                None => None,
            },
            Ident::Unknown => None,
        };
        match pos {
            Some((p, false)) => {
                if let Some(t) = taken.get_mut(p as usize) {
                    *t = Some(i as u64);
                }
                arrivals.push((i, p));
            }
            Some((p, true)) => {
                if let Some(d) = dups.get_mut(p as usize) {
                    *d += 1;
                }
                duplicates.push(Duplicate {
                    received_index: i as u64,
                    position: p,
                });
            }
            None => unknown.push(i),
        }
    }
    // Order (RFC 4737): late arrivals are reordered; the rest form the in-order spine.
    let mut reordered = vec![false; total];
    let mut spine: Vec<(usize, u64)> = Vec::new();
    let mut next_expected = 0u64;
    for &(i, p) in &arrivals {
        if ordered && p < next_expected {
            if let Some(r) = reordered.get_mut(p as usize) {
                *r = true;
            }
        } else {
            next_expected = next_expected.max(p + 1);
            spine.push((i, p));
        }
    }
    // Corruption: pair unknown frames with unreceived positions near them.
    let mut corrupted: Vec<Option<(u64, Difference)>> = vec![None; total];
    let mut unexpected = Vec::new();
    for &i in &unknown {
        let Some(r) = received.get(i) else { continue };
        let data = r.data.as_deref().unwrap_or_default();
        let data = if data.len() < MIN_UNPADDED {
            Cow::Owned(padded(data))
        } else {
            Cow::Borrowed(data)
        };
        let free = |p: u64| {
            matches!(taken.get(p as usize), Some(None))
                && matches!(corrupted.get(p as usize), Some(None))
        };
        let mut found = None;
        if let Some(p) = exp.tagged_position(&data) {
            if free(p) && resembles(&exp.content(p), &data) {
                found = Some(p);
            }
        }
        if found.is_none() {
            // In-order neighbours of arrival i on the spine.
            let k = spine.partition_point(|&(a, _)| a < i);
            let lo = k
                .checked_sub(1)
                .and_then(|j| spine.get(j))
                .map_or(0, |&(_, p)| p + 1);
            let hi = spine.get(k).map_or(exp.total, |&(_, p)| p);
            found = (lo..hi.max(lo))
                .take(WINDOW)
                .find(|&p| free(p) && resembles(&exp.content(p), &data));
        }
        match found {
            Some(p) => {
                let d = first_difference(&exp.content(p), &data).unwrap_or(Difference {
                    offset: 0,
                    expected: None,
                    actual: None,
                });
                if let Some(c) = corrupted.get_mut(p as usize) {
                    *c = Some((i as u64, d));
                }
            }
            None => {
                let raw = r.data.as_deref().unwrap_or_default();
                let head: String = raw.iter().take(64).map(|b| format!("{b:02x}")).collect();
                let et = ether_type(raw).map(|t| format!("0x{t:04x}"));
                unexpected.push(Unexpected {
                    received_index: i as u64,
                    length: r.length,
                    head,
                    ether_type: et,
                });
            }
        }
    }
    let mut counts = Counts {
        expected: exp.total,
        received: received.len() as u64,
        duplicated: duplicates.len() as u64,
        unexpected: unexpected.len() as u64,
        ..Counts::default()
    };
    let mut frames = Vec::with_capacity(total);
    for p in 0..exp.total {
        let u = p as usize;
        let rec = exp.record_at(p);
        let length = lengths.get(rec as usize).copied().unwrap_or(0);
        let (class, rx, diff) = match (
            taken.get(u).copied().flatten(),
            corrupted.get(u).cloned().flatten(),
        ) {
            (Some(i), _) if reordered.get(u).copied().unwrap_or(false) => {
                (Class::Reordered, Some(i), None)
            }
            (Some(i), _) => (Class::Matched, Some(i), None),
            (None, Some((i, d))) => (Class::Corrupted, Some(i), Some(d)),
            (None, None) => (Class::Missing, None, None),
        };
        match class {
            Class::Matched => counts.matched += 1,
            Class::Reordered => counts.reordered += 1,
            Class::Corrupted => counts.corrupted += 1,
            Class::Missing => counts.missing += 1,
        }
        let latency_ns = match (class, rx) {
            (Class::Matched | Class::Reordered, Some(i)) => {
                match (received.get(i as usize), sent_ns.get(u)) {
                    (Some(r), Some(&s)) if s > 0 => Some(r.time_ns - s),
                    _ => None,
                }
            }
            _ => None,
        };
        frames.push(FrameVerdict {
            position: p,
            record: rec,
            length,
            class,
            received_index: rx,
            duplicates: dups.get(u).copied().unwrap_or(0),
            latency_ns,
            first_difference: diff,
        });
    }
    Judgement {
        counts,
        frames,
        duplicates,
        unexpected,
    }
}

/// The EtherType of a frame, after one VLAN tag.
pub fn ether_type(frame: &[u8]) -> Option<u16> {
    let t = |o: usize| {
        frame
            .get(o..o + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
    };
    match t(12)? {
        0x8100 | 0x88a8 => t(16),
        x => Some(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(n: usize, len: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                let mut f = vec![0u8; len];
                f[..6].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
                f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
                f[12..14].copy_from_slice(&[0x88, 0xb5]);
                for (j, b) in f[14..].iter_mut().enumerate() {
                    *b = (i * 7 + j) as u8;
                }
                f[20..24].copy_from_slice(&(i as u32).to_be_bytes());
                f
            })
            .collect()
    }

    fn rx(exp: &Expectation, data: &[u8]) -> Received {
        let ident = exp.identify(data);
        Received {
            ident,
            length: data.len(),
            time_ns: 0,
            data: (ident == Ident::Unknown).then(|| data.to_vec()),
        }
    }

    fn run(f: &[Vec<u8>], got: &[Vec<u8>], ordered: bool) -> Judgement {
        let exp = Expectation::new(f, f.len() as u64, None, false);
        let r: Vec<Received> = got.iter().map(|d| rx(&exp, d)).collect();
        let lens: Vec<usize> = f.iter().map(Vec::len).collect();
        judge(&exp, &lens, &r, &[], ordered)
    }

    #[test]
    fn every_frame_back_in_order_is_matched() {
        let f = frames(20, 64);
        let j = run(&f, &f, true);
        assert_eq!(
            (j.counts.matched, j.counts.missing, j.counts.unexpected),
            (20, 0, 0)
        );
    }

    #[test]
    fn a_dropped_frame_is_missing_and_nothing_else() {
        let f = frames(20, 64);
        let got: Vec<_> = f
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 7)
            .map(|(_, d)| d.clone())
            .collect();
        let j = run(&f, &got, true);
        assert_eq!(j.counts.missing, 1);
        assert_eq!(j.counts.matched, 19);
        assert_eq!(j.frames[7].class, Class::Missing);
    }

    #[test]
    fn a_late_frame_is_reordered_and_unordered_mode_accepts_it() {
        let f = frames(10, 64);
        let mut got = f.clone();
        got.swap(3, 4); // 4 overtakes 3: 3 arrives late
        let j = run(&f, &got, true);
        assert_eq!(j.counts.reordered, 1);
        assert_eq!(j.frames[3].class, Class::Reordered);
        assert_eq!(j.counts.matched, 9);
        let j = run(&f, &got, false);
        assert_eq!(j.counts.matched, 10);
    }

    #[test]
    fn a_flipped_bit_is_corrupted_at_its_octet() {
        let f = frames(10, 100);
        let mut got = f.clone();
        got[5][50] ^= 1;
        let j = run(&f, &got, true);
        assert_eq!(j.counts.corrupted, 1);
        assert_eq!((j.counts.missing, j.counts.unexpected), (0, 0));
        let d = j.frames[5].first_difference.clone().unwrap();
        assert_eq!(
            (d.offset, d.expected, d.actual),
            (50, Some(f[5][50]), Some(f[5][50] ^ 1))
        );
    }

    #[test]
    fn a_second_copy_is_duplicated() {
        let f = frames(10, 64);
        let mut got = f.clone();
        got.insert(3, f[2].clone());
        let j = run(&f, &got, true);
        assert_eq!((j.counts.duplicated, j.counts.matched), (1, 10));
        assert_eq!(j.duplicates[0].position, 2);
        assert_eq!(j.frames[2].duplicates, 1);
    }

    #[test]
    fn unrelated_traffic_is_unexpected_and_not_corrupted_even_next_to_a_missing_frame() {
        let f = frames(10, 86);
        let mut got = f.clone();
        got.remove(4);
        // An IPv6 neighbour solicitation of the same length, where frame 4 should be.
        let mut ns = vec![0u8; 86];
        ns[..6].copy_from_slice(&[0x33, 0x33, 0xff, 0, 0, 1]);
        ns[12..14].copy_from_slice(&[0x86, 0xdd]);
        got.insert(4, ns);
        let j = run(&f, &got, true);
        assert_eq!(
            (j.counts.unexpected, j.counts.missing, j.counts.corrupted),
            (1, 1, 0)
        );
        assert_eq!(j.unexpected[0].ether_type.as_deref(), Some("0x86dd"));
    }

    #[test]
    fn runts_match_their_padded_form() {
        let mut f = frames(2, 60);
        f[0].truncate(20);
        let mut got = f.clone();
        got[0].resize(60, 0);
        let j = run(&f, &got, true);
        assert_eq!(j.counts.matched, 2);
        assert_eq!(j.frames[0].length, 20);
    }

    #[test]
    fn tag_mode_tells_identical_frames_apart() {
        let f = vec![frames(1, 64)[0].clone()];
        let exp = Expectation::new(&f, 5, Some(30), false);
        let sent: Vec<Vec<u8>> = (0..5).map(|p| exp.content(p).into_owned()).collect();
        let got = [&sent[0], &sent[2], &sent[1], &sent[4]];
        let r: Vec<Received> = got.iter().map(|d| rx(&exp, d)).collect();
        let j = judge(&exp, &[64], &r, &[], true);
        assert_eq!(j.frames[3].class, Class::Missing);
        assert_eq!(j.frames[1].class, Class::Reordered);
        assert_eq!(
            (j.counts.matched, j.counts.missing, j.counts.reordered),
            (3, 1, 1)
        );
    }

    #[test]
    fn a_trailing_fcs_is_recognised_when_asked() {
        let f = frames(1, 64);
        let mut with = f[0].clone();
        with.extend_from_slice(&mac_core::frame::fcs(&f[0]).to_le_bytes());
        let exp = Expectation::new(&f, 1, None, true);
        assert_eq!(exp.identify(&with), Ident::Content(0));
        let exp = Expectation::new(&f, 1, None, false);
        assert_eq!(exp.identify(&with), Ident::Unknown);
    }
}
