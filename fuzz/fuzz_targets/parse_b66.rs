//! Arbitrary bytes as a `.b66` block stream: `parse_line` and `B66Reader` (its iterator and its
//! batch reader `read_blocks`).
//!
//! Invariants:
//! - no panic; the blocks read are exactly what an independent line-by-line reading gives
//!   (split at `\n`, trim, skip blank and `#` lines, accept exactly one digit 0..3 + space +
//!   16 hex digits in either case), and the reader stops at the first bad line with an error
//!   naming the file and that line's 1-based number;
//! - the header: `scrambled` / `unscrambled` only from a first-line comment; an error while
//!   reading it names a `scrambler_state=` comment's line; a state read fits in 58 bits;
//! - every block line re-formats to the same line in lower case and parses back; a stream
//!   written by `B66Writer` reads back with the same header and blocks.
#![no_main]

use baser_files::b66::{parse_line, B66Reader, B66Writer, Scrambling};
use baser_files::Position;
use baser_fuzz::read_in_pieces;
use libfuzzer_sys::fuzz_target;
use pcs_core::{Block, SyncHeader};
use std::path::Path;

fn reference(line: &[u8]) -> Option<Block> {
    if line.len() != 18 || !(b'0'..=b'3').contains(&line[0]) || line[1] != b' ' {
        return None;
    }
    let p = &line[2..];
    if !p.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    Some(Block {
        sync: SyncHeader::from_bits(line[0] - b'0'),
        payload: u64::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok()?,
    })
}

fuzz_target!(|data: &[u8]| {
    assert_eq!(parse_line(data).ok(), reference(data));

    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .collect();
    let path = Path::new("fuzz.b66");
    let reader = match B66Reader::new(data, path) {
        Ok(r) => r,
        Err(e) => {
            let Position::Line(n) = e.position else {
                panic!("header error without a line: {e}");
            };
            let line = lines[n as usize - 1];
            assert!(line.starts_with(b"#"), "{e}");
            assert!(
                String::from_utf8_lossy(line).contains("scrambler_state="),
                "{e}"
            );
            return;
        }
    };
    let header = reader.header();
    let first = lines[0].strip_prefix(b"#").map(<[u8]>::trim_ascii);
    assert_eq!(
        header.scrambling == Scrambling::Unscrambled,
        first == Some(&b"unscrambled"[..])
    );
    if let Some(s) = header.scrambler_state {
        assert!(s >> 58 == 0);
    }

    let mut expected: Vec<Result<Block, u64>> = Vec::new();
    for (n, &line) in lines.iter().enumerate() {
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        match reference(line) {
            Some(b) => {
                assert_eq!(format!("{b}").as_bytes(), line.to_ascii_lowercase());
                assert_eq!(parse_line(format!("{b}").as_bytes()).ok(), Some(b));
                expected.push(Ok(b));
            }
            None => {
                expected.push(Err(n as u64 + 1));
                break;
            }
        }
    }
    let got: Vec<_> = reader.collect();
    assert_eq!(got.len(), expected.len());
    let mut blocks = Vec::new();
    for (g, e) in got.iter().zip(&expected) {
        match (g, e) {
            (Ok(b), Ok(x)) => {
                assert_eq!(b, x);
                blocks.push(*b);
            }
            (Err(err), Err(line)) => {
                assert_eq!(err.position, Position::Line(*line));
                assert!(err.to_string().starts_with(&format!("fuzz.b66:{line}: ")));
            }
            _ => panic!("reader {g:?}, reference {e:?}"),
        }
    }

    // The batch reader (what `decode` runs), in pieces of 1..=8 blocks: the same blocks and
    // the same error line.
    let mut r = B66Reader::new(data, path).expect("the header read above");
    let (batched, error) = read_in_pieces(data.len() % 8 + 1, |out, max| r.read_blocks(out, max));
    assert_eq!(batched, blocks);
    let error = error.map(|e| e.position);
    let want = expected
        .iter()
        .find_map(|e| e.as_ref().err().copied())
        .map(Position::Line);
    assert_eq!(error, want);

    let mut w = B66Writer::new(Vec::new(), header).expect("a Vec never fails");
    for &b in &blocks {
        w.write(b).expect("a Vec never fails");
    }
    let text = w.finish().expect("a Vec never fails");
    let r = B66Reader::new(&text[..], path).expect("a written header reads back");
    assert_eq!(r.header(), header);
    let back: Vec<Block> = r.map(|b| b.expect("written lines parse")).collect();
    assert_eq!(back, blocks);
});
