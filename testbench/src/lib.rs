//! The `baser` command around the engine: file formats, reports, the wire link, and one
//! function per command.
#![deny(unsafe_code)]

pub mod cmd;
pub mod command;
pub mod format;
pub mod html;
pub mod outfile;
pub mod pcs_check;
pub mod report;
pub mod stream;
pub mod wire;
