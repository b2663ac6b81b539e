//! `baser_case`: a receive case of a conformance suite (`baser gen --suite DIR`) replayed
//! into a DUT one serdes clock at a time and judged live (docs/conformance.md,
//! "SystemVerilog"): the engine's [`Replay`], translated. `baser_case_tx`: a transmit case,
//! its frames fed to the DUT's AXI-stream input and its serdes output judged: the engine's
//! [`TxReplay`]. The suite's files are read by `baser_files::suite`; the verdicts are the
//! engine's, in the model's words.

use super::{guard, handle, put, text, Fail, BASER_E_ARG, BASER_E_IO, BASER_E_STATE};
use baser_engine::case::Case;
use baser_engine::conformance::judge::{DutShape, TxShape};
use baser_engine::conformance::replay::{Replay, TxReplay};
use pcs_core::{Block, SyncHeader};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::path::Path;

/// What a string function returns past the last item or on error: `""`, never NULL (a DPI-C
/// `string` import cannot take NULL).
pub(crate) const EMPTY: &CStr = c"";

/// A receive case being replayed (opaque).
pub struct baser_case {
    replay: Replay,
    name: String,
    clause: String,
    /// The verdict, once asked for.
    divergences: Option<Vec<String>>,
    /// The last string handed out (valid until the next call on the handle).
    text: CString,
}

/// The status roles a DUT may report ([`baser_case_level`]).
const LEVELS: &[&str] = &[
    "block_lock",
    "hi_ber",
    "link_up",
    "local_fault",
    "remote_fault",
];
/// The pulse roles ([`baser_case_pulse`]).
const PULSES: &[&str] = &["bad_frame", "bad_fcs"];
/// The counter roles ([`baser_case_counter`]).
const COUNTERS: &[&str] = &["errored_blocks", "frames_good", "frames_bad", "fcs_errors"];

fn role<'a>(kind: &str, r: &'a str, known: &[&str]) -> Result<&'a str, Fail> {
    if known.contains(&r) {
        Ok(r)
    } else {
        Err(Fail::arg(format!(
            "{kind} role `{r}`: expected one of {}",
            known.join(", ")
        )))
    }
}

/// The DUT's shape from an options string: `fcs=1` (its frames hold their FCS; default 0),
/// `frames=0` (it delivers no frames: a PHY-only top), `pulses=bad_frame+bad_fcs` (the
/// pulse outputs it has; default none).
fn shape(options: &str) -> Result<DutShape, Fail> {
    let mut s = DutShape {
        frames: true,
        fcs_stripped: true,
        pulses: Vec::new(),
    };
    for word in options.split([' ', ',']).filter(|w| !w.is_empty()) {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| Fail::arg(format!("option `{word}`: expected key=value")))?;
        match k {
            "fcs" => s.fcs_stripped = !super::flag(k, v)?,
            "frames" => s.frames = super::flag(k, v)?,
            "pulses" => {
                for p in v.split('+').filter(|p| !p.is_empty()) {
                    s.pulses.push(role("pulse", p, PULSES)?.to_string());
                }
            }
            _ => {
                return Err(Fail::arg(format!(
                    "unknown option `{k}`: expected fcs, frames or pulses"
                )))
            }
        }
    }
    Ok(s)
}

/// Opens the receive case `name` of the suite in `suite_dir` (made by `baser gen --suite
/// DIR`) for a DUT described by `options` (`fcs=0|1`: its frames hold their FCS, default 0;
/// `frames=0|1`: it delivers frames, default 1; `pulses=bad_frame+bad_fcs`: its pulse
/// outputs, default none). Returns NULL on error ([`super::baser_last_error`]: no such
/// folder, case, a transmit case, a bad option).
///
/// # Safety
/// The strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn baser_case_open(
    suite_dir: *const c_char,
    name: *const c_char,
    options: *const c_char,
) -> *mut baser_case {
    guard(
        |_| std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            let (dir, name, options) = unsafe { (text(suite_dir)?, text(name)?, text(options)?) };
            let shape = shape(options)?;
            let case = baser_files::suite::read_rx_case(Path::new(dir), name)
                .map_err(|e| Fail::arg(e.to_string()))?;
            let c = baser_case {
                name: case.entry.name.clone(),
                clause: case.entry.clause.clone(),
                replay: Replay::new(case.expected, case.units, shape),
                divergences: None,
                text: CString::default(),
            };
            Ok(Box::into_raw(Box::new(c)))
        },
    )
}

/// Releases a case (NULL: nothing).
///
/// # Safety
/// `c` is NULL or a live handle; it is not used again.
#[no_mangle]
pub unsafe extern "C" fn baser_case_free(c: *mut baser_case) {
    if !c.is_null() {
        // SAFETY: the caller's contract: a handle of baser_case_open, released once.
        drop(unsafe { Box::from_raw(c) });
    }
}

/// The next serdes clock of the case's line: its first 2 bits in `header` (bit 0 first), the
/// next 64 in `data`. `slip`: the DUT asked for a bit slip (one line bit is dropped first).
/// Returns 1 for a clock, 0 once the line is out, or an error code.
///
/// # Safety
/// `c` is a live handle; `header` and `data` are writable.
#[no_mangle]
pub unsafe extern "C" fn baser_case_next(
    c: *mut baser_case,
    slip: i32,
    header: *mut u8,
    data: *mut u64,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        let Some(b) = c.replay.next(slip != 0) else {
            return Ok(0);
        };
        // SAFETY: the caller's contract.
        unsafe {
            put(header, b.sync.to_bits())?;
            put(data, b.payload)?;
        }
        Ok(1)
    })
}

/// A beat of the DUT's received frames (AXI-stream: `data` lane 0 in bits 7:0, `keep` the
/// valid octets, `last` the frame's last beat, `bad` its bad-frame flag there).
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_case_beat(
    c: *mut baser_case,
    data: u64,
    keep: u8,
    last: i32,
    bad: i32,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        let octets: Vec<u8> = (0..8)
            .filter(|k| keep >> k & 1 == 1)
            .map(|k| (data >> (8 * k)) as u8)
            .collect();
        c.replay.frame_octets(&octets, last != 0, bad != 0);
        Ok(0)
    })
}

/// This clock's level of a DUT status output: `role` one of `block_lock`, `hi_ber`,
/// `link_up`, `local_fault`, `remote_fault` (call it every clock for each output the DUT has).
///
/// # Safety
/// `c` is a live handle; `role` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn baser_case_level(
    c: *mut baser_case,
    role: *const c_char,
    value: i32,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let (c, r) = unsafe { (handle(c)?, text(role)?) };
        c.replay.level(self::role("status", r, LEVELS)?, value != 0);
        Ok(0)
    })
}

/// A DUT pulse output this clock: `role` `bad_frame` or `bad_fcs`; `high` its level (a
/// high clock counts once).
///
/// # Safety
/// `c` is a live handle; `role` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn baser_case_pulse(
    c: *mut baser_case,
    role: *const c_char,
    high: i32,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let (c, r) = unsafe { (handle(c)?, text(role)?) };
        let r = self::role("pulse", r, PULSES)?;
        if high != 0 {
            c.replay.pulse(r);
        }
        Ok(0)
    })
}

/// A DUT counter's value: `role` one of `errored_blocks`, `frames_good`, `frames_bad`,
/// `fcs_errors`. Give it before the first clock and after the last (the judge compares how
/// far it moved with the model's, modulo 2^32).
///
/// # Safety
/// `c` is a live handle; `role` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn baser_case_counter(
    c: *mut baser_case,
    role: *const c_char,
    value: i64,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let (c, r) = unsafe { (handle(c)?, text(role)?) };
        let v = u64::try_from(value).map_err(|_| Fail::arg("a negative counter value"))?;
        c.replay.counter(self::role("counter", r, COUNTERS)?, v);
        Ok(0)
    })
}

fn verdict(c: &mut baser_case) -> &[String] {
    c.divergences.get_or_insert_with(|| c.replay.verdict())
}

/// Writes a case's JSON report to `json` and its JUnit one to `junit` (`""`: none).
/// Divergence `k` of `divs` as a C string kept in `text` (valid until it is next set); `""`
/// past the last.
pub(crate) fn divergence_at(
    divs: &[String],
    k: i64,
    text: &mut CString,
) -> Result<*const c_char, Fail> {
    let k = usize::try_from(k).map_err(|_| Fail::arg("a negative index"))?;
    let Some(d) = divs.get(k) else {
        return Ok(EMPTY.as_ptr());
    };
    *text = CString::new(d.replace('\0', " ")).unwrap_or_default();
    Ok(text.as_ptr())
}

pub(crate) fn reports(
    json: &str,
    junit: &str,
    (name, clause, clocks): (&str, &str, u64),
    div: &[String],
) -> Result<(), Fail> {
    let verdict = if div.is_empty() { "pass" } else { "fail" };
    if !json.is_empty() {
        let doc = serde_json::json!({
            "case": name, "clause": clause, "verdict": verdict, "clocks": clocks,
            "divergences": div,
        });
        super::write_json(json, &doc)?;
    }
    if !junit.is_empty() {
        let test = format!("{name} ({clause})");
        let case = match div.first() {
            None => Case::pass("conformance", test),
            Some(first) => Case::fail("conformance", test, first, Some(div.join("\n"))),
        };
        baser_files::report::write_junit(Path::new(junit), "baser conformance", &[case])
            .map_err(|e| Fail(BASER_E_IO, format!("{junit}: {e}")))?;
    }
    Ok(())
}

/// Judges the run (what the DUT said so far against the case's expected outcome) and writes
/// a JSON report to `json_path` and a JUnit one to `junit_path` (NULL or `""`: none). Returns
/// the number of divergences (0: the DUT passes), or an error code.
///
/// # Safety
/// `c` is a live handle; the paths are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn baser_case_finish(
    c: *mut baser_case,
    json_path: *const c_char,
    junit_path: *const c_char,
) -> i64 {
    guard(super::code64, || {
        // SAFETY: the caller's contract.
        let (c, json, junit) = unsafe { (handle(c)?, text(json_path)?, text(junit_path)?) };
        let clocks = c.replay.clocks();
        let (name, clause) = (c.name.clone(), c.clause.clone());
        let div = verdict(c).to_vec();
        reports(json, junit, (&name, &clause, clocks), &div)?;
        Ok(div.len() as i64)
    })
}

/// Divergence `k` (0: the first) of the verdict, in the model's words; `""` past the last (or
/// on error). Valid until the next call on the handle.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_case_divergence(c: *mut baser_case, k: i64) -> *const c_char {
    guard(
        |_| EMPTY.as_ptr(),
        || {
            // SAFETY: the caller's contract.
            let c = unsafe { handle(c)? };
            let divs = verdict(c).to_vec();
            divergence_at(&divs, k, &mut c.text)
        },
    )
}

/// A transmit case being replayed (opaque).
pub struct baser_case_tx {
    replay: TxReplay,
    name: String,
    clause: String,
    /// The verdict, once asked for.
    divergences: Option<Vec<String>>,
    /// The last string handed out (valid until the next call on the handle).
    text: CString,
}

/// The DUT's transmitter from an options string: `ifg=12` (its IFG in octets, default 12),
/// `dic=0` (it does not run the deficit idle count; default 1).
fn tx_shape(options: &str) -> Result<TxShape, Fail> {
    let mut s = TxShape::default();
    for word in options.split([' ', ',']).filter(|w| !w.is_empty()) {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| Fail::arg(format!("option `{word}`: expected key=value")))?;
        match k {
            "ifg" => s.ifg = super::small(k, v)?,
            "dic" => s.dic = super::flag(k, v)?,
            _ => {
                return Err(Fail::arg(format!(
                    "unknown option `{k}`: expected ifg or dic"
                )))
            }
        }
    }
    Ok(s)
}

/// Opens the transmit case `name` of the suite in `suite_dir` (made by `baser gen --suite
/// DIR`) for a DUT described by `options` (`ifg=N`: its IFG, default 12; `dic=0|1`: it runs
/// the deficit idle count, default 1). Each clock: [`baser_case_tx_line`] takes the DUT's
/// serdes output, [`baser_case_tx_beat`] gives the AXI-stream beat to drive,
/// [`baser_case_tx_idle`] the idle line for its receiver. Returns NULL on error
/// ([`super::baser_last_error`]: no such folder, case, a receive case, a bad option).
///
/// # Safety
/// The strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn baser_case_tx_open(
    suite_dir: *const c_char,
    name: *const c_char,
    options: *const c_char,
) -> *mut baser_case_tx {
    guard(
        |_| std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            let (dir, name, options) = unsafe { (text(suite_dir)?, text(name)?, text(options)?) };
            let shape = tx_shape(options)?;
            let case = baser_files::suite::read_tx_case(Path::new(dir), name)
                .map_err(|e| Fail::arg(e.to_string()))?;
            let c = baser_case_tx {
                name: case.entry.name.clone(),
                clause: case.entry.clause.clone(),
                replay: match case.receive {
                    Some(r) => TxReplay::new(case.frames, case.entry.aborts, shape).with_receive(r),
                    None => TxReplay::new(case.frames, case.entry.aborts, shape),
                },
                divergences: None,
                text: CString::default(),
            };
            Ok(Box::into_raw(Box::new(c)))
        },
    )
}

/// Releases a transmit case (NULL: nothing).
///
/// # Safety
/// `c` is NULL or a live handle; it is not used again.
#[no_mangle]
pub unsafe extern "C" fn baser_case_tx_free(c: *mut baser_case_tx) {
    if !c.is_null() {
        // SAFETY: the caller's contract: a handle of baser_case_tx_open, released once.
        drop(unsafe { Box::from_raw(c) });
    }
}

/// The DUT's serdes output this clock, as it sends it: its first 2 line bits in `header`
/// (bit 0 first: data 2, control 1), the next 64 in `data` (scrambled). Returns 1 while the
/// case runs, 0 once it is done (every beat taken and 200 clocks without a data block, or
/// the clock budget spent), or an error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_case_tx_line(c: *mut baser_case_tx, header: u8, data: u64) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        let b = Block {
            sync: SyncHeader::from_bits(header),
            payload: data,
        };
        Ok(i32::from(c.replay.line(b)))
    })
}

/// The AXI-stream beat to drive this clock: `taken` is 1 when the beat driven the clock
/// before was taken at this clock's edge (`tvalid && tready`). Returns 1 with the beat in
/// `data` (octet k in bits 8k+7..8k), `keep` (`tkeep`), `last` (`tlast`) and `user` (1: the
/// frame is aborted, `tuser` on its last beat); 0 when there is none to drive (`tvalid`
/// low: the first 200 clocks, every beat taken); or an error code.
///
/// # Safety
/// `c` is a live handle; the outputs are writable.
#[no_mangle]
pub unsafe extern "C" fn baser_case_tx_beat(
    c: *mut baser_case_tx,
    taken: i32,
    data: *mut u64,
    keep: *mut u8,
    last: *mut u8,
    user: *mut u8,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        let beat = c
            .replay
            .beat(taken != 0)
            .unwrap_or(baser_engine::conformance::replay::Beat {
                data: 0,
                keep: 0,
                last: false,
                abort: false,
            });
        // SAFETY: the caller's contract.
        unsafe {
            put(data, beat.data)?;
            put(keep, beat.keep)?;
            put(last, u8::from(beat.last))?;
            put(user, u8::from(beat.abort))?;
        }
        Ok(i32::from(beat.keep != 0))
    })
}

/// The next clock of the DUT's receive line during a transmit case: an idle line (scrambled
/// `/I/` blocks, so that its RS sends frames, not Remote Fault), or the case's own line
/// where it has one (`tx-link-fault`: Local then Remote Fault between idles), then idles: 2
/// bits in `header`, 64 in `data`, as [`baser_case_next`] gives them. Call it once a clock.
/// Returns 0, or an error code.
///
/// # Safety
/// `c` is a live handle; `header` and `data` are writable.
#[no_mangle]
pub unsafe extern "C" fn baser_case_tx_idle(
    c: *mut baser_case_tx,
    header: *mut u8,
    data: *mut u64,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        let b = c.replay.idle();
        // SAFETY: the caller's contract.
        unsafe {
            put(header, b.sync.to_bits())?;
            put(data, b.payload)?;
        }
        Ok(0)
    })
}

/// Judges the run once [`baser_case_tx_line`] said it is done (the engine's transmit verdict
/// on the DUT's line: every frame received ok and bit exact, the gaps of the deficit idle
/// count, no aborted frame received ok) and writes a JSON report to `json_path` and a JUnit
/// one to `junit_path` (NULL or `""`: none). Returns the number of divergences (0: the DUT
/// passes), or an error code (`BASER_E_STATE`: the run is not done).
///
/// # Safety
/// `c` is a live handle; the paths are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn baser_case_tx_finish(
    c: *mut baser_case_tx,
    json_path: *const c_char,
    junit_path: *const c_char,
) -> i64 {
    guard(super::code64, || {
        // SAFETY: the caller's contract.
        let (c, json, junit) = unsafe { (handle(c)?, text(json_path)?, text(junit_path)?) };
        if c.divergences.is_none() {
            c.divergences = Some(c.replay.verdict().map_err(Fail::state)?);
        }
        let div = c.divergences.clone().unwrap_or_default();
        reports(json, junit, (&c.name, &c.clause, c.replay.clocks()), &div)?;
        Ok(div.len() as i64)
    })
}

/// Divergence `k` (0: the first) of a finished transmit case's verdict, in the model's words;
/// `""` past the last (or on error, or before [`baser_case_tx_finish`]). Valid until the next
/// call on the handle.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_case_tx_divergence(c: *mut baser_case_tx, k: i64) -> *const c_char {
    guard(
        |_| EMPTY.as_ptr(),
        || {
            // SAFETY: the caller's contract.
            let c = unsafe { handle(c)? };
            divergence_at(c.divergences.as_deref().unwrap_or_default(), k, &mut c.text)
        },
    )
}

thread_local! {
    static SUITE_TEXT: RefCell<CString> = RefCell::new(CString::default());
}

/// The name of case `k` (0-based, in the catalogue's order) of the suite in `suite_dir`
/// whose kind is `kind` (`"rx"`, `"tx"`: the cases `baser_case_open`/`baser_case_tx_open`
/// replay; `"pattern"`: the test-pattern cases, driven from their `.pattern.json`; NULL/`""`
/// for any); `""` past the last (or on
/// error: no such folder or index). Valid until the next call of this function on the thread.
///
/// # Safety
/// The strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn baser_suite_case(
    suite_dir: *const c_char,
    kind: *const c_char,
    k: i32,
) -> *const c_char {
    guard(
        |_| EMPTY.as_ptr(),
        || {
            // SAFETY: the caller's contract.
            let (dir, kind) = unsafe { (text(suite_dir)?, text(kind)?) };
            let index = baser_files::suite::read_index(Path::new(dir))
                .map_err(|e| Fail(BASER_E_STATE, e.to_string()))?;
            let k = usize::try_from(k).map_err(|_| Fail(BASER_E_ARG, "a negative index".into()))?;
            // "rx"/"tx": the cases the replay takes; "pattern": the test-pattern cases
            let want = |c: &&baser_files::suite::SuiteCase| match kind {
                "" => true,
                "pattern" => c.test_pattern,
                _ => !c.test_pattern && serde_json::to_value(c.kind).is_ok_and(|v| v == kind),
            };
            let Some(c) = index.cases.iter().filter(want).nth(k) else {
                return Ok(EMPTY.as_ptr());
            };
            let name = CString::new(c.name.clone()).unwrap_or_default();
            Ok(SUITE_TEXT.with(|t| {
                *t.borrow_mut() = name;
                t.borrow().as_ptr()
            }))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use baser_engine::conformance::Params;
    use std::ffi::CStr;

    fn c(s: &str) -> CString {
        CString::new(s).unwrap()
    }

    fn last() -> String {
        // SAFETY: the thread's last error, a valid C string.
        unsafe { CStr::from_ptr(super::super::baser_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_case_replays_and_a_silent_dut_misses_its_frames() {
        let dir = std::env::temp_dir().join(format!("baser-capi-case-{}", std::process::id()));
        let names = ["rx-lock-loss".to_string(), "tx-dic".to_string()];
        baser_files::suite::write(&dir, &names, &Params::default(), "test").unwrap();
        let d = c(dir.to_str().unwrap());
        // SAFETY: NUL-terminated strings; handles from baser_case_open, freed once.
        unsafe {
            assert!(baser_case_open(d.as_ptr(), c("rx-nope").as_ptr(), std::ptr::null()).is_null());
            assert!(last().contains("no case `rx-nope`"), "{}", last());
            assert!(baser_case_open(d.as_ptr(), c("tx-dic").as_ptr(), std::ptr::null()).is_null());
            assert!(last().contains("transmit case"), "{}", last());
            let bad = c("pulses=bad_crc");
            assert!(
                baser_case_open(d.as_ptr(), c("rx-lock-loss").as_ptr(), bad.as_ptr()).is_null()
            );
            assert!(last().contains("pulse role `bad_crc`"), "{}", last());
            // (copied: the next call replaces the thread's string)
            let name = c(
                CStr::from_ptr(baser_suite_case(d.as_ptr(), c("rx").as_ptr(), 0))
                    .to_str()
                    .unwrap(),
            );
            assert_eq!(name.to_str().unwrap(), "rx-lock-loss");
            assert_eq!(
                *baser_suite_case(d.as_ptr(), c("rx").as_ptr(), 1),
                0,
                "\"\" past the last"
            );
            let h = baser_case_open(d.as_ptr(), name.as_ptr(), std::ptr::null());
            assert!(!h.is_null(), "{}", last());
            let (mut hdr, mut data, mut clocks) = (0u8, 0u64, 0);
            while baser_case_next(h, 0, &mut hdr, &mut data) == 1 {
                clocks += 1;
            }
            assert!(clocks > 2000, "{clocks}");
            assert_eq!(baser_case_level(h, c("lock").as_ptr(), 1), BASER_E_ARG);
            assert_eq!(baser_case_finish(h, std::ptr::null(), std::ptr::null()), 1);
            let first = CStr::from_ptr(baser_case_divergence(h, 0)).to_string_lossy();
            assert!(
                first.contains("frame 1") && first.contains("delivered nothing"),
                "{first}"
            );
            assert_eq!(*baser_case_divergence(h, 1), 0, "\"\" past the last");
            baser_case_free(h);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_transmit_case_replays_and_a_silent_dut_is_named() {
        let dir = std::env::temp_dir().join(format!("baser-capi-case-tx-{}", std::process::id()));
        let names = ["rx-lock-loss".to_string(), "tx-abort".to_string()];
        baser_files::suite::write(&dir, &names, &Params::default(), "test").unwrap();
        let d = c(dir.to_str().unwrap());
        let none = std::ptr::null();
        // SAFETY: NUL-terminated strings; handles from baser_case_tx_open, freed once.
        unsafe {
            let missing = c("/nonexistent/suite");
            assert!(baser_case_tx_open(missing.as_ptr(), c("tx-abort").as_ptr(), none).is_null());
            assert!(last().contains("baser gen --suite"), "{}", last());
            assert!(baser_case_tx_open(d.as_ptr(), c("tx-nope").as_ptr(), none).is_null());
            assert!(last().contains("no case `tx-nope`"), "{}", last());
            assert!(baser_case_tx_open(d.as_ptr(), c("rx-lock-loss").as_ptr(), none).is_null());
            assert!(last().contains("receive case"), "{}", last());
            let bad = c("ifg=12 dic=2");
            assert!(baser_case_tx_open(d.as_ptr(), c("tx-abort").as_ptr(), bad.as_ptr()).is_null());
            assert!(last().contains("dic=2"), "{}", last());
            let h = baser_case_tx_open(d.as_ptr(), c("tx-abort").as_ptr(), c("ifg=12").as_ptr());
            assert!(!h.is_null(), "{}", last());
            let (mut data, mut keep, mut lst, mut abort, mut hdr, mut idle) =
                (0u64, 0u8, 0u8, 0u8, 0u8, 0u64);
            // a DUT that takes every beat and sends nothing but what its receiver gets
            let (mut clocks, mut beats, mut aborts) = (0u64, 0, 0);
            let mut taken = 0;
            loop {
                assert_eq!(baser_case_tx_idle(h, &mut hdr, &mut idle), 0);
                let r = baser_case_tx_line(h, hdr, idle);
                assert!(r >= 0, "{}", last());
                if r == 0 {
                    break;
                }
                if clocks == 10 {
                    assert_eq!(
                        baser_case_tx_finish(h, none, none),
                        i64::from(BASER_E_STATE)
                    );
                    assert!(last().contains("not done after 11 clocks"), "{}", last());
                }
                taken = baser_case_tx_beat(h, taken, &mut data, &mut keep, &mut lst, &mut abort);
                beats += taken;
                aborts += i32::from(abort);
                clocks += 1;
            }
            assert_eq!(
                (beats, aborts),
                (6 * 25, 1),
                "six frames of 200 octets, one aborted"
            );
            assert!(clocks > 350, "{clocks}");
            assert_eq!(baser_case_tx_finish(h, none, none), 2);
            let first = CStr::from_ptr(baser_case_tx_divergence(h, 0)).to_string_lossy();
            assert!(
                first.starts_with("no frame received from the DUT's line"),
                "{first}"
            );
            let second = CStr::from_ptr(baser_case_tx_divergence(h, 1)).to_string_lossy();
            assert!(second.contains("5 sent, 0 received ok"), "{second}");
            assert_eq!(*baser_case_tx_divergence(h, 2), 0, "\"\" past the last");
            baser_case_tx_free(h);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
