//! The file readers and writers of `baser.files`: the files crate's ([`baser_files`]), so that
//! Python reads a pcap, pcapng or `.b66` file exactly as the `baser` command does, and its
//! errors name the file and the line or byte as the command's do.

use baser_files::b66::{B66Header, B66Reader, B66Writer, Scrambling};
use baser_files::pcap::{FrameReader, FrameWriter};
use baser_files::InputError;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::Path;
use std::time::Duration;

fn input_err(e: InputError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn os_err(path: &Path, e: std::io::Error) -> PyErr {
    PyOSError::new_err(format!("{}: {e}", path.display()))
}

fn open(path: &Path) -> PyResult<std::fs::File> {
    std::fs::File::open(path).map_err(|e| os_err(path, e))
}

/// The frames of a pcap or pcapng file (LINKTYPE_ETHERNET), DA to the end of the payload, as
/// `bytes`. With `fcs_included` the capture's frames carry their FCS, which is taken off.
#[pyfunction]
#[pyo3(signature = (path, fcs_included = false))]
pub fn read_pcap<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    fcs_included: bool,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    crate::guard(|| {
        let file = open(&path)?;
        let mut reader = FrameReader::new(file, &path, fcs_included).map_err(input_err)?;
        let mut frames = Vec::new();
        while let Some(frame) = reader.next_ref() {
            let frame = frame.map_err(input_err)?;
            frames.push(PyBytes::new(py, frame.data));
        }
        Ok(frames)
    })
}

/// Writes frames (DA to the end of the payload) as a classic pcap file, one microsecond apart.
#[pyfunction]
pub fn write_pcap(path: std::path::PathBuf, frames: Vec<Vec<u8>>) -> PyResult<()> {
    crate::guard(|| {
        let file = std::fs::File::create(&path).map_err(|e| os_err(&path, e))?;
        let mut w =
            FrameWriter::new(std::io::BufWriter::new(file)).map_err(|e| os_err(&path, e))?;
        for (n, frame) in frames.iter().enumerate() {
            w.write(Duration::from_micros(n as u64), frame)
                .map_err(|e| os_err(&path, e))?;
        }
        w.finish().map_err(|e| os_err(&path, e))?;
        Ok(())
    })
}

/// A `.b66` dump: `(blocks, scrambled, scrambler_state)`; blocks are `(header, payload)`
/// pairs; `scrambler_state` is `None` when the file gives none (or `auto`).
#[pyfunction]
pub fn read_b66(path: std::path::PathBuf) -> PyResult<(Vec<crate::Pair>, bool, Option<u64>)> {
    crate::guard(|| {
        let file = std::io::BufReader::new(open(&path)?);
        let mut reader = B66Reader::new(file, &path).map_err(input_err)?;
        let header = reader.header();
        let mut blocks = Vec::new();
        while reader
            .read_blocks(&mut blocks, usize::MAX)
            .map_err(input_err)?
        {}
        Ok((
            blocks.into_iter().map(crate::pair).collect(),
            header.scrambling == Scrambling::Scrambled,
            header.scrambler_state,
        ))
    })
}

/// Writes `(header, payload)` blocks as a `.b66` dump.
#[pyfunction]
#[pyo3(signature = (path, blocks, scrambled = true, scrambler_state = None))]
pub fn write_b66(
    path: std::path::PathBuf,
    blocks: Vec<crate::Pair>,
    scrambled: bool,
    scrambler_state: Option<u64>,
) -> PyResult<()> {
    crate::guard(|| {
        let blocks = crate::blocks(&blocks)?;
        let file = std::fs::File::create(&path).map_err(|e| os_err(&path, e))?;
        let header = B66Header {
            scrambling: if scrambled {
                Scrambling::Scrambled
            } else {
                Scrambling::Unscrambled
            },
            scrambler_state,
        };
        let mut w =
            B66Writer::new(std::io::BufWriter::new(file), header).map_err(|e| os_err(&path, e))?;
        for b in blocks {
            w.write(b).map_err(|e| os_err(&path, e))?;
        }
        w.finish().map_err(|e| os_err(&path, e))?;
        Ok(())
    })
}
