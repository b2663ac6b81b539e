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

use baser_engine::fec::{Fec, FecOptions};
use baser_engine::live::{
    LiveCheck, LiveError, LiveRx, LiveTx, RxView, SerdesForm, SerdesTx, SerdesWord, TxClock,
    UnitOrder,
};
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

pub mod case;
pub mod case_pattern;

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
/// With `fec=`: the FEC's lock (1 acquired and never lost, 0 not); without a FEC every
/// `BASER_CNT_FEC_*` counter is [`BASER_E_STATE`].
pub const BASER_CNT_FEC_LOCK: i32 = 8;
/// FEC blocks or codewords decoded while locked.
pub const BASER_CNT_FEC_CODEWORDS: i32 = 9;
/// Of those, corrected (registers 1.172/1.173, 1.202/1.203).
pub const BASER_CNT_FEC_CORRECTED: i32 = 10;
/// Of those, uncorrectable (1.174/1.175, 1.204/1.205).
pub const BASER_CNT_FEC_UNCORRECTED: i32 = 11;
/// Symbols corrected (RS-FEC; bits for Clause 74).
pub const BASER_CNT_FEC_SYMBOLS: i32 = 12;

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
    /// `input=frames`: a frames checker (the DUT's frame interface).
    frames: bool,
    /// `fcs=`: delivered frames hold their FCS.
    fcs: bool,
    /// `beat=`: octets in a full beat of the frame interface.
    beat: u32,
    /// `serdes=`: the TX model's serdes form, and `offset=`.
    serdes: Option<SerdesForm>,
    offset: u32,
    name: String,
    dut: String,
    /// `fec=` (with `rs_marker_period=`): the FEC below the PCS; `rate=` is in `opt`.
    fec: FecOptions,
    /// `view=`: how an RX model reads serial input (the receiver's view by default).
    view: RxView,
}

/// Idle blocks before the first frame of a serdes source: enough for a receiver to lock from
/// any bit offset (65 slips, each after up to 60 clocks, then 64 good headers).
pub const BASER_SERDES_IDLE: i64 = 4096;

/// The serdes source's unit boundary before any slip: this many bits before the block
/// boundary (a receiver must slip to find lock).
pub const BASER_SERDES_OFFSET: i32 = 33;

const TX_KEYS: &[&str] = &[
    "profile",
    "ifg",
    "dic",
    "pad",
    "seed",
    "idle",
    "scrambled",
    "serdes",
    "offset",
    "rate",
    "fec",
    "rs_marker_period",
];
const RX_KEYS: &[&str] = &[
    "profile",
    "input",
    "view",
    "max_frame_length",
    "scrambled",
    "descrambler_state",
    "strict_start",
    "max_events",
    "rate",
    "fec",
    "rs_marker_period",
    "rs_bypass_correction",
    "rs_bypass_indication",
    "fc_error_indication",
    "ber_timer",
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
    "fcs",
    "beat",
    "rate",
    "fec",
    "rs_marker_period",
    "rs_bypass_correction",
    "rs_bypass_indication",
    "fc_error_indication",
    "ber_timer",
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
/// The value of `dic=`.
fn dic_mode(v: &str) -> Result<DicMode, Fail> {
    match v {
        "on" | "1" | "strict" => Ok(DicMode::Strict),
        "off" | "0" => Ok(DicMode::Off),
        "reset-on-idle" => Ok(DicMode::ResetOnIdle),
        _ => Err(Fail::arg(format!(
            "option dic={v}: expected on, off, strict or reset-on-idle"
        ))),
    }
}

/// The value of `serdes=`.
fn serdes_form(v: &str) -> Result<SerdesForm, Fail> {
    match v {
        "units" => Ok(SerdesForm::Units(UnitOrder::HeaderFirst)),
        "units-data-first" => Ok(SerdesForm::Units(UnitOrder::DataFirst)),
        "gearbox64" => Ok(SerdesForm::Gearbox64),
        "gearbox32" => Ok(SerdesForm::Gearbox32),
        _ => Err(Fail::arg(format!(
            "option serdes={v}: expected units, units-data-first, gearbox64 or gearbox32"
        ))),
    }
}

/// The value of `input=` (`frames` only for the checker, whose keys have `fcs`).
fn input_kind(v: &str, checker: bool) -> Result<&str, Fail> {
    match v {
        "blocks" | "serial" | "xgmii" => Ok(v),
        "frames" if checker => Ok(v),
        _ if checker => Err(Fail::arg(format!(
            "option input={v}: expected blocks, serial, xgmii or frames"
        ))),
        _ => Err(Fail::arg(format!(
            "option input={v}: expected blocks, serial or xgmii"
        ))),
    }
}

fn parse(s: &str, keys: &[&str]) -> Result<Parsed, Fail> {
    let mut p = Parsed {
        opt: Options::default(),
        dic: None,
        input: RxInput::Blocks {
            scrambled: true,
            descrambler_state: None,
        },
        frames: false,
        fcs: false,
        beat: 8,
        serdes: None,
        offset: BASER_SERDES_OFFSET as u32,
        name: "expected".into(),
        dut: "dut".into(),
        scrambled: true,
        fec: FecOptions::default(),
        view: RxView::Receiver,
    };
    let (mut state, mut input, mut idle) = (None, "blocks", None);
    let mut modes = baser_engine::options::FecModes::default();
    let (mut rate, mut fec, mut period) = (
        "10g",
        "none",
        FecOptions::default().rs.marker_period_codewords,
    );
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
            "dic" => p.dic = Some(dic_mode(v)?),
            "pad" => p.opt.pad = flag(k, v)?,
            "seed" => p.opt.seed = state58(k, v)?,
            "idle" => idle = Some(number(k, v)?),
            "serdes" => p.serdes = Some(serdes_form(v)?),
            "offset" => {
                p.offset = small::<u32>(k, v)?;
                if p.offset > 65 {
                    return Err(Fail::arg(format!("option offset={v}: expected 0..65 bits")));
                }
            }
            "fcs" => p.fcs = flag(k, v)?,
            "beat" => {
                p.beat = small::<u32>(k, v)?;
                if !(1..=64).contains(&p.beat) {
                    return Err(Fail::arg(format!(
                        "option beat={v}: expected 1..64 octets a beat"
                    )));
                }
            }
            "scrambled" => p.scrambled = flag(k, v)?,
            "descrambler_state" => state = Some(state58(k, v)?),
            "strict_start" => p.opt.strict_start = flag(k, v)?,
            "max_frame_length" => p.opt.max_frame_length = Some(small(k, v)?),
            "max_events" => p.opt.max_events = small(k, v)?,
            "name" => p.name = v.into(),
            "dut" => p.dut = v.into(),
            "rate" => rate = v,
            "fec" => fec = v,
            "rs_marker_period" => period = small(k, v)?,
            "rs_bypass_correction" | "rs_bypass_indication" | "fc_error_indication" => {
                modes.set(k, flag(k, v)?).map_err(Fail::arg)?
            }
            "view" => {
                p.view = v
                    .parse()
                    .map_err(|e| Fail::arg(format!("option view={v}: {e}")))?
            }
            "ber_timer" => {
                p.opt.ber_timer = v
                    .parse()
                    .map_err(|e| Fail::arg(format!("option ber_timer={v}: {e}")))?
            }
            _ => input = input_kind(v, keys.contains(&"fcs"))?,
        }
    }
    if !p.scrambled && state.is_some() {
        return Err(Fail::arg(
            "option descrambler_state: the blocks are not scrambled (scrambled=0)",
        ));
    }
    p.opt.idle_blocks = match (idle, p.serdes) {
        (Some(n), _) => n,
        (None, Some(_)) => BASER_SERDES_IDLE as u64,
        (None, None) => p.opt.idle_blocks,
    };
    // A dump's or a bench's receiver locks on the first RS-FEC marker.
    (p.opt.rate, p.fec) = baser_engine::options::line(rate, fec, period, 1).map_err(|e| {
        let (key, why) = e.split_once(": ").unwrap_or(("fec", &e));
        let value = match key {
            "rate" => rate.to_string(),
            "rs_marker_period" => period.to_string(),
            _ => fec.to_string(),
        };
        Fail::arg(format!("option {key}={value}: {why}"))
    })?;
    modes.apply(&mut p.fec).map_err(|e| {
        let (key, why) = e.split_once(": ").unwrap_or(("fec", &e));
        Fail::arg(format!("option {key}=1: {why}"))
    })?;
    p.frames = input == "frames";
    p.input = match input {
        "serial" => RxInput::Serial,
        "xgmii" | "frames" => RxInput::Xgmii,
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
    /// Set by the first call that hands out the line: blocks, words and the serdes do not mix.
    mode: Option<Mode>,
    /// The serdes source (`serdes=`).
    serdes: Option<SerdesTx>,
    /// Frames sent, kept for a frames checker ([`baser_tx_keep_sent`]).
    sent: Option<Vec<Vec<u8>>>,
    /// Batch buffers.
    clocks: Vec<TxClock>,
    words: Vec<SerdesWord>,
}

/// How a TX model hands out its line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Blocks,
    Words,
    Serdes,
}

/// A TX model out of reset. `options`: space-separated `key=value` (NULL or `""`: defaults):
/// `profile=ieee` (or `verilog-ethernet`, ...), `ifg=12` (octets, `/T/` included),
/// `dic=on|off|strict|reset-on-idle`, `pad=1`, `seed=0x...` (the scrambler's 58-bit start state),
/// `idle=128` (idle blocks before the first frame: a receiver locks and trains on them;
/// [`BASER_SERDES_IDLE`] with `serdes=`), `scrambled=1` (0: hand out the blocks before
/// scrambling), `serdes=units|units-data-first|gearbox64|gearbox32` (a serdes source for a
/// receiver that slips: [`baser_tx_serdes`]), `offset=33` (its unit boundary before any slip,
/// 0..65 bits before the block boundary), `rate=10g|25g`, `fec=none|fc|rs` (Clause 74 BASE-R
/// FEC, or Clause 108 RS-FEC at 25g; its line is then the FEC's: [`baser_tx_next_word`], or a
/// serdes of any form, 66 line bits a unit with no block boundary, the RS-FEC marker's room
/// made by holding the PCS source), `rs_marker_period=1024` (codewords). NULL on error ([`baser_last_error`] names
/// the option, e.g. `option fec=rs: RS-FEC (Clause 108) is defined for 25GBASE-R ...`).
///
/// Limits: a frame is at most 16380 octets without its FCS (16384 with it, the MAC's
/// buffer, [`BASER_MAX_FRAME`]); longer ones are refused by the send calls.
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
            if p.serdes.is_some() && !p.scrambled {
                return Err(Fail::arg(
                    "option serdes: a serdes carries line bits (scrambled=0 is refused)",
                ));
            }
            let o = tx_options(&p);
            Ok(Box::into_raw(Box::new(baser_tx {
                live: tx_model(&p, &o)?,
                scrambled: p.scrambled,
                building: Vec::new(),
                mode: None,
                serdes: p.serdes.map(|f| SerdesTx::new(f, p.offset)),
                sent: None,
                clocks: Vec::new(),
                words: Vec::new(),
            })))
        },
    )
}

/// The TX model of `p`: below a FEC its line is the FEC's (scrambled only). A serdes then cuts
/// the FEC's line into 66-bit units as it cuts blocks without a FEC, in every form (the
/// gearbox forms too, as Python's `BaseRSerdesSource(fec=...)` does): a unit's first two bits
/// go out as its "header", though they are no sync header, and each slip moves the unit
/// boundary one bit, which is what the FEC's lock search asks of a gearbox.
fn tx_model(p: &Parsed, o: &TxOptions) -> Result<LiveTx, Fail> {
    if p.fec.kind == Fec::None {
        return Ok(if p.scrambled {
            LiveTx::line_only(o)
        } else {
            LiveTx::new(o)
        });
    }
    let fec = p.fec.kind;
    if !p.scrambled {
        return Err(Fail::arg(format!(
            "option fec={fec}: the FEC's line is scrambled (scrambled=0 is refused)"
        )));
    }
    LiveTx::with_fec(o, p.opt.rate, &p.fec).map_err(|e| Fail::arg(format!("option fec={fec}: {e}")))
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
    if let Some(sent) = tx.sent.as_mut() {
        sent.push(body.to_vec());
    }
    Ok(id as i64)
}

/// The longest frame the TX model sends and the checkers take, FCS included (the MAC's
/// buffer): 16380 octets given without FCS, 16384 with it.
pub const BASER_MAX_FRAME: i32 = 16384;

/// The elements of a batch call from SystemVerilog: the size of the fixed-size arrays of
/// `baser_pkg.sv` (C callers may pass any count).
pub const BASER_BATCH: i32 = 64;

/// Gives the MAC a frame: DA to the end of the payload (the MAC pads it and appends the FCS),
/// or with `fcs_included` its last 4 octets are the FCS, sent as is without padding. It
/// starts as soon as the gap allows. At most [`BASER_MAX_FRAME`] octets with the FCS (16380
/// given without it): a longer frame is refused ([`BASER_E_ARG`]). Returns its id (0, 1, ...)
/// or an error code.
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

/// Appends `n` octets from `words`, eight a word, octet 0 of a word in its bits 7:0.
///
/// # Safety
/// `words` holds `n` / 8 (rounded up) words.
unsafe fn append_words(to: &mut Vec<u8>, words: *const u64, n: i32) -> Result<(), Fail> {
    let n = count(n)?;
    // SAFETY: the caller's contract.
    let w = unsafe { array(words, i32::try_from(n.div_ceil(8)).unwrap_or(i32::MAX))? };
    if to.len() + n > BASER_MAX_FRAME as usize + 8 {
        return Err(Fail::arg(format!(
            "a frame of more than {} octets",
            BASER_MAX_FRAME
        )));
    }
    for x in w {
        to.extend_from_slice(&x.to_le_bytes());
    }
    to.truncate(to.len() - (w.len() * 8 - n));
    Ok(())
}

/// Appends `n` octets to the frame being built from `words`, eight a word (octet 0 of each in
/// bits 7:0): a DPI call per [`BASER_BATCH`] words (512 octets) from SystemVerilog.
///
/// # Safety
/// `tx` is a live handle; `words` holds `n` / 8 (rounded up) words.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_octets(tx: *mut baser_tx, words: *const u64, n: i32) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        // SAFETY: the caller's contract.
        unsafe { append_words(&mut tx.building, words, n)? };
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
        let mut data = std::mem::take(&mut tx.building);
        let r = send(tx, &data, fcs_included);
        // The buffer is kept for the next frame (no allocation a frame).
        data.clear();
        tx.building = data;
        r
    })
}

fn mode(tx: &mut baser_tx, mode: Mode) -> Result<(), Fail> {
    if (mode == Mode::Serdes) != tx.serdes.is_some() {
        return Err(Fail::state(if mode == Mode::Serdes {
            "baser_tx_serdes: this TX model was made without serdes="
        } else {
            "a TX model made with serdes= hands out its line by baser_tx_serdes only"
        }));
    }
    match tx.mode {
        Some(m) if m != mode => Err(Fail::state(
            "baser_tx_next_block(s) and baser_tx_next_word do not mix on one TX model",
        )),
        _ => {
            tx.mode = Some(mode);
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
        mode(tx, Mode::Blocks)?;
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
        mode(tx, Mode::Words)?;
        let v = tx.live.next_word(w)?;
        // SAFETY: checked non-null above.
        unsafe { put(word, v)? };
        Ok(BASER_OK)
    })
}

/// The element count of a batch call's arrays.
fn count(n: i32) -> Result<usize, Fail> {
    usize::try_from(n).map_err(|_| Fail::arg(format!("a batch of {n} elements")))
}

/// `n` clocks at once: the next `n` blocks into `header[0..n]`, `payload[0..n]` and their event
/// bits into `events[0..n]` (NULL: not wanted), as `n` calls of [`baser_tx_next_block`] would,
/// except that a frame given after this call starts after these blocks (a bench that hands
/// them out one a clock takes up to `n` clocks of latency). An idle stretch is made in one go:
/// cheaper than `n` calls. Returns 0 or an error code.
///
/// # Safety
/// `tx` is a live handle; `header` and `payload` (and `events` unless NULL) have room for `n`
/// elements.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_next_blocks(
    tx: *mut baser_tx,
    header: *mut u8,
    payload: *mut u64,
    events: *mut u8,
    n: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        let n = count(n)?;
        if n > 0 && (header.is_null() || payload.is_null()) {
            return Err(Fail(BASER_E_NULL, "a null output array".into()));
        }
        mode(tx, Mode::Blocks)?;
        tx.clocks.resize(n, TxClock::default());
        tx.live
            .clocks(&mut tx.clocks)
            .map_err(|e| Fail::arg(e.to_string()))?;
        for (i, c) in tx.clocks.iter().enumerate() {
            let b = if tx.scrambled { c.line } else { c.unscrambled };
            // SAFETY: i < n; the caller's contract: the arrays have room for n.
            unsafe {
                header.add(i).write(b.sync.to_bits());
                payload.add(i).write(b.payload);
                if !events.is_null() {
                    events.add(i).write(c.events());
                }
            }
        }
        Ok(BASER_OK)
    })
}

/// Flag of [`baser_tx_serdes`]: the clock carries data bits.
pub const BASER_SERDES_DATA_VALID: u8 = 1;
/// Flag: the clock carries a sync header.
pub const BASER_SERDES_HEADER_VALID: u8 = 2;
/// Flag: the first clock of a gearbox sequence (every clock for units).
pub const BASER_SERDES_SEQUENCE_START: u8 = 4;

/// The serdes source (a TX model made with `serdes=`): the next `n` clocks of what a serdes
/// hands a receiver that finds block lock by bit slip, into `header[0..n]`, `data[0..n]` and
/// `flags[0..n]` ([`BASER_SERDES_DATA_VALID`], [`BASER_SERDES_HEADER_VALID`],
/// [`BASER_SERDES_SEQUENCE_START`]; NULL: not wanted).
///
/// - `serdes=units`: a 66-bit unit a clock, `header` its first 2 line bits, `data` the next 64
///   (`units-data-first`: `data` the first 64, `header` the last 2);
/// - `serdes=gearbox64`: a 64b/66b gearbox's 64-bit words, 32 blocks in 33 clocks (the 33rd
///   carries nothing); `gearbox32`: 32-bit words, a block over two clocks (the header with the
///   first), 32 blocks in 66 clocks (the last two carry nothing).
///
/// The line starts `offset=` bits into a unit; each slip drops one line bit at the next unit
/// (the next header clock), moving the boundary one bit. `used`: how many clocks of the
/// previous call's batch went on the wire (the rest are made again, from where they began:
/// a batch can be cut short by a slip); `slip`: the receiver asked for a bit slip, made from
/// the first clock of this batch on. One clock at a time: `n` = 1, `used` = 1. Returns 0 or an
/// error code.
///
/// # Safety
/// `tx` is a live handle; `header` and `data` (and `flags` unless NULL) have room for `n`
/// elements.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_serdes(
    tx: *mut baser_tx,
    used: i32,
    slip: i32,
    header: *mut u8,
    data: *mut u64,
    flags: *mut u8,
    n: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        let n = count(n)?;
        let used = count(used)?;
        if n > 0 && (header.is_null() || data.is_null()) {
            return Err(Fail(BASER_E_NULL, "a null output array".into()));
        }
        mode(tx, Mode::Serdes)?;
        let Some(s) = tx.serdes.as_mut() else {
            return Err(Fail::state("no serdes"));
        };
        s.keep(used);
        tx.words.resize(n, SerdesWord::default());
        s.words(&mut tx.live, slip != 0, &mut tx.words)
            .map_err(|e| Fail::arg(e.to_string()))?;
        for (i, w) in tx.words.iter().enumerate() {
            let flag = |on: bool, bit: u8| if on { bit } else { 0 };
            let f = flag(w.data_valid, BASER_SERDES_DATA_VALID)
                | flag(w.header_valid, BASER_SERDES_HEADER_VALID)
                | flag(w.sequence == 0, BASER_SERDES_SEQUENCE_START);
            // SAFETY: i < n; the caller's contract: the arrays have room for n.
            unsafe {
                header.add(i).write(w.header);
                data.add(i).write(w.data);
                if !flags.is_null() {
                    flags.add(i).write(f);
                }
            }
        }
        Ok(BASER_OK)
    })
}

/// From now on the TX model keeps the frames it is given, for a frames checker that judges
/// what a DUT delivers of them ([`baser_check_expect_sent`]). Returns 0 or an error code.
///
/// # Safety
/// `tx` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_tx_keep_sent(tx: *mut baser_tx) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let tx = unsafe { handle(tx)? };
        tx.sent.get_or_insert_with(Vec::new);
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
/// descrambler), `strict_start=0`, `max_events=20`, `rate=10g|25g` (the BER monitor: 16
/// invalid headers in 125 us, or 97 in 2 ms), `fec=none|fc|rs` with `rs_marker_period=1024`
/// (serial input: the FEC locks from any bit offset, RS-FEC on its first marker, and the PCS
/// decodes its blocks; counters [`BASER_CNT_FEC_LOCK`] ... [`BASER_CNT_FEC_SYMBOLS`], and
/// the `fec` object of the report), `view=receiver|offline` (serial input: `receiver`, the
/// default, finds block lock as a receiver does and decodes nothing before it, so frames sent
/// before lock are lost; `offline` holds the bits until lock is found and decodes them from the
/// first whole block, so those frames are delivered too: Python's `RxModel(view=...)`, and
/// `baser decode --offline`). NULL on error.
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
            if p.view == RxView::Offline && p.input != RxInput::Serial {
                return Err(Fail::arg("option view=offline: only for input=serial"));
            }
            let mut live = LiveRx::with_view(&rx_options(&p), p.input, p.view);
            live.set_fec(&rx_options(&p), p.opt.rate, &p.fec)
                .map_err(|e| Fail::arg(format!("option fec={}: {e}", p.fec.kind)))?;
            Ok(Box::into_raw(Box::new(baser_rx {
                live,
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
        w @ BASER_CNT_FEC_LOCK..=BASER_CNT_FEC_SYMBOLS => return fec_counter(live, w),
        w => return Err(Fail::arg(format!("counter {w}: expected 0..12"))),
    })
}

fn fec_counter(live: &LiveRx, which: i32) -> Result<i64, Fail> {
    let f = live
        .fec()
        .ok_or_else(|| Fail::state(format!("counter {which}: this model has no FEC (fec=)")))?;
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    Ok(match which {
        BASER_CNT_FEC_LOCK => i64::from(f.lock.acquired_at_bit.is_some() && f.lock.losses == 0),
        BASER_CNT_FEC_CODEWORDS => n(f.codewords),
        BASER_CNT_FEC_CORRECTED => n(f.corrected_codewords),
        BASER_CNT_FEC_UNCORRECTED => n(f.uncorrected_codewords),
        _ => n(f.corrected_symbols.unwrap_or(f.corrected_bits)),
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
        let mut doc = baser_engine::decode_report::DecodeReport::new(
            rx.name.clone(),
            rx.profile,
            pcs,
            counts,
        );
        if let Some(f) = rx.live.fec() {
            doc = doc.with_fec(f.clone());
        }
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
    /// A frames checker (`input=frames`): the frame being delivered.
    delivering: Option<Delivering>,
    /// A batch's blocks (kept: no allocation a batch).
    blocks: Vec<Block>,
}

/// The frame interface of a frames checker: beats counted, the frame under way.
struct Delivering {
    fcs_included: bool,
    /// A frame is under way (a beat without `last` came).
    open: bool,
    beats: u64,
    first_beat: u64,
    error: bool,
    octets: Vec<u8>,
}

/// A checker out of reset. `options`: those of [`baser_rx_new`], and `name=...` (the expected
/// frames' name in the reports) and `dut=...` (the DUT stream's). `input=frames` makes a frames
/// checker: it takes the frames a DUT delivers on a frame interface (an AXI stream's beats,
/// [`baser_check_push_beat`], or whole frames, [`baser_check_push_frame`]) rather than a line,
/// with `fcs=0` (the DUT delivers frames without their FCS; 1: with it) and `beat=8` (octets of
/// a full beat: positions in its messages count beats). NULL on error.
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
            let opt = rx_options(&p);
            let mut live = if p.frames {
                LiveCheck::frames(&opt, (p.name, p.dut), p.beat)
            } else {
                LiveCheck::new(&opt, p.input, (p.name, p.dut))
            };
            live.set_fec(&opt, p.opt.rate, &p.fec)
                .map_err(|e| Fail::arg(format!("option fec={}: {e}", p.fec.kind)))?;
            Ok(Box::into_raw(Box::new(baser_check {
                live,
                building: Vec::new(),
                text: CString::default(),
                finished: false,
                delivering: p.frames.then(|| Delivering {
                    fcs_included: p.fcs,
                    open: false,
                    beats: 0,
                    first_beat: 0,
                    error: false,
                    octets: Vec::new(),
                }),
                blocks: Vec::new(),
            })))
        },
    )
}

/// A counter of the checker's receiver, as [`baser_rx_counter`] reads it ([`BASER_CNT_BLOCKS`]
/// ... [`BASER_CNT_FEC_SYMBOLS`]), or an error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_counter(c: *mut baser_check, which: i32) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        counter(c.live.receiver(), which)
    })
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
/// must arrive. Limits: the checker's MAC receiver takes frames up to `max_frame_length`
/// (with FCS; 1518 for `profile=ieee`: set it for jumbo frames, at most [`BASER_MAX_FRAME`]);
/// a longer one is received as `too_long`. Returns its index (0, 1, ...) or an error code.
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

/// Appends `n` octets to the frame being built from `words`, eight a word (as
/// [`baser_tx_octets`]).
///
/// # Safety
/// `c` is a live handle; `words` holds `n` / 8 (rounded up) words.
#[no_mangle]
pub unsafe extern "C" fn baser_check_expect_octets(
    c: *mut baser_check,
    words: *const u64,
    n: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        // SAFETY: the caller's contract.
        unsafe { append_words(&mut c.building, words, n)? };
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
        let mut data = std::mem::take(&mut c.building);
        let r = expect(c, &data, fcs_included);
        data.clear();
        c.building = data;
        r
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

/// `n` clocks of the DUT at once: blocks `header[0..n]`, `payload[0..n]`, as `n` calls of
/// [`baser_check_push_block`] (the same divergences, found at the same blocks up to the first;
/// see `LiveCheck::push_blocks`), at a fraction of the cost. Returns the divergences they
/// revealed, or an error code.
///
/// # Safety
/// `c` is a live handle; the arrays hold `n` elements.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_blocks(
    c: *mut baser_check,
    header: *const u8,
    payload: *const u64,
    n: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let (c, h, p) = unsafe { (handle(c)?, array(header, n)?, array(payload, n)?) };
        // Every header checked first (nothing is pushed when one is bad), then the blocks
        // made without a check each.
        if let Some(&bad) = h.iter().find(|&&h| h > 3) {
            block(bad, 0)?;
        }
        let mut blocks = std::mem::take(&mut c.blocks);
        blocks.clear();
        blocks.extend(h.iter().zip(p).map(|(&h, &p)| Block {
            sync: SyncHeader::from_bits(h),
            payload: p,
        }));
        let r = c.live.push_blocks(&blocks);
        c.blocks = blocks;
        Ok(new_count(r?))
    })
}

/// `n` clocks of a serial DUT at once: serdes words of `width` bits, `words[0..n]`. Returns the
/// new divergences.
///
/// # Safety
/// `c` is a live handle; `words` holds `n` elements.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_words(
    c: *mut baser_check,
    width: i32,
    words: *const u64,
    n: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let (c, w) = unsafe { (handle(c)?, array(words, n)?) };
        Ok(new_count(c.live.push_words(self::width(width)?, w)?))
    })
}

/// `n` clocks of an XGMII DUT at once: `data[0..n]`, `ctrl[0..n]`. Returns the new divergences.
///
/// # Safety
/// `c` is a live handle; the arrays hold `n` elements.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_transfers(
    c: *mut baser_check,
    data: *const u64,
    ctrl: *const u8,
    n: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let (c, d, k) = unsafe { (handle(c)?, array(data, n)?, array(ctrl, n)?) };
        let words: Vec<XgmiiWord> = d
            .iter()
            .zip(k)
            .map(|(&data, &ctrl)| XgmiiWord { data, ctrl })
            .collect();
        Ok(new_count(c.live.push_transfers(&words)?))
    })
}

/// An `n`-element input array (NULL with `n` = 0).
///
/// # Safety
/// `p` points to `n` readable elements, or `n` is 0.
unsafe fn array<'a, T>(p: *const T, n: i32) -> Result<&'a [T], Fail> {
    let n = count(n)?;
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Fail(BASER_E_NULL, "a null array with a length".into()));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

fn kept(c: &baser_check, k: i64) -> Result<&baser_engine::live::Divergence, Fail> {
    usize::try_from(k)
        .ok()
        .and_then(|k| c.live.divergences().get(k))
        .ok_or_else(|| {
            Fail::arg(format!(
                "divergence {k}: {} are kept (of {} found)",
                c.live.divergences().len(),
                c.live.count()
            ))
        })
}

/// The block (a frames checker: the beat) where divergence `k` (0 = the first found; the first
/// 1000 are kept) is in the DUT's stream, or an error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_divergence_block(c: *mut baser_check, k: i64) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(kept(c, k)?.block as i64)
    })
}

/// The block (beat) whose push found divergence `k`, or an error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_divergence_found_at(c: *mut baser_check, k: i64) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(kept(c, k)?.found_at as i64)
    })
}

/// What divergence `k` is, one line without its block (`""` when `k` is not kept).
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_divergence(c: *mut baser_check, k: i64) -> *const c_char {
    guard(
        |_| c"".as_ptr(),
        || {
            // SAFETY: the caller's contract.
            let c = unsafe { handle(c)? };
            let m = kept(c, k)?.what.clone();
            Ok(keep(&mut c.text, &m))
        },
    )
}

fn delivering(c: &mut baser_check) -> Result<&mut Delivering, Fail> {
    if c.finished {
        return Err(Fail::state("the checker was finished"));
    }
    c.delivering
        .as_mut()
        .ok_or_else(|| Fail::state("a delivered frame to a checker made without input=frames"))
}

/// Ends the frame under way at beat `last_beat`; returns the divergences it revealed.
fn deliver(c: &mut baser_check, last_beat: u64) -> Result<usize, Fail> {
    let d = delivering(c)?;
    d.open = false;
    let octets = std::mem::take(&mut d.octets);
    let (fcs, error, first) = (d.fcs_included, std::mem::take(&mut d.error), d.first_beat);
    let n = c
        .live
        .push_delivered(&octets, fcs, error, (first, last_beat))?;
    if let Some(d) = c.delivering.as_mut() {
        d.octets = octets;
        d.octets.clear();
    }
    Ok(n)
}

/// Flag of [`baser_check_push_beat`]: the frame's last beat (AXI `tlast`).
pub const BASER_BEAT_LAST: i32 = 1;
/// Flag: the DUT marks the frame bad (AXI `tuser` on the last beat; any beat counts).
pub const BASER_BEAT_ERROR: i32 = 2;

fn beat(c: &mut baser_check, data: u64, keep: u8, flags: i32) -> Result<usize, Fail> {
    let d = delivering(c)?;
    if !d.open {
        d.open = true;
        d.first_beat = d.beats;
    }
    let bytes = data.to_le_bytes();
    for (lane, octet) in bytes.iter().enumerate() {
        if keep >> lane & 1 == 1 {
            d.octets.push(*octet);
        }
    }
    d.error |= flags & BASER_BEAT_ERROR != 0;
    let at = d.beats;
    d.beats += 1;
    if flags & BASER_BEAT_LAST != 0 {
        return deliver(c, at);
    }
    if d.octets.len() > BASER_MAX_FRAME as usize + 64 {
        return Err(Fail::state(format!(
            "a delivered frame of more than {} octets without a last beat",
            BASER_MAX_FRAME + 64
        )));
    }
    Ok(0)
}

/// One beat of the DUT's frame interface (a frames checker; call it for each beat the DUT
/// hands over, an AXI stream's `tvalid && tready`): up to 8 octets of `data`, octet i in bits
/// 8i+7..8i, taken where bit i of `keep` is set (`tkeep`); `flags`: [`BASER_BEAT_LAST`] on the
/// frame's last beat, [`BASER_BEAT_ERROR`] when the DUT marks the frame bad. A frame is judged
/// at its last beat. Beat k is the k-th beat pushed. Returns the divergences found, or an
/// error code.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_beat(
    c: *mut baser_check,
    data: u64,
    keep: u8,
    flags: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(new_count(beat(c, data, keep, flags)?))
    })
}

/// `n` beats at once ([`baser_check_push_beat`] for each): `data[0..n]`, `keep[0..n]`,
/// `flags[0..n]`. Returns the divergences found, or an error code.
///
/// # Safety
/// `c` is a live handle; the arrays hold `n` elements.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_beats(
    c: *mut baser_check,
    data: *const u64,
    keep: *const u8,
    flags: *const u8,
    n: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let (c, d, k, f) = unsafe {
            (
                handle(c)?,
                array(data, n)?,
                array(keep, n)?,
                array(flags, n)?,
            )
        };
        let mut found = 0;
        for ((&d, &k), &f) in d.iter().zip(k).zip(f) {
            found += beat(c, d, k, i32::from(f))?;
        }
        Ok(new_count(found))
    })
}

/// A whole frame the DUT delivered (a frames checker): its octets from the destination address
/// on (with the FCS when made with `fcs=1`), `error` non-zero when the DUT marks it bad. It
/// counts as one beat. Returns the divergences found, or an error code.
///
/// # Safety
/// `c` is a live handle; `frame` points to `len` octets.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_frame(
    c: *mut baser_check,
    frame: *const u8,
    len: usize,
    error: i32,
) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let (c, data) = unsafe { (handle(c)?, bytes(frame, len)?) };
        push_whole(c, data, error)
    })
}

fn push_whole(c: &mut baser_check, data: &[u8], error: i32) -> Result<i32, Fail> {
    let d = delivering(c)?;
    if d.open {
        return Err(Fail::state(
            "a whole frame pushed while a frame's beats are under way",
        ));
    }
    d.octets.extend_from_slice(data);
    d.error = error != 0;
    d.first_beat = d.beats;
    let at = d.beats;
    d.beats += 1;
    Ok(new_count(deliver(c, at)?))
}

/// The frame built by [`baser_check_expect_bytes`] as a whole frame the DUT delivered (DPI:
/// [`baser_check_push_frame`] eight octets a call). Returns the divergences found.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_push_built(c: *mut baser_check, error: i32) -> i32 {
    guard(code32, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        let mut data = std::mem::take(&mut c.building);
        let r = push_whole(c, &data, error);
        data.clear();
        c.building = data;
        r
    })
}

/// Expects the frames TX model `tx` was given since the last call (it keeps them from its
/// [`baser_tx_keep_sent`] on), in order: the frames a DUT must deliver of what the model sent
/// it. Returns how many, or an error code.
///
/// # Safety
/// `c` and `tx` are live handles.
#[no_mangle]
pub unsafe extern "C" fn baser_check_expect_sent(c: *mut baser_check, tx: *mut baser_tx) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let (c, tx) = unsafe { (handle(c)?, handle(tx)?) };
        if c.finished {
            return Err(Fail::state("the checker was finished"));
        }
        let sent = tx.sent.as_mut().ok_or_else(|| {
            Fail::state("the TX model keeps no frames: call baser_tx_keep_sent first")
        })?;
        let n = sent.len();
        for f in sent.drain(..) {
            c.live.expect(&f);
        }
        Ok(n as i64)
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

/// The block (0 = the first block pushed) of the earliest divergence in the DUT's stream
/// (not always the first found: a frame is judged at its end, after a PCS event a block it
/// held caused): an invalid header's block, the block of a frame's first differing octet,
/// the `/S/` of a frame with a bad class. A frames checker: the beat. -1 when there is none.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_first_block(c: *mut baser_check) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(c.live.earliest().map_or(-1, |d| d.block as i64))
    })
}

/// The block whose push found the earliest divergence ([`baser_check_first_block`]; a frame
/// is judged when the MAC delivers it, one block after its `/T/`). -1 when there is none.
///
/// # Safety
/// `c` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn baser_check_first_found_at(c: *mut baser_check) -> i64 {
    guard(code64, || {
        // SAFETY: the caller's contract.
        let c = unsafe { handle(c)? };
        Ok(c.live.earliest().map_or(-1, |d| d.found_at as i64))
    })
}

/// The earliest divergence's message, `"block B: what"` (a frames checker: `"beat B: what"`;
/// `""` when none).
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
            let unit = c.live.unit();
            let m = c
                .live
                .earliest()
                .map_or(String::new(), |d| format!("{unit} {}: {}", d.block, d.what));
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
            let unit = c.live.unit();
            let m = c
                .live
                .last()
                .map_or(String::new(), |d| format!("{unit} {}: {}", d.block, d.what));
            Ok(keep(&mut c.text, &m))
        },
    )
}

/// The report as JSON, each frame that failed with the length of the frame it was paired
/// with (`received_length`, octets without FCS, as `length`).
fn with_received_lengths(
    report: &baser_engine::frame_check::FrameCheckReport,
    live: &LiveCheck,
) -> Result<serde_json::Value, Fail> {
    let mut v = serde_json::to_value(report)
        .map_err(|e| Fail(BASER_E_INTERNAL, format!("the JSON report: {e}")))?;
    let frames = v.get_mut("frames").and_then(|f| f.as_array_mut());
    for f in frames.into_iter().flatten() {
        let failed = f.get("status").and_then(|s| s.as_str()) != Some("matched")
            || f.get("class").and_then(|s| s.as_str()) != Some("ok");
        let len = f
            .get("received_index")
            .and_then(serde_json::Value::as_u64)
            .and_then(|i| live.received_length(i));
        if let (true, Some(len), Some(o)) = (failed, len, f.as_object_mut()) {
            let mut out = serde_json::Map::new();
            for (k, x) in std::mem::take(o) {
                let after = k == "length";
                out.insert(k, x);
                if after {
                    out.insert("received_length".into(), len.saturating_sub(4).into());
                }
            }
            *o = out;
        }
    }
    Ok(v)
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
        if c.delivering.as_ref().is_some_and(|d| d.open) {
            // A frame without its last beat: delivered as it is, marked bad.
            if let Some(d) = c.delivering.as_mut() {
                d.error = true;
            }
            let at = c
                .delivering
                .as_ref()
                .map_or(0, |d| d.beats.saturating_sub(1));
            deliver(c, at)?;
        }
        let (report, cases) = c.live.finish()?;
        c.finished = true;
        if !json.is_empty() {
            write_json(json, &with_received_lengths(&report, &c.live)?)?;
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

    /// `view=`: with two idle blocks before the first frame (the descrambler's training), the
    /// receiver's view loses the frames sent before block lock (64 good headers); the offline
    /// view delivers every one; a bad view is refused.
    #[test]
    fn the_rx_view_decides_whether_frames_before_lock_arrive() {
        let frames: Vec<Vec<u8>> = (0..12).map(|i| vec![i as u8; 200]).collect();
        let got = |view: &CStr| -> i64 {
            // SAFETY: valid strings, handles from *_new, writable outputs.
            unsafe {
                let tx = baser_tx_new(c"idle=2".as_ptr());
                let rx = baser_rx_new(view.as_ptr());
                assert!(!tx.is_null() && !rx.is_null());
                for f in &frames {
                    assert!(baser_tx_send(tx, f.as_ptr(), f.len(), 0) >= 0);
                }
                let mut w = 0u64;
                for _ in 0..800 {
                    assert_eq!(baser_tx_next_word(tx, 64, &mut w), 0);
                    // (frames waiting: never an error code)
                    assert!(baser_rx_push_word(rx, 64, w) >= 0);
                }
                let mut n = 0;
                while baser_rx_frame_len(rx) >= 0 {
                    n += 1;
                    baser_rx_frame_pop(rx);
                }
                baser_tx_free(tx);
                baser_rx_free(rx);
                n
            }
        };
        let receiver = got(c"input=serial");
        assert!(receiver <= 10, "{receiver}");
        assert_eq!(got(c"input=serial view=receiver"), receiver);
        assert_eq!(got(c"input=serial view=offline"), 12);
        for bad in [c"input=serial view=later", c"input=blocks view=offline"] {
            // SAFETY: a valid string.
            assert!(unsafe { baser_rx_new(bad.as_ptr()) }.is_null(), "{bad:?}");
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

    fn frames(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| (0..60 + 97 * i).map(|j| (j * 7 + i) as u8).collect())
            .collect()
    }

    /// A batch of blocks is as many single calls; a checker's batch push judges alike.
    #[test]
    fn batch_calls_equal_single_calls() {
        // SAFETY: handles from *_new; buffers of the sizes given.
        unsafe {
            let a = baser_tx_new(c"idle=70".as_ptr());
            let b = baser_tx_new(c"idle=70".as_ptr());
            for f in frames(6) {
                assert!(baser_tx_send(a, f.as_ptr(), f.len(), 0) >= 0);
                assert!(baser_tx_send(b, f.as_ptr(), f.len(), 0) >= 0);
            }
            let (one, many) = (baser_check_new(c"".as_ptr()), baser_check_new(c"".as_ptr()));
            for f in frames(6) {
                assert!(baser_check_expect(one, f.as_ptr(), f.len(), 0) >= 0);
                assert!(baser_check_expect(many, f.as_ptr(), f.len(), 0) >= 0);
            }
            let (mut h, mut d, mut e) = ([0u8; 64], [0u64; 64], [0u8; 64]);
            for round in 0..20 {
                assert_eq!(
                    baser_tx_next_blocks(a, h.as_mut_ptr(), d.as_mut_ptr(), e.as_mut_ptr(), 64),
                    0
                );
                if round == 5 {
                    d[3] ^= 1 << 30; // a corrupted block inside a frame
                }
                for i in 0..64 {
                    let (mut h1, mut d1) = (0u8, 0u64);
                    let ev = baser_tx_next_block(b, &mut h1, &mut d1);
                    if round == 5 && i == 3 {
                        d1 ^= 1 << 30;
                    }
                    assert_eq!((h[i], d[i], i32::from(e[i])), (h1, d1, ev));
                    assert!(baser_check_push_block(one, h1, d1) >= 0);
                }
                assert!(baser_check_push_blocks(many, h.as_ptr(), d.as_ptr(), 64) >= 0);
            }
            assert!(baser_check_divergences(one) > 0);
            assert_eq!(baser_check_divergences(many), baser_check_divergences(one));
            assert_eq!(baser_check_first_block(many), baser_check_first_block(one));
            assert_eq!(
                baser_check_first_found_at(many),
                baser_check_first_found_at(one)
            );
            assert_eq!(
                baser_check_divergence_block(many, 0),
                baser_check_divergence_block(one, 0)
            );
            assert!(!CStr::from_ptr(baser_check_divergence(many, 0)).is_empty());
            assert_eq!(
                baser_check_divergence_block(many, 1000),
                i64::from(BASER_E_ARG)
            );
            assert_eq!(
                baser_check_finish(many, std::ptr::null(), std::ptr::null()),
                1
            );
            for x in [a, b] {
                baser_tx_free(x);
            }
            for x in [one, many] {
                baser_check_free(x);
            }
        }
    }

    /// A receiver that slips as Fig. 49-14 does finds lock on the serdes source's units from
    /// the default offset; the units after lock are the line, a checker's blocks.
    #[test]
    fn a_serdes_source_is_locked_by_slips() {
        for (form, n) in [
            ("serdes=units", 1),
            ("serdes=units", 64),
            ("serdes=gearbox64", 64),
        ] {
            // SAFETY: handles from *_new; buffers of the sizes given.
            unsafe {
                let opts = CString::new(form).unwrap_or_default();
                let tx = baser_tx_new(opts.as_ptr());
                let chk = baser_check_new(c"".as_ptr());
                for f in frames(4) {
                    assert!(baser_tx_send(tx, f.as_ptr(), f.len(), 0) >= 0);
                    assert!(baser_check_expect(chk, f.as_ptr(), f.len(), 0) >= 0);
                }
                let (mut h, mut d, mut f) = ([0u8; 64], [0u64; 64], [0u8; 64]);
                let (mut good, mut slips, mut wait, mut used, mut slip) = (0, 0, 0, 0, 0);
                let mut locked_at = None;
                for clock in 0..9000 {
                    if used == n || slip != 0 || clock == 0 {
                        let r = baser_tx_serdes(
                            tx,
                            used as i32,
                            slip,
                            h.as_mut_ptr(),
                            d.as_mut_ptr(),
                            f.as_mut_ptr(),
                            n as i32,
                        );
                        assert_eq!(r, 0, "{}", last());
                        (used, slip) = (0, 0);
                    }
                    let (hdr, data, flags) = (h[used], d[used], f[used]);
                    used += 1;
                    if flags & BASER_SERDES_HEADER_VALID == 0 {
                        continue;
                    }
                    if good >= 64 {
                        locked_at.get_or_insert(clock);
                        assert!(baser_check_push_block(chk, hdr, data) >= 0);
                    } else if wait > 0 {
                        wait -= 1;
                    } else if hdr == 1 || hdr == 2 {
                        good += 1;
                    } else {
                        (good, slip, wait) = (0, 1, 16);
                        slips += 1;
                    }
                }
                assert!(locked_at.is_some_and(|c| c < 2000), "{form}: {locked_at:?}");
                assert!(slips >= BASER_SERDES_OFFSET, "{form}: {slips} slips");
                assert_eq!(baser_check_divergences(chk), 0, "{form}: {:?}", {
                    CStr::from_ptr(baser_check_first(chk)).to_string_lossy()
                });
                assert_eq!(
                    baser_check_finish(chk, std::ptr::null(), std::ptr::null()),
                    0
                );
                let mut w = 0;
                assert_eq!(baser_tx_next_word(tx, 64, &mut w), BASER_E_STATE);
                baser_tx_free(tx);
                baser_check_free(chk);
            }
        }
    }

    /// A frames checker takes beats (keep, last, error) and whole frames, expects what a TX
    /// model was given, and reports the received length of a frame that failed.
    #[test]
    fn a_frames_checker_judges_what_a_dut_delivers() {
        // SAFETY: handles from *_new; buffers of the sizes given.
        unsafe {
            let tx = baser_tx_new(c"".as_ptr());
            let mon = baser_check_new(c"input=frames fcs=0".as_ptr());
            assert_eq!(baser_tx_keep_sent(tx), 0);
            let fs = frames(4);
            for f in &fs {
                assert!(baser_tx_send(tx, f.as_ptr(), f.len(), 0) >= 0);
            }
            assert_eq!(baser_check_expect_sent(mon, tx), 4);
            let beats = |f: &[u8], error: bool| {
                let mut found = 0;
                for (i, c) in f.chunks(8).enumerate() {
                    let mut w = [0u8; 8];
                    w[..c.len()].copy_from_slice(c);
                    let last = (i + 1) * 8 >= f.len();
                    let flags = (i32::from(last) * BASER_BEAT_LAST)
                        | (i32::from(last && error) * BASER_BEAT_ERROR);
                    let keep = ((1u16 << c.len()) - 1) as u8;
                    found += baser_check_push_beat(mon, u64::from_le_bytes(w), keep, flags);
                }
                found
            };
            assert_eq!(beats(&fs[0], false), 0);
            assert_eq!(beats(&fs[1], true), 1, "the DUT flagged it bad");
            let short = &fs[2][..fs[2].len() - 8];
            assert_eq!(beats(short, false), 1);
            assert_eq!(
                baser_check_push_frame(mon, fs[3].as_ptr(), fs[3].len(), 0),
                0
            );
            assert_eq!(baser_check_push_block(mon, 1, 0), BASER_E_STATE);
            let dir = std::env::temp_dir().join(format!("baser-capi-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap_or_default();
            let json = dir.join("frames.json");
            let path = CString::new(json.to_string_lossy().as_bytes()).unwrap_or_default();
            assert_eq!(baser_check_finish(mon, path.as_ptr(), std::ptr::null()), 1);
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_default())
                    .unwrap_or_default();
            let f2 = &v["frames"][2];
            assert_eq!(f2["length"], fs[2].len());
            assert_eq!(f2["received_length"], short.len(), "{f2}");
            assert_eq!(v["frames"][0].get("received_length"), None);
            std::fs::remove_dir_all(&dir).unwrap_or_default();
            baser_tx_free(tx);
            baser_check_free(mon);
        }
    }

    #[test]
    fn new_options_and_calls_are_checked() {
        for (opts, keys, needle) in [
            ("serdes=bits", TX_KEYS, "serdes=bits"),
            ("offset=66", TX_KEYS, "0..65"),
            ("input=frames", RX_KEYS, "input=frames"),
            ("input=frames beat=0", CHECK_KEYS, "beat=0"),
            ("ber_timer=5parsecs", RX_KEYS, "ber_timer=5parsecs"),
            ("ber_timer=100blocks", TX_KEYS, "unknown option `ber_timer`"),
        ] {
            let Err(Fail(code, m)) = parse(opts, keys) else {
                panic!("{opts} accepted")
            };
            assert_eq!(code, BASER_E_ARG);
            assert!(m.contains(needle), "{opts}: {m}");
        }
        let p = parse("serdes=gearbox32", TX_KEYS).ok().unwrap();
        assert_eq!(p.opt.idle_blocks, BASER_SERDES_IDLE as u64);
        // A bench's shortened BER timer, in blocks or time, for the receivers and checkers.
        for keys in [RX_KEYS, CHECK_KEYS] {
            let p = parse("ber_timer=100blocks", keys).ok().unwrap();
            assert_eq!(p.opt.rx().ber_timer.window_ticks(), 400);
            let p = parse("ber_timer=640ns", keys).ok().unwrap();
            assert_eq!(p.opt.rx().ber_timer.window_ticks(), 400);
            assert!(parse("", keys)
                .ok()
                .unwrap()
                .opt
                .rx()
                .ber_timer
                .is_standard());
        }
        // SAFETY: null and live handles, null arrays: what is tested.
        unsafe {
            let tx = baser_tx_new(c"scrambled=0 serdes=units".as_ptr());
            assert!(tx.is_null());
            let tx = baser_tx_new(c"".as_ptr());
            let mut h = [0u8; 1];
            assert_eq!(
                baser_tx_serdes(
                    tx,
                    0,
                    0,
                    h.as_mut_ptr(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    1
                ),
                BASER_E_NULL
            );
            let mut d = [0u64; 1];
            assert_eq!(
                baser_tx_serdes(
                    tx,
                    0,
                    0,
                    h.as_mut_ptr(),
                    d.as_mut_ptr(),
                    std::ptr::null_mut(),
                    1
                ),
                BASER_E_STATE,
                "not a serdes source"
            );
            assert_eq!(
                baser_tx_next_blocks(tx, h.as_mut_ptr(), d.as_mut_ptr(), std::ptr::null_mut(), -1),
                BASER_E_ARG
            );
            assert_eq!(baser_tx_octets(tx, std::ptr::null(), 20), BASER_E_NULL);
            assert_eq!(baser_tx_octets(tx, d.as_ptr(), -1), BASER_E_ARG);
            let c = baser_check_new(c"".as_ptr());
            assert_eq!(
                baser_check_push_blocks(c, std::ptr::null(), d.as_ptr(), 1),
                BASER_E_NULL
            );
            assert_eq!(baser_check_push_beat(c, 0, 0xff, 1), BASER_E_STATE);
            assert_eq!(baser_check_expect_sent(c, tx), i64::from(BASER_E_STATE));
            assert_eq!(
                baser_check_divergence_found_at(c, -1),
                i64::from(BASER_E_ARG)
            );
            baser_tx_free(tx);
            baser_check_free(c);
        }
    }
}
