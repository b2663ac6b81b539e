//! `baser_case_pattern`: a test-pattern case of a conformance suite (`rx-prbs31`,
//! `tx-prbs31`; `baser gen --suite DIR`) replayed into a DUT one serdes clock at a time and
//! judged (docs/conformance.md, "SystemVerilog"): each clock its serdes input and the level of
//! its test-pattern enable out, its error counter or its serdes output in; the engine's
//! [`PatternReplay`], translated.

use super::case::{divergence_at, reports, EMPTY};
use super::{guard, handle, put, text, Fail};
use baser_engine::conformance::replay::PatternReplay;
use pcs_core::{Block, SyncHeader};
use std::ffi::{c_char, CString};
use std::path::Path;

/// A test-pattern case being replayed (opaque).
pub struct baser_case_pattern {
    replay: PatternReplay,
    name: String,
    clause: String,
    /// The verdict, once asked for.
    divergences: Option<Vec<String>>,
    /// The last string handed out (valid until the next call on the handle).
    text: CString,
}

/// `errors=per_clock` (the DUT's error output is that clock's count, summed; the default) or
/// `errors=total` (a running counter: its change over the window).
fn total(options: &str) -> Result<bool, Fail> {
    let mut total = false;
    for word in options.split([' ', ',']).filter(|w| !w.is_empty()) {
        match word.split_once('=') {
            Some(("errors", "per_clock")) => total = false,
            Some(("errors", "total")) => total = true,
            Some(("errors", v)) => {
                return Err(Fail::arg(format!(
                    "errors={v}: expected errors=per_clock or errors=total"
                )))
            }
            _ => {
                return Err(Fail::arg(format!(
                    "option `{word}`: expected errors=per_clock or errors=total"
                )))
            }
        }
    }
    Ok(total)
}

/// Opens the test-pattern case `name` of the suite in `suite_dir` for a DUT whose error
/// output is described by `options` (`errors=per_clock`, the default: that clock's count, as
/// verilog-ethernet's `rx_error_count`; `errors=total`: a running counter). The PRBS31's
/// polarity is the suite's (`gen --suite --prbs31-inverted`). Each clock:
/// [`baser_case_pattern_next`] gives the serdes input and the enable to drive, then after the
/// edge [`baser_case_pattern_errors`] (`rx-prbs31`) or [`baser_case_pattern_line`]
/// (`tx-prbs31`) takes the DUT's output. Returns NULL on error ([`super::baser_last_error`]:
/// no such folder or case, not a test-pattern case, a bad option).
///
/// # Safety
/// The strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn baser_case_pattern_open(
    suite_dir: *const c_char,
    name: *const c_char,
    options: *const c_char,
) -> *mut baser_case_pattern {
    guard(
        |_| std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            let (dir, name, options) = unsafe { (text(suite_dir)?, text(name)?, text(options)?) };
            let total = total(options)?;
            let (entry, run) = baser_files::suite::read_pattern_case(Path::new(dir), name)
                .map_err(|e| Fail::arg(e.to_string()))?;
            let c = baser_case_pattern {
                name: entry.name,
                clause: entry.clause,
                replay: PatternReplay::new(run, total),
                divergences: None,
                text: CString::default(),
            };
            Ok(Box::into_raw(Box::new(c)))
        },
    )
}

/// Releases a test-pattern case (NULL: nothing).
///
/// # Safety
/// `c` is NULL or a live handle; it is not used again.
#[no_mangle]
pub unsafe extern "C" fn baser_case_pattern_free(c: *mut baser_case_pattern) {
    if !c.is_null() {
        // SAFETY: the caller's contract: a handle of baser_case_pattern_open, released once.
        drop(unsafe { Box::from_raw(c) });
    }
}

/// The next clock: the DUT's serdes input (2 bits in `header`, bit 0 first; 64 in `data`) and
/// its test-pattern enable (`enable`: 1 or 0; the receive checker's for `rx-prbs31`, the
/// generator's for `tx-prbs31`) to drive until the next edge. Returns 1 with them, 0 once the
/// run is out (then [`baser_case_pattern_finish`]), or an error code.
///
/// # Safety
/// `c` is a live handle; the outputs are writable.
#[no_mangle]
pub unsafe extern "C" fn baser_case_pattern_next(
    c: *mut baser_case_pattern,
    header: *mut u8,
    data: *mut u64,
    enable: *mut u8,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        let Some((b, on)) = c.replay.next_clock() else {
            return Ok(0);
        };
        // SAFETY: the caller's contract.
        unsafe {
            put(header, b.sync.to_bits())?;
            put(data, b.payload)?;
            put(enable, u8::from(on))?;
        }
        Ok(1)
    })
}

/// The DUT's test-pattern error output after the edge (`rx-prbs31`): that clock's count, or
/// the running counter's value with `errors=total`. Returns 0, or an error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_case_pattern_errors(c: *mut baser_case_pattern, value: u64) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        c.replay.errors(value);
        Ok(0)
    })
}

/// The DUT's serdes output after the edge (`tx-prbs31`): 2 bits in `header` (bit 0 first),
/// 64 in `data`. Returns 0, or an error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_case_pattern_line(
    c: *mut baser_case_pattern,
    header: u8,
    data: u64,
) -> i32 {
    guard(super::code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        c.replay.line(Block {
            sync: SyncHeader::from_bits(header),
            payload: data,
        });
        Ok(0)
    })
}

/// Judges the run once [`baser_case_pattern_next`] returned 0 (`rx-prbs31`: the DUT's error
/// counter against the model's count over the window; `tx-prbs31`: its line through the
/// model's PRBS31 checker) and writes a JSON report to `json_path` and a JUnit one to
/// `junit_path` (NULL or `""`: none). Returns the number of divergences (0: the DUT passes),
/// or an error code (`BASER_E_STATE`: the run is not out yet).
///
/// # Safety
/// `c` is a live handle; the paths are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn baser_case_pattern_finish(
    c: *mut baser_case_pattern,
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

/// Divergence `k` (0: the first) of a finished test-pattern case's verdict, in the model's
/// words; `""` past the last (or on error, or before [`baser_case_pattern_finish`]). Valid
/// until the next call on the handle.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_case_pattern_divergence(
    c: *mut baser_case_pattern,
    k: i64,
) -> *const c_char {
    guard(
        |_| EMPTY.as_ptr(),
        || {
            // SAFETY: the caller's contract.
            let c = unsafe { handle(c)? };
            divergence_at(c.divergences.as_deref().unwrap_or_default(), k, &mut c.text)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use baser_engine::conformance::Params;
    use pcs_core::{Prbs31Checker, Prbs31Polarity};
    use std::ffi::CStr;

    fn c(s: &str) -> CString {
        CString::new(s).unwrap()
    }

    #[test]
    fn a_pattern_case_replays_and_a_checker_that_counts_once_fails() {
        let dir = std::env::temp_dir().join(format!("baser-capi-pattern-{}", std::process::id()));
        let params = Params {
            prbs31_inverted: true,
            ..Params::default()
        };
        let names = vec!["rx-prbs31".to_string(), "rx-frames".to_string()];
        baser_files::suite::write(&dir, &names, &params, "test").unwrap();
        let d = c(dir.to_str().unwrap());
        for (scale, want) in [(1u64, 0i64), (3, 1)] {
            // SAFETY: live strings and handle, writable outputs.
            unsafe {
                let h =
                    baser_case_pattern_open(d.as_ptr(), c("rx-prbs31").as_ptr(), c("").as_ptr());
                assert!(!h.is_null());
                let mut checker = Prbs31Checker::new(Prbs31Polarity::Inverted);
                let (mut hdr, mut data, mut en) = (0u8, 0u64, 0u8);
                assert_eq!(
                    baser_case_pattern_finish(h, std::ptr::null(), std::ptr::null()),
                    -3
                );
                while baser_case_pattern_next(h, &mut hdr, &mut data, &mut en) == 1 {
                    let b = Block {
                        sync: SyncHeader::from_bits(hdr),
                        payload: data,
                    };
                    let e = if en == 1 { checker.check_block(b) } else { 0 };
                    // scale 3: a checker that counts a flip once, as 1 of 3
                    assert_eq!(baser_case_pattern_errors(h, e.div_ceil(scale).min(e)), 0);
                }
                let n = baser_case_pattern_finish(h, std::ptr::null(), std::ptr::null());
                assert_eq!(n.min(1), want);
                if want > 0 {
                    let first =
                        CStr::from_ptr(baser_case_pattern_divergence(h, 0)).to_string_lossy();
                    assert!(first.contains("the model's checker 36"), "{first}");
                }
                baser_case_pattern_free(h);
            }
        }
        // SAFETY: live strings.
        unsafe {
            let h = baser_case_pattern_open(d.as_ptr(), c("rx-frames").as_ptr(), c("").as_ptr());
            assert!(h.is_null());
            let h = baser_case_pattern_open(
                d.as_ptr(),
                c("rx-prbs31").as_ptr(),
                c("errors=some").as_ptr(),
            );
            assert!(h.is_null());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
