//! The draws of Python's `random.Random(seed)` (CPython's MT19937 with its seeding, its
//! `getrandbits`, `randint` and `randbytes`): the catalogue's frames are the octets its cases
//! have drawn since they were written in Python, so a case's line stays the one it always was
//! (python/tests/test_conformance.py compares every case's line with that Python, bit for bit).

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// Python's `random.Random(seed)` for a seed below 2^32.
pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)`: `init_by_array([seed])` (CPython's `random_seed` for an int).
    pub fn new(seed: u32) -> Self {
        let mut mt = [0u32; N];
        mt[0] = 19_650_218;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        let (mut i, key) = (1usize, [seed]);
        for k in 0..N.max(key.len()) {
            let j = k % key.len();
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = UPPER;
        Self { mt, index: N }
    }

    fn twist(&mut self) {
        for k in 0..N {
            let y = (self.mt[k] & UPPER) | (self.mt[(k + 1) % N] & LOWER);
            let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
            self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// `genrand_uint32`: the next tempered 32-bit word.
    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `getrandbits(k)` for `k` in 1..=32.
    fn bits(&mut self, k: u32) -> u32 {
        self.next_u32() >> (32 - k)
    }

    /// `randint(lo, hi)`: `lo + _randbelow(hi - lo + 1)`, drawing `getrandbits(n.bit_length())`
    /// until below `n`.
    pub fn randint(&mut self, lo: usize, hi: usize) -> usize {
        let n = (hi - lo + 1) as u32;
        let k = 32 - n.leading_zeros();
        loop {
            let r = self.bits(k);
            if r < n {
                return lo + r as usize;
            }
        }
    }

    /// `randbytes(n)`: `getrandbits(8 n).to_bytes(n, "little")` (32-bit words, the last one
    /// shifted down to the bits left).
    pub fn randbytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 4);
        let mut left = 8 * n as u64;
        while left > 0 {
            let take = left.min(32) as u32;
            out.extend_from_slice(&self.bits(take).to_le_bytes());
            left -= u64::from(take);
        }
        out.truncate(n);
        out
    }
}
