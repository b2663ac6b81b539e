//! A MAC-only DUT's side of the catalogue (XGMII in and out, no serdes): a receive case's line
//! as the model's PCS receiver hands it to its RS, the transfers the DUT is given in place of
//! the line; and the line the model's PCS transmitter makes of the DUT's XGMII output, which
//! the transmit verdict ([`super::judge::tx`]) then reads as it reads a serdes output.
//!
//! ```text
//! receive:  case line (66-bit clocks) -> model's PCS receiver (block lock, descrambler,
//!           BER monitor, Fig. 49-17) -> one XGMII transfer per block -> the DUT's MAC
//! transmit: the DUT's XGMII output -> model's PCS transmitter (Fig. 49-16, scrambler)
//!           -> line blocks -> judge::tx
//! ```
//!
//! Spec: IEEE 802.3 §46.2 (XGMII), §49.2.5 (the transmit PCS), §49.2.13 (the receive PCS).

use super::{model_options, stimulus, Case, Params, Stimulus};
use crate::rx::{RxChain, RxInput, RxSink};
use pcs_core::{Block, EncoderConfig, PcsTx, XgmiiWord, SCRAMBLER_DEFAULT_STATE};

/// The transfers the receiver decoded, by block index (Local Fault where it gave none: no
/// block lock, 49.2.13.2.3's LBLOCK_R).
#[derive(Default)]
struct Words(Vec<XgmiiWord>);

impl RxSink for Words {
    fn words(
        &mut self,
        first: u64,
        words: &[XgmiiWord],
        _blocks: Option<&[Block]>,
    ) -> std::io::Result<()> {
        let at = usize::try_from(first).unwrap_or(usize::MAX);
        if self.0.len() < at {
            self.0.resize(at, XgmiiWord::LOCAL_FAULT);
        }
        self.0.truncate(at);
        self.0.extend_from_slice(words);
        Ok(())
    }
}

/// A receive case's line as the model's PCS receiver hands it to its RS: one 64-bit XGMII
/// transfer per block, what a MAC-only DUT is given in place of the line (Local Fault before
/// the receiver has block lock). Its frames, status and counters are then judged against the
/// case's expected outcome as a MAC+PHY's are.
///
/// A transmit case's receive line ([`super::tx_receive`], `tx-link-fault`) likewise.
///
/// # Errors
/// A transmit case without a receive line, or the line or the model's receiver failed.
pub fn rx_xgmii(case: &Case, params: &Params) -> Result<Vec<XgmiiWord>, String> {
    let units = match stimulus(case, params)? {
        Stimulus::Rx(line) => line.units(),
        Stimulus::Tx(..) => super::tx_receive(case)?.ok_or_else(|| {
            format!(
                "{} is a transmit case: its DUT's receiver gets idles",
                case.name
            )
        })?,
        Stimulus::Pattern(_) => {
            return Err(format!(
                "{} is a test-pattern case: a MAC-only DUT has no PCS to check or send a pattern",
                case.name
            ))
        }
    };
    let opt = model_options(params)?;
    let mut rx = RxChain::new(&opt.rx(), RxInput::Serial, Words::default());
    rx.push_units(&units);
    let (_, _, Words(words)) = rx.finish().map_err(|e| e.to_string())?;
    Ok(words)
}

/// The line the model's PCS transmitter (encoder and scrambler from the default state) makes
/// of a DUT's XGMII output, one block per transfer.
pub fn line_of_xgmii(words: &[XgmiiWord]) -> Vec<Block> {
    let mut pcs = PcsTx::new(EncoderConfig::default(), SCRAMBLER_DEFAULT_STATE);
    let mut line = vec![Block::IDLE; words.len()];
    pcs.encode_slice(words, &mut line);
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{find, judge, rx_expected, Kind, CASES};

    #[test]
    fn a_mac_given_the_models_xgmii_receives_the_expected_frames() {
        let p = Params::default();
        for case in CASES
            .iter()
            .filter(|c| c.kind == Kind::Rx && !c.status_only() && !c.is_pattern())
        {
            let words = rx_xgmii(case, &p).unwrap();
            let (units, exp) = rx_expected(case, &p).unwrap();
            assert!(words.len() + 64 >= units.len(), "{}", case.name);
            // The model's MAC alone on those transfers receives the expected frames.
            let mut mac = crate::sim::SimRx::new(
                &model_options(&p).unwrap().rx(),
                crate::sim::SimInput::Xgmii,
                crate::live::RxView::Receiver,
            );
            let mut got = Vec::new();
            for &w in &words {
                got.extend(mac.push_xgmii(w).unwrap());
            }
            let (_, _, last) = mac.finish().unwrap();
            got.extend(last);
            let got: Vec<_> = got.iter().map(|f| f.frame.data.clone()).collect();
            let want: Vec<_> = exp.frames.iter().map(|f| f.octets.clone()).collect();
            assert_eq!(got, want, "{}", case.name);
        }
    }

    #[test]
    fn a_transmit_line_made_from_the_models_xgmii_passes_and_a_bad_one_fails() {
        let case = find("tx-lengths").unwrap();
        let Stimulus::Tx(frames, _) = stimulus(case, &Params::default()).unwrap() else {
            panic!("tx-lengths is a transmit case")
        };
        let mut mac = crate::tx::TxChain::new(
            &crate::options::Options::default().tx(),
            crate::tx::VecSink::default(),
        );
        mac.idle(200);
        for f in &frames {
            mac.frame(f, None).unwrap();
        }
        mac.idle(200);
        let (sink, _) = mac.finish().unwrap();
        let words = sink.words.clone();
        let line = line_of_xgmii(&words);
        assert_eq!(line, sink.lines, "the model's own encoding");
        let shape = judge::TxShape::default();
        assert_eq!(judge::tx(&frames, &[], &line, &shape), Ok(Vec::new()));
        // A frame's octet flipped on the XGMII: that frame is corrupted on the line.
        let mut bad = words;
        let k = bad.iter().position(|w| w.ctrl == 0).unwrap() + 3;
        bad[k].data ^= 1 << 20;
        let divergences = judge::tx(&frames, &[], &line_of_xgmii(&bad), &shape).unwrap();
        assert!(divergences[0].contains("corrupted"), "{divergences:?}");
    }
}
