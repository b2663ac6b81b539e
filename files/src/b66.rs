//! `.b66` text streams of 66-bit blocks: one block per line, `H PPPPPPPPPPPPPPPP` (the sync
//! header as a 2-bit integer whose bit 0 is first on the wire: 2 data, 1 control, 0/3 invalid;
//! then the payload, bit 0 first on the wire). A first line `# scrambled` or `# unscrambled`
//! says which (no such line: scrambled); `# scrambler_state=0x…` gives the scrambler state
//! before the first block, `# scrambler_state=auto` (or no such line) says it is unknown: the
//! first block then trains the descrambler.

use super::{hex16, hex_digits, parse_hex, parse_hex16, write_lines, InputError, TextLines};
use pcs_core::{Block, SyncHeader};
use std::io::{BufRead, Write};
use std::path::Path;

/// What a block line must look like, for error messages.
pub const LINE_FORM: &str =
    "`H PPPPPPPPPPPPPPPP` (sync header digit 0..3, a space, 16 hex digits of payload)";

/// Whether the payloads are scrambled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scrambling {
    /// Line payloads, as on the wire (the default).
    Scrambled,
    /// Encoder output before the scrambler.
    Unscrambled,
}

/// What the comment lines before the first block said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct B66Header {
    /// Scrambled or not.
    pub scrambling: Scrambling,
    /// `# scrambler_state=0x…`, if given (`None`: unknown, `auto` or no line).
    pub scrambler_state: Option<u64>,
}

/// Parses one block line (without its line end).
pub fn parse_line(line: &[u8]) -> Result<Block, String> {
    if let [h, b' ', rest @ ..] = line {
        if let (Ok(p), Ok(h)) = (<&[u8; 16]>::try_from(rest), parse_hex(&[*h])) {
            if let (Some(payload), true) = (parse_hex16(p), h < 4) {
                return Ok(Block {
                    sync: SyncHeader::from_bits(h as u8),
                    payload,
                });
            }
        }
    }
    Err(explain(line))
}

fn explain(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let fields: Vec<&str> = text.split_whitespace().collect();
    match fields.as_slice() {
        [h, p] => {
            if h.len() != 1 {
                return format!("sync header `{h}` has {} digits, expected one digit 0..3; expected {LINE_FORM}", h.len());
            }
            if !matches!(h.as_bytes(), [b'0'..=b'3']) {
                return format!(
                    "sync header digit `{h}` is not 0..3 (2 = data, 1 = control, 0 and 3 invalid)"
                );
            }
            if p.len() != 16 {
                return format!(
                    "payload `{p}` has {} hex digits, expected 16; expected {LINE_FORM}",
                    p.len()
                );
            }
            if let Err(i) = parse_hex(p.as_bytes()) {
                return format!("payload `{p}`: character {} is not a hex digit", i + 1);
            }
            format!("expected {LINE_FORM}, found `{text}` (separate the fields with one space)")
        }
        _ => format!(
            "expected {LINE_FORM}, found `{text}` ({} fields)",
            fields.len()
        ),
    }
}

/// Streams blocks from a `.b66` file.
pub struct B66Reader<R> {
    lines: TextLines<R>,
    header: B66Header,
    /// The first block line, read with the header comments.
    pending: Option<Result<Block, InputError>>,
}

impl<R: BufRead> B66Reader<R> {
    /// Reads the comment lines before the first block.
    ///
    /// # Errors
    /// An I/O error, or a malformed `scrambler_state` comment.
    pub fn new(inner: R, path: &Path) -> Result<Self, InputError> {
        let mut r = Self {
            lines: TextLines::new(inner, path),
            header: B66Header {
                scrambling: Scrambling::Scrambled,
                scrambler_state: None,
            },
            pending: None,
        };
        let mut buf = Vec::with_capacity(64);
        loop {
            let got = super::read_line_capped(&mut r.lines.inner, &mut buf)
                .map_err(|e| InputError::io(path, &e))?;
            r.lines.line_no += u64::from(got != super::Read::End);
            let line_no = r.lines.line_no;
            match got {
                super::Read::End => return Ok(r),
                super::Read::TooLong => {
                    return Err(InputError::line(path, line_no, super::too_long_message()))
                }
                super::Read::Line => {}
            }
            let line = buf.trim_ascii();
            if line.is_empty() {
                continue;
            }
            let Some(comment) = line.strip_prefix(b"#") else {
                let p = parse_line(line).map_err(|m| InputError::line(path, line_no, m));
                r.pending = Some(p);
                return Ok(r);
            };
            let comment = String::from_utf8_lossy(comment.trim_ascii()).into_owned();
            if line_no == 1 && comment == "scrambled" {
                r.header.scrambling = Scrambling::Scrambled;
            } else if line_no == 1 && comment == "unscrambled" {
                r.header.scrambling = Scrambling::Unscrambled;
            } else if let Some(v) = comment.strip_prefix("scrambler_state=") {
                // `auto`: not known; the first block trains the descrambler (as without the
                // line).
                r.header.scrambler_state = if v.trim() == "auto" {
                    None
                } else {
                    Some(parse_state(v).map_err(|m| InputError::line(path, line_no, m))?)
                };
            }
        }
    }

    /// What the leading comments said.
    pub fn header(&self) -> B66Header {
        self.header
    }

    /// The line number of the last line read.
    pub fn line_no(&self) -> u64 {
        self.lines.line_no
    }
}

/// The value of a `# scrambler_state=0x…` comment: at most 58 bits.
fn parse_state(v: &str) -> Result<u64, String> {
    let hex = v.trim().trim_start_matches("0x").trim_start_matches("0X");
    if hex.is_empty() || hex.len() > 15 {
        return Err(format!(
            "scrambler_state `{v}`: expected 0x and up to 15 hex digits (58 bits)"
        ));
    }
    let s = parse_hex(hex.as_bytes()).map_err(|_| format!("scrambler_state `{v}` is not hex"))?;
    if s >> 58 != 0 {
        return Err(format!("scrambler_state `{v}` has more than 58 bits"));
    }
    Ok(s)
}

/// A whole `H PPPPPPPPPPPPPPPP\n` line (19 octets), the form nearly every line has.
#[inline]
fn fast_line(line: &[u8]) -> Option<Block> {
    match line {
        &[h @ b'0'..=b'3', b' ', ref p @ .., b'\n'] => {
            let payload = <&[u8; 16]>::try_from(p).ok().and_then(parse_hex16)?;
            Some(Block {
                sync: SyncHeader::from_bits(h - b'0'),
                payload,
            })
        }
        _ => None,
    }
}

impl<R: BufRead> B66Reader<R> {
    /// Appends blocks to `out` until it holds `max` or the file ends; returns false at the
    /// end. The same blocks, errors and line numbers as the iterator, many lines per call.
    ///
    /// # Errors
    /// A line that is not a block (its number and why), or an I/O error; the blocks before it
    /// are in `out`.
    pub fn read_blocks(&mut self, out: &mut Vec<Block>, max: usize) -> Result<bool, InputError> {
        if let Some(p) = self.take_pending() {
            out.push(p?);
        }
        self.lines.read_items(19, fast_line, parse_line, out, max)
    }

    /// The first block line, read with the header comments (an error in it ends the reader).
    fn take_pending(&mut self) -> Option<Result<Block, InputError>> {
        let p = self.pending.take()?;
        if p.is_err() {
            self.lines.fail();
        }
        Some(p)
    }
}

impl<R: BufRead> Iterator for B66Reader<R> {
    type Item = Result<Block, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(p) = self.take_pending() {
            return Some(p);
        }
        self.lines.next_item(19, fast_line, parse_line)
    }
}

/// A block's line, `H PPPPPPPPPPPPPPPP\n` (what [`Block`]'s `Display` gives, and a line end).
#[inline]
fn line(b: Block) -> [u8; 19] {
    let mut line = [b' '; 19];
    line[..1].copy_from_slice(&hex_digits::<1>(u64::from(b.sync.to_bits())));
    line[2..18].copy_from_slice(&hex16(b.payload));
    line[18] = b'\n';
    line
}

/// Writes a `.b66` file.
pub struct B66Writer<W: Write> {
    inner: W,
    /// Lines formatted by [`B66Writer::write_blocks`], written at once.
    lines: Vec<u8>,
}

impl<W: Write> B66Writer<W> {
    /// Writes the header lines: `# scrambled`/`# unscrambled` and, for a scrambled stream, the
    /// scrambler state before the first block.
    pub fn new(mut inner: W, header: B66Header) -> std::io::Result<Self> {
        match header.scrambling {
            Scrambling::Scrambled => writeln!(inner, "# scrambled")?,
            Scrambling::Unscrambled => writeln!(inner, "# unscrambled")?,
        }
        match (header.scrambler_state, header.scrambling) {
            (Some(s), _) => writeln!(inner, "# scrambler_state=0x{s:015x}")?,
            (None, Scrambling::Scrambled) => writeln!(inner, "# scrambler_state=auto")?,
            (None, Scrambling::Unscrambled) => {}
        }
        Ok(Self {
            inner,
            lines: Vec::new(),
        })
    }

    /// Writes a comment line (`# text`).
    pub fn comment(&mut self, text: &str) -> std::io::Result<()> {
        writeln!(self.inner, "# {text}")
    }

    /// Writes one block: the line [`Block`]'s `Display` gives (`H PPPPPPPPPPPPPPPP`).
    pub fn write(&mut self, b: Block) -> std::io::Result<()> {
        self.write_blocks(std::slice::from_ref(&b))
    }

    /// Writes blocks, one line each as [`B66Writer::write`] does, formatted together and
    /// handed to the writer at once.
    pub fn write_blocks(&mut self, blocks: &[Block]) -> std::io::Result<()> {
        write_lines(&mut self.inner, &mut self.lines, blocks, line)
    }

    /// Flushes and returns the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::read_in_pieces;
    use super::*;

    fn open(text: &str) -> Result<B66Reader<&[u8]>, InputError> {
        B66Reader::new(text.as_bytes(), Path::new("d.b66"))
    }

    #[test]
    fn header_comments_set_scrambling_and_state() {
        let r = open("# unscrambled\n# scrambler_state=0x3ffffffffffffff\n1 000000000000001e\n")
            .unwrap();
        assert_eq!(
            r.header(),
            B66Header {
                scrambling: Scrambling::Unscrambled,
                scrambler_state: Some((1 << 58) - 1)
            }
        );
        let blocks: Vec<Block> = r.map(Result::unwrap).collect();
        assert_eq!(blocks, [Block::IDLE]);
        assert_eq!(
            open("2 0000000000000000\n").unwrap().header().scrambling,
            Scrambling::Scrambled
        );
        // `auto` and no line both leave the state unknown.
        let auto = open("# scrambled\n# scrambler_state=auto\n2 0000000000000000\n").unwrap();
        assert_eq!(auto.header().scrambler_state, None);
        assert!(open("# scrambler_state=automatic\n").is_err());
    }

    #[test]
    fn invalid_headers_0_and_3_are_kept() {
        let blocks: Vec<Block> = open("0 0000000000000000\n3 FFFFFFFFFFFFFFFF\n")
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(blocks[0].sync, SyncHeader::from_bits(0));
        assert_eq!(blocks[1].sync, SyncHeader::from_bits(3));
    }

    #[test]
    fn errors_name_file_line_and_expectation() {
        let e = open("# scrambled\n2 000000000000001\n")
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err()
            .to_string();
        assert_eq!(e, format!("d.b66:2: payload `000000000000001` has 15 hex digits, expected 16; expected {LINE_FORM}"));
        let e = open("7 0000000000000000\n")
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("d.b66:1: sync header digit `7` is not 0..3"),
            "{e}"
        );
        let e = open("# scrambler_state=0xzz\n").err().unwrap().to_string();
        assert!(e.starts_with("d.b66:1: scrambler_state"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn fast_and_slow_line_paths_agree_with_any_buffering(
            lines in proptest::collection::vec((0u8..4, proptest::prelude::any::<u64>(), 0u8..4), 1..60),
            cap in 1usize..64,
            max in 1usize..8,
        ) {
            // Lines in the fast form, with CRLF, with comments and blanks between them.
            let mut text = String::from("# scrambled\n");
            for (h, p, style) in &lines {
                match style {
                    0 => text.push_str(&format!("{h} {p:016x}\n")),
                    1 => text.push_str(&format!("{h} {p:016X}\r\n")),
                    2 => text.push_str(&format!("# c\n\n{h} {p:016x}\n")),
                    _ => text.push_str(&format!("  {h} {p:016x}  \n")),
                }
            }
            let whole: Vec<Block> = open(&text).unwrap().map(Result::unwrap).collect();
            let small = std::io::BufReader::with_capacity(cap, text.as_bytes());
            let mut r = B66Reader::new(small, Path::new("d.b66")).unwrap();
            let pieces: Vec<Block> = r.by_ref().map(Result::unwrap).collect();
            proptest::prop_assert_eq!(&pieces, &whole);
            proptest::prop_assert_eq!(whole.len(), lines.len());
            proptest::prop_assert_eq!(r.line_no(), text.lines().count() as u64);
            // The batch reader (what decode runs) gives the same blocks, in pieces of any size.
            let small = std::io::BufReader::with_capacity(cap, text.as_bytes());
            let mut r = B66Reader::new(small, Path::new("d.b66")).unwrap();
            let (batched, err) = read_in_pieces(max, |out, max| r.read_blocks(out, max));
            proptest::prop_assert!(err.is_none());
            proptest::prop_assert_eq!(&batched, &whole);
            proptest::prop_assert_eq!(r.line_no(), text.lines().count() as u64);
            // A bad line: the same error, with the same line number, as the iterator gives.
            let bad = format!("{text}2 00000000000000g0\n1 0000000000000000\n");
            let it = open(&bad).unwrap().find_map(Result::err).unwrap().to_string();
            let small = std::io::BufReader::with_capacity(cap, bad.as_bytes());
            let mut r = B66Reader::new(small, Path::new("d.b66")).unwrap();
            let (got, err) = read_in_pieces(max, |out, max| r.read_blocks(out, max));
            proptest::prop_assert_eq!(err.map(|e| e.to_string()), Some(it));
            proptest::prop_assert_eq!(&got, &whole);
        }
    }

    #[test]
    fn writer_output_reads_back() {
        let header = B66Header {
            scrambling: Scrambling::Scrambled,
            scrambler_state: Some(0x123),
        };
        let mut w = B66Writer::new(Vec::new(), header).unwrap();
        w.write(Block::EBLOCK_T).unwrap();
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "# scrambled\n# scrambler_state=0x000000000000123\n1 3c78f1e3c78f1e1e\n"
        );
        let r = open(&text).unwrap();
        assert_eq!(r.header(), header);
        assert_eq!(r.map(Result::unwrap).collect::<Vec<_>>(), [Block::EBLOCK_T]);
    }
}
