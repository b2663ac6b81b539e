//! One options type for the whole model: what a door (the command line, Python, C) sets, and
//! the TX and RX chain settings it gives.

use crate::profile::Profile;
use crate::rx::RxOptions;
use crate::tx::TxOptions;
use mac_core::frame::{MaxFrameLength, Padding};
use mac_core::rx::RxConfig;
use mac_core::tx::{DicMode, StartLanes, TxConfig};

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
    /// Longest good frame, FCS included (1518: 1522 with a VLAN tag).
    pub max_frame_length: u16,
    /// Reset fill is decoded as blocks like any other.
    pub strict_start: bool,
    /// PCS events kept in detail (all are counted).
    pub max_events: usize,
    /// The lanes a `/S/` may go in (every start in lane 4: a test-bench stress mode).
    pub start_lanes: StartLanes,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            profile: Profile::Ieee,
            ifg: 12,
            dic: true,
            pad: true,
            seed: pcs_core::scramble::DEFAULT_STATE,
            idle_blocks: 128,
            max_frame_length: 1518,
            strict_start: false,
            max_events: 20,
            start_lanes: StartLanes::Both,
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
                max_frame_length: max_frame_length(self.max_frame_length),
            },
            max_events: self.max_events,
            strict_start: self.strict_start,
        }
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
    fn the_options_reach_both_chains() {
        let o = Options {
            profile: Profile::VerilogEthernet,
            ifg: 9,
            dic: false,
            pad: false,
            seed: 5,
            idle_blocks: 3,
            max_frame_length: 9018,
            strict_start: true,
            max_events: 7,
            start_lanes: StartLanes::Lane4,
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
    }
}
