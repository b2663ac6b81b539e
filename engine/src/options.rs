//! One options type for the whole model: what a door (the command line, Python, C) sets, and
//! the TX and RX chain settings it gives.

use crate::fec::{Fec, FecOptions, Rate};
use crate::profile::Profile;
use crate::rx::RxOptions;
use crate::tx::TxOptions;
use mac_core::frame::{MaxFrameLength, Padding};
use mac_core::rx::RxConfig;
use mac_core::tx::{DicMode, StartLanes, TxConfig};
use pcs_core::BerConfig;

/// The model's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Compatibility profile (encoder, decoder, BER monitor and DIC knobs together).
    pub profile: Profile,
    /// Inter-frame gap, octets, `/T/` included.
    pub ifg: u16,
    /// Deficit idle count on (in the profile's variant).
    pub dic: bool,
    /// Short frames padded to 60 octets before the FCS.
    pub pad: bool,
    /// Scrambler state before the first block (58 bits; bit 57 the newest line bit).
    pub seed: u64,
    /// Idle transfers before the first frame.
    pub idle_blocks: u64,
    /// Longest good frame, FCS included (1518: 1522 with a VLAN tag); `None`: the profile's
    /// ([`Profile::max_frame_length`]).
    pub max_frame_length: Option<u16>,
    /// Reset fill is decoded as blocks like any other.
    pub strict_start: bool,
    /// PCS events kept in detail (all are counted).
    pub max_events: usize,
    /// The lanes a `/S/` may go in (every start in lane 4: a test-bench stress mode).
    pub start_lanes: StartLanes,
    /// The BER monitor's timer (125 µs; RTL test benches often shorten it).
    pub ber_timer: BerTimer,
    /// Line rate (10GBASE-R or 25GBASE-R): the BER monitor's window and threshold follow it.
    pub rate: Rate,
    /// The FEC below the PCS, and its settings.
    pub fec: FecOptions,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            profile: Profile::Ieee,
            ifg: 12,
            dic: true,
            pad: true,
            seed: pcs_core::SCRAMBLER_DEFAULT_STATE,
            idle_blocks: 128,
            max_frame_length: None,
            strict_start: false,
            max_events: 20,
            start_lanes: StartLanes::Both,
            ber_timer: BerTimer::default(),
            rate: Rate::G10,
            fec: FecOptions::default(),
        }
    }
}

impl Options {
    /// The TX chain's settings.
    pub fn tx(&self) -> TxOptions {
        TxOptions {
            mac: TxConfig {
                ifg_octets: self.ifg,
                dic: if self.dic {
                    self.profile.dic()
                } else {
                    DicMode::Off
                },
                padding: if self.pad {
                    Padding::default()
                } else {
                    Padding::Off
                },
                start_lanes: self.start_lanes,
            },
            profile: self.profile,
            seed: self.seed,
            idle_blocks: self.idle_blocks,
        }
    }

    /// The RX chain's settings.
    pub fn rx(&self) -> RxOptions {
        RxOptions {
            profile: self.profile,
            mac: RxConfig {
                max_frame_length: self
                    .max_frame_length
                    .or(self.profile.max_frame_length())
                    .map_or(NO_LIMIT, max_frame_length),
            },
            max_events: self.max_events,
            strict_start: self.strict_start,
            ber_timer: self.ber_timer.at(self.rate),
        }
    }
}

/// The line rate and the FEC from a door's words (`rate` `10g` or `25g`, `fec` `none`, `fc`
/// or `rs`, the RS-FEC marker period in codewords and the markers that make its lock), checked
/// together: RS-FEC needs 25G, a Clause 108 setting the standard refuses is refused.
///
/// # Errors
/// A message naming the option (`rate`, `fec`, `rs_marker_period`, `rs_lock_markers`).
pub fn line(
    rate: &str,
    fec: &str,
    rs_marker_period: u32,
    rs_lock_markers: u8,
) -> Result<(Rate, FecOptions), String> {
    let rate: Rate = rate.parse().map_err(|e| format!("rate: {e}"))?;
    let kind: Fec = fec.parse().map_err(|e| format!("fec: {e}"))?;
    if rs_marker_period == 0 {
        return Err(
            "rs_marker_period: 0 codewords: expected 1 or more (1024, the standard's)".into(),
        );
    }
    if !(1..=2).contains(&rs_lock_markers) {
        return Err(format!(
            "rs_lock_markers: {rs_lock_markers}: expected 1 (lock on the first marker) or 2"
        ));
    }
    let mut f = FecOptions {
        kind,
        ..FecOptions::default()
    };
    f.rs.marker_period_codewords = rs_marker_period;
    f.rs.lock_markers = rs_lock_markers;
    f.check(rate).map_err(|e| format!("fec: {e}"))?;
    Ok((rate, f))
}

/// The FEC's receive modes a door sets by name, each off by default: RS-FEC bypass
/// correction (`rs_bypass_correction`, register 1.200.0: the decoder detects but does not
/// correct), RS-FEC bypass error indication (`rs_bypass_indication`, 1.200.1: an
/// uncorrectable codeword's blocks reach the PCS unmarked) and Clause 74 error indication
/// (`fc_error_indication`, 1.171.1: an uncorrectable FEC block's blocks reach the PCS with
/// invalid sync headers, in the blocks `base_r::ErrorMarking` picks, U).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FecModes {
    /// RS-FEC bypass correction (1.200.0).
    pub rs_bypass_correction: bool,
    /// RS-FEC bypass error indication (1.200.1).
    pub rs_bypass_indication: bool,
    /// Clause 74 error indication (1.171.1).
    pub fc_error_indication: bool,
}

impl FecModes {
    /// The names the doors take, in the order [`FecModes::set`] knows them.
    pub const KEYS: [&'static str; 3] = [
        "rs_bypass_correction",
        "rs_bypass_indication",
        "fc_error_indication",
    ];

    /// Sets the mode named `key` to `on`.
    ///
    /// # Errors
    /// An unknown key, named with the known ones.
    pub fn set(&mut self, key: &str, on: bool) -> Result<(), String> {
        let slot = match key {
            "rs_bypass_correction" => &mut self.rs_bypass_correction,
            "rs_bypass_indication" => &mut self.rs_bypass_indication,
            "fc_error_indication" => &mut self.fc_error_indication,
            _ => {
                return Err(format!(
                    "{key}: unknown FEC option: expected one of {}",
                    Self::KEYS.join(", ")
                ))
            }
        };
        *slot = on;
        Ok(())
    }

    /// Puts the modes on `f`: refused for the FEC that lacks them, and both RS-FEC bypasses at
    /// once (the standard refuses it).
    ///
    /// # Errors
    /// A message starting with the key it refuses (`rs_bypass_correction: ...`).
    pub fn apply(self, f: &mut FecOptions) -> Result<(), String> {
        let rs = self.rs_bypass_correction || self.rs_bypass_indication;
        if rs && f.kind != Fec::Rs {
            let key = if self.rs_bypass_correction {
                "rs_bypass_correction"
            } else {
                "rs_bypass_indication"
            };
            return Err(format!(
                "{key}: an RS-FEC (Clause 108) setting, and the FEC is {} (give fec rs)",
                f.kind
            ));
        }
        if self.fc_error_indication && f.kind != Fec::Fc {
            return Err(format!(
                "fc_error_indication: a Clause 74 BASE-R FEC setting, and the FEC is {} (give fec fc)",
                f.kind
            ));
        }
        if self.rs_bypass_correction && self.rs_bypass_indication {
            return Err("rs_bypass_indication: not with rs_bypass_correction (1.200.0 and 1.200.1 both set: the standard refuses it)".into());
        }
        f.rs.bypass_correction = self.rs_bypass_correction;
        f.rs.bypass_indication = self.rs_bypass_indication;
        f.fc.error_indication = if self.fc_error_indication {
            fec_core::base_r::ErrorIndication::Enabled
        } else {
            fec_core::base_r::ErrorIndication::Disabled
        };
        Ok(())
    }
}

/// The receiver's limit where there is none: the MAC's receive buffer
/// ([`mac_core::frame::MAX_FRAME_OCTETS`], 16 KiB) caps it.
pub const NO_LIMIT: MaxFrameLength = MaxFrameLength::Octets(u16::MAX);

/// The BER monitor's timer, `125us_timer` (§49.2.13.2.5): the window in which 16 invalid sync
/// headers raise `hi_ber`, and the clean window that clears it. Held in quarter blocks (1.6
/// ns at 10.3125 GBd), as the monitor counts time, so that 125 µs (19 531.25 blocks) is exact.
/// RTL test benches often shorten it (verilog-ethernet's `COUNT_125US`, a count of blocks):
/// a model with the standard's timer then keeps `hi_ber` far longer than the DUT.
///
/// Spec: IEEE 802.3 §49.2.13.2.5 (`125us_timer`), Fig. 49-15.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BerTimer {
    ticks: u32,
    /// The rate whose monitor it is ([`BerTimer::at`]).
    rate: Rate,
}

impl Default for BerTimer {
    /// 125 µs, the standard's.
    fn default() -> Self {
        Self {
            ticks: BerConfig::TEN_GBASE_R.window_ticks,
            rate: Rate::G10,
        }
    }
}

impl BerTimer {
    /// Quarter blocks per block.
    const TICKS_PER_BLOCK: u32 = BerConfig::TEN_GBASE_R.ticks_per_block;

    /// A timer of `n` blocks (`None`: 0 or too long).
    pub fn blocks(n: u32) -> Option<Self> {
        let ticks = n.checked_mul(Self::TICKS_PER_BLOCK)?;
        (ticks > 0).then_some(Self {
            ticks,
            rate: Rate::G10,
        })
    }

    /// A timer of `ns` nanoseconds, to the nearest quarter block (1.6 ns; `None`: shorter
    /// than that, or too long).
    pub fn nanos(ns: u64) -> Option<Self> {
        let ticks = u32::try_from((ns * 5 + 4) / 8).ok()?;
        (ticks > 0).then_some(Self {
            ticks,
            rate: Rate::G10,
        })
    }

    /// The monitor's window in its ticks (quarter blocks).
    pub fn window_ticks(self) -> u32 {
        self.ticks
    }

    /// The same timer for the monitor of `rate`. At 25G the standard's window is 2 ms and
    /// the threshold 97 (U: one secondary source, `BerConfig::TWENTY_FIVE_GBASE_R`); a
    /// shortened timer keeps its length in blocks (as an RTL's counter counts them) with the
    /// 25G threshold.
    pub fn at(self, rate: Rate) -> Self {
        Self { rate, ..self }
    }

    /// The BER monitor's settings with this timer.
    pub fn ber_config(self) -> BerConfig {
        match (self.rate, self.is_standard()) {
            (Rate::G10, _) => BerConfig {
                window_ticks: self.ticks,
                ..BerConfig::TEN_GBASE_R
            },
            (Rate::G25, true) => BerConfig::TWENTY_FIVE_GBASE_R,
            (Rate::G25, false) => BerConfig {
                window_ticks: self.ticks,
                ticks_per_block: Self::TICKS_PER_BLOCK,
                threshold: BerConfig::TWENTY_FIVE_GBASE_R.threshold,
            },
        }
    }

    /// True for the standard's window (125 µs at 10G, 2 ms at 25G).
    pub fn is_standard(self) -> bool {
        self.ticks == BerConfig::TEN_GBASE_R.window_ticks
    }
}

impl std::fmt::Display for BerTimer {
    /// As it was given: `125us`, `100blocks`, and `6400ns` for a time that is no whole number
    /// of µs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.rate == Rate::G25 && self.is_standard() {
            return f.write_str("2ms");
        }
        let ns = u64::from(self.ticks) * 8 / 5;
        if u64::from(self.ticks) * 8 % 5 == 0 && ns % 1000 == 0 {
            write!(f, "{}us", ns / 1000)
        } else if self.ticks.is_multiple_of(Self::TICKS_PER_BLOCK) {
            write!(f, "{}blocks", self.ticks / Self::TICKS_PER_BLOCK)
        } else {
            write!(f, "{} quarter blocks", self.ticks)
        }
    }
}

impl std::str::FromStr for BerTimer {
    type Err = String;

    /// `N` followed by a unit: `blocks` (66-bit blocks, as an RTL's `COUNT_125US` counts
    /// them), or a time in `ns`, `us` (or `µs`), `ms`.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (n, unit) = s.split_at(digits);
        let bad = || {
            format!(
                "`{s}`: expected a length such as 125us (the standard's), 100blocks, 640ns or 2ms"
            )
        };
        let n: u64 = n.parse().map_err(|_| bad())?;
        let timer = match unit.trim() {
            "blocks" | "block" => u32::try_from(n).ok().and_then(Self::blocks),
            "ns" => Self::nanos(n),
            "us" | "µs" => n.checked_mul(1000).and_then(Self::nanos),
            "ms" => n.checked_mul(1_000_000).and_then(Self::nanos),
            _ => return Err(bad()),
        };
        timer.ok_or_else(|| format!("`{s}`: out of range (1.6 ns to about 6.8 s)"))
    }
}

/// The MAC's limit for a length in octets (1518 is the basic limit, 1522 when tagged).
pub fn max_frame_length(octets: u16) -> MaxFrameLength {
    if octets == 1518 {
        MaxFrameLength::Basic
    } else {
        MaxFrameLength::Octets(octets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fec_modes_are_set_by_name_and_refused_where_the_fec_lacks_them() {
        let (_, mut rs) = line("25g", "rs", 1024, 1).unwrap();
        let mut m = FecModes::default();
        m.set("rs_bypass_indication", true).unwrap();
        m.apply(&mut rs).unwrap();
        assert!(rs.rs.bypass_indication && !rs.rs.bypass_correction);
        m.set("rs_bypass_correction", true).unwrap();
        let e = m.apply(&mut rs).unwrap_err();
        assert!(
            e.starts_with("rs_bypass_indication: not with rs_bypass_correction"),
            "{e}"
        );
        let (_, mut fc) = line("10g", "fc", 1024, 1).unwrap();
        let e = m.apply(&mut fc).unwrap_err();
        assert!(e.starts_with("rs_bypass_correction: an RS-FEC"), "{e}");
        let mut m = FecModes::default();
        m.set("fc_error_indication", true).unwrap();
        m.apply(&mut fc).unwrap();
        assert_eq!(
            fc.fc.error_indication,
            fec_core::base_r::ErrorIndication::Enabled
        );
        assert!(m
            .apply(&mut rs)
            .unwrap_err()
            .starts_with("fc_error_indication:"));
        let e = m.set("rs_bypass", true).unwrap_err();
        assert!(
            e.starts_with("rs_bypass: unknown FEC option: expected one of rs_bypass_correction"),
            "{e}"
        );
    }

    #[test]
    fn the_options_reach_both_chains() {
        let o = Options {
            profile: Profile::VerilogEthernet,
            ifg: 9,
            dic: false,
            pad: false,
            seed: 5,
            idle_blocks: 3,
            max_frame_length: Some(9018),
            strict_start: true,
            max_events: 7,
            start_lanes: StartLanes::Lane4,
            ber_timer: BerTimer::blocks(100).unwrap(),
            rate: Rate::G10,
            fec: FecOptions::default(),
        };
        let (tx, rx) = (o.tx(), o.rx());
        assert_eq!(tx.mac.ifg_octets, 9);
        assert_eq!(tx.mac.dic, DicMode::Off);
        assert_eq!(tx.mac.padding, Padding::Off);
        assert_eq!(tx.mac.start_lanes, StartLanes::Lane4);
        assert_eq!((tx.seed, tx.idle_blocks), (5, 3));
        assert_eq!(tx.profile, Profile::VerilogEthernet);
        assert_eq!(rx.mac.max_frame_length, MaxFrameLength::Octets(9018));
        assert!(rx.strict_start);
        assert_eq!(rx.max_events, 7);
        assert_eq!(rx.ber_timer.window_ticks(), 400);
        assert_eq!(Options::default().tx().mac.dic, DicMode::Strict);
        let ve = Options {
            profile: Profile::VerilogEthernet,
            ..Options::default()
        };
        assert_eq!(ve.tx().mac.dic, DicMode::ResetOnIdle);
        assert_eq!(
            Options::default().rx().mac.max_frame_length,
            MaxFrameLength::Basic
        );
        // verilog-ethernet's MAC receiver checks no length: the profile sets none, unless
        // the option says one.
        assert_eq!(ve.rx().mac.max_frame_length, NO_LIMIT);
        let ve1518 = Options {
            max_frame_length: Some(1518),
            ..ve
        };
        assert_eq!(ve1518.rx().mac.max_frame_length, MaxFrameLength::Basic);
    }

    #[test]
    fn the_rate_sets_the_ber_monitor_16_in_125us_at_10g_97_in_2ms_at_25g() {
        let ten = Options::default().rx().ber_timer.ber_config();
        assert_eq!(
            (ten.threshold, ten.window_ticks, ten.ticks_per_block),
            (16, 78_125, 4)
        );
        let o = Options {
            rate: Rate::G25,
            ..Options::default()
        };
        let c = o.rx().ber_timer.ber_config();
        assert_eq!(c, BerConfig::TWENTY_FIVE_GBASE_R);
        assert_eq!(
            c.window_ticks / c.ticks_per_block,
            781_250,
            "2 ms of 2.56 ns blocks"
        );
        assert_eq!(o.rx().ber_timer.to_string(), "2ms");
        // A shortened timer keeps its blocks and takes the 25G threshold.
        let short = Options {
            ber_timer: BerTimer::blocks(100).unwrap(),
            ..o
        };
        let c = short.rx().ber_timer.ber_config();
        assert_eq!((c.threshold, c.window_ticks / c.ticks_per_block), (97, 100));
    }

    #[test]
    fn the_line_options_are_checked_and_name_their_key() {
        let (rate, f) = line("25g", "rs", 16, 1).unwrap();
        assert_eq!(
            (rate, f.kind, f.rs.marker_period_codewords),
            (Rate::G25, Fec::Rs, 16)
        );
        assert_eq!(line("10g", "fc", 1024, 1).unwrap().1.kind, Fec::Fc);
        for (r, f, p, m, key) in [
            ("40g", "none", 1024, 1, "rate:"),
            ("10g", "ldpc", 1024, 1, "fec:"),
            ("10g", "rs", 1024, 1, "fec:"),
            ("25g", "rs", 0, 1, "rs_marker_period:"),
            ("25g", "rs", 1024, 3, "rs_lock_markers:"),
        ] {
            let e = line(r, f, p, m).unwrap_err();
            assert!(e.starts_with(key), "{e}");
        }
    }

    #[test]
    fn the_ber_timer_is_given_in_blocks_or_in_time() {
        let t = |s: &str| s.parse::<BerTimer>().map(BerTimer::window_ticks);
        assert_eq!(t("125us"), Ok(78_125));
        assert_eq!(BerTimer::default().window_ticks(), 78_125);
        assert!(BerTimer::default().is_standard());
        assert_eq!(t("125000ns"), Ok(78_125));
        assert_eq!(t("100blocks"), Ok(400));
        assert_eq!(t("640ns"), Ok(400));
        assert_eq!(t("2ms"), Ok(1_250_000));
        assert_eq!(t("1 block"), Ok(4));
        for bad in [
            "",
            "125",
            "us",
            "0blocks",
            "0ns",
            "-5us",
            "9999999999blocks",
            "5s",
        ] {
            assert!(t(bad).is_err(), "{bad}");
        }
        for s in ["125us", "100blocks", "6401blocks"] {
            assert_eq!(s.parse::<BerTimer>().unwrap().to_string(), s);
        }
        assert_eq!(
            "640ns".parse::<BerTimer>().unwrap().to_string(),
            "100blocks"
        );
        assert_eq!("2ms".parse::<BerTimer>().unwrap().to_string(), "2000us");
        assert_eq!(
            "100blocks".parse::<BerTimer>().unwrap().ber_config(),
            BerConfig {
                window_ticks: 400,
                ..BerConfig::TEN_GBASE_R
            }
        );
    }
}
