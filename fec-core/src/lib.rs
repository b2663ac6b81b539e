//! `fec-core`: a golden model of the two FECs that sit below the BASE-R PCS (Clause 49 at
//! 10G, Clause 107 at 25G): Clause 74 BASE-R FEC and Clause 108 RS-FEC.
//!
//! `no_std`, no allocation, no panics on any input. The FECs take the PCS's scrambled 66-bit
//! blocks ([`pcs_core::Block`]) and give line bits, and the other way round:
//!
//! ```text
//! TX: scrambled blocks -> base_r (transcode 66b->65b, (2112,2080) parity, PN-2112) -> line
//!                      -> rs     (256b/257b transcode, marker, RS(528,514))       -> line
//! RX: line -> base_r (FEC block lock, descramble, syndrome, burst correction) -> blocks
//!          -> rs     (codeword lock on the marker, RS decode, 257b->66b)       -> blocks
//! ```
//!
//! Bit order everywhere: the first bit on the line is bit 0. Facts marked U in the project's
//! FEC fact sheet are named constants or options whose doc says so.
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

// --- Clause 74 BASE-R FEC (owned by base_r/) ---
pub mod base_r;
// --- Clause 108 RS-FEC (owned by rs/) ---
pub mod rs;
#[cfg(test)]
mod vectors;

/// Reads the low register of a 32-bit MDIO counter (both FECs' counters work alike): returns
/// bits 15:0, copies bits 31:16 into `held`, the holding register the high address reads, and
/// clears the counter when `clear`.
///
/// Spec: IEEE 802.3 Clause 45 (registers 1.172 to 1.175, 1.202 to 1.211).
pub(crate) fn read_counter_low(counter: &mut u32, held: &mut u16, clear: bool) -> u16 {
    let v = *counter;
    *held = (v >> 16) as u16;
    if clear {
        *counter = 0;
    }
    v as u16
}
