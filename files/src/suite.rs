//! A conformance suite on disk (`baser gen --suite DIR`), for a bench that cannot run the
//! Python catalogue (a SystemVerilog bench through the DPI-C package):
//!
//! ```text
//! DIR/index.json               the suite: settings, and per case name, clause, title, kind,
//!                              needs and its files
//! DIR/<case>.bits              a receive case's line as sent: serdes bits, bit 0 of byte 0
//!                              first, its 66-bit clocks back to back (slips made), zero padded
//! DIR/<case>.expected.json     a receive case's outcome: the model's frames, status levels as
//!                              they changed, counters, the levels the standard demands
//! DIR/<case>.pcap              a transmit case's frames (without FCS; `aborts`: those sent
//!                              with the abort bit), judged by `baser check --blocks`
//! DIR/<case>.receive.bits      a transmit case's line for the DUT's receiver (`tx-link-fault`),
//!                              as `.bits`, from the run's first clock (idles after it)
//! DIR/<case>.pattern.json      a test-pattern case's run (`rx-prbs31`, `tx-prbs31`): the
//!                              clocks its test-pattern enable is high, the clocks judged, the
//!                              bits flipped and the count its error counter must move by
//!                              (its `.bits`: the DUT's serdes input, as a receive case's)
//! ```
//!
//! A test-pattern case is listed with `"test_pattern": true`; the DPI-C replay takes it
//! through `baser_case_pattern_open` ([`read_pattern_case`]), not `baser_case_open`.

use crate::bits::BitsWriter;
use crate::pcap::FrameWriter;
use crate::InputError;
use baser_engine::conformance::{self, Case, Expected, Kind, Params, Stimulus};
use pcs_core::{Block, SyncHeader};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The index of a suite (`index.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteIndex {
    /// Who made it.
    pub made_by: String,
    /// The line rate: `10g` or `25g` (the expected outcomes are the model's at that rate).
    pub rate: String,
    /// The receiver's largest good frame, FCS included, the stimulus was made for.
    pub max_frame_length: usize,
    /// The DUT's BER timer in blocks the stimulus and the model's BER monitor were made for.
    pub ber_window_blocks: usize,
    /// The cases, in the catalogue's order.
    pub cases: Vec<SuiteCase>,
}

/// One case of a suite.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteCase {
    /// Its name.
    pub name: String,
    /// The clauses it checks.
    pub clause: String,
    /// What it sends and demands.
    pub title: String,
    /// `rx` or `tx`.
    pub kind: Kind,
    /// What a DUT needs for it (`status.hi_ber`, `serdes_rx`, `rx_axis`, ...).
    pub needs: Vec<String>,
    /// It needs the DUT's BER timer to be the standard's 125 µs.
    pub standard_ber_timer: bool,
    /// A receive case's line (`.bits`), a transmit case's frames (`.pcap`).
    pub stream: String,
    /// A receive case's serdes clocks in its line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units: Option<usize>,
    /// A receive case's expected outcome (`.expected.json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// A transmit case's frames sent with the abort bit (0-based).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub aborts: Vec<usize>,
    /// A transmit case's line for the DUT's receiver (`.receive.bits`; none: idles).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub receive: Option<String>,
    /// Its serdes clocks.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub receive_units: Option<usize>,
    /// A test-pattern case: its run is `<case>.pattern.json` ([`SuitePattern`]).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub test_pattern: bool,
}

/// A test-pattern case's run (`<case>.pattern.json`), clocks counted from the first of its
/// `.bits` (the DUT's serdes input).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuitePattern {
    /// The case.
    pub case: String,
    /// The clocks `[on, off)` the DUT's test-pattern enable (rx or tx) is high.
    pub enable: (u64, u64),
    /// `rx-prbs31`: the clocks `[from, until)` the DUT's error counter is summed over;
    /// `tx-prbs31`: the clocks of its serdes output the model's PRBS31 checker must pass.
    pub window: (u64, u64),
    /// `rx-prbs31`: the line bits flipped (clock, bit of 66, bit 0 the first sent).
    pub errors: Vec<(u64, u32)>,
    /// `rx-prbs31`: what the error counter must move by over the window.
    pub expected_errors: u64,
    /// The PRBS31 is the complement of the LFSR's output (the suite's `--prbs31-inverted`).
    pub inverted: bool,
}

fn out_err(path: &Path) -> impl Fn(std::io::Error) -> InputError + '_ {
    move |e| InputError::io(path, &e)
}

fn create(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, InputError> {
    std::fs::File::create(path)
        .map(std::io::BufWriter::new)
        .map_err(out_err(path))
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), InputError> {
    crate::report::write_json(path, value).map_err(out_err(path))
}

/// Writes the cases (all: `names` empty) to `dir` (made if missing) with their files and
/// `index.json`; returns the index.
///
/// # Errors
/// An unknown case name (the message lists the catalogue's), or a file that cannot be
/// written.
pub fn write(
    dir: &Path,
    names: &[String],
    params: &Params,
    made_by: &str,
) -> Result<SuiteIndex, InputError> {
    let chosen: Vec<&Case> = if names.is_empty() {
        conformance::cases_at(params.rate).collect()
    } else {
        let found: Result<Vec<_>, String> = names.iter().map(|n| at_rate(n, params)).collect();
        found.map_err(|e| InputError::file(dir, e))?
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| InputError::file(dir, format!("cannot make the suite folder: {e}")))?;
    let mut index = SuiteIndex {
        made_by: made_by.to_string(),
        rate: params.rate.name().into(),
        max_frame_length: params.max_frame_length,
        ber_window_blocks: params.ber_window_blocks,
        cases: Vec::new(),
    };
    for case in chosen {
        index.cases.push(write_case(dir, case, params)?);
    }
    write_json(&dir.join("index.json"), &index)?;
    Ok(index)
}

/// The case `name`, if it applies at the suite's rate.
fn at_rate(name: &str, params: &Params) -> Result<&'static Case, String> {
    let case = conformance::find(name)?;
    if case.is_at(params.rate) {
        return Ok(case);
    }
    let why = conformance::applies(case, params).err().unwrap_or_default();
    Err(format!("no case `{name}` at {}: {why}", params.rate))
}

fn write_case(dir: &Path, case: &Case, params: &Params) -> Result<SuiteCase, InputError> {
    let stimulus = conformance::stimulus(case, params).map_err(|e| InputError::file(dir, e))?;
    let mut entry = SuiteCase {
        name: case.name.into(),
        clause: case.clause.into(),
        title: case.title.into(),
        kind: case.kind,
        needs: case.needs(),
        standard_ber_timer: case.standard_ber_timer,
        stream: String::new(),
        units: None,
        expected: None,
        aborts: Vec::new(),
        receive: None,
        receive_units: None,
        test_pattern: false,
    };
    match stimulus {
        Stimulus::Pattern(run) => {
            entry.test_pattern = true;
            entry.stream = format!("{}.bits", case.name);
            write_units(&dir.join(&entry.stream), &run.units)?;
            entry.units = Some(run.units.len());
            let name = format!("{}.pattern.json", case.name);
            let pattern = SuitePattern {
                case: run.case,
                enable: run.enable,
                window: run.window,
                errors: run.errors,
                expected_errors: run.expected_errors,
                inverted: run.inverted,
            };
            write_json(&dir.join(&name), &pattern)?;
            entry.expected = Some(name);
        }
        Stimulus::Rx(_) => {
            let (units, exp) =
                conformance::rx_expected(case, params).map_err(|e| InputError::file(dir, e))?;
            entry.stream = format!("{}.bits", case.name);
            write_units(&dir.join(&entry.stream), &units)?;
            entry.units = Some(units.len());
            let name = format!("{}.expected.json", case.name);
            write_json(&dir.join(&name), &exp)?;
            entry.expected = Some(name);
        }
        Stimulus::Tx(frames, aborts) => {
            entry.stream = format!("{}.pcap", case.name);
            let path = dir.join(&entry.stream);
            let mut w = FrameWriter::new(create(&path)?).map_err(out_err(&path))?;
            for (i, f) in frames.iter().enumerate() {
                let at = std::time::Duration::from_micros(i as u64);
                w.write(at, f).map_err(out_err(&path))?;
            }
            w.finish()
                .and_then(|mut f| f.flush())
                .map_err(out_err(&path))?;
            entry.aborts = aborts;
            if let Some(receive) =
                conformance::tx_receive(case).map_err(|e| InputError::file(dir, e))?
            {
                let name = format!("{}.receive.bits", case.name);
                write_units(&dir.join(&name), &receive)?;
                entry.receive = Some(name);
                entry.receive_units = Some(receive.len());
            }
        }
    }
    Ok(entry)
}

/// Writes 66-bit clocks as a `.bits` stream.
fn write_units(path: &Path, units: &[Block]) -> Result<(), InputError> {
    let mut w = BitsWriter::new(create(path)?);
    for &u in units {
        w.write(u).map_err(out_err(path))?;
    }
    w.finish(None).map_err(out_err(path))?;
    Ok(())
}

/// Reads `units` 66-bit clocks of a `.bits` stream.
fn read_units(path: &Path, units: usize) -> Result<Vec<Block>, InputError> {
    let bytes = std::fs::read(path).map_err(out_err(path))?;
    if bytes.len() * 8 < units * 66 {
        return Err(InputError::file(
            path,
            format!(
                "{} bits, the index says {units} clocks of 66",
                bytes.len() * 8
            ),
        ));
    }
    Ok((0..units).map(|k| unit_at(&bytes, 66 * k)).collect())
}

/// A receive case read back from a suite: its entry, expected outcome and serdes clocks.
pub struct SuiteRxCase {
    /// Its entry in the index.
    pub entry: SuiteCase,
    /// Its expected outcome.
    pub expected: Expected,
    /// Its line's 66-bit serdes clocks.
    pub units: Vec<Block>,
}

/// Reads `index.json` of the suite in `dir`.
///
/// # Errors
/// The index is missing or malformed.
pub fn read_index(dir: &Path) -> Result<SuiteIndex, InputError> {
    let path = dir.join("index.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        InputError::file(
            &path,
            format!("{e} (a suite folder is made by `baser gen --suite DIR`)"),
        )
    })?;
    serde_json::from_str(&text).map_err(|e| InputError::file(&path, e.to_string()))
}

/// The index entry of case `name` of the suite in `dir`, and the index's path.
fn entry(dir: &Path, name: &str) -> Result<(SuiteCase, PathBuf), InputError> {
    let index = read_index(dir)?;
    let index_path = dir.join("index.json");
    match index.cases.into_iter().find(|c| c.name == name) {
        Some(e) => Ok((e, index_path)),
        None => Err(InputError::file(
            &index_path,
            format!("no case `{name}` in this suite"),
        )),
    }
}

/// A test-pattern case is refused by the receive and transmit readers, naming its reader.
fn not_pattern(entry: &SuiteCase, index_path: &Path) -> Result<(), InputError> {
    if !entry.test_pattern {
        return Ok(());
    }
    Err(InputError::file(
        index_path,
        format!(
            "case `{}` is a test-pattern case: its replay is baser_case_pattern_open ({})",
            entry.name,
            entry.expected.as_deref().unwrap_or_default()
        ),
    ))
}

/// Reads the receive case `name` of the suite in `dir`.
///
/// # Errors
/// No such case, a transmit case, or a missing or malformed file.
pub fn read_rx_case(dir: &Path, name: &str) -> Result<SuiteRxCase, InputError> {
    let (entry, index_path) = entry(dir, name)?;
    not_pattern(&entry, &index_path)?;
    let (Some(units), Some(exp)) = (entry.units, entry.expected.clone()) else {
        return Err(InputError::file(
            &index_path,
            format!("case `{name}` is a transmit case: its frames ({}) go to the DUT's transmitter and its line is judged by `baser check --blocks`", entry.stream),
        ));
    };
    let exp_path: PathBuf = dir.join(exp);
    let text = std::fs::read_to_string(&exp_path).map_err(out_err(&exp_path))?;
    let expected =
        serde_json::from_str(&text).map_err(|e| InputError::file(&exp_path, e.to_string()))?;
    let units = read_units(&dir.join(&entry.stream), units)?;
    Ok(SuiteRxCase {
        entry,
        expected,
        units,
    })
}

/// Reads the test-pattern case `name` of the suite in `dir`: its entry and its run (the
/// DUT's serdes input from its `.bits`, the rest from its `.pattern.json`).
///
/// # Errors
/// No such case, not a test-pattern case, or a missing or malformed file.
pub fn read_pattern_case(
    dir: &Path,
    name: &str,
) -> Result<(SuiteCase, conformance::pattern::PatternRun), InputError> {
    let (entry, index_path) = entry(dir, name)?;
    let (true, Some(units), Some(json)) = (entry.test_pattern, entry.units, entry.expected.clone())
    else {
        return Err(InputError::file(
            &index_path,
            format!("case `{name}` is not a test-pattern case: its replay is baser_case_open or baser_case_tx_open"),
        ));
    };
    let path = dir.join(json);
    let text = std::fs::read_to_string(&path).map_err(out_err(&path))?;
    let p: SuitePattern =
        serde_json::from_str(&text).map_err(|e| InputError::file(&path, e.to_string()))?;
    let units = read_units(&dir.join(&entry.stream), units)?;
    let run = conformance::pattern::PatternRun {
        case: p.case,
        units,
        enable: p.enable,
        window: p.window,
        errors: p.errors,
        expected_errors: p.expected_errors,
        inverted: p.inverted,
    };
    Ok((entry, run))
}

/// A transmit case read back from a suite: its entry, frames and receive line.
pub struct SuiteTxCase {
    /// Its entry in the index (`aborts`: the frames sent with the abort bit).
    pub entry: SuiteCase,
    /// Its frames, DA to the end of the payload.
    pub frames: Vec<Vec<u8>>,
    /// Its line for the DUT's receiver as sent, one block a clock from the first (none:
    /// idles).
    pub receive: Option<Vec<Block>>,
}

/// Reads the transmit case `name` of the suite in `dir`.
///
/// # Errors
/// No such case, a receive case, or a missing or malformed capture.
pub fn read_tx_case(dir: &Path, name: &str) -> Result<SuiteTxCase, InputError> {
    let (entry, index_path) = entry(dir, name)?;
    not_pattern(&entry, &index_path)?;
    if entry.kind != Kind::Tx {
        return Err(InputError::file(
            &index_path,
            format!("case `{name}` is a receive case: its line ({}) goes to the DUT's receiver (baser_case_open)", entry.stream),
        ));
    }
    let path = dir.join(&entry.stream);
    let mut r = crate::pcap::FrameReader::open(&path, false)?;
    let mut frames = Vec::new();
    while let Some(f) = r.next_ref() {
        frames.push(f?.data.to_vec());
    }
    let receive = match (&entry.receive, entry.receive_units) {
        (Some(name), Some(units)) => Some(read_units(&dir.join(name), units)?),
        (None, None) => None,
        _ => {
            return Err(InputError::file(
                &index_path,
                format!("case `{name}`: `receive` and `receive_units` come together"),
            ))
        }
    };
    Ok(SuiteTxCase {
        entry,
        frames,
        receive,
    })
}

/// The 66 bits from bit `at` of a stream (bit 0 of byte 0 first).
fn unit_at(bytes: &[u8], at: usize) -> Block {
    let mut unit = 0u128;
    for k in 0..66 {
        let bit = at + k;
        let b = bytes.get(bit / 8).copied().unwrap_or(0) >> (bit % 8) & 1;
        unit |= u128::from(b) << k;
    }
    Block {
        sync: SyncHeader::from_bits((unit & 3) as u8),
        payload: (unit >> 2) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_case_reads_back_as_the_engine_made_it() {
        let dir = std::env::temp_dir().join(format!("baser-suite-{}", std::process::id()));
        let names = vec![
            "rx-bit-slip".to_string(),
            "tx-abort".to_string(),
            "tx-link-fault".to_string(),
        ];
        let index = write(&dir, &names, &Params::default(), "test").unwrap();
        assert_eq!(index.cases.len(), 3);
        let lf = read_tx_case(&dir, "tx-link-fault").unwrap();
        let want = conformance::tx_receive(conformance::find("tx-link-fault").unwrap()).unwrap();
        assert!(want.is_some());
        assert_eq!(lf.receive, want);
        assert_eq!(read_tx_case(&dir, "tx-abort").unwrap().receive, None);
        assert_eq!(index.cases[1].aborts, [2]);
        let case = read_rx_case(&dir, "rx-bit-slip").unwrap();
        let Stimulus::Rx(line) = conformance::stimulus(
            conformance::find("rx-bit-slip").unwrap(),
            &Params::default(),
        )
        .unwrap() else {
            unreachable!()
        };
        assert_eq!(case.units, line.units());
        assert_eq!(
            case.expected.demands["block_lock"],
            [true, false, true, false, true]
        );
        let tx = read_rx_case(&dir, "tx-abort").err().unwrap().to_string();
        assert!(tx.contains("transmit case"), "{tx}");
        let tx = read_tx_case(&dir, "tx-abort").unwrap();
        let Stimulus::Tx(frames, aborts) =
            conformance::stimulus(conformance::find("tx-abort").unwrap(), &Params::default())
                .unwrap()
        else {
            unreachable!()
        };
        assert_eq!((tx.frames, tx.entry.aborts), (frames, aborts));
        let rx = read_tx_case(&dir, "rx-bit-slip").err().unwrap().to_string();
        assert!(rx.contains("receive case"), "{rx}");
        let unknown = write(&dir, &["rx-nope".into()], &Params::default(), "t")
            .err()
            .unwrap();
        assert!(
            unknown.to_string().contains("no case `rx-nope`"),
            "{unknown}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_25g_suite_says_its_rate_and_reads_back_at_it() {
        let dir = std::env::temp_dir().join(format!("baser-suite-25g-{}", std::process::id()));
        let params = Params {
            ber_window_blocks: 1000,
            ..Params::at(baser_engine::fec::Rate::G25)
        };
        let names = vec!["rx-hi-ber-97".to_string()];
        let index = write(&dir, &names, &params, "test").unwrap();
        assert_eq!(
            (index.rate.as_str(), index.ber_window_blocks),
            ("25g", 1000)
        );
        assert_eq!(read_index(&dir).unwrap(), index);
        let case = read_rx_case(&dir, "rx-hi-ber-97").unwrap();
        let (units, exp) =
            conformance::rx_expected(conformance::find("rx-hi-ber-97").unwrap(), &params).unwrap();
        assert_eq!((case.units, case.expected), (units, exp));
        let ten = vec!["rx-hi-ber-16".to_string()];
        let e = write(&dir, &ten, &params, "test")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no case `rx-hi-ber-16` at 25g"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_test_pattern_case_is_written_with_its_run_and_the_replay_refuses_it() {
        let dir = std::env::temp_dir().join(format!("baser-suite-prbs-{}", std::process::id()));
        let params = Params {
            prbs31_inverted: true,
            ..Params::default()
        };
        let names = vec!["rx-prbs31".to_string(), "tx-prbs31".to_string()];
        let index = write(&dir, &names, &params, "test").unwrap();
        assert!(index.cases.iter().all(|c| c.test_pattern));
        let text = std::fs::read_to_string(dir.join("rx-prbs31.pattern.json")).unwrap();
        let p: SuitePattern = serde_json::from_str(&text).unwrap();
        let run = conformance::pattern::run("rx-prbs31", true).unwrap();
        assert_eq!(
            (p.enable, p.window, p.expected_errors, p.inverted),
            (run.enable, run.window, 36, true)
        );
        assert_eq!(p.errors, run.errors);
        let units = read_units(&dir.join("rx-prbs31.bits"), run.units.len()).unwrap();
        assert_eq!(units, run.units);
        let (entry, back) = read_pattern_case(&dir, "rx-prbs31").unwrap();
        assert_eq!((entry.name.as_str(), back), ("rx-prbs31", run));
        let e = read_pattern_case(&dir, "rx-nope")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no case `rx-nope`"), "{e}");
        for e in [
            read_rx_case(&dir, "rx-prbs31").err().unwrap().to_string(),
            read_tx_case(&dir, "tx-prbs31").err().unwrap().to_string(),
        ] {
            assert!(
                e.contains("is a test-pattern case") && e.contains(".pattern.json"),
                "{e}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
