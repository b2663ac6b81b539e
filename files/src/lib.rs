//! `baser-files`: the file formats of DESIGN.md and the report writers, below every door (the
//! `baser` command, the Python package, the C ABI, the fuzz targets).
//!
//! `.xgmii` and `.b66` text traces, `.bits` binary streams, pcap/pcapng frames and `.vcd`
//! waveforms; the JSON and JUnit XML report writers ([`report`]). Readers stream (bounded memory
//! whatever the input size) and every parse error names the file and the line or byte offset.
#![deny(unsafe_code)]

pub mod b66;
pub mod bits;
pub mod pcap;
pub mod report;
pub mod suite;
pub mod vcd;
pub mod xgmii;

use std::fmt;
use std::path::{Path, PathBuf};

/// Where in an input file something is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// A 1-based line of a text file.
    Line(u64),
    /// A byte offset into a binary file.
    Byte(u64),
    /// The file as a whole.
    File,
}

/// An input that could not be read or parsed: exit status 2.
#[derive(Debug)]
pub struct InputError {
    /// The file.
    pub path: PathBuf,
    /// Where in it.
    pub position: Position,
    /// What was wrong and what was expected.
    pub message: String,
}

impl InputError {
    /// An error at a line of a text file.
    pub fn line(path: &Path, line: u64, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            position: Position::Line(line),
            message: message.into(),
        }
    }

    /// An error at a byte offset of a binary file.
    pub fn byte(path: &Path, offset: u64, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            position: Position::Byte(offset),
            message: message.into(),
        }
    }

    /// An error about the file as a whole.
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            position: Position::File,
            message: message.into(),
        }
    }

    /// An I/O error while reading or writing the file.
    pub fn io(path: &Path, err: &std::io::Error) -> Self {
        Self::file(path, err.to_string())
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Position::Line(n) => write!(f, "{}:{}: {}", self.path.display(), n, self.message),
            Position::Byte(n) => write!(f, "{}: byte {}: {}", self.path.display(), n, self.message),
            Position::File => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// The line machinery the text readers share: line numbers, comment and blank lines, a fast
/// path for whole fixed-form lines straight from the read buffer, and stopping after the first
/// error.
/// The longest line a text reader takes (a `.b66` block line is 18 characters, an `.xgmii`
/// line 19; comments are free text). A longer line is refused with its line number, read past
/// in constant memory.
pub const MAX_LINE: usize = 4096;

/// What [`read_line_capped`] read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// The end of the input.
    End,
    /// A line (in the buffer, its end included).
    Line,
    /// A line longer than [`MAX_LINE`]: read past, not kept.
    TooLong,
}

/// Reads one line into `buf` (cleared first), keeping at most [`MAX_LINE`] octets: a longer
/// line is consumed up to its end without being stored.
pub(crate) fn read_line_capped(
    r: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
) -> std::io::Result<Read> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            break;
        }
        any = true;
        let (chunk, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (avail.get(..=i).unwrap_or(avail), true),
            None => (avail, false),
        };
        let n = chunk.len();
        if !too_long && buf.len() + n <= MAX_LINE {
            buf.extend_from_slice(chunk);
        } else {
            too_long = true;
            buf.clear();
        }
        r.consume(n);
        if done {
            break;
        }
    }
    Ok(match (any, too_long) {
        (false, _) => Read::End,
        (true, true) => Read::TooLong,
        (true, false) => Read::Line,
    })
}

/// The message for a line over [`MAX_LINE`].
pub(crate) fn too_long_message() -> String {
    format!("line longer than {MAX_LINE} characters (a missing line end?); refused")
}

pub(crate) struct TextLines<R> {
    pub(crate) inner: R,
    pub(crate) path: PathBuf,
    pub(crate) line_no: u64,
    buf: Vec<u8>,
    failed: bool,
}

impl<R: std::io::BufRead> TextLines<R> {
    pub(crate) fn new(inner: R, path: &Path) -> Self {
        Self {
            inner,
            path: path.to_path_buf(),
            line_no: 0,
            buf: Vec::with_capacity(64),
            failed: false,
        }
    }

    /// Ends the reader: the next items are `None`.
    pub(crate) fn fail(&mut self) {
        self.failed = true;
    }

    /// The next line that is neither blank nor a `#` comment, trimmed; `None` at the end.
    ///
    /// # Errors
    /// An I/O error of the reader.
    pub(crate) fn next_content_line(&mut self) -> std::io::Result<Option<&[u8]>> {
        loop {
            match read_line_capped(&mut self.inner, &mut self.buf)? {
                Read::End => return Ok(None),
                Read::TooLong => {
                    self.line_no += 1;
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        TooLong,
                    ));
                }
                Read::Line => {}
            }
            self.line_no += 1;
            let start = self.buf.iter().position(|b| !b.is_ascii_whitespace());
            let end = self.buf.iter().rposition(|b| !b.is_ascii_whitespace());
            if let (Some(start), Some(end)) = (start, end) {
                if self.buf.get(start) != Some(&b'#') {
                    return Ok(self.buf.get(start..=end));
                }
            }
        }
    }

    /// The next item: `fast` may take a whole line of `len` octets (line end included) from
    /// the read buffer; otherwise the next content line goes to `parse`. After an error the
    /// reader ends.
    pub(crate) fn next_item<T>(
        &mut self,
        len: usize,
        fast: impl FnOnce(&[u8]) -> Option<T>,
        parse: impl FnOnce(&[u8]) -> Result<T, String>,
    ) -> Option<Result<T, InputError>> {
        if self.failed {
            return None;
        }
        if let Ok(buf) = self.inner.fill_buf() {
            if let Some(item) = buf.get(..len).and_then(fast) {
                self.inner.consume(len);
                self.line_no += 1;
                return Some(Ok(item));
            }
        }
        let r = match self.next_content_line() {
            Ok(Some(line)) => {
                parse(line).map_err(|m| InputError::line(&self.path, self.line_no, m))
            }
            Ok(None) => return None,
            Err(e) if e.get_ref().is_some_and(|i| i.is::<TooLong>()) => Err(InputError::line(
                &self.path,
                self.line_no,
                too_long_message(),
            )),
            Err(e) => Err(InputError::io(&self.path, &e)),
        };
        self.failed = r.is_err();
        Some(r)
    }

    /// Appends items to `out` until it holds `max` or the input ends: whole lines of `len`
    /// octets that `fast` takes are parsed straight from the read buffer, many per call (the
    /// hot loop of the text readers); any other line goes through
    /// [`TextLines::next_item`] (comments, blank lines, errors with their line number).
    /// Returns false at the end of the input (or after an error).
    ///
    /// # Errors
    /// As [`TextLines::next_item`]; the items before the bad line are in `out`.
    pub(crate) fn read_items<T>(
        &mut self,
        len: usize,
        fast: impl Fn(&[u8]) -> Option<T>,
        parse: impl Fn(&[u8]) -> Result<T, String>,
        out: &mut Vec<T>,
        max: usize,
    ) -> Result<bool, InputError> {
        while out.len() < max {
            let mut taken = 0;
            if let Ok(buf) = self.inner.fill_buf() {
                let room = max - out.len();
                for line in buf.chunks_exact(len).take(room) {
                    match fast(line) {
                        Some(item) => out.push(item),
                        None => break,
                    }
                    taken += 1;
                }
            }
            if taken > 0 {
                self.inner.consume(taken * len);
                self.line_no += taken as u64;
                continue;
            }
            // A line the fast path does not take, or one split across reads.
            match self.next_item(len, &fast, &parse) {
                Some(Ok(item)) => out.push(item),
                Some(Err(e)) => return Err(e),
                None => return Ok(false),
            }
        }
        Ok(true)
    }
}

/// The error inside an `io::Error` for a line over [`MAX_LINE`].
#[derive(Debug)]
pub(crate) struct TooLong;

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&too_long_message())
    }
}

impl std::error::Error for TooLong {}

/// Hex digit values, 0xff for a non-digit.
const HEX: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// Parses a run of hex digits (at most 16) into an integer; `Err(index)` names the first
/// byte that is not a hex digit.
#[inline]
pub fn parse_hex(digits: &[u8]) -> Result<u64, usize> {
    let mut v = 0u64;
    for (i, &c) in digits.iter().enumerate() {
        let d = HEX[c as usize];
        if d == 0xff {
            return Err(i);
        }
        v = v << 4 | d as u64;
    }
    Ok(v)
}

/// Formats each item as one line of `N` octets (`line`) into `lines`, then hands them to
/// `inner` at once: the text writers' batch path.
///
/// # Errors
/// The writer failed.
pub(crate) fn write_lines<T: Copy, const N: usize>(
    inner: &mut impl std::io::Write,
    lines: &mut Vec<u8>,
    items: &[T],
    line: impl Fn(T) -> [u8; N],
) -> std::io::Result<()> {
    lines.clear();
    lines.reserve(items.len() * N);
    for &x in items {
        lines.extend_from_slice(&line(x));
    }
    inner.write_all(lines)
}

/// `v` as `N` lower-case hex digits, most significant first (the low `4 * N` bits): the hot
/// path of the text writers, which `write!` with `{:016x}` made ten times slower.
#[inline]
pub fn hex_digits<const N: usize>(v: u64) -> [u8; N] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; N];
    for (i, d) in out.iter_mut().rev().enumerate() {
        *d = DIGITS[(v >> (4 * i) & 0xf) as usize];
    }
    out
}

/// `v` as 16 lower-case hex digits, most significant first ([`hex_digits`] for 16): on x86-64
/// all at once in SSE2 registers.
#[inline]
pub fn hex16(v: u64) -> [u8; 16] {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::hex16(v)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        hex_digits::<16>(v)
    }
}

/// Parses exactly 16 hex digits (either case): the hot path of the text readers. On x86-64,
/// all 16 at once in SSE2 registers (SSE2 is part of every x86-64 CPU); elsewhere eight at a
/// time in a 64-bit word. The tests hold both to the table parser on any 16 octets.
#[inline]
pub fn parse_hex16(digits: &[u8; 16]) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::parse_hex16(digits)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        parse_hex16_swar(digits)
    }
}

/// [`parse_hex16`] eight digits at a time in a 64-bit word (SWAR).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn parse_hex16_swar(digits: &[u8; 16]) -> Option<u64> {
    let (hi, lo) = digits.split_at(8);
    Some(parse_hex8(hi)? << 32 | parse_hex8(lo)?)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_andnot_si128, _mm_cmpgt_epi8, _mm_cmplt_epi8,
        _mm_cvtsi128_si64, _mm_cvtsi64_si128, _mm_movemask_epi8, _mm_or_si128, _mm_packus_epi16,
        _mm_set1_epi16, _mm_set1_epi8, _mm_set_epi64x, _mm_slli_epi16, _mm_srli_epi16,
        _mm_srli_si128, _mm_sub_epi8, _mm_unpacklo_epi8,
    };

    /// 16 hex digits at once.
    #[inline]
    pub(super) fn hex16(v: u64) -> [u8; 16] {
        // SAFETY: SSE2 is in the x86-64 baseline, so every x86-64 CPU runs these
        // instructions; the function takes no pointers.
        let (first, last) = unsafe { format16(v) };
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&first.to_le_bytes());
        out[8..].copy_from_slice(&last.to_le_bytes());
        out
    }

    #[target_feature(enable = "sse2")]
    fn format16(v: u64) -> (u64, u64) {
        // The octets most significant first, then each split into its two nibbles, the high
        // one first: 16 nibbles in digit order.
        let x = _mm_cvtsi64_si128(v.swap_bytes() as i64);
        let low4 = _mm_set1_epi8(0x0f);
        let high = _mm_and_si128(_mm_srli_epi16(x, 4), low4);
        let low = _mm_and_si128(x, low4);
        let nibbles = _mm_unpacklo_epi8(high, low);
        // '0' + n, and 39 more for a letter ('a' is '0' + 10 + 39).
        let letters = _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)), _mm_set1_epi8(39));
        let ascii = _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8(b'0' as i8)), letters);
        (
            _mm_cvtsi128_si64(ascii) as u64,
            _mm_cvtsi128_si64(_mm_srli_si128(ascii, 8)) as u64,
        )
    }

    /// 16 hex digits at once.
    #[inline]
    pub(super) fn parse_hex16(digits: &[u8; 16]) -> Option<u64> {
        let (a, b) = digits.split_at(8);
        let first = u64::from_le_bytes(a.try_into().ok()?);
        let last = u64::from_le_bytes(b.try_into().ok()?);
        // SAFETY: SSE2 is in the x86-64 baseline, so every x86-64 CPU runs these
        // instructions; the function takes no pointers.
        unsafe { digits16(first, last) }
    }

    #[target_feature(enable = "sse2")]
    fn digits16(first: u64, last: u64) -> Option<u64> {
        let byte = |c: u8| _mm_set1_epi8(c as i8);
        let x: __m128i = _mm_set_epi64x(last as i64, first as i64);
        // Per octet (signed compares: octets of 0x80 and above are negative, so no digit):
        // '0'..='9', or 'a'..='f' after folding the case.
        let digit = _mm_and_si128(
            _mm_cmpgt_epi8(x, byte(b'0' - 1)),
            _mm_cmplt_epi8(x, byte(b'9' + 1)),
        );
        let lower = _mm_or_si128(x, byte(0x20));
        let letter = _mm_and_si128(
            _mm_cmpgt_epi8(lower, byte(b'a' - 1)),
            _mm_cmplt_epi8(lower, byte(b'f' + 1)),
        );
        if _mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xffff {
            return None;
        }
        // Nibble values: a digit less '0', a letter less 'a' plus 10.
        let v = _mm_or_si128(
            _mm_and_si128(digit, _mm_sub_epi8(x, byte(b'0'))),
            _mm_andnot_si128(digit, _mm_sub_epi8(lower, byte(b'a' - 10))),
        );
        // Each 16-bit lane holds two digits, the first (more significant) in its low octet:
        // make one octet of them, then pack the eight octets, first pair first.
        let pairs = _mm_and_si128(
            _mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)),
            _mm_set1_epi16(0xff),
        );
        let packed = _mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)) as u64;
        Some(packed.swap_bytes())
    }
}

/// Eight ASCII hex digits at once: validates all lanes with byte-wise range tests, then
/// folds the nibbles together.
#[inline]
fn parse_hex8(digits: &[u8]) -> Option<u64> {
    let bytes: [u8; 8] = digits.try_into().ok()?;
    let x = u64::from_be_bytes(bytes);
    // Per byte: is it in '0'..='9', 'a'..='f' or 'A'..='F'? (All bytes < 0x80 first.)
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if x & HIGH != 0 {
        return None;
    }
    // ge(x, c): high bit set in each byte where byte >= c (bytes < 0x80).
    let ge = |c: u8| (x + ONES * (0x80 - c as u64)) & HIGH;
    let digit = ge(b'0') & !ge(b'9' + 1);
    let lower = x | (ONES * 0x20); // fold case
    let gel = |c: u8| (lower + ONES * (0x80 - c as u64)) & HIGH;
    let alpha = gel(b'a') & !gel(b'f' + 1);
    if digit | alpha != HIGH {
        return None;
    }
    // Nibble value: digit -> low 4 bits; letter -> low 4 bits + 9.
    let nib = (x & (ONES * 0x0f)) + (alpha >> 7) * 9;
    // Fold 8 nibbles (one per byte, most significant first) into 32 bits.
    let n = (nib | nib >> 4) & 0x00ff_00ff_00ff_00ff;
    let n = (n | n >> 8) & 0x0000_ffff_0000_ffff;
    Some((n | n >> 16) & 0xffff_ffff)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Reads everything with a batch reader (`read_blocks`, `read_words`) in pieces of `max`,
    /// checking each piece's size: the items, and the error that stopped it, if any.
    pub(crate) fn read_in_pieces<T>(
        max: usize,
        mut read: impl FnMut(&mut Vec<T>, usize) -> Result<bool, InputError>,
    ) -> (Vec<T>, Option<InputError>) {
        let (mut got, mut piece) = (Vec::new(), Vec::new());
        loop {
            let more = read(&mut piece, max);
            assert!(piece.len() <= max);
            if matches!(more, Ok(true)) {
                assert_eq!(piece.len(), max, "a piece short of max before the end");
            }
            got.append(&mut piece);
            match more {
                Ok(true) => {}
                Ok(false) => return (got, None),
                Err(e) => return (got, Some(e)),
            }
        }
    }

    #[test]
    fn parse_hex_names_the_bad_digit() {
        assert_eq!(parse_hex(b"1f"), Ok(0x1f));
        assert_eq!(parse_hex(b"1g"), Err(1));
    }

    #[test]
    fn parse_hex16_accepts_both_cases_and_rejects_everything_else() {
        assert_eq!(
            parse_hex16(b"0123456789abcdef"),
            Some(0x0123_4567_89ab_cdef)
        );
        assert_eq!(
            parse_hex16(b"FEDCBA9876543210"),
            Some(0xfedc_ba98_7654_3210)
        );
        for bad in [b'g', b'G', b'/', b':', b'@', b'`', b' ', 0x80, 0xff, b'x'] {
            let mut d = *b"0000000000000000";
            d[5] = bad;
            assert_eq!(parse_hex16(&d), None, "{bad:#x}");
        }
    }

    proptest! {
        #[test]
        fn hex_digits_are_what_format_writes(v in any::<u64>()) {
            prop_assert_eq!(hex_digits::<16>(v).to_vec(), format!("{v:016x}").into_bytes());
            prop_assert_eq!(hex16(v).to_vec(), format!("{v:016x}").into_bytes());
            prop_assert_eq!(hex_digits::<2>(v).to_vec(), format!("{:02x}", v & 0xff).into_bytes());
            prop_assert_eq!(hex_digits::<1>(v).to_vec(), format!("{:x}", v & 0xf).into_bytes());
        }

        #[test]
        fn parse_hex16_equals_the_table_parser(v in any::<u64>(), upper in any::<bool>()) {
            let s = if upper { format!("{v:016X}") } else { format!("{v:016x}") };
            let d: [u8; 16] = s.as_bytes().try_into().unwrap();
            prop_assert_eq!(parse_hex16(&d), Some(v));
            prop_assert_eq!(parse_hex16_swar(&d), Some(v));
        }

        #[test]
        fn parse_hex16_rejects_iff_the_table_parser_rejects(d in prop::array::uniform16(any::<u8>())) {
            prop_assert_eq!(parse_hex16(&d), parse_hex(&d).ok());
            prop_assert_eq!(parse_hex16_swar(&d), parse_hex(&d).ok());
        }

        #[test]
        fn parse_hex16_takes_any_mix_of_digits_and_cases(
            d in prop::array::uniform16(prop::sample::select(b"0123456789abcdefABCDEF".to_vec())),
            bad in (0usize..16, any::<u8>()),
        ) {
            prop_assert_eq!(parse_hex16(&d), parse_hex(&d).ok());
            prop_assert_eq!(parse_hex16_swar(&d), parse_hex(&d).ok());
            prop_assert!(parse_hex16(&d).is_some());
            let mut e = d;
            e[bad.0] = bad.1;
            prop_assert_eq!(parse_hex16(&e), parse_hex(&e).ok());
            prop_assert_eq!(parse_hex16_swar(&e), parse_hex(&e).ok());
        }
    }
}
