//! `.bits` binary streams: bytes, bit 0 of byte 0 first on the wire, 66-bit blocks back to
//! back. A received stream may start at any bit (block lock finds the boundary); a written
//! one starts at a block boundary, and its last byte is padded with zero bits.

use pcs_core::gearbox::TxGearbox;
use pcs_core::Block;
use std::io::Write;

/// Writes line blocks as a bit stream.
pub struct BitsWriter<W: Write> {
    inner: W,
    gearbox: TxGearbox<u8>,
}

impl<W: Write> BitsWriter<W> {
    /// A writer at a block boundary.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            gearbox: TxGearbox::new(),
        }
    }

    /// Writes one block (sync header bits first, then the payload, bit 0 first).
    ///
    /// # Errors
    /// The writer failed.
    pub fn write(&mut self, b: Block) -> std::io::Result<()> {
        let bytes = self.gearbox.push_block(b);
        self.inner.write_all(bytes.as_slice())
    }

    /// Writes the partial last byte (zero padded); returns the number of padding bits.
    ///
    /// # Errors
    /// The writer failed.
    pub fn finish(mut self) -> std::io::Result<u32> {
        let pad = match self.gearbox.flush() {
            Some(p) => {
                self.inner.write_all(&[p.word])?;
                8 - p.valid_bits
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
        let pad = w.finish().unwrap();
        // 66 bits: header 1 -> bits 1,0; payload 0x1e -> bits 0,1,1,1,1,0,0,0 ...
        // byte 0 = h0 h1 p0..p5 = 1,0,0,1,1,1,1,0 (bit 0 first) = 0b0111_1001.
        assert_eq!(out[0], 0b0111_1001);
        // 66 bits = 8 bytes + 2 bits: 9 bytes, 6 padding bits.
        assert_eq!((out.len(), pad), (9, 6));
    }
}
