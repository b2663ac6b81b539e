//! The RS(528,514) decoder: syndromes, Berlekamp–Massey, Chien search over the 528 symbol
//! positions of the shortened code, Forney.
//!
//! ```text
//!  S_j = c(α^j), j = 0..13        (from the remainder c(x) mod g(x): g(α^j) = 0)
//!  Λ(x) = Π (1 − X_k x)           Berlekamp–Massey, degree L
//!  X_k = α^(527 − i)              error at line symbol i, found where Λ(X_k^-1) = 0
//!  e_k = X_k Ω(X_k^-1) / Λ'(X_k^-1), Ω(x) = S(x) Λ(x) mod x^14   (Forney, first root α^0)
//! ```
//!
//! The decoder corrects any pattern of up to t = 7 symbol errors. It refuses (reports
//! [`DecodeOutcome::Uncorrectable`]) whenever the result would not be consistent: L > 7,
//! fewer roots among the 528 valid positions than L (a root outside the shortened range
//! means the locator is not that of a correctable pattern), a zero derivative or a zero
//! magnitude, or an error pattern whose syndromes differ from the received ones. A pattern
//! of more than 7 errors that lies within distance 7 of another codeword is miscorrected to
//! that codeword, as by any bounded-distance decoder.
//!
//! Bypass correction (1.200.0): the decoder still locates the errors (so they can be
//! counted) but leaves the codeword as received ([`DecodeOutcome::NotCorrected`]).
//!
//! Spec: IEEE 802.3 §91.5.3.3 (Reed-Solomon decoder), used by §108.5.3.3.

use super::codeword::{Codeword, N, PARITY, T};
use super::encode::{remainder_with, RemainderKernel};
use super::gf::{Gf1024, GROUP_ORDER};

/// Whether the decoder corrects what it finds (MDIO 1.200.0 `FEC_bypass_correction_enable`
/// is `Bypass`).
///
/// Spec: IEEE 802.3 §91.5.3.3, Clause 45 register 1.200 bit 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CorrectionMode {
    /// Correct up to 7 symbol errors.
    #[default]
    Correct,
    /// Bypass correction: detect and count only.
    Bypass,
}

/// One symbol error: where, and which bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SymbolError {
    /// Symbol position on the line, 0 = first (coefficient of x^527).
    pub position: u16,
    /// The error value: the bits that were (or would be) flipped, bit 0 first on the line.
    pub mask: u16,
}

/// Up to 7 symbol errors, in line order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ErrorPattern {
    errors: [SymbolError; T],
    len: u8,
}

impl ErrorPattern {
    /// The errors, in line order.
    #[must_use]
    pub fn as_slice(&self) -> &[SymbolError] {
        self.errors.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// Number of symbol errors.
    #[must_use]
    pub const fn symbols(&self) -> u16 {
        self.len as u16
    }

    /// Number of bit errors (the 1s of all masks).
    #[must_use]
    pub fn bits(&self) -> u32 {
        self.as_slice().iter().map(|e| e.mask.count_ones()).sum()
    }

    /// Appends an error (the decoder never locates more than 7).
    fn push(&mut self, e: SymbolError) {
        if let Some(slot) = self.errors.get_mut(usize::from(self.len)) {
            *slot = e;
            self.len += 1;
        }
    }
}

/// What the decoder found in one codeword.
///
/// Spec: IEEE 802.3 §91.5.3.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DecodeOutcome {
    /// All syndromes zero: a codeword as received.
    Clean,
    /// Errors found and corrected.
    Corrected(ErrorPattern),
    /// Errors found that were correctable, left in place (bypass correction, 1.200.0).
    NotCorrected(ErrorPattern),
    /// More errors than the code corrects (or an inconsistent locator): left as received.
    Uncorrectable,
}

impl DecodeOutcome {
    /// The error pattern found, if any was located.
    #[must_use]
    pub const fn errors(&self) -> Option<&ErrorPattern> {
        match self {
            Self::Corrected(p) | Self::NotCorrected(p) => Some(p),
            Self::Clean | Self::Uncorrectable => None,
        }
    }

    /// Whether the codeword as delivered still holds errors the decoder knows of.
    #[must_use]
    pub const fn has_errors_left(&self) -> bool {
        matches!(self, Self::NotCorrected(_) | Self::Uncorrectable)
    }
}

/// The 14 syndromes `S_j = c(α^j)`.
pub type Syndromes = [Gf1024; PARITY];

/// Syndromes from the remainder `c(x) mod g(x)` (14 symbols, highest degree first), as
/// [`remainder`](crate::rs::remainder) gives it: `S_j = r(α^j)` because `g(α^j) = 0`.
///
/// Spec: IEEE 802.3 §91.5.3.3.
#[must_use]
pub fn syndromes_from_remainder(rem: &[u16; PARITY]) -> Syndromes {
    let terms = rem
        .iter()
        .rev()
        .enumerate()
        .filter_map(|(deg, &c)| Gf1024::new(c).log().map(|l| (l, deg as u16)));
    power_sums(terms)
}

/// `S_j = Σ_k c_k α^(d_k j)` for `j` in `0..14`, from terms `(log c_k, d_k)` (d_k < 1023), in
/// the log domain: each term's exponent steps by `d_k` per syndrome, one table lookup each.
fn power_sums(terms: impl Iterator<Item = (u16, u16)>) -> Syndromes {
    let mut s = [Gf1024::ZERO; PARITY];
    for (log_c, deg) in terms {
        let mut e = log_c;
        for sj in s.iter_mut() {
            *sj += Gf1024::alpha_pow_reduced(e);
            e += deg;
            if e >= GROUP_ORDER {
                e -= GROUP_ORDER;
            }
        }
    }
    s
}

/// Syndromes by Horner's rule over the 528 symbols (first on the line = x^527): the
/// reference for [`syndromes_from_remainder`].
///
/// Spec: IEEE 802.3 §91.5.3.3.
#[must_use]
pub fn syndromes_reference(symbols: &[u16; N]) -> Syndromes {
    let mut s = [Gf1024::ZERO; PARITY];
    for (j, sj) in s.iter_mut().enumerate() {
        let x = Gf1024::alpha_pow(j as u32);
        *sj = symbols
            .iter()
            .fold(Gf1024::ZERO, |acc, &c| acc * x + Gf1024::new(c));
    }
    s
}

/// Coefficients of a polynomial of degree at most 15 over GF(2^10), lowest first.
type Poly = [Gf1024; 16];

/// Berlekamp–Massey: the shortest LFSR `Λ(x)` generating the syndromes, and its length L.
fn berlekamp_massey(s: &Syndromes) -> (Poly, usize) {
    let mut c: Poly = [Gf1024::ZERO; 16];
    let mut b: Poly = [Gf1024::ZERO; 16];
    c[0] = Gf1024::ONE;
    b[0] = Gf1024::ONE;
    let mut l = 0usize;
    let mut m = 1usize;
    let mut last_d = Gf1024::ONE;
    for n in 0..PARITY {
        // d = S_n + Σ_{i=1..L} C_i S_{n−i}
        let mut d = s.get(n).copied().unwrap_or(Gf1024::ZERO);
        for i in 1..=l {
            let ci = c.get(i).copied().unwrap_or(Gf1024::ZERO);
            let sn = n.checked_sub(i).and_then(|k| s.get(k).copied());
            d += ci * sn.unwrap_or(Gf1024::ZERO);
        }
        if d.is_zero() {
            m += 1;
            continue;
        }
        let coef = d.checked_div(last_d).unwrap_or(Gf1024::ZERO);
        let prev = c;
        // C(x) −= (d / b) x^m B(x)
        for (k, bk) in b.iter().enumerate() {
            if let Some(ck) = c.get_mut(k + m) {
                *ck += coef * *bk;
            }
        }
        if 2 * l <= n {
            l = n + 1 - l;
            b = prev;
            last_d = d;
            m = 1;
        } else {
            m += 1;
        }
    }
    (c, l)
}

/// `p(x)` at `x`.
fn eval(p: &Poly, x: Gf1024) -> Gf1024 {
    p.iter().rev().fold(Gf1024::ZERO, |acc, &c| acc * x + c)
}

/// Chien search over the shortened code: symbol i sits at degree d = 527 − i, and it is in
/// error when Λ(α^−d) = 0. Writes the degrees of the roots among d in 0..528 into `roots`
/// (ascending) and returns how many there are (at most `l`, the degree of Λ: the search
/// stops at the l-th root).
///
/// In the log domain: term k is α^(log λ_k − k·d), its exponent stepped down by k per
/// degree (mod 1023); a zero λ_k sits at exponent 2047, where the antilog table holds 0,
/// so the 7 terms are summed without a branch. For L = 1, Λ = 1 + X x and the root is read
/// off directly: d = log λ_1.
fn chien(lambda: &Poly, l: usize, roots: &mut [u16; T]) -> usize {
    /// Antilog table index that reads 0.
    const ABSENT: u16 = 2047;
    if l == 1 {
        return match lambda.get(1).and_then(|c| c.log()) {
            Some(d) if usize::from(d) < N => {
                roots[0] = d;
                1
            }
            _ => 0,
        };
    }
    let mut exps = [ABSENT; T];
    let mut steps = [0u16; T];
    for (k, ((e, st), c)) in exps
        .iter_mut()
        .zip(steps.iter_mut())
        .zip(lambda.iter().skip(1))
        .enumerate()
    {
        if let (true, Some(lg)) = (k < l, c.log()) {
            *e = lg;
            *st = k as u16 + 1;
        }
    }
    let mut found = 0usize;
    for d in 0..N as u16 {
        let v = exps
            .iter()
            .fold(Gf1024::ONE, |acc, &e| acc + Gf1024::alpha_pow_reduced(e));
        if v.is_zero() {
            if let Some(r) = roots.get_mut(found) {
                *r = d;
            }
            found += 1;
            if found >= l {
                // Λ has degree L: no further roots.
                break;
            }
        }
        for (e, &k) in exps.iter_mut().zip(steps.iter()) {
            *e = if *e >= k {
                *e - k
            } else {
                *e + GROUP_ORDER - k
            };
        }
    }
    found
}

/// The error pattern for the syndromes, or `None` when they are not those of at most 7
/// symbol errors at valid positions.
fn locate(s: &Syndromes) -> Option<ErrorPattern> {
    let (lambda, l) = berlekamp_massey(s);
    if l > T || lambda.iter().skip(l + 1).any(|c| !c.is_zero()) {
        return None;
    }
    let mut roots = [0u16; T]; // degrees of the error locations
    let found = chien(&lambda, l, &mut roots);
    if found != l {
        return None;
    }
    // Forney, first consecutive root α^0: e = X Ω(X^−1) / Λ'(X^−1).
    let mut omega: Poly = [Gf1024::ZERO; 16];
    for (i, o) in omega.iter_mut().enumerate().take(PARITY) {
        for k in 0..=i {
            let sk = s.get(i - k).copied().unwrap_or(Gf1024::ZERO);
            *o += lambda.get(k).copied().unwrap_or(Gf1024::ZERO) * sk;
        }
    }
    let mut deriv: Poly = [Gf1024::ZERO; 16];
    for (k, c) in lambda.iter().enumerate().skip(1).step_by(2) {
        if let Some(dk) = deriv.get_mut(k - 1) {
            *dk = *c;
        }
    }
    let mut pattern = ErrorPattern::default();
    for &d in roots.iter().take(found).rev() {
        let x = Gf1024::alpha_pow(u32::from(d));
        let x_inv = x.inv()?;
        let e = (x * eval(&omega, x_inv)).checked_div(eval(&deriv, x_inv))?;
        if e.is_zero() {
            return None;
        }
        pattern.push(SymbolError {
            position: (N as u16 - 1) - d,
            mask: e.to_bits(),
        });
    }
    // The pattern must give back every syndrome: S_j = Σ e_k X_k^j.
    let terms = pattern.as_slice().iter().filter_map(|e| {
        let deg = (N as u16 - 1) - e.position;
        Gf1024::new(e.mask).log().map(|l| (l, deg))
    });
    if power_sums(terms) != *s {
        return None;
    }
    Some(pattern)
}

/// The outcome for the syndromes, before any correction is applied.
fn judge(s: &Syndromes, mode: CorrectionMode) -> DecodeOutcome {
    if s.iter().all(|x| x.is_zero()) {
        return DecodeOutcome::Clean;
    }
    match (locate(s), mode) {
        (None, _) => DecodeOutcome::Uncorrectable,
        (Some(p), CorrectionMode::Correct) => DecodeOutcome::Corrected(p),
        (Some(p), CorrectionMode::Bypass) => DecodeOutcome::NotCorrected(p),
    }
}

/// Decodes one codeword in place: checks it with the sliced remainder (the fast path for
/// error-free codewords), and on a nonzero remainder locates and (unless bypassed) corrects
/// up to 7 symbol errors.
///
/// Spec: IEEE 802.3 §91.5.3.3.
pub fn decode(codeword: &mut Codeword, mode: CorrectionMode) -> DecodeOutcome {
    decode_with(codeword, mode, RemainderKernel::TABLES)
}

/// [`decode`] with the remainder of the message computed by `kernel`.
pub(crate) fn decode_with(
    codeword: &mut Codeword,
    mode: CorrectionMode,
    kernel: RemainderKernel,
) -> DecodeOutcome {
    let rem = remainder_with(codeword, kernel);
    if rem == [0; PARITY] {
        return DecodeOutcome::Clean;
    }
    let outcome = judge(&syndromes_from_remainder(&rem), mode);
    if let DecodeOutcome::Corrected(p) = &outcome {
        for e in p.as_slice() {
            codeword.xor_symbol(usize::from(e.position), e.mask);
        }
    }
    outcome
}

/// Decodes 528 symbols in place (symbol 0 first on the line), with Horner syndromes: the
/// reference path, and the entry for symbol-level callers (the CLI). Bits above bit 9 of
/// each value are dropped first.
///
/// Spec: IEEE 802.3 §91.5.3.3.
pub fn decode_symbols(symbols: &mut [u16; N], mode: CorrectionMode) -> DecodeOutcome {
    for s in symbols.iter_mut() {
        *s &= super::gf::SYMBOL_MASK;
    }
    let outcome = judge(&syndromes_reference(symbols), mode);
    if let DecodeOutcome::Corrected(p) = &outcome {
        for e in p.as_slice() {
            if let Some(s) = symbols.get_mut(usize::from(e.position)) {
                *s ^= e.mask;
            }
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rs::codeword::K;
    use crate::rs::encode::{encode_symbols, remainder};
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn codeword_of(m: &[u16]) -> [u16; N] {
        encode_symbols(&m.try_into().unwrap())
    }

    /// Distinct positions with nonzero masks.
    fn errors(count: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = BTreeMap<u16, u16>> {
        prop::collection::btree_map(0u16..N as u16, 1u16..1024, count)
    }

    #[test]
    fn a_clean_codeword_decodes_clean() {
        let mut cw = Codeword::from_symbols(&codeword_of(&[0x155; K]));
        assert_eq!(
            decode(&mut cw, CorrectionMode::Correct),
            DecodeOutcome::Clean
        );
    }

    #[test]
    fn seven_errors_in_the_parity_are_corrected() {
        let good = codeword_of(&[7; K]);
        let mut cw = Codeword::from_symbols(&good);
        for p in 521..528 {
            cw.xor_symbol(p, 0x3ff);
        }
        let out = decode(&mut cw, CorrectionMode::Correct);
        assert_eq!(out.errors().map(|p| (p.symbols(), p.bits())), Some((7, 70)));
        assert_eq!(cw.to_symbols(), good);
    }

    #[test]
    fn bypass_correction_counts_but_leaves_the_errors() {
        let good = Codeword::from_symbols(&codeword_of(&[9; K]));
        let mut cw = good.clone();
        cw.xor_symbol(0, 1);
        cw.xor_symbol(300, 0x201);
        let bad = cw.clone();
        let out = decode(&mut cw, CorrectionMode::Bypass);
        assert_eq!(out.errors().map(|p| (p.symbols(), p.bits())), Some((2, 3)));
        assert!(matches!(out, DecodeOutcome::NotCorrected(_)));
        assert_eq!(cw, bad);
    }

    proptest! {
        #[test]
        fn encode_then_decode_is_identity(m in prop::collection::vec(0u16..1024, K)) {
            let good = codeword_of(&m);
            let mut cw = Codeword::from_symbols(&good);
            prop_assert_eq!(decode(&mut cw, CorrectionMode::Correct), DecodeOutcome::Clean);
            prop_assert_eq!(cw.to_symbols(), good);
            prop_assert_eq!(&good[..K], &m[..]);
        }

        #[test]
        fn remainder_syndromes_match_horner(m in prop::collection::vec(0u16..1024, N)) {
            let sym: [u16; N] = m.try_into().unwrap();
            let cw = Codeword::from_symbols(&sym);
            prop_assert_eq!(
                syndromes_from_remainder(&remainder(&cw)),
                syndromes_reference(&sym)
            );
        }

        #[test]
        fn up_to_seven_symbol_errors_are_corrected_exactly(
            m in prop::collection::vec(0u16..1024, K),
            errs in prop::collection::btree_map(0u16..N as u16, 1u16..1024, 1..=T),
        ) {
            let good = codeword_of(&m);
            let mut cw = Codeword::from_symbols(&good);
            for (&p, &mask) in &errs {
                cw.xor_symbol(usize::from(p), mask);
            }
            let mut sym = cw.to_symbols();
            let out = decode(&mut cw, CorrectionMode::Correct);
            let injected: Vec<SymbolError> = errs
                .iter()
                .map(|(&position, &mask)| SymbolError { position, mask })
                .collect();
            let bits: u32 = errs.values().map(|m| m.count_ones()).sum();
            let p = out.errors().copied();
            prop_assert!(matches!(out, DecodeOutcome::Corrected(_)));
            prop_assert_eq!(p.map(|p| p.as_slice().to_vec()), Some(injected));
            prop_assert_eq!(p.map(|p| (usize::from(p.symbols()), p.bits())), Some((errs.len(), bits)));
            prop_assert_eq!(cw.to_symbols(), good);
            // The reference path agrees.
            prop_assert_eq!(decode_symbols(&mut sym, CorrectionMode::Correct), out);
            prop_assert_eq!(sym, good);
        }

        #[test]
        fn eight_to_twenty_errors_are_flagged_or_land_on_a_codeword(
            m in prop::collection::vec(0u16..1024, K),
            errs in errors(8..=20),
        ) {
            let good = codeword_of(&m);
            let mut cw = Codeword::from_symbols(&good);
            for (&p, &mask) in &errs {
                cw.xor_symbol(usize::from(p), mask);
            }
            let received = cw.clone();
            match decode(&mut cw, CorrectionMode::Correct) {
                DecodeOutcome::Uncorrectable => prop_assert_eq!(cw, received),
                DecodeOutcome::Corrected(_) => {
                    // A miscorrection: never silent garbage, always a valid codeword.
                    prop_assert_eq!(remainder(&cw), [0; PARITY]);
                    prop_assert_ne!(cw.to_symbols(), good);
                }
                other => prop_assert!(false, "{:?}", other),
            }
        }
    }

    /// The code's minimum distance is 15 (= 2t + 1): 8 symbols of a weight-15 codeword
    /// added to a codeword lie 7 symbols from another codeword, so a bounded-distance
    /// decoder (this one, any conformant one) miscorrects to that neighbour. The decoder
    /// reports it as 7 corrected symbols, and the output is a valid codeword.
    #[test]
    fn eight_errors_from_a_weight_15_codeword_miscorrect_to_the_neighbour() {
        let mut m = [0u16; K];
        m[K - 1] = 0x100; // the P802.3bj vector: 14 nonzero parity symbols, weight 15
        let w = encode_symbols(&m);
        let support: Vec<usize> = (0..N).filter(|&i| w[i] != 0).collect();
        assert_eq!(support.len(), 15);
        let c = codeword_of(&[0x2a5; K]);
        let mut received = Codeword::from_symbols(&c);
        for &i in &support[..8] {
            received.xor_symbol(i, w[i]);
        }
        let out = decode(&mut received, CorrectionMode::Correct);
        let neighbour: Vec<u16> = c.iter().zip(w.iter()).map(|(a, b)| a ^ b).collect();
        assert_eq!(out.errors().map(|p| p.symbols()), Some(7));
        assert_eq!(received.to_symbols().to_vec(), neighbour);
        assert_eq!(remainder(&received), [0; PARITY]);
    }

    /// Over many random patterns of 8..=20 errors: how many are flagged, how many are
    /// miscorrected (each onto a valid codeword). Prints the tally; asserts no silent
    /// failure and that miscorrection stays rare (bounded-distance decoding of a
    /// t = 7 code miscorrects well under 1 % of such patterns).
    #[test]
    fn beyond_seven_errors_miscorrection_is_rare_and_counted() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let strat = (prop::collection::vec(0u16..1024, K), errors(8..=20));
        let (mut flagged, mut miscorrected) = (0u32, 0u32);
        for _ in 0..2000 {
            let (m, errs) = strat.new_tree(&mut runner).unwrap().current();
            let mut cw = Codeword::from_symbols(&codeword_of(&m));
            for (&p, &mask) in &errs {
                cw.xor_symbol(usize::from(p), mask);
            }
            match decode(&mut cw, CorrectionMode::Correct) {
                DecodeOutcome::Uncorrectable => flagged += 1,
                DecodeOutcome::Corrected(_) => {
                    assert_eq!(remainder(&cw), [0; PARITY]);
                    miscorrected += 1;
                }
                other => panic!("{other:?}"),
            }
        }
        println!("8..=20 errors: {flagged} flagged, {miscorrected} miscorrected of 2000");
        assert!(miscorrected <= 20);
    }
}
