//! Verdict of a transmit case whose DUT receives faults (`tx-link-fault`): the RS's reaction to
//! a received Local or Remote Fault (§46.3.4, Fig. 46-11), judged on the DUT's line by window,
//! then the frames as every transmit case judges them ([`super::tx`]).
//!
//! ```text
//! receive line (as sent, one block a clock) -> descrambled, decoded -> the model's link fault
//!   state machine (LinkFaultMonitor): windows [raised, cleared) of Local and Remote Fault
//! DUT's line (clock line_start + k) -> descrambled, decoded: one XGMII transfer a clock
//!   in [raised + FAULT_LATENCY_CLOCKS, cleared):
//!     Local Fault:  every transfer carries Remote Fault, no /S/ (46.3.4.2)
//!     Remote Fault: every transfer is Idle, no /S/
//! then judge::tx: every frame received ok, bit exact, in order, the gaps
//! ```

use super::transmit::{tx, TxShape};
use mac_core::fault::{FaultKind, LinkFault, LinkFaultMonitor};
use pcs_core::{decode_block, Block, ControlChar, Descrambler, XgmiiWord};

/// Clocks the DUT may take, from the clock the model's RS raises a fault, to react to it: its
/// receive and transmit pipelines and a frame already on the line (the standard sets no
/// latency; the sequence is judged, not the clock).
pub const FAULT_LATENCY_CLOCKS: u64 = 64;

/// A fault the model's RS saw on the receive line: from the clock it was raised to the clock
/// it cleared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultWindow {
    /// Local or Remote Fault.
    pub kind: FaultKind,
    /// The clock after which `link_fault` was this fault.
    pub raised: u64,
    /// The clock after which it was not.
    pub cleared: u64,
}

/// The line's blocks (scrambled, as sent) descrambled and decoded, one transfer a block.
fn transfers(line: &[Block]) -> Vec<XgmiiWord> {
    let mut d = Descrambler::default();
    line.iter()
        .map(|b| {
            let payload = d.descramble(b.payload);
            decode_block(Block {
                sync: b.sync,
                payload,
            })
            .word
        })
        .collect()
}

/// The faults the model's RS sees on `receive` (the DUT's receive line as sent, one block a
/// clock from clock 0; idles after it, so a fault at its end clears).
pub fn fault_windows(receive: &[Block]) -> Vec<FaultWindow> {
    let mut words = transfers(receive);
    words.extend(std::iter::repeat_n(XgmiiWord::IDLE, 128));
    let mut m = LinkFaultMonitor::new();
    let mut out: Vec<FaultWindow> = Vec::new();
    let mut open: Option<(FaultKind, u64)> = None;
    for (clock, &w) in words.iter().enumerate() {
        let now = m.push(w);
        let clock = clock as u64 + 1;
        let kind = match now {
            LinkFault::Fault(k) => Some(k),
            LinkFault::Ok => None,
        };
        if open.map(|(k, _)| k) != kind {
            if let Some((k, raised)) = open.take() {
                out.push(FaultWindow {
                    kind: k,
                    raised,
                    cleared: clock,
                });
            }
            open = kind.map(|k| (k, clock));
        }
    }
    out
}

fn is_start(w: XgmiiWord) -> bool {
    (0..8).any(|i| w.ctrl & (1 << i) != 0 && w.octet(i) == ControlChar::START.0)
}

/// A transfer in words: Idle, Remote Fault, Local Fault, a frame's /S/, data, ...
fn describe(w: XgmiiWord) -> String {
    if w == XgmiiWord::IDLE {
        return "Idle".into();
    }
    if is_start(w) {
        return "a frame's /S/".into();
    }
    let os = [0, 1].map(|c| FaultKind::in_column(w, c));
    match os {
        [Some(a), Some(b)] if a == b => return format!("{a:?} in both columns"),
        [Some(a), _] | [_, Some(a)] => return format!("{a:?} in one column"),
        _ => {}
    }
    if w.ctrl == 0 {
        "data".into()
    } else {
        format!("control {:#018x} (mask {:#04x})", w.data, w.ctrl)
    }
}

fn kind_name(k: FaultKind) -> &'static str {
    match k {
        FaultKind::LocalFault => "Local Fault",
        FaultKind::RemoteFault => "Remote Fault",
        FaultKind::LinkInterruption => "Link Interruption",
    }
}

/// The divergences of one window: frames started in it, and the first transfer that is not
/// what the RS must send.
fn judge_window(w: &FaultWindow, words: &[XgmiiWord], line_start: u64) -> Vec<String> {
    let (must, ok): (&str, fn(XgmiiWord) -> bool) = match w.kind {
        FaultKind::LocalFault => ("it must send Remote Fault", |x| {
            FaultKind::in_column(x, 0) == Some(FaultKind::RemoteFault)
                || FaultKind::in_column(x, 1) == Some(FaultKind::RemoteFault)
        }),
        _ => ("it must send Idle", |x| x == XgmiiWord::IDLE),
    };
    let from = w.raised + FAULT_LATENCY_CLOCKS;
    let saw = format!(
        "while its receiver saw {} (clocks {}..{} by the model's RS, Fig. 46-11)",
        kind_name(w.kind),
        w.raised,
        w.cleared
    );
    let mut out = Vec::new();
    let mut starts = 0usize;
    let mut wrong: Option<(u64, XgmiiWord)> = None;
    let mut wrong_count = 0u64;
    for (k, &x) in words.iter().enumerate() {
        let clock = line_start + k as u64;
        let inside = clock >= from && clock < w.cleared;
        if is_start(x) {
            if inside {
                out.push(format!(
                    "the DUT sent frame {starts} (its /S/ at clock {clock}) {saw}: 46.3.4 holds frames off, {must}"
                ));
            }
            starts += 1;
        } else if inside && !ok(x) {
            wrong_count += 1;
            wrong.get_or_insert((clock, x));
        }
    }
    if let Some((clock, x)) = wrong {
        out.push(format!(
            "the DUT sent {} at clock {clock} (and {} more clocks not as 46.3.4 demands) {saw}: {must}",
            describe(x),
            wrong_count - 1
        ));
    }
    out
}

/// The verdict of a transmit run whose DUT received `receive` (its receive line as sent, one
/// block a clock from clock 0): `line` the DUT's blocks as sent, `line[k]` at clock
/// `line_start + k`. In each fault window the model's RS sees, from [`FAULT_LATENCY_CLOCKS`]
/// after it is raised until it clears: no frame starts; while Local Fault, every transfer
/// carries Remote Fault; while Remote Fault, every transfer is Idle. Then [`tx`]: every frame
/// received ok and bit exact. Every divergence, the first first (none: pass).
///
/// # Errors
/// As [`tx`].
pub fn tx_link_fault(
    frames: &[Vec<u8>],
    receive: &[Block],
    line: &[Block],
    line_start: u64,
    shape: &TxShape,
) -> Result<Vec<String>, String> {
    let windows = fault_windows(receive);
    let mut out = Vec::new();
    if windows.is_empty() {
        out.push(
            "the case's receive line raises no fault in the model's RS (a catalogue bug)".into(),
        );
    }
    let words = transfers(line);
    let end = line_start + words.len() as u64;
    for w in &windows {
        if end < w.cleared {
            out.push(format!(
                "the DUT's line ends at clock {end}, before its receiver's {} cleared (clock {}): not judged to the end",
                kind_name(w.kind),
                w.cleared
            ));
        }
        out.extend(judge_window(w, &words, line_start));
    }
    out.extend(tx(frames, &[], line, shape)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{find, stimulus, tx_receive, Params, Stimulus};
    use crate::tx::{OrderedSet, TxChain, TxOptions, VecSink};

    const RF: OrderedSet = OrderedSet {
        signal: false,
        value: 0x02,
    };

    /// How a model DUT reacts to its receiver's faults.
    #[derive(Clone, Copy, PartialEq)]
    enum Reacts {
        /// As 46.3.4 says, `delay` clocks after the model's RS.
        AsTheStandard { delay: u64 },
        /// Never: frames go on whatever it receives.
        Never,
        /// Holds frames off but sends Idle while it receives Local Fault.
        IdleOnLocalFault,
    }

    fn case() -> (Vec<Vec<u8>>, Vec<Block>) {
        let c = find("tx-link-fault").unwrap();
        let Stimulus::Tx(frames, aborts) = stimulus(c, &Params::default()).unwrap() else {
            unreachable!()
        };
        assert!(aborts.is_empty());
        (frames, tx_receive(c).unwrap().unwrap())
    }

    /// A model DUT's line: the frames queued from clock 200, each held off while a fault
    /// window (shifted by the DUT's delay) is open, `skip` never sent.
    fn dut_line(frames: &[Vec<u8>], receive: &[Block], how: Reacts, skip: &[usize]) -> Vec<Block> {
        let windows = fault_windows(receive);
        let mut c = TxChain::new(&TxOptions::default(), VecSink::default());
        c.idle(200u64.saturating_sub(c.blocks()));
        let delay = match how {
            Reacts::AsTheStandard { delay } => delay,
            _ => 8,
        };
        for (i, f) in frames.iter().enumerate() {
            let open = |now: u64| {
                let held = |w: &&FaultWindow| now >= w.raised + delay && now < w.cleared + delay;
                windows.iter().find(held).filter(|_| how != Reacts::Never)
            };
            while let Some(w) = open(c.blocks()) {
                let now = c.blocks();
                let local = w.kind == FaultKind::LocalFault;
                c.set_idle_fill((local && how != Reacts::IdleOnLocalFault).then_some(RF));
                c.idle(w.cleared + delay - now);
                c.set_idle_fill(None);
            }
            if !skip.contains(&i) {
                c.frame(f, None).unwrap();
            }
        }
        let end = receive.len() as u64 + 400;
        c.idle(end.saturating_sub(c.blocks()));
        c.flush();
        std::mem::take(&mut c.sink_mut().lines)
    }

    #[test]
    fn the_receive_line_raises_local_then_remote_fault_for_the_model() {
        let (frames, receive) = case();
        let w = fault_windows(&receive);
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(w[0].kind, FaultKind::LocalFault);
        assert_eq!(w[1].kind, FaultKind::RemoteFault);
        // raised at the 4th sequence (2 blocks), cleared 128 columns (64 blocks) after the last
        assert_eq!((w[0].raised, w[0].cleared), (502, 500 + 150 + 64));
        assert!(w[1].raised > w[0].cleared + 200);
        // the frames outlast the faults: a DUT held off by both still has some to send after
        let model = dut_line(&frames, &receive, Reacts::AsTheStandard { delay: 0 }, &[]);
        let last_start = transfers(&model)
            .iter()
            .rposition(|&x| is_start(x))
            .unwrap();
        assert!(last_start as u64 > w[1].cleared + 100, "{last_start}");
    }

    #[test]
    fn the_models_reaction_passes_at_any_delay_within_the_tolerance() {
        let (frames, receive) = case();
        for delay in [0, 5, 20] {
            let line = dut_line(&frames, &receive, Reacts::AsTheStandard { delay }, &[]);
            assert_eq!(
                tx_link_fault(&frames, &receive, &line, 0, &TxShape::default()).unwrap(),
                Vec::<String>::new(),
                "delay {delay}"
            );
        }
    }

    #[test]
    fn a_dut_that_sends_frames_during_local_fault_is_named() {
        let (frames, receive) = case();
        let line = dut_line(&frames, &receive, Reacts::Never, &[]);
        let v = tx_link_fault(&frames, &receive, &line, 0, &TxShape::default()).unwrap();
        assert!(
            v[0].starts_with("the DUT sent frame ")
                && v[0].contains("while its receiver saw Local Fault (clocks 502..714")
                && v[0].ends_with("46.3.4 holds frames off, it must send Remote Fault"),
            "{v:?}"
        );
        assert!(
            v.iter()
                .any(|d| d.contains("while its receiver saw Remote Fault")
                    && d.ends_with("it must send Idle")),
            "{v:?}"
        );
    }

    #[test]
    fn a_dut_that_never_sends_remote_fault_is_named() {
        let (frames, receive) = case();
        let line = dut_line(&frames, &receive, Reacts::IdleOnLocalFault, &[]);
        let v = tx_link_fault(&frames, &receive, &line, 0, &TxShape::default()).unwrap();
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].starts_with("the DUT sent Idle at clock 566 (and ")
                && v[0].ends_with("while its receiver saw Local Fault (clocks 502..714 by the model's RS, Fig. 46-11): it must send Remote Fault"),
            "{v:?}"
        );
    }

    #[test]
    fn a_dropped_frame_and_a_short_line_are_named() {
        let (frames, receive) = case();
        let line = dut_line(&frames, &receive, Reacts::AsTheStandard { delay: 3 }, &[30]);
        let v = tx_link_fault(&frames, &receive, &line, 0, &TxShape::default()).unwrap();
        assert!(
            v.iter()
                .any(|d| d.starts_with("frame 30 (") && d.contains("missing")),
            "{v:?}"
        );
        let short = &line[..900];
        let v = tx_link_fault(&frames, &receive, short, 0, &TxShape::default()).unwrap();
        assert!(
            v[0].starts_with(
                "the DUT's line ends at clock 900, before its receiver's Remote Fault cleared"
            ),
            "{v:?}"
        );
        // the line seen from a later clock: its frames fall in the Local Fault window
        let full = dut_line(&frames, &receive, Reacts::AsTheStandard { delay: 0 }, &[]);
        let v = tx_link_fault(&frames, &receive, &full, 200, &TxShape::default()).unwrap();
        assert!(
            v.iter().any(|d| d.starts_with("the DUT sent frame")),
            "{v:?}"
        );
    }
}
