//! `.xgmii` text traces: one line per 64-bit XGMII transfer, `CC DDDDDDDDDDDDDDDD` (control
//! mask, space, data with lane 0 in the least significant octet). `#` starts a comment line;
//! blank lines are ignored; hex is written lower case and read in either case.

use super::{hex16, hex_digits, parse_hex, parse_hex16, write_lines, InputError, TextLines};
use pcs_core::XgmiiWord;
use std::io::{BufRead, Write};
use std::path::Path;

/// What a trace line must look like, for error messages.
pub const LINE_FORM: &str =
    "`CC DDDDDDDDDDDDDDDD` (2 hex digits of control mask, a space, 16 hex digits of data)";

/// Parses one non-comment line (without its line end).
pub fn parse_line(line: &[u8]) -> Result<XgmiiWord, String> {
    if let (Some(c), Some((b' ', d))) = (
        line.first_chunk::<2>(),
        line.get(2..).and_then(|r| r.split_first()),
    ) {
        if let (Ok(d), Ok(ctrl)) = (<&[u8; 16]>::try_from(d), parse_hex(c)) {
            if let Some(data) = parse_hex16(d) {
                return Ok(XgmiiWord::new(data, ctrl as u8));
            }
        }
    }
    Err(explain(line))
}

/// Says precisely what is wrong with a line that failed the fast parse.
fn explain(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let fields: Vec<&str> = text.split_whitespace().collect();
    match fields.as_slice() {
        [c, d] => {
            if c.len() != 2 {
                return format!(
                    "control mask `{c}` has {} hex digits, expected 2; expected {LINE_FORM}",
                    c.len()
                );
            }
            if let Err(i) = parse_hex(c.as_bytes()) {
                // Name the offending character (the field may hold multi-byte UTF-8).
                let bad = c.as_bytes().get(i).copied().unwrap_or(b'?');
                let shown = if bad.is_ascii_graphic() {
                    (bad as char).to_string()
                } else {
                    format!("\\x{bad:02x}")
                };
                return format!("control mask `{c}`: `{shown}` is not a hex digit");
            }
            if d.len() != 16 {
                return format!(
                    "data `{d}` has {} hex digits, expected 16; expected {LINE_FORM}",
                    d.len()
                );
            }
            if let Err(i) = parse_hex(d.as_bytes()) {
                return format!("data `{d}`: character {} is not a hex digit", i + 1);
            }
            format!("expected {LINE_FORM}, found `{text}` (separate the fields with one space)")
        }
        _ => format!(
            "expected {LINE_FORM}, found `{text}` ({} fields)",
            fields.len()
        ),
    }
}

/// Streams transfers from a trace; each item is one transfer or the error that stops the read.
pub struct XgmiiReader<R> {
    lines: TextLines<R>,
}

impl<R: BufRead> XgmiiReader<R> {
    /// A reader over `inner`, which came from `path` (named in errors).
    pub fn new(inner: R, path: &Path) -> Self {
        Self {
            lines: TextLines::new(inner, path),
        }
    }

    /// The line number of the last line read.
    pub fn line_no(&self) -> u64 {
        self.lines.line_no
    }
}

/// A whole `CC DDDDDDDDDDDDDDDD\n` line (20 octets), the form nearly every line has.
#[inline]
fn fast_line(line: &[u8]) -> Option<XgmiiWord> {
    match line {
        &[c0, c1, b' ', ref d @ .., b'\n'] => {
            let ctrl = parse_hex(&[c0, c1]).ok()?;
            let data = <&[u8; 16]>::try_from(d).ok().and_then(parse_hex16)?;
            Some(XgmiiWord::new(data, ctrl as u8))
        }
        _ => None,
    }
}

impl<R: BufRead> XgmiiReader<R> {
    /// Appends transfers to `out` until it holds `max` or the file ends; returns false at the
    /// end. The same transfers, errors and line numbers as the iterator, many lines per call.
    ///
    /// # Errors
    /// A line that is not a transfer (its number and why), or an I/O error; the transfers
    /// before it are in `out`.
    pub fn read_words(&mut self, out: &mut Vec<XgmiiWord>, max: usize) -> Result<bool, InputError> {
        self.lines.read_items(20, fast_line, parse_line, out, max)
    }
}

impl<R: BufRead> Iterator for XgmiiReader<R> {
    type Item = Result<XgmiiWord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.lines.next_item(20, fast_line, parse_line)
    }
}

/// A transfer's line, `CC DDDDDDDDDDDDDDDD\n` (what `XgmiiWord`'s `Display` gives, and a line
/// end).
#[inline]
fn line(w: XgmiiWord) -> [u8; 20] {
    let mut line = [b' '; 20];
    line[..2].copy_from_slice(&hex_digits::<2>(u64::from(w.ctrl)));
    line[3..19].copy_from_slice(&hex16(w.data));
    line[19] = b'\n';
    line
}

/// Writes a trace.
pub struct XgmiiWriter<W: Write> {
    inner: W,
    /// Lines formatted by [`XgmiiWriter::write_words`], written at once.
    lines: Vec<u8>,
}

impl<W: Write> XgmiiWriter<W> {
    /// A writer; `comment` lines (without `#`) go first.
    pub fn new(mut inner: W, comment: &[&str]) -> std::io::Result<Self> {
        for c in comment {
            writeln!(inner, "# {c}")?;
        }
        Ok(Self {
            inner,
            lines: Vec::new(),
        })
    }

    /// Writes one transfer.
    pub fn write(&mut self, w: XgmiiWord) -> std::io::Result<()> {
        self.write_words(std::slice::from_ref(&w))
    }

    /// Writes transfers, one line each as [`XgmiiWriter::write`] does, formatted together
    /// and handed to the writer at once.
    pub fn write_words(&mut self, words: &[XgmiiWord]) -> std::io::Result<()> {
        write_lines(&mut self.inner, &mut self.lines, words, line)
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

    fn read(text: &str) -> Vec<Result<XgmiiWord, String>> {
        XgmiiReader::new(text.as_bytes(), Path::new("t.xgmii"))
            .map(|r| r.map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn reads_words_comments_blank_lines_and_upper_case() {
        let r = read("# trace\n\nff 0707070707070707\n01 D5555555555555FB\r\n");
        assert_eq!(
            r,
            [
                Ok(XgmiiWord::IDLE),
                Ok(XgmiiWord::new(0xd555_5555_5555_55fb, 0x01))
            ]
        );
    }

    #[test]
    fn the_batch_reader_gives_what_the_iterator_gives() {
        let text = "# trace\nff 0707070707070707\n\n01 D5555555555555FB\r\n00 0102030405060708\n# x\nff 07070707070707fd\nzz 0000000000000000\n";
        let it = read(text);
        for cap in [1, 7, 20, 64] {
            for max in [1, 2, 3, 100] {
                let inner = std::io::BufReader::with_capacity(cap, text.as_bytes());
                let mut r = XgmiiReader::new(inner, Path::new("t.xgmii"));
                let (words, err) = read_in_pieces(max, |out, max| r.read_words(out, max));
                let mut got: Vec<_> = words.into_iter().map(Ok).collect();
                got.extend(err.map(|e| Err(e.to_string())));
                assert_eq!(got, it, "capacity {cap}, pieces of {max}");
            }
        }
        assert!(
            matches!(it.last(), Some(Err(e)) if e.starts_with("t.xgmii:8:")),
            "{it:?}"
        );
    }

    #[test]
    fn errors_name_file_line_and_what_was_expected() {
        let r = read("ff 0707070707070707\nff 070707070707070\n");
        assert_eq!(r.len(), 2);
        let e = r[1].as_ref().unwrap_err();
        assert!(
            e.starts_with("t.xgmii:2: data `070707070707070` has 15 hex digits, expected 16"),
            "{e}"
        );
        let e = read("fg 0707070707070707").remove(0).unwrap_err();
        assert!(
            e.contains("t.xgmii:1: control mask `fg`: `g` is not a hex digit"),
            "{e}"
        );
        let e = read("ff0707070707070707").remove(0).unwrap_err();
        assert!(e.contains("(1 fields)"), "{e}");
        let e = read("ff 07070707070707z7").remove(0).unwrap_err();
        assert!(e.contains("character 15 is not a hex digit"), "{e}");
    }

    #[test]
    fn non_ascii_fields_are_explained_not_panicked_on() {
        let e = read("\u{e9} 0707070707070707").remove(0).unwrap_err();
        assert!(
            e.contains("control mask `\u{e9}`: `\\xc3` is not a hex digit"),
            "{e}"
        );
        let e = read("ff 07070707070707\u{e9}").remove(0).unwrap_err();
        assert!(e.contains("t.xgmii:1:"), "{e}");
    }

    #[test]
    fn writer_output_reads_back() {
        let words = [XgmiiWord::IDLE, XgmiiWord::new(0x1234, 0x0f)];
        let mut w = XgmiiWriter::new(Vec::new(), &["made by a test"]).unwrap();
        for x in words {
            w.write(x).unwrap();
        }
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "# made by a test\nff 0707070707070707\n0f 0000000000001234\n"
        );
        let back: Vec<_> = read(&text).into_iter().map(Result::unwrap).collect();
        assert_eq!(back, words);
    }
}
