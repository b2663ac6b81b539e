//! Compatibility profiles: one name that sets the pcs-core (and mac-core) knobs together.

use pcs_core::LockLossReset;
use pcs_core::{DecoderConfig, LinkDownOutput, LookAhead, RxMode};
use pcs_core::{EncoderConfig, TxMode};

/// Which behaviour the model reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// Strict IEEE 802.3 (the default).
    #[default]
    Ieee,
    /// The documented behaviour of verilog-ethernet's 10GBASE-R PHY and MAC: block-by-block
    /// encode and decode, no Local Fault on loss of lock, BER monitor not reset on loss of
    /// lock, deficit idle count reset when idle, no frame length limit in the MAC receiver.
    VerilogEthernet,
}

impl Profile {
    /// Every profile, in the order the help lists them.
    pub const ALL: [Self; 2] = [Self::Ieee, Self::VerilogEthernet];

    /// The name as given on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ieee => "ieee",
            Self::VerilogEthernet => "verilog-ethernet",
        }
    }

    /// The encoder settings.
    pub fn encoder(self) -> EncoderConfig {
        match self {
            Self::Ieee => EncoderConfig::default(),
            Self::VerilogEthernet => EncoderConfig {
                mode: TxMode::Stateless,
            },
        }
    }

    /// The decoder settings.
    pub fn decoder(self) -> DecoderConfig {
        match self {
            Self::Ieee => DecoderConfig::default(),
            Self::VerilogEthernet => DecoderConfig {
                mode: RxMode::Stateless,
                look_ahead: LookAhead::Off,
                link_down: LinkDownOutput::Decode,
            },
        }
    }

    /// The BER monitor on loss of lock.
    pub fn ber_lock_loss(self) -> LockLossReset {
        match self {
            Self::Ieee => LockLossReset::ResetMonitor,
            Self::VerilogEthernet => LockLossReset::KeepRunning,
        }
    }

    /// The MAC receiver's longest good frame, FCS included (`None`: it checks none).
    /// verilog-ethernet's `axis_xgmii_rx_64` delivers a frame of any length (its `tuser`
    /// flags only framing and FCS errors).
    pub fn max_frame_length(self) -> Option<u16> {
        match self {
            Self::Ieee => Some(1518),
            Self::VerilogEthernet => None,
        }
    }

    /// The deficit idle count variant (when DIC is on).
    pub fn dic(self) -> mac_core::tx::DicMode {
        match self {
            Self::Ieee => mac_core::tx::DicMode::Strict,
            Self::VerilogEthernet => mac_core::tx::DicMode::ResetOnIdle,
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|p| p.name()).collect();
                format!(
                    "unknown profile `{s}`: expected one of {}",
                    names.join(", ")
                )
            })
    }
}
