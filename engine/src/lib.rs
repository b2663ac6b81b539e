//! The baser model composed: the one place where the stages of `pcs-core` and `mac-core` are
//! put together, for every door (the `baser` command, the Python package, the C ABI, the fuzz
//! targets and the benchmarks).
//!
//! ```text
//! tx:       frames -> MacTx (preamble, pad, FCS, IFG + DIC) -> PcsTx (encode, scramble)
//!                  -> TxGearbox -> XGMII words / blocks / serial words       (TxChain)
//! rx:       serial words -> BlockAligner (lock, slip) -> PcsRx (BER, descramble, decode)
//!           blocks ------------------------------------>  PcsRx
//!           XGMII words --------------------------------------------------> MacRx -> frames
//!                                                                            (RxChain)
//! judge:    expected frames vs received frames -> one verdict per frame
//! pcs_check: XGMII input vs a DUT's blocks, bit exact
//! inject:   a fault channel on the line, with the standard's predicted outcome
//! ```
//!
//! No printing, no files, no command line: results are typed and serialize with serde; the
//! doors format them.
#![deny(unsafe_code)]

pub mod bench;
pub mod case;
pub mod conformance;
pub mod coverage;
pub mod decode_report;
pub mod describe;
pub mod fcs;
pub mod fec;
pub mod fec_kernels;
pub mod frame_check;
pub mod gen;
pub mod inject;
pub mod judge;
pub mod live;
pub mod options;
pub mod outcome;
pub mod pcs_check;
pub mod profile;
pub mod rx;
pub mod sim;
pub mod stream;
pub mod tx;
pub mod usxgmii;

pub use options::Options;
pub use profile::Profile;
