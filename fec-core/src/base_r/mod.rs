//! Clause 74 BASE-R FEC: the (2112,2080) shortened cyclic ("FireCode") code between the BASE-R
//! PCS (Clause 49 at 10G, Clause 107 at 25G) and the PMA, used by 10GBASE-KR,
//! 25GBASE-KR/KR-S/CR/CR-S and, per lane, 40GBASE-KR4/CR4.
//!
//! # The model
//!
//! ```text
//! TX  32 scrambled 66-bit blocks
//!       -> transcode: drop SH.0, T = SH.1 ^ payload bit 8          (§74.7.4.2)   transcode.rs
//!       -> 32 rows of 65 bits = 2080 message bits, line order
//!       -> parity p(x) = x^32 m(x) mod g(x), sent MSB first       (§74.7.4.4)   parity.rs
//!       -> XOR PN-2112 over all 2112 bits                         (§74.7.4.4.1) pn2112.rs
//!       -> one FEC block: [u64; 33] line words                                    encode.rs
//! RX  line bits from any offset
//!       -> candidate 2112 bits -> XOR PN-2112 -> syndrome = c(x) mod g(x)
//!       -> FEC block lock: n good to lock, slip 1 bit on a failure,
//!          m bad to lose                                          (§74.7.4.7)   lock.rs
//!       -> locked: correct one burst of <= 11 bits                (§74.7.1)     decode.rs
//!       -> 32 blocks, SH.1 = T ^ payload bit 8, SH.0 = !SH.1,
//!          sync headers marked if uncorrectable and indication on               rx.rs
//!       -> counters 1.172..1.175                                  (Clause 45)   status.rs
//! ```
//!
//! `g(x) = x^32 + x^23 + x^21 + x^11 + x^2 + 1 = (x^21 + 1)(x^11 + x^2 + 1)`, a Fire code of
//! length 42987 shortened to 2112. The line rate is unchanged: 32 × 66 = 32 × 65 + 32 = 2112.
//!
//! # Bit order and representation
//!
//! The first bit on the line is bit 0 everywhere (DESIGN.md). A FEC block is `[u64; 33]`:
//! word `k` bit `j` is line bit `64k + j` (2112 = 33 × 64 exactly); as little-endian octets
//! ([`to_octets`], [`from_octets`]) it is the `.bits` layout, bit 0 of octet 0 first. Row `k`
//! (block `k`) is line bits `65k..65k+65`: `T` first, then payload bits 0..63. The parity is
//! line bits 2080..2112, `x^31` first. [`parity`] and [`syndrome`] return polynomials as the
//! standard writes them in hex (bit `i` = coefficient of `x^i`; so the parity's bit 31 is the
//! first parity bit on the line). `SH.1` is sync header bit 1 in this project's convention
//! (`sync.to_bits() >> 1`: 1 for data, 0 for control).
//!
//! # API (the vocabulary of this module)
//!
//! * Functions: [`encode`] / [`encode_into`] (32 blocks -> 33 line words, PN-2112 applied);
//!   [`decode`] / [`decode_into`] (33 line words -> 32 blocks, [`DecodeOutcome`], syndrome);
//!   [`burst_of_syndrome`]; [`parity`], [`syndrome`]; [`apply_pn2112`] and the table
//!   [`PN2112`]; [`transcode_bit`], [`transcode`], [`untranscode`], [`sync_header`],
//!   [`pack_rows`], [`pack_rows_into`], [`unpack_rows`], [`unpack_rows_into`], [`mark_errors`].
//! * [`FecTx`]: blocks in one at a time ([`FecTx::push_block`] -> `Option<[u64; 33]>`) or by
//!   slice ([`FecTx::push_blocks`] -> whole FEC blocks into a word slice, `Progress`).
//! * [`FecRx`]: line words ([`FecRx::feed`] + [`FecRx::next_fec_block`], or
//!   [`FecRx::push_words`]) or octets ([`FecRx::push_bytes`]) from any bit offset; one
//!   [`FecRxBlock`] (32 blocks + [`FecRxEvent`]) per tested candidate FEC block, written into a
//!   caller's slice: no allocation, at most one FEC block (34 words) buffered. The event gives
//!   the candidate's absolute bit offset, the outcome ([`DecodeOutcome::Clean`],
//!   [`Corrected`](DecodeOutcome::Corrected) with the [`Burst`] (first bit, length, flipped
//!   bits), [`Uncorrectable`](DecodeOutcome::Uncorrectable), or
//!   [`BadParity`](DecodeOutcome::BadParity) while unlocked), the syndrome, `fec_block_lock`
//!   after the block, the [`LockChange`] and the [`FecLockAction`]. [`FecRx::lock_acquired_at`]
//!   and [`FecRx::lock_losses`] summarise; [`FecRx::counters_mut`] reads registers.
//!   [`FecRx::new_locked`] starts locked at bit 0 (a dump cut at a FEC block boundary).
//! * [`FecBlockLock`]: the lock state machine alone, one [`FecBlockLock::step`] per outcome.
//! * [`FecCounters`] and the register constants of 1.170 to 1.175.
//!
//! Every candidate yields its 32 blocks, locked or not; `fec_block_lock` in the event is the
//! `block_lock` the PCS should use (FEC block lock replaces the PCS's sync-header lock). While
//! unlocked, blocks pass uncorrected, nothing is counted and nothing is marked.
//!
//! # Unverified facts (U): the readings implemented
//!
//! Each is one constant or option with a test pinning it.
//!
//! | topic | reading (default) | where |
//! |---|---|---|
//! | `n`, good blocks to lock | 2, the Synopsys VIP model's own value; the standard's was not read | [`FEC_LOCK_N`], [`FecLockConfig::n`] |
//! | `m`, bad blocks to lose lock | 8, the VIP model's own value | [`FEC_LOCK_M`], [`FecLockConfig::m`] |
//! | what is "bad" toward `m` | uncorrectable blocks (VIP, brief); Efinix says "bad parity", which would count corrected ones too | [`LossCriterion`] |
//! | which blocks error indication marks | blocks 0, 8, 16, 24: the PCS BER monitor sees them (four uncorrectable FEC blocks in a row give 16 invalid headers), while at most 8 of any 64 consecutive headers are invalid, below the 16 that would make the PCS lose block lock; [`ErrorMarking::All`] marks all 32 (as the VIP model does for RS-FEC) | [`ErrorMarking`] |
//! | the marked header's value | `0b11` (the VIP model's RS-FEC value) | [`ERROR_SYNC_HEADER`] |
//! | counters 1.172..1.175 | 32 bits, saturating; reading the low register returns bits 15:0, latches bits 31:16 for the high register and clears the counter (as the project's PCS 3.33 counters) | [`FecCounters`], [`CounterRead`] |
//! | 1.171 control bits | bit 0 FEC enable, bit 1 error indication enable (mirroring 1.170) | [`CONTROL_FEC_ENABLE`], [`CONTROL_ERROR_INDICATION_ENABLE`] |
//! | state names of the lock diagram | this model's (`LOCK_INIT`, `SLIP`, `GOOD_PARITY`, `LOCKED`, `BAD_BLOCK`); the figure was not read, its shape is V | [`FecLockState`] |
//! | lock loss | slips one bit (restarts the search at the next bit), as a failure while hunting does | [`FecBlockLock::step`] |
//!
//! Readings that follow from V facts: the transmitter drops `SH.0`, so a block with an invalid
//! header `0b00` goes out as control and `0b11` as data; counters count only while locked
//! (correction is only active then); the lock is reported at the first bit of the FEC block
//! that completed the `n` (every boundary is that one modulo 2112). Not modelled: EEE's rapid
//! block lock (`RX_LPI_ACTIVE`), the per-lane counters of multi-lane PHYs (1.300+, 1.700+).
//!
//! # Burst correction
//!
//! Error trapping run backwards ([`burst_of_syndrome`]): `x^-8k s` for `k = 0..264` (four
//! independent chains of 66 steps), looking for `x^t b(x)` with `deg b <= 10`. A burst is a
//! contiguous run of line bits inside this FEC block (crossing rows and into the parity is
//! fine; one reaching past bit 0 into the shortened-away part is not). Tests prove every
//! one of the 2,153,471 bursts of 1..=11 bits inside the block has its own non-zero syndrome
//! (so the first trap is the only candidate and each correction is justified), that the
//! search finds every single-bit and all-ones burst of every length at every position, and
//! random ones by property. Measured: all 2,151,424 bursts of exactly 12 bits and all
//! 4,300,800 of 13 bits are flagged uncorrectable (none miscorrected); of 400,000 random
//! bursts of 14..=40 bits, 166 (0.04 %) are miscorrected and none has a zero syndrome.
//!
//! # Speed
//!
//! The parity and syndrome are table-driven ("slicing by 8", four independent streams of 8
//! words joined by shift tables: 8 KB + 12 KB of tables; the burst search adds 13 KB, read
//! only for errored blocks) and proved equal to the bit-serial division by a property test
//! and to the `crc` crate (CRC-32 poly 0x00A00805, init 0, no reflection, no final XOR, over
//! the 260 message octets packed MSB first). On this project's 2-core 2.6 GHz Xeon VM
//! (shared, loaded), best of 300 runs: encode 80 ns per FEC block (26 Gb/s of line bits),
//! clean decode 96 to 100 ns (21 to 22 Gb/s, the receiver door included), a corrected burst
//! 180 ns, an uncorrectable block 240 ns. About 660 micro-ops per FEC block go to the 264
//! table lookups of the CRC, which bounds table-driven code near 40 ns; `benches/base_r.rs`
//! measures it. A carry-less-multiply (PCLMULQDQ) fold is several times faster but needs
//! `unsafe`, which this crate forbids: [`FecTx`] and [`FecRx`] take one from outside through
//! [`ParityKernel`] (`with_parity_kernel`; the tables by default). The engine's
//! (`baser_engine::fec_kernels`, chosen at run time) counts about 140 instructions a FEC block
//! where the tables count about 940; its property test proves it equal to the tables.
//!
//! Spec: IEEE 802.3 Clause 74 (§74.7.1, §74.7.4.2, §74.7.4.4, §74.7.4.4.1, §74.7.4.7, Annex
//! 74A); Clause 45 registers 1.170 to 1.175. Facts and marks: the project's FEC fact sheet
//! (`FEC-NOTES.md` §1, §5, §6, §7). Vectors: `fec-core/vectors/cl74-vip.txt` (reproduced bit for
//! bit both ways), FEC-NOTES §5.6 (derived), PN-2112 first and last words (§1.4).

mod decode;
mod encode;
mod lock;
mod parity;
mod pn2112;
mod rx;
mod status;
mod transcode;

pub use decode::{
    burst_of_syndrome, decode, decode_into, mark_errors, Burst, Correction, DecodeOptions,
    DecodeOutcome, Decoded, ErrorIndication, ErrorMarking, ERROR_SYNC_HEADER, MAX_BURST_BITS,
};
pub use encode::{encode, encode_into, FecTx};
pub use lock::{
    FecBlockLock, FecLockAction, FecLockConfig, FecLockState, FecLockStep, LockChange,
    LossCriterion, FEC_LOCK_M, FEC_LOCK_N,
};
pub use parity::{parity, syndrome, ParityFn, ParityKernel, GENERATOR};
pub use pn2112::{apply_pn2112, PN2112, PN2112_SEED};
pub use rx::{FecRx, FecRxBlock, FecRxConfig, FecRxEvent};
pub use status::{
    CounterRead, FecCounters, ABILITY_ERROR_INDICATION, ABILITY_FEC,
    CONTROL_ERROR_INDICATION_ENABLE, CONTROL_FEC_ENABLE, FEC_ABILITY, REG_CORRECTED_BLOCKS_HIGH,
    REG_CORRECTED_BLOCKS_LOW, REG_FEC_ABILITY, REG_FEC_CONTROL, REG_UNCORRECTED_BLOCKS_HIGH,
    REG_UNCORRECTED_BLOCKS_LOW,
};
pub use transcode::{
    pack_rows, pack_rows_into, sync_header, transcode, transcode_bit, unpack_rows,
    unpack_rows_into, untranscode, BLOCKS_PER_FEC_BLOCK, FEC_BLOCK_BITS, FEC_BLOCK_WORDS,
    MESSAGE_BITS, PARITY_BITS, ROW_BITS,
};

/// The 264 octets of a FEC block in line order (bit 0 of octet 0 first on the line: the
/// `.bits` layout).
///
/// Spec: IEEE 802.3 §74.7.1.
#[must_use]
pub fn to_octets(words: &[u64; FEC_BLOCK_WORDS]) -> [u8; FEC_BLOCK_BITS / 8] {
    let mut octets = [0u8; FEC_BLOCK_BITS / 8];
    for (chunk, w) in octets.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    octets
}

/// The line words of a FEC block from its 264 octets in line order (the `.bits` layout).
///
/// Spec: IEEE 802.3 §74.7.1.
#[must_use]
pub fn from_octets(octets: &[u8; FEC_BLOCK_BITS / 8]) -> [u64; FEC_BLOCK_WORDS] {
    let mut words = [0u64; FEC_BLOCK_WORDS];
    for (w, chunk) in words.iter_mut().zip(octets.chunks_exact(8)) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(chunk);
        *w = u64::from_le_bytes(eight);
    }
    words
}

#[cfg(test)]
pub(crate) mod tests_support {
    use pcs_core::Block;

    /// 32 pseudo-random blocks (xorshift from `seed`), data and control mixed.
    pub(crate) fn blocks_from(seed: u64) -> [Block; 32] {
        let mut x = seed | 1;
        core::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x & 1 == 0 {
                Block::data(x)
            } else {
                Block::control(x.rotate_left(17))
            }
        })
    }

    /// A bit stream built bit by bit (bit 0 first).
    #[derive(Default)]
    pub(crate) struct BitStream {
        words: Vec<u64>,
        bits: usize,
    }

    impl BitStream {
        pub(crate) fn push_bits(&mut self, value: u64, n: usize) {
            for j in 0..n {
                if self.bits % 64 == 0 {
                    self.words.push(0);
                }
                let last = self.words.last_mut().unwrap();
                *last |= (value >> j & 1) << (self.bits % 64);
                self.bits += 1;
            }
        }

        /// The words (the last one zero-padded).
        pub(crate) fn words(&self) -> Vec<u64> {
            self.words.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octets_round_trip_the_bits_layout() {
        let (_, codeword) = crate::vectors::cl74_vip();
        let octets = to_octets(&codeword);
        assert_eq!(octets[0], 0xa8, "first octet of the file");
        assert_eq!(octets[263], 0xed, "last octet of the file");
        assert_eq!(from_octets(&octets), codeword);
    }
}
