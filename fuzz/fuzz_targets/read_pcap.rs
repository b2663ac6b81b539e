//! Arbitrary bytes as a pcap / pcapng capture: `FrameReader`, with and without
//! `--fcs-included`.
//!
//! Invariants:
//! - no panic; the reader stops after its first error; frames are numbered 0, 1, ...;
//! - a pcap error names a byte offset inside the file: 0 or 20 for the file header, and for
//!   a record the offset where that record starts (24 + the records before it); a pcapng
//!   error names the file (pcap-file does not report pcapng offsets);
//! - with `fcs_included`, each frame is the same record split into data and a 4-octet FCS;
//! - the frames read, written by `FrameWriter` and read back, are the same frames.
#![no_main]

use baser_files::pcap::{Frame, FrameReader, FrameWriter};
use baser_files::{InputError, Position};
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::time::Duration;

fn read(data: &[u8], fcs: bool) -> (Vec<Frame>, Option<InputError>) {
    let mut frames = Vec::new();
    let mut reader = match FrameReader::new(data, Path::new("fuzz.pcap"), fcs) {
        Ok(r) => r,
        Err(e) => return (frames, Some(e)),
    };
    for r in reader.by_ref() {
        match r {
            Ok(f) => frames.push(f),
            Err(e) => {
                assert!(reader.next().is_none(), "the reader went on after an error");
                return (frames, Some(e));
            }
        }
    }
    (frames, None)
}

fn whole(f: &Frame) -> Vec<u8> {
    let mut v = f.data.clone();
    v.extend(f.fcs.iter().flatten());
    v
}

fuzz_target!(|data: &[u8]| {
    let magic = data.first_chunk::<4>().map(|m| u32::from_le_bytes(*m));
    let is_pcap = matches!(
        magic,
        Some(0xa1b2_c3d4 | 0xd4c3_b2a1 | 0xa1b2_3c4d | 0x4d3c_b2a1)
    );
    let is_ng = magic == Some(0x0a0d_0d0a);

    let (frames, err) = read(data, false);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f.index, i as u64);
    }
    if !is_pcap && !is_ng {
        assert!(frames.is_empty());
        let e = err.expect("not a capture");
        assert!(
            matches!(e.position, Position::Byte(0) | Position::File),
            "{e}"
        );
        return;
    }
    if let Some(e) = &err {
        assert!(!e.message.is_empty());
        match e.position {
            Position::Byte(off) if is_pcap => {
                let records: u64 = frames.iter().map(|f| 16 + f.data.len() as u64).sum();
                assert!(
                    off == 0 || off == 20 || off == 24 + records,
                    "offset {off}, records end at {}: {e}",
                    24 + records
                );
                assert!(off <= data.len() as u64, "{e}");
            }
            Position::File if is_ng => {}
            Position::Byte(off) if is_ng => assert_eq!(off, 0, "{e}"),
            _ => panic!("error position {:?}: {e}", e.position),
        }
    }

    // The same records with the FCS split off.
    let (with_fcs, _) = read(data, true);
    assert!(with_fcs.len() <= frames.len());
    for (a, b) in frames.iter().zip(&with_fcs) {
        assert!(b.fcs.is_some());
        assert_eq!(whole(a), whole(b));
    }

    // Written and read back.
    let mut w = FrameWriter::new(Vec::new()).expect("a Vec never fails");
    for (i, f) in frames.iter().enumerate() {
        w.write(Duration::from_nanos(i as u64), &whole(f))
            .expect("a Vec never fails");
    }
    let bytes = w.finish().expect("a Vec never fails");
    let (back, err) = read(&bytes, false);
    assert!(err.is_none(), "{err:?}");
    let back: Vec<Vec<u8>> = back.iter().map(whole).collect();
    let frames: Vec<Vec<u8>> = frames.iter().map(whole).collect();
    assert_eq!(back, frames);
});
