//! The conformance catalogue: named cases, each with the clause it checks, its stimulus and
//! the outcome the model and the standard demand, for every door (the Python package's
//! `baser.conformance`, `baser gen --suite`, the C ABI's and DPI-C package's case replay).
//!
//! ```text
//! CASES (name, clause, demands) -> stimulus(case, params): a receive case's Line
//!        (unscrambled blocks + slips + frames sent) or a transmit case's frames;
//!        tx_receive(case): a transmit case's line for the DUT's receiver (tx-link-fault)
//! expected(case, params): the line's 66-bit clocks through the model's receiver (SimRx):
//!        frames and classes, status levels as they changed, counters    (Expected)
//! judge::rx(expected, what the DUT said): divergences in the model's words, the first first
//! judge::tx / judge::tx_link_fault(frames, [receive line], the DUT's line): the same
//! ```

pub mod cases;
pub mod judge;
pub mod line;
pub mod pattern;
pub mod random;
pub mod replay;
pub mod xgmii;

use crate::coverage::{Collector, Coverage};
use crate::fec::Rate;
use crate::live::RxView;
use crate::options::{BerTimer, Options};
use crate::rx::class_name;
use crate::rx::{RxChain, RxInput};
use crate::sim::{SimInput, SimRx};
use crate::tx::{TxChain, VecSink};
use cases::{ReceiveBuild, RxBuild, TxBuild};
use line::Line;
use pcs_core::Block;
use random::PyRandom;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use cases::{LEAD, SETTLE};

/// The standard's 125 µs BER timer in 10GBASE-R blocks (the model's: 19 531.25).
pub const BER_WINDOW_BLOCKS: usize = 19531;

/// The standard's 2 ms BER timer in 25GBASE-R blocks (U: `BerConfig::TWENTY_FIVE_GBASE_R`).
pub const BER_WINDOW_BLOCKS_25G: usize = (pcs_core::BerConfig::TWENTY_FIVE_GBASE_R.window_ticks
    / pcs_core::BerConfig::TWENTY_FIVE_GBASE_R.ticks_per_block)
    as usize;

/// The standard's BER window at `rate`, in blocks: 125 µs at 10G, 2 ms at 25G.
pub const fn standard_ber_window_blocks(rate: Rate) -> usize {
    match rate {
        Rate::G10 => BER_WINDOW_BLOCKS,
        Rate::G25 => BER_WINDOW_BLOCKS_25G,
    }
}

/// The settings of the DUT a case's stimulus and expected outcome depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// The receiver's largest good frame, FCS included.
    pub max_frame_length: usize,
    /// The DUT's BER timer (125 µs at 10G, 2 ms at 25G), in blocks: the model's receiver
    /// runs its BER monitor with it.
    pub ber_window_blocks: usize,
    /// The line rate: the BER monitor's threshold (16 at 10G, 97 at 25G) and the cases that
    /// apply follow it.
    pub rate: Rate,
    /// The DUT's PRBS31 test pattern is the complement of the LFSR's output (U:
    /// `pcs_core::Prbs31Polarity`; verilog-ethernet and taxi invert it): the test-pattern
    /// cases send and check that polarity.
    pub prbs31_inverted: bool,
}

impl Default for Params {
    fn default() -> Self {
        Self::at(Rate::G10)
    }
}

impl Params {
    /// A DUT of `rate` with the standard's BER timer and 1518-octet frames.
    pub const fn at(rate: Rate) -> Self {
        Self {
            max_frame_length: 1518,
            ber_window_blocks: standard_ber_window_blocks(rate),
            rate,
            prbs31_inverted: false,
        }
    }

    /// The DUT's BER timer is the standard's at its rate.
    pub const fn standard_ber_window(&self) -> bool {
        self.ber_window_blocks == standard_ber_window_blocks(self.rate)
    }

    /// The model's BER timer for this DUT: the standard's (exactly 125 µs or 2 ms) when the
    /// DUT's is, else the DUT's length in blocks, at the DUT's rate.
    ///
    /// # Errors
    /// A window of 0 blocks or too long, named.
    pub fn ber_timer(&self) -> Result<BerTimer, String> {
        let timer = if self.standard_ber_window() {
            Some(BerTimer::default())
        } else {
            u32::try_from(self.ber_window_blocks)
                .ok()
                .and_then(BerTimer::blocks)
        };
        timer.map(|t| t.at(self.rate)).ok_or_else(|| {
            format!(
                "ber_window_blocks: {} blocks: expected 1 or more ({} is the standard's at {}), at most {}",
                self.ber_window_blocks,
                standard_ber_window_blocks(self.rate),
                self.rate,
                u32::MAX / 4
            )
        })
    }
}

/// Receive (serdes in, frames out) or transmit (frames in, serdes out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Serdes in, frames and status out.
    Rx,
    /// Frames in, serdes out.
    Tx,
}

/// How a case builds its stimulus.
#[derive(Clone, Copy)]
enum Build {
    Rx(RxBuild),
    Tx(TxBuild, &'static [usize]),
    /// Frames, and the line the DUT's receiver gets meanwhile (else idles).
    TxReceive(TxBuild, ReceiveBuild),
    /// A test-pattern run ([`pattern::run`]): the DUT's test-pattern enable and error
    /// counter, no frames.
    Pattern,
}

/// One case of the catalogue.
#[derive(Clone, Copy)]
pub struct Case {
    /// Its name, e.g. `rx-hi-ber-16`.
    pub name: &'static str,
    /// The clauses it checks.
    pub clause: &'static str,
    /// What it sends and demands, in a line.
    pub title: &'static str,
    /// Receive or transmit.
    pub kind: Kind,
    /// What the standard demands beyond agreeing with the model: status role -> the values it
    /// goes through from the stimulus on (the end of [`LEAD`]).
    pub demands: &'static [(&'static str, &'static [bool])],
    /// The status outputs a DUT needs for it (besides its serdes and frame interfaces).
    pub status: &'static [&'static str],
    /// Its counters are judged.
    pub counters: bool,
    /// It needs the standard's BER timer in the DUT (its line is placed for that window).
    pub standard_ber_timer: bool,
    /// The one rate it applies at (`None`: every rate): the BER cases' counts are a rate's.
    pub rate: Option<Rate>,
    build: Build,
}

impl Case {
    /// What a DUT's adapter must have for it: `status.*` roles, `serdes_rx`/`rx_axis` or
    /// `serdes_tx`/`tx_axis` (the receive cases that judge only block lock or hi_ber need no
    /// frames out).
    pub fn needs(&self) -> Vec<String> {
        let mut out: Vec<String> = self.status.iter().map(|s| format!("status.{s}")).collect();
        let ports: &[&str] = match self.kind {
            Kind::Rx if self.is_pattern() => &["serdes_rx", "prbs31.rx_enable", "prbs31.rx_errors"],
            Kind::Tx if self.is_pattern() => &["serdes_tx", "prbs31.tx_enable"],
            Kind::Tx if self.has_receive_line() => &["serdes_rx", "serdes_tx", "tx_axis"],
            Kind::Tx => &["serdes_tx", "tx_axis"],
            Kind::Rx if self.status_only() => &["serdes_rx"],
            Kind::Rx => &["serdes_rx", "rx_axis"],
        };
        out.extend(ports.iter().map(|s| s.to_string()));
        out
    }

    /// A transmit case whose DUT's receiver gets a line of its own ([`tx_receive`]), not
    /// idles.
    pub fn has_receive_line(&self) -> bool {
        matches!(self.build, Build::TxReceive(..))
    }

    /// A test-pattern case ([`pattern`]): it drives the DUT's test-pattern enable and judges
    /// its error counter (receive) or its line (transmit), no frames.
    pub fn is_pattern(&self) -> bool {
        matches!(self.build, Build::Pattern)
    }

    /// A receive case that judges only block lock or hi_ber (a PHY-only top runs it).
    pub fn status_only(&self) -> bool {
        matches!(
            self.name,
            "rx-hi-ber-15"
                | "rx-hi-ber-16"
                | "rx-hi-ber-96"
                | "rx-hi-ber-97"
                | "rx-lock-loss"
                | "rx-bit-slip"
        )
    }

    /// The same case, at `rate` only.
    const fn only_at(self, rate: Rate) -> Self {
        Self {
            rate: Some(rate),
            ..self
        }
    }

    /// It applies at `rate`.
    pub fn is_at(&self, rate: Rate) -> bool {
        self.rate.is_none_or(|r| r == rate)
    }
}

const FAULT: &[(&str, &[bool])] = &[("local_fault", &[false, true, false])];
const LF: &[&str] = &["local_fault"];

#[allow(clippy::too_many_arguments)]
const fn case(
    name: &'static str,
    clause: &'static str,
    title: &'static str,
    build: Build,
    demands: &'static [(&'static str, &'static [bool])],
    status: &'static [&'static str],
    counters: bool,
    standard_ber_timer: bool,
) -> Case {
    let kind = match build {
        Build::Rx(_) | Build::Pattern => Kind::Rx,
        Build::Tx(..) | Build::TxReceive(..) => Kind::Tx,
    };
    Case {
        name,
        clause,
        title,
        kind,
        demands,
        status,
        counters,
        standard_ber_timer,
        rate: None,
        build,
    }
}

const fn rx(name: &'static str, clause: &'static str, title: &'static str, b: RxBuild) -> Case {
    case(name, clause, title, Build::Rx(b), &[], &[], true, false)
}

const fn tx(name: &'static str, clause: &'static str, title: &'static str, b: TxBuild) -> Case {
    case(
        name,
        clause,
        title,
        Build::Tx(b, &[]),
        &[],
        &[],
        true,
        false,
    )
}

/// A test-pattern case of `kind`: no demands beyond its verdict, no counters.
const fn test_pattern(
    name: &'static str,
    clause: &'static str,
    title: &'static str,
    kind: Kind,
) -> Case {
    Case {
        kind,
        ..case(name, clause, title, Build::Pattern, &[], &[], false, false)
    }
}

use cases as c;

/// The catalogue, in the order it runs: every rate's cases ([`Case::is_at`] picks a rate's).
pub const CASES: [Case; 27] = [
    rx(
        "rx-frames",
        "4.2.9, 49.2.13",
        "frames 60..1514 octets from both start lanes received whole",
        c::rx_frames,
    ),
    rx(
        "rx-terminate-lanes",
        "49.2.4.4, Fig. 49-7",
        "/T/ in each lane 0..7 (block types 0x87..0xff), both start lanes",
        c::rx_terminate_lanes,
    ),
    rx(
        "rx-ifg",
        "46.2.1, 46.3.1.4",
        "IFG 5..15 octets with and without the deficit idle count: every frame received",
        c::rx_ifg,
    ),
    rx(
        "rx-bad-fcs",
        "4.2.4.1.2, 4.2.9",
        "a bad FCS: flagged (or dropped), counted",
        c::rx_bad_fcs,
    ),
    rx(
        "rx-length-limits",
        "4.2.4.2.1, 4.4.2",
        "64 and 1518 octets good; 1519, 2004, 9004 too long; a runt",
        c::rx_length_limits,
    ),
    rx(
        "rx-bad-preamble",
        "4.2.5, 46.3.2",
        "a wrong preamble octet and a wrong SFD",
        c::rx_bad_preamble,
    ),
    rx(
        "rx-error-in-frame",
        "49.2.13.2.3, Fig. 49-17",
        "/E/ and an invalid sync header inside frames",
        c::rx_error_inside,
    ),
    rx(
        "rx-invalid-header-idle",
        "49.2.4.3, 49.2.13",
        "invalid sync headers 00 and 11 between frames",
        c::rx_invalid_header_between,
    ),
    rx(
        "rx-control-codes",
        "Table 49-1, 49-7",
        "/LI/, reserved control codes, /Fsig/, a reserved block type, an invalid code",
        c::rx_control_codes,
    ),
    case(
        "rx-ordered-set-4b",
        "Fig. 49-7 (0x4b), 46.3.4",
        "Local Fault in 0x4b blocks (lane 0): fault raised, cleared",
        Build::Rx(c::rx_os_4b),
        FAULT,
        LF,
        true,
        false,
    ),
    case(
        "rx-ordered-set-2d",
        "Fig. 49-7 (0x2d), 46.3.4",
        "Local Fault in 0x2d blocks (lane 4): fault raised, cleared",
        Build::Rx(c::rx_os_2d),
        FAULT,
        LF,
        true,
        false,
    ),
    case(
        "rx-ordered-set-55",
        "Fig. 49-7 (0x55), 46.3.4",
        "Local Fault in 0x55 blocks (both lanes): fault raised, cleared",
        Build::Rx(c::rx_os_55),
        FAULT,
        LF,
        true,
        false,
    ),
    rx(
        "rx-ordered-set-66",
        "Fig. 49-7 (0x66)",
        "an ordered set in lane 0 with /S/ in lane 4: the frame received",
        c::rx_os_with_start,
    ),
    case(
        "rx-link-fault",
        "46.3.4, Fig. 46-11",
        "Local then Remote Fault raised and cleared; 3 sequences raise nothing",
        Build::Rx(c::rx_link_fault),
        &[
            ("local_fault", &[false, true, false]),
            ("remote_fault", &[false, true, false]),
        ],
        &["local_fault", "remote_fault"],
        true,
        false,
    ),
    case(
        "rx-hi-ber-15",
        "49.2.14.2, Fig. 49-15",
        "15 invalid headers in a 125 us window: hi_ber stays low",
        Build::Rx(c::rx_hi_ber_15),
        &[("hi_ber", &[false])],
        &["hi_ber"],
        true,
        false,
    )
    .only_at(Rate::G10),
    case(
        "rx-hi-ber-16",
        "49.2.14.2, Fig. 49-15",
        "16 invalid headers in a 125 us window: hi_ber rises, clears after a clean window",
        Build::Rx(c::rx_hi_ber_16),
        &[("hi_ber", &[false, true, false])],
        &["hi_ber"],
        true,
        true,
    )
    .only_at(Rate::G10),
    case(
        "rx-hi-ber-96",
        "107, 49.2.14.2, Fig. 49-15",
        "96 invalid headers inside one 2 ms window (25G): hi_ber stays low",
        Build::Rx(c::rx_hi_ber_96),
        &[("hi_ber", &[false])],
        &["hi_ber"],
        true,
        false,
    )
    .only_at(Rate::G25),
    case(
        "rx-hi-ber-97",
        "107, 49.2.14.2, Fig. 49-15",
        "97 invalid headers inside one 2 ms window (25G): hi_ber rises, clears after a clean window",
        Build::Rx(c::rx_hi_ber_97),
        &[("hi_ber", &[false, true, false])],
        &["hi_ber"],
        true,
        false,
    )
    .only_at(Rate::G25),
    case(
        "rx-lock-loss",
        "49.2.9, Fig. 49-14",
        "16 invalid headers in 64: block lock lost and found again",
        Build::Rx(c::rx_lock_loss),
        &[("block_lock", &[true, false, true])],
        &["block_lock"],
        false,
        false,
    ),
    case(
        "rx-bit-slip",
        "49.2.9, Fig. 49-14",
        "the line slips 13 bits, then 29 back: lock lost and found each time",
        Build::Rx(c::rx_bit_slip),
        &[("block_lock", &[true, false, true, false, true])],
        &["block_lock"],
        false,
        false,
    ),
    tx(
        "tx-lengths",
        "4.2.3.3, 4.2.8, 49.2.13",
        "frames of 14..64 octets padded, 1514: FCS, preamble, bit exact on the line",
        c::tx_lengths,
    ),
    tx(
        "tx-dic",
        "46.3.1.4",
        "back-to-back frames of every length mod 4: the gaps of the deficit idle count",
        c::tx_dic,
    ),
    tx(
        "tx-jumbo",
        "4.2.8",
        "a 9000-octet frame between short ones, bit exact",
        c::tx_jumbo,
    ),
    case(
        "tx-abort",
        "46.3.1.3, 49.2.13",
        "a frame aborted by tuser reaches the line as an error, never as a good frame",
        Build::Tx(c::tx_abort, &[2]),
        &[],
        &[],
        true,
        false,
    ),
    case(
        "tx-link-fault",
        "46.3.4, Fig. 46-11",
        "frames queued while the DUT receives Local then Remote Fault: Remote Fault sent, then Idle, no frame; all sent after",
        Build::TxReceive(c::tx_link_fault, c::tx_link_fault_receive),
        &[],
        &[],
        true,
        false,
    ),
    test_pattern(
        "rx-prbs31",
        "49.2.12, 45.2.3.18",
        "PRBS31 with 12 isolated bit errors into the receive test-pattern checker: its error counter counts each 3 times",
        Kind::Rx,
    ),
    test_pattern(
        "tx-prbs31",
        "49.2.8",
        "the transmit PRBS31 generator on: the line is PRBS31 over all 66 bits, the model's checker counts nothing",
        Kind::Tx,
    ),
];

/// The case named `name`.
///
/// # Errors
/// No such case: the message lists the catalogue's names.
pub fn find(name: &str) -> Result<&'static Case, String> {
    CASES.iter().find(|c| c.name == name).ok_or_else(|| {
        let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
        format!(
            "no case `{name}` in the catalogue: expected one of {}",
            names.join(", ")
        )
    })
}

/// The catalogue at `rate`, in the order it runs.
pub fn cases_at(rate: Rate) -> impl Iterator<Item = &'static Case> {
    CASES.iter().filter(move |c| c.is_at(rate))
}

/// Whether `case` runs on a DUT of `params`: `Err` says why not (another rate's case, a
/// BER timer its line was not placed for).
///
/// # Errors
/// The reason, in a sentence a report can show.
pub fn applies(case: &Case, params: &Params) -> Result<(), String> {
    if let Some(r) = case.rate.filter(|&r| r != params.rate) {
        let theirs: Vec<&str> = cases_at(params.rate)
            .filter(|c| c.rate.is_some())
            .map(|c| c.name)
            .collect();
        return Err(format!(
            "{} is a {r} case (its counts are {}'s); at {} the catalogue has {}",
            case.name,
            r.phy(),
            params.rate,
            theirs.join(", ")
        ));
    }
    if case.standard_ber_timer && !params.standard_ber_window() {
        return Err(format!(
            "its line is placed for the standard's BER timer ({} blocks at {}), the DUT's is {} blocks: build the DUT with it",
            standard_ber_window_blocks(params.rate),
            params.rate,
            params.ber_window_blocks
        ));
    }
    params.ber_timer()?;
    match case.name {
        "rx-hi-ber-96" => cases::burst_fits(96, params).map(|_| ()),
        "rx-hi-ber-97" => cases::burst_fits(97, params).map(|_| ()),
        _ => Ok(()),
    }
}

/// What a case sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stimulus {
    /// A receive case's line.
    Rx(Line),
    /// A transmit case's frames (DA to the end of the payload) and the indices of those
    /// sent with the abort bit.
    Tx(Vec<Vec<u8>>, Vec<usize>),
    /// A test-pattern case's run (the DUT's input, its enable, the window judged).
    Pattern(pattern::PatternRun),
}

/// The case's stimulus for a DUT of `params`.
///
/// # Errors
/// The case could not build its line (a catalogue bug, named).
pub fn stimulus(case: &Case, params: &Params) -> Result<Stimulus, String> {
    if let Some(r) = case.rate.filter(|&r| r != params.rate) {
        return Err(format!(
            "{} is a {r} case; the DUT's rate is {}",
            case.name, params.rate
        ));
    }
    params.ber_timer()?;
    match case.build {
        Build::Rx(b) => cases::rx_line(b, params)
            .map(Stimulus::Rx)
            .map_err(|e| format!("{}: {e}", case.name)),
        Build::Tx(b, aborts) => Ok(Stimulus::Tx(b(&mut PyRandom::new(2)), aborts.to_vec())),
        Build::TxReceive(b, _) => Ok(Stimulus::Tx(b(&mut PyRandom::new(2)), Vec::new())),
        Build::Pattern => pattern::run(case.name, params.prbs31_inverted).map(Stimulus::Pattern),
    }
}

/// A transmit case's line for the DUT's receiver, as sent (scrambled from the all-ones
/// state, one block a clock from the run's first, the lead included; scrambled idles go on
/// after it), or `None`: idles throughout. The scrambler's state after it is the last block's
/// payload shifted right by 6.
///
/// # Errors
/// A receive case, or the line could not be built (a catalogue bug, named).
pub fn tx_receive(case: &Case) -> Result<Option<Vec<Block>>, String> {
    match case.build {
        Build::Rx(_) => Err(format!("{} is a receive case", case.name)),
        Build::Tx(..) | Build::Pattern => Ok(None),
        Build::TxReceive(_, r) => r()
            .map(|l| Some(l.scrambled()))
            .map_err(|e| format!("{}: {e}", case.name)),
    }
}

/// Serdes clocks left unjudged at a receive run's end: the model takes the line's clocks
/// until this many blocks are left (the DUT gets them, to deliver its last frame).
pub const TAIL_BLOCKS: usize = 64;

/// A frame the model's receiver delivered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelFrame {
    /// DA through FCS, as received.
    pub octets: Vec<u8>,
    /// Its class: `ok`, `fcs_error`, `runt`, `too_long`, ...
    pub class: String,
    /// The block and lane of its `/S/`.
    pub start_block: u64,
    /// The lane of its `/S/`.
    pub start_lane: u8,
}

/// A receive case's outcome: what the model's receiver made of the line (frames, status
/// levels as they changed, counters) and what the standard demands of the status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expected {
    /// The case.
    pub case: String,
    /// Its clauses.
    pub clause: String,
    /// Its title.
    pub title: String,
    /// Serdes clocks the model took (the line's, less [`TAIL_BLOCKS`]).
    pub clocks: u64,
    /// The clock the stimulus starts at (the end of the lead).
    pub lead_clocks: u64,
    /// The frames, in order.
    pub frames: Vec<ModelFrame>,
    /// Status role -> `(clock, level)` at each change (the first at clock 1): `block_lock`,
    /// `hi_ber`, `link_up`, `local_fault`, `remote_fault`.
    pub status: BTreeMap<String, Vec<(u64, bool)>>,
    /// Status role -> the levels the standard demands from [`Expected::lead_clocks`] on.
    pub demands: BTreeMap<String, Vec<bool>>,
    /// Counter role -> how far it moves: `errored_blocks` (entries to RX_E, 3.33),
    /// `frames_good`, `frames_bad`, `fcs_errors`.
    pub counters: BTreeMap<String, u64>,
    /// Counters are judged in this case.
    pub judge_counters: bool,
    /// The model's last errored block and the arrow into RX_E, e.g. `812: RX_D --C--> RX_E`.
    pub last_error: Option<String>,
}

/// The model's receiver as the conformance bench runs it (66-bit clocks, the DUT's largest
/// frame, rate and BER timer).
///
/// # Errors
/// The DUT's BER timer cannot be the model's ([`Params::ber_timer`]).
pub fn model_receiver(params: &Params) -> Result<SimRx, String> {
    Ok(SimRx::new(
        &model_options(params)?.rx(),
        SimInput::Units,
        RxView::Receiver,
    ))
}

/// The model's settings for a DUT of `params`: its largest frame, BER timer and rate.
///
/// # Errors
/// A BER window the timer cannot take.
pub fn model_options(params: &Params) -> Result<Options, String> {
    Ok(Options {
        max_frame_length: Some(params.max_frame_length.min(usize::from(u16::MAX)) as u16),
        ber_timer: params.ber_timer()?,
        rate: params.rate,
        ..Options::default()
    })
}

/// The status levels of the model's receiver now, by role.
fn levels(rx: &SimRx) -> [(&'static str, bool); 5] {
    let st = rx.status();
    let fault = st.link_fault.to_string();
    [
        ("block_lock", st.block_lock),
        ("hi_ber", st.hi_ber),
        ("link_up", st.block_lock && !st.hi_ber),
        ("local_fault", fault.contains("Local")),
        ("remote_fault", fault.contains("Remote")),
    ]
}

/// A receive case's expected outcome: its line's clocks (`units`, as [`Line::units`] cuts
/// them) through the model's receiver.
///
/// # Errors
/// The model's receiver failed.
pub fn expected(case: &Case, params: &Params, units: &[Block]) -> Result<Expected, String> {
    let mut rx = model_receiver(params)?;
    let mut frames = Vec::new();
    let mut status: BTreeMap<String, Vec<(u64, bool)>> = BTreeMap::new();
    let taken = units.len().saturating_sub(TAIL_BLOCKS);
    for (clock, &u) in units.iter().take(taken).enumerate() {
        frames.extend(rx.push_unit(u).map_err(|e| e.to_string())?);
        for (role, v) in levels(&rx) {
            let trace = status.entry(role.to_string()).or_default();
            if trace.last().is_none_or(|&(_, last)| last != v) {
                trace.push((clock as u64 + 1, v));
            }
        }
    }
    let errored = rx.pcs().errored_blocks;
    let last_error = rx
        .last_errored()
        .map(|e| format!("{}: {}", e.block, e.what));
    let (_, _, last) = rx.finish().map_err(|e| e.to_string())?;
    frames.extend(last);
    let frames: Vec<ModelFrame> = frames
        .iter()
        .map(|f| ModelFrame {
            octets: f.frame.data.clone(),
            class: class_name(f.frame.class).to_string(),
            start_block: f.frame.start.block,
            start_lane: f.frame.start.lane,
        })
        .collect();
    let count = |p: &dyn Fn(&str) -> bool| frames.iter().filter(|f| p(&f.class)).count() as u64;
    let counters = BTreeMap::from([
        ("errored_blocks".to_string(), errored),
        ("frames_good".to_string(), count(&|c| c == "ok")),
        ("frames_bad".to_string(), count(&|c| c != "ok")),
        ("fcs_errors".to_string(), count(&|c| c == "fcs_error")),
    ]);
    Ok(Expected {
        case: case.name.into(),
        clause: case.clause.into(),
        title: case.title.into(),
        clocks: taken as u64,
        lead_clocks: LEAD as u64,
        frames,
        status,
        demands: case
            .demands
            .iter()
            .map(|(r, v)| (r.to_string(), v.to_vec()))
            .collect(),
        counters,
        judge_counters: case.counters,
        last_error,
    })
}

/// A receive case's line as serdes clocks ([`Line::units`]) and its expected outcome.
///
/// # Errors
/// A transmit case, or the line or the model's receiver failed.
pub fn rx_expected(case: &Case, params: &Params) -> Result<(Vec<Block>, Expected), String> {
    let Stimulus::Rx(line) = stimulus(case, params)? else {
        return Err(format!(
            "{} is a {} case",
            case.name,
            if case.is_pattern() {
                "test-pattern"
            } else {
                "transmit"
            }
        ));
    };
    let units = line.units();
    let exp = expected(case, params, &units)?;
    Ok((units, exp))
}

/// The engine's functional coverage (`baser coverage`'s bins, [`Coverage`]) of what `cases`
/// drove on a DUT of `params`, merged: a receive case's line through the model's receiver
/// (block lock from the line's first bit), a transmit case's frames as the model's
/// transmitter puts them on the line (the line the DUT must send).
///
/// # Errors
/// A case's stimulus could not be built, or the model's chain failed.
pub fn coverage(cases: &[&Case], params: &Params) -> Result<Coverage, String> {
    let mut total = Coverage::plan();
    for case in cases {
        total.merge(&case_coverage(case, params)?);
    }
    Ok(total)
}

fn case_coverage(case: &Case, params: &Params) -> Result<Coverage, String> {
    let opt = model_options(params)?;
    let line = match stimulus(case, params)? {
        Stimulus::Rx(line) => line.units(),
        // the DUT is in test-pattern mode: none of the bins (they are the PCS's and MAC's
        // paths) is reached by its pattern
        Stimulus::Pattern(_) => Vec::new(),
        Stimulus::Tx(frames, _) => {
            let mut tx = TxChain::new(&opt.tx(), VecSink::default());
            for f in &frames {
                tx.frame(f, None)
                    .map_err(|e| format!("{}: {e}", case.name))?;
            }
            tx.idle(64);
            tx.finish().map_err(|e| e.to_string())?.0.lines
        }
    };
    let mut rx = RxChain::new(
        &opt.rx(),
        RxInput::Serial,
        Collector::new(case.name, opt.ifg),
    );
    rx.push_units(&line);
    let (pcs, _, c) = rx.finish().map_err(|e| e.to_string())?;
    Ok(c.finish(&pcs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coverage_of_a_run_is_the_engines_bins_of_its_cases() {
        let p = Params::default();
        let one = coverage(&[find("rx-frames").unwrap()], &p).unwrap();
        let both = coverage(
            &[find("rx-frames").unwrap(), find("rx-hi-ber-16").unwrap()],
            &p,
        )
        .unwrap();
        let hits = |c: &Coverage, group: &str, bin: &str| {
            let g = c.groups.iter().find(|g| g.name == group).unwrap();
            g.bins.iter().find(|b| b.name == bin).unwrap().hits
        };
        assert_eq!(one.runs, ["rx-frames"]);
        assert!(both.percent() > one.percent());
        assert_eq!(
            hits(&one, "lock_and_ber", "hi_ber rose (Fig. 49-15 HI_BER)"),
            0
        );
        assert_eq!(
            hits(&both, "lock_and_ber", "hi_ber rose (Fig. 49-15 HI_BER)"),
            1
        );
        assert!(hits(&one, "start_lane", "lane 4") > 0 && hits(&one, "start_lane", "lane 0") > 0);
        let tx = coverage(&[find("tx-dic").unwrap()], &p).unwrap();
        assert!(
            tx.groups
                .iter()
                .find(|g| g.name == "dic")
                .unwrap()
                .covered()
                > 0
        );
    }

    #[test]
    fn draws_are_pythons_random() {
        // python3 -c 'import random; r = random.Random(1); print([r.randint(60, 1514) for _ in
        // range(5)], r.randbytes(7).hex()); print(random.Random(2).randbytes(9).hex())'
        let mut r = PyRandom::new(1);
        let ints: Vec<usize> = (0..5).map(|_| r.randint(60, 1514)).collect();
        assert_eq!(ints, [335, 1225, 189, 582, 301]);
        assert_eq!(r.randbytes(7), [0x7b, 0xd5, 0xd4, 0x7e, 0x6f, 0xce, 0xc2]);
        assert_eq!((r.randint(0, 0), r.randbytes(0)), (0, vec![]));
        let nine = [0x73, 0xa9, 0xbe, 0xf4, 0x99, 0xbb, 0xf4, 0xdc, 0xf2];
        assert_eq!(PyRandom::new(2).randbytes(9), nine);
    }

    #[test]
    fn every_case_builds_and_names_are_unique() {
        for (i, c) in CASES.iter().enumerate() {
            assert!(CASES[..i].iter().all(|o| o.name != c.name), "{}", c.name);
            let p = Params::at(c.rate.unwrap_or_default());
            let s = stimulus(c, &p).unwrap();
            assert_eq!(
                matches!(s, Stimulus::Rx(_)),
                c.kind == Kind::Rx && !c.is_pattern(),
                "{}",
                c.name
            );
            assert_eq!(
                matches!(s, Stimulus::Pattern(_)),
                c.is_pattern(),
                "{}",
                c.name
            );
        }
        assert!(find("rx-nope").is_err_and(|e| e.contains("rx-frames, rx-terminate-lanes")));
    }

    /// The levels of the model's receiver at `params` over `case`'s line made for `line_for`.
    fn hi_ber_levels(case: &str, line_for: &Params, params: &Params) -> Vec<bool> {
        let c = find(case).unwrap();
        let Stimulus::Rx(line) = stimulus(c, line_for).unwrap() else {
            unreachable!()
        };
        let exp = expected(c, params, &line.units()).unwrap();
        exp.status["hi_ber"].iter().map(|&(_, v)| v).collect()
    }

    fn at_25g(window: usize) -> Params {
        Params {
            ber_window_blocks: window,
            ..Params::at(Rate::G25)
        }
    }

    #[test]
    fn each_rate_has_its_ber_cases_and_the_rest_in_common() {
        let names = |r| cases_at(r).map(|c| c.name).collect::<Vec<_>>();
        let (ten, twenty_five) = (names(Rate::G10), names(Rate::G25));
        assert_eq!((ten.len(), twenty_five.len()), (25, 25));
        assert!(ten.contains(&"rx-hi-ber-16") && !ten.contains(&"rx-hi-ber-97"));
        assert!(twenty_five.contains(&"rx-hi-ber-96") && !twenty_five.contains(&"rx-hi-ber-15"));
        let common = ten.iter().filter(|n| twenty_five.contains(n)).count();
        assert_eq!(common, 23);
        let p25 = at_25g(1000);
        let why = applies(find("rx-hi-ber-16").unwrap(), &p25).unwrap_err();
        assert!(
            why.contains("10g case") && why.contains("rx-hi-ber-96, rx-hi-ber-97"),
            "{why}"
        );
        assert!(stimulus(find("rx-hi-ber-15").unwrap(), &p25).is_err());
        assert!(applies(find("rx-hi-ber-97").unwrap(), &p25).is_ok());
        assert!(applies(find("rx-frames").unwrap(), &p25).is_ok());
    }

    #[test]
    fn a_window_too_short_or_of_zero_blocks_is_refused_by_name() {
        let short = applies(find("rx-hi-ber-97").unwrap(), &at_25g(740)).unwrap_err();
        assert!(
            short.contains("740 blocks is too short") && short.contains("741"),
            "{short}"
        );
        assert!(applies(find("rx-hi-ber-97").unwrap(), &at_25g(741)).is_ok());
        let zero = stimulus(find("rx-frames").unwrap(), &at_25g(0)).unwrap_err();
        assert!(zero.starts_with("ber_window_blocks: 0 blocks"), "{zero}");
        assert!(applies(find("rx-frames").unwrap(), &at_25g(0)).is_err());
        let ten_short = Params {
            ber_window_blocks: 300,
            ..Params::default()
        };
        let why = applies(find("rx-hi-ber-16").unwrap(), &ten_short).unwrap_err();
        assert!(why.contains("19531 blocks at 10g"), "{why}");
    }

    #[test]
    fn the_model_runs_the_dut_window_at_the_dut_rate() {
        // 97 trips the 25G monitor in a 1000-block window and clears; 96 does not trip it
        let p = at_25g(1000);
        assert_eq!(hi_ber_levels("rx-hi-ber-97", &p, &p), [false, true, false]);
        assert_eq!(hi_ber_levels("rx-hi-ber-96", &p, &p), [false]);
        // a 25G PCS that kept the 10G monitor (16 in the window) trips on the 96
        let kept_10g = Params {
            rate: Rate::G10,
            ..p
        };
        assert_eq!(
            hi_ber_levels("rx-hi-ber-96", &p, &kept_10g)[..2],
            [false, true]
        );
        assert_eq!(
            at_25g(BER_WINDOW_BLOCKS_25G)
                .ber_timer()
                .unwrap()
                .to_string(),
            "2ms"
        );
        assert_eq!(p.ber_timer().unwrap().ber_config().threshold, 97);
        assert_eq!(Params::default().ber_timer().unwrap(), BerTimer::default());
    }

    #[test]
    fn a_placed_burst_counts_the_same_whatever_the_windows_phase() {
        // the DUT's window starting up to BER_PHASE_MARGIN blocks before or after the model's
        use pcs_core::{BerConfig, BerMonitor, LockLossReset};
        let mut runs = 0;
        for (case, n) in [("rx-hi-ber-96", 96), ("rx-hi-ber-97", 97)] {
            for window in [741, 1000, 4096] {
                let p = at_25g(window);
                let Stimulus::Rx(line) = stimulus(find(case).unwrap(), &p).unwrap() else {
                    unreachable!()
                };
                // from the line's first block (a timer from reset) to the margin after lock
                let step = if window > 1000 { 16 } else { 1 };
                for start in (0..=64 + cases::BER_PHASE_MARGIN).step_by(step) {
                    for threshold in [16, 97] {
                        let config = BerConfig {
                            window_ticks: window as u32,
                            ticks_per_block: 1,
                            threshold,
                        };
                        let mut m = BerMonitor::new(config, LockLossReset::ResetMonitor);
                        let tripped = line
                            .blocks
                            .iter()
                            .enumerate()
                            .any(|(k, b)| m.step(b.sync, k >= start).hi_ber);
                        let want = n >= usize::from(threshold);
                        assert_eq!(tripped, want, "{case} window {window} from {start}");
                        runs += 1;
                    }
                }
            }
        }
        assert_eq!(runs, 2 * 2 * (193 + 193 + 13));
    }

    #[test]
    fn the_model_meets_every_receive_cases_demands_at_25g() {
        let p = at_25g(1000);
        for c in cases_at(Rate::G25).filter(|c| c.kind == Kind::Rx && !c.is_pattern()) {
            let (_, exp) = rx_expected(c, &p).unwrap();
            let shape = judge::DutShape {
                frames: false,
                fcs_stripped: true,
                pulses: vec![],
            };
            let said = judge::DutSaid::default();
            assert_eq!(
                judge::rx(&exp, &shape, &said),
                Vec::<String>::new(),
                "{}",
                c.name
            );
        }
    }

    #[test]
    fn the_model_meets_every_receive_cases_demands() {
        let p = Params::default();
        for c in cases_at(Rate::G10).filter(|c| c.kind == Kind::Rx && !c.is_pattern()) {
            let Stimulus::Rx(line) = stimulus(c, &p).unwrap() else {
                unreachable!()
            };
            let exp = expected(c, &p, &line.units()).unwrap();
            let said = judge::DutSaid::default();
            let shape = judge::DutShape {
                frames: false,
                fcs_stripped: true,
                pulses: vec![],
            };
            assert_eq!(
                judge::rx(&exp, &shape, &said),
                Vec::<String>::new(),
                "{}",
                c.name
            );
            if !c.status_only() {
                assert!(exp.frames.iter().any(|f| f.class == "ok"), "{}", c.name);
            }
        }
    }
}
