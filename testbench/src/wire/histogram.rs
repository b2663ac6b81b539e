//! Latency histograms for `baser wire`: [`histogram`] bins per-frame latencies into bins of a
//! "nice" width (1-2-5 series, in µs), and [`svg`] draws one as a self-contained SVG bar
//! chart (no scripts, no styles, no external references), with dashed vertical lines for
//! marks such as the median and the 99th percentile.
//!
//! Binning is exact: it is done on the integer nanoseconds (in `i128`, so that any `i64`
//! input, `i64::MIN` and `i64::MAX` included, is safe); only the resulting start and width are
//! converted to µs.

use serde::Serialize;
use std::fmt::Write;

/// The largest number of bins [`histogram`] makes: a larger `max_bins` is treated as this
/// (it bounds the memory of the counts, 8 MiB).
pub const MAX_BINS: usize = 1 << 20;

/// A histogram of latencies: `counts.len()` bins of equal width `bin_us` starting at
/// `start_us`; bin `i` covers `[start_us + i * bin_us, start_us + (i + 1) * bin_us)`.
///
/// As made by [`histogram`], `bin_us` is in the 1-2-5 series (0.001, 0.002, 0.005, …, 0.1,
/// 0.2, 0.5, 1, 2, 5, 10, … µs), `start_us` is a multiple of it, and the first and the last
/// bin are not empty.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Histogram {
    /// Start of the first bin, µs.
    pub start_us: f64,
    /// Width of every bin, µs.
    pub bin_us: f64,
    /// Number of latencies in each bin.
    pub counts: Vec<u64>,
}

/// The candidate bin widths in ns, smallest first: 1, 2, 5, 10, 20, 50, … up to 10^20 ns,
/// which exceeds the span of any two `i64`s.
fn nice_widths_ns() -> impl Iterator<Item = i128> {
    (0..=20u32).flat_map(|k| {
        let p = 10i128.pow(k);
        [p, 2 * p, 5 * p]
    })
}

/// The number of bins of width `w` ns (aligned to multiples of `w`) covering `lo..=hi`.
fn bins_needed(lo: i128, hi: i128, w: i128) -> i128 {
    hi.div_euclid(w) - lo.div_euclid(w) + 1
}

/// Bins `latencies_ns` (any order, negative values allowed) into a [`Histogram`] of at most
/// `max_bins` bins (at most [`MAX_BINS`]).
///
/// The bin width is the smallest value of the 1-2-5 series (1 ns, 2 ns, 5 ns, 10 ns, …, that
/// is 0.001, 0.002, 0.005, …, 0.1, 0.2, 0.5, 1, 2, 5, … µs) for which the bins aligned to
/// multiples of the width that cover `min..=max` number at most `max_bins`; `start_us` is
/// `min` rounded down to a multiple of the width. The first bin holds `min` and the last one
/// `max`, so there are no empty bins at either end; every value lands in exactly one bin and
/// the counts sum to `latencies_ns.len()`. 1 ns, the resolution of the input, is the
/// smallest width: all-equal values give one bin of 0.001 µs.
///
/// With `max_bins == 1` and values on both sides of zero no aligned width gives a single bin;
/// the smallest width giving two bins is used then.
///
/// Returns `None` for an empty input or `max_bins == 0`. Never panics.
pub fn histogram(latencies_ns: &[i64], max_bins: usize) -> Option<Histogram> {
    if max_bins == 0 {
        return None;
    }
    let lo = i128::from(*latencies_ns.iter().min()?);
    let hi = i128::from(*latencies_ns.iter().max()?);
    let limit = max_bins.min(MAX_BINS) as i128;
    let fits = |limit: i128| nice_widths_ns().find(|&w| bins_needed(lo, hi, w) <= limit);
    // Any width above hi - lo gives at most two bins, and 10^20 ns is such a width: the
    // fallback always finds one.
    let w = fits(limit).or_else(|| fits(2))?;
    let first = lo.div_euclid(w);
    let n = usize::try_from(bins_needed(lo, hi, w)).ok()?;
    let mut counts = vec![0u64; n];
    for &v in latencies_ns {
        // 0 <= index < n: lo <= v <= hi and floor division is monotonic.
        let i = (i128::from(v).div_euclid(w) - first) as usize;
        counts[i] += 1;
    }
    Some(Histogram {
        start_us: (first * w) as f64 / 1e3,
        bin_us: w as f64 / 1e3,
        counts,
    })
}

/// Width of the SVG document.
const WIDTH: f64 = 720.0;
/// Height of the SVG document.
const HEIGHT: f64 = 360.0;
/// Left edge of the plot area (room for the count labels).
const PLOT_X0: f64 = 64.0;
/// Right edge of the plot area.
const PLOT_X1: f64 = 700.0;
/// Top edge of the plot area (room for the title).
const PLOT_Y0: f64 = 40.0;
/// Bottom edge of the plot area (room for the µs labels).
const PLOT_Y1: f64 = 306.0;

/// Escapes `s` for XML text and attribute values.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// `v` with at most `decimals` decimals, trailing zeros (and a trailing point) dropped, and
/// no negative zero: `12.50` is `12.5`, `40.0` is `40`, `-0.0` is `0`.
fn num(v: f64, decimals: usize) -> String {
    let mut s = format!("{v:.decimals$}");
    if s.contains('.') {
        let t = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(t);
    }
    if s == "-0" {
        s = "0".to_string();
    }
    s
}

/// A coordinate: two decimals at most.
fn coord(v: f64) -> String {
    num(v, 2)
}

/// The smallest value of the 1-2-5 series at least `raw` (a positive finite number), with the
/// number of decimals its multiples need (at most 9).
fn nice_step(raw: f64) -> (f64, usize) {
    if !(raw.is_finite() && raw > 0.0) {
        return (1.0, 0);
    }
    let mut k = raw.log10().floor() as i32;
    loop {
        let p = 10f64.powi(k);
        for m in [1.0, 2.0, 5.0] {
            if m * p >= raw * (1.0 - 1e-12) {
                return (m * p, k.clamp(-9, 0).unsigned_abs() as usize);
            }
        }
        k += 1;
    }
}

/// The multiples of `step` in `lo..=hi` (at most 50 of them).
fn ticks(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let first = (lo / step).ceil();
    let tol = step * 1e-9;
    (0..50)
        .map(|j| (first + f64::from(j)) * step)
        .take_while(|&v| v <= hi + tol)
        .filter(|&v| v >= lo - tol)
        .collect()
}

/// Where the plot puts a latency and a count: the x axis covers `lo..=hi` µs, the y axis
/// `0..=ymax` frames in ticks of `ystep`; the bins start at `start` µs and are `bin` µs wide
/// (0: not drawn).
struct Scale {
    start: f64,
    bin: f64,
    lo: f64,
    hi: f64,
    ystep: f64,
    ymax: f64,
}

impl Scale {
    /// The scale for `h` and the finite `marks`, made sane for a hand-made `h` (empty, zero
    /// or non-finite width).
    fn new(h: &Histogram, marks: &[(&str, f64)]) -> Self {
        let start = if h.start_us.is_finite() {
            h.start_us
        } else {
            0.0
        };
        let bin = if h.bin_us.is_finite() && h.bin_us > 0.0 {
            h.bin_us
        } else {
            0.0
        };
        let end = start + bin * h.counts.len() as f64;
        let mut lo = marks.iter().map(|m| m.1).fold(start, f64::min);
        let mut hi = marks.iter().map(|m| m.1).fold(end, f64::max);
        if !(lo.is_finite() && hi.is_finite()) {
            (lo, hi) = (0.0, 1.0);
        }
        if hi - lo <= 0.0 || !(hi - lo).is_finite() {
            hi = lo + 1.0;
        }
        let top = h.counts.iter().copied().max().unwrap_or(0).max(1);
        let (ystep, _) = nice_step(top as f64 / 5.0);
        let ystep = ystep.max(1.0);
        let ymax = (top as f64 / ystep).ceil() * ystep;
        Self {
            start,
            bin,
            lo,
            hi,
            ystep,
            ymax,
        }
    }

    /// The x coordinate of `us` µs.
    fn x_of(&self, us: f64) -> f64 {
        PLOT_X0 + (us - self.lo) / (self.hi - self.lo) * (PLOT_X1 - PLOT_X0)
    }

    /// The y coordinate of `count` frames.
    fn y_of(&self, count: f64) -> f64 {
        PLOT_Y1 - count / self.ymax * (PLOT_Y1 - PLOT_Y0)
    }
}

/// Draws `h` as an SVG bar chart of 720 × 360: one `<rect class="bar">` per non-empty bin,
/// whose `<title>` child (a tooltip) gives the bin's range and count; an x axis in µs and a
/// y axis of counts, each with a few ticks on the 1-2-5 series; `title` above the plot; and
/// for each mark `(label, µs)` (say `("median", 12.3)`) a dashed vertical line at that
/// latency, labelled `label value`. The x axis covers the bins and every mark; marks that are
/// not finite are left out.
///
/// The document is self-contained (no scripts, no styles, no external references; the
/// `xmlns` is a name, not a reference), starts with `<svg`, so it can be written to a `.svg`
/// file or embedded in HTML as is, and is the same bytes for the same input. Text is
/// XML-escaped. Never panics, even on a hand-made `h` (empty, zero or non-finite width).
pub fn svg(h: &Histogram, title: &str, marks: &[(&str, f64)]) -> String {
    let marks: Vec<(&str, f64)> = marks
        .iter()
        .copied()
        .filter(|(_, v)| v.is_finite())
        .collect();
    let scale = Scale::new(h, &marks);
    let mut s = String::new();
    // Writing to a String cannot fail: the results of write! are ignored in these.
    svg_head(&mut s, title);
    svg_y_axis(&mut s, &scale);
    svg_bars(&mut s, h, &scale);
    svg_x_axis(&mut s, &scale);
    svg_marks(&mut s, &marks, &scale);
    s.push_str("\n</svg>\n");
    s
}

/// The `<svg>` element's start, the document's title, the white background and the title
/// text above the plot.
fn svg_head(s: &mut String, title: &str) {
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" font-family="sans-serif" font-size="11">"#,
        w = WIDTH,
        h = HEIGHT
    );
    let _ = write!(s, "\n<title>{}</title>", escape(title));
    let _ = write!(
        s,
        r##"
<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>"##
    );
    let _ = write!(
        s,
        r#"
<text class="title" x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
        coord(WIDTH / 2.0),
        escape(title)
    );
}

/// The y axis: grid lines and count labels.
fn svg_y_axis(s: &mut String, scale: &Scale) {
    s.push_str("\n<g class=\"y-axis\">");
    for t in ticks(0.0, scale.ymax, scale.ystep) {
        let y = coord(scale.y_of(t));
        let _ = write!(
            s,
            r##"
<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="#ddd"/><text x="{xl}" y="{y}" dy="0.35em" text-anchor="end">{t}</text>"##,
            x0 = coord(PLOT_X0),
            x1 = coord(PLOT_X1),
            xl = coord(PLOT_X0 - 6.0),
            t = num(t, 0)
        );
    }
    let _ = write!(
        s,
        r##"
<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="#000"/><text x="16" y="{ym}" text-anchor="middle" transform="rotate(-90 16 {ym})">frames</text>
</g>"##,
        x0 = coord(PLOT_X0),
        y0 = coord(PLOT_Y0),
        y1 = coord(PLOT_Y1),
        ym = coord((PLOT_Y0 + PLOT_Y1) / 2.0)
    );
}

/// The bars: one per non-empty bin, with its range and count as a tooltip.
fn svg_bars(s: &mut String, h: &Histogram, scale: &Scale) {
    let (start, bin) = (scale.start, scale.bin);
    let bin_decimals = nice_step(bin).1;
    s.push_str("\n<g class=\"bars\">");
    if bin > 0.0 {
        for (i, &c) in h.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let a = start + bin * i as f64;
            let b = start + bin * (i + 1) as f64;
            let (xa, xb) = (scale.x_of(a), scale.x_of(b));
            // A hairline gap between wide bars.
            let gap = if xb - xa > 3.0 { 0.5 } else { 0.0 };
            let width = (xb - xa - 2.0 * gap).max(0.5);
            let y = scale.y_of(c as f64);
            let _ = write!(
                s,
                r##"
<rect class="bar" x="{}" y="{}" width="{}" height="{}" fill="#4878b0"><title>[{}, {}) µs: {}</title></rect>"##,
                coord(xa + gap),
                coord(y),
                coord(width),
                coord(PLOT_Y1 - y),
                num(a, bin_decimals),
                num(b, bin_decimals),
                c
            );
        }
    }
    s.push_str("\n</g>");
}

/// The x axis: ticks and µs labels.
fn svg_x_axis(s: &mut String, scale: &Scale) {
    let (lo, hi) = (scale.lo, scale.hi);
    let (xstep, xdecimals) = nice_step((hi - lo) / 8.0);
    s.push_str("\n<g class=\"x-axis\">");
    let _ = write!(
        s,
        r##"
<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="#000"/>"##,
        x0 = coord(PLOT_X0),
        x1 = coord(PLOT_X1),
        y = coord(PLOT_Y1)
    );
    for t in ticks(lo, hi, xstep) {
        let _ = write!(
            s,
            r##"
<line x1="{x}" y1="{y0}" x2="{x}" y2="{y1}" stroke="#000"/><text x="{x}" y="{yl}" text-anchor="middle">{t}</text>"##,
            x = coord(scale.x_of(t)),
            y0 = coord(PLOT_Y1),
            y1 = coord(PLOT_Y1 + 5.0),
            yl = coord(PLOT_Y1 + 18.0),
            t = num(t, xdecimals)
        );
    }
    let _ = write!(
        s,
        r#"
<text x="{}" y="{}" text-anchor="middle">latency (µs)</text>
</g>"#,
        coord((PLOT_X0 + PLOT_X1) / 2.0),
        coord(HEIGHT - 12.0)
    );
}

/// The marks: dashed lines, labels stacked from the top, on the side of the line with more
/// room.
fn svg_marks(s: &mut String, marks: &[(&str, f64)], scale: &Scale) {
    s.push_str("\n<g class=\"marks\">");
    for (i, (label, v)) in marks.iter().enumerate() {
        let x = scale.x_of(*v);
        let y = PLOT_Y0 + 12.0 + 13.0 * (i % 16) as f64;
        let (anchor, dx) = if x > (PLOT_X0 + PLOT_X1) / 2.0 {
            ("end", -4.0)
        } else {
            ("start", 4.0)
        };
        let _ = write!(
            s,
            r##"
<line class="mark" x1="{x}" y1="{y0}" x2="{x}" y2="{y1}" stroke="#c03030" stroke-dasharray="5 3"/><text class="mark-label" x="{xl}" y="{y}" text-anchor="{anchor}" fill="#c03030">{label} {v}</text>"##,
            x = coord(x),
            y0 = coord(PLOT_Y0),
            y1 = coord(PLOT_Y1),
            xl = coord(x + dx),
            y = coord(y),
            label = escape(label),
            v = num(*v, 3)
        );
    }
    s.push_str("\n</g>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The µs value `us` as whole ns (exact for the magnitudes the tests use).
    fn ns(us: f64) -> i128 {
        (us * 1e3).round() as i128
    }

    /// Checks what every histogram must satisfy, with exact (integer ns) bin bounds: each
    /// value lies in exactly one bin, the counts are those of the values, the counts sum to
    /// the input length, the first and last bins are not empty, `start_us` is a multiple of a
    /// 1-2-5 width, and no smaller 1-2-5 width would have fit in `max_bins`.
    fn check(values: &[i64], max_bins: usize, h: &Histogram) {
        let (start, w) = (ns(h.start_us), ns(h.bin_us));
        assert!(w >= 1, "{h:?}");
        assert_eq!(start.rem_euclid(w), 0, "start not aligned: {h:?}");
        let mut expect = vec![0u64; h.counts.len()];
        for &v in values {
            let v = i128::from(v);
            let holders: Vec<usize> = (0..h.counts.len())
                .filter(|&i| start + i as i128 * w <= v && v < start + (i as i128 + 1) * w)
                .collect();
            assert_eq!(holders.len(), 1, "value {v} in bins {holders:?} of {h:?}");
            expect[holders[0]] += 1;
        }
        assert_eq!(expect, h.counts);
        assert_eq!(h.counts.iter().sum::<u64>(), values.len() as u64);
        assert_ne!(h.counts.first(), Some(&0), "{h:?}");
        assert_ne!(h.counts.last(), Some(&0), "{h:?}");
        let series: Vec<i128> = nice_widths_ns().collect();
        assert!(series.contains(&w), "width {w} ns not in the 1-2-5 series");
        let (lo, hi) = (
            i128::from(*values.iter().min().unwrap()),
            i128::from(*values.iter().max().unwrap()),
        );
        let limit = if h.counts.len() <= max_bins {
            max_bins
        } else {
            // Only the documented fallback may exceed max_bins.
            assert_eq!((max_bins, h.counts.len()), (1, 2), "{h:?}");
            assert!(lo < 0 && hi >= 0);
            2
        };
        for &smaller in series.iter().take_while(|&&s| s < w) {
            let n = hi.div_euclid(smaller) - lo.div_euclid(smaller) + 1;
            assert!(n > limit as i128, "width {smaller} ns gives {n} bins, fits");
        }
    }

    #[test]
    fn empty_input_or_no_bins_is_none() {
        assert_eq!(histogram(&[], 10), None);
        assert_eq!(histogram(&[5, 6], 0), None);
    }

    #[test]
    fn ten_to_nineteen_us_in_twenty_bins_is_half_us() {
        // 10..=19 µs: 1 ns .. 200 ns give 9001 .. 46 bins; 500 ns gives 20..=38, 19 bins.
        let v: Vec<i64> = (10..=19).map(|us| us * 1000).collect();
        let h = histogram(&v, 20).unwrap();
        assert_eq!(h.bin_us, 0.5);
        assert_eq!(h.start_us, 10.0);
        let expect: Vec<u64> = (0..19).map(|i| u64::from(i % 2 == 0)).collect();
        assert_eq!(h.counts, expect);
        check(&v, 20, &h);
    }

    #[test]
    fn ten_to_nineteen_us_in_ten_bins_is_one_us() {
        // 500 ns gives 19 bins, over 10; 1000 ns gives 10..=19, 10 bins.
        let v: Vec<i64> = (10..=19).rev().map(|us| us * 1000).collect();
        let h = histogram(&v, 10).unwrap();
        assert_eq!(h.bin_us, 1.0);
        assert_eq!(h.start_us, 10.0);
        assert_eq!(h.counts, vec![1; 10]);
        check(&v, 10, &h);
    }

    #[test]
    fn sub_us_widths_and_unaligned_start() {
        // 12_345..=12_999 ns in 8 bins: 100 ns gives 123..=129, 7 bins (50 ns: 14).
        let v = [12_999, 12_345, 12_400, 12_401, 12_999, 12_500];
        let h = histogram(&v, 8).unwrap();
        assert_eq!(h.bin_us, 0.1);
        assert_eq!(h.start_us, 12.3);
        assert_eq!(h.counts, vec![1, 2, 1, 0, 0, 0, 2]);
        check(&v, 8, &h);
    }

    #[test]
    fn negative_latencies() {
        // -1.5..=2.5 µs in 5 bins: 500 ns gives -3..=5, 9 bins; 1000 ns gives -2..=2, 5.
        let v = [2_500, -1_500, 0, -1, 999, 1_000];
        let h = histogram(&v, 5).unwrap();
        assert_eq!(h.bin_us, 1.0);
        assert_eq!(h.start_us, -2.0);
        assert_eq!(h.counts, vec![1, 1, 2, 1, 1]);
        check(&v, 5, &h);
    }

    #[test]
    fn smallest_width_not_the_first_that_shrinks() {
        // 4..=5 µs in one bin: 1 µs gives two bins, 2 µs one (4..6), 5 µs two again.
        let v = [4_000, 5_000];
        let h = histogram(&v, 1).unwrap();
        assert_eq!(
            (h.start_us, h.bin_us, h.counts.clone()),
            (4.0, 2.0, vec![2])
        );
        check(&v, 1, &h);
    }

    #[test]
    fn one_bin_across_zero_falls_back_to_two() {
        let v = [-1, 1];
        let h = histogram(&v, 1).unwrap();
        assert_eq!(
            (h.start_us, h.bin_us, h.counts.clone()),
            (-0.002, 0.002, vec![1, 1])
        );
        check(&v, 1, &h);
    }

    #[test]
    fn one_value() {
        for v in [[12_345], [0], [-7], [12_345_000]] {
            let h = histogram(&v, 50).unwrap();
            assert_eq!(h.bin_us, 0.001);
            assert_eq!(h.start_us, v[0] as f64 / 1e3);
            assert_eq!(h.counts, vec![1]);
            check(&v, 50, &h);
        }
        let v = [3_000; 17];
        let h = histogram(&v, 1).unwrap();
        assert_eq!(
            (h.start_us, h.bin_us, h.counts.clone()),
            (3.0, 0.001, vec![17])
        );
    }

    #[test]
    fn extremes() {
        let cases: [&[i64]; 5] = [
            &[i64::MIN, i64::MAX],
            &[i64::MAX, i64::MIN, 0, -1, 1, i64::MAX, i64::MIN],
            &[i64::MAX],
            &[i64::MIN; 3],
            &[i64::MAX, i64::MAX - 1, 0],
        ];
        for v in cases {
            for max_bins in [1, 2, 3, 7, 100, 1_000, usize::MAX] {
                let h = histogram(v, max_bins).unwrap();
                assert_eq!(h.counts.iter().sum::<u64>(), v.len() as u64, "{h:?}");
                assert!(h.counts.len() <= max_bins.clamp(2, MAX_BINS), "{h:?}");
                assert_ne!(h.counts.first(), Some(&0));
                assert_ne!(h.counts.last(), Some(&0));
                assert!(h.start_us.is_finite() && h.bin_us > 0.0);
                let doc = svg(&h, "extreme", &[("max", v[0] as f64 / 1e3)]);
                assert_well_formed(&doc);
            }
        }
        // The full i64 span (2^64 ns) in two bins: 5·10^18 ns gives 4, 10^19 ns gives -1..=0.
        let h = histogram(&[i64::MIN, i64::MAX], 2).unwrap();
        assert_eq!((h.start_us, h.bin_us), (-1e16, 1e16));
        assert_eq!(h.counts, vec![1, 1]);
    }

    #[test]
    fn hand_picked_sets() {
        let sets: [&[i64]; 6] = [
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            &[100, 100, 100, 101],
            &[-5_000, 5_000, 17, 999_999],
            &[7_999, 8_000, 8_001, 10_000, 19_999, 20_000],
            &[1_000_000, 1_000_001, 3_500_000, 2_000_000],
            &[-999, -1_000, -1_001, -2_000, -2_001],
        ];
        for v in sets {
            for max_bins in [1, 2, 3, 5, 10, 20, 64, 1_000] {
                check(v, max_bins, &histogram(v, max_bins).unwrap());
            }
        }
    }

    /// A tiny deterministic LCG (Knuth's MMIX constants).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 11
        }
    }

    #[test]
    fn generated_sets() {
        let mut r = Lcg(0x5eed);
        for _ in 0..400 {
            let n = 1 + r.next() as usize % 300;
            let base = (r.next() % 2_000_000_000) as i64 - 1_000_000_000;
            let spread = 1 + r.next() % [10, 1_000, 100_000, 100_000_000][r.next() as usize % 4];
            let v: Vec<i64> = (0..n).map(|_| base + (r.next() % spread) as i64).collect();
            let max_bins = 1 + r.next() as usize % 120;
            check(&v, max_bins, &histogram(&v, max_bins).unwrap());
        }
    }

    proptest! {
        #[test]
        fn prop_bins_hold_their_values(
            v in proptest::collection::vec(-1_000_000_000_000i64..1_000_000_000_000, 1..200),
            max_bins in 1usize..300,
        ) {
            check(&v, max_bins, &histogram(&v, max_bins).unwrap());
        }

        #[test]
        fn prop_any_i64_keeps_the_sum(
            v in proptest::collection::vec(any::<i64>(), 1..50),
            max_bins in 1usize..100,
        ) {
            let h = histogram(&v, max_bins).unwrap();
            prop_assert_eq!(h.counts.iter().sum::<u64>(), v.len() as u64);
            prop_assert!(h.counts.len() <= max_bins.max(2));
            prop_assert_ne!(h.counts.last(), Some(&0));
        }
    }

    /// Checks that `doc` is well-formed enough: tags open and close in balanced order under
    /// one root `<svg>`, and every `&` starts an entity.
    fn assert_well_formed(doc: &str) {
        let mut stack: Vec<&str> = Vec::new();
        let mut roots = 0;
        let mut rest = doc;
        while let Some(p) = rest.find(['<', '&']) {
            if rest[p..].starts_with('&') {
                let ok = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| rest[p..].starts_with(e));
                assert!(ok, "bare & at {:?}", &rest[p..(p + 10).min(rest.len())]);
                rest = &rest[p + 1..];
                continue;
            }
            let end = p + rest[p..].find('>').expect("unclosed tag");
            let tag = &rest[p + 1..end];
            assert!(!tag.contains('<'), "< inside tag {tag:?}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
            } else if !tag.starts_with('?') && !tag.starts_with('!') {
                let name = tag
                    .split(|c: char| c.is_whitespace() || c == '/')
                    .next()
                    .unwrap();
                assert!(!name.is_empty(), "empty tag name in {tag:?}");
                if stack.is_empty() {
                    roots += 1;
                    assert_eq!(name, "svg", "root element");
                }
                if !tag.ends_with('/') {
                    stack.push(name);
                }
            }
            rest = &rest[end + 1..];
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        assert_eq!(roots, 1);
        assert!(rest.trim().is_empty(), "text after the root: {rest:?}");
    }

    /// The values of attribute `attr` of the elements whose start tag begins with `start`.
    fn attrs<'a>(doc: &'a str, start: &str, attr: &str) -> Vec<&'a str> {
        doc.match_indices(start)
            .map(|(p, _)| {
                let tag = &doc[p..p + doc[p..].find('>').unwrap()];
                let a = tag.find(&format!(" {attr}=\"")).unwrap() + attr.len() + 3;
                &tag[a..a + tag[a..].find('"').unwrap()]
            })
            .collect()
    }

    #[test]
    fn svg_bars_title_marks() {
        let v: Vec<i64> = (10..=19)
            .map(|us| us * 1000)
            .chain([12_300, 12_400])
            .collect();
        let h = histogram(&v, 20).unwrap();
        let title = r#"eth0 -> eth1 <latency> & "p99" 'x'"#;
        let doc = svg(
            &h,
            title,
            &[("median", 12.0), ("p99", 19.0), ("a<b", 11.25)],
        );
        assert!(doc.starts_with("<svg "), "{doc}");
        assert_well_formed(&doc);
        assert!(doc.contains(r#"width="720" height="360""#));
        let bars = doc.matches(r#"class="bar""#).count();
        assert_eq!(bars, h.counts.iter().filter(|&&c| c > 0).count());
        assert_eq!(bars, 10);
        assert!(doc.contains("<title>[12, 12.5) µs: 3</title>"), "{doc}");
        assert!(doc.contains("<title>[19, 19.5) µs: 1</title>"), "{doc}");
        let escaped = "eth0 -&gt; eth1 &lt;latency&gt; &amp; &quot;p99&quot; &apos;x&apos;";
        assert!(doc.contains(&format!("<title>{escaped}</title>")), "{doc}");
        assert!(doc.contains(&format!(">{escaped}</text>")), "{doc}");
        assert!(!doc.contains("<latency>"));
        assert!(doc.contains(">median 12</text>"), "{doc}");
        assert!(doc.contains(">p99 19</text>"), "{doc}");
        assert!(doc.contains(">a&lt;b 11.25</text>"), "{doc}");
        assert!(!doc.contains("<script") && !doc.contains("href") && !doc.contains("<style"));

        // A mark sits where the x axis has the same value: at the tick for 12 µs and, for a
        // bin edge, at the left edge of that bin's bar (less its 0.5 gap).
        let marks = attrs(&doc, "<line class=\"mark\"", "x1");
        assert_eq!(marks.len(), 3);
        let tick_12 = doc
            .split('\n')
            .find(|l| l.contains(">12</text>") && l.contains("text-anchor=\"middle\""))
            .expect("a tick at 12 µs");
        assert!(
            tick_12.starts_with(&format!("<line x1=\"{}\"", marks[0])),
            "{tick_12}"
        );
        let bar_xs: Vec<f64> = attrs(&doc, "<rect class=\"bar\"", "x")
            .iter()
            .map(|x| x.parse().unwrap())
            .collect();
        let x12: f64 = marks[0].parse().unwrap();
        let x19: f64 = marks[1].parse().unwrap();
        assert!(
            bar_xs.iter().any(|&x| (x - 0.5 - x12).abs() < 0.011),
            "{bar_xs:?}"
        );
        assert!((bar_xs[9] - 0.5 - x19).abs() < 0.011, "{bar_xs:?}");
        assert!(bar_xs.windows(2).all(|w| w[0] < w[1]));
        let x1125: f64 = marks[2].parse().unwrap();
        assert!(x12 > x1125 && x1125 > bar_xs[0]);

        // Deterministic.
        assert_eq!(
            doc,
            svg(
                &h,
                title,
                &[("median", 12.0), ("p99", 19.0), ("a<b", 11.25)]
            )
        );
    }

    #[test]
    fn svg_marks_outside_the_bins_widen_the_axis() {
        let h = histogram(&[10_000, 10_400], 4).unwrap();
        let doc = svg(
            &h,
            "t",
            &[("zero", 0.0), ("nan", f64::NAN), ("inf", f64::INFINITY)],
        );
        assert_well_formed(&doc);
        assert!(doc.contains(">zero 0</text>"));
        assert!(!doc.contains("nan ") && !doc.contains("inf ") && !doc.contains("NaN"));
        let marks = attrs(&doc, "<line class=\"mark\"", "x1");
        assert_eq!(marks, vec![coord(PLOT_X0)]);
    }

    #[test]
    fn svg_of_degenerate_histograms() {
        let cases = [
            Histogram {
                start_us: 0.0,
                bin_us: 1.0,
                counts: vec![],
            },
            Histogram {
                start_us: 5.0,
                bin_us: 0.0,
                counts: vec![3],
            },
            Histogram {
                start_us: f64::NAN,
                bin_us: f64::INFINITY,
                counts: vec![1, 0],
            },
            Histogram {
                start_us: -3.0,
                bin_us: 0.5,
                counts: vec![0, 0, 0],
            },
            Histogram {
                start_us: 1.0,
                bin_us: 2.0,
                counts: vec![u64::MAX, 1],
            },
        ];
        for h in &cases {
            let doc = svg(h, "", &[("m", 1.0)]);
            assert_well_formed(&doc);
            assert!(!doc.contains("NaN") && !doc.contains("inf"), "{doc}");
        }
    }

    #[test]
    fn compact_numbers() {
        assert_eq!(num(12.50, 3), "12.5");
        assert_eq!(num(40.0, 3), "40");
        assert_eq!(num(-0.0001, 2), "0");
        assert_eq!(num(0.30000000000000004, 1), "0.3");
        assert_eq!(nice_step(0.7), (1.0, 0));
        assert_eq!(nice_step(0.15), (0.2, 1));
        assert_eq!(nice_step(3.0), (5.0, 0));
        assert_eq!(nice_step(0.05), (0.05, 2));
    }
}
