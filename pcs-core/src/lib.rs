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

// One private module per stage (the file list is the data path); the public API is the
// curated re-exports below, so a caller names `pcs_core::Encoder`, never a file. The one
// module the engine may reach past the stage doors with is `fused` (documented there).
mod align;
mod ber;
mod block;
mod decode;
mod encode;
pub mod fused;
mod gearbox;
mod lock;
mod pcs;
mod scramble;
mod status;
mod test_pattern;
mod xgmii;

pub use align::{AlignedBlock, AlignedBlocks, BlockAligner, LockedRun};
pub use ber::{BerConfig, BerMonitor, BerState, BerStep, LockLossReset};
pub use block::{
    block_class, decode_block, encode_word, Block, BlockClass, BlockType, ControlCode,
    DecodeBlockError, Decoded, EncodeWordError, Encoded, OCode, SyncHeader,
};
pub use decode::{
    Decoder, DecoderConfig, LinkDownOutput, LookAhead, RxEvent, RxLink, RxMode, RxState,
};
pub use encode::{Encoder, EncoderConfig, TxEvent, TxMode, TxState};
pub use gearbox::{
    bits_to_block, block_to_bits, PartialWord, Progress, RxBlock, RxBlocks, RxGearbox, SerdesWord,
    TxGearbox, TxWords, BLOCK_BITS,
};
pub use lock::{BlockLock, LockAction, LockState, SH_INVLD_LIMIT, SH_WINDOW};
pub use pcs::{
    DecodedPacket, Packets, PcsRx, PcsRxConfig, PcsRxStep, PcsTx, SliceDecoded, Stops, LONG_RUN,
};
pub use scramble::{
    descramble_payload, scramble_payload, Descrambler, Scrambler, SCRAMBLER_DEFAULT_STATE,
    SCRAMBLER_STATE_MASK,
};
pub use status::{
    HighOrderCounters, PcsBlockEvents, PcsStatus, HIGH_ORDER_PRESENT, REG_BER_HIGH_ORDER,
    REG_ERRORED_BLOCKS_HIGH_ORDER, REG_STATUS_1, REG_STATUS_2, STATUS_1_BLOCK_LOCK,
    STATUS_1_HIGH_BER, STATUS_1_RECEIVE_LINK, STATUS_2_LATCHED_BLOCK_LOCK,
    STATUS_2_LATCHED_HIGH_BER,
};
pub use test_pattern::{
    pseudo_random_seeds, seed_from_registers, seed_to_registers, DataPattern, Prbs31Checker,
    Prbs31Generator, Prbs31Polarity, PseudoRandomChecker, PseudoRandomGenerator,
    ScrambledIdleChecker, ScrambledIdleGenerator, SquareWaveChecker, SquareWaveGenerator,
    SquareWaveRun, TestMode, TestPatternControl, TestPatternErrorCounter, TestPatternSelect,
    PSEUDO_RANDOM_BLOCKS_PER_SEED,
};
pub use xgmii::{load_le, ControlChar, Lane, XgmiiWord};
