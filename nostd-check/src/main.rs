//! Proves the cores build without `std`: a `#![no_std]`, `#![no_main]` binary with its own
//! panic handler that links `pcs-core` (and `mac-core`, `fec-core`) and uses their main types. A `std`
//! dependency anywhere below it breaks the build with a duplicate `panic_impl` lang item.
//!
//! Build with `cargo build -p nostd-check` (only the host target exists here).
#![no_std]
#![no_main]

use pcs_core::XgmiiWord;
use pcs_core::{decode_block, encode_word};
use pcs_core::{Descrambler, Scrambler};

use mac_core::{LinkFaultMonitor, MacControl, MacRx, MacTx, Rs};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}

/// The precompiled `core` refers to the unwinding personality even with `panic = "abort"`;
/// nothing unwinds here, so an empty one satisfies the linker.
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}

/// The C entry point; the body keeps the cores' code alive so the linker sees it.
#[no_mangle]
pub extern "C" fn main(argc: i32, _argv: *const *const u8) -> i32 {
    let word = XgmiiWord::new(argc as u64, 0);
    let mut scrambler = Scrambler::default();
    let mut descrambler = Descrambler::default();
    let block = encode_word(word).block;
    let line = scrambler.scramble(block.payload);
    let back = decode_block(pcs_core::Block {
        sync: block.sync,
        payload: descrambler.descramble(line),
    });
    let pcs_ok = back.word.data == word.data;

    // mac-core: a PAUSE frame through MAC TX and MAC RX, plus the RS and link fault monitor.
    let mut frame = [0u8; 64];
    let len = MacControl::Pause {
        quanta: argc as u16,
    }
    .write([2, 0, 0, 0, 0, 1], &mut frame)
    .unwrap_or(0);
    let mut words = [XgmiiWord::IDLE; 16];
    let mut tx = MacTx::default();
    let n = tx
        .encode_frame(frame.get(..len).unwrap_or(&[]), &mut words)
        .unwrap_or(0);
    let mut rx: MacRx<2048> = MacRx::default();
    let mut ok = 0;
    rx.push_slice(words.get(..n).unwrap_or(&[]), |f| {
        ok += f.class.is_ok() as i32
    });
    let mut monitor = LinkFaultMonitor::new();
    let mut rs = Rs::default();
    for w in words {
        let _ = monitor.push(w);
        let _ = rs.receive(w);
    }
    rs.fill(&mut words);

    // fec-core: one Clause 74 FEC block and one RS(528,514) codeword, encoded and decoded.
    let blocks = [pcs_core::Block::IDLE; 32];
    let line = fec_core::base_r::encode(&blocks);
    let fc = fec_core::base_r::decode(&line, fec_core::base_r::DecodeOptions::default());
    let fc_ok = fc.blocks == blocks;
    let mut cw = fec_core::rs::encode_codeword(&[pcs_core::Block::IDLE; 80]);
    cw.flip_bit(argc as usize);
    let rs_ok = !matches!(
        fec_core::rs::decode(&mut cw, fec_core::rs::CorrectionMode::Correct),
        fec_core::rs::DecodeOutcome::Uncorrectable
    );
    (!pcs_ok) as i32 + (1 - ok) + (!fc_ok) as i32 + (!rs_ok) as i32
}
