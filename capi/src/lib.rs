//! The baser model from C and SystemVerilog (DPI-C): a door on the engine's live models
//! (`baser_engine::live`), as the `baser` command and the Python package are doors on its
//! chains. Nothing is composed here: this file turns C arguments into engine calls and engine
//! results into return codes, strings and report files.
//!
//! Conventions (docs/dpi.md):
//! - handles are opaque (`baser_tx`, `baser_rx`, `baser_check`), made by `*_new` from an options
//!   string (`"profile=ieee ifg=12"`), released by `*_free`; `*_new` returns NULL on error;
//! - every other call returns a non-negative value on success or a negative `BASER_E_*` code;
//!   [`baser_last_error`] says what went wrong (the option, the width, the file);
//! - no panic crosses the boundary: each entry point catches one and returns
//!   [`BASER_E_INTERNAL`] (a bug in the model: please report the message);
//! - buffers are (pointer, length); strings returned stay valid until the next call on the same
//!   handle (the version string: forever);
//! - DPI-C: every function a SystemVerilog package imports takes only `chandle`, `string`,
//!   `int`, `longint`, `byte unsigned` and their `output` forms (capi/sv/baser_pkg.sv).
//!
//! Blocks cross as a 2-bit sync header (bit 0 first on the wire: 2 = data, 1 = control) and a
//! 64-bit payload (bit 0 first); XGMII transfers as 64 data bits (lane 0 in bits 7:0) and 8
//! control bits; serdes words as 32 or 64 line bits, bit 0 first (DESIGN.md).
#![allow(non_camel_case_types)]

use baser_engine::live::{LiveCheck, LiveError, LiveRx, LiveTx};
use baser_engine::rx::{class_name, ReceivedFrame, RxInput, RxOptions};
use baser_engine::tx::TxOptions;
use baser_engine::{Options, Profile};
use mac_core::fault::{FaultKind, LinkFault};
use mac_core::tx::DicMode;
use pcs_core::{Block, SyncHeader, XgmiiWord};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Success.
pub const BASER_OK: i32 = 0;
/// A null handle or pointer.
pub const BASER_E_NULL: i32 = -1;
/// A bad argument or option (the message says which).
pub const BASER_E_ARG: i32 = -2;
/// The call is not valid now (nothing waiting, after finish, a block to an XGMII model).
pub const BASER_E_STATE: i32 = -3;
/// A report file could not be written.
pub const BASER_E_IO: i32 = -4;
/// A bug in the model (a caught panic): please report the message.
pub const BASER_E_INTERNAL: i32 = -5;

/// Event bit of [`baser_tx_next_block`]: a frame's `/S/` is in this block.
pub const BASER_EV_START: i32 = 1;
/// Event bit: a frame's SFD is in this block.
pub const BASER_EV_SFD: i32 = 2;
/// Event bit: a frame's `/T/` is in this block (the frame is sent).
pub const BASER_EV_END: i32 = 4;

/// [`baser_rx_counter`]: blocks (transfers, for XGMII input) received.
pub const BASER_CNT_BLOCKS: i32 = 0;
/// Frames received.
pub const BASER_CNT_FRAMES: i32 = 1;
/// Invalid sync headers while locked.
pub const BASER_CNT_INVALID_HEADERS: i32 = 2;
/// Blocks into `RX_E` while the link was up.
pub const BASER_CNT_ERRORED_BLOCKS: i32 = 3;
/// Block lock losses.
pub const BASER_CNT_LOCK_LOSSES: i32 = 4;
/// `hi_ber` episodes.
pub const BASER_CNT_HI_BER: i32 = 5;
/// Block lock now (0 or 1).
pub const BASER_CNT_BLOCK_LOCK: i32 = 6;
/// Link fault status now: 0 ok, 1 local fault, 2 remote fault, 3 link interruption.
pub const BASER_CNT_LINK_FAULT: i32 = 7;

// ---------------------------------------------------------------------------------- errors

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// An error of a call: its code and message.
struct Fail(i32, String);

impl Fail {
    fn arg(m: impl Into<String>) -> Self {
        Self(BASER_E_ARG, m.into())
    }
    fn state(m: impl Into<String>) -> Self {
        Self(BASER_E_STATE, m.into())
    }
}

impl From<LiveError> for Fail {
    fn from(e: LiveError) -> Self {
        let code = match e {
            LiveError::Width(_) | LiveError::Tx(_) => BASER_E_ARG,
            LiveError::Input(_) | LiveError::Finished => BASER_E_STATE,
        };
        Self(code, e.to_string())
    }
}

fn set_error(m: &str) {
    let c = CString::new(m.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs `f`; an error or a panic becomes its code (and the thread's last error).
fn guard<T>(on_error: impl Fn(i32) -> T, f: impl FnOnce() -> Result<T, Fail>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(Fail(code, m))) => {
            set_error(&m);
            on_error(code)
        }
        Err(e) => {
            set_error(&format!(
                "baser: internal error (please report): {}",
                panic_message(&*e)
            ));
            on_error(BASER_E_INTERNAL)
        }
    }
}

fn code32(c: i32) -> i32 {
    c
}

fn code64(c: i32) -> i64 {
    i64::from(c)
}

/// The handle behind a pointer.
///
/// # Safety
/// `p` is null or a pointer a `*_new` of this type returned and no `*_free` released.
unsafe fn handle<'a, T>(p: *mut T) -> Result<&'a mut T, Fail> {
    // SAFETY: the caller's contract.
    unsafe { p.as_mut() }.ok_or_else(|| Fail(BASER_E_NULL, "a null handle".into()))
}

/// A C string argument (NULL: empty).
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn text<'a>(p: *const c_char) -> Result<&'a str, Fail> {
    if p.is_null() {
        return Ok("");
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| Fail::arg("a string argument is not UTF-8"))
}

/// A (pointer, length) buffer argument.
///
/// # Safety
/// `p` points to `len` readable octets (or `len` is 0).
unsafe fn bytes<'a>(p: *const u8, len: usize) -> Result<&'a [u8], Fail> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Fail(BASER_E_NULL, "a null buffer with a length".into()));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Writes `v` through an output pointer.
///
/// # Safety
/// `p` is null or writable.
unsafe fn put<T>(p: *mut T, v: T) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail(BASER_E_NULL, "a null output pointer".into()));
    }
    // SAFETY: the caller's contract.
    unsafe { p.write(v) };
    Ok(())
}

fn block(header: u8, payload: u64) -> Result<Block, Fail> {
    if header > 3 {
        return Err(Fail::arg(format!(
            "sync header {header} is not a 2-bit value (2 = data, 1 = control)"
        )));
    }
    Ok(Block {
        sync: SyncHeader::from_bits(header),
        payload,
    })
}

fn width(w: i32) -> Result<u32, Fail> {
    match w {
        32 | 64 => Ok(w as u32),
        _ => Err(Fail::arg(format!(
            "a serdes word of {w} bits: expected 32 or 64"
        ))),
    }
}

fn fcs_split(data: &[u8], fcs_included: i32) -> Result<(&[u8], Option<[u8; 4]>), Fail> {
    if fcs_included == 0 {
        return Ok((data, None));
    }
    let n = data
        .len()
        .checked_sub(4)
        .ok_or_else(|| Fail::arg(format!("a frame of {} octets has no FCS", data.len())))?;
    let (body, fcs) = data.split_at(n);
    Ok((body, fcs.try_into().ok()))
}

// --------------------------------------------------------------------------------- options

/// What an options string says.
struct Parsed {
    opt: Options,
    dic: Option<DicMode>,
    /// `scrambled=` (a TX model hands out unscrambled blocks with 0).
    scrambled: bool,
    input: RxInput,
    name: String,
    dut: String,
}

const TX_KEYS: &[&str] = &["profile", "ifg", "dic", "pad", "seed", "idle", "scrambled"];
const RX_KEYS: &[&str] = &[
    "profile",
    "input",
    "max_frame_length",
    "scrambled",
    "descrambler_state",
    "strict_start",
    "max_events",
];
const CHECK_KEYS: &[&str] = &[
    "profile",
    "input",
    "max_frame_length",
    "scrambled",
    "descrambler_state",
    "strict_start",
    "max_events",
    "name",
    "dut",
];

fn flag(k: &str, v: &str) -> Result<bool, Fail> {
    match v {
        "1" | "on" | "true" | "yes" => Ok(true),
        "0" | "off" | "false" | "no" => Ok(false),
        _ => Err(Fail::arg(format!("option {k}={v}: expected 0 or 1"))),
    }
}

fn number(k: &str, v: &str) -> Result<u64, Fail> {
    let r = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => v.replace('_', "").parse(),
    };
    r.map_err(|_| Fail::arg(format!("option {k}={v}: not a number")))
}

fn small<T: TryFrom<u64>>(k: &str, v: &str) -> Result<T, Fail> {
    T::try_from(number(k, v)?).map_err(|_| Fail::arg(format!("option {k}={v}: out of range")))
}

fn state58(k: &str, v: &str) -> Result<u64, Fail> {
    let s = number(k, v)?;
    if s >> 58 != 0 {
        return Err(Fail::arg(format!(
            "option {k}={v}: a scrambler state has 58 bits"
        )));
    }
    Ok(s)
}

/// Parses `key=value` words separated by spaces or commas; keys outside `keys` are refused.
fn parse(s: &str, keys: &[&str]) -> Result<Parsed, Fail> {
    let mut p = Parsed {
        opt: Options::default(),
        dic: None,
        input: RxInput::Blocks {
            scrambled: true,
            descrambler_state: None,
        },
        name: "expected".into(),
        dut: "dut".into(),
        scrambled: true,
    };
    let (mut state, mut input) = (None, "blocks");
    for word in s.split([' ', ',', '\t', '\n']).filter(|w| !w.is_empty()) {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| Fail::arg(format!("option `{word}`: expected key=value")))?;
        if !keys.contains(&k) {
            return Err(Fail::arg(format!(
                "unknown option `{k}`: expected one of {}",
                keys.join(", ")
            )));
        }
        match k {
            "profile" => {
                p.opt.profile = v
                    .parse::<Profile>()
                    .map_err(|e| Fail::arg(format!("option profile={v}: {e}")))?;
            }
            "ifg" => p.opt.ifg = small(k, v)?,
            "dic" => {
                p.dic = Some(match v {
                    "on" | "1" => DicMode::Strict,
                    "off" | "0" => DicMode::Off,
                    "strict" => DicMode::Strict,
                    "reset-on-idle" => DicMode::ResetOnIdle,
                    _ => {
                        return Err(Fail::arg(format!(
                            "option dic={v}: expected on, off, strict or reset-on-idle"
                        )))
                    }
                });
            }
            "pad" => p.opt.pad = flag(k, v)?,
            "seed" => p.opt.seed = state58(k, v)?,
            "idle" => p.opt.idle_blocks = number(k, v)?,
            "scrambled" => p.scrambled = flag(k, v)?,
            "descrambler_state" => state = Some(state58(k, v)?),
            "strict_start" => p.opt.strict_start = flag(k, v)?,
            "max_frame_length" => p.opt.max_frame_length = small(k, v)?,
            "max_events" => p.opt.max_events = small(k, v)?,
            "name" => p.name = v.into(),
            "dut" => p.dut = v.into(),
            _ => {
                input = match v {
                    "blocks" | "serial" | "xgmii" => v,
                    _ => {
                        return Err(Fail::arg(format!(
                            "option input={v}: expected blocks, serial or xgmii"
                        )))
                    }
                }
            }
        }
    }
    if !p.scrambled && state.is_some() {
        return Err(Fail::arg(
            "option descrambler_state: the blocks are not scrambled (scrambled=0)",
        ));
    }
    p.input = match input {
        "serial" => RxInput::Serial,
        "xgmii" => RxInput::Xgmii,
        _ => RxInput::Blocks {
            scrambled: p.scrambled,
            descrambler_state: state,
        },
    };
    Ok(p)
}

fn tx_options(p: &Parsed) -> TxOptions {
    let mut o = p.opt.tx();
    if let Some(d) = p.dic {
        o.mac.dic = d;
    }
    o
}

fn rx_options(p: &Parsed) -> RxOptions {
    p.opt.rx()
}

/// A string kept for the caller until the next call on its handle.
fn keep(slot: &mut CString, s: &str) -> *const c_char {
    *slot = CString::new(s.replace('\0', " ")).unwrap_or_default();
    slot.as_ptr()
}

// -------------------------------------------------------------------------------- version

/// The model's version, e.g. `"0.1.0"` (a static string).
#[no_mangle]
pub extern "C" fn baser_version() -> *const c_char {
    static V: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"",
        };
    V.as_ptr()
}

/// The message of the last failed call on this thread (`""` when none failed). Valid until
/// the next failing call on this thread.
#[no_mangle]
pub extern "C" fn baser_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

// ------------------------------------------------------------------------------------- TX

/// The TX model: frames in, one 66-bit block (or one serdes word) per clock out.
pub struct baser_tx {
    live: LiveTx,
    scrambled: bool,
    building: Vec<u8>,
    /// Set by the first `next_block` or `next_word`: the two do not mix.
    serial: Option<bool>,
}

/// A TX model out of reset. `options`: space-separated `key=value` (NULL or `""`: defaults):
/// `profile=ieee` (or `verilog-ethernet`, ...), `ifg=12` (octets, `/T/` included),
/// `dic=on|off|strict|reset-on-idle`, `pad=1`, `seed=0x...` (the scrambler's 58-bit start state),
/// `idle=128` (idle blocks before the first frame: a receiver locks and trains on them),
/// `scrambled=1` (0: hand out the blocks before scrambling). NULL on error
/// ([`baser_last_error`]).
///
/// # Safety
/// `options` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_new(options: *const c_char) -> *mut baser_tx {
    guard(
        |_| std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            let p = parse(unsafe { text(options) }?, TX_KEYS)?;
            Ok(Box::into_raw(Box::new(baser_tx {
                live: LiveTx::new(&tx_options(&p)),
                scrambled: p.scrambled,
                building: Vec::new(),
                serial: None,
            })))
        },
    )
}

/// Releases a TX model (NULL: nothing).
///
/// # Safety
/// `tx` is NULL or a handle of [`baser_tx_new`] not yet released.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_free(tx: *mut baser_tx) {
    if !tx.is_null() {
        // SAFETY: the caller's contract; the handle came from Box::into_raw.
        drop(unsafe { Box::from_raw(tx) });
    }
}

fn send(tx: &mut baser_tx, data: &[u8], fcs_included: i32) -> Result<i64, Fail> {
    let (body, fcs) = fcs_split(data, fcs_included)?;
    let id = tx
        .live
        .send(body, fcs)
        .map_err(|e| Fail::arg(e.to_string()))?;
    Ok(id as i64)
}

/// Gives the MAC a frame: DA to the end of the payload (the MAC pads it and appends the FCS),
/// or with `fcs_included` its last 4 octets are the FCS, sent as is without padding. It
/// starts as soon as the gap allows. Returns its id (0, 1, ...) or an error code.
///
/// # Safety
/// `tx` is a live handle; `frame` points to `len` octets.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_send(
    tx: *mut baser_tx,
    frame: *const u8,
    len: usize,
    fcs_included: i32,
) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let (tx, data) = unsafe { (handle(tx)?, bytes(frame, len)?) };
        send(tx, data, fcs_included)
    })
}

/// Appends one octet to the frame being built (DPI: a frame octet by octet; then
/// [`baser_tx_send_built`]).
///
/// # Safety
/// `tx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_byte(tx: *mut baser_tx, octet: u8) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        tx.building.push(octet);
        Ok(BASER_OK)
    })
}

/// Appends `n` (1..8) octets to the frame being built, from `octets` lane by lane (octet 0 in
/// bits 7:0): eight at a time, a DPI call per 8 octets.
///
/// # Safety
/// `tx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_bytes(tx: *mut baser_tx, octets: u64, n: i32) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        append(&mut tx.building, octets, n)?;
        Ok(BASER_OK)
    })
}

fn append(to: &mut Vec<u8>, octets: u64, n: i32) -> Result<(), Fail> {
    let n = usize::try_from(n)
        .ok()
        .filter(|n| (1..=8).contains(n))
        .ok_or_else(|| Fail::arg(format!("{n} octets: expected 1..8")))?;
    to.extend_from_slice(octets.to_le_bytes().get(..n).unwrap_or_default());
    Ok(())
}

/// Sends the frame built by [`baser_tx_byte`] (as [`baser_tx_send`]); returns its id.
///
/// # Safety
/// `tx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_send_built(tx: *mut baser_tx, fcs_included: i32) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        let data = std::mem::take(&mut tx.building);
        send(tx, &data, fcs_included)
    })
}

fn mode(tx: &mut baser_tx, serial: bool) -> Result<(), Fail> {
    match tx.serial {
        Some(s) if s != serial => Err(Fail::state(
            "baser_tx_next_block and baser_tx_next_word do not mix on one TX model",
        )),
        _ => {
            tx.serial = Some(serial);
            Ok(())
        }
    }
}

/// One clock: the next block. Returns its event bits ([`BASER_EV_START`], [`BASER_EV_SFD`],
/// [`BASER_EV_END`]; 0 for none) or an error code.
///
/// # Safety
/// `tx` is a live handle; `header` and `payload` are writable.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_next_block(
    tx: *mut baser_tx,
    header: *mut u8,
    payload: *mut u64,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        if header.is_null() || payload.is_null() {
            return Err(Fail(BASER_E_NULL, "a null output pointer".into()));
        }
        mode(tx, false)?;
        let c = tx.live.clock().map_err(|e| Fail::arg(e.to_string()))?;
        let b = if tx.scrambled { c.line } else { c.unscrambled };
        // SAFETY: checked non-null above; the caller's contract.
        unsafe {
            put(header, b.sync.to_bits())?;
            put(payload, b.payload)?;
        }
        Ok(i32::from(c.events()))
    })
}

/// One clock of a serdes: the next `width` (32 or 64) line bits, bit 0 first on the wire.
/// Returns 0 or an error code.
///
/// # Safety
/// `tx` is a live handle; `word` is writable.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_next_word(tx: *mut baser_tx, width: i32, word: *mut u64) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        let w = self::width(width)?;
        if word.is_null() {
            return Err(Fail(BASER_E_NULL, "a null output pointer".into()));
        }
        if !tx.scrambled {
            return Err(Fail::state(
                "serdes words are line bits: this TX model was made with scrambled=0",
            ));
        }
        mode(tx, true)?;
        let v = tx.live.next_word(w)?;
        // SAFETY: checked non-null above.
        unsafe { put(word, v)? };
        Ok(BASER_OK)
    })
}

/// Blocks handed out so far (or an error code).
///
/// # Safety
/// `tx` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_blocks(tx: *const baser_tx) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx.cast_mut())? };
        Ok(tx.live.blocks() as i64)
    })
}

/// Frames given and not fully sent (or an error code).
///
/// # Safety
/// `tx` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_pending(tx: *const baser_tx) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx.cast_mut())? };
        Ok(tx.live.pending() as i64)
    })
}

// ------------------------------------------------------------------------------------- RX

/// The RX model: one block, serdes word or XGMII transfer per clock in; frames out.
pub struct baser_rx {
    live: LiveRx,
    profile: Profile,
    name: String,
    class: CString,
}

/// An RX model out of reset. `options`: `input=blocks|serial|xgmii` (blocks: 66-bit blocks at
/// known boundaries; serial: 32/64-bit serdes words, block lock found as a receiver does),
/// `profile=ieee`, `max_frame_length=1518`, `scrambled=1` (blocks), `descrambler_state=0x...`
/// (blocks; default: leading reset fill is skipped and the first other block trains the
/// descrambler), `strict_start=0`, `max_events=20`. NULL on error.
///
/// # Safety
/// `options` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_new(options: *const c_char) -> *mut baser_rx {
    guard(
        |_| std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            let p = parse(unsafe { text(options) }?, RX_KEYS)?;
            Ok(Box::into_raw(Box::new(baser_rx {
                live: LiveRx::new(&rx_options(&p), p.input),
                profile: p.opt.profile,
                name: p.dut,
                class: CString::default(),
            })))
        },
    )
}

/// Releases an RX model (NULL: nothing).
///
/// # Safety
/// `rx` is NULL or a handle of [`baser_rx_new`] not yet released.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_free(rx: *mut baser_rx) {
    if !rx.is_null() {
        // SAFETY: the caller's contract; the handle came from Box::into_raw.
        drop(unsafe { Box::from_raw(rx) });
    }
}

fn waiting(rx: &mut LiveRx) -> i32 {
    i32::try_from(rx.frames().len()).unwrap_or(i32::MAX)
}

/// One clock: a 66-bit block. Returns the number of received frames waiting, or an error code.
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_push_block(rx: *mut baser_rx, header: u8, payload: u64) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        rx.live.push_block(block(header, payload)?)?;
        Ok(waiting(&mut rx.live))
    })
}

/// One clock: a serdes word of `width` (32 or 64) bits. Returns the frames waiting.
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_push_word(rx: *mut baser_rx, width: i32, word: u64) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        rx.live.push_word(self::width(width)?, word)?;
        Ok(waiting(&mut rx.live))
    })
}

/// One clock: an XGMII transfer (`data` lane 0 in bits 7:0, `ctrl` bit i for lane i). Returns
/// the frames waiting.
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_push_xgmii(rx: *mut baser_rx, data: u64, ctrl: u8) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        rx.live.push_xgmii(XgmiiWord { data, ctrl })?;
        Ok(waiting(&mut rx.live))
    })
}

fn oldest(rx: &mut baser_rx) -> Result<&ReceivedFrame, Fail> {
    rx.live
        .frames()
        .front()
        .ok_or_else(|| Fail::state("no received frame is waiting"))
}

/// The oldest waiting frame's length (DA through FCS), or [`BASER_E_STATE`] when none waits.
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_frame_len(rx: *mut baser_rx) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        Ok(i32::try_from(oldest(rx)?.data.len()).unwrap_or(i32::MAX))
    })
}

/// Octet `i` of the oldest waiting frame (0..255), or an error code.
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_frame_byte(rx: *mut baser_rx, i: i32) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        let f = oldest(rx)?;
        usize::try_from(i)
            .ok()
            .and_then(|i| f.data.get(i))
            .map(|&b| i32::from(b))
            .ok_or_else(|| Fail::arg(format!("octet {i} of a frame of {} octets", f.data.len())))
    })
}

/// Copies the oldest waiting frame (DA through FCS) into `buf` (at most `cap` octets);
/// returns its whole length (larger than `cap`: cut short), or an error code.
///
/// # Safety
/// `rx` is a live handle; `buf` has room for `cap` octets.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_frame_copy(rx: *mut baser_rx, buf: *mut u8, cap: usize) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        let f = oldest(rx)?;
        let n = f.data.len().min(cap);
        if n > 0 {
            if buf.is_null() {
                return Err(Fail(BASER_E_NULL, "a null buffer with a length".into()));
            }
            // SAFETY: the caller's contract: buf has room for cap >= n octets.
            unsafe { std::ptr::copy_nonoverlapping(f.data.as_ptr(), buf, n) };
        }
        Ok(i32::try_from(f.data.len()).unwrap_or(i32::MAX))
    })
}

/// The MAC class of the oldest waiting frame: `"ok"`, `"fcs_error"`, `"runt"`, `"fragment"`,
/// `"too_long"`, `"error_character"`, `"truncated"`, `"bad_preamble"` (`""` when none waits).
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_frame_class(rx: *mut baser_rx) -> *const c_char {
    guard(
        |_| c"".as_ptr(),
        || {
            // SAFETY: the caller's contract.
            let rx = unsafe { handle(rx)? };
            let class = rx.live.frames().front().map_or("", |f| class_name(f.class));
            Ok(keep(&mut rx.class, class))
        },
    )
}

/// The block index of the oldest waiting frame's `/S/`, or an error code.
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_frame_block(rx: *mut baser_rx) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        Ok(oldest(rx)?.start.block as i64)
    })
}

/// Drops the oldest waiting frame; returns the frames still waiting, or an error code.
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_frame_pop(rx: *mut baser_rx) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        rx.live
            .frames()
            .pop_front()
            .ok_or_else(|| Fail::state("no received frame is waiting"))?;
        Ok(waiting(&mut rx.live))
    })
}

/// A counter of the receiver ([`BASER_CNT_BLOCKS`] ... [`BASER_CNT_LINK_FAULT`]), or an error
/// code.
///
/// # Safety
/// `rx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_counter(rx: *mut baser_rx, which: i32) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let rx = unsafe { handle(rx)? };
        counter(&rx.live, which)
    })
}

fn counter(live: &LiveRx, which: i32) -> Result<i64, Fail> {
    let pcs = live.pcs();
    let status = live.status();
    let n = |v: usize| v as i64;
    Ok(match which {
        BASER_CNT_BLOCKS => status.blocks as i64,
        BASER_CNT_FRAMES => live.counts().total as i64,
        BASER_CNT_INVALID_HEADERS => pcs.invalid_headers as i64,
        BASER_CNT_ERRORED_BLOCKS => pcs.errored_blocks as i64,
        BASER_CNT_LOCK_LOSSES => n(pcs.lock_losses.len()),
        BASER_CNT_HI_BER => n(pcs.hi_ber_episodes.len()),
        BASER_CNT_BLOCK_LOCK => i64::from(status.block_lock),
        BASER_CNT_LINK_FAULT => match status.link_fault.0 {
            LinkFault::Ok => 0,
            LinkFault::Fault(FaultKind::LocalFault) => 1,
            LinkFault::Fault(FaultKind::RemoteFault) => 2,
            LinkFault::Fault(FaultKind::LinkInterruption) => 3,
        },
        w => return Err(Fail::arg(format!("counter {w}: expected 0..7"))),
    })
}

fn write_json<T: serde::Serialize>(path: &str, v: &T) -> Result<(), Fail> {
    baser_files::report::write_json(Path::new(path), v)
        .map_err(|e| Fail(BASER_E_IO, format!("{path}: {e}")))
}

/// Ends the stream (the last block is decided; frames it completes can still be taken) and
/// writes the document of `baser decode --json` to `json_path` (NULL or `""`: no file).
/// Returns 0 when clean (the PCS saw nothing wrong, every frame good), 1 when not, or an
/// error code.
///
/// # Safety
/// `rx` is a live handle; `json_path` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn baser_rx_finish(rx: *mut baser_rx, json_path: *const c_char) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let (rx, path) = unsafe { (handle(rx)?, text(json_path)?) };
        let (pcs, counts) = rx.live.finish()?;
        let doc = baser_engine::decode_report::DecodeReport::new(
            rx.name.clone(),
            rx.profile,
            pcs,
            counts,
        );
        if !path.is_empty() {
            write_json(path, &doc)?;
        }
        Ok(if doc.clean() { 0 } else { 1 })
    })
}

// ---------------------------------------------------------------------------------- check

/// The live checker: expected frames in, the DUT's stream in, divergences as they happen; at
/// the end the frame check of `baser check --frames` and its reports.
pub struct baser_check {
    live: LiveCheck,
    building: Vec<u8>,
    text: CString,
    finished: bool,
}

/// A checker out of reset. `options`: those of [`baser_rx_new`], and `name=...` (the expected
/// frames' name in the reports) and `dut=...` (the DUT stream's). NULL on error.
///
/// # Safety
/// `options` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn baser_check_new(options: *const c_char) -> *mut baser_check {
    guard(
        |_| std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            let p = parse(unsafe { text(options) }?, CHECK_KEYS)?;
            Ok(Box::into_raw(Box::new(baser_check {
                live: LiveCheck::new(&rx_options(&p), p.input, (p.name, p.dut)),
                building: Vec::new(),
                text: CString::default(),
                finished: false,
            })))
        },
    )
}

/// Releases a checker (NULL: nothing).
///
/// # Safety
/// `c` is NULL or a handle of [`baser_check_new`] not yet released.
#[no_mangle]
pub unsafe extern "C" fn baser_check_free(c: *mut baser_check) {
    if !c.is_null() {
        // SAFETY: the caller's contract; the handle came from Box::into_raw.
        drop(unsafe { Box::from_raw(c) });
    }
}

fn expect(c: &mut baser_check, data: &[u8], fcs_included: i32) -> Result<i64, Fail> {
    if c.finished {
        return Err(Fail::state("the checker was finished"));
    }
    let (body, _) = fcs_split(data, fcs_included)?;
    Ok(c.live.expect(body) as i64)
}

/// An expected frame (DA to the end of the payload, as given to the TX model; with
/// `fcs_included`, its last 4 octets are an FCS and are not compared), in the order frames
/// must arrive. Returns its index (0, 1, ...) or an error code.
///
/// # Safety
/// `c` is a live handle; `frame` points to `len` octets.
#[no_mangle]
pub unsafe extern "C" fn baser_check_expect(
    c: *mut baser_check,
    frame: *const u8,
    len: usize,
    fcs_included: i32,
) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let (c, data) = unsafe { (handle(c)?, bytes(frame, len)?) };
        expect(c, data, fcs_included)
    })
}

/// Appends one octet to the expected frame being built (DPI; then
/// [`baser_check_expect_built`]).
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_expect_byte(c: *mut baser_check, octet: u8) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        c.building.push(octet);
        Ok(BASER_OK)
    })
}

/// Appends `n` (1..8) octets to the expected frame being built, from `octets` lane by lane
/// (octet 0 in bits 7:0).
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_expect_bytes(c: *mut baser_check, octets: u64, n: i32) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        append(&mut c.building, octets, n)?;
        Ok(BASER_OK)
    })
}

/// Expects the frame built by [`baser_check_expect_byte`]; returns its index.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_expect_built(c: *mut baser_check, fcs_included: i32) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        let data = std::mem::take(&mut c.building);
        expect(c, &data, fcs_included)
    })
}

fn new_count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// One clock of the DUT: a 66-bit block. Returns the divergences this block revealed (0: all
/// well so far), or an error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_block(
    c: *mut baser_check,
    header: u8,
    payload: u64,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(new_count(c.live.push_block(block(header, payload)?)?))
    })
}

/// One clock of the DUT: a serdes word of `width` (32 or 64) bits. Returns the new
/// divergences.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_word(c: *mut baser_check, width: i32, word: u64) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(new_count(c.live.push_word(self::width(width)?, word)?))
    })
}

/// One clock of the DUT: an XGMII transfer. Returns the new divergences.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_xgmii(c: *mut baser_check, data: u64, ctrl: u8) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(new_count(c.live.push_xgmii(XgmiiWord { data, ctrl })?))
    })
}

/// Divergences found so far, or an error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_divergences(c: *mut baser_check) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(c.live.count() as i64)
    })
}

/// The block (0 = the first block pushed) where the first divergence is in the DUT's
/// stream: an invalid header's block, the block of a frame's first differing octet, the `/S/`
/// of a frame with a bad class. -1 when there is none.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_first_block(c: *mut baser_check) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(c.live.divergences().first().map_or(-1, |d| d.block as i64))
    })
}

/// The block whose push found the first divergence (a frame is judged when the MAC delivers
/// it, one block after its `/T/`). -1 when there is none.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_first_found_at(c: *mut baser_check) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(c.live
            .divergences()
            .first()
            .map_or(-1, |d| d.found_at as i64))
    })
}

/// The first divergence's message (`""` when none).
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_first(c: *mut baser_check) -> *const c_char {
    guard(
        |_| c"".as_ptr(),
        || {
            // SAFETY: the caller's contract.
            let c = unsafe { handle(c)? };
            let m = c
                .live
                .divergences()
                .first()
                .map_or(String::new(), |d| format!("block {}: {}", d.block, d.what));
            Ok(keep(&mut c.text, &m))
        },
    )
}

/// The latest divergence's message (`""` when none).
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_last(c: *mut baser_check) -> *const c_char {
    guard(
        |_| c"".as_ptr(),
        || {
            // SAFETY: the caller's contract.
            let c = unsafe { handle(c)? };
            let m = c
                .live
                .last()
                .map_or(String::new(), |d| format!("block {}: {}", d.block, d.what));
            Ok(keep(&mut c.text, &m))
        },
    )
}

/// Ends the run: the last block decided, then the one judge over every frame (reordered,
/// corrupted and missing frames too), exactly `baser check --frames`' verdict. Writes its JSON
/// and JUnit XML reports (NULL or `""`: not that one). Returns 0 pass, 1 fail, or an error
/// code; once only.
///
/// # Safety
/// `c` is a live handle; the paths are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn baser_check_finish(
    c: *mut baser_check,
    json_path: *const c_char,
    junit_path: *const c_char,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let (c, json, junit) = unsafe { (handle(c)?, text(json_path)?, text(junit_path)?) };
        let (report, cases) = c.live.finish()?;
        c.finished = true;
        if !json.is_empty() {
            write_json(json, &report)?;
        }
        if !junit.is_empty() {
            baser_files::report::write_junit(Path::new(junit), "baser check (live)", &cases)
                .map_err(|e| Fail(BASER_E_IO, format!("{junit}: {e}")))?;
        }
        Ok(if report.failed() { 1 } else { 0 })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> String {
        // SAFETY: baser_last_error returns a NUL-terminated string.
        unsafe { CStr::from_ptr(baser_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_an_error_code_with_a_message() {
        let r = guard(code32, || -> Result<i32, Fail> { panic!("boom") });
        assert_eq!(r, BASER_E_INTERNAL);
        assert!(last().contains("internal error") && last().contains("boom"));
    }

    #[test]
    fn options_are_checked_and_named() {
        for (opts, keys, needle) in [
            ("ifg=x", TX_KEYS, "ifg=x"),
            ("bogus=1", TX_KEYS, "unknown option `bogus`"),
            ("input=blocks", TX_KEYS, "unknown option `input`"),
            ("seed=0xffffffffffffffff", TX_KEYS, "58 bits"),
            ("profile=nope", RX_KEYS, "profile=nope"),
            ("input=ether", RX_KEYS, "input=ether"),
            ("scrambled=0 descrambler_state=1", RX_KEYS, "not scrambled"),
            ("dic=sometimes", TX_KEYS, "dic=sometimes"),
            ("ifg", TX_KEYS, "key=value"),
            ("max_frame_length=70000", RX_KEYS, "out of range"),
        ] {
            let Err(Fail(code, m)) = parse(opts, keys) else {
                panic!("{opts} accepted")
            };
            assert_eq!(code, BASER_E_ARG);
            assert!(m.contains(needle), "{opts}: {m}");
        }
        let p = parse(
            "profile=verilog-ethernet, ifg=9 dic=off pad=0 seed=0x5 idle=3",
            TX_KEYS,
        )
        .ok()
        .unwrap();
        let o = tx_options(&p);
        assert_eq!((o.mac.ifg_octets, o.seed, o.idle_blocks), (9, 5, 3));
        assert_eq!(o.mac.dic, DicMode::Off);
        assert_eq!(o.profile, Profile::VerilogEthernet);
    }

    /// TX model -> serdes words -> a serial checker, through the C entry points.
    #[test]
    fn serdes_words_from_the_tx_model_pass_a_serial_checker() {
        for width in [32, 64] {
            // SAFETY: valid strings, handles from *_new, writable outputs.
            unsafe {
                let tx = baser_tx_new(c"idle=200".as_ptr());
                let chk = baser_check_new(c"input=serial".as_ptr());
                assert!(!tx.is_null() && !chk.is_null());
                let frames: Vec<Vec<u8>> = (0..5)
                    .map(|i| (0..60 + 100 * i).map(|j| (j * 3 + i) as u8).collect())
                    .collect();
                for f in &frames {
                    assert!(baser_tx_send(tx, f.as_ptr(), f.len(), 0) >= 0);
                    assert!(baser_check_expect(chk, f.as_ptr(), f.len(), 0) >= 0);
                }
                let mut w = 0u64;
                let mut tail = 8;
                while tail > 0 {
                    if baser_tx_pending(tx) == 0 {
                        tail -= 1;
                    }
                    for _ in 0..2 {
                        assert_eq!(baser_tx_next_word(tx, width, &mut w), 0);
                        assert_eq!(baser_check_push_word(chk, width, w), 0, "{}", {
                            CStr::from_ptr(baser_check_last(chk)).to_string_lossy()
                        });
                    }
                }
                let mut h = 0u8;
                assert_eq!(baser_tx_next_block(tx, &mut h, &mut w), BASER_E_STATE);
                assert_eq!(baser_check_divergences(chk), 0);
                assert_eq!(
                    baser_check_finish(chk, std::ptr::null(), std::ptr::null()),
                    0
                );
                baser_tx_free(tx);
                baser_check_free(chk);
            }
        }
    }

    /// XGMII transfers to the RX model, and the counters and frame getters.
    #[test]
    fn xgmii_transfers_give_frames_and_counters() {
        let words = [
            XgmiiWord::IDLE,
            // /S/ + preamble, SFD
            XgmiiWord {
                data: 0xd555_5555_5555_55fb,
                ctrl: 0x01,
            },
        ];
        // SAFETY: handles from *_new; writable buffers.
        unsafe {
            let rx = baser_rx_new(c"input=xgmii".as_ptr());
            for w in words {
                assert_eq!(baser_rx_push_xgmii(rx, w.data, w.ctrl), 0);
            }
            // A 64-octet frame of zeros with a wrong FCS, then /T/ and idles.
            for _ in 0..8 {
                assert_eq!(baser_rx_push_xgmii(rx, 0, 0), 0);
            }
            assert_eq!(baser_rx_push_xgmii(rx, 0x0707_0707_0707_07fd, 0xff), 1);
            assert_eq!(baser_rx_frame_len(rx), 64);
            assert_eq!(
                CStr::from_ptr(baser_rx_frame_class(rx)).to_str(),
                Ok("fcs_error")
            );
            assert_eq!(baser_rx_frame_byte(rx, 0), 0);
            assert_eq!(baser_rx_frame_byte(rx, 64), BASER_E_ARG);
            let mut buf = [1u8; 16];
            assert_eq!(baser_rx_frame_copy(rx, buf.as_mut_ptr(), buf.len()), 64);
            assert_eq!(buf, [0; 16]);
            assert_eq!(baser_rx_frame_block(rx), 1);
            assert_eq!(baser_rx_frame_pop(rx), 0);
            assert_eq!(baser_rx_frame_pop(rx), BASER_E_STATE);
            assert_eq!(baser_rx_frame_len(rx), BASER_E_STATE);
            assert_eq!(baser_rx_counter(rx, BASER_CNT_FRAMES), 1);
            assert_eq!(baser_rx_counter(rx, BASER_CNT_BLOCKS), 11);
            assert_eq!(baser_rx_counter(rx, BASER_CNT_LINK_FAULT), 0);
            assert_eq!(baser_rx_finish(rx, std::ptr::null()), 1, "a bad frame");
            assert_eq!(baser_rx_finish(rx, std::ptr::null()), BASER_E_STATE);
            assert_eq!(baser_rx_push_xgmii(rx, 0, 0), BASER_E_STATE);
            baser_rx_free(rx);
        }
    }

    #[test]
    fn null_pointers_and_bad_values_are_codes() {
        // SAFETY: null handles and pointers are what is tested; the rest are valid.
        unsafe {
            assert_eq!(baser_tx_byte(std::ptr::null_mut(), 0), BASER_E_NULL);
            assert_eq!(baser_check_divergences(std::ptr::null_mut()), -1);
            let tx = baser_tx_new(std::ptr::null());
            assert_eq!(
                baser_tx_next_block(tx, std::ptr::null_mut(), std::ptr::null_mut()),
                BASER_E_NULL
            );
            assert_eq!(baser_tx_send(tx, std::ptr::null(), 10, 0), -1);
            assert_eq!(baser_tx_send(tx, [0u8; 3].as_ptr(), 3, 1), -2);
            let big = vec![0u8; 20_000];
            assert_eq!(baser_tx_send(tx, big.as_ptr(), big.len(), 0), -2);
            assert!(last().contains("longer than"), "{}", last());
            for b in [1u8, 2, 3] {
                assert_eq!(baser_tx_byte(tx, b), 0);
            }
            assert_eq!(baser_tx_bytes(tx, 0x0807_0605_0403_0201, 9), BASER_E_ARG);
            assert_eq!(baser_tx_bytes(tx, 0x0807_0605_0403_0201, 5), 0);
            assert_eq!((*tx).building, [1, 2, 3, 1, 2, 3, 4, 5]);
            assert_eq!(baser_tx_send_built(tx, 0), 0);
            baser_tx_free(tx);
            let c = baser_check_new(c"input=blocks".as_ptr());
            assert_eq!(baser_check_push_block(c, 7, 0), BASER_E_ARG);
            assert_eq!(baser_check_first_block(c), -1);
            assert_eq!(CStr::from_ptr(baser_check_first(c)).to_str(), Ok(""));
            let path = c"/nonexistent-dir/report.json";
            assert_eq!(
                baser_check_finish(c, path.as_ptr(), std::ptr::null()),
                BASER_E_IO
            );
            assert!(
                last().contains("/nonexistent-dir/report.json"),
                "{}",
                last()
            );
            baser_check_free(c);
            baser_tx_free(std::ptr::null_mut());
        }
    }
}
