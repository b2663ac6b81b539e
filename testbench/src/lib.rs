//! The test bench around the cores: file formats, pipelines, comparison and reports, and the
//! `baser` command.
#![deny(unsafe_code)]

pub mod format;
