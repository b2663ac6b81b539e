//! Single PCS stages from Python, for building a line by hand (`baser.conformance`'s receive
//! cases put blocks no conforming transmitter sends where they want): pcs-core's stateless
//! block encoder and decoder ([`encode_word`], [`decode_block`]), its 0x1E block of any seven-bit
//! codes ([`Block::from_control_codes`]) and its scrambler (`pcs_core::Scrambler`, through the
//! engine's `conformance::line::scramble`, the one place blocks are scrambled by hand).
//! Nothing is composed here: a whole chain is `encode`, `TxModel` or `RxModel`.
//!
//! Blocks cross as `(header, payload)` and transfers as `(data, ctrl)`, as in `lib.rs`.

use crate::{block, guard, pair, value_err, Pair};
use pcs_core::SCRAMBLER_DEFAULT_STATE;
use pcs_core::{decode_block as decode, encode_word as encode};
use pcs_core::{Block, ControlCode, XgmiiWord};
use pyo3::prelude::*;

/// The block pcs-core's stateless encoder makes of one XGMII transfer (`ENCODE(tx_raw)`; for a
/// transfer of class E, `/E/` in the lanes without a code, or `EBLOCK_T`).
#[pyfunction]
pub fn encode_word(data: u64, ctrl: u8) -> PyResult<Pair> {
    guard(|| Ok(pair(encode(XgmiiWord { data, ctrl }).block)))
}

/// The transfer pcs-core's stateless decoder makes of one block (`DECODE(rx_coded)`; `/E/`
/// where a block of class E has no character), as `(data, ctrl)`.
#[pyfunction]
pub fn decode_block(header: u8, payload: u64) -> PyResult<(u64, u8)> {
    let b = block(0, (header, payload))?;
    guard(|| {
        let w = decode(b).word;
        Ok((w.data, w.ctrl))
    })
}

/// The 0x1E control block carrying eight seven-bit codes, lane 0 first, valid ones or not.
#[pyfunction]
pub fn control_block(codes: [u8; 8]) -> PyResult<Pair> {
    let mut typed = [ControlCode::IDLE; 8];
    for (lane, (t, &c)) in typed.iter_mut().zip(&codes).enumerate() {
        *t = ControlCode::try_new(c).ok_or_else(|| {
            value_err(format!("lane {lane}: code {c:#x} has more than seven bits"))
        })?;
    }
    guard(|| Ok(pair(Block::from_control_codes(typed))))
}

/// Scrambles blocks from `state` (58 bits; `None`: all ones), the payloads only; returns the
/// line blocks and the state after them (the next call's `state`).
#[pyfunction]
#[pyo3(signature = (blocks, state=None))]
pub fn scramble_blocks(blocks: Vec<Pair>, state: Option<u64>) -> PyResult<(Vec<Pair>, u64)> {
    let state = crate::state(state)?.unwrap_or(SCRAMBLER_DEFAULT_STATE);
    let blocks = crate::blocks(&blocks)?;
    guard(|| {
        let (line, after) = baser_engine::conformance::line::scramble(&blocks, state);
        Ok((line.into_iter().map(pair).collect(), after))
    })
}
