//! `mac-core`: a golden model of the IEEE 802.3 10 Gb/s MAC framing (Clause 4), MAC Control
//! (Clause 31) and the XGMII reconciliation sublayer (Clause 46).
//!
//! `no_std`, no allocation, no panics on any input. Together with `pcs-core` it turns any
//! frame sequence into the exact XGMII words a conforming 10G MAC emits, and classifies every
//! received frame the way a careful MAC and its counters would. The modules follow the data
//! path:
//!
//! ```text
//! TX: frame -> frame (pad, FCS) -> tx (preamble, SFD, /T/, IFG + DIC, lane 0/4) -> XgmiiWord
//! RX: XgmiiWord -> rx (SFD, FCS check, length classes) -> frame + RxClass -> stats
//!     XgmiiWord -> fault (link fault state machine) -> Rs (transmit reaction)
//! control: PAUSE / PFC frames; stats: Clause 30 counters
//! ```
//!
//! Lane 0 of an `XgmiiWord` is the first octet on the wire. Edition pinned: IEEE 802.3-2022
//! (see `docs/spec-refs.md`).
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod control;
pub mod fault;
pub mod frame;
pub mod rx;
pub mod stats;
pub mod tx;

pub use control::MacControl;
pub use fault::{FaultKind, LinkFault, LinkFaultMonitor, Rs, TransmitMode};
pub use frame::{FrameView, MaxFrameLength, Padding, FCS};
pub use rx::{MacRx, RxClass, RxConfig, RxFrame};
pub use stats::{RxStats, TxStats};
pub use tx::{DicMode, EncodeFrameError, MacTx, StartLanes, TxConfig};
