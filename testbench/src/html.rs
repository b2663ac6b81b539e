//! The HTML report of `check` and `coverage` (`--html F`): one self-contained file that a CI
//! artifact page shows as it is: inline CSS and an inline SVG, no script, nothing fetched.
//!
//! A page holds the verdict, the inputs and the counts; the first divergence as a lane table
//! (rows: blocks, columns: lanes 0..7, each cell the expected or model octet over the DUT's,
//! a differing cell marked `diff` with its differing bits); the PCS events and failing
//! frames on a timeline across the DUT's stream; the frame list; the coverage table with its
//! holes. Every string from a run (file names, messages, frame and bin names) is escaped.
//! docs/reports.md, "HTML report", says what each part shows.

use crate::command::Error;
use crate::pcs_check::{PcsCheckReport, WindowBlock};
use crate::report::Case;
use baser_engine::coverage::Coverage;
use baser_engine::describe;
use baser_engine::fcs::FastFcs;
use baser_engine::frame_check::FrameCheckReport;
use baser_engine::judge::{self, Status};
use baser_engine::rx::{PcsSummary, RxSink, StreamKind};
use pcs_core::encode_word;
use pcs_core::{Block, ControlChar, Lane, SyncHeader, XgmiiWord};
use std::fmt::{self, Write as _};
use std::ops::RangeInclusive;
use std::path::Path;

/// Rows of a list (frames, failing checks, events) shown at most; a line says how many more.
pub const MAX_ROWS: usize = 2000;
/// Marks of one kind drawn on a timeline at most.
const MAX_MARKS: usize = 2000;

/// Text made safe for HTML element content and quoted attribute values.
pub struct Esc<'a>(pub &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(['&', '<', '>', '"', '\'']) {
            let (text, tail) = rest.split_at(i);
            f.write_str(text)?;
            let mut chars = tail.chars();
            f.write_str(match chars.next() {
                Some('&') => "&amp;",
                Some('<') => "&lt;",
                Some('>') => "&gt;",
                Some('"') => "&quot;",
                _ => "&#39;",
            })?;
            rest = chars.as_str();
        }
        f.write_str(rest)
    }
}

/// Writes a page.
///
/// # Errors
/// The file cannot be written (`Error::Output`, naming it).
pub fn write(path: &Path, page: &str) -> Result<(), Error> {
    std::fs::write(path, page).map_err(|e| Error::Output(path.to_path_buf(), e))
}

// ---------------------------------------------------------------------------------------------
// Lane tables

/// One side of a lane table row: a transfer, and the block it came from when known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// The transfer, lanes 0..7.
    pub word: XgmiiWord,
    /// Its block (descrambled), for the sync header and block type.
    pub block: Option<Block>,
}

/// One block of a lane table: the expected (or model's) side and the DUT's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneRow {
    /// The block index (the DUT's, = its transfer index).
    pub block: u64,
    /// What should be there (`None`: a table of the DUT's transfers alone).
    pub expected: Option<Side>,
    /// What the DUT put there (`None`: its stream had ended).
    pub dut: Option<Side>,
}

/// The blocks around a divergence, lane by lane.
#[derive(Clone, Debug)]
pub struct LaneTable {
    /// What the table shows, e.g. the first difference of a frame.
    pub title: String,
    /// The name of the expected side: `expected` or `model`.
    pub expected_name: &'static str,
    /// The block of the divergence (its row is highlighted).
    pub focus: u64,
    /// Show each block's payload (the bit-exact check compares blocks, not lanes).
    pub payload: bool,
    /// The rows, in block order.
    pub rows: Vec<LaneRow>,
}

/// A DUT transfer kept for a lane table: its index, the transfer and its descrambled block.
pub type Kept = (u64, XgmiiWord, Option<Block>);

/// Keeps the DUT's transfers (and descrambled blocks) whose index is in one of its ranges:
/// the DUT side of lane tables, from a second decode of its stream.
#[derive(Clone, Debug, Default)]
pub struct DutWindow {
    ranges: Vec<RangeInclusive<u64>>,
    /// The transfers kept, in stream order.
    pub kept: Vec<Kept>,
}

impl DutWindow {
    /// Keeps the transfers `around` blocks before and after each of `blocks`.
    pub fn around(blocks: &[u64], around: u64) -> Self {
        Self {
            ranges: blocks
                .iter()
                .map(|&b| b.saturating_sub(around)..=b.saturating_add(around))
                .collect(),
            kept: Vec::new(),
        }
    }

    /// The last index kept.
    pub fn end(&self) -> u64 {
        self.ranges.iter().map(|r| *r.end()).max().unwrap_or(0)
    }

    /// The transfers kept in `range`.
    pub fn within(&self, range: RangeInclusive<u64>) -> Vec<Kept> {
        self.kept
            .iter()
            .filter(|k| range.contains(&k.0))
            .copied()
            .collect()
    }
}

impl RxSink for DutWindow {
    fn wants_blocks(&self) -> bool {
        true
    }

    fn words(
        &mut self,
        first: u64,
        words: &[XgmiiWord],
        blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        let last = first + words.len() as u64;
        for r in &self.ranges {
            let (from, to) = ((*r.start()).max(first), r.end().saturating_add(1).min(last));
            for i in from..to {
                let at = (i - first) as usize;
                if self.kept.iter().any(|k| k.0 == i) {
                    continue;
                }
                if let Some(&w) = words.get(at) {
                    let b = blocks.and_then(|b| b.get(at)).copied();
                    self.kept.push((i, w, b));
                }
            }
        }
        self.kept.sort_by_key(|k| k.0);
        Ok(())
    }
}

/// The octets a transmitter sends for a frame: `/S/`, six preamble octets, the SFD, the frame
/// (as a receiver delivers it: padded to 60 octets), its FCS and `/T/`.
fn frame_lanes(data: &[u8]) -> Vec<Lane> {
    let padded = judge::padded(data);
    let fcs = mac_core::frame::fcs_padded_with::<FastFcs>(data, padded.len() - data.len());
    let mut lanes = vec![Lane::Control(ControlChar::START)];
    lanes.extend([0x55; 6].map(Lane::Data));
    lanes.push(Lane::Data(0xd5));
    lanes.extend(padded.iter().map(|&d| Lane::Data(d)));
    lanes.extend(fcs.to_le_bytes().map(Lane::Data));
    lanes.push(Lane::Control(ControlChar::TERMINATE));
    lanes
}

impl LaneTable {
    /// The DUT's transfers `dut` against the same transfers with the expected frame `data`
    /// (without FCS) put in its place (its `/S/` at stream octet `start.0 * 8 + start.1`), and
    /// idles after its `/T/` up to the DUT's next `/S/`.
    pub fn expected_frame(
        title: String,
        dut: &[Kept],
        data: &[u8],
        start: (u64, u8),
        focus: u64,
    ) -> Self {
        let octets = frame_lanes(data);
        let first = start.0 * 8 + u64::from(start.1);
        let end = first + octets.len() as u64;
        // Idles after the frame, up to the DUT's next /S/.
        let next_start = dut
            .iter()
            .flat_map(|&(b, w, _)| (0..8).map(move |i| (b * 8 + i as u64, w.lane(i))))
            .find(|&(pos, l)| pos >= end && l == Lane::Control(ControlChar::START))
            .map_or(u64::MAX, |(pos, _)| pos);
        let rows = dut
            .iter()
            .map(|&(block, word, b)| {
                let mut exp = word;
                for i in 0..8 {
                    let pos = block * 8 + i as u64;
                    let lane = match pos.checked_sub(first) {
                        Some(k) if pos < end => octets.get(k as usize).copied(),
                        Some(_) if pos < next_start => Some(Lane::Control(ControlChar::IDLE)),
                        _ => None,
                    };
                    if let Some(l) = lane {
                        exp = exp.with_lane(i, l);
                    }
                }
                LaneRow {
                    block,
                    expected: Some(Side {
                        word: exp,
                        block: Some(encode_word(exp).block),
                    }),
                    dut: Some(Side { word, block: b }),
                }
            })
            .collect();
        Self {
            title,
            expected_name: "expected",
            focus,
            payload: false,
            rows,
        }
    }

    /// The DUT's transfers alone, around `focus` (a PCS event).
    pub fn dut_only(title: String, dut: &[Kept], focus: u64) -> Self {
        Self {
            title,
            expected_name: "expected",
            focus,
            payload: false,
            rows: dut
                .iter()
                .map(|&(block, word, b)| LaneRow {
                    block,
                    expected: None,
                    dut: Some(Side { word, block: b }),
                })
                .collect(),
        }
    }

    /// The model's blocks against the DUT's around the first divergence of `check --xgmii`.
    pub fn model_blocks(title: String, window: &[WindowBlock], focus: u64) -> Self {
        let side = |b: Block| Side {
            word: pcs_core::decode_block(b).word,
            block: Some(b),
        };
        Self {
            title,
            expected_name: "model",
            focus,
            payload: true,
            rows: window
                .iter()
                .map(|w| LaneRow {
                    block: w.block,
                    expected: Some(side(w.model)),
                    dut: w.dut.map(side),
                })
                .collect(),
        }
    }
}

fn lane_text(l: Lane) -> String {
    match l {
        Lane::Data(d) => format!("{d:02x}"),
        Lane::Control(c) => describe::char_name(c),
    }
}

/// The sync header and what it says: `2 data`, `1 0x78`, `0 invalid`.
fn header_text(b: Block) -> String {
    match b.sync {
        SyncHeader::DATA => "2 data".into(),
        SyncHeader::CONTROL => match b.block_type() {
            Some(t) => format!("1 0x{:02x}", t as u8),
            None => format!("1 0x{:02x}?", b.payload as u8),
        },
        h => format!("{} invalid", h.to_bits()),
    }
}

/// The block type field as the row shows it: the header, and for a control block its type.
fn header_key(b: Block) -> (SyncHeader, Option<u8>) {
    (
        b.sync,
        (b.sync == SyncHeader::CONTROL).then_some(b.payload as u8),
    )
}

/// Whether lane `i` of a row differs.
fn lane_differs(r: &LaneRow, i: usize) -> bool {
    match (r.expected, r.dut) {
        (Some(e), Some(d)) => e.word.lane(i) != d.word.lane(i),
        (Some(_), None) => true,
        _ => false,
    }
}

/// Whether the header cell of a row differs (with `payload`: the whole block).
fn header_differs(r: &LaneRow, payload: bool) -> bool {
    match (
        r.expected.and_then(|s| s.block),
        r.dut.and_then(|s| s.block),
    ) {
        (Some(e), Some(d)) if payload => e != d,
        (Some(e), Some(d)) => header_key(e) != header_key(d),
        (Some(_), None) => r.dut.is_none(),
        _ => false,
    }
}

fn write_lane_table(s: &mut String, t: &LaneTable) {
    let _ = writeln!(
        s,
        "<table class=\"lanes\"><caption>{}</caption>",
        Esc(&t.title)
    );
    let _ = write!(s, "<thead><tr><th>block</th><th>header / type</th>");
    for i in 0..8 {
        let _ = write!(s, "<th>lane {i}</th>");
    }
    let _ = writeln!(s, "</tr></thead><tbody>");
    for r in &t.rows {
        write_lane_row(s, t, r);
    }
    let _ = writeln!(s, "</tbody></table>");
    if t.rows.iter().any(|r| r.expected.is_some()) {
        let _ = writeln!(
            s,
            "<p class=\"note\">Each cell: {} (upper) and DUT (lower). Cells marked \
             <span class=\"mark\">&#8800;</span> differ; their differing bits are the XOR of the \
             two octets (bit 7..0){}.</p>",
            Esc(t.expected_name),
            if t.payload {
                ", and of the two payloads in the header cell"
            } else {
                ""
            }
        );
    } else {
        let _ = writeln!(s, "<p class=\"note\">The DUT's transfers alone.</p>");
    }
}

fn write_lane_row(s: &mut String, t: &LaneTable, r: &LaneRow) {
    let focus = if r.block == t.focus {
        " class=\"focus\""
    } else {
        ""
    };
    let _ = write!(s, "<tr{focus}><th class=\"blk\">{}</th>", r.block);
    // The header / type cell.
    let cls = if header_differs(r, t.payload) {
        " class=\"diff\""
    } else {
        ""
    };
    let _ = write!(
        s,
        "<td{cls} data-block=\"{}\" data-lane=\"header\">",
        r.block
    );
    let block_text = |side: Option<Side>| match side {
        None => "(ended)".to_string(),
        Some(Side { block: None, .. }) => "&#8212;".into(),
        Some(Side { block: Some(b), .. }) if t.payload => {
            format!("{} <code>{:016x}</code>", Esc(&header_text(b)), b.payload)
        }
        Some(Side { block: Some(b), .. }) => Esc(&header_text(b)).to_string(),
    };
    if r.expected.is_some() {
        let _ = write!(s, "<span class=\"e\">{}</span>", block_text(r.expected));
    }
    let _ = write!(s, "<span class=\"d\">{}</span>", block_text(r.dut));
    if cls.is_empty() {
        let _ = write!(s, "</td>");
    } else {
        let _ = write!(s, "<span class=\"x\"><span class=\"mark\">&#8800;</span>");
        if let (true, Some(e), Some(d)) = (
            t.payload,
            r.expected.and_then(|x| x.block),
            r.dut.and_then(|x| x.block),
        ) {
            let _ = write!(s, " xor <code>{:016x}</code>", e.payload ^ d.payload);
        }
        let _ = write!(s, "</span></td>");
    }
    // The lanes.
    for i in 0..8 {
        let differs = lane_differs(r, i);
        let _ = write!(
            s,
            "<td{} data-block=\"{}\" data-lane=\"{i}\">",
            if differs { " class=\"diff\"" } else { "" },
            r.block
        );
        if let Some(e) = r.expected {
            let _ = write!(
                s,
                "<span class=\"e\">{}</span>",
                Esc(&lane_text(e.word.lane(i)))
            );
        }
        match r.dut {
            Some(d) => {
                let _ = write!(
                    s,
                    "<span class=\"d\">{}</span>",
                    Esc(&lane_text(d.word.lane(i)))
                );
            }
            None => {
                let _ = write!(s, "<span class=\"d\">&#8212;</span>");
            }
        }
        if let (true, Some(e), Some(d)) = (differs, r.expected, r.dut) {
            let x = e.word.octet(i) ^ d.word.octet(i);
            let kinds = if e.word.is_control(i) == d.word.is_control(i) {
                ""
            } else {
                " control/data"
            };
            let _ = write!(
                s,
                "<span class=\"x\"><span class=\"mark\">&#8800;</span> <code>{x:08b}</code>{kinds}</span>"
            );
        } else if differs {
            let _ = write!(
                s,
                "<span class=\"x\"><span class=\"mark\">&#8800;</span></span>"
            );
        }
        let _ = write!(s, "</td>");
    }
    let _ = writeln!(s, "</tr>");
}

// ---------------------------------------------------------------------------------------------
// Timeline

/// One kind of mark on a timeline.
struct MarkKind {
    /// The row's label on the timeline.
    label: &'static str,
    /// What the legend says.
    name: &'static str,
    color: &'static str,
}

/// Marks of the frame check's timeline, one row each.
const FRAME_KINDS: [MarkKind; 7] = [
    MarkKind {
        label: "failing frame",
        name: "failing frame (its /S/)",
        color: "#cf222e",
    },
    MarkKind {
        label: "missing frame",
        name: "missing frame (between its neighbours)",
        color: "#bc4c00",
    },
    MarkKind {
        label: "extra frame",
        name: "extra frame",
        color: "#8250df",
    },
    MarkKind {
        label: "RX_E",
        name: "RX_E (invalid header, bad block)",
        color: "#a40e26",
    },
    MarkKind {
        label: "lock loss",
        name: "lock loss",
        color: "#24292f",
    },
    MarkKind {
        label: "hi_ber",
        name: "hi_ber",
        color: "#953800",
    },
    MarkKind {
        label: "link fault",
        name: "link fault change",
        color: "#0969da",
    },
];

/// The bit-exact check's timeline.
const PCS_KINDS: [MarkKind; 1] = [MarkKind {
    label: "divergent block",
    name: "divergent block",
    color: "#cf222e",
}];

/// One mark: where, which kind, what happened.
struct Mark {
    block: u64,
    kind: usize,
    what: String,
}

/// The marks of a frame check: failing and extra frames, the PCS's events.
fn frame_marks(doc: &FrameCheckReport) -> Vec<Mark> {
    let mut marks = Vec::new();
    // The start block of the nearest received frame after each expected frame.
    let mut next = vec![doc.pcs.blocks; doc.frames.len()];
    let mut seen = doc.pcs.blocks;
    for (n, f) in next.iter_mut().zip(&doc.frames).rev() {
        *n = seen;
        seen = f.start_block.unwrap_or(seen);
    }
    let mut prev = 0;
    for (f, &next) in doc.frames.iter().zip(&next) {
        let what = format!("frame {} {}", f.expected_index, status_name(f.status));
        match (f.failed(), f.start_block) {
            (false, b) => prev = b.unwrap_or(prev),
            (true, Some(b)) => {
                prev = b;
                marks.push(Mark {
                    block: b,
                    kind: 0,
                    what: format!("{what}, class {}", f.class.unwrap_or("?")),
                });
            }
            (true, None) => marks.push(Mark {
                block: prev + next.saturating_sub(prev) / 2,
                kind: 1,
                what: format!("{what} (expected between DUT blocks {prev} and {next})"),
            }),
        }
    }
    for x in &doc.extra_frames {
        marks.push(Mark {
            block: x.start_block,
            kind: 2,
            what: format!(
                "DUT frame {}: {} octets, class {}{}",
                x.received_index,
                x.length,
                x.class,
                x.duplicate_of
                    .map_or(String::new(), |d| format!(", copy of frame {d}"))
            ),
        });
    }
    pcs_marks(&doc.pcs, &mut marks);
    marks
}

fn pcs_marks(p: &PcsSummary, marks: &mut Vec<Mark>) {
    for e in &p.e_transitions {
        marks.push(Mark {
            block: e.block,
            kind: 3,
            what: e.what.clone(),
        });
    }
    for &b in &p.lock_losses {
        marks.push(Mark {
            block: b,
            kind: 4,
            what: "block lock lost".into(),
        });
    }
    for &b in &p.hi_ber_episodes {
        marks.push(Mark {
            block: b,
            kind: 5,
            what: "hi_ber rose".into(),
        });
    }
    for e in &p.link_fault_changes {
        marks.push(Mark {
            block: e.block,
            kind: 6,
            what: e.what.clone(),
        });
    }
}

/// An inline SVG: one row per kind, x = block index over `0..blocks`, a legend, and the marks
/// as a list.
fn write_timeline(s: &mut String, kinds: &[MarkKind], marks: &[Mark], blocks: u64) {
    const LEFT: f64 = 130.0;
    const RIGHT: f64 = 985.0;
    const ROW: f64 = 24.0;
    let span = blocks.saturating_sub(1).max(1) as f64;
    let x = |b: u64| LEFT + (RIGHT - LEFT) * (b.min(blocks) as f64 / span).min(1.0);
    let height = ROW * kinds.len() as f64 + 40.0;
    let _ = writeln!(
        s,
        "<svg class=\"timeline\" viewBox=\"0 0 1000 {height}\" role=\"img\" \
         aria-label=\"events across the DUT's {blocks} blocks\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    for (k, kind) in kinds.iter().enumerate() {
        let y = 8.0 + ROW * k as f64;
        let n = marks.iter().filter(|m| m.kind == k).count();
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"lbl\">{} ({n})</text>\
             <line x1=\"{LEFT}\" x2=\"{RIGHT}\" y1=\"{}\" y2=\"{}\" class=\"row\"/>",
            LEFT - 8.0,
            y + 13.0,
            Esc(kind.label),
            y + 9.0,
            y + 9.0
        );
        for m in marks.iter().filter(|m| m.kind == k).take(MAX_MARKS) {
            let _ = writeln!(
                s,
                "<g class=\"mark k{k}\" data-block=\"{}\"><title>block {}: {}</title>\
                 <rect x=\"{:.1}\" y=\"{y}\" width=\"3\" height=\"18\" fill=\"{}\"/></g>",
                m.block,
                m.block,
                Esc(&m.what),
                x(m.block) - 1.5,
                kind.color
            );
        }
    }
    let axis = 8.0 + ROW * kinds.len() as f64 + 4.0;
    let _ = writeln!(
        s,
        "<line x1=\"{LEFT}\" x2=\"{RIGHT}\" y1=\"{axis}\" y2=\"{axis}\" class=\"axis\"/>"
    );
    for q in 0..=4u64 {
        let b = blocks.saturating_sub(1) * q / 4;
        let anchor = match q {
            0 => "start",
            4 => "end",
            _ => "middle",
        };
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{axis}\" y2=\"{1}\" class=\"axis\"/>\
             <text x=\"{0:.1}\" y=\"{2}\" text-anchor=\"{anchor}\" class=\"tick\">{b}</text>",
            x(b),
            axis + 5.0,
            axis + 18.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{LEFT}\" y=\"{}\" class=\"tick\" text-anchor=\"end\" dx=\"-8\">block</text></svg>",
        axis + 18.0
    );
    let _ = write!(s, "<ul class=\"legend\">");
    for (k, kind) in kinds.iter().enumerate() {
        let n = marks.iter().filter(|m| m.kind == k).count();
        let shown = if n > MAX_MARKS {
            format!(" ({MAX_MARKS} of {n} drawn)")
        } else {
            format!(" ({n})")
        };
        let _ = write!(
            s,
            "<li><span class=\"sw\" style=\"background:{}\"></span>{}{shown}</li>",
            kind.color,
            Esc(kind.name)
        );
    }
    let _ = writeln!(s, "</ul>");
    if marks.is_empty() {
        let _ = writeln!(s, "<p>Nothing to mark: no failing frame, no PCS event.</p>");
        return;
    }
    let mut sorted: Vec<&Mark> = marks.iter().collect();
    sorted.sort_by_key(|m| (m.block, m.kind));
    let _ = writeln!(
        s,
        "<table class=\"list events\"><thead><tr><th>block</th><th>event</th><th>what</th></tr></thead><tbody>"
    );
    for m in sorted.iter().take(MAX_ROWS) {
        let name = kinds.get(m.kind).map_or("", |k| k.name);
        let _ = writeln!(
            s,
            "<tr data-block=\"{}\"><td>{}</td><td>{}</td><td>{}</td></tr>",
            m.block,
            m.block,
            Esc(name),
            Esc(&m.what)
        );
    }
    let _ = writeln!(s, "</tbody></table>");
    left_out(s, sorted.len(), "events");
}

// ---------------------------------------------------------------------------------------------
// Pages

const STYLE: &str = "
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 40px;color:#1f2328;background:#fff}
h1{margin:0;font-size:56px;letter-spacing:2px}
h2{font-size:20px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:32px}
header.verdict{padding:20px 24px;margin:16px 0;border-radius:8px;color:#fff}
header.pass{background:#1a7f37}header.fail{background:#cf222e}header.info{background:#0969da}
header p{margin:4px 0 0;font-size:16px}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:#f6f8fa}
table.kv th{background:#f6f8fa;font-weight:600}
table.counts td{text-align:right;font-variant-numeric:tabular-nums}
code,pre,table.lanes td,table.list td{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{background:#f6f8fa;padding:8px;overflow-x:auto;margin:4px 0}
table.lanes caption{text-align:left;font-weight:600;padding:4px 0}
table.lanes td{min-width:52px}
table.lanes td span{display:block;white-space:nowrap}
table.lanes span.e{color:#57606a}
table.lanes span.d{font-weight:600}
table.lanes td.diff{background:#ffebe9;outline:2px solid #cf222e;outline-offset:-2px}
table.lanes td.diff span.d{color:#a40e26}
table.lanes span.x{font-size:11px;color:#a40e26}
table.lanes tr.focus th.blk{background:#fff8c5}
table.lanes th.blk{text-align:right}
.mark{font-weight:700;color:#cf222e}
.note{color:#57606a;font-size:12px}
tr.fail td{background:#fff5f5}
td.st-matched{color:#1a7f37}td.st-corrupted,td.st-missing,td.st-reordered{color:#cf222e;font-weight:600}
svg.timeline{width:100%;height:auto;border:1px solid #d0d7de;border-radius:6px;background:#fff}
svg .lbl{font-size:12px;fill:#1f2328}svg .tick{font-size:11px;fill:#57606a}
svg .row{stroke:#eaeef2;stroke-width:18}svg .axis{stroke:#57606a;stroke-width:1}
ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 18px}
.sw{display:inline-block;width:10px;height:14px;margin-right:6px;vertical-align:-2px}
.bar{display:inline-block;width:160px;height:12px;background:#eaeef2;border-radius:3px;vertical-align:middle}
.bar span{display:block;height:100%;background:#1a7f37;border-radius:3px}
table.list td.prose{font-family:inherit;font-size:13px}
td.holes{font-size:12px}td.holes code{background:#fff1e5;padding:0 3px;margin:0 2px;display:inline-block}
footer{margin-top:40px;color:#57606a;font-size:12px}
";

fn page_start(s: &mut String, title: &str, verdict: &str, class: &str, what: &str) {
    let _ = writeln!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}: {}</title><style>{STYLE}</style></head><body>",
        Esc(title),
        Esc(verdict)
    );
    let _ = writeln!(
        s,
        "<header class=\"verdict {class}\"><h1 id=\"verdict\">{}</h1><p>{}</p></header>",
        Esc(verdict),
        Esc(what)
    );
}

fn page_end(s: &mut String) {
    let _ = writeln!(
        s,
        "<footer>baser {} &#8212; golden model of IEEE 802.3 Clause 49 (10GBASE-R PCS) and the \
         10 Gb/s MAC; fields are described in docs/reports.md.</footer></body></html>",
        env!("CARGO_PKG_VERSION")
    );
}

fn kv(s: &mut String, rows: &[(&str, String)]) {
    let _ = writeln!(s, "<table class=\"kv\"><tbody>");
    for (k, v) in rows {
        let _ = writeln!(s, "<tr><th>{}</th><td>{}</td></tr>", Esc(k), Esc(v));
    }
    let _ = writeln!(s, "</tbody></table>");
}

fn counts(s: &mut String, rows: &[(&str, String)]) {
    let _ = write!(s, "<table class=\"counts\"><thead><tr>");
    for (k, _) in rows {
        let _ = write!(s, "<th>{}</th>", Esc(k));
    }
    let _ = write!(s, "</tr></thead><tbody><tr>");
    for (_, v) in rows {
        let _ = write!(s, "<td>{}</td>", Esc(v));
    }
    let _ = writeln!(s, "</tr></tbody></table>");
}

fn left_out(s: &mut String, n: usize, what: &str) {
    if n > MAX_ROWS {
        let _ = writeln!(
            s,
            "<p class=\"note\" id=\"left-out-{what}\">{} {what} left out: the first {MAX_ROWS} are listed (the JSON report has them all).</p>",
            n - MAX_ROWS
        );
    }
}

fn status_name(st: Status) -> &'static str {
    match st {
        Status::Matched => "matched",
        Status::Reordered => "reordered",
        Status::Corrupted => "corrupted",
        Status::Missing => "missing",
    }
}

/// The failing checks with their messages and detail, then how many passed.
fn write_failures(s: &mut String, cases: &[Case]) {
    let failed: Vec<&Case> = cases.iter().filter(|c| c.failed()).collect();
    let _ = writeln!(
        s,
        "<h2 id=\"checks\">Checks</h2><p>{} of {} checks passed, {} failed.</p>",
        cases.len() - failed.len(),
        cases.len(),
        failed.len()
    );
    if failed.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "<table class=\"list failures\"><thead><tr><th>check</th><th>what diverged</th></tr></thead><tbody>"
    );
    for c in failed.iter().take(MAX_ROWS) {
        let _ = write!(
            s,
            "<tr class=\"fail\"><td>{}: {}</td><td>{}",
            Esc(&c.group),
            Esc(&c.name),
            Esc(c.message.as_deref().unwrap_or(""))
        );
        if let Some(d) = &c.detail {
            let _ = write!(s, "<pre>{}</pre>", Esc(d));
        }
        let _ = writeln!(s, "</td></tr>");
    }
    let _ = writeln!(s, "</tbody></table>");
    left_out(s, failed.len(), "failures");
}

/// The frames of a frame check: every failing one, and passing ones while room is left.
fn write_frames(s: &mut String, doc: &FrameCheckReport) {
    let _ = writeln!(s, "<h2 id=\"frames\">Frames</h2>");
    let failing = doc.frames.iter().filter(|f| f.failed()).count();
    let mut room_passing = MAX_ROWS.saturating_sub(failing);
    let mut room_failing = MAX_ROWS;
    let _ = writeln!(
        s,
        "<table class=\"list frames\"><thead><tr><th>expected</th><th>length</th><th>status</th>\
         <th>MAC class</th><th>DUT frame</th><th>DUT block</th><th>lane</th><th>first difference</th></tr></thead><tbody>"
    );
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    for f in &doc.frames {
        let room = if f.failed() {
            &mut room_failing
        } else {
            &mut room_passing
        };
        if *room == 0 {
            continue;
        }
        *room -= 1;
        let diff = f.first_difference.as_ref().map_or(String::new(), |d| {
            let octet = |o: Option<u8>| o.map_or("(end)".into(), |x| format!("0x{x:02x}"));
            format!(
                "octet {}: expected {}, got {}{}",
                d.offset,
                octet(d.expected),
                octet(d.actual),
                match (d.block, d.lane) {
                    (Some(b), Some(l)) => format!(" (block {b} lane {l})"),
                    _ => String::new(),
                }
            )
        });
        let st = status_name(f.status);
        let _ = writeln!(
            s,
            "<tr{} data-frame=\"{}\"><td>{}</td><td>{}</td><td class=\"st-{st}\">{st}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if f.failed() { " class=\"fail\"" } else { "" },
            f.expected_index,
            f.expected_index,
            f.length,
            Esc(f.class.unwrap_or("")),
            opt(f.received_index),
            opt(f.start_block),
            opt(f.start_lane.map(u64::from)),
            Esc(&diff)
        );
    }
    let _ = writeln!(s, "</tbody></table>");
    let listed = failing.min(MAX_ROWS)
        + MAX_ROWS
            .saturating_sub(failing)
            .min(doc.frames.len() - failing);
    if listed < doc.frames.len() {
        let _ = writeln!(
            s,
            "<p class=\"note\" id=\"left-out-frames\">{} of {} frames left out (every failing frame is listed first, up to {MAX_ROWS}; the JSON report has them all).</p>",
            doc.frames.len() - listed,
            doc.frames.len()
        );
    }
    if !doc.extra_frames.is_empty() {
        let _ = writeln!(
            s,
            "<h3>Extra frames</h3><table class=\"list extra\"><thead><tr><th>DUT frame</th><th>length</th>\
             <th>MAC class</th><th>DUT block</th><th>lane</th><th>copy of</th></tr></thead><tbody>"
        );
        for x in doc.extra_frames.iter().take(MAX_ROWS) {
            let _ = writeln!(
                s,
                "<tr class=\"fail\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                x.received_index,
                x.length,
                Esc(x.class),
                x.start_block,
                x.start_lane,
                opt(x.duplicate_of)
            );
        }
        let _ = writeln!(s, "</tbody></table>");
        left_out(s, doc.extra_frames.len(), "extra-frames");
    }
}

fn write_first_failure(s: &mut String, cases: &[Case], tables: &[LaneTable]) {
    let _ = writeln!(s, "<h2 id=\"divergence\">First divergence</h2>");
    match cases.iter().find(|c| c.failed()) {
        None => {
            let _ = writeln!(s, "<p>None: the DUT did what the model says.</p>");
        }
        Some(c) => {
            let _ = writeln!(
                s,
                "<p class=\"first\"><b>{}: {}</b>: {}</p>",
                Esc(&c.group),
                Esc(&c.name),
                Esc(c.message.as_deref().unwrap_or(""))
            );
        }
    }
    for t in tables {
        write_lane_table(s, t);
    }
}

/// What the HTML report of `check --frames` shows.
pub struct FramesPage<'a> {
    /// The report (the JSON document).
    pub doc: &'a FrameCheckReport,
    /// Its checks.
    pub cases: &'a [Case],
    /// Lane tables of the first divergences.
    pub lanes: &'a [LaneTable],
    /// The DUT stream's coverage (`--coverage`).
    pub coverage: Option<&'a Coverage>,
}

/// The page of `check --frames`.
pub fn frames_page(p: &FramesPage<'_>) -> String {
    let doc = p.doc;
    let mut s = String::with_capacity(1 << 16);
    let verdict = if doc.failed() { "FAIL" } else { "PASS" };
    page_start(
        &mut s,
        "baser check",
        verdict,
        &verdict.to_ascii_lowercase(),
        "baser check --frames: the DUT's frames against the expected ones",
    );
    let _ = writeln!(s, "<h2 id=\"inputs\">Inputs</h2>");
    kv(
        &mut s,
        &[
            ("expected", doc.expected.clone()),
            ("DUT", doc.dut.clone()),
            ("profile", doc.profile.to_string()),
        ],
    );
    let m = &doc.summary;
    let _ = writeln!(s, "<h2 id=\"summary\">Summary</h2>");
    counts(
        &mut s,
        &[
            ("expected", m.expected.to_string()),
            ("received", m.received.to_string()),
            ("matched", m.matched.to_string()),
            ("reordered", m.reordered.to_string()),
            ("corrupted", m.corrupted.to_string()),
            ("missing", m.missing.to_string()),
            ("extra", m.extra.to_string()),
            ("bad MAC class", m.bad_class.to_string()),
        ],
    );
    write_pcs_summary(&mut s, &doc.pcs);
    if let Some(f) = &doc.fec {
        write_fec(&mut s, f, doc.fec_expected.as_ref());
    }
    if let Some(b) = &doc.blocks {
        let _ = writeln!(
            s,
            "<p>Blocks (--blocks): {} compared in place, {} differ; {} of {} gaps shorter than IFG {} with the deficit idle count allows.</p>",
            b.compared, b.divergent, b.gaps.violations, b.gaps.gaps, b.gaps.ifg
        );
    }
    if !doc.outcomes.is_empty() {
        let met = doc.outcomes.iter().filter(|v| v.met).count();
        let _ = writeln!(
            s,
            "<p>Outcomes (--outcomes): {} frames with an expected fault, {met} as expected.</p>",
            doc.outcomes.len()
        );
    }
    write_first_failure(&mut s, p.cases, p.lanes);
    let _ = writeln!(s, "<h2 id=\"timeline\">Timeline</h2>");
    write_timeline(&mut s, &FRAME_KINDS, &frame_marks(doc), doc.pcs.blocks);
    write_failures(&mut s, p.cases);
    write_frames(&mut s, doc);
    if let Some(c) = p.coverage {
        write_coverage(&mut s, c);
    }
    page_end(&mut s);
    s
}

/// The FEC section: its counters, and each uncorrectable FEC block or codeword with the
/// frames it hit.
fn write_fec(
    s: &mut String,
    f: &baser_engine::fec::FecSummary,
    expected: Option<&baser_engine::fec::ExpectedFec>,
) {
    let unit = f.kind.unit();
    let _ = writeln!(
        s,
        "<section id=\"fec\"><h2>FEC</h2><p>{} below the PCS.</p>",
        Esc(f.clause)
    );
    let mut rows = vec![
        (
            "lock at bit",
            f.lock
                .acquired_at_bit
                .map_or("never".into(), |b| b.to_string()),
        ),
        ("lock losses", f.lock.losses.to_string()),
        ("bits before lock", f.bits_before_lock.to_string()),
        ("decoded", f.codewords.to_string()),
        ("corrected", f.corrected_codewords.to_string()),
        ("uncorrectable", f.uncorrected_codewords.to_string()),
    ];
    if let Some(n) = f.corrected_symbols {
        rows.push(("symbols corrected", n.to_string()));
    }
    rows.push(("bits corrected", f.corrected_bits.to_string()));
    if let Some(n) = f.hi_ser_episodes {
        rows.push(("hi_ser", n.to_string()));
    }
    if let Some(n) = f.markers {
        rows.push(("markers", n.to_string()));
    }
    counts(s, &rows);
    if let Some(e) = expected {
        let _ = writeln!(
            s,
            "<p class=\"note\">The stimulus planned {} corrected and {} uncorrectable {unit}s \
             ({} faults on {} {unit}s on the line).</p>",
            e.corrected_codewords,
            e.uncorrected_codewords,
            e.faults.len(),
            e.codewords_on_line
        );
    }
    if !f.uncorrectable.is_empty() {
        let _ = writeln!(
            s,
            "<table class=\"list\" id=\"fec-uncorrectable\"><thead><tr><th>{unit}</th>\
             <th>line bit</th><th>PCS blocks</th><th>expected frames hit</th></tr></thead><tbody>"
        );
        for u in f.uncorrectable.iter().take(MAX_ROWS) {
            let frames: Vec<String> = u
                .expected_frames
                .as_deref()
                .unwrap_or(&u.frames)
                .iter()
                .map(u64::to_string)
                .collect();
            let _ = writeln!(
                s,
                "<tr class=\"fail\"><td>{}</td><td>{}</td><td>{}..{}</td><td>{}</td></tr>",
                u.index,
                u.bit,
                u.first_block,
                u.first_block + u64::from(u.blocks),
                Esc(&if frames.is_empty() {
                    "none".to_string()
                } else {
                    frames.join(", ")
                })
            );
        }
        let _ = writeln!(s, "</tbody></table>");
        left_out(s, f.uncorrectable.len(), "uncorrectable");
    }
    let _ = writeln!(s, "</section>");
}

fn write_pcs_summary(s: &mut String, p: &PcsSummary) {
    let mut rows = vec![("blocks", p.blocks.to_string())];
    if p.input != StreamKind::Xgmii {
        rows.extend([
            (
                "block lock",
                p.lock_acquired
                    .map_or("never".into(), |l| format!("block {}", l.block)),
            ),
            ("lock losses", p.lock_losses.len().to_string()),
            ("hi_ber", p.hi_ber_episodes.len().to_string()),
            ("invalid headers", p.invalid_headers.to_string()),
            ("errored blocks", p.errored_blocks.to_string()),
        ]);
    }
    rows.push(("link fault", p.link_fault.to_string()));
    counts(s, &rows);
    let lines = [
        crate::command::lock_line(p),
        crate::command::prelude_line(p),
    ];
    for l in lines.iter().flatten().chain(&p.hints) {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", Esc(l));
    }
}

/// The page of `check --xgmii`.
pub fn pcs_page(rep: &PcsCheckReport, cases: &[Case]) -> String {
    let mut s = String::with_capacity(1 << 15);
    let failed = cases.iter().any(Case::failed);
    let verdict = if failed { "FAIL" } else { "PASS" };
    page_start(
        &mut s,
        "baser check",
        verdict,
        &verdict.to_ascii_lowercase(),
        "baser check --xgmii: the DUT's blocks against the model's, bit exact",
    );
    let _ = writeln!(s, "<h2 id=\"inputs\">Inputs</h2>");
    kv(
        &mut s,
        &[
            ("XGMII input", rep.xgmii.clone()),
            ("DUT", rep.dut.clone()),
            ("profile", rep.profile.clone()),
            (
                "DUT stream",
                if rep.dut_scrambled {
                    "scrambled (descrambled here)".into()
                } else {
                    "unscrambled".into()
                },
            ),
            (
                "DUT offset",
                format!(
                    "{} blocks ({})",
                    rep.dut_offset,
                    if rep.dut_offset_found {
                        "found"
                    } else {
                        "given"
                    }
                ),
            ),
        ],
    );
    let c = &rep.counts;
    let _ = writeln!(s, "<h2 id=\"summary\">Summary</h2>");
    counts(
        &mut s,
        &[
            ("blocks compared", c.blocks_compared.to_string()),
            ("divergent", c.blocks_divergent.to_string()),
            ("DUT missing", c.dut_missing_blocks.to_string()),
            ("DUT extra", c.dut_extra_blocks.to_string()),
            ("reset fill", rep.dut_reset_fill_blocks.to_string()),
        ],
    );
    // The window's divergent block (the first divergence, also with --max-report 0).
    let focus = rep
        .window
        .iter()
        .find(|w| w.dut.is_some_and(|d| d != w.model));
    let tables: Vec<LaneTable> = match (focus, rep.divergences.first()) {
        (None, _) => Vec::new(),
        (Some(w), d) => vec![LaneTable::model_blocks(
            match d {
                Some(d) => format!(
                    "block {} (DUT line {}): {}; the model's transmit arrow {}",
                    d.block, d.dut_line, d.field, d.tx_arrow
                ),
                None => format!("block {} (DUT line {})", w.block, w.dut_line),
            },
            &rep.window,
            w.block,
        )],
    };
    write_first_failure(&mut s, cases, &tables);
    if !rep.divergences.is_empty() {
        let _ = writeln!(
            s,
            "<table class=\"list divergences\"><thead><tr><th>block</th><th>DUT line</th><th>field</th>\
             <th>input</th><th>model</th><th>DUT</th><th>transmit arrow</th></tr></thead><tbody>"
        );
        for d in rep.divergences.iter().take(MAX_ROWS) {
            let _ = writeln!(
                s,
                "<tr class=\"fail\" data-block=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                d.block,
                d.block,
                d.dut_line,
                Esc(&d.field),
                Esc(&d.input),
                Esc(&d.model),
                Esc(&d.dut),
                Esc(&d.tx_arrow)
            );
        }
        let _ = writeln!(s, "</tbody></table>");
        if c.blocks_divergent > rep.divergences.len() as u64 {
            let _ = writeln!(
                s,
                "<p class=\"note\">{} more divergent blocks not kept in detail (raise --max-report).</p>",
                c.blocks_divergent - rep.divergences.len() as u64
            );
        }
    }
    let _ = writeln!(s, "<h2 id=\"timeline\">Timeline</h2>");
    let marks: Vec<Mark> = rep
        .divergences
        .iter()
        .map(|d| Mark {
            block: d.block,
            kind: 0,
            what: d.field.clone(),
        })
        .collect();
    let (in_skip, _) = baser_engine::pcs_check::latency_starts(
        rep.dut_offset as usize,
        rep.dut_reset_fill_blocks as usize,
    );
    let blocks = in_skip as u64 + c.blocks_compared + c.dut_missing_blocks;
    write_timeline(&mut s, &PCS_KINDS, &marks, blocks);
    write_failures(&mut s, cases);
    page_end(&mut s);
    s
}

fn write_coverage(s: &mut String, c: &Coverage) {
    let (hit, n) = c.totals();
    let _ = writeln!(
        s,
        "<h2 id=\"coverage\">Coverage</h2><p>{hit} of {n} bins hit ({:.1} %) over {} run{}.</p>",
        c.percent(),
        c.runs.len(),
        if c.runs.len() == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "<table class=\"list coverage\"><thead><tr><th>group</th><th>covers</th><th>bins hit</th>\
         <th></th><th>holes</th></tr></thead><tbody>"
    );
    for g in &c.groups {
        let covered = g.covered();
        let pct = if g.bins.is_empty() {
            100.0
        } else {
            100.0 * covered as f64 / g.bins.len() as f64
        };
        let _ = write!(
            s,
            "<tr data-group=\"{}\"><td>{}</td><td class=\"prose\">{}</td><td>{covered}/{}</td>\
             <td><span class=\"bar\" title=\"{pct:.1} %\"><span style=\"width:{pct:.1}%\"></span></span></td><td class=\"holes\">",
            Esc(&g.name),
            Esc(&g.name),
            Esc(&g.what),
            g.bins.len()
        );
        for b in g.holes() {
            let _ = write!(s, "<code class=\"hole\">{}</code> ", Esc(&b.name));
        }
        let _ = writeln!(s, "</td></tr>");
    }
    let _ = writeln!(s, "</tbody></table>");
    if !c.runs.is_empty() {
        let _ = write!(s, "<details><summary>runs ({})</summary><ul>", c.runs.len());
        for r in c.runs.iter().take(MAX_ROWS) {
            let _ = write!(s, "<li>{}</li>", Esc(r));
        }
        let _ = writeln!(s, "</ul></details>");
        left_out(s, c.runs.len(), "runs");
    }
}

/// The page of `baser coverage`; `gate` is `--fail-under` and whether the coverage is below it.
pub fn coverage_page(c: &Coverage, gate: Option<(f64, bool)>) -> String {
    let mut s = String::with_capacity(1 << 15);
    let pct = format!("{:.1} %", c.percent());
    let (verdict, class, what) = match gate {
        Some((f, true)) => (
            "FAIL".to_string(),
            "fail",
            format!("coverage {pct} is under {f} %"),
        ),
        Some((f, false)) => (
            "PASS".to_string(),
            "pass",
            format!("coverage {pct} >= {f} %"),
        ),
        None => (
            pct,
            "info",
            "baser coverage: bins of Clauses 49 and 46 hit".into(),
        ),
    };
    page_start(&mut s, "baser coverage", &verdict, class, &what);
    write_coverage(&mut s, c);
    page_end(&mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use baser_engine::coverage::{Bin, Group};

    #[test]
    fn escaping_keeps_markup_as_text() {
        assert_eq!(
            Esc("<script>alert('x&y')</script> \"q\"").to_string(),
            "&lt;script&gt;alert(&#39;x&amp;y&#39;)&lt;/script&gt; &quot;q&quot;"
        );
        assert_eq!(Esc("plain é").to_string(), "plain é");
    }

    #[test]
    fn a_name_with_markup_stays_text_on_every_page() {
        let evil = "<script>alert(1)</script>";
        let cases = [Case::fail(
            "frames",
            evil,
            format!("{evil} corrupted"),
            Some(evil.into()),
        )];
        let cov = Coverage {
            runs: vec![evil.into()],
            groups: vec![Group {
                name: evil.into(),
                what: evil.into(),
                bins: vec![Bin {
                    name: evil.into(),
                    hits: 0,
                }],
            }],
        };
        let mut s = String::new();
        write_failures(&mut s, &cases);
        write_coverage(&mut s, &cov);
        write_lane_table(
            &mut s,
            &LaneTable::dut_only(evil.into(), &[(0, XgmiiWord::IDLE, Some(Block::IDLE))], 0),
        );
        let page = coverage_page(&cov, None) + &s;
        assert!(!page.contains("<script"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    /// The (block, lane) of every cell marked `diff`.
    fn diff_cells(html: &str) -> Vec<(u64, String)> {
        html.match_indices("<td class=\"diff\" data-block=\"")
            .map(|(i, m)| {
                let rest = html.get(i + m.len()..).unwrap();
                let (block, rest) = rest.split_once('"').unwrap();
                let lane = rest
                    .strip_prefix(" data-lane=\"")
                    .unwrap()
                    .split_once('"')
                    .unwrap()
                    .0;
                (block.parse().unwrap(), lane.to_string())
            })
            .collect()
    }

    #[test]
    fn the_lane_table_marks_exactly_the_differing_cells() {
        // Idle blocks, a frame from block 10, idle blocks; the DUT's copy differs in
        // four places (below).
        let frame: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37)).collect();
        let start = (10u64, 0u8);
        let lanes = frame_lanes(&frame);
        let mut words = vec![XgmiiWord::IDLE; 24];
        for (k, l) in lanes.iter().enumerate() {
            let pos = start.0 as usize * 8 + k;
            if let Some(w) = words.get_mut(pos / 8) {
                *w = w.with_lane(pos % 8, *l);
            }
        }
        let good = words.clone();
        // Octet 2 of block 11 is frame octet 2 (block 10 holds /S/, preamble, SFD).
        assert_eq!(good[11].lane(2), Lane::Data(frame[2]));
        words[11] = words[11].with_lane(2, Lane::Data(frame[2] ^ 0x10));
        // Lane 7 of block 12 flipped, lane 0 of block 14 an /E/ in place of data.
        words[12] = words[12].with_lane(7, Lane::Data(frame[15] ^ 0x81));
        words[14] = words[14].with_lane(0, Lane::Control(ControlChar::ERROR));
        // Frame: 8 + 64 + 4 = 76 octets, /T/ at octet 76 = block 19 lane 4.
        assert_eq!(good[19].lane(4), Lane::Control(ControlChar::TERMINATE));
        // The DUT's frame is two octets longer: its /T/ is at lane 6; the expected side has
        // idles after its /T/.
        words[19] = words[19]
            .with_lane(4, Lane::Data(0x00))
            .with_lane(5, Lane::Data(0x00))
            .with_lane(6, Lane::Control(ControlChar::TERMINATE));
        let dut: Vec<Kept> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (i as u64, *w, Some(encode_word(*w).block)))
            .collect();
        let t = LaneTable::expected_frame("frame".into(), &dut, &frame, start, 11);
        // The expected side is the stream as sent.
        for (r, g) in t.rows.iter().zip(&good) {
            assert_eq!(r.expected.map(|e| e.word), Some(*g), "block {}", r.block);
        }
        let mut s = String::new();
        write_lane_table(&mut s, &t);
        assert_eq!(
            diff_cells(&s),
            [
                (11, "2"),
                (12, "7"),
                (14, "header"),
                (14, "0"),
                (19, "header"),
                (19, "4"),
                (19, "5"),
                (19, "6")
            ]
            .map(|(b, l)| (b, l.to_string())),
            "{s}"
        );
        let cell = s
            .split("data-block=\"11\" data-lane=\"2\">")
            .nth(1)
            .unwrap();
        let cell = cell.split("</td>").next().unwrap();
        let x = frame[2] ^ (frame[2] ^ 0x10);
        assert!(cell.contains(&format!("<code>{x:08b}</code>")), "{cell}");
        assert!(cell.contains("&#8800;"), "{cell}");
        // The DUT alone: nothing is marked.
        let mut s = String::new();
        write_lane_table(&mut s, &LaneTable::dut_only("dut".into(), &dut, 11));
        assert!(diff_cells(&s).is_empty());
    }

    #[test]
    fn a_model_table_marks_a_payload_difference_in_the_header_cell() {
        let model = Block::IDLE;
        let dut = Block::control(Block::IDLE.payload ^ (1 << 20));
        let window = [
            WindowBlock {
                block: 4,
                dut_line: 5,
                input: XgmiiWord::IDLE,
                model,
                dut: Some(model),
            },
            WindowBlock {
                block: 5,
                dut_line: 6,
                input: XgmiiWord::IDLE,
                model,
                dut: Some(dut),
            },
        ];
        let mut s = String::new();
        write_lane_table(&mut s, &LaneTable::model_blocks("pcs".into(), &window, 5));
        // Bit 20 is in lane 1's control code: the DUT's lane 1 decodes to /E/.
        assert_eq!(
            diff_cells(&s),
            vec![(5, "header".to_string()), (5, "1".to_string())],
            "{s}"
        );
        assert!(
            s.contains(&format!("<code>{:016x}</code>", 1u64 << 20)),
            "{s}"
        );
    }

    #[test]
    fn the_dut_window_keeps_the_transfers_of_its_ranges() {
        let mut w = DutWindow::around(&[5, 100], 2);
        let words: Vec<XgmiiWord> = (0..64).map(XgmiiWord::from_data).collect();
        w.words(0, &words, None).unwrap();
        w.words(64, &words, None).unwrap();
        let kept: Vec<u64> = w.kept.iter().map(|k| k.0).collect();
        assert_eq!(kept, [3, 4, 5, 6, 7, 98, 99, 100, 101, 102]);
        assert_eq!(w.within(97..=99).len(), 2);
        assert_eq!(w.end(), 102);
    }

    #[test]
    fn the_timeline_draws_a_mark_per_event_with_its_block() {
        let marks = [
            Mark {
                block: 575,
                kind: 3,
                what: "RX_C --E--> RX_E <x>".into(),
            },
            Mark {
                block: 10,
                kind: 0,
                what: "frame 2".into(),
            },
        ];
        let mut s = String::new();
        write_timeline(&mut s, &FRAME_KINDS, &marks, 1000);
        assert!(s.contains("<g class=\"mark k3\" data-block=\"575\"><title>block 575: RX_C --E--&gt; RX_E &lt;x&gt;</title>"), "{s}");
        assert_eq!(s.matches("<g class=\"mark").count(), 2);
        assert!(s.contains("lock loss (0)"));
    }
}
