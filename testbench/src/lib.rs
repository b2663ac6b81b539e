//! The `baser` command around the engine and the files crate: reports, the wire link, and one
//! function per command.
#![deny(unsafe_code)]

pub mod cmd;
pub mod command;
pub mod html;
pub mod outfile;
pub mod pcs_check;
pub mod report;
pub mod sinks;
pub mod stream;
pub mod wire;
