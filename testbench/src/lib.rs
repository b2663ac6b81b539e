//! The test bench around the cores: file formats, pipelines, comparison and reports, and the
//! `baser` command.
#![deny(unsafe_code)]

pub mod bench;
pub mod cli;
pub mod compare;
pub mod describe;
pub mod fcs;
pub mod format;
pub mod inject;
pub mod pcs_check;
pub mod pipeline;
pub mod profile;
pub mod report;
pub mod wire;
