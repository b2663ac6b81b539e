//! `pcs-core`: a golden model of the IEEE 802.3 Clause 49 10GBASE-R physical coding sublayer.
//!
//! `no_std`, no allocation, no panics on any input. The modules follow the data path:
//!
//! ```text
//! TX: XgmiiWord -> encode (TX state machine) -> scramble -> gearbox -> bits
//! RX: bits -> lock (block lock, slip) -> descramble -> decode (RX state machine) -> XgmiiWord
//!                  \-> ber (BER monitor) -> status (MDIO 3.32/3.33 counters)
//! test_pattern: PRBS31, square wave, pseudo-random generators and checkers
//! ```
//!
//! Bit order everywhere: the first bit on the wire is bit 0. Edition pinned: IEEE 802.3-2022
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

pub mod align;
pub mod ber;
pub mod block;
pub mod decode;
pub mod encode;
pub mod fused;
pub mod gearbox;
pub mod lock;
pub mod pcs;
pub mod scramble;
pub mod status;
pub mod test_pattern;
pub mod xgmii;

pub use block::{Block, BlockClass, BlockType, ControlCode, OCode, SyncHeader};
pub use xgmii::{ControlChar, Lane, XgmiiWord};
