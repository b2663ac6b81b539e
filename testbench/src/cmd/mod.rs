//! One file per command; each has its argument struct and its function.

pub mod bench;
pub mod check;
pub mod convert;
pub mod coverage;
pub mod decode;
pub mod encode;
pub mod gen;
