//! Functional coverage of Clauses 49 and 46: which corners of the standard a stream hit.
//!
//! A [`Collector`] watches the RX chain (it is an [`RxSink`] that asks for the descrambled
//! blocks and for every step of the receive state machine) and counts hits in named bins,
//! grouped as a verification plan is: the block formats of Figure 49-7 and the invalid ones,
//! `/S/` lanes, `/T/` lanes, the arrows of the receive state diagram (Fig. 49-17, as the
//! chain's decoder took them), the arrows of the transmit state diagram (Fig. 49-16, as a
//! transmitter of these transfers would take them), block lock and BER monitor events, the
//! deficit idle count, IFG lengths, frame lengths, ordered sets, link fault transitions
//! (§46.3.4) and the MAC's frame classes. A bin with no hit is a *hole*.
//!
//! [`Coverage`] is the result: it serializes to JSON, and coverages of several runs merge by
//! adding hits bin by bin ([`Coverage::merge`]), as a regression does.
//!
//! Bins of a group that an input cannot reach are still holes (a `.b66` dump has its block
//! boundaries given, so it never acquires lock; an `.xgmii` dump has no blocks): a regression
//! merges runs of every kind.

use crate::pcs_check::Deficit;
use crate::rx::{FrameRef, LinkStatus, PcsSummary, RxSink};
use mac_core::fault::{FaultKind, LinkFault};
use mac_core::rx::RxClass;
use pcs_core::RxEvent;
use pcs_core::{Block, BlockType, ControlChar, SyncHeader, XgmiiWord};
use pcs_core::{Encoder, EncoderConfig, TxState};
use serde::{Deserialize, Serialize};

/// One bin: a coverable point and its hits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bin {
    /// Its name, e.g. `RX_D --T--> RX_T` or `lane 4`.
    pub name: String,
    /// Times it was hit.
    pub hits: u64,
}

/// A group of bins: one item of a verification plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// Short name, e.g. `rx_arrows`.
    pub name: String,
    /// What it covers, with the clause.
    pub what: String,
    /// The bins, in the plan's order.
    pub bins: Vec<Bin>,
}

impl Group {
    /// Bins hit at least once.
    pub fn covered(&self) -> usize {
        self.bins.iter().filter(|b| b.hits > 0).count()
    }

    /// The bins never hit.
    pub fn holes(&self) -> impl Iterator<Item = &Bin> {
        self.bins.iter().filter(|b| b.hits == 0)
    }
}

/// The coverage of one or more runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// What was measured (file names of the runs merged).
    pub runs: Vec<String>,
    /// The groups, in the plan's order.
    pub groups: Vec<Group>,
}

/// Groups, in order (indices into [`Coverage::groups`]).
const G_FORMAT: usize = 0;
const G_START: usize = 1;
const G_TERM: usize = 2;
const G_RX: usize = 3;
const G_TX: usize = 4;
const G_LOCK: usize = 5;
const G_DIC: usize = 6;
const G_IFG: usize = 7;
const G_LEN: usize = 8;
const G_OS: usize = 9;
const G_LINK: usize = 10;
const G_CLASS: usize = 11;

/// The receive state diagram's arrows (Fig. 49-17), by state, `R_TYPE` and next state; a
/// terminate's `R_TYPE_NEXT` decides between `RX_T` and `RX_E`.
///
/// Spec: IEEE 802.3 §49.2.13.2.
const RX_ARROWS: &[(&str, char, &str)] = &[
    ("RX_INIT", 'C', "RX_C"),
    ("RX_INIT", 'S', "RX_D"),
    ("RX_INIT", 'D', "RX_E"),
    ("RX_INIT", 'T', "RX_E"),
    ("RX_INIT", 'E', "RX_E"),
    ("RX_C", 'C', "RX_C"),
    ("RX_C", 'S', "RX_D"),
    ("RX_C", 'D', "RX_E"),
    ("RX_C", 'T', "RX_E"),
    ("RX_C", 'E', "RX_E"),
    ("RX_D", 'D', "RX_D"),
    ("RX_D", 'T', "RX_T"),
    ("RX_D", 'T', "RX_E"),
    ("RX_D", 'C', "RX_E"),
    ("RX_D", 'S', "RX_E"),
    ("RX_D", 'E', "RX_E"),
    // RX_T is entered only when R_TYPE_NEXT is S or C: its arrows on D, T and E are never
    // taken, and are no bins.
    ("RX_T", 'C', "RX_C"),
    ("RX_T", 'S', "RX_D"),
    ("RX_E", 'C', "RX_C"),
    ("RX_E", 'D', "RX_D"),
    ("RX_E", 'T', "RX_T"),
    ("RX_E", 'T', "RX_E"),
    ("RX_E", 'S', "RX_E"),
    ("RX_E", 'E', "RX_E"),
];

/// The transmit state diagram's arrows (Fig. 49-16), by state, `T_TYPE` and next state.
///
/// Spec: IEEE 802.3 §49.2.13.2.
const TX_ARROWS: &[(&str, char, &str)] = &[
    ("TX_INIT", 'C', "TX_C"),
    ("TX_INIT", 'S', "TX_D"),
    ("TX_INIT", 'D', "TX_E"),
    ("TX_INIT", 'T', "TX_E"),
    ("TX_INIT", 'E', "TX_E"),
    ("TX_C", 'C', "TX_C"),
    ("TX_C", 'S', "TX_D"),
    ("TX_C", 'D', "TX_E"),
    ("TX_C", 'T', "TX_E"),
    ("TX_C", 'E', "TX_E"),
    ("TX_D", 'D', "TX_D"),
    ("TX_D", 'T', "TX_T"),
    ("TX_D", 'C', "TX_E"),
    ("TX_D", 'S', "TX_E"),
    ("TX_D", 'E', "TX_E"),
    ("TX_T", 'C', "TX_C"),
    ("TX_T", 'S', "TX_D"),
    ("TX_T", 'D', "TX_E"),
    ("TX_T", 'T', "TX_E"),
    ("TX_T", 'E', "TX_E"),
    ("TX_E", 'C', "TX_C"),
    ("TX_E", 'D', "TX_D"),
    ("TX_E", 'T', "TX_T"),
    ("TX_E", 'S', "TX_E"),
    ("TX_E", 'E', "TX_E"),
];

/// The forced arrow into `RX_INIT` (block lock off or `hi_ber`).
const RX_LINK_DOWN: &str = "any --(block_lock false or hi_ber)--> RX_INIT";

fn arrow(from: &str, class: char, to: &str) -> String {
    format!("{from} --{class}--> {to}")
}

const LOCK_BINS: &[&str] = &[
    "block lock acquired (Fig. 49-14 64_GOOD)",
    "block lock acquired after slips (SLIP)",
    "block lock lost (65 headers with 16 invalid)",
    "block lock regained",
    "hi_ber rose (Fig. 49-15 HI_BER)",
    "hi_ber cleared",
];
const L_ACQUIRED: usize = 0;
const L_SLIPPED: usize = 1;
const L_LOST: usize = 2;
const L_REGAINED: usize = 3;
const L_HI_BER: usize = 4;
const L_CLEARED: usize = 5;

const IFG_BINS: &[&str] = &[
    "< 9 octets",
    "9",
    "10",
    "11",
    "12",
    "13",
    "14",
    "15",
    "16..31",
    ">= 32",
];

const LEN_BINS: &[(&str, usize)] = &[
    ("< 64 octets (runt)", 63),
    ("64", 64),
    ("65..127", 127),
    ("128..255", 255),
    ("256..511", 511),
    ("512..1023", 1023),
    ("1024..1518", 1518),
    ("1519..1522 (tagged)", 1522),
    ("1523..9018 (jumbo)", 9018),
    ("> 9018", usize::MAX),
];

const OS_BINS: &[&str] = &[
    "/Q/ local fault",
    "/Q/ remote fault",
    "/Q/ link interruption",
    "/Q/ other",
    "/Fsig/",
    "/LI/ (low power idle)",
];

const LINK_BINS: &[&str] = &[
    "Ok -> Fault(LocalFault)",
    "Fault(LocalFault) -> Ok",
    "Ok -> Fault(RemoteFault)",
    "Fault(RemoteFault) -> Ok",
    "Ok -> Fault(LinkInterruption)",
    "Fault(LinkInterruption) -> Ok",
];

impl Default for Coverage {
    fn default() -> Self {
        Self::plan()
    }
}

impl Coverage {
    /// Every coverable point, none hit.
    pub fn plan() -> Self {
        let group = |name: &str, what: &str, bins: Vec<String>| Group {
            name: name.into(),
            what: what.into(),
            bins: bins.into_iter().map(|name| Bin { name, hits: 0 }).collect(),
        };
        let mut formats = vec!["data (sync 01)".to_string()];
        formats.extend(
            BlockType::ALL
                .iter()
                .map(|t| format!("{:#04x} {}", *t as u8, type_lanes(*t))),
        );
        formats.push("reserved block type".into());
        formats.push("invalid sync header (00 or 11)".into());
        let mut rx: Vec<String> = RX_ARROWS.iter().map(|&(f, c, t)| arrow(f, c, t)).collect();
        rx.push(RX_LINK_DOWN.into());
        let strs = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        Self {
            runs: Vec::new(),
            groups: vec![
                group(
                    "block_formats",
                    "block formats of Figure 49-7, reserved types, invalid headers (49.2.4)",
                    formats,
                ),
                group(
                    "start_lane",
                    "lane of /S/ (49.2.4.4, 46.3.1.2)",
                    strs(&["lane 0", "lane 4"]),
                ),
                group(
                    "terminate_lane",
                    "lane of /T/ (49.2.4.4)",
                    (0..8).map(|l| format!("lane {l}")).collect(),
                ),
                group(
                    "rx_arrows",
                    "receive state diagram arrows, Fig. 49-17 (49.2.13.2)",
                    rx,
                ),
                group(
                    "tx_arrows",
                    "transmit state diagram arrows, Fig. 49-16, for these transfers (49.2.13.2)",
                    TX_ARROWS.iter().map(|&(f, c, t)| arrow(f, c, t)).collect(),
                ),
                group(
                    "lock_and_ber",
                    "block lock (Fig. 49-14) and BER monitor (Fig. 49-15) events",
                    strs(LOCK_BINS),
                ),
                group(
                    "dic",
                    "deficit idle count after each gap (46.3.1.4)",
                    strs(&[
                        "deficit 0",
                        "deficit 1",
                        "deficit 2",
                        "deficit 3",
                        "gap shorter than DIC allows",
                    ]),
                ),
                group(
                    "ifg",
                    "gap between frames, octets from /T/ to /S/ (4.4.2, 46.3.1.4)",
                    strs(IFG_BINS),
                ),
                group(
                    "frame_length",
                    "frame length with FCS, octets (4.4.2)",
                    LEN_BINS.iter().map(|(n, _)| (*n).to_string()).collect(),
                ),
                group(
                    "ordered_sets",
                    "ordered sets and signals (46.3.4, 49.2.4.5)",
                    strs(OS_BINS),
                ),
                group(
                    "link_fault",
                    "link fault status transitions (46.3.4.2, Fig. 46-11)",
                    strs(LINK_BINS),
                ),
                group(
                    "mac_class",
                    "frames by MAC receive class (4.2.4.2)",
                    crate::rx::CLASSES
                        .iter()
                        .map(|c| crate::rx::class_name(*c).to_string())
                        .collect(),
                ),
            ],
        }
    }

    /// Adds the bins of the FEC below the PCS (group `fec_fc` or `fec_rs`, so that runs of
    /// the two FECs merge apart): lock acquired and lost, FEC blocks or codewords clean,
    /// corrected and uncorrectable; for RS-FEC also markers, hi_ser and the two bypass modes
    /// (1.200.0, 1.200.1) a run decoded with.
    pub fn add_fec(&mut self, f: &crate::fec::FecSummary, opt: &crate::fec::FecOptions) {
        let unit = f.kind.unit();
        let clean = f
            .codewords
            .saturating_sub(f.corrected_codewords + f.uncorrected_codewords);
        let mut bins = vec![
            (
                "lock acquired".to_string(),
                u64::from(f.lock.acquired_at_bit.is_some()),
            ),
            ("lock lost".to_string(), f.lock.losses),
            (format!("{unit} clean"), clean),
            (format!("{unit} corrected"), f.corrected_codewords),
            (format!("{unit} uncorrectable"), f.uncorrected_codewords),
        ];
        if f.kind == crate::fec::Fec::Rs {
            let with = |on: bool| if on { f.codewords } else { 0 };
            bins.extend([
                ("marker codeword".to_string(), f.markers.unwrap_or(0)),
                ("hi_ser".to_string(), f.hi_ser_episodes.unwrap_or(0)),
                (
                    "bypass correction (1.200.0)".to_string(),
                    with(opt.rs.bypass_correction),
                ),
                (
                    "bypass indication (1.200.1)".to_string(),
                    with(opt.rs.bypass_indication),
                ),
            ]);
        }
        let name = format!("fec_{}", f.kind.name());
        let what = format!("{} below the PCS: lock, {unit}s by outcome", f.clause);
        let one = Coverage {
            runs: Vec::new(),
            groups: vec![Group {
                name,
                what,
                bins: bins
                    .into_iter()
                    .map(|(name, hits)| Bin { name, hits })
                    .collect(),
            }],
        };
        self.merge(&one);
    }

    fn hit(&mut self, group: usize, bin: usize) {
        if let Some(b) = self.groups.get_mut(group).and_then(|g| g.bins.get_mut(bin)) {
            b.hits += 1;
        }
    }

    /// Bins hit and bins in all.
    pub fn totals(&self) -> (usize, usize) {
        self.groups
            .iter()
            .fold((0, 0), |(c, n), g| (c + g.covered(), n + g.bins.len()))
    }

    /// Percent of bins hit.
    pub fn percent(&self) -> f64 {
        let (c, n) = self.totals();
        if n == 0 {
            100.0
        } else {
            100.0 * c as f64 / n as f64
        }
    }

    /// Adds the hits of `other` bin by bin (bins matched by group and bin name; a bin only
    /// `other` has is added).
    pub fn merge(&mut self, other: &Coverage) {
        self.runs.extend(other.runs.iter().cloned());
        for og in &other.groups {
            let g = match self.groups.iter_mut().position(|g| g.name == og.name) {
                Some(i) => &mut self.groups[i],
                None => {
                    self.groups.push(Group {
                        name: og.name.clone(),
                        what: og.what.clone(),
                        bins: Vec::new(),
                    });
                    let last = self.groups.len() - 1;
                    &mut self.groups[last]
                }
            };
            for ob in &og.bins {
                match g.bins.iter_mut().find(|b| b.name == ob.name) {
                    Some(b) => b.hits += ob.hits,
                    None => g.bins.push(ob.clone()),
                }
            }
        }
    }
}

/// What lanes 0..7 of a block type carry, as Figure 49-7 writes it.
fn type_lanes(t: BlockType) -> &'static str {
    match t {
        BlockType::Control => "C0..C7",
        BlockType::ControlOrdered => "C0..C3 O4",
        BlockType::ControlStart => "C0..C3 S4",
        BlockType::OrderedStart => "O0 S4",
        BlockType::OrderedOrdered => "O0 O4",
        BlockType::Start => "S0",
        BlockType::OrderedControl => "O0 C4..C7",
        BlockType::Terminate0 => "T0",
        BlockType::Terminate1 => "T1",
        BlockType::Terminate2 => "T2",
        BlockType::Terminate3 => "T3",
        BlockType::Terminate4 => "T4",
        BlockType::Terminate5 => "T5",
        BlockType::Terminate6 => "T6",
        BlockType::Terminate7 => "T7",
    }
}

/// Counts hits as the RX chain runs (wrap it in a door's sink, or use it as the sink).
pub struct Collector {
    cov: Coverage,
    encoder: Encoder,
    /// The deficit idle count, gap by gap.
    deficit: Deficit,
    last_link: LinkFault,
}

impl Collector {
    /// A collector; `ifg` is the nominal IFG the deficit idle count is followed with (12).
    pub fn new(name: &str, ifg: u16) -> Self {
        let mut cov = Coverage::plan();
        cov.runs.push(name.to_string());
        Self {
            cov,
            encoder: Encoder::new(EncoderConfig::default()),
            deficit: Deficit::new(ifg),
            last_link: LinkFault::Ok,
        }
    }

    fn block(&mut self, b: &Block) {
        let bin = match b.sync {
            SyncHeader::DATA => 0,
            SyncHeader::CONTROL => {
                let ty = (b.payload & 0xff) as u8;
                match BlockType::ALL.iter().position(|t| *t as u8 == ty) {
                    Some(i) => i + 1,
                    None => BlockType::ALL.len() + 1,
                }
            }
            _ => BlockType::ALL.len() + 2,
        };
        self.cov.hit(G_FORMAT, bin);
    }

    fn word(&mut self, w: &XgmiiWord) {
        for lane in 0..8 {
            if !w.is_control(lane) {
                continue;
            }
            let c = w.octet(lane);
            if c == ControlChar::TERMINATE.0 {
                self.cov.hit(G_TERM, lane);
            } else if c == ControlChar::SIGNAL.0 && (lane == 0 || lane == 4) {
                self.cov.hit(G_OS, 4);
            } else if c == ControlChar::LPI.0 && lane == 0 {
                self.cov.hit(G_OS, 5);
            }
        }
        for col in 0..2 {
            if w.is_control(col * 4) && w.octet(col * 4) == ControlChar::SEQUENCE.0 {
                let bin = match FaultKind::in_column(*w, col) {
                    Some(FaultKind::LocalFault) => 0,
                    Some(FaultKind::RemoteFault) => 1,
                    Some(FaultKind::LinkInterruption) => 2,
                    None => 3,
                };
                self.cov.hit(G_OS, bin);
            }
        }
        let e = self.encoder.step(*w);
        self.tx_arrow(e.from, e.class.letter(), e.to);
    }

    fn tx_arrow(&mut self, from: TxState, class: char, to: TxState) {
        if let Some(i) = TX_ARROWS
            .iter()
            .position(|&(f, c, t)| f == from.name() && c == class && t == to.name())
        {
            self.cov.hit(G_TX, i);
        }
    }

    /// Ends the run: lock and BER events from the chain's summary; returns the coverage.
    pub fn finish(mut self, pcs: &PcsSummary) -> Coverage {
        if let Some(l) = pcs.lock_acquired {
            if pcs.input == crate::rx::StreamKind::Bits {
                self.cov.hit(G_LOCK, L_ACQUIRED);
                if l.slips > 0 {
                    self.cov.hit(G_LOCK, L_SLIPPED);
                }
            }
        }
        for _ in &pcs.lock_losses {
            self.cov.hit(G_LOCK, L_LOST);
        }
        for _ in &pcs.relocks {
            self.cov.hit(G_LOCK, L_REGAINED);
        }
        for _ in &pcs.hi_ber_episodes {
            self.cov.hit(G_LOCK, L_HI_BER);
        }
        for _ in &pcs.hi_ber_clears {
            self.cov.hit(G_LOCK, L_CLEARED);
        }
        self.cov
    }
}

impl RxSink for Collector {
    fn wants_blocks(&self) -> bool {
        true
    }

    fn wants_events(&self) -> bool {
        true
    }

    fn words(
        &mut self,
        _first: u64,
        words: &[XgmiiWord],
        blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        for w in words {
            self.word(w);
        }
        // A transfer without a block (reset fill, the training block) is a zero block here.
        for b in blocks.unwrap_or_default() {
            if *b
                != (Block {
                    sync: SyncHeader::from_bits(0),
                    payload: 0,
                })
            {
                self.block(b);
            }
        }
        Ok(())
    }

    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        let class = crate::rx::CLASSES
            .iter()
            .position(|c| *c == f.class)
            .unwrap_or(0);
        self.cov.hit(G_CLASS, class);
        if f.class != RxClass::Fragment {
            self.cov.hit(G_START, usize::from(f.start.lane == 4));
        }
        let len = f.data.len();
        let bin = LEN_BINS
            .iter()
            .position(|&(_, max)| len <= max)
            .unwrap_or(0);
        self.cov.hit(G_LEN, bin);
        if let Some(g) = f.gap_octets {
            let bin = match g {
                0..=8 => 0,
                9..=15 => (g - 8) as usize,
                16..=31 => 8,
                _ => 9,
            };
            self.cov.hit(G_IFG, bin);
            // The deficit idle count a transmitter had after this gap (as GapCheck judges).
            match self.deficit.gap(g) {
                Ok(d) => self.cov.hit(G_DIC, d.min(3) as usize),
                Err(_) => self.cov.hit(G_DIC, 4),
            }
        }
        Ok(())
    }

    fn rx_event(&mut self, _block: u64, e: &RxEvent) {
        if e.link_down {
            let n = RX_ARROWS.len();
            self.cov.hit(G_RX, n);
            return;
        }
        if e.by_block {
            return;
        }
        let class = e.class.letter();
        if let Some(i) = RX_ARROWS
            .iter()
            .position(|&(f, c, t)| f == e.from.name() && c == class && t == e.to.name())
        {
            self.cov.hit(G_RX, i);
        }
    }

    fn link_fault(&mut self, _block: u64, status: LinkStatus) {
        let bin = |k: FaultKind| match k {
            FaultKind::LocalFault => 0,
            FaultKind::RemoteFault => 2,
            FaultKind::LinkInterruption => 4,
        };
        match (self.last_link, status.0) {
            (LinkFault::Ok, LinkFault::Fault(k)) => self.cov.hit(G_LINK, bin(k)),
            (LinkFault::Fault(k), LinkFault::Ok) => self.cov.hit(G_LINK, bin(k) + 1),
            (LinkFault::Fault(a), LinkFault::Fault(b)) if a != b => {
                self.cov.hit(G_LINK, bin(a) + 1);
                self.cov.hit(G_LINK, bin(b));
            }
            _ => {}
        }
        self.last_link = status.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcs_core::{Decoder, DecoderConfig, RxLink};
    use std::collections::BTreeSet;

    use crate::gen::{block_of as rx_block, word_of as tx_word};

    /// Blocks that take a fresh decoder to each state (the state after the last one).
    fn to_state(s: &str) -> Vec<Block> {
        match s {
            "RX_INIT" => vec![],
            "RX_C" => vec![rx_block('C')],
            "RX_D" => vec![rx_block('C'), rx_block('S')],
            "RX_T" => vec![rx_block('C'), rx_block('S'), rx_block('T')],
            _ => vec![rx_block('E')],
        }
    }

    /// Every (state, R_TYPE, R_TYPE_NEXT) through the core's decoder: the arrows it takes are
    /// exactly the plan's (a second reading of Fig. 49-17 against the one in pcs-core).
    #[test]
    fn the_rx_arrows_are_the_cores() {
        let mut seen = BTreeSet::new();
        for from in ["RX_INIT", "RX_C", "RX_D", "RX_T", "RX_E"] {
            for class in ['C', 'S', 'D', 'T', 'E'] {
                for next in ['C', 'S', 'D', 'T', 'E'] {
                    let mut d = Decoder::new(DecoderConfig::default());
                    let mut last = None;
                    for b in to_state(from)
                        .into_iter()
                        .chain([rx_block(class), rx_block(next)])
                    {
                        last = d.push(b, RxLink::UP);
                    }
                    let e = last.expect("an event for the block under test");
                    // (RX_T is reached only when the block after the terminate is S or C.)
                    if from != "RX_T" || matches!(class, 'S' | 'C') {
                        assert_eq!(e.from.name(), from, "{from} {class} {next}");
                    }
                    assert_eq!(e.class.letter(), class);
                    seen.insert((e.from.name(), class, e.to.name()));
                }
            }
        }
        let plan: BTreeSet<_> = RX_ARROWS.iter().copied().collect();
        assert_eq!(seen, plan);
    }

    #[test]
    fn the_tx_arrows_are_the_cores() {
        let mut seen = BTreeSet::new();
        for from in ["TX_INIT", "TX_C", "TX_D", "TX_T", "TX_E"] {
            let path: Vec<char> = match from {
                "TX_INIT" => vec![],
                "TX_C" => vec!['C'],
                "TX_D" => vec!['C', 'S'],
                "TX_T" => vec!['C', 'S', 'T'],
                _ => vec!['E'],
            };
            for class in ['C', 'S', 'D', 'T', 'E'] {
                let mut e = Encoder::new(EncoderConfig::default());
                for &c in &path {
                    e.step(tx_word(c));
                }
                let ev = e.step(tx_word(class));
                assert_eq!((ev.from.name(), ev.class.letter()), (from, class));
                seen.insert((from, class, ev.to.name()));
            }
        }
        let plan: BTreeSet<_> = TX_ARROWS.iter().copied().collect();
        assert_eq!(seen, plan);
    }

    #[test]
    fn merge_adds_bin_by_bin_and_keeps_unknown_bins() {
        let mut a = Coverage::plan();
        a.runs.push("a".into());
        a.hit(G_TERM, 3);
        let mut b = Coverage::plan();
        b.runs.push("b".into());
        b.hit(G_TERM, 3);
        b.hit(G_CLASS, 0);
        b.groups[G_CLASS].bins.push(Bin {
            name: "from a later version".into(),
            hits: 2,
        });
        a.merge(&b);
        assert_eq!(a.runs, ["a", "b"]);
        assert_eq!(a.groups[G_TERM].bins[3].hits, 2);
        assert_eq!(a.groups[G_CLASS].bins[0].hits, 1);
        assert_eq!(a.groups[G_CLASS].bins.last().unwrap().hits, 2);
        let (hit, n) = a.totals();
        assert_eq!((hit, n), (3, Coverage::plan().totals().1 + 1));
    }
}
