//! The frame judge: which expected frame each received frame is, and what happened to every
//! expected frame. One judge for every door: `baser check --frames` calls [`compare`] on the
//! frames a MAC decoded from a DUT's stream; `baser wire` calls [`Expectation::identify`] on
//! every captured frame (on its capture thread) and [`judge`] after the run.
//!
//! Expected frames are *positions* 0, 1, 2, ... in the order they must arrive. Position p is
//! record `p % n` of the expected capture (a capture sent several times over); in *tag mode* a
//! 32-bit big-endian sequence number (p mod 2^32) is written at a fixed offset of every frame,
//! so that identical records are told apart.
//!
//! Forms: a receiver cannot remove padding, so an expected frame is recognised by its form
//! padded with zeros to 60 octets ([`MIN_UNPADDED`]) and, when it is shorter, also by its exact
//! form (a DUT that delivers runts unpadded). A received frame is never padded. A corrupted
//! frame is compared with the exact form when both are shorter than 60 octets, else with the
//! padded one.
//!
//! The rules, in this order:
//! 1. **Identification** ([`Assigner`]): a received frame equal to a form (tag mode: whose tag
//!    names a position whose form it equals) takes the first position of that form not yet
//!    taken (tag mode: the position its tag names). When none is left it is a *duplicate*,
//!    naming the last position a frame of that form took.
//! 2. **Order** (RFC 4737): an identified frame is *reordered* when it arrives after a frame of
//!    a later position, i.e. when its position is below the *next expected* one (one more than
//!    the highest position identified before it); otherwise it is *matched*, and the matched
//!    frames form the in-order *spine*. With `ordered == false` reordered frames count as
//!    matched.
//! 3. **Corrupted, anywhere**: a frame that was not identified and *resembles* (at least 3/4 of
//!    the octets of the longer of the two equal at the same offsets) the form of a position no
//!    frame was identified as is *corrupted* and paired with that position, wherever in the run
//!    it arrived. In tag mode the position its tag names is tried first. Otherwise, when
//!    several unpaired positions resemble it, the nearest to where it arrived wins: the
//!    smallest distance to the next expected position at its arrival, the earlier position on
//!    a tie. Unknown frames are paired in arrival order; each looks at the [`SEARCH`] nearest
//!    unpaired positions (in a run with fewer unpaired positions than that: at all of them),
//!    or at the [`SEARCH_SPENT`] nearest once a run has looked at [`SEARCH_BUDGET`] positions
//!    (many lost frames and many frames resembling none of them: a DUT that rewrites every
//!    frame, a wrong `--expect` capture).
//! 4. **Corrupted in its place** (only with [`JudgeOptions::pair_between_neighbours`], which
//!    `check` sets: a DUT's stream carries nothing but the frames under test): a frame still
//!    unpaired that arrived between two in-order frames is *corrupted* without the resemblance
//!    test, paired with the unpaired position between those two that agrees with it in the
//!    most octets (the earliest on a tie; after a position an earlier such frame of the same
//!    gap took). A frame cut short or with a shifted lane is still that frame. `wire` does not
//!    do this: on a live link unrelated traffic would take a missing frame's place.
//! 5. What is left is *missing* (an expected position received in no form) or *unexpected* (a
//!    received frame).
//!
//! Reports name some of these differently, and keep their names: `check --frames` calls the
//! verdict `status` and counts duplicates and unexpected frames together as `extra` (its
//! `class` is the MAC's classification); `wire` calls the verdict `class`.

use crate::rx::{class_name, FrameRef, ReceivedFrame};
use crate::tx::Placement;
use mac_core::rx::RxClass;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

/// Minimum frame length without FCS: shorter expected frames arrive padded to this.
pub const MIN_UNPADDED: usize = 60;

/// Unpaired positions a frame that was not identified is compared with, nearest first (a bound
/// for runs where many frames were lost and many unrelated frames arrived).
pub const SEARCH: usize = 4096;

/// Positions looked at by all unknown frames of a run before each looks at only
/// [`SEARCH_SPENT`] (a few seconds' work).
pub const SEARCH_BUDGET: u64 = 1 << 25;

/// Unpaired positions an unknown frame is compared with once [`SEARCH_BUDGET`] is spent.
pub const SEARCH_SPENT: usize = 64;

/// `data` padded with zeros to [`MIN_UNPADDED`] octets.
pub fn padded(data: &[u8]) -> Cow<'_, [u8]> {
    if data.len() < MIN_UNPADDED {
        let mut d = data.to_vec();
        d.resize(MIN_UNPADDED, 0);
        Cow::Owned(d)
    } else {
        Cow::Borrowed(data)
    }
}

/// Octets that differ at the same offsets, over the shorter of the two (eight at a time).
fn differing_octets(a: &[u8], b: &[u8]) -> usize {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    let mut n = 0;
    for (x, y) in (&mut ca).zip(&mut cb) {
        let word = |c: &[u8]| {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            u64::from_le_bytes(w)
        };
        let d = word(x) ^ word(y);
        // The top bit of each octet of `t` is set when that octet of `d` is not zero.
        let t = ((d & LOW7) + LOW7) | d;
        n += (t & !LOW7).count_ones() as usize;
    }
    n + ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .filter(|(x, y)| x != y)
        .count()
}

/// Octets equal at the same offsets.
fn same_octets(a: &[u8], b: &[u8]) -> usize {
    a.len().min(b.len()) - differing_octets(a, b)
}

/// True when `same` equal octets are at least 3/4 of the longer frame's `n`.
fn enough(same: usize, n: usize) -> bool {
    n > 0 && same * 4 >= n * 3
}

/// True when at least 3/4 of the octets of the longer frame are equal at the same offsets.
pub fn resembles(e: &[u8], r: &[u8]) -> bool {
    enough(same_octets(e, r), e.len().max(r.len()))
}

/// A fast hasher over whole 8-octet words (frame contents are hashed per received frame, on
/// the capture's CPU at line rate): four independent lanes over 32-octet strides, so that the
/// chain of multiplies a frame waits for is a quarter of its words long.
#[derive(Default)]
pub struct WordHasher(u64);

const HASH_K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

fn hash_mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(HASH_K)
}

fn hash_word(c: &[u8]) -> u64 {
    c.first_chunk::<8>().map_or(0, |w| u64::from_le_bytes(*w))
}

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        // The table indexes by the low bits: fold the high ones in.
        let h = (self.0 ^ (self.0 >> 32)).wrapping_mul(HASH_K);
        h ^ (h >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        let seed = self.0 ^ bytes.len() as u64;
        let mut lanes = [
            seed,
            seed.rotate_left(16) ^ 1,
            seed.rotate_left(32) ^ 2,
            seed.rotate_left(48) ^ 3,
        ];
        let mut strides = bytes.chunks_exact(32);
        for c in &mut strides {
            for (l, w) in lanes.iter_mut().zip(c.chunks_exact(8)) {
                *l = hash_mix(*l, hash_word(w));
            }
        }
        let [a, b, c, d] = lanes;
        let mut h = hash_mix(hash_mix(hash_mix(a, b), c), d);
        let mut words = strides.remainder().chunks_exact(8);
        for w in &mut words {
            h = hash_mix(h, hash_word(w));
        }
        for &o in words.remainder() {
            h = hash_mix(h, u64::from(o));
        }
        self.0 = h;
    }
}

/// The hash of a frame's octets ([`WordHasher`]).
fn frame_hash(data: &[u8]) -> u64 {
    let mut h = WordHasher::default();
    h.write(data);
    h.finish()
}

/// A hasher for keys that are hashes already ([`frame_hash`]): it passes them through.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // (Only `write_u64` is used; anything else is folded in.)
        for &b in bytes {
            self.0 = hash_mix(self.0, u64::from(b));
        }
    }
    fn write_u64(&mut self, h: u64) {
        self.0 = h;
    }
}

/// No further entry with the same hash.
const NO_ENTRY: u32 = u32::MAX;

/// Distinct octet strings found by their hash, without a copy of them as keys: the caller
/// numbers the entries 0, 1, ... (in the order it pushes them) and keeps their octets; each
/// hash names its latest entry, which names the one before with the same hash.
#[derive(Default)]
struct ByHash {
    latest: HashMap<u64, u32, BuildHasherDefault<Prehashed>>,
    /// Per entry, the entry before it with the same hash ([`NO_ENTRY`]: none).
    before: Vec<u32>,
}

impl ByHash {
    /// The entry of hash `h` that `is` says is the one looked for.
    fn find(&self, h: u64, mut is: impl FnMut(u32) -> bool) -> Option<u32> {
        let mut at = *self.latest.get(&h)?;
        while !is(at) {
            at = *self.before.get(at as usize)?;
            if at == NO_ENTRY {
                return None;
            }
        }
        Some(at)
    }

    /// Adds the next entry, of hash `h`; returns its number.
    fn push(&mut self, h: u64) -> u32 {
        let id = self.before.len() as u32;
        let before = self.latest.insert(h, id).unwrap_or(NO_ENTRY);
        self.before.push(before);
        id
    }
}

/// What a received frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ident {
    /// One of the forms of the expected frames (content mode): an index into them.
    Content(u32),
    /// Expected position (tag mode).
    Position(u64),
    /// No expected frame has this form.
    Unknown,
}

/// One frame as the receiver recorded it.
#[derive(Clone, Debug)]
pub struct Received {
    /// What it is ([`Expectation::identify`]).
    pub ident: Ident,
    /// Its length as delivered.
    pub length: usize,
    /// Receive time, ns (any clock; the one of [`JudgeOptions::sent_ns`] for latency).
    pub time_ns: i64,
    /// Its content, kept for unknown frames only (corruption analysis and the report).
    pub data: Option<Vec<u8>>,
}

/// True when `data` is content `c`, or (`padded`) `c` padded with zeros to [`MIN_UNPADDED`]
/// octets (compared in place, without a padded copy).
fn form_is(c: &[u8], padded: bool, data: &[u8]) -> bool {
    if !padded || c.len() >= MIN_UNPADDED {
        return c == data;
    }
    data.len() == MIN_UNPADDED
        && data.get(..c.len()) == Some(c)
        && data
            .get(c.len()..)
            .unwrap_or_default()
            .iter()
            .all(|&o| o == 0)
}

/// The frames a run must receive, in order.
pub struct Expectation {
    /// Every record of the capture, in order, exact (unpadded).
    records: Vec<Vec<u8>>,
    /// Per distinct content, the record it is first seen in.
    first: Vec<u32>,
    /// Content of each record of the capture, in order.
    pattern: Vec<u32>,
    /// Every form (padded, and exact for short records): its content and whether it is the
    /// padded one.
    forms: Vec<(u32, bool)>,
    /// The forms by the hash of their octets.
    by_form: ByHash,
    /// Records (indices into `pattern`, increasing) found by each form.
    form_records: Vec<Vec<u32>>,
    total: u64,
    tag: Option<usize>,
    strip_fcs: bool,
}

impl Expectation {
    /// `records` repeated until `total` positions; `tag` is the offset of a 32-bit big-endian
    /// sequence number written into every frame (positions modulo 2^32); `strip_fcs` also
    /// recognises a received frame that still carries 4 trailing FCS octets.
    pub fn new<R: AsRef<[u8]>>(
        records: &[R],
        total: u64,
        tag: Option<usize>,
        strip_fcs: bool,
    ) -> Self {
        let records = records.iter().map(|r| r.as_ref().to_vec()).collect();
        Self::from_records(records, total, tag, strip_fcs)
    }

    /// [`Expectation::new`], taking the records (no copy of them is made).
    pub fn from_records(
        records: Vec<Vec<u8>>,
        total: u64,
        tag: Option<usize>,
        strip_fcs: bool,
    ) -> Self {
        let mut distinct = ByHash::default();
        let mut first: Vec<u32> = Vec::new();
        let mut pattern = Vec::with_capacity(records.len());
        let mut forms: Vec<(u32, bool)> = Vec::new();
        let mut by_form = ByHash::default();
        let mut form_records: Vec<Vec<u32>> = Vec::new();
        let content = |first: &[u32], c: u32| {
            first
                .get(c as usize)
                .and_then(|&k| records.get(k as usize))
                .map_or(&[][..], Vec::as_slice)
        };
        for (i, r) in records.iter().enumerate() {
            let h = frame_hash(r);
            let id = match distinct.find(h, |c| content(&first, c) == r.as_slice()) {
                Some(c) => c,
                None => {
                    first.push(i as u32);
                    distinct.push(h)
                }
            };
            pattern.push(id);
            // The padded form, and the exact one of a short record.
            let short = r.len() < MIN_UNPADDED;
            for form in [(id, true), (id, false)]
                .into_iter()
                .take(1 + usize::from(short))
            {
                let octets = if form.1 {
                    padded(r)
                } else {
                    Cow::Borrowed(&r[..])
                };
                // (A record of 60 octets or more is its own padded form: its hash is known.)
                let h = if short { frame_hash(&octets) } else { h };
                let same = |f: u32| {
                    forms
                        .get(f as usize)
                        .is_some_and(|&(c, pad)| form_is(content(&first, c), pad, &octets))
                };
                let f = match by_form.find(h, same) {
                    Some(f) => f,
                    None => {
                        forms.push(form);
                        form_records.push(Vec::new());
                        by_form.push(h)
                    }
                };
                if let Some(list) = form_records.get_mut(f as usize) {
                    list.push(i as u32);
                }
            }
        }
        Self {
            total: if records.is_empty() { 0 } else { total },
            records,
            first,
            pattern,
            forms,
            by_form,
            form_records,
            tag,
            strip_fcs,
        }
    }

    /// The records, given back.
    pub fn into_records(self) -> Vec<Vec<u8>> {
        self.records
    }

    /// Positions expected.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Records in the capture.
    pub fn records(&self) -> u64 {
        self.pattern.len() as u64
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

    /// Length (without FCS, before padding) of the frame expected at `position`.
    pub fn length_at(&self, position: u64) -> usize {
        self.records
            .get(self.record_at(position) as usize)
            .map_or(0, Vec::len)
    }

    /// Distinct contents.
    fn contents(&self) -> usize {
        self.first.len()
    }

    fn base(&self, id: u32) -> &[u8] {
        self.first
            .get(id as usize)
            .and_then(|&k| self.records.get(k as usize))
            .map_or(&[][..], Vec::as_slice)
    }

    /// The form of content `id` a received frame of `received_len` octets is compared with:
    /// exact when both are shorter than 60 octets, else padded (no tag written).
    fn base_form(&self, id: u32, received_len: usize) -> Cow<'_, [u8]> {
        let b = self.base(id);
        if b.len() < MIN_UNPADDED && received_len < MIN_UNPADDED {
            Cow::Borrowed(b)
        } else {
            padded(b)
        }
    }

    /// The content expected at `position`, padded to 60 octets, tag written in tag mode.
    pub fn content(&self, position: u64) -> Cow<'_, [u8]> {
        self.form(position, MIN_UNPADDED)
    }

    /// The form of `position` a received frame of `received_len` octets is compared with.
    fn form(&self, position: u64, received_len: usize) -> Cow<'_, [u8]> {
        let base = self.base_form(self.id_at(position), received_len);
        match self.tag {
            None => base,
            Some(off) => {
                let mut v = base.into_owned();
                if let Some(t) = v.get_mut(off..off + 4) {
                    t.copy_from_slice(&(position as u32).to_be_bytes());
                }
                Cow::Owned(v)
            }
        }
    }

    /// Identifies a received frame (DA onwards, VLAN tag in place, no FCS).
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
        match self.tag {
            None => self
                .by_form
                .find(frame_hash(data), |f| {
                    self.forms
                        .get(f as usize)
                        .is_some_and(|&(c, pad)| form_is(self.base(c), pad, data))
                })
                .map_or(Ident::Unknown, Ident::Content),
            Some(_) => match self.tagged(data) {
                Some(p) if self.form(p, data.len()).as_ref() == data => Ident::Position(p),
                _ => Ident::Unknown,
            },
        }
    }

    /// The position the tag of `data` names: the latest position with that tag (positions
    /// beyond 2^32 wrap).
    fn tagged(&self, data: &[u8]) -> Option<u64> {
        let off = self.tag?;
        let t = data.get(off..off + 4)?;
        let tag = u32::from_be_bytes([t[0], t[1], t[2], t[3]]);
        if self.total == 0 {
            return None;
        }
        let wraps = (self.total - 1) >> 32;
        let p = (wraps << 32) | u64::from(tag);
        if p < self.total {
            Some(p)
        } else {
            p.checked_sub(1 << 32)
        }
    }

    /// How much `data` resembles the forms of content `id`. Gives up as soon as too many
    /// octets differ (unrelated frames are told apart after a quarter of their octets).
    fn likeness(&self, id: u32, data: &[u8]) -> Likeness {
        let form = self.base_form(id, data.len());
        let n = form.len().max(data.len());
        let min = form.len().min(data.len());
        // At least 3/4 of n equal; only the first `min` octets can be.
        let need = (3 * n).div_ceil(4);
        if n == 0 || min < need {
            return Likeness::Never;
        }
        // In tag mode the tag's four octets differ from position to position: they are counted
        // per position, the others here.
        let tag = self.tag.map_or(0..0, |o| o.min(min)..(o + 4).min(min));
        let budget = min - need + tag.len();
        let (f, d) = (&form[..min], &data[..min]);
        let mut miss = 0;
        for (a, b) in f.chunks(32).zip(d.chunks(32)) {
            miss += differing_octets(a, b);
            if miss > budget {
                return Likeness::Never;
            }
        }
        let miss_in_tag = f[tag.clone()]
            .iter()
            .zip(&d[tag.clone()])
            .filter(|(x, y)| x != y)
            .count();
        let same = min - tag.len() - (miss - miss_in_tag);
        if enough(same, n) {
            Likeness::Always
        } else if !enough(same + tag.len(), n) {
            Likeness::Never
        } else {
            Likeness::Tag { same, n }
        }
    }

    /// True when `data` resembles the form of `position`.
    fn resembles_at(&self, position: u64, data: &[u8], l: Likeness) -> bool {
        match (l, self.tag) {
            (Likeness::Always, _) => true,
            (Likeness::Never, _) => false,
            (Likeness::Tag { same, n }, Some(off)) => {
                let want = (position as u32).to_be_bytes();
                let got = data.get(off..).unwrap_or_default();
                let tag_same = want.iter().zip(got).filter(|(a, b)| a == b).count();
                enough(same + tag_same, n)
            }
            (Likeness::Tag { .. }, None) => false,
        }
    }
}

/// How a frame resembles the positions of one content.
#[derive(Clone, Copy, Debug)]
enum Likeness {
    /// Every position of it.
    Always,
    /// None.
    Never,
    /// Depends on the tag: `same` octets equal outside it, of `n`.
    Tag { same: usize, n: usize },
}

/// A set of positions.
#[derive(Clone, Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: u64) -> Self {
        Self(vec![0; n.div_ceil(64) as usize])
    }
    fn get(&self, i: u64) -> bool {
        self.0
            .get((i / 64) as usize)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
    fn set(&mut self, i: u64) {
        if let Some(w) = self.0.get_mut((i / 64) as usize) {
            *w |= 1 << (i % 64);
        }
    }
    /// Members below `n`.
    fn count_below(&self, n: u64) -> u64 {
        let full = (n / 64) as usize;
        let mut c: u64 = self
            .0
            .iter()
            .take(full)
            .map(|w| u64::from(w.count_ones()))
            .sum();
        if !n.is_multiple_of(64) {
            if let Some(w) = self.0.get(full) {
                c += u64::from((w & ((1 << (n % 64)) - 1)).count_ones());
            }
        }
        c
    }
}

/// What [`Assigner::assign`] made of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assignment {
    /// The first frame identified as this position.
    First(u64),
    /// Another copy of this position.
    Duplicate(u64),
    /// Not identified.
    Unknown,
}

/// Rule 1, one frame at a time: which position an identified frame takes. `wire`'s capture
/// thread counts with it the distinct positions seen; [`judge`] starts with it.
pub struct Assigner<'a> {
    exp: &'a Expectation,
    taken: Bits,
    /// Per form: index of the first of its positions that may still be free.
    cursor: Vec<u64>,
    /// Per form: the last position a frame of that form took.
    last: Vec<Option<u64>>,
    seen: u64,
}

impl<'a> Assigner<'a> {
    /// Nothing received yet.
    pub fn new(exp: &'a Expectation) -> Self {
        Self {
            exp,
            taken: Bits::new(exp.total),
            cursor: vec![0; exp.form_records.len()],
            last: vec![None; exp.form_records.len()],
            seen: 0,
        }
    }

    /// The `j`-th position of form `f` (its records, capture after capture).
    fn position(&self, f: usize, j: u64) -> Option<u64> {
        let recs = self.exp.form_records.get(f)?;
        let k = recs.len() as u64;
        if k == 0 {
            return None;
        }
        let p = (j / k)
            .checked_mul(self.exp.pattern.len() as u64)?
            .checked_add(u64::from(*recs.get((j % k) as usize)?))?;
        (p < self.exp.total).then_some(p)
    }

    /// Assigns a received frame.
    pub fn assign(&mut self, ident: Ident) -> Assignment {
        match ident {
            Ident::Position(p) if p < self.exp.total => {
                if self.taken.get(p) {
                    Assignment::Duplicate(p)
                } else {
                    self.take(p);
                    Assignment::First(p)
                }
            }
            Ident::Content(f) => {
                let f = f as usize;
                let Some(&j0) = self.cursor.get(f) else {
                    return Assignment::Unknown;
                };
                let mut j = j0;
                while let Some(p) = self.position(f, j) {
                    j += 1;
                    if !self.taken.get(p) {
                        self.cursor[f] = j;
                        self.last[f] = Some(p);
                        self.take(p);
                        return Assignment::First(p);
                    }
                }
                self.cursor[f] = j;
                match self.last[f].or_else(|| j.checked_sub(1).and_then(|l| self.position(f, l))) {
                    Some(p) => Assignment::Duplicate(p),
                    None => Assignment::Unknown,
                }
            }
            Ident::Position(_) | Ident::Unknown => Assignment::Unknown,
        }
    }

    fn take(&mut self, p: u64) {
        self.taken.set(p);
        self.seen += 1;
    }

    /// Distinct positions identified so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// Distinct positions below `limit` identified so far.
    pub fn seen_below(&self, limit: u64) -> u64 {
        self.taken.count_below(limit.min(self.exp.total))
    }
}

/// What happened to one expected frame.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Received intact, in order.
    Matched,
    /// Received intact after a frame of a later position.
    Reordered,
    /// Received with different content.
    Corrupted,
    /// Not received in any form.
    Missing,
}

/// Where a corrupted frame first differs from the expected one.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Difference {
    /// Octet offset in the frame (0 = first octet of the destination address).
    pub offset: usize,
    /// The expected octet (absent past the expected frame's end).
    pub expected: Option<u8>,
    /// The received octet (absent past the received frame's end).
    pub actual: Option<u8>,
    /// The block (transfer) of the DUT stream holding that octet (`check`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<u64>,
    /// Its lane (`check`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lane: Option<u8>,
}

/// First differing octet of an expected form `e` and a received frame `r`.
pub fn first_difference(e: &[u8], r: &[u8]) -> Option<Difference> {
    let n = e.len().max(r.len());
    (0..n)
        .find(|&i| e.get(i) != r.get(i))
        .map(|offset| Difference {
            offset,
            expected: e.get(offset).copied(),
            actual: r.get(offset).copied(),
            block: None,
            lane: None,
        })
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
    /// What happened (JSON `class`, the name `wire`'s report has always used; `check` calls
    /// it `status`).
    #[serde(rename = "class")]
    pub status: Status,
    /// Arrival index of the received frame it was paired with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received_index: Option<u64>,
    /// Extra copies received.
    #[serde(skip_serializing_if = "is_zero")]
    pub duplicates: u32,
    /// Receive time minus send time, ns (when both are known).
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
        self.status != Status::Matched || self.duplicates > 0
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
    /// Not received in any form.
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
    /// Extra copies, in arrival order.
    pub duplicates: Vec<Duplicate>,
    /// Frames that are no expected frame, in arrival order.
    pub unexpected: Vec<Unexpected>,
}

/// How [`judge`] judges.
#[derive(Clone, Copy, Debug, Default)]
pub struct JudgeOptions<'a> {
    /// Judge order (RFC 4737); false: reordered frames count as matched.
    pub ordered: bool,
    /// Rule 4: an unknown frame between two in-order frames is the corrupted form of an
    /// unpaired position between them even when it does not resemble it. For a stream that
    /// carries nothing but the frames under test (`check`), not for a live link (`wire`).
    pub pair_between_neighbours: bool,
    /// Send time of each position, ns (empty: no latency).
    pub sent_ns: &'a [i64],
}

/// Judges the received frames (in arrival order) against the expectation.
pub fn judge(exp: &Expectation, received: &[Received], opt: &JudgeOptions<'_>) -> Judgement {
    let total = exp.total;
    // 1. Identification.
    let Identified {
        asg,
        got,
        dups,
        duplicates,
        arrivals,
        unknown,
    } = identify(exp, received);
    // 2. Order (RFC 4737): late arrivals are reordered; the rest form the in-order spine.
    let mut reordered = Bits::new(total);
    let mut spine: Vec<(usize, u64)> = Vec::new();
    let mut next_expected = 0u64;
    for &(i, p) in &arrivals {
        if p < next_expected {
            reordered.set(p);
        } else {
            next_expected = p + 1;
            spine.push((i, p));
        }
    }
    // The spine around arrival i: (index of the first spine frame after it, next expected).
    let around = |i: usize| {
        let k = spine.partition_point(|&(a, _)| a < i);
        let next = k
            .checked_sub(1)
            .and_then(|j| spine.get(j))
            .map_or(0, |&(_, p)| p + 1);
        (k, next)
    };
    // 3. Corrupted, anywhere: unknown frames pair with the nearest resembling free position.
    let mut free: BTreeSet<u64> = (0..total).filter(|p| !asg.taken.get(*p)).collect();
    let mut free_of: Vec<u64> = vec![0; exp.contents()];
    for &p in &free {
        if let Some(c) = free_of.get_mut(exp.id_at(p) as usize) {
            *c += 1;
        }
    }
    let mut with_free = free_of.iter().filter(|&&c| c > 0).count();
    let mut corrupted: BTreeMap<u64, (usize, Difference)> = BTreeMap::new();
    let mut left: Vec<usize> = Vec::new();
    let mut cache = LikenessCache::new(exp.contents());
    let mut spent = 0u64;
    for &i in &unknown {
        let data = received
            .get(i)
            .and_then(|r| r.data.as_deref())
            .unwrap_or_default();
        let (_, anchor) = around(i);
        match nearest_resembling(exp, &free, with_free, &mut cache, &mut spent, data, anchor) {
            Some(p) => {
                free.remove(&p);
                if let Some(c) = free_of.get_mut(exp.id_at(p) as usize) {
                    *c -= 1;
                    if *c == 0 {
                        with_free -= 1;
                    }
                }
                corrupted.insert(p, (i, difference_at(exp, p, data)));
            }
            None => left.push(i),
        }
    }
    // 4. Corrupted in its place, between in-order neighbours (check).
    let mut unexpected_at = Vec::new();
    let mut gap_floor: Option<(usize, u64)> = None; // (spine gap, first position still open)
    for &i in &left {
        let data = received
            .get(i)
            .and_then(|r| r.data.as_deref())
            .unwrap_or_default();
        let found = opt
            .pair_between_neighbours
            .then(|| {
                let (k, mut lo) = around(i);
                if let Some((g, floor)) = gap_floor {
                    if g == k {
                        lo = lo.max(floor);
                    }
                }
                let hi = spine.get(k).map_or(total, |&(_, p)| p).max(lo);
                let best = free.range(lo..hi).take(256).max_by_key(|&&p| {
                    let same = same_octets(&exp.form(p, data.len()), data);
                    (same, std::cmp::Reverse(p))
                });
                best.map(|&p| (k, p))
            })
            .flatten();
        match found {
            Some((k, p)) => {
                free.remove(&p);
                gap_floor = Some((k, p + 1));
                corrupted.insert(p, (i, difference_at(exp, p, data)));
            }
            None => unexpected_at.push(i),
        }
    }
    // 5. What is left.
    let unexpected: Vec<Unexpected> = unexpected_at
        .iter()
        .filter_map(|&i| {
            let r = received.get(i)?;
            let raw = r.data.as_deref().unwrap_or_default();
            Some(Unexpected {
                received_index: i as u64,
                length: r.length,
                head: raw.iter().take(64).map(|b| format!("{b:02x}")).collect(),
                ether_type: ether_type(raw).map(|t| format!("0x{t:04x}")),
            })
        })
        .collect();
    let (counts, frames) = frame_verdicts(
        exp,
        received,
        opt,
        &Verdicts {
            got: &got,
            reordered: &reordered,
            dups: &dups,
            duplicates: duplicates.len() as u64,
            unexpected: unexpected.len() as u64,
        },
        corrupted,
    );
    Judgement {
        counts,
        frames,
        duplicates,
        unexpected,
    }
}

/// The received frames identified (step 1 of [`judge`]).
struct Identified<'a> {
    asg: Assigner<'a>,
    /// Per position: the index of the received frame that took it (`usize::MAX`: none).
    got: Vec<usize>,
    /// Per position: how many duplicates of it arrived.
    dups: HashMap<u64, u32>,
    duplicates: Vec<Duplicate>,
    /// (received index, position), in arrival order.
    arrivals: Vec<(usize, u64)>,
    /// The received frames that match no expected content.
    unknown: Vec<usize>,
}

/// Step 1 of [`judge`]: each received frame takes the first free position of its content, or
/// is a duplicate, or matches nothing.
fn identify<'a>(exp: &'a Expectation, received: &[Received]) -> Identified<'a> {
    let total = exp.total;
    let mut asg = Assigner::new(exp);
    let mut got: Vec<usize> = vec![usize::MAX; usize::try_from(total).unwrap_or(0)];
    let mut dups: HashMap<u64, u32> = HashMap::new();
    let mut duplicates = Vec::new();
    let mut arrivals: Vec<(usize, u64)> = Vec::new();
    let mut unknown: Vec<usize> = Vec::new();
    for (i, r) in received.iter().enumerate() {
        match asg.assign(r.ident) {
            Assignment::First(p) => {
                if let Some(g) = got.get_mut(p as usize) {
                    *g = i;
                }
                arrivals.push((i, p));
            }
            Assignment::Duplicate(p) => {
                *dups.entry(p).or_default() += 1;
                duplicates.push(Duplicate {
                    received_index: i as u64,
                    position: p,
                });
            }
            Assignment::Unknown => unknown.push(i),
        }
    }
    Identified {
        asg,
        got,
        dups,
        duplicates,
        arrivals,
        unknown,
    }
}

/// What [`frame_verdicts`] reads of the earlier steps.
struct Verdicts<'a> {
    got: &'a [usize],
    reordered: &'a Bits,
    dups: &'a HashMap<u64, u32>,
    duplicates: u64,
    unexpected: u64,
}

/// Step 5 of [`judge`]: one verdict per expected position, and the counts.
fn frame_verdicts(
    exp: &Expectation,
    received: &[Received],
    opt: &JudgeOptions<'_>,
    v: &Verdicts<'_>,
    mut corrupted: BTreeMap<u64, (usize, Difference)>,
) -> (Counts, Vec<FrameVerdict>) {
    let total = exp.total;
    let (got, reordered, dups) = (v.got, v.reordered, v.dups);
    let mut counts = Counts {
        expected: total,
        received: received.len() as u64,
        duplicated: v.duplicates,
        unexpected: v.unexpected,
        ..Counts::default()
    };
    let mut frames = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    for p in 0..total {
        let (status, rx, diff) = match (
            got.get(p as usize).filter(|&&i| i != usize::MAX),
            corrupted.remove(&p),
        ) {
            (Some(&i), _) if opt.ordered && reordered.get(p) => (Status::Reordered, Some(i), None),
            (Some(&i), _) => (Status::Matched, Some(i), None),
            (None, Some((i, d))) => (Status::Corrupted, Some(i), Some(d)),
            (None, None) => (Status::Missing, None, None),
        };
        match status {
            Status::Matched => counts.matched += 1,
            Status::Reordered => counts.reordered += 1,
            Status::Corrupted => counts.corrupted += 1,
            Status::Missing => counts.missing += 1,
        }
        let latency_ns = match (status, rx) {
            (Status::Matched | Status::Reordered, Some(i)) => {
                match (received.get(i), opt.sent_ns.get(p as usize)) {
                    (Some(r), Some(&s)) if s > 0 => Some(r.time_ns - s),
                    _ => None,
                }
            }
            _ => None,
        };
        frames.push(FrameVerdict {
            position: p,
            record: exp.record_at(p),
            length: exp.length_at(p),
            status,
            received_index: rx.map(|i| i as u64),
            duplicates: dups.get(&p).copied().unwrap_or(0),
            latency_ns,
            first_difference: diff,
        });
    }
    (counts, frames)
}

fn difference_at(exp: &Expectation, p: u64, data: &[u8]) -> Difference {
    first_difference(&exp.form(p, data.len()), data).unwrap_or(Difference {
        offset: 0,
        expected: None,
        actual: None,
        block: None,
        lane: None,
    })
}

/// Per content, how the frame being searched for resembles it (computed once per frame).
struct LikenessCache {
    stamp: Vec<u32>,
    value: Vec<Likeness>,
    frame: u32,
}

impl LikenessCache {
    fn new(contents: usize) -> Self {
        Self {
            stamp: vec![0; contents],
            value: vec![Likeness::Never; contents],
            frame: 0,
        }
    }
}

/// Rule 3 for one frame: the free position nearest `anchor` that `data` resembles (tag mode:
/// the one its tag names first). `with_free`: contents that still have a free position.
fn nearest_resembling(
    exp: &Expectation,
    free: &BTreeSet<u64>,
    with_free: usize,
    cache: &mut LikenessCache,
    spent: &mut u64,
    data: &[u8],
    anchor: u64,
) -> Option<u64> {
    let window = if *spent < SEARCH_BUDGET {
        SEARCH
    } else {
        SEARCH_SPENT
    };
    if data.is_empty() || with_free == 0 {
        return None;
    }
    cache.frame += 1;
    let frame = cache.frame;
    let mut never = 0usize;
    let mut like = |p: u64, never: &mut usize| {
        let id = exp.id_at(p);
        let i = id as usize;
        match (cache.stamp.get(i), cache.value.get(i)) {
            (Some(&s), Some(&l)) if s == frame => l,
            _ => {
                let l = exp.likeness(id, data);
                if matches!(l, Likeness::Never) {
                    *never += 1;
                }
                if let (Some(s), Some(v)) = (cache.stamp.get_mut(i), cache.value.get_mut(i)) {
                    *s = frame;
                    *v = l;
                }
                l
            }
        }
    };
    if let Some(p) = exp.tagged(data) {
        if free.contains(&p) && exp.resembles_at(p, data, like(p, &mut never)) {
            return Some(p);
        }
    }
    let mut below = free.range(..anchor).rev().peekable();
    let mut above = free.range(anchor..).peekable();
    for _ in 0..window {
        *spent += 1;
        let take_below = match (below.peek(), above.peek()) {
            (Some(&&b), Some(&&a)) => anchor - b <= a - anchor,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let next = if take_below {
            below.next()
        } else {
            above.next()
        };
        let Some(&p) = next else { break };
        let l = like(p, &mut never);
        if exp.resembles_at(p, data, l) {
            return Some(p);
        }
        // Every content with a free position ruled out: nothing further can resemble.
        if never >= with_free {
            break;
        }
    }
    None
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

// ---------------------------------------------------------------------------------------------
// Frames a MAC decoded from a DUT's stream (`check --frames`).

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
        padded(&self.data).into_owned()
    }
}

/// The content of a received frame without its FCS.
pub fn content(r: &ReceivedFrame) -> &[u8] {
    r.content()
}

/// The verdict on one expected frame of `check --frames` (the report's names: the verdict is
/// `status`, `class` the MAC's classification of the frame paired with it).
#[derive(Clone, Debug, Serialize)]
pub struct FrameResult {
    /// Index in the expected capture.
    pub expected_index: u64,
    /// Its length without FCS.
    pub length: usize,
    /// Matched, reordered, corrupted or missing (the judge's [`Status`]).
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
    /// First differing octet (corrupted frames), with its DUT block and lane.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_difference: Option<Difference>,
}

impl FrameResult {
    /// True unless matched in order with a good classification.
    pub fn failed(&self) -> bool {
        self.status != Status::Matched || self.class != Some("ok")
    }
}

/// A received frame that is no expected frame, or an extra copy of one (`check`'s "extra":
/// the judge's duplicates and unexpected frames together).
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
    /// The expected frame (capture index) it is an extra copy of.
    pub duplicate_of: Option<u64>,
}

/// The comparison of all frames.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Comparison {
    /// One entry per expected frame, in expected order.
    pub frames: Vec<FrameResult>,
    /// Received frames that matched nothing, and extra copies, in receive order.
    pub extra: Vec<ExtraFrame>,
}

impl Comparison {
    /// The DUT frame the judge found for each expected frame, by its start block: (the
    /// expected frame's place, the DUT frame's start block), as the block comparison pairs
    /// them ([`crate::pcs_check::compare_frame_blocks`]).
    pub fn start_pairs(&self) -> Vec<(usize, u64)> {
        self.frames
            .iter()
            .enumerate()
            .filter_map(|(i, f)| Some((i, f.start_block?)))
            .collect()
    }
}

/// Places offset `offset` of a frame whose `/S/` is at `start` in the DUT stream: (block,
/// lane).
fn place(start: Placement, offset: usize) -> (u64, u8) {
    // The /S/ octet, six preamble octets and the SFD come before the destination address.
    let octet = start.block * 8 + u64::from(start.lane) + 8 + offset as u64;
    (octet / 8, (octet % 8) as u8)
}

/// First differing octet of `e` and the content of `r`, placed in the DUT stream.
pub fn difference(e: &[u8], r: &ReceivedFrame) -> Option<Difference> {
    first_difference(e, content(r)).map(|d| placed(d, r.start))
}

fn placed(mut d: Difference, start: Placement) -> Difference {
    let (block, lane) = place(start, d.offset);
    d.block = Some(block);
    d.lane = Some(lane);
    d
}

/// Judges the frames a MAC decoded from a DUT's stream against the expected frames: the
/// [`judge`] in content mode, ordered, with rule 4 (a stream carries nothing but the frames
/// under test).
pub fn compare(expected: &[Expected], received: &[ReceivedFrame]) -> Comparison {
    let mut c = Comparer::new(expected);
    for r in received {
        c.push(&r.borrowed());
    }
    c.finish()
}

/// A received frame as [`Comparer`] keeps it: where and what it was, not its octets.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    index: u64,
    class: RxClass,
    len: usize,
    start: Placement,
}

/// [`compare`] fed one received frame at a time, as the MAC delivers them: each frame is
/// identified when it arrives, and only the octets of a frame that is none of the expected
/// ones are kept (for pairing it as a corrupted frame, and for the report), so that a check
/// holds the expected frames and not the DUT's.
pub struct Comparer {
    exp: Expectation,
    /// The capture index of each expected frame.
    expected_index: Vec<u64>,
    rx: Vec<Received>,
    arrivals: Vec<Arrival>,
}

impl Comparer {
    /// Ready for the received frames of a stream that must carry `expected`.
    pub fn new(expected: &[Expected]) -> Self {
        Self::owning(expected.to_vec())
    }

    /// [`Comparer::new`], taking the expected frames (no copy of them is made);
    /// [`Comparer::finish_with_frames`] gives them back.
    pub fn owning(expected: Vec<Expected>) -> Self {
        let expected_index = expected.iter().map(|e| e.index).collect();
        let records: Vec<Vec<u8>> = expected.into_iter().map(|e| e.data).collect();
        let n = records.len() as u64;
        Self {
            exp: Expectation::from_records(records, n, None, false),
            expected_index,
            rx: Vec::new(),
            arrivals: Vec::new(),
        }
    }

    /// The next received frame.
    pub fn push(&mut self, r: &FrameRef<'_>) {
        let c = r.content();
        let ident = self.exp.identify(c);
        self.rx.push(Received {
            ident,
            length: r.len,
            time_ns: 0,
            data: (ident == Ident::Unknown).then(|| c.to_vec()),
        });
        self.arrivals.push(Arrival {
            index: r.index,
            class: r.class,
            len: r.len,
            start: r.start,
        });
    }

    /// The verdicts, once every frame is in.
    pub fn finish(self) -> Comparison {
        self.finish_with_frames().0
    }

    /// [`Comparer::finish`], and the expected frames given back.
    pub fn finish_with_frames(self) -> (Comparison, Vec<Expected>) {
        let Self {
            exp,
            expected_index,
            rx,
            arrivals,
        } = self;
        let j = judge(
            &exp,
            &rx,
            &JudgeOptions {
                ordered: true,
                pair_between_neighbours: true,
                sent_ns: &[],
            },
        );
        let frames = j
            .frames
            .into_iter()
            .map(|v| {
                let r = v.received_index.and_then(|i| arrivals.get(i as usize));
                FrameResult {
                    expected_index: expected_index
                        .get(v.position as usize)
                        .copied()
                        .unwrap_or(v.position),
                    length: v.length,
                    status: v.status,
                    received_index: r.map(|r| r.index),
                    class: r.map(|r| class_name(r.class)),
                    start_block: r.map(|r| r.start.block),
                    start_lane: r.map(|r| r.start.lane),
                    first_difference: match (v.first_difference, r) {
                        (Some(d), Some(r)) => Some(placed(d, r.start)),
                        (d, _) => d,
                    },
                }
            })
            .collect();
        let mut extra: Vec<(u64, Option<u64>)> = j
            .duplicates
            .iter()
            .map(|d| {
                let of = expected_index.get(d.position as usize).copied();
                (d.received_index, of)
            })
            .chain(j.unexpected.iter().map(|u| (u.received_index, None)))
            .collect();
        extra.sort_unstable_by_key(|&(i, _)| i);
        let extra = extra
            .into_iter()
            .filter_map(|(i, duplicate_of)| {
                let r = arrivals.get(i as usize)?;
                Some(ExtraFrame {
                    received_index: r.index,
                    class: class_name(r.class),
                    length: r.len,
                    start_block: r.start.block,
                    start_lane: r.start.lane,
                    duplicate_of,
                })
            })
            .collect();
        let expected = expected_index
            .into_iter()
            .zip(exp.into_records())
            .map(|(index, data)| Expected { index, data })
            .collect();
        (Comparison { frames, extra }, expected)
    }
}

/// True if the class is a good frame.
pub fn is_good(c: RxClass) -> bool {
    c.is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn the_frame_hash_sees_every_octet() {
        // Every octet of frames of 0..=100 octets (whole strides, words and a tail of single
        // octets), changed in turn, changes the hash; the same content hashes the same.
        let hash = |d: &[u8]| BuildHasherDefault::<WordHasher>::default().hash_one(d);
        for len in 0..=100usize {
            let frame: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
            let h = hash(&frame);
            assert_eq!(h, hash(&frame.clone()));
            for at in 0..len {
                let mut other = frame.clone();
                other[at] ^= 0x10;
                assert_ne!(h, hash(&other), "length {len}, octet {at}");
            }
            // A frame one octet longer, with a zero octet, is another frame.
            let mut longer = frame.clone();
            longer.push(0);
            assert_ne!(h, hash(&longer), "length {len}");
        }
    }

    #[test]
    fn entries_with_one_hash_are_all_found_and_told_apart() {
        // Three entries share a hash (as distinct frames whose hashes collide would), one has
        // its own: each is found by its own test, in any order, and nothing else is.
        let mut t = ByHash::default();
        let ids: Vec<u32> = [7, 7, 9, 7].iter().map(|&h| t.push(h)).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        for id in [0, 1, 3] {
            assert_eq!(t.find(7, |e| e == id), Some(id));
        }
        assert_eq!(t.find(9, |e| e == 2), Some(2));
        assert_eq!(t.find(7, |e| e == 2), None);
        assert_eq!(t.find(8, |_| true), None);
        assert_eq!(t.find(7, |_| false), None);
    }

    #[test]
    fn padded_and_exact_forms_are_compared_in_place() {
        let (short, long) = (vec![5u8; 50], vec![6u8; 64]);
        let mut padded50 = vec![5u8; 50];
        padded50.resize(60, 0);
        assert!(form_is(&short, true, &padded50));
        assert!(!form_is(&short, false, &padded50));
        assert!(form_is(&short, false, &short));
        assert!(!form_is(&short, true, &short));
        // A pad octet that is not zero, or one octet more: another frame.
        let mut bad = padded50.clone();
        bad[59] = 1;
        assert!(!form_is(&short, true, &bad));
        padded50.push(0);
        assert!(!form_is(&short, true, &padded50));
        // A long content's padded form is itself.
        assert!(form_is(&long, true, &long));
        assert!(!form_is(&long, true, &short));
    }

    // --- check's door: frames a MAC decoded ---

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
        c.frames.iter().map(|f| f.status).collect()
    }

    #[test]
    fn the_comparer_that_owns_the_frames_judges_as_compare_and_gives_them_back() {
        // Repeated, short and corrupted frames, one missing.
        let e: Vec<_> = [(0, 1, 64), (1, 2, 40), (2, 1, 64), (3, 3, 700), (4, 4, 64)]
            .iter()
            .map(|&(i, f, l)| exp(i, f, l))
            .collect();
        let mut bad = rcv(3, 3, 700, 40);
        bad.data[100] ^= 1;
        // The short frame as a MAC delivers it: padded with zeros.
        let mut short = rcv(1, 2, 40, 10);
        short.data[40..60].fill(0);
        let r = vec![rcv(0, 1, 64, 0), short, rcv(2, 1, 64, 20), bad];
        let want = compare(&e, &r);
        let mut c = Comparer::owning(e.clone());
        for f in &r {
            c.push(&f.borrowed());
        }
        let (got, back) = c.finish_with_frames();
        assert_eq!(
            serde_json::to_string(&got).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
        assert_eq!(
            statuses(&got),
            [
                Status::Matched,
                Status::Matched,
                Status::Matched,
                Status::Corrupted,
                Status::Missing
            ]
        );
        let pairs = |v: &[Expected]| {
            v.iter()
                .map(|x| (x.index, x.data.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(pairs(&back), pairs(&e));
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
        // Received: 1, 3, 2 (reordered: after 3), 4 corrupted at octet 10, 5 missing, extra 9
        // at the end.
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
        assert_eq!(
            statuses(&c),
            [
                Status::Matched,
                Status::Reordered,
                Status::Matched,
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
                block: Some(42),
                lane: Some(2)
            }
        );
        assert_eq!(c.extra.len(), 1);
        assert_eq!(c.extra[0].received_index, 5);
        assert_eq!(c.extra[0].duplicate_of, None);
    }

    #[test]
    fn reordered_is_rfc_4737_every_frame_that_arrives_after_a_later_one() {
        // 0, 5, 1, 2, 3, 4: frames 1..4 arrive after 5. (A longest increasing run would call
        // only 5 out of order.)
        let e: Vec<_> = (0..6).map(|i| exp(i, i as u8 + 1, 64)).collect();
        let r: Vec<_> = [0u8, 5, 1, 2, 3, 4]
            .iter()
            .enumerate()
            .map(|(k, &i)| rcv(k as u64, i + 1, 64, 10 * k as u64))
            .collect();
        let c = compare(&e, &r);
        assert_eq!(
            statuses(&c),
            [
                Status::Matched,
                Status::Reordered,
                Status::Reordered,
                Status::Reordered,
                Status::Reordered,
                Status::Matched
            ]
        );
    }

    #[test]
    fn a_duplicate_is_extra_and_names_the_original() {
        let e = vec![exp(7, 1, 64)];
        let r = vec![rcv(0, 1, 64, 0), rcv(1, 1, 64, 10)];
        let c = compare(&e, &r);
        assert_eq!(statuses(&c), [Status::Matched]);
        assert_eq!(c.extra.len(), 1);
        assert_eq!(c.extra[0].duplicate_of, Some(7));
    }

    #[test]
    fn a_late_corrupted_frame_is_corrupted_not_missing_and_extra() {
        // Frame 1 arrives last, after 2 and 3, with one octet changed.
        let e: Vec<_> = (0..4).map(|i| exp(i, i as u8 + 1, 64)).collect();
        let mut late = rcv(3, 2, 64, 30);
        late.data[20] ^= 1;
        let r = vec![rcv(0, 1, 64, 0), rcv(1, 3, 64, 10), rcv(2, 4, 64, 20), late];
        let c = compare(&e, &r);
        assert_eq!(
            statuses(&c),
            [
                Status::Matched,
                Status::Corrupted,
                Status::Matched,
                Status::Matched
            ]
        );
        assert_eq!(c.frames[1].received_index, Some(3));
        assert_eq!(c.frames[1].first_difference.as_ref().unwrap().offset, 20);
        assert!(c.extra.is_empty());
    }

    #[test]
    fn check_pairs_a_frame_between_neighbours_even_when_it_does_not_resemble() {
        // Frame 1 cut short to 30 octets of 64 (not 3/4 alike): still frame 1, corrupted.
        let e: Vec<_> = (0..3).map(|i| exp(i, i as u8 + 1, 64)).collect();
        let mut cut = rcv(1, 2, 64, 10);
        cut.data.truncate(30 + 4);
        let r = vec![rcv(0, 1, 64, 0), cut, rcv(2, 3, 64, 20)];
        let c = compare(&e, &r);
        assert_eq!(statuses(&c)[1], Status::Corrupted);
        let d = c.frames[1].first_difference.clone().unwrap();
        assert_eq!((d.offset, d.expected, d.actual), (30, Some(2), None));
        // The same frame on a live link (wire: no pairing in place) is unexpected.
        let recs: Vec<&[u8]> = e.iter().map(|e| e.data.as_slice()).collect();
        let x = Expectation::new(&recs, 3, None, false);
        let got: Vec<Received> = r.iter().map(|f| received(&x, content(f))).collect();
        let j = judge(&x, &got, &wire());
        assert_eq!(j.frames[1].status, Status::Missing);
        assert_eq!(j.counts.unexpected, 1);
    }

    #[test]
    fn a_runt_delivered_unpadded_matches_only_its_own_record() {
        // Record 0 is 14 zero octets, record 1 is 60 zero octets (record 0's padded form).
        let e = vec![exp(0, 0, 14), exp(1, 0, 60)];
        let mut runt = rcv(0, 0, 14, 0);
        runt.data = vec![0; 14 + 4];
        let c = compare(&e, &[runt]);
        assert_eq!(statuses(&c), [Status::Matched, Status::Missing]);
    }

    // --- wire's door: identification on the capture thread ---

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

    fn received(exp: &Expectation, data: &[u8]) -> Received {
        let ident = exp.identify(data);
        Received {
            ident,
            length: data.len(),
            time_ns: 0,
            data: (ident == Ident::Unknown).then(|| data.to_vec()),
        }
    }

    fn wire() -> JudgeOptions<'static> {
        JudgeOptions {
            ordered: true,
            pair_between_neighbours: false,
            sent_ns: &[],
        }
    }

    fn run(f: &[Vec<u8>], got: &[Vec<u8>], ordered: bool) -> Judgement {
        let exp = Expectation::new(f, f.len() as u64, None, false);
        let r: Vec<Received> = got.iter().map(|d| received(&exp, d)).collect();
        judge(&exp, &r, &JudgeOptions { ordered, ..wire() })
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
        assert_eq!(j.frames[7].status, Status::Missing);
    }

    #[test]
    fn a_late_frame_is_reordered_and_unordered_mode_accepts_it() {
        let f = frames(10, 64);
        let mut got = f.clone();
        got.swap(3, 4); // 4 overtakes 3: 3 arrives late
        let j = run(&f, &got, true);
        assert_eq!(j.counts.reordered, 1);
        assert_eq!(j.frames[3].status, Status::Reordered);
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
    fn a_corrupted_frame_held_back_far_is_still_corrupted() {
        // Frame 5, one bit flipped, arrives after frame 40: not between in-order neighbours.
        let f = frames(50, 100);
        let mut got: Vec<Vec<u8>> = f
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 5)
            .map(|(_, d)| d.clone())
            .collect();
        let mut bad = f[5].clone();
        bad[60] ^= 4;
        got.insert(40, bad);
        let j = run(&f, &got, true);
        assert_eq!(j.frames[5].status, Status::Corrupted);
        assert_eq!(j.frames[5].received_index, Some(40));
        assert_eq!(
            (
                j.counts.matched,
                j.counts.corrupted,
                j.counts.missing,
                j.counts.unexpected
            ),
            (49, 1, 0, 0)
        );
    }

    #[test]
    fn of_several_resembling_positions_the_nearest_to_the_arrival_wins() {
        // Record 7 is record 1 with one octet changed: a corrupted copy of 7 resembles both.
        // Positions 1 and 7 are lost; the corrupted copy goes to the one nearest its arrival.
        let mut f = frames(10, 100);
        f[7] = f[1].clone();
        f[7][90] ^= 0x40;
        let mut bad = f[7].clone();
        bad[50] ^= 1;
        let at = |slot: usize| {
            let mut got: Vec<Vec<u8>> = (0..10)
                .filter(|&p| p != 1 && p != 7)
                .map(|p| f[p].clone())
                .collect();
            got.insert(slot, bad.clone());
            run(&f, &got, true)
        };
        // Right after 5 (next expected 6): 7 is one away, 1 five: 7, first difference at 50.
        let j = at(5);
        assert_eq!(j.frames[7].status, Status::Corrupted);
        assert_eq!(j.frames[7].first_difference.as_ref().unwrap().offset, 50);
        assert_eq!(j.frames[1].status, Status::Missing);
        // In position 1's place (after 0): 1.
        let j = at(1);
        assert_eq!(j.frames[1].status, Status::Corrupted);
        assert_eq!(j.frames[7].status, Status::Missing);
        // After 3 (next expected 4): both three away, the earlier wins: 1.
        let j = at(3);
        assert_eq!(j.frames[1].status, Status::Corrupted);
        assert_eq!(j.frames[7].status, Status::Missing);
        // After 4 (next expected 5): 7 is two away, 1 four: 7.
        let j = at(4);
        assert_eq!(j.frames[7].status, Status::Corrupted);
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
        let r: Vec<Received> = got.iter().map(|d| received(&exp, d)).collect();
        let j = judge(&exp, &r, &wire());
        assert_eq!(j.frames[3].status, Status::Missing);
        assert_eq!(j.frames[1].status, Status::Reordered);
        assert_eq!(
            (j.counts.matched, j.counts.missing, j.counts.reordered),
            (3, 1, 1)
        );
    }

    #[test]
    fn tag_mode_pairs_a_corrupted_frame_with_the_position_its_tag_names() {
        let f = vec![frames(1, 100)[0].clone()];
        let exp = Expectation::new(&f, 40, Some(30), false);
        // Position 7 corrupted (not in its tag) and arriving last.
        let mut got: Vec<Received> = (0..40)
            .filter(|&p| p != 7)
            .map(|p| received(&exp, &exp.content(p)))
            .collect();
        let mut bad = exp.content(7).into_owned();
        bad[80] ^= 0xff;
        got.push(received(&exp, &bad));
        let j = judge(&exp, &got, &wire());
        assert_eq!(j.frames[7].status, Status::Corrupted);
        assert_eq!(j.frames[7].first_difference.as_ref().unwrap().offset, 80);
        assert_eq!((j.counts.matched, j.counts.missing), (39, 0));
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

    #[test]
    fn the_assigner_counts_distinct_positions_not_copies() {
        let f = frames(4, 64);
        let exp = Expectation::new(&f, 8, None, false);
        let mut a = Assigner::new(&exp);
        // Record 1 (positions 1 and 5) three times: 1, 5, then a duplicate of 5.
        for _ in 0..3 {
            a.assign(exp.identify(&f[1]));
        }
        assert_eq!(a.seen(), 2);
        assert_eq!(a.seen_below(4), 1);
        assert_eq!(a.assign(exp.identify(&f[1])), Assignment::Duplicate(5));
        assert_eq!(a.assign(exp.identify(&f[0])), Assignment::First(0));
        assert_eq!(a.assign(Ident::Unknown), Assignment::Unknown);
        // Tag mode: the tag names the position.
        let exp = Expectation::new(&f[..1], 100, Some(30), false);
        let mut a = Assigner::new(&exp);
        for p in [70, 3, 70, 99] {
            a.assign(exp.identify(&exp.content(p)));
        }
        assert_eq!((a.seen(), a.seen_below(50)), (3, 1));
    }

    #[test]
    fn differing_octets_counts_octet_by_octet() {
        let a: Vec<u8> = (0..37).collect();
        for flips in [
            vec![],
            vec![0],
            vec![7, 8],
            vec![1, 2, 3, 15, 31, 36],
            (0..37).collect(),
        ] {
            let mut b = a.clone();
            for &i in &flips {
                b[i] ^= 0x80 >> (i % 8);
            }
            assert_eq!(differing_octets(&a, &b), flips.len(), "{flips:?}");
            assert_eq!(
                differing_octets(&a, &b[..20]),
                flips.iter().filter(|&&i| i < 20).count()
            );
        }
    }

    #[test]
    fn bits_count_below_any_limit() {
        let mut b = Bits::new(200);
        for i in [0, 63, 64, 130, 199] {
            b.set(i);
        }
        let want = |n: u64| [0, 63, 64, 130, 199].iter().filter(|&&i| i < n).count() as u64;
        for n in [0, 1, 63, 64, 65, 128, 131, 199, 200, 500] {
            assert_eq!(b.count_below(n), want(n), "{n}");
        }
    }
}
