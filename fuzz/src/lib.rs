//! Helpers shared by the fuzz targets: a cursor that turns the fuzzer's bytes into values
//! (total: past the end it yields zeros, so every input is a valid program).

/// Reads values from the front of the fuzz input.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    /// True when every byte was taken.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Bytes not taken yet.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// One byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// Little-endian `u16` (missing bytes are zeros).
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// Little-endian `u64` (missing bytes are zeros).
    pub fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.u8();
        }
        u64::from_le_bytes(b)
    }

    /// Up to `n` bytes.
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.data.split_at(n.min(self.data.len()));
        self.data = tail;
        head
    }

    /// Everything left.
    pub fn rest(self) -> &'a [u8] {
        self.data
    }
}

/// Reads everything with a batch reader (`read_blocks`, `read_words`) in pieces of `max`,
/// checking that no piece is longer: the items, and the error that stopped it, if any.
pub fn read_in_pieces<T, E>(
    max: usize,
    mut read: impl FnMut(&mut Vec<T>, usize) -> Result<bool, E>,
) -> (Vec<T>, Option<E>) {
    let (mut got, mut piece) = (Vec::new(), Vec::new());
    loop {
        let more = read(&mut piece, max);
        assert!(piece.len() <= max);
        got.append(&mut piece);
        match more {
            Ok(true) => {}
            Ok(false) => return (got, None),
            Err(e) => return (got, Some(e)),
        }
    }
}
