//! `.bits` binary streams: bytes, bit 0 of byte 0 first on the wire, 66-bit blocks back to
//! back. A received stream may start at any bit (block lock finds the boundary); a written
//! one starts at a block boundary, and its last byte is padded with zero bits.

use pcs_core::Block;
use pcs_core::{PartialWord, TxGearbox};
use std::io::Write;

/// Writes a bit stream: serial words from the TX chain's gearbox, or blocks one at a time.
pub struct BitsWriter<W: Write> {
    inner: W,
    gearbox: TxGearbox<u64>,
    bytes: Vec<u8>,
}

impl<W: Write> BitsWriter<W> {
    /// A writer at a block boundary.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            gearbox: TxGearbox::new(),
            bytes: Vec::new(),
        }
    }

    /// Writes one block (sync header bits first, then the payload, bit 0 first).
    ///
    /// # Errors
    /// The writer failed.
    pub fn write(&mut self, b: Block) -> std::io::Result<()> {
        let words = self.gearbox.push_block(b);
        self.write_words(words.as_slice())
    }

    /// Writes whole 64-bit serial words (bit 0 first on the wire: little-endian bytes).
    ///
    /// # Errors
    /// The writer failed.
    pub fn write_words(&mut self, words: &[u64]) -> std::io::Result<()> {
        // The writer buffers (the commands' output files gather 256 KiB): the words are only
        // turned into bytes here.
        self.bytes.clear();
        self.bytes
            .extend(words.iter().flat_map(|w| w.to_le_bytes()));
        self.inner.write_all(&self.bytes)
    }

    /// Writes the last partial word (given, or held from [`BitsWriter::write`]) as whole
    /// bytes, the last one zero padded; returns the number of padding bits.
    ///
    /// # Errors
    /// The writer failed.
    pub fn finish(mut self, tail: Option<PartialWord<u64>>) -> std::io::Result<u32> {
        let pad = match tail.or_else(|| self.gearbox.flush()) {
            Some(p) => {
                let n = p.valid_bits.div_ceil(8) as usize;
                let bytes = p.word.to_le_bytes();
                self.inner.write_all(bytes.get(..n).unwrap_or_default())?;
                (8 - p.valid_bits % 8) % 8
            }
            None => 0,
        };
        self.inner.flush()?;
        Ok(pad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_block_bits_are_header_then_payload_lsb_first() {
        let mut out = Vec::new();
        let mut w = BitsWriter::new(&mut out);
        w.write(Block::IDLE).unwrap();
        let pad = w.finish(None).unwrap();
        // 66 bits: header 1 -> bits 1,0; payload 0x1e -> bits 0,1,1,1,1,0,0,0 ...
        // byte 0 = h0 h1 p0..p5 = 1,0,0,1,1,1,1,0 (bit 0 first) = 0b0111_1001.
        assert_eq!(out[0], 0b0111_1001);
        // 66 bits = 8 bytes + 2 bits: 9 bytes, 6 padding bits.
        assert_eq!((out.len(), pad), (9, 6));
    }

    #[test]
    fn words_written_in_any_pieces_come_out_whole_and_in_order() {
        // Pieces of one word to more than 64 KiB, then a partial word.
        let words: Vec<u64> = (0..40_000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let mut out = Vec::new();
        let mut w = BitsWriter::new(&mut out);
        let mut rest = &words[..];
        for piece in [1usize, 4223, 8192, 9000, 3].iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (now, later) = rest.split_at((*piece).min(rest.len()));
            w.write_words(now).unwrap();
            rest = later;
        }
        let tail = PartialWord {
            word: 0x1ff,
            valid_bits: 9,
        };
        assert_eq!(w.finish(Some(tail)).unwrap(), 7);
        let mut want: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        want.extend([0xff, 0x01]);
        assert_eq!(out, want);
    }
}
