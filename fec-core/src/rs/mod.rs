//! Clause 108 RS-FEC: RS(528,514) over GF(2^10) with 256b/257b transcoding, the 25G
//! codeword marker, codeword lock, error indication, hi_ser and the MDIO counters.
//!
//! # The model
//!
//! ```text
//!  TX: scrambled 66b blocks ─4─> transcode (257 b) ─> message: [marker] + 19|20 x 257 b
//!      ─> RS(528,514) parity (14 symbols) ─> 5280 line bits
//!  RX: line bits ─> codeword lock (marker at any bit offset) ─> RS decode (t = 7)
//!      ─> 257 b ─> 4 x 66b (type nibble rebuilt with the descrambler history)
//!      ─> error indication (sync headers 0b11) / hi_ser ─> scrambled 66b blocks
//! ```
//!
//! The FEC sits between the Clause 107 (Clause 49) PCS and the PMA: it takes the PCS's
//! **scrambled** blocks and gives line bits, and the other way round. Bit order everywhere:
//! the first bit on the line is bit 0 (payload bit 0 first, sync header bit 0 first, 10-bit
//! symbols LSB first). A codeword is 528 symbols = 5280 bits = 660 octets; symbol 0 is the
//! coefficient of x^527 and goes first.
//!
//! Code: GF(2^10) with `x^10 + x^3 + 1`, α = x; `g(x) = ∏_{j=0}^{13} (x − α^j)`;
//! systematic, parity `x^14 m(x) mod g(x)` sent highest degree first.
//!
//! Transcoding (4 blocks → 257 bits): all data → `t0 = 1` and the four payloads; otherwise
//! `t0 = 0`, four data/control flags (1 = data), and the payloads with the first control
//! block's type field reduced to its low nibble; then `t[4:0] ^= t[12:8]`.
//!
//! Marker: AM0..AM3 (8 octets each, LSB first) and one pad bit start codeword 0 of every
//! period of `marker_period_codewords` codewords; such a codeword carries 76 blocks, the
//! others 80.
//!
//! # The API
//!
//! | item | what |
//! |---|---|
//! | [`Gf1024`] | a field element: `+`, `*`, `inv`, `checked_div`, `log`, `alpha_pow` |
//! | [`GENERATOR`], [`N`], [`K`], [`T`], [`PARITY`], [`SYMBOL_BITS`] | the code |
//! | [`Codeword`] | 5280 line bits: `from_octets`/`to_octets`, `words`, `from_symbols`/`to_symbols`, `xor_symbol`, `flip_bit` |
//! | [`LineWords`] | packs codewords into a continuous 64-bit line word stream (carries the half word) |
//! | [`parity_reference`], [`encode_symbols`] | bit-serial LFSR encoder on symbols (the reference) |
//! | [`encode_in_place`], [`remainder`] | sliced-table encoder / check on line bits (the data path) |
//! | [`RemainderKernel`], [`RemainderFn`], [`Bits140`] | the hook for a faster remainder from outside (`with_remainder_kernel` on [`Transmitter`], [`Receiver`], [`CodewordDecoder`]; the tables by default) |
//! | [`decode`], [`decode_symbols`] | RS decoder on a [`Codeword`] (data path) / on symbols (reference) |
//! | [`DecodeOutcome`], [`ErrorPattern`], [`SymbolError`], [`CorrectionMode`] | its result and mode |
//! | [`syndromes_from_remainder`], [`syndromes_reference`] | the syndromes both ways |
//! | [`transcode`], [`Untranscoder`], [`Transcoded257`], [`UntranscodeStatus`] | 256b/257b both ways |
//! | [`MARKER`], [`AM_OCTETS`], [`marker_mismatch_bits`] | the codeword marker |
//! | [`encode_codeword`], [`encode_marker_codeword`] | 80 or 76 blocks → one codeword |
//! | [`Transmitter`] | streaming TX: `push`, `push_slice`, `blocks_needed`, `blocks_in_codeword`, `index_in_period` |
//! | [`CodewordDecoder`] | RX of aligned codewords: `decode` (RS, untranscode, mark, hi_ser, count), `read_register` |
//! | [`Receiver`] | streaming RX from any bit: `push_bytes` / `push_words` / `push_bits` → [`RxEvent`]s |
//! | [`RxEvent`] | `MarkerFound`, `LockAcquired`, `ConfirmFailed`, `LockLost` (stream bit of each), `Codeword` (report + 76/80 blocks) |
//! | [`CodewordLock`], [`LockState`], [`LockTransition`] | the lock state machine |
//! | [`RsFecConfig`], [`RsVariant`], [`ErrorMarking`], [`ConfigError`] | options, validated at construction |
//! | [`SerMonitor`], [`RsFecStatus`], [`RsFecCounters`], `REG_*`, `STATUS_*` | hi_ser, MDIO 1.200–1.211 |
//!
//! Faults on the line are outputs, never `Err`: an uncorrectable codeword is a
//! [`DecodeOutcome::Uncorrectable`] with marked blocks, a malformed 257-bit block gives
//! blocks with an invalid header, a lost marker is an [`RxEvent::LockLost`]. `Err` is only
//! [`ConfigError`], at construction (both bypasses at once; the Consortium variant; zero
//! counts). Nothing allocates: the transmitter holds one codeword being filled, the
//! receiver one codeword of line bits and 80 blocks, handed to the caller's closure as a
//! slice.
//!
//! How the engine composes them: TX `PCS scramble → Transmitter (feed blocks_needed()
//! blocks per codeword) → Codeword::write_octets or LineWords → .bits`; RX `.bits →
//! Receiver::push_bytes → RxEvent::Codeword blocks → PCS (block lock, descramble, decode)`.
//! The blocks out of the receiver carry valid sync headers except where the decoder marks
//! an error, so the PCS block lock and BER monitor run unchanged behind it.
//!
//! # Rate compensation
//!
//! The marker takes one 257-bit slot per period, so the PCS stream must give up 4 blocks
//! per period. [`Transmitter::blocks_needed`] and [`Transmitter::blocks_in_codeword`] (76
//! or 80) tell the engine how many blocks the codeword being filled still takes; the engine
//! stalls its PCS source for 4 block times per period (U: the reading of the Xilinx
//! `tx_cwm_flag` interface; the standard's text on it was not read).
//!
//! # The descrambler history of the receive transcoder
//!
//! The first control block of a 257-bit block loses the high nibble of its (scrambled) type
//! field. The receiver rebuilds it from the low nibble: it descrambles the low nibble with
//! the keystream of the PCS scrambler, looks the type up (the 15 types have 15 distinct
//! low nibbles; a nibble of 0 is malformed), and scrambles the type's high nibble again.
//! The keystream of payload bits 0..7 depends only on the 58 line bits before the block, so
//! the [`Untranscoder`] keeps its own 58-bit state (DESIGN.md convention, `state = payload
//! >> 6`) fed with every payload it outputs. Only a first control block at the very start
//! of the decoded stream needs a state nobody has: `RsFecConfig::initial_descrambler_state`
//! gives it (default all ones, the PCS scrambler's default seed: exact for a stream decoded
//! from its first block). While confirming lock, the receiver decodes the codeword before
//! the marker to learn the history, so after a lock the first block is right too (unless
//! `lock_markers` is 1).
//!
//! # U choices (each a named constant or option, with a test)
//!
//! | U fact | choice | where |
//! |---|---|---|
//! | marker pad bit | one 0 as the 257th bit, not compared | [`MARKER_PAD_BIT`] |
//! | marker layout in the message | AM0..AM3 raw at message bit 0, not whitened | [`MARKER`] |
//! | marker period | 1024 codewords (VIP default 16: [`RsFecConfig::VIP`]) | `marker_period_codewords` |
//! | lock | after 2 markers in consecutive periods | `lock_markers` |
//! | loss of lock | after 2 consecutive bad markers | `unlock_bad_markers` |
//! | marker match | exact, all 256 AM bits, on the raw bits or after the RS decoder corrected the codeword (a correctable error never costs a marker; the search asks the decoder where at most 70 marker bits differ) | `marker_mismatch_bits_max`, [`SEARCH_MISMATCH_BITS`] |
//! | error marking | all 76/80 blocks get `0b11` | `error_marking`, [`ERROR_SYNC`] |
//! | hi_ser corruption period | 60 ms = 292 969 codewords | `hi_ser_corrupt_codewords` |
//! | symbol errors of an uncorrectable codeword | 8 (t + 1) | `uncorrectable_symbol_errors` |
//! | hi_ser rise / fall inside the window | rises when the count passes 417, re-evaluated at each window end | [`SerMonitor`] |
//! | counters | clear on read of the low word | [`RsFecStatus`] |
//! | rate compensation | the engine stalls its PCS source | [`Transmitter::blocks_needed`] |
//! | malformed 257-bit block at RX | its 4 blocks get `0b11` | [`MALFORMED_SYNC`] |
//! | invalid sync header at TX | classified by header bit 1 | [`transcode`] |
//! | Consortium variant | refused | [`RsVariant::Consortium`] |
//!
//! With bypass correction (1.200.0) the decoder still locates errors (counted as symbol
//! errors) and an errored codeword counts as uncorrected and is marked (indication on);
//! with bypass indication (1.200.1) nothing is marked except during the hi_ser period.
//! Both together are refused ([`ConfigError::BypassBoth`]).
//!
//! # Speed
//!
//! The encoder and the check of error-free codewords share one kernel: the remainder by
//! g(x), 14 symbols (140 bits) at a time, through byte-sliced tables of 140-bit rows built
//! at compile time (the map is GF(2)-linear, as in CRC slicing), run as two independent
//! chains joined by a second table set (294 KiB of tables in all). Only codewords with a
//! nonzero remainder go through syndromes (log domain), Berlekamp–Massey, Chien (log
//! domain, branch-free, stopping at the L-th root; direct for L = 1) and Forney. Measured
//! on the shared 2-core Xeon (2.6 GHz) of the project, best of 200 rounds, one core:
//!
//! | path | per codeword | line rate |
//! |---|---|---|
//! | encode (parity of a codeword in place) | 300 ns | 17.6 Gb/s (0.68 × 25.78) |
//! | check of an error-free codeword | 327 ns | 16.1 Gb/s (0.63 ×) |
//! | `Transmitter` (transcode + encode, from blocks) | 586 ns | 9.0 Gb/s |
//! | `Receiver` (locked, error-free, to blocks) | 611 ns | 8.6 Gb/s |
//! | decode with 1 symbol error | 0.83 µs | |
//! | decode with 7 symbol errors | 2.7 µs | |
//!
//! (`benches/rs.rs` measures the same with criterion.) A SIMD path in the engine (this
//! crate forbids `unsafe` and runtime feature detection) could do the 140 × 5140 GF(2)
//! matrix product with AVX2 `vpshufb` nibble tables or AVX-512 GFNI affine products, or
//! run several codewords side by side; by operation count that is 2–4 × the scalar kernel
//! (an estimate, not measured).
//!
//! Spec citations: Clause 91 subclauses as recalled (§91.5.2.5 transcoder, §91.5.2.7
//! encoder, §91.5.3.1 lock, §91.5.3.3 decoder); Clause 108 at §108.5.2 (transmit) and
//! §108.5.3 (receive). No copy of the standard was at hand: the facts and their marks are
//! FEC-NOTES §2.

mod bits;
mod codeword;
mod config;
mod decode;
mod encode;
mod gf;
mod lock;
mod marker;
mod rx;
mod ser;
mod status;
mod transcode;
mod tx;

pub use codeword::{
    Codeword, LineWords, CODEWORD_BITS, CODEWORD_OCTETS, CODEWORD_WORDS, K, MESSAGE_BITS, N,
    PARITY, PARITY_BITS, SYMBOL_BITS, T,
};
pub use config::{
    codewords_in_ms, ConfigError, ErrorMarking, RsFecConfig, RsVariant, HI_SER_CORRUPT_CODEWORDS,
};
pub use decode::{
    decode, decode_symbols, syndromes_from_remainder, syndromes_reference, CorrectionMode,
    DecodeOutcome, ErrorPattern, SymbolError, Syndromes,
};
pub use encode::{
    encode_in_place, encode_symbols, parity_reference, remainder, remainder_with, Bits140,
    RemainderFn, RemainderKernel, GENERATOR,
};
pub use gf::{mul_bit_serial, Gf1024, FIELD_POLY};
pub use lock::{CodewordLock, LockState, LockTransition};
pub use marker::{
    marker_mismatch_bits, AM_OCTETS, MARKER, MARKER_COMPARED_BITS, MARKER_PAD_BIT,
    MARKER_PERIOD_CODEWORDS, VIP_MARKER_PERIOD_CODEWORDS,
};
pub use rx::{
    CodewordDecoder, CodewordReport, Receiver, RxEvent, ERROR_SYNC, SEARCH_MISMATCH_BITS,
};
pub use ser::{SerMonitor, SER_THRESHOLD, SER_WINDOW_CODEWORDS};
pub use status::{
    LiveStatus, RsFecCounters, RsFecStatus, REG_CONTROL, REG_CORRECTED_HIGH, REG_CORRECTED_LOW,
    REG_STATUS, REG_SYMBOL_ERRORS_HIGH, REG_SYMBOL_ERRORS_LOW, REG_UNCORRECTED_HIGH,
    REG_UNCORRECTED_LOW, STATUS_AM_LOCK_LANE_0, STATUS_BYPASS_CORRECTION_ABILITY,
    STATUS_BYPASS_INDICATION_ABILITY, STATUS_FEC_ALIGN, STATUS_HIGH_SER,
};
pub use transcode::{
    transcode, Transcoded257, UntranscodeStatus, Untranscoder, BLOCKS_PER_TRANSCODED,
    MALFORMED_SYNC, TRANSCODED_BITS,
};
pub use tx::{
    encode_codeword, encode_marker_codeword, LinePush, Transmitter, BLOCKS_PER_CODEWORD,
    BLOCKS_PER_MARKER_CODEWORD, TRANSCODED_PER_CODEWORD,
};
