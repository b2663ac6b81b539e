//! Verdicts of a receive case: what a DUT said (its frames with their bad flag, its error
//! pulses, status levels and counters) against the case's [`Expected`] outcome, worded as
//! divergences, the cause first (status), then frames, pulses and counters. A transmit
//! case's verdict is [`tx`] (`judge/transmit.rs`): the DUT's line against the frames fed.

mod link_fault;
mod transmit;
pub use link_fault::{fault_windows, tx_link_fault, FaultWindow, FAULT_LATENCY_CLOCKS};
pub use transmit::{tx, TxShape};

use super::{Expected, ModelFrame};
use std::collections::BTreeMap;

/// A frame the DUT delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DutFrame {
    /// Its octets (with or without the FCS, as [`DutShape::fcs_stripped`] says).
    pub octets: Vec<u8>,
    /// Its bad-frame flag (`tuser`) on the last beat.
    pub bad: bool,
    /// The clock it ended at.
    pub clock: u64,
}

/// What the DUT has and how it delivers frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DutShape {
    /// It delivers frames (a PHY-only top does not: no frames are judged).
    pub frames: bool,
    /// Its frames come without their FCS.
    pub fcs_stripped: bool,
    /// The pulse roles it has: `bad_frame`, `bad_fcs` (one clock high per such frame).
    pub pulses: Vec<String>,
}

/// What the DUT said during a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DutSaid {
    /// Its frames, in order.
    pub frames: Vec<DutFrame>,
    /// Pulse role -> clocks it was high.
    pub pulses: BTreeMap<String, u64>,
    /// Status role -> `(clock, level)` at each change, first the level at the start.
    pub status: BTreeMap<String, Vec<(u64, bool)>>,
    /// Counter role -> (value before, value after).
    pub counters: BTreeMap<String, (u64, u64)>,
}

impl DutSaid {
    /// Records one clock's level of a status role (a change only).
    pub fn level(&mut self, role: &str, clock: u64, value: bool) {
        let trace = self.status.entry(role.to_string()).or_default();
        if trace.last().is_none_or(|&(_, v)| v != value) {
            trace.push((clock, value));
        }
    }
}

/// Every divergence of the run, the first one first.
pub fn rx(exp: &Expected, shape: &DutShape, dut: &DutSaid) -> Vec<String> {
    let mut out = status(exp, dut);
    if shape.frames {
        out.extend(frames(exp, shape, dut));
    }
    out.extend(pulses(exp, shape, dut));
    if exp.judge_counters {
        out.extend(counters(exp, dut));
    }
    out
}

/// The levels a trace went through from clock `since` on (its level then first).
fn values(trace: &[(u64, bool)], since: u64) -> Vec<bool> {
    let at = trace
        .iter()
        .rev()
        .find(|(c, _)| *c <= since)
        .map(|&(_, v)| v);
    at.into_iter()
        .chain(trace.iter().filter(|(c, _)| *c > since).map(|&(_, v)| v))
        .collect()
}

fn words(values: &[bool]) -> String {
    let w: Vec<&str> = values
        .iter()
        .map(|&v| if v { "high" } else { "low" })
        .collect();
    w.join(" -> ")
}

/// Each status level the DUT has goes through the model's levels; the model's go through
/// what the case demands.
fn status(exp: &Expected, dut: &DutSaid) -> Vec<String> {
    let mut out = Vec::new();
    for (role, trace) in &dut.status {
        let model = values(exp.status.get(role).map_or(&[][..], |t| t), 0);
        let said = values(trace, 0);
        if said != model {
            out.push(format!(
                "{role}: the DUT went {}; the model's receiver {}",
                words(&said),
                words(&model)
            ));
        }
    }
    for (role, want) in &exp.demands {
        let model = values(exp.status.get(role).map_or(&[][..], |t| t), exp.lead_clocks);
        if &model != want {
            out.push(format!(
                "{role}: the model itself went {}, the case demands {}",
                words(&model),
                words(want)
            ));
        }
    }
    out
}

fn first_diff(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("octet {i}: model {:#04x}, DUT {:#04x}", a[i], b[i]),
        None => format!("length: model {} octets, DUT {}", a.len(), b.len()),
    }
}

fn extra(f: &DutFrame) -> String {
    format!(
        "the DUT delivered a frame the model's receiver did not ({} octets, flag {}, clock {})",
        f.octets.len(),
        if f.bad { "high" } else { "low" },
        f.clock
    )
}

/// A model's frame as the DUT delivers it (FCS stripped or not).
fn octets<'a>(f: &'a ModelFrame, shape: &DutShape) -> &'a [u8] {
    if shape.fcs_stripped {
        f.octets
            .get(..f.octets.len().saturating_sub(4))
            .unwrap_or_default()
    } else {
        &f.octets
    }
}

/// Pairs the model's frames with the DUT's, in order: a frame the model received good must
/// come out equal with its flag low; one the model classes bad may be dropped or delivered
/// with the flag high, never with it low; nothing else may come out.
fn frames(exp: &Expected, shape: &DutShape, dut: &DutSaid) -> Vec<String> {
    let (mut out, mut j) = (Vec::new(), 0);
    let d = &dut.frames;
    for (k, f) in exp.frames.iter().enumerate() {
        let want = octets(f, shape);
        let what = format!(
            "frame {k} ({} octets with FCS, /S/ in block {} lane {})",
            f.octets.len(),
            f.start_block,
            f.start_lane
        );
        let Some(mut next) = d.get(j) else {
            if f.class == "ok" {
                out.push(format!(
                    "{what} is ok in the model's receiver; the DUT delivered nothing"
                ));
            }
            continue;
        };
        if f.class != "ok" {
            if next.bad {
                j += 1;
            } else if next.octets == want {
                j += 1;
                out.push(format!("{what} is {} in the model's receiver; the DUT delivered it with its bad-frame flag low", f.class));
            }
            continue;
        }
        let later = exp.frames.get(k + 1..).unwrap_or_default();
        if next.octets != want && later.iter().any(|g| next.octets == octets(g, shape)) {
            out.push(format!("{what} is ok in the model's receiver; the DUT delivered nothing (its next frame is a later one)"));
            continue;
        }
        if next.octets != want {
            // frames the model did not receive before it: extra
            if let Some(m) = (j + 1..d.len()).find(|&m| d[m].octets == want) {
                out.extend(d[j..m].iter().map(extra));
                j = m;
                next = &d[m];
            }
        }
        j += 1;
        if next.octets != want {
            out.push(format!(
                "{what} is ok in the model's receiver; the DUT's differs at {}",
                first_diff(want, &next.octets)
            ));
        } else if next.bad {
            out.push(format!(
                "{what} is ok in the model's receiver; the DUT raised its bad-frame flag (tuser)"
            ));
        }
    }
    out.extend(d.get(j..).unwrap_or_default().iter().map(extra));
    out
}

/// Each pulse fires once per frame of its kind in the model's receiver.
fn pulses(exp: &Expected, shape: &DutShape, dut: &DutSaid) -> Vec<String> {
    let bad = exp.frames.iter().filter(|f| f.class != "ok").count() as u64;
    let fcs = exp.frames.iter().filter(|f| f.class == "fcs_error").count() as u64;
    [("bad_frame", bad), ("bad_fcs", fcs)]
        .into_iter()
        .filter(|(role, _)| shape.pulses.iter().any(|p| p == role))
        .filter_map(|(role, want)| {
            let got = dut.pulses.get(role).copied().unwrap_or(0);
            (got != want).then(|| {
                format!("{role} pulsed {got} times; the model's receiver had {want} such frames")
            })
        })
        .collect()
}

/// Counters move as the model's (32-bit counters wrap).
fn counters(exp: &Expected, dut: &DutSaid) -> Vec<String> {
    let mut out = Vec::new();
    for (role, &(before, after)) in &dut.counters {
        let moved = after.wrapping_sub(before) & 0xffff_ffff;
        let Some(&want) = exp.counters.get(role) else {
            out.push(format!("counter {role}: no such counter in the model (expected one of errored_blocks, frames_good, frames_bad, fcs_errors)"));
            continue;
        };
        if moved != want {
            let why = match (&exp.last_error, role.as_str()) {
                (Some(e), "errored_blocks") => format!(" (its last: {e})"),
                _ => String::new(),
            };
            out.push(format!(
                "counter {role} moved by {moved}; the model's by {want}{why}"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exp(frames: Vec<ModelFrame>) -> Expected {
        Expected {
            case: "t".into(),
            clause: String::new(),
            title: String::new(),
            clocks: 0,
            lead_clocks: 0,
            frames,
            status: BTreeMap::new(),
            demands: BTreeMap::new(),
            counters: BTreeMap::new(),
            judge_counters: false,
            last_error: None,
        }
    }

    fn mf(i: u8, class: &str) -> ModelFrame {
        let mut octets = vec![i; 60];
        octets.extend([0xaa, 0xbb, 0xcc, 0xdd]);
        ModelFrame {
            octets,
            class: class.into(),
            start_block: 10 * u64::from(i),
            start_lane: 0,
        }
    }

    fn df(i: u8, bad: bool) -> DutFrame {
        DutFrame {
            octets: vec![i; 60],
            bad,
            clock: 100 * u64::from(i),
        }
    }

    fn mac() -> DutShape {
        DutShape {
            frames: true,
            fcs_stripped: true,
            pulses: vec![],
        }
    }

    fn said(frames: Vec<DutFrame>) -> DutSaid {
        DutSaid {
            frames,
            ..DutSaid::default()
        }
    }

    #[test]
    fn all_received_is_no_divergence() {
        let e = exp(vec![mf(1, "ok"), mf(2, "ok")]);
        assert!(rx(&e, &mac(), &said(vec![df(1, false), df(2, false)])).is_empty());
    }

    #[test]
    fn a_skipped_frame_is_missing() {
        let e = exp(vec![mf(1, "ok"), mf(2, "ok"), mf(3, "ok")]);
        let out = rx(&e, &mac(), &said(vec![df(1, false), df(3, false)]));
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(out[0].contains("frame 1") && out[0].contains("delivered nothing"));
    }

    #[test]
    fn a_bad_frame_delivered_good_fails_and_flagged_or_dropped_passes() {
        let e = exp(vec![mf(1, "too_long")]);
        let out = rx(&e, &mac(), &said(vec![df(1, false)]));
        assert!(out.len() == 1 && out[0].contains("too_long") && out[0].contains("flag low"));
        assert!(rx(&e, &mac(), &said(vec![df(1, true)])).is_empty());
        assert!(rx(&e, &mac(), &said(vec![])).is_empty());
    }

    #[test]
    fn a_good_frame_with_its_flag_high_fails() {
        let e = exp(vec![mf(1, "ok")]);
        let out = rx(&e, &mac(), &said(vec![df(1, true)]));
        assert!(
            out.len() == 1 && out[0].contains("bad-frame flag"),
            "{out:?}"
        );
    }

    #[test]
    fn status_levels_follow_the_model_and_the_demands() {
        let mut e = exp(vec![]);
        e.status
            .insert("hi_ber".into(), vec![(1, false), (50, true), (90, false)]);
        e.demands.insert("hi_ber".into(), vec![false]);
        let mut d = DutSaid::default();
        d.level("hi_ber", 0, false);
        let out = rx(&e, &mac(), &d);
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(
            out[0].starts_with("hi_ber: the DUT went low; the model's receiver low -> high -> low")
        );
        assert!(out[1].contains("the case demands low"));
    }
}
