//! Verdicts of a transmit case: the DUT's line (its 66-bit blocks as it sent them, scrambled)
//! against the frames fed to its AXI-stream input, worded as divergences, the first first.
//!
//! ```text
//! line -> the model's receiver (b66, descrambler trained on the first block): frames, gaps
//!   aborts:    no aborted frame received ok; the others received ok, in order
//!   otherwise: `check --blocks` (each frame received ok, its blocks the model's encoding
//!              with the /S/ in the DUT's lane, no gap shorter than the deficit idle count
//!              allows), then the gaps' average: deleted minus inserted idles within 0..3
//! ```

use crate::judge::{self as frames, Difference, Expected, FrameResult, Status};
use crate::live::RxView;
use crate::options::Options;
use crate::pcs_check::{compare_frame_blocks, BlockComparison};
use crate::rx::{class_name, KeepFrames, PcsSummary, ReceivedFrame};
use crate::stream::{self, Stream};
use crate::Profile;
use pcs_core::{Block, SyncHeader};

/// How the DUT transmits: the settings 46.3.1.4 leaves to the implementer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxShape {
    /// Its inter-frame gap, in octets.
    pub ifg: u16,
    /// It runs the deficit idle count (else no gap is shorter than the IFG).
    pub dic: bool,
}

impl Default for TxShape {
    fn default() -> Self {
        Self { ifg: 12, dic: true }
    }
}

/// The line through the model's receiver (`view`), frames up to `max_frame_length` octets
/// good; with `blocks`, the descrambled blocks kept too.
fn receive(
    line: &[Block],
    max_frame_length: u16,
    view: RxView,
    blocks: bool,
) -> Result<(PcsSummary, KeepFrames), String> {
    let opt = Options {
        max_frame_length: Some(max_frame_length),
        max_events: 20,
        ..Options::default()
    }
    .rx();
    let s = Stream::Blocks {
        blocks: line,
        scrambled: true,
        descrambler_state: None,
    };
    let sink = KeepFrames::new(blocks);
    let (mut pcs, _, keep) =
        stream::decode(s, &opt, view, sink).map_err(|e| format!("the DUT's line: {e}"))?;
    pcs.hints
        .extend(stream::hint(s, &opt, &pcs).map_err(|e| e.to_string())?);
    Ok((pcs, keep))
}

/// The verdict of a transmit run: `frames` (DA to the end of the payload) fed to the DUT,
/// those at `aborts` with the abort bit; `line` the DUT's blocks, one a clock, scrambled, sync
/// header as sent (data 2, control 1). Every divergence, the first first (none: pass).
///
/// Without aborts: every frame received ok and its blocks equal to the model's encoding with
/// the `/S/` in the DUT's lane (`baser check --blocks`), no gap shorter than the deficit idle
/// count allows, and while back to back the idles deleted minus inserted within 0..3
/// ([`gaps`]). With aborts: no aborted frame received ok, the others received ok in order.
/// A line on which nothing was received says why first (no lock, invalid headers, swapped
/// headers).
///
/// # Errors
/// An empty line, or a frame the model's transmitter cannot send (a catalogue bug).
pub fn tx(
    frames: &[Vec<u8>],
    aborts: &[usize],
    line: &[Block],
    shape: &TxShape,
) -> Result<Vec<String>, String> {
    let (pcs, got) = receive(line, 1518, RxView::Receiver, false)?;
    let mut out = Vec::new();
    if got.frames.is_empty() && !frames.is_empty() {
        out.push(nothing_received(&pcs, line));
    }
    if !aborts.is_empty() {
        out.extend(aborted(frames, aborts, &got.frames));
        return Ok(out);
    }
    out.extend(check_blocks(frames, line, shape)?);
    out.extend(gaps(&got.frames, shape));
    Ok(out)
}

/// Why a line gave no frame: its sync headers, data and errored blocks, and the hints.
fn nothing_received(pcs: &PcsSummary, line: &[Block]) -> String {
    let invalid = line.iter().filter(|b| !b.sync.is_valid()).count();
    let data = line.iter().filter(|b| b.sync == SyncHeader::DATA).count();
    let mut s = format!(
        "no frame received from the DUT's line ({} blocks: {invalid} invalid sync headers, {data} data blocks, {} errored blocks)",
        line.len(),
        pcs.errored_blocks
    );
    for h in &pcs.hints {
        s.push_str("; ");
        s.push_str(h);
    }
    s
}

/// A frame as a receiver delivers it: padded to 60 octets with zeros.
fn padded(f: &[u8]) -> Vec<u8> {
    let mut v = f.to_vec();
    v.resize(v.len().max(60), 0);
    v
}

/// No aborted frame received ok; the others received ok, in order.
fn aborted(frames: &[Vec<u8>], aborts: &[usize], got: &[ReceivedFrame]) -> Vec<String> {
    let ok: Vec<&[u8]> = got
        .iter()
        .filter(|r| class_name(r.class) == "ok")
        .map(ReceivedFrame::content)
        .collect();
    let keep: Vec<Vec<u8>> = frames
        .iter()
        .enumerate()
        .filter(|(i, _)| !aborts.contains(i))
        .map(|(_, f)| padded(f))
        .collect();
    let mut sorted = aborts.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out: Vec<String> = sorted
        .iter()
        .filter(|&&i| {
            frames
                .get(i)
                .is_some_and(|f| ok.contains(&padded(f).as_slice()))
        })
        .map(|i| format!("frame {i}, aborted (tuser), was received ok from the DUT's line"))
        .collect();
    if ok.len() != keep.len() || ok.iter().zip(&keep).any(|(a, b)| a != &b.as_slice()) {
        out.push(format!(
            "the frames not aborted: {} sent, {} received ok from the DUT's line, or not in order",
            keep.len(),
            ok.len()
        ));
    }
    out
}

fn octet(v: Option<u8>) -> String {
    v.map_or("(end)".into(), |x| format!("0x{x:02x}"))
}

/// A corrupted frame's first difference, or a frame's class.
fn detail(f: &FrameResult) -> String {
    match (&f.first_difference, f.class) {
        (
            Some(Difference {
                offset,
                expected,
                actual,
                block,
                lane,
            }),
            _,
        ) => {
            let at = match (block, lane) {
                (Some(b), Some(l)) => format!(", DUT block {b} lane {l}"),
                _ => String::new(),
            };
            format!(
                ": first difference at octet {offset}: expected {}, got {}{at}",
                octet(*expected),
                octet(*actual)
            )
        }
        (None, Some(class)) => format!(": class {class}"),
        (None, None) => String::new(),
    }
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Matched => "matched",
        Status::Reordered => "reordered",
        Status::Corrupted => "corrupted",
        Status::Missing => "missing",
    }
}

/// `baser check --blocks` on the line: each frame matched, the blocks bit exact, the gaps.
fn check_blocks(
    frames: &[Vec<u8>],
    line: &[Block],
    shape: &TxShape,
) -> Result<Vec<String>, String> {
    let expected: Vec<Expected> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| Expected {
            index: i as u64,
            data: f.clone(),
        })
        .collect();
    // as `check`: 1518 octets unless a longer expected frame raises it
    let longest = frames.iter().map(|f| f.len() + 4).max().unwrap_or(0);
    let limit = longest.clamp(1518, usize::from(u16::MAX)) as u16;
    let (_, keep) = receive(line, limit, RxView::Offline, true)?;
    let cmp = frames::compare(&expected, &keep.frames);
    let mut out: Vec<String> = cmp
        .frames
        .iter()
        .filter(|f| f.status != Status::Matched)
        .map(|f| {
            format!(
                "frame {} ({} octets) {} on the DUT's line{}",
                f.expected_index,
                f.length,
                status_name(f.status),
                detail(f)
            )
        })
        .collect();
    let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
    let pairs = cmp.start_pairs();
    let dut = keep.blocks.unwrap_or_default();
    let b = compare_frame_blocks(&refs, &dut, Profile::Ieee, shape.ifg, Some(&pairs))
        .map_err(|(i, e)| format!("frame {i}: the model's transmitter cannot send it: {e}"))?;
    out.extend(block_words(&b));
    Ok(out)
}

/// The block comparison's first divergence and first short gap, in words.
fn block_words(b: &BlockComparison) -> Vec<String> {
    let mut out = Vec::new();
    if let Some((i, model, dut)) = &b.first {
        out.push(format!(
            "line blocks: DUT block {i}: the model's {model}; the DUT's {dut}"
        ));
    }
    if let Some((f, g, d)) = b.gaps.first {
        let least = (u64::from(b.gaps.ifg) + u64::from(d)).saturating_sub(3);
        out.push(format!(
            "gap: the gap before DUT frame {f} was {g} octets where the standard allows {least} or more (IFG {}, the deficit idle count at {d} before it)",
            b.gaps.ifg
        ));
    }
    out
}

/// While the DUT sends back to back (gaps up to IFG + 3), the idles it deleted minus those
/// it inserted (IFG - gap, summed) stay within a range of 3 however the count started
/// (46.3.1.4: the deficit idle count is bounded 0..3), so the gaps average the IFG; without
/// the deficit idle count no gap is shorter than the IFG. `received`: the frames the model's
/// receiver took from the DUT's line.
fn gaps(received: &[ReceivedFrame], shape: &TxShape) -> Vec<String> {
    let ifg = i64::from(shape.ifg);
    let (mut deficit, mut low, mut high) = (0i64, 0i64, 0i64);
    for (i, r) in received.iter().enumerate().skip(1) {
        let Some(gap) = r.gap_octets.map(|g| g.min(i64::MAX as u64) as i64) else {
            (deficit, low, high) = (0, 0, 0); // idle between: the count may start afresh
            continue;
        };
        if gap > ifg + 3 {
            (deficit, low, high) = (0, 0, 0);
            continue;
        }
        if !shape.dic && gap < ifg {
            return vec![format!("gap before frame {i}: {gap} octets, shorter than the IFG {ifg} with the deficit idle count off")];
        }
        deficit += ifg - gap;
        (low, high) = (low.min(deficit), high.max(deficit));
        if shape.dic && high - low > 3 {
            return vec![format!(
                "gap before frame {i}: {gap} octets; the idles deleted minus inserted since the run began went from {low} to {high}, more than a deficit idle count of 0..3 allows (46.3.1.4): the gaps do not average IFG {ifg}"
            )];
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tx::{TxChain, TxOptions, VecSink};

    fn frames() -> Vec<Vec<u8>> {
        [64, 65, 66, 67, 64, 65, 66, 67, 100, 61]
            .iter()
            .enumerate()
            .map(|(i, &n)| vec![i as u8 + 1; n])
            .collect()
    }

    /// The model's line for `frames` (`dic`: with the deficit idle count), the frames at
    /// `skip` not sent.
    fn line(frames: &[Vec<u8>], dic: bool, skip: &[usize]) -> Vec<Block> {
        let opt = TxOptions {
            mac: mac_core::tx::TxConfig {
                dic: if dic {
                    mac_core::tx::DicMode::Strict
                } else {
                    mac_core::tx::DicMode::Off
                },
                ..TxOptions::default().mac
            },
            ..TxOptions::default()
        };
        let mut c = TxChain::new(&opt, VecSink::default());
        for (i, f) in frames.iter().enumerate() {
            if !skip.contains(&i) {
                c.frame(f, None).unwrap();
            }
        }
        c.idle(40);
        c.flush();
        std::mem::take(&mut c.sink_mut().lines)
    }

    #[test]
    fn the_models_line_passes() {
        let f = frames();
        assert_eq!(
            tx(&f, &[], &line(&f, true, &[]), &TxShape::default()).unwrap(),
            Vec::<String>::new()
        );
        // without the deficit idle count, for a DUT that says so
        let off = TxShape {
            ifg: 12,
            dic: false,
        };
        assert_eq!(
            tx(&f, &[], &line(&f, false, &[]), &off).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn gaps_that_do_not_average_the_ifg_fail() {
        let f = frames();
        let v = tx(&f, &[], &line(&f, false, &[]), &TxShape::default()).unwrap();
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].contains("do not average IFG 12"), "{v:?}");
    }

    #[test]
    fn a_flipped_bit_corrupts_its_frame() {
        let f = frames();
        let mut l = line(&f, true, &[]);
        let at = l
            .iter()
            .position(|b| b.sync == pcs_core::SyncHeader::DATA)
            .unwrap()
            + 2;
        l[at].payload ^= 1 << 20;
        let v = tx(&f, &[], &l, &TxShape::default()).unwrap();
        assert!(
            v[0].starts_with(
                "frame 0 (64 octets) corrupted on the DUT's line: first difference at octet"
            ),
            "{v:?}"
        );
        assert!(
            v.iter().any(|d| d.starts_with("line blocks: DUT block")),
            "{v:?}"
        );
    }

    #[test]
    fn an_aborted_frame_received_ok_fails_and_one_left_out_passes() {
        let f = frames();
        assert!(tx(&f, &[2], &line(&f, true, &[2]), &TxShape::default())
            .unwrap()
            .is_empty());
        let v = tx(&f, &[2], &line(&f, true, &[]), &TxShape::default()).unwrap();
        assert_eq!(
            v[0],
            "frame 2, aborted (tuser), was received ok from the DUT's line"
        );
        assert!(
            v[1].starts_with("the frames not aborted: 9 sent, 10 received ok"),
            "{v:?}"
        );
    }

    #[test]
    fn a_line_that_never_locks_says_so_first() {
        let f = frames();
        let l = vec![
            Block {
                sync: pcs_core::SyncHeader::from_bits(0),
                payload: 0
            };
            500
        ];
        let v = tx(&f, &[], &l, &TxShape::default()).unwrap();
        assert!(
            v[0].starts_with(
                "no frame received from the DUT's line (500 blocks: 500 invalid sync headers"
            ),
            "{v:?}"
        );
        assert!(v[1].contains("missing on the DUT's line"), "{v:?}");
        assert!(tx(&f, &[], &[], &TxShape::default()).is_err_and(|e| e.contains("no blocks")));
    }
}
