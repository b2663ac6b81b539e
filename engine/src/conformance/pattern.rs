//! The test-pattern cases (49.2.8, 49.2.12): `rx-prbs31` drives PRBS31 with isolated bit
//! errors into a DUT whose receive test-pattern checker is on and judges its error counter;
//! `tx-prbs31` turns the DUT's PRBS31 generator on and judges its line with the model's
//! checker.
//!
//! ```text
//!  rx-prbs31, clocks of the DUT's serdes input:
//!  | LEAD idles | PRBS31, PATTERN_BLOCKS blocks, bits flipped at ERRORS      | SETTLE idles |
//!               ^ +ENABLE_AT: the adapter raises the DUT's rx test-pattern enable
//!                     ^ +COUNT_FROM: its error counter is summed from here
//!                                                 +COUNT_UNTIL ^   ^ +DISABLE_AT: lowered
//!  tx-prbs31, clocks of the DUT's serdes output:
//!  | LEAD clocks | tx test-pattern enable high for PATTERN_BLOCKS clocks | SETTLE clocks |
//!                      ^ +JUDGE_FROM ... +PATTERN_BLOCKS: the model's checker counts nothing
//! ```
//!
//! The PRBS31 polarity (whether the stream is the LFSR's output or its complement) is a U
//! fact (`pcs_core::Prbs31Polarity`): the DUT's is the adapter's setting. Block lock, hi_ber
//! and frames are not judged in these cases: in PRBS31 mode the sync headers are the
//! pattern's (lock and slips are suspended, 49.2.12).

use super::cases::{LEAD, SETTLE};
use super::line::Line;
use pcs_core::{Block, Prbs31Checker, Prbs31Generator, Prbs31Polarity, SyncHeader};

/// Blocks of the pattern (the clocks the DUT's test-pattern enable can be high).
pub const PATTERN_BLOCKS: usize = 1500;
/// Clocks into the pattern at which the DUT's receive test-pattern enable rises.
pub const ENABLE_AT: usize = 16;
/// Clocks into the pattern from which the DUT's error counter is summed: its checker has
/// had 31 bits to synchronize on, and a pipeline of up to 64 clocks has passed them on.
pub const COUNT_FROM: usize = 128;
/// Clocks into the pattern until which it is summed: the idles after the pattern (every
/// bit of them an error to a PRBS31 checker) have not reached its counter.
pub const COUNT_UNTIL: usize = PATTERN_BLOCKS - 24;
/// Clocks into the pattern at which the enable falls.
pub const DISABLE_AT: usize = PATTERN_BLOCKS - 16;
/// Clocks after the transmit enable rises from which the DUT's line is judged (its
/// generator's pipeline).
pub const JUDGE_FROM: usize = 64;

/// The bits `rx-prbs31` flips: (block into the pattern, bit of its 66, bit 0 the first sent:
/// 0 and 1 the sync header). Each is at least 66 bits from the next, so each is counted three
/// times (itself, and in the predictions of the bits 28 and 31 after it, 49.2.12), and all
/// lie between [`COUNT_FROM`] plus a pipeline and [`COUNT_UNTIL`].
pub const ERRORS: [(usize, u32); 12] = [
    (300, 0),
    (360, 1),
    (420, 2),
    (480, 33),
    (540, 65),
    (600, 10),
    (700, 40),
    (800, 63),
    (900, 64),
    (1000, 5),
    (1100, 20),
    (1200, 50),
];

/// A test-pattern run: what is driven, when the DUT's enable is high, and what it must count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternRun {
    /// The case.
    pub case: String,
    /// The serdes clocks of the DUT's input as sent (`rx-prbs31`: scrambled idles, the
    /// pattern with its errors, scrambled idles; `tx-prbs31`: scrambled idles).
    pub units: Vec<Block>,
    /// The clocks `[on, off)` the DUT's test-pattern enable is high.
    pub enable: (u64, u64),
    /// `rx-prbs31`: the clocks `[from, until)` its error counter is summed over;
    /// `tx-prbs31`: the clocks of its line the model's checker judges.
    pub window: (u64, u64),
    /// The line clocks and bits flipped (`rx-prbs31`).
    pub errors: Vec<(u64, u32)>,
    /// What the DUT's error counter must move by over the window (`rx-prbs31`): the model's
    /// checker's count of the pattern.
    pub expected_errors: u64,
    /// The pattern is the complement of the LFSR's output.
    pub inverted: bool,
}

/// The polarity a DUT sends and checks.
pub const fn polarity(inverted: bool) -> Prbs31Polarity {
    if inverted {
        Prbs31Polarity::Inverted
    } else {
        Prbs31Polarity::Normal
    }
}

fn idles(n: usize) -> Vec<Block> {
    let mut l = Line::default();
    l.idle(n);
    l.scrambled()
}

fn flip(b: &mut Block, bit: u32) {
    if bit < 2 {
        b.sync = SyncHeader::from_bits(b.sync.to_bits() ^ (1 << bit));
    } else {
        b.payload ^= 1 << (bit - 2);
    }
}

/// The run of `rx-prbs31` for a DUT of `inverted` polarity.
pub fn rx_run(inverted: bool) -> PatternRun {
    let mut g = Prbs31Generator::new(Prbs31Generator::DEFAULT_STATE, polarity(inverted));
    let mut pattern = vec![Block::IDLE; PATTERN_BLOCKS];
    g.fill_blocks(&mut pattern);
    for &(block, bit) in &ERRORS {
        if let Some(b) = pattern.get_mut(block) {
            flip(b, bit);
        }
    }
    // the model's checker, synchronized on the pattern's first block, counts the rest
    let mut c = Prbs31Checker::new(polarity(inverted));
    let expected_errors = pattern.iter().map(|&b| c.check_block(b)).sum();
    let at = |k: usize| (LEAD + k) as u64;
    let mut units = idles(LEAD);
    units.extend(pattern);
    units.extend(idles(SETTLE));
    PatternRun {
        case: "rx-prbs31".into(),
        units,
        enable: (at(ENABLE_AT), at(DISABLE_AT)),
        window: (at(COUNT_FROM), at(COUNT_UNTIL)),
        errors: ERRORS.iter().map(|&(b, bit)| (at(b), bit)).collect(),
        expected_errors,
        inverted,
    }
}

/// The run of `tx-prbs31` for a DUT of `inverted` polarity: idles into its receiver, its
/// transmit enable high for [`PATTERN_BLOCKS`] clocks after the lead.
pub fn tx_run(inverted: bool) -> PatternRun {
    let on = LEAD as u64;
    let off = (LEAD + PATTERN_BLOCKS) as u64;
    PatternRun {
        case: "tx-prbs31".into(),
        units: idles(LEAD + PATTERN_BLOCKS + SETTLE),
        enable: (on, off),
        window: (on + JUDGE_FROM as u64, off),
        errors: Vec::new(),
        expected_errors: 0,
        inverted,
    }
}

/// The run of the test-pattern case `name`.
///
/// # Errors
/// Not a test-pattern case.
pub fn run(name: &str, inverted: bool) -> Result<PatternRun, String> {
    match name {
        "rx-prbs31" => Ok(rx_run(inverted)),
        "tx-prbs31" => Ok(tx_run(inverted)),
        _ => Err(format!(
            "{name} is not a test-pattern case (rx-prbs31, tx-prbs31)"
        )),
    }
}

fn polarity_name(inverted: bool) -> &'static str {
    if inverted {
        "inverted"
    } else {
        "not inverted"
    }
}

/// `rx-prbs31`'s verdict: the DUT's error counter moved by `counted` over the run's window.
pub fn judge_rx(run: &PatternRun, counted: u64) -> Vec<String> {
    if counted == run.expected_errors {
        return Vec::new();
    }
    let n = run.errors.len();
    let mut d = vec![format!(
        "test-pattern error counter: the DUT counted {counted} over clocks {}..{} of PRBS31 ({}), the model's checker {} ({n} line bits flipped, each counted 3 times: itself and the two predictions it feeds, 28 and 31 bits on, 49.2.12)",
        run.window.0,
        run.window.1,
        polarity_name(run.inverted),
        run.expected_errors,
    )];
    if counted == 0 {
        d.push("no error counted: is the DUT's checker enabled by the adapter's prbs31 rx_enable, and its PRBS31 built in (a parameter)?".into());
    } else if counted > run.expected_errors.saturating_mul(10) {
        d.push(format!(
            "far more than flipped: the DUT checks the other polarity ({} in the adapter: prbs31_inverted), or its checker is not self-synchronizing",
            polarity_name(run.inverted)
        ));
    } else if counted < run.expected_errors {
        let flipped: Vec<String> = run
            .errors
            .iter()
            .map(|&(clock, bit)| {
                let part = if bit < 2 { "sync header" } else { "payload" };
                format!("clock {clock} bit {bit} ({part})")
            })
            .collect();
        d.push(format!(
            "fewer than the model: the flipped bits are {} (does the checker skip the sync headers, 49.2.12 checks all 66 bits?)",
            flipped.join(", ")
        ));
    }
    d
}

/// The PRBS31 bit errors the model's checker of `inverted` polarity finds in `line` after its
/// first block, and where the first one is (index into `line`, bit of 66).
fn check(line: &[Block], inverted: bool) -> (u64, Option<(usize, u32)>) {
    let mut c = Prbs31Checker::new(polarity(inverted));
    let mut total = 0;
    let mut first = None;
    for (k, &b) in line.iter().enumerate() {
        let h = c.check_bits(u64::from(b.sync.to_bits()), 2);
        let p = c.check_bits(b.payload, 64);
        if first.is_none() && h + p > 0 {
            // the block, and whether its header (bit 0) or its payload (bit 2) had the first
            first = Some((k, if h > 0 { 0 } else { 2 }));
        }
        total += h + p;
    }
    (total, first)
}

/// `tx-prbs31`'s verdict: `line` is the DUT's serdes output, a block a clock from the run's
/// first clock.
pub fn judge_tx(run: &PatternRun, line: &[Block]) -> Vec<String> {
    let (from, until) = (run.window.0 as usize, run.window.1 as usize);
    let Some(part) = line
        .get(from..until.min(line.len()))
        .filter(|p| p.len() > 1)
    else {
        return vec![format!(
            "the DUT's line has {} clocks: the run judges clocks {from}..{until}",
            line.len()
        )];
    };
    let (errors, first) = check(part, run.inverted);
    let constant =
        part.iter().all(|b| *b == part[0]) && (part[0].payload == 0 || part[0].payload == u64::MAX);
    if errors == 0 && !constant {
        return Vec::new();
    }
    let on = run.enable.0;
    if constant {
        return vec![format!(
            "the DUT's line with its PRBS31 generator on (clock {on}) is constant ({:#x} a block, header {}): not a test pattern (49.2.8); is the enable mapped (the adapter's prbs31 tx_enable) and PRBS31 built in?",
            part[0].payload,
            part[0].sync.to_bits()
        )];
    }
    let (k, bit) = first.unwrap_or((0, 0));
    let where_ = if bit < 2 {
        "its sync header"
    } else {
        "its payload"
    };
    let mut d = vec![format!(
        "the DUT's line with its PRBS31 generator on (clock {on}): the model's PRBS31 checker ({}, 1 + x^28 + x^31 over all 66 bits, 49.2.8) finds {errors} bit errors in clocks {from}..{until}, the first in clock {} ({where_})",
        polarity_name(run.inverted),
        from + k
    )];
    let (other, _) = check(part, !run.inverted);
    if other == 0 {
        d.push(format!(
            "it is PRBS31 {}: set the adapter's prbs31_inverted to {}",
            polarity_name(!run.inverted),
            if run.inverted { "False" } else { "True" }
        ));
    } else {
        let headers = part.iter().map(|b| b.sync.to_bits()).collect::<Vec<_>>();
        if headers.iter().all(|&h| h == headers[0]) {
            d.push(format!(
                "every sync header is {}: the pattern must run through the headers too (49.2.8: the whole 66-bit stream)",
                headers[0]
            ));
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn good_line(inverted: bool, lag: usize) -> Vec<Block> {
        let run = tx_run(inverted);
        let mut line = run.units.clone();
        let mut g = Prbs31Generator::new(0x1234_5678, polarity(inverted));
        for b in line
            .iter_mut()
            .skip(run.enable.0 as usize + lag)
            .take(PATTERN_BLOCKS)
        {
            *b = g.next_block();
        }
        line
    }

    #[test]
    fn the_rx_run_counts_three_for_each_flipped_bit_where_the_dut_sums() {
        let run = rx_run(true);
        assert_eq!(run.expected_errors, 3 * ERRORS.len() as u64);
        assert_eq!(run.units.len(), LEAD + PATTERN_BLOCKS + SETTLE);
        // the DUT's checker (self-synchronizing, enabled at `on`) over the window counts the same
        let mut c = Prbs31Checker::new(Prbs31Polarity::Inverted);
        let mut counted = 0;
        for (k, &b) in run.units.iter().enumerate().skip(run.enable.0 as usize) {
            let e = c.check_block(b);
            if (run.window.0..run.window.1).contains(&(k as u64)) {
                counted += e;
            }
        }
        assert_eq!(counted, run.expected_errors);
        assert!(judge_rx(&run, counted).is_empty());
        // a checker that skips the sync headers misses the two flipped there
        let d = judge_rx(&run, counted - 6);
        assert!(
            d[0].contains("counted 30") && d[0].contains("model's checker 36"),
            "{d:?}"
        );
        assert!(d[1].contains("sync header"), "{d:?}");
        assert!(judge_rx(&run, 0)[1].contains("enabled"));
        assert!(judge_rx(&run, 50_000)[1].contains("other polarity"));
        // the pattern is the other polarity's complement
        let normal = rx_run(false);
        assert_eq!(normal.expected_errors, 36);
        let k = LEAD + 10;
        assert_eq!(normal.units[k].payload, !run.units[k].payload);
    }

    #[test]
    fn the_tx_verdict_passes_prbs31_from_any_state_and_names_what_is_wrong() {
        let run = tx_run(true);
        for lag in [0, 1, 7, 40] {
            assert_eq!(judge_tx(&run, &good_line(true, lag)), Vec::<String>::new());
        }
        // the other polarity: named
        let d = judge_tx(&run, &good_line(false, 2));
        assert!(
            d[1].contains("set the adapter's prbs31_inverted to False"),
            "{d:?}"
        );
        // a generator that sends a fixed header: the headers named
        let mut hdr = good_line(true, 2);
        for b in hdr.iter_mut() {
            b.sync = SyncHeader::DATA;
        }
        let d = judge_tx(&run, &hdr);
        assert!(d[1].contains("every sync header is 2"), "{d:?}");
        // idles (the enable not reaching the generator)
        let d = judge_tx(&run, &run.units);
        assert!(d[0].contains("bit errors"), "{d:?}");
        // a stuck line: the LFSR's lock-up state obeys the recurrence, yet is no pattern
        let stuck = vec![
            Block {
                sync: SyncHeader::from_bits(3),
                payload: u64::MAX
            };
            run.units.len()
        ];
        assert!(judge_tx(&run, &stuck)[0].contains("constant"));
        assert!(judge_tx(&run, &stuck[..10])[0].contains("has 10 clocks"));
    }

    #[test]
    fn every_flip_lies_inside_the_window_with_room_for_a_pipeline() {
        for &(b, bit) in &ERRORS {
            assert!(b >= COUNT_FROM + 64 && b + 64 < COUNT_UNTIL, "{b}");
            assert!(bit < 66);
        }
        assert!(ERRORS.windows(2).all(|w| w[1].0 > w[0].0 + 1));
        const { assert!(ENABLE_AT < COUNT_FROM && COUNT_UNTIL < DISABLE_AT) };
        assert!(run("rx-frames", true).is_err());
    }
}
