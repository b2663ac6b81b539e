//! Arbitrary bytes as an `.xgmii` trace: `parse_line` and `XgmiiReader` (its iterator and its
//! batch reader `read_words`).
//!
//! Invariants:
//! - no panic; the reader yields exactly what an independent line-by-line reading gives
//!   (split at `\n`, trim, skip blank and `#` lines, accept exactly `HH` + space + 16 hex
//!   digits in either case) and stops at the first bad line with an error that names the
//!   file and that line's 1-based number;
//! - every line read re-formats (`Display`) to the same line in lower case, which parses
//!   back to the same transfer; a trace written by `XgmiiWriter` reads back identical:
//!   parse(format(parse(x))) == parse(x).
#![no_main]

use baser_files::xgmii::{parse_line, XgmiiReader, XgmiiWriter};
use baser_files::Position;
use baser_fuzz::read_in_pieces;
use libfuzzer_sys::fuzz_target;
use pcs_core::XgmiiWord;
use std::path::Path;

fn hex(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u64::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// The line form read independently.
fn reference(line: &[u8]) -> Option<XgmiiWord> {
    if line.len() != 19 || line[2] != b' ' {
        return None;
    }
    Some(XgmiiWord::new(hex(&line[3..])?, hex(&line[..2])? as u8))
}

fuzz_target!(|data: &[u8]| {
    // The whole input as one line.
    assert_eq!(parse_line(data).ok(), reference(data));

    let mut expected: Vec<Result<XgmiiWord, u64>> = Vec::new();
    for (n, line) in data.split(|&b| b == b'\n').enumerate() {
        let line = line.trim_ascii();
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        match reference(line) {
            Some(w) => {
                assert_eq!(format!("{w}").as_bytes(), line.to_ascii_lowercase());
                assert_eq!(parse_line(format!("{w}").as_bytes()).ok(), Some(w));
                expected.push(Ok(w));
            }
            None => {
                expected.push(Err(n as u64 + 1));
                break;
            }
        }
    }

    let path = Path::new("fuzz.xgmii");
    let got: Vec<_> = XgmiiReader::new(data, path).collect();
    assert_eq!(got.len(), expected.len());
    let mut words = Vec::new();
    for (g, e) in got.iter().zip(&expected) {
        match (g, e) {
            (Ok(w), Ok(x)) => {
                assert_eq!(w, x);
                words.push(*w);
            }
            (Err(err), Err(line)) => {
                assert_eq!(err.position, Position::Line(*line));
                assert!(!err.message.is_empty());
                assert!(err.to_string().starts_with(&format!("fuzz.xgmii:{line}: ")));
            }
            _ => panic!("reader {g:?}, reference {e:?}"),
        }
    }

    // The batch reader (what `decode` and `encode` run), in pieces of 1..=8 transfers: the
    // same transfers and the same error line.
    let mut r = XgmiiReader::new(data, path);
    let (batched, error) = read_in_pieces(data.len() % 8 + 1, |out, max| r.read_words(out, max));
    assert_eq!(batched, words);
    let error = error.map(|e| e.position);
    let want = expected
        .iter()
        .find_map(|e| e.as_ref().err().copied())
        .map(Position::Line);
    assert_eq!(error, want);

    // Written and read back.
    let mut w = XgmiiWriter::new(Vec::new(), &["fuzz"]).expect("a Vec never fails");
    for &x in &words {
        w.write(x).expect("a Vec never fails");
    }
    let text = w.finish().expect("a Vec never fails");
    let back: Vec<XgmiiWord> = XgmiiReader::new(&text[..], path)
        .map(|r| r.expect("written lines parse"))
        .collect();
    assert_eq!(back, words);
});
