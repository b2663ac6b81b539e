//! GF(2^10), the field of the RS(528,514) symbols: polynomial `x^10 + x^3 + 1` (0x409),
//! primitive element α = x (0x002).
//!
//! An element is a 10-bit integer whose bit `j` is the coefficient of `x^j`; on the line a
//! symbol goes bit 0 first. Addition is XOR. Multiplication uses log / antilog tables
//! computed at compile time by `const fn` from the polynomial; [`mul_bit_serial`] is the
//! shift-and-reduce reference the tables are tested against.
//!
//! Spec: IEEE 802.3 §91.5.2.7 (field and generator), as used by §108.5.2.5.

/// The field polynomial `x^10 + x^3 + 1`.
///
/// Spec: IEEE 802.3 §91.5.2.7.
pub const FIELD_POLY: u16 = 0x409;

/// Number of field elements.
pub const FIELD_SIZE: usize = 1024;

/// Order of the multiplicative group (α^1023 = 1).
pub const GROUP_ORDER: u16 = 1023;

/// Mask of the 10 symbol bits.
pub const SYMBOL_MASK: u16 = 0x3ff;

/// An element of GF(2^10), bit `j` the coefficient of `x^j`. Any `u16` can be given to
/// [`Gf1024::new`]; bits above bit 9 are dropped.
///
/// Spec: IEEE 802.3 §91.5.2.7.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Gf1024(u16);

/// Antilog table: `EXP[i] = α^(i mod 1023)` for `i` in `0..2046`, zero above (so that the
/// sum of two logarithms indexes it without a reduction).
static EXP: [u16; 2048] = build_exp();

/// Log table: `LOG[α^i] = i`; `LOG[0]` is 0 and never used for a product.
static LOG: [u16; FIELD_SIZE] = build_log();

/// `x * α` reduced by [`FIELD_POLY`].
const fn times_alpha(x: u16) -> u16 {
    let y = x << 1;
    if y & 0x400 != 0 {
        y ^ FIELD_POLY
    } else {
        y
    }
}

// Evaluated at compile time only (for statics): an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn build_exp() -> [u16; 2048] {
    let mut t = [0u16; 2048];
    let mut x = 1u16;
    let mut i = 0;
    while i < 2046 {
        t[i] = x;
        x = times_alpha(x);
        i += 1;
    }
    t
}

// Evaluated at compile time only (for statics): an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn build_log() -> [u16; FIELD_SIZE] {
    let exp = build_exp();
    let mut t = [0u16; FIELD_SIZE];
    let mut i = 0;
    while i < GROUP_ORDER as usize {
        t[exp[i] as usize] = i as u16;
        i += 1;
    }
    t
}

/// `LOG[v]` for a 10-bit value.
#[inline]
fn log_of(v: u16) -> u16 {
    LOG.get(usize::from(v & SYMBOL_MASK)).copied().unwrap_or(0)
}

/// `EXP[i]` for `i < 2048`.
#[inline]
fn exp_of(i: u16) -> u16 {
    EXP.get(usize::from(i & 2047)).copied().unwrap_or(0)
}

/// Product by shift and reduce, one bit of `b` at a time: the reference for the tables.
///
/// Spec: IEEE 802.3 §91.5.2.7.
#[must_use]
pub const fn mul_bit_serial(a: u16, b: u16) -> u16 {
    let mut a = a & SYMBOL_MASK;
    let mut b = b & SYMBOL_MASK;
    let mut p = 0;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = times_alpha(a);
        b >>= 1;
    }
    p
}

impl Gf1024 {
    /// Zero.
    pub const ZERO: Self = Self(0);
    /// One (α^0).
    pub const ONE: Self = Self(1);
    /// The primitive element α = x.
    pub const ALPHA: Self = Self(2);

    /// The element whose bit `j` is the coefficient of `x^j`; bits above 9 are dropped.
    #[must_use]
    pub const fn new(bits: u16) -> Self {
        Self(bits & SYMBOL_MASK)
    }

    /// The 10-bit value.
    #[must_use]
    pub const fn to_bits(self) -> u16 {
        self.0
    }

    /// Whether this is zero.
    #[must_use]
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// α^e for any `e` (taken mod 1023).
    #[must_use]
    pub fn alpha_pow(e: u32) -> Self {
        // 1023 < 2^10, so the remainder fits a u16.
        Self(exp_of((e % u32::from(GROUP_ORDER)) as u16))
    }

    /// α^e for `e` in `0..2046` without a reduction (the log-domain loops keep `e` there);
    /// `e` of 2046 and 2047 read zero, larger `e` are taken mod 2048.
    #[inline]
    #[must_use]
    pub fn alpha_pow_reduced(e: u16) -> Self {
        Self(exp_of(e))
    }

    /// The discrete logarithm base α; `None` for zero.
    #[must_use]
    pub fn log(self) -> Option<u16> {
        if self.0 == 0 {
            None
        } else {
            Some(log_of(self.0))
        }
    }

    /// The multiplicative inverse; `None` for zero.
    #[must_use]
    pub fn inv(self) -> Option<Self> {
        self.log().map(|l| Self(exp_of(GROUP_ORDER - l)))
    }

    /// `self / other`; `None` when `other` is zero.
    #[must_use]
    pub fn checked_div(self, other: Self) -> Option<Self> {
        other.inv().map(|i| self * i)
    }
}

/// Field addition: XOR (characteristic 2).
impl core::ops::Add for Gf1024 {
    type Output = Self;
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)] // addition in GF(2^m) is XOR
    fn add(self, other: Self) -> Self {
        Self(self.0 ^ other.0)
    }
}

impl core::ops::AddAssign for Gf1024 {
    #[inline]
    #[allow(clippy::suspicious_op_assign_impl)] // addition in GF(2^m) is XOR
    fn add_assign(&mut self, other: Self) {
        self.0 ^= other.0;
    }
}

/// Field multiplication by the log / antilog tables.
impl core::ops::Mul for Gf1024 {
    type Output = Self;
    #[inline]
    fn mul(self, other: Self) -> Self {
        if self.0 == 0 || other.0 == 0 {
            Self(0)
        } else {
            Self(exp_of(log_of(self.0) + log_of(other.0)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn alpha_is_primitive_for_the_0x409_polynomial() {
        // α^k != 1 for 0 < k < 1023 and α^1023 = 1: every nonzero element appears once.
        let mut seen = [false; FIELD_SIZE];
        let mut x = 1u16;
        for _ in 0..GROUP_ORDER {
            assert!(!seen[usize::from(x)], "alpha has order below 1023");
            seen[usize::from(x)] = true;
            x = times_alpha(x);
        }
        assert_eq!(x, 1);
        assert!(!seen[0]);
    }

    #[test]
    fn alpha_to_the_tenth_is_x_cubed_plus_one() {
        // x^10 = x^3 + 1 mod (x^10 + x^3 + 1).
        assert_eq!(Gf1024::alpha_pow(10).to_bits(), 0b1001);
        assert_eq!(Gf1024::alpha_pow(1023), Gf1024::ONE);
    }

    #[test]
    fn inverse_times_element_is_one() {
        for v in 1..1024u16 {
            let a = Gf1024::new(v);
            assert_eq!(a * a.inv().unwrap(), Gf1024::ONE);
        }
        assert_eq!(Gf1024::ZERO.inv(), None);
    }

    proptest! {
        #[test]
        fn table_product_matches_bit_serial(a in 0u16..1024, b in 0u16..1024) {
            prop_assert_eq!((Gf1024::new(a) * Gf1024::new(b)).to_bits(), mul_bit_serial(a, b));
        }

        #[test]
        fn log_and_alpha_pow_are_inverse(v in 1u16..1024) {
            let a = Gf1024::new(v);
            prop_assert_eq!(Gf1024::alpha_pow(u32::from(a.log().unwrap())), a);
        }
    }
}
