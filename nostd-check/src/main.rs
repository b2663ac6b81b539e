//! Proves the cores build without `std`: a `#![no_std]`, `#![no_main]` binary with its own
//! panic handler that links `pcs-core` (and `mac-core`) and uses their main types. A `std`
//! dependency anywhere below it breaks the build with a duplicate `panic_impl` lang item.
//!
//! Build with `cargo build -p nostd-check` (only the host target exists here).
#![no_std]
#![no_main]

use pcs_core::block::{decode_block, encode_word};
use pcs_core::scramble::{Descrambler, Scrambler};
use pcs_core::XgmiiWord;

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
    (back.word.data != word.data) as i32
}
