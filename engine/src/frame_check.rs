//! The frame check: expected frames against the frames a MAC decoded from a DUT's stream, to
//! one verdict, one summary and one list of checks ([`Case`]s). `baser check --frames`, the
//! Python package and the C ABI's live checker build their reports here, so that the three
//! say the same of the same stream; the doors only print and write them.

use crate::case::Case;
use crate::fec::{ExpectedFec, FecSummary, Uncorrectable};
use crate::judge::{self, Comparison, Status};
use crate::outcome;
use crate::pcs_check::BlockComparison;
use crate::profile::Profile;
use crate::rx::{FrameCounts, PcsSummary, StreamKind};
use serde::Serialize;

/// The JSON document of `baser check --frames` (docs/reports.md), field for field.
#[derive(Clone, Debug, Serialize)]
pub struct FrameCheckReport {
    /// Always `frames`.
    pub check: &'static str,
    /// `pass` or `fail`.
    pub verdict: &'static str,
    /// Where the expected frames came from.
    pub expected: String,
    /// Where the DUT's stream came from.
    pub dut: String,
    /// The profile's name.
    pub profile: &'static str,
    /// Counts.
    pub summary: FrameCheckSummary,
    /// One verdict per expected frame.
    pub frames: Vec<judge::FrameResult>,
    /// Received frames that matched no expected frame, and extra copies.
    pub extra_frames: Vec<judge::ExtraFrame>,
    /// What the PCS saw.
    pub pcs: PcsSummary,
    /// The bit-exact comparison of the frames' blocks (`--blocks`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<BlockComparison>,
    /// Frames judged by an expected outcome (`--outcomes`).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub outcomes: Vec<outcome::OutcomeVerdict>,
    /// What the FEC below the PCS saw (a stream checked with `--fec`), each uncorrectable
    /// FEC block or codeword with the expected frames it hit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fec: Option<FecSummary>,
    /// The FEC counters the stimulus planned (the `fec` object of `baser gen`'s
    /// expected.json), which the FEC's checks then judge by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fec_expected: Option<ExpectedFec>,
}

impl FrameCheckReport {
    /// True when the check failed.
    pub fn failed(&self) -> bool {
        self.verdict == "fail"
    }

    /// Adds what the FEC below the PCS saw: each uncorrectable FEC block or codeword names
    /// the expected frames it hit, and the FEC's checks join `cases` (lock, its loss, hi_ser,
    /// and the uncorrectable ones: none, or those `expected` planned, with the corrections it
    /// planned); the verdict follows.
    pub fn add_fec(
        &mut self,
        cases: &mut Vec<Case>,
        mut fec: FecSummary,
        expected: Option<ExpectedFec>,
    ) {
        for u in &mut fec.uncorrectable {
            u.expected_frames = Some(expected_frames_hit(u, &self.frames));
        }
        cases.extend(crate::fec::fec_cases(&fec, expected.as_ref()));
        if cases.iter().any(Case::failed) {
            self.verdict = "fail";
        }
        self.fec = Some(fec);
        self.fec_expected = expected;
    }
}

/// The expected frames an uncorrectable unit hit: those paired with a received frame it hit,
/// and the missing ones whose `/S/` lay between the received frames around it (a frame whose
/// `/S/` was in it is not received at all).
fn expected_frames_hit(u: &Uncorrectable, frames: &[judge::FrameResult]) -> Vec<u64> {
    let end = u.first_block + u64::from(u.blocks);
    let mut hit = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let named = match (f.status, f.received_index) {
            (Status::Missing, _) => {
                // The received frames before and after it in the expected order.
                let before = frames
                    .get(..i)
                    .unwrap_or_default()
                    .iter()
                    .rev()
                    .find_map(|g| g.start_block);
                let after = frames
                    .get(i + 1..)
                    .unwrap_or_default()
                    .iter()
                    .find_map(|g| g.start_block);
                before.is_none_or(|b| b < end) && after.is_none_or(|a| a >= u.first_block)
            }
            (_, Some(r)) => u.frames.contains(&r),
            (_, None) => false,
        };
        if named {
            hit.push(f.expected_index);
        }
    }
    hit
}

/// Counts of a frame check.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FrameCheckSummary {
    /// Expected frames.
    pub expected: usize,
    /// Frames the MAC received.
    pub received: u64,
    /// Expected frames received intact and in order.
    pub matched: usize,
    /// Received intact after a later one.
    pub reordered: usize,
    /// Received with other content.
    pub corrupted: usize,
    /// Not received.
    pub missing: usize,
    /// Received frames that are none of the expected ones, and extra copies.
    pub extra: usize,
    /// Expected frames received with a MAC class other than `ok`.
    pub bad_class: usize,
}

/// What a frame check is made of.
pub struct FrameCheckInput<'a> {
    /// Where the expected frames came from (a file name, a test name).
    pub expected_name: String,
    /// Where the DUT's stream came from.
    pub dut_name: String,
    /// The profile.
    pub profile: Profile,
    /// How many frames were expected.
    pub expected: usize,
    /// The frames received, by class.
    pub counts: &'a FrameCounts,
    /// What the PCS saw.
    pub pcs: PcsSummary,
    /// The judge's verdicts ([`judge::compare`]).
    pub cmp: Comparison,
    /// The bit-exact block comparison, when asked for.
    pub blocks: Option<BlockComparison>,
    /// Expected outcomes applied ([`outcome::apply`]).
    pub outcomes: Vec<outcome::OutcomeVerdict>,
}

/// The report and the checks of a frame check; the verdict is `fail` when any check failed.
pub fn frame_check(i: FrameCheckInput<'_>) -> (FrameCheckReport, Vec<Case>) {
    let cases = frame_cases(&i.cmp, &i.outcomes, &i.pcs, i.blocks.as_ref(), &i.dut_name);
    let failed = cases.iter().any(Case::failed);
    let count = |st: Status| i.cmp.frames.iter().filter(|f| f.status == st).count();
    let summary = FrameCheckSummary {
        expected: i.expected,
        received: i.counts.total,
        matched: count(Status::Matched),
        reordered: count(Status::Reordered),
        corrupted: count(Status::Corrupted),
        missing: count(Status::Missing),
        extra: i.cmp.extra.len(),
        bad_class: i
            .cmp
            .frames
            .iter()
            .filter(|f| f.class.is_some_and(|c| c != "ok"))
            .count(),
    };
    let report = FrameCheckReport {
        check: "frames",
        verdict: if failed { "fail" } else { "pass" },
        expected: i.expected_name,
        dut: i.dut_name,
        profile: i.profile.name(),
        summary,
        frames: i.cmp.frames,
        extra_frames: i.cmp.extra,
        pcs: i.pcs,
        blocks: i.blocks,
        outcomes: i.outcomes,
        fec: None,
        fec_expected: None,
    };
    (report, cases)
}

/// One JUnit case per expected frame, one per extra frame, and one per PCS check.
pub fn frame_cases(
    cmp: &Comparison,
    outcomes: &[outcome::OutcomeVerdict],
    pcs: &PcsSummary,
    blocks: Option<&BlockComparison>,
    dut: &str,
) -> Vec<Case> {
    let mut cases: Vec<Case> = cmp.frames.iter().map(|f| frame_case(f, outcomes)).collect();
    cases.push(extra_case(cmp));
    pcs_cases(&mut cases, pcs, dut);
    if let Some(b) = blocks {
        block_cases(&mut cases, b);
    }
    cases
}

/// A PCS check's case.
fn pcs_case(name: &str, ok: bool, msg: String, detail: Option<String>) -> Case {
    if ok {
        Case::pass("pcs", name)
    } else {
        Case::fail("pcs", name, msg, detail)
    }
}

/// The case of one expected frame: by its expected outcome when it has one.
fn frame_case(f: &judge::FrameResult, outcomes: &[outcome::OutcomeVerdict]) -> Case {
    let name = format!("frame {} ({} octets)", f.expected_index, f.length);
    // A frame with an expected outcome is judged by it.
    if let Some(v) = outcomes
        .iter()
        .find(|v| v.expected_index == f.expected_index)
    {
        return if v.met {
            Case::pass("frames", name)
        } else {
            Case::fail(
                "frames",
                name,
                format!("expected {}, but {}", v.expected, v.got),
                None,
            )
        };
    }
    let at = |f: &judge::FrameResult| match (f.start_block, f.start_lane) {
        (Some(b), Some(l)) => format!(
            " (DUT frame {} at block {b} lane {l})",
            f.received_index.unwrap_or(0)
        ),
        _ => String::new(),
    };
    let case = match (&f.status, f.class) {
        (Status::Matched, Some("ok")) => Case::pass("frames", name),
        (Status::Matched, Some(c)) => Case::fail(
            "frames",
            name,
            format!("received with MAC class {c}{}", at(f)),
            None,
        ),
        (Status::Reordered, c) => Case::fail(
            "frames",
            name,
            format!("received out of order{}, class {}", at(f), c.unwrap_or("?")),
            None,
        ),
        (Status::Missing, _) => Case::fail(
            "frames",
            name,
            "missing: no received frame matches it".to_string(),
            None,
        ),
        (Status::Corrupted, c) => {
            let detail = f.first_difference.as_ref().map(|d| {
                format!(
                    "first difference at octet {}: expected {}, got {}{}",
                    d.offset,
                    d.expected.map_or("(end)".into(), |x| format!("0x{x:02x}")),
                    d.actual.map_or("(end)".into(), |x| format!("0x{x:02x}")),
                    match (d.block, d.lane) {
                        (Some(b), Some(l)) => format!("; DUT block {b} lane {l}"),
                        _ => String::new(),
                    }
                )
            });
            Case::fail(
                "frames",
                name,
                format!("corrupted{}, class {}", at(f), c.unwrap_or("?")),
                detail,
            )
        }
        (Status::Matched, None) => Case::pass("frames", name),
    };
    case
}

/// The case of the frames no expected frame accounts for.
fn extra_case(cmp: &Comparison) -> Case {
    if cmp.extra.is_empty() {
        return Case::pass("frames", "no unexpected frames");
    }
    let list: Vec<String> = cmp
        .extra
        .iter()
        .map(|x| {
            format!(
                "DUT frame {} at block {} lane {}: {} octets, class {}{}",
                x.received_index,
                x.start_block,
                x.start_lane,
                x.length,
                x.class,
                x.duplicate_of.map_or(String::new(), |d| format!(
                    ", duplicate of expected frame {d}"
                ))
            )
        })
        .collect();
    Case::fail(
        "frames",
        "no unexpected frames",
        format!("{} unexpected frames", cmp.extra.len()),
        Some(list.join("\n")),
    )
}

/// The PCS checks: lock, hi_ber, headers, errored blocks (not for an XGMII stream), link fault.
fn pcs_cases(cases: &mut Vec<Case>, pcs: &PcsSummary, dut: &str) {
    if pcs.input != StreamKind::Xgmii {
        cases.push(pcs_case(
            "block lock acquired",
            pcs.lock_acquired.is_some(),
            format!("{dut}: block lock never acquired"),
            None,
        ));
        cases.push(pcs_case(
            "no lock loss",
            pcs.lock_losses.is_empty(),
            format!("lock lost at blocks {:?}", pcs.lock_losses),
            None,
        ));
        cases.push(pcs_case(
            "no hi_ber",
            pcs.hi_ber_episodes.is_empty(),
            format!("hi_ber rose at blocks {:?}", pcs.hi_ber_episodes),
            None,
        ));
        cases.push(pcs_case(
            "no invalid sync headers",
            pcs.invalid_headers == 0,
            format!("{} invalid sync headers while locked", pcs.invalid_headers),
            None,
        ));
        let e_detail = (!pcs.e_transitions.is_empty()).then(|| {
            pcs.e_transitions
                .iter()
                .map(|e| format!("block {}: {}", e.block, e.what))
                .collect::<Vec<_>>()
                .join("\n")
        });
        let cut = pcs.cut_at_link_up.len();
        cases.push(pcs_case(
            "no errored blocks (RX_E)",
            pcs.errored_faults() == 0,
            if cut == 0 {
                format!("{} blocks entered RX_E", pcs.errored_blocks)
            } else {
                format!(
                    "{} blocks entered RX_E, {cut} of them at the link coming up inside a frame (cut by lock acquisition, not a fault)",
                    pcs.errored_blocks
                )
            },
            e_detail,
        ));
    }
    cases.push(pcs_case(
        "no link fault",
        pcs.link_fault.is_ok(),
        format!("link fault status at the end: {}", pcs.link_fault),
        None,
    ));
}

/// The checks of `--blocks`: bit exact, and the gaps.
fn block_cases(cases: &mut Vec<Case>, b: &BlockComparison) {
    let detail = b
        .first
        .as_ref()
        .map(|(i, m, d)| format!("DUT block {i}\nmodel  {m}\nDUT    {d}"));
    cases.push(pcs_case(
        "blocks bit exact",
        b.divergent == 0,
        format!(
            "{} of {} blocks differ from the model's encoding",
            b.divergent, b.compared
        ),
        detail,
    ));
    cases.push(pcs_case(
        "IFG and deficit idle count (46.3.1.4)",
        b.gaps.violations == 0,
        format!(
            "{} of {} gaps shorter than IFG {} with the deficit idle count allows",
            b.gaps.violations, b.gaps.gaps, b.gaps.ifg
        ),
        b.gaps.first.map(|(f, g, d)| {
            let least = (u64::from(b.gaps.ifg) + u64::from(d)).saturating_sub(3);
            format!(
                "the gap before DUT frame {f} was {g} octets where the standard allows {least} or more (IFG {}, the deficit idle count at {d} before it; a longer gap is idle time, the transmitter's choice)",
                b.gaps.ifg
            )
        }),
    ));
}
