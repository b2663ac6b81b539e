//! Expected outcomes: what a test that sends faulty frames on purpose expects a conforming
//! DUT to do with each (deliver it with a bad FCS, abort it, drop it, ...), and the verdict on
//! what it did, applied to the frame judge's comparison.
//!
//! The notation is a sidecar text file (`check --outcomes FILE`), one line per frame that is
//! not expected to arrive intact:
//!
//! ```text
//! # index outcome        (index: 0-based record of the expected capture)
//! 3 fcs_error            the DUT delivers it with a bad FCS (sent with tuser / a bad FCS)
//! 7 aborted              the DUT ends it with /E/ (class error_character)
//! 9 dropped              the DUT must not deliver it at all
//! 12 runt
//! ```
//!
//! Outcomes: `ok` (the default), `dropped`, and the receive classes `fcs_error`, `runt`,
//! `fragment`, `too_long`, `error_character` (alias `aborted`), `truncated`, `bad_preamble`.

use crate::judge::{Comparison, Status};
use serde::Serialize;
use std::collections::BTreeMap;

/// What must happen to one expected frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Delivered intact (the default).
    Ok,
    /// Not delivered in any form.
    Dropped,
    /// Delivered with this receive class (its content may differ: an aborted frame is cut).
    Class(&'static str),
}

/// The receive classes an outcome may name.
const CLASSES: [&str; 7] = [
    "fcs_error",
    "runt",
    "fragment",
    "too_long",
    "error_character",
    "truncated",
    "bad_preamble",
];

impl Outcome {
    /// Parses an outcome's name.
    ///
    /// # Errors
    /// A name that is no outcome (the message lists them).
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "ok" => Ok(Self::Ok),
            "dropped" => Ok(Self::Dropped),
            "aborted" => Ok(Self::Class("error_character")),
            _ => CLASSES
                .iter()
                .find(|c| **c == s)
                .map(|c| Self::Class(c))
                .ok_or_else(|| {
                    format!(
                        "unknown outcome `{s}`: expected ok, dropped, aborted or a receive class ({})",
                        CLASSES.join(", ")
                    )
                }),
        }
    }

    /// The outcome's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Dropped => "dropped",
            Self::Class(c) => c,
        }
    }
}

/// Parses an outcomes file: `(line number, message)` on the first bad line.
///
/// # Errors
/// A line that is not `INDEX OUTCOME`, or an index given twice.
pub fn parse_outcomes(text: &str) -> Result<BTreeMap<u64, Outcome>, (u64, String)> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i as u64 + 1;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut f = line.split_whitespace();
        let (Some(idx), Some(what)) = (f.next(), f.next()) else {
            return Err((n, format!("expected `INDEX OUTCOME`, found `{line}`")));
        };
        let idx: u64 = idx.parse().map_err(|_| {
            (
                n,
                format!("`{idx}` is not a frame index (0-based record number)"),
            )
        })?;
        let o = Outcome::parse(what).map_err(|m| (n, m))?;
        if out.insert(idx, o).is_some() {
            return Err((n, format!("frame {idx} has two outcomes")));
        }
    }
    Ok(out)
}

/// The verdict on one frame with an expected outcome other than `ok`.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeVerdict {
    /// The expected frame (record index).
    pub expected_index: u64,
    /// What had to happen.
    pub expected: &'static str,
    /// It happened.
    pub met: bool,
    /// What the DUT did, in words.
    pub got: String,
    /// The received frame taken as this one, when it was an unmatched frame of the class
    /// expected (an aborted frame's content differs from what was sent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received_index: Option<u64>,
}

/// Applies the outcomes to `cmp`: each frame with an outcome other than `ok` is judged by it,
/// and an unmatched received frame of the expected class between the frame's neighbours is
/// taken as it (and no longer counts as extra). Returns the verdicts, in expected order.
pub fn apply(cmp: &mut Comparison, outcomes: &BTreeMap<u64, Outcome>) -> Vec<OutcomeVerdict> {
    let mut verdicts = Vec::new();
    for i in 0..cmp.frames.len() {
        let Some(f) = cmp.frames.get(i) else {
            continue;
        };
        let want = outcomes
            .get(&f.expected_index)
            .copied()
            .unwrap_or(Outcome::Ok);
        if want == Outcome::Ok {
            continue;
        }
        let received = f.status != Status::Missing;
        let v = match want {
            Outcome::Dropped => OutcomeVerdict {
                expected_index: f.expected_index,
                expected: want.name(),
                met: !received,
                got: if received {
                    format!("delivered (class {})", f.class.unwrap_or("?"))
                } else {
                    "not delivered".into()
                },
                received_index: None,
            },
            Outcome::Class(c) if received => OutcomeVerdict {
                expected_index: f.expected_index,
                expected: want.name(),
                met: f.class == Some(c),
                got: format!("delivered with class {}", f.class.unwrap_or("?")),
                received_index: f.received_index,
            },
            Outcome::Class(c) => {
                // The frame's place: after the previous expected frame received, before the
                // next one.
                let prev = cmp
                    .frames
                    .get(..i)
                    .and_then(|fs| fs.iter().rev().find_map(|f| f.start_block));
                let next = cmp
                    .frames
                    .get(i + 1..)
                    .and_then(|fs| fs.iter().find_map(|f| f.start_block));
                let place = |b: u64| prev.is_none_or(|p| b > p) && next.is_none_or(|n| b < n);
                let pos = cmp
                    .extra
                    .iter()
                    .position(|x| x.class == c && x.duplicate_of.is_none() && place(x.start_block));
                match pos {
                    Some(k) => {
                        let x = cmp.extra.remove(k);
                        OutcomeVerdict {
                            expected_index: f.expected_index,
                            expected: want.name(),
                            met: true,
                            got: format!(
                                "delivered with class {c} (DUT frame {} at block {})",
                                x.received_index, x.start_block
                            ),
                            received_index: Some(x.received_index),
                        }
                    }
                    None => OutcomeVerdict {
                        expected_index: f.expected_index,
                        expected: want.name(),
                        met: false,
                        got: "not delivered".into(),
                        received_index: None,
                    },
                }
            }
            Outcome::Ok => continue,
        };
        verdicts.push(v);
    }
    verdicts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{ExtraFrame, FrameResult};

    fn fr(i: u64, status: Status, class: Option<&'static str>, block: Option<u64>) -> FrameResult {
        FrameResult {
            expected_index: i,
            length: 60,
            status,
            received_index: block.map(|b| b / 10),
            class,
            start_block: block,
            start_lane: block.map(|_| 0),
            first_difference: None,
        }
    }

    #[test]
    fn outcomes_parse_with_line_numbers() {
        let o = parse_outcomes("# test\n3 fcs_error\n\n7 aborted # /E/\n9 dropped\n").unwrap();
        assert_eq!(o[&3], Outcome::Class("fcs_error"));
        assert_eq!(o[&7], Outcome::Class("error_character"));
        assert_eq!(o[&9], Outcome::Dropped);
        assert_eq!(parse_outcomes("1 ok\n2 broken\n").unwrap_err().0, 2);
        assert_eq!(parse_outcomes("x fcs_error").unwrap_err().0, 1);
        assert_eq!(parse_outcomes("1 ok\n1 dropped").unwrap_err().0, 2);
    }

    #[test]
    fn each_outcome_is_met_or_not() {
        let mut cmp = Comparison {
            frames: vec![
                fr(0, Status::Matched, Some("ok"), Some(10)),
                fr(1, Status::Matched, Some("fcs_error"), Some(20)),
                fr(2, Status::Missing, None, None),
                fr(3, Status::Matched, Some("ok"), Some(40)),
                fr(4, Status::Missing, None, None),
                fr(5, Status::Matched, Some("ok"), Some(60)),
                fr(6, Status::Matched, Some("ok"), Some(70)),
            ],
            extra: vec![ExtraFrame {
                received_index: 3,
                class: "error_character",
                length: 30,
                start_block: 30,
                start_lane: 0,
                duplicate_of: None,
            }],
        };
        let outcomes = parse_outcomes("1 fcs_error\n2 aborted\n4 dropped\n6 dropped\n").unwrap();
        let v = apply(&mut cmp, &outcomes);
        let met: Vec<(u64, bool)> = v.iter().map(|v| (v.expected_index, v.met)).collect();
        assert_eq!(met, [(1, true), (2, true), (4, true), (6, false)]);
        // The aborted frame took the unmatched /E/ frame in its place: no extra left.
        assert!(cmp.extra.is_empty());
        assert_eq!(v[1].received_index, Some(3));
        // An extra frame outside the frame's place is not taken.
        let mut cmp2 = Comparison {
            frames: vec![
                fr(0, Status::Matched, Some("ok"), Some(10)),
                fr(1, Status::Missing, None, None),
                fr(2, Status::Matched, Some("ok"), Some(20)),
            ],
            extra: vec![ExtraFrame {
                received_index: 9,
                class: "error_character",
                length: 30,
                start_block: 90,
                start_lane: 0,
                duplicate_of: None,
            }],
        };
        let v = apply(&mut cmp2, &parse_outcomes("1 aborted").unwrap());
        assert!(!v[0].met);
        assert_eq!(cmp2.extra.len(), 1);
    }
}
