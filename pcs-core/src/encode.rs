//! The 64B/66B encoder with the transmit state machine: one XGMII transfer (`tx_raw`) in, one
//! 66-bit block (`tx_coded`) out, no latency and no look-ahead.
//!
//! ```text
//!  T_TYPE(tx_raw) ->  C      S      D      T      E
//!  TX_INIT            TX_C   TX_D   TX_E   TX_E   TX_E
//!  TX_C               TX_C   TX_D   TX_E   TX_E   TX_E
//!  TX_D               TX_E   TX_E   TX_D   TX_T   TX_E
//!  TX_T               TX_C   TX_D   TX_E   TX_E   TX_E
//!  TX_E               TX_C   TX_E   TX_D   TX_T   TX_E
//! ```
//!
//! In `TX_C`, `TX_D` and `TX_T` the block is `ENCODE(tx_raw)`; in `TX_E` it is `EBLOCK_T`;
//! while reset is asserted the machine sits in `TX_INIT` sending `LBLOCK_T`.
//!
//! Spec: IEEE 802.3 §49.2.5, §49.2.13.2, transmit state diagram (Figure 49-14 in 802.3-2008,
//! renumbered in later editions).

use crate::block::{encode_word, Block, BlockClass, BlockType, EncodeWordError};
use crate::xgmii::{ControlChar, XgmiiWord};

/// Transmit state.
///
/// Spec: IEEE 802.3 §49.2.13.2, transmit state diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TxState {
    /// `TX_INIT`
    Init,
    /// `TX_C`
    Control,
    /// `TX_D`
    Data,
    /// `TX_T`
    Terminate,
    /// `TX_E`
    Error,
}

impl TxState {
    /// The spec's name of the state.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Init => "TX_INIT",
            Self::Control => "TX_C",
            Self::Data => "TX_D",
            Self::Terminate => "TX_T",
            Self::Error => "TX_E",
        }
    }
}

/// How blocks are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TxMode {
    /// The transmit state machine decides (strict IEEE).
    #[default]
    StateMachine,
    /// Block by block, as much common RTL does: data without a Start still goes out as data
    /// blocks, a transfer that fits no block format becomes `EBLOCK_T`, and a control
    /// character without a 7-bit code inside a valid format becomes `/E/` in its lane. The
    /// state machine still runs, so a report can say what IEEE would have sent.
    Stateless,
}

/// Encoder settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EncoderConfig {
    /// State machine or block-by-block.
    pub mode: TxMode,
}

/// What one transfer did to the encoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxEvent {
    /// The block sent.
    pub block: Block,
    /// The state before the transfer.
    pub from: TxState,
    /// The state after it.
    pub to: TxState,
    /// `T_TYPE(tx_raw)`.
    pub class: BlockClass,
    /// Why `T_TYPE` is E, if it is.
    pub error: Option<EncodeWordError>,
}

/// The 64B/66B encoder and its transmit state machine.
///
/// Spec: IEEE 802.3 §49.2.13.2, transmit state diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Encoder {
    state: TxState,
    config: EncoderConfig,
}

impl Default for Encoder {
    fn default() -> Self {
        Self::new(EncoderConfig::default())
    }
}

impl Encoder {
    /// An encoder just out of reset (in `TX_INIT`).
    #[must_use]
    pub const fn new(config: EncoderConfig) -> Self {
        Self {
            state: TxState::Init,
            config,
        }
    }

    /// The current state.
    #[must_use]
    pub const fn state(&self) -> TxState {
        self.state
    }

    /// The settings.
    #[must_use]
    pub const fn config(&self) -> EncoderConfig {
        self.config
    }

    /// One block time with reset asserted: back to `TX_INIT`, sending `LBLOCK_T`.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, transmit state diagram (`TX_INIT`).
    pub fn reset(&mut self) -> Block {
        self.state = TxState::Init;
        Block::LBLOCK_T
    }

    /// Whether a packet, with or without idle transfers before it, takes only the arrows
    /// --C--> TX_C, --S--> TX_D, TX_D --D--> TX_D and TX_D --T--> TX_T from here: in `TX_INIT`,
    /// `TX_C` or `TX_T` (from `TX_D` a start is an error; from `TX_E` it is without an idle
    /// before it).
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, transmit state diagram.
    #[inline]
    pub(crate) const fn takes_packet(&self) -> bool {
        matches!(
            self.state,
            TxState::Init | TxState::Control | TxState::Terminate
        )
    }

    /// A packet went out whole (see [`Encoder::takes_packet`]): the machine is in `TX_T`.
    #[inline]
    pub(crate) fn packet_sent(&mut self) {
        self.state = TxState::Terminate;
    }

    /// Encodes one XGMII transfer (`tx_raw`) into one block (`.block`), and says which arrow
    /// the state machine took. This is the diagram transcribed, and it calls no fast path:
    /// [`Encoder::encode_slice`] is the same encoder over a slice, with short paths for the
    /// common arrows (the proptests prove the two equal).
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, transmit state diagram.
    #[inline]
    pub fn step(&mut self, word: XgmiiWord) -> TxEvent {
        use {BlockClass as T, TxState as S};
        let enc = encode_word(word);
        let from = self.state;
        let to = match (from, enc.class) {
            (S::Init | S::Control | S::Terminate, T::Control) => S::Control, // --C--> TX_C
            (S::Init | S::Control | S::Terminate, T::Start) => S::Data,      // --S--> TX_D
            (S::Init | S::Control | S::Terminate, T::Data | T::Terminate | T::Error) => S::Error,
            (S::Data, T::Data) => S::Data, // TX_D --D--> TX_D
            (S::Data, T::Terminate) => S::Terminate, // TX_D --T--> TX_T
            (S::Data, T::Control | T::Start | T::Error) => S::Error, // TX_D --C,S,E--> TX_E
            (S::Error, T::Data) => S::Data, // TX_E --D--> TX_D
            (S::Error, T::Control) => S::Control, // TX_E --C--> TX_C
            (S::Error, T::Terminate) => S::Terminate, // TX_E --T--> TX_T
            (S::Error, T::Start | T::Error) => S::Error, // TX_E --S,E--> TX_E
        };
        self.state = to;
        let block = match (self.config.mode, to) {
            (TxMode::StateMachine, S::Error) => Block::EBLOCK_T,
            _ => enc.block,
        };
        TxEvent {
            block,
            from,
            to,
            class: enc.class,
            error: enc.error,
        }
    }

    /// Encodes `words` into `blocks`, pairwise; returns how many were encoded (the shorter
    /// length).
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, transmit state diagram.
    pub fn encode_slice(&mut self, words: &[XgmiiWord], blocks: &mut [Block]) -> usize {
        let mut n = 0;
        for (w, b) in words.iter().zip(blocks.iter_mut()) {
            *b = self.step_fast(*w);
            n += 1;
        }
        n
    }

    /// [`Encoder::step`] with fast paths for the two arrows that carry nearly all traffic,
    /// with the same result in both modes: TX_D --D--> TX_D and TX_C/TX_T --C (idle)--> TX_C
    /// (and, out of line, for the start and the terminate of a packet).
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, transmit state diagram.
    #[inline]
    pub(crate) fn step_fast(&mut self, w: XgmiiWord) -> Block {
        match (self.state, w.ctrl) {
            (TxState::Data, 0) => Block::data(w.data),
            (TxState::Control | TxState::Terminate, 0xff) if w == XgmiiWord::IDLE => {
                self.state = TxState::Control;
                Block::IDLE
            }
            _ => self.step_cold(w),
        }
    }

    /// [`Encoder::step`] out of line, so that the fast paths stay small, with short paths of
    /// its own for the other two arrows of every packet.
    #[inline(never)]
    fn step_cold(&mut self, w: XgmiiWord) -> Block {
        use TxState as S;
        match (self.state, w.ctrl) {
            // TX_C/TX_T --S--> TX_D: /S/ in lane 0 (type 0x78), or in lane 4 after four idles
            // (type 0x33, idle codes zero).
            (S::Control | S::Terminate, 0x01) if w.data as u8 == START_CHAR => {
                self.state = S::Data;
                start_block(0, w.data >> 8)
            }
            (S::Control | S::Terminate, 0x1f) if w.data & 0xff_ffff_ffff == IDLES_START_LANE4 => {
                self.state = S::Data;
                start_block(4, w.data >> 40)
            }
            // TX_D --T--> TX_T: /T/ in lane k after k data octets, idles after it (codes zero).
            (S::Data, ctrl) if terminate_with_idles(w, ctrl) => {
                self.state = S::Terminate;
                let k = ctrl.trailing_zeros();
                terminate_block(k, w.data & !u64::MAX.checked_shl(8 * k).unwrap_or(0))
            }
            _ => self.step(w).block,
        }
    }
}

/// The start block of a packet whose `/S/` is in `lane` 0 (type 0x78, the 7 octets after the
/// `/S/` in `octets` bits 55..0) or 4 (type 0x33: four idles before it, their codes zero, and
/// the 3 octets after the `/S/` in `octets` bits 23..0). Octets above those are ignored.
///
/// Spec: IEEE 802.3 §49.2.4.3, Figure 49-7 (the formats with S0 and S4).
#[inline]
#[must_use]
pub(crate) const fn start_block(lane: usize, octets: u64) -> Block {
    if lane == 0 {
        Block::control(octets << 8 | BlockType::Start as u64)
    } else {
        Block::control(octets << 40 | BlockType::ControlStart as u64)
    }
}

/// The terminate block with `/T/` in lane `k` (0..=7) after `k` data octets (`data` bits
/// 8k-1..0, zero above) and idles after it (codes zero).
///
/// Spec: IEEE 802.3 §49.2.4.3, Figure 49-7 (the formats with T0..T7).
#[inline]
#[must_use]
pub(crate) fn terminate_block(k: u32, data: u64) -> Block {
    let block_type = TERMINATE_TYPES.get(k as usize).copied().unwrap_or_default();
    Block::control(data << 8 | u64::from(block_type))
}

/// `/S/` as a transfer's lane-0 octet.
const START_CHAR: u8 = ControlChar::START.0;

/// Lanes 0..4 of a start in lane 4 after four idles.
const IDLES_START_LANE4: u64 = 0xfb_0707_0707;

/// Block types of a terminate in lanes 0..7.
const TERMINATE_TYPES: [u8; 8] = [0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff];

/// A transfer with `/T/` in the lowest control lane and idles in every lane after it, with data
/// before it: `ctrl` is `0xff << k`.
#[inline]
fn terminate_with_idles(w: XgmiiWord, ctrl: u8) -> bool {
    let k = ctrl.trailing_zeros();
    if k >= 8 || ctrl != 0xff << k {
        return false;
    }
    let tail = w.data.checked_shr(8 * k).unwrap_or(0);
    let idles = XgmiiWord::IDLE.data.checked_shr(8 * (k + 1)).unwrap_or(0);
    tail == u64::from(ControlChar::TERMINATE.0) | idles << 8
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::xgmii::ControlChar;

    /// A transfer of each class, for the state machine tests.
    pub(crate) fn word_of(class: char) -> XgmiiWord {
        match class {
            'S' => XgmiiWord::new(0xd555_5555_5555_55fb, 0x01),
            'D' => XgmiiWord::from_data(0x0011_2233_4455_6677),
            'T' => XgmiiWord::new(0x0707_0707_07fd_aabb, 0xfc),
            'C' => XgmiiWord::IDLE,
            // /E/ among eight control characters: T_TYPE E.
            'E' => XgmiiWord::splat(ControlChar::ERROR),
            _ => unreachable!(),
        }
    }

    /// The class letter of a block sent.
    fn letter(block: Block) -> char {
        if block == Block::EBLOCK_T {
            return 'E';
        }
        match crate::block::decode_block(block).class {
            BlockClass::Start => 'S',
            BlockClass::Data => 'D',
            BlockClass::Terminate => 'T',
            BlockClass::Control => 'C',
            BlockClass::Error => 'E',
        }
    }

    fn run(input: &str) -> String {
        let mut enc = Encoder::default();
        input
            .chars()
            .map(|c| letter(enc.step(word_of(c)).block))
            .collect()
    }

    // The P802.3df example sequences (input -> TX output). Each was checked by hand against
    // the transmit state diagram; all agree with it.
    #[test]
    fn p802_3df_examples_tx() {
        for (input, tx) in [
            ("SDDECS", "SDDECS"),
            ("SDDTESD", "SDDTEED"), // TX_T --E--> TX_E, TX_E --S--> TX_E, TX_E --D--> TX_D
            ("SDETCSD", "SDETCSD"), // TX_E --T--> TX_T
            ("SEDTCSD", "SEDTCSD"), // TX_E --D--> TX_D
            ("SDDTTCC", "SDDTECC"), // TX_T --T--> TX_E
            ("SDDTTSD", "SDDTEED"),
            ("SDDCCD", "SDDECE"), // TX_D --C--> TX_E, TX_C --D--> TX_E
            ("SDDCSD", "SDDEED"),
            ("SDDESD", "SDDEED"),
        ] {
            assert_eq!(run(input), tx, "input {input}");
        }
    }

    #[test]
    fn tx_init_sends_lblock_t_during_reset_and_leaves_on_the_first_transfer() {
        let mut enc = Encoder::default();
        assert_eq!(enc.reset(), Block::LBLOCK_T);
        assert_eq!(enc.state(), TxState::Init);
        let e = enc.step(word_of('C'));
        assert_eq!(
            (e.from, e.to, e.block),
            (TxState::Init, TxState::Control, Block::IDLE)
        );
    }

    #[test]
    fn data_after_init_or_control_is_an_error() {
        for first in ['C', 'T'] {
            let mut enc = Encoder::default();
            let _ = enc.step(word_of('S'));
            let _ = enc.step(word_of('T'));
            if first == 'C' {
                let _ = enc.step(word_of('C'));
            }
            assert_eq!(enc.step(word_of('D')).block, Block::EBLOCK_T);
            assert_eq!(enc.state(), TxState::Error);
        }
        assert_eq!(Encoder::default().step(word_of('D')).block, Block::EBLOCK_T);
    }

    #[test]
    fn every_arrow_of_the_transmit_diagram() {
        use TxState as S;
        // (state reached by a prefix, input class, expected next state)
        let prefix = |s: S| match s {
            S::Init => "",
            S::Control => "C",
            S::Data => "S",
            S::Terminate => "ST",
            S::Error => "E",
        };
        let table = [
            (S::Init, 'C', S::Control),
            (S::Init, 'S', S::Data),
            (S::Init, 'D', S::Error),
            (S::Init, 'T', S::Error),
            (S::Init, 'E', S::Error),
            (S::Control, 'C', S::Control),
            (S::Control, 'S', S::Data),
            (S::Control, 'D', S::Error),
            (S::Control, 'T', S::Error),
            (S::Control, 'E', S::Error),
            (S::Data, 'D', S::Data),
            (S::Data, 'T', S::Terminate),
            (S::Data, 'C', S::Error),
            (S::Data, 'S', S::Error),
            (S::Data, 'E', S::Error),
            (S::Terminate, 'C', S::Control),
            (S::Terminate, 'S', S::Data),
            (S::Terminate, 'D', S::Error),
            (S::Terminate, 'T', S::Error),
            (S::Terminate, 'E', S::Error),
            (S::Error, 'D', S::Data),
            (S::Error, 'C', S::Control),
            (S::Error, 'T', S::Terminate),
            (S::Error, 'S', S::Error),
            (S::Error, 'E', S::Error),
        ];
        for (from, input, to) in table {
            let mut enc = Encoder::default();
            for c in prefix(from).chars() {
                let _ = enc.step(word_of(c));
            }
            assert_eq!(enc.state(), from);
            let e = enc.step(word_of(input));
            assert_eq!(e.to, to, "{} --{input}-->", from.name());
            let expected = if to == S::Error {
                Block::EBLOCK_T
            } else {
                encode_word(word_of(input)).block
            };
            assert_eq!(e.block, expected);
        }
    }

    #[test]
    fn stateless_mode_sends_data_without_start_and_e_per_lane() {
        let mut enc = Encoder::new(EncoderConfig {
            mode: TxMode::Stateless,
        });
        let d = word_of('D');
        assert_eq!(enc.step(d).block, Block::data(d.data));
        // The machine still tracks what IEEE would do.
        assert_eq!(enc.state(), TxState::Error);
        // A stray 0x00 control character in lane 3 of an idle transfer: /E/ code in lane 3.
        let w = XgmiiWord::new(0x0707_0707_0007_0707, 0xff);
        assert_eq!(enc.step(w).block.payload, 0x1e | 0x1e << (8 + 7 * 3));
    }

    proptest::proptest! {
        #[test]
        fn encode_slice_fast_paths_equal_step_in_both_modes(
            picks in proptest::collection::vec((0u8..9, 0u32..8, proptest::num::u64::ANY, proptest::num::u8::ANY), 0..64),
            stateless in proptest::bool::ANY,
        ) {
            // The five classes, starts in lane 4, terminates in every lane (after them idles,
            // or a random control lane), and random transfers.
            let mode = if stateless { TxMode::Stateless } else { TxMode::StateMachine };
            let words: Vec<XgmiiWord> = picks.iter().map(|&(kind, lane, data, ctrl)| match kind {
                0..=4 => word_of(['S', 'D', 'T', 'C', 'E'][kind as usize]),
                5 => XgmiiWord::new(0x5555_55fb_0707_0707 ^ (data & 0xffff_ff00_0000_0000), 0x1f),
                6 | 7 => {
                    let idles = XgmiiWord::IDLE.data & u64::MAX.checked_shl(8 * (lane + 1)).unwrap_or(0);
                    let mut d = data & !u64::MAX.checked_shl(8 * lane).unwrap_or(0) | 0xfd << (8 * lane) | idles;
                    if kind == 7 && lane < 7 {
                        d ^= u64::from(ctrl) << 56;
                    }
                    XgmiiWord::new(d, 0xffu8 << lane)
                }
                _ => XgmiiWord::new(data, ctrl),
            }).collect();
            let mut a = Encoder::new(EncoderConfig { mode });
            let mut blocks = vec![Block::IDLE; words.len()];
            a.encode_slice(&words, &mut blocks);
            let mut b = Encoder::new(EncoderConfig { mode });
            let one: Vec<Block> = words.iter().map(|&w| b.step(w).block).collect();
            proptest::prop_assert_eq!(blocks, one);
            proptest::prop_assert_eq!(a.state(), b.state());
        }
    }

    #[test]
    fn encode_slice_equals_step_by_step() {
        let words: Vec<XgmiiWord> = "CSDDTCCSDTE".chars().map(word_of).collect();
        let mut a = Encoder::default();
        let mut blocks = vec![Block::IDLE; words.len() + 3];
        assert_eq!(a.encode_slice(&words, &mut blocks), words.len());
        let mut b = Encoder::default();
        for (w, blk) in words.iter().zip(&blocks) {
            assert_eq!(b.step(*w).block, *blk);
        }
    }

    /// The near misses of every short path of the batch encoder (`step_fast`, `step_cold`):
    /// transfers that look almost like an idle, a start or a terminate but are not, each from
    /// the state where the short path applies (or next to it). The expected blocks are derived
    /// by hand from Figure 49-7 and the transmit state diagram (SPEC-NOTES), so that detection
    /// never rests on a proptest seed. Both the diagram (`step`) and every batch entry point
    /// (`encode_slice`, `PcsTx::encode_slice` descrambled back) must give them.
    #[test]
    fn state_names_are_the_diagrams() {
        let names = [
            TxState::Init,
            TxState::Control,
            TxState::Data,
            TxState::Terminate,
            TxState::Error,
        ]
        .map(TxState::name);
        assert_eq!(names, ["TX_INIT", "TX_C", "TX_D", "TX_T", "TX_E"]);
    }

    #[test]
    fn near_misses_of_the_short_paths_take_the_diagram() {
        use crate::xgmii::Lane::Control as K;
        use ControlChar as C;
        let idle = XgmiiWord::IDLE;
        let start0 = word_of('S');
        let data = word_of('D');
        // Lanes 0..3 idle, /S/ in lane 4, data after: the 0x33 short path's pattern.
        let start4 = XgmiiWord::new(0x5555_55fb_0707_0707, 0x1f);
        let c = |t: u64, codes: [u64; 4]| {
            Block::control(
                t | codes[0] << 8
                    | codes[1] << 15
                    | codes[2] << 22
                    | codes[3] << 29
                    | 0x5555_5500_0000_0000,
            )
        };
        let cases: Vec<(&str, Vec<XgmiiWord>, XgmiiWord, Block)> = vec![
            // /T/ alone in lane 0 with data after it: no format, T_TYPE E.
            (
                "C, /T/ then data",
                vec![idle],
                XgmiiWord::new(0x1122_3344_5566_77fd, 0x01),
                Block::EBLOCK_T,
            ),
            // An idle in lane 0 with data after it (ctrl 0x01 but no /S/): E.
            (
                "C, /I/ then data",
                vec![idle],
                XgmiiWord::new(0x1122_3344_5566_7707, 0x01),
                Block::EBLOCK_T,
            ),
            // A start where a packet is already open: TX_D --S--> TX_E.
            (
                "D, /S/ lane 0",
                vec![idle, start0, data],
                start0,
                Block::EBLOCK_T,
            ),
            // A start in TX_E stays in TX_E.
            (
                "E, /S/ lane 0",
                vec![idle, XgmiiWord::splat(C::ERROR)],
                start0,
                Block::EBLOCK_T,
            ),
            // /S/ in lane 4 after /I/ /I/ /E/ /I/: S with the /E/ code (0x1E) in lane 2, type 0x33.
            (
                "C, /E/ before a lane-4 /S/",
                vec![idle],
                start4.with_lane(2, K(C::ERROR)),
                c(0x33, [0, 0, 0x1e, 0]),
            ),
            // /S/ in lane 4 after a sequence ordered set: type 0x66, O code 0 in bits 32..35.
            (
                "C, /Q/ then /S/ in lane 4",
                vec![idle],
                XgmiiWord::new(0x5555_55fb_0100_009c, 0x11),
                Block::control(0x5555_5500_0100_0066),
            ),
            // The 0x33 short path compares lanes 0..4 with idles and /S/ under a mask: their
            // complement (0xf8 codes, 0x04 in lane 4; zero data after) is no format at all, E.
            (
                "C, lanes 0..4 the complement of /I/ /I/ /I/ /I/ /S/",
                vec![idle],
                XgmiiWord::new(0x0000_0004_f8f8_f8f8, 0x1f),
                Block::EBLOCK_T,
            ),
            // The terminate short path wants control in every lane from the /T/ on: a data
            // octet 0x07 (an idle's value) after the /T/ makes it no format, E.
            (
                "D, /T/ then data 0x07 among idles",
                vec![idle, start0, data],
                XgmiiWord::new(0x0707_0707_0707_07fd, 0xfd),
                Block::EBLOCK_T,
            ),
            // /T/ in lane 1 after an idle in an all-control transfer: no format, E.
            (
                "D, /I/ then /T/",
                vec![idle, start0, data],
                XgmiiWord::new(0x0707_0707_0707_fd07, 0xff),
                Block::EBLOCK_T,
            ),
            // /T/ in lane 3 with idles after it but lane 4 a data octet: E.
            (
                "D, /T/ in lane 3, data in lane 4",
                vec![idle, start0, data],
                XgmiiWord::new(0x0707_0707_fd33_2211, 0xe8),
                Block::EBLOCK_T,
            ),
            // A start in lane 4 where a packet is open: E.
            (
                "D, /S/ lane 4",
                vec![idle, start0, data],
                start4,
                Block::EBLOCK_T,
            ),
            // Not all of lanes 5..7 data after a lane-4 /S/ (an idle in lane 6): no format, E.
            (
                "C, lane-4 /S/ with an idle after",
                vec![idle],
                start4.with_lane(6, K(C::IDLE)),
                Block::EBLOCK_T,
            ),
            // /T/ in lane 2 with /E/ in lane 5 after it: a valid T (type 0xAA), D0 D1 in bits
            // 8..23, the /E/ code 0x1E as C5 (bits 43..49).
            (
                "D, /T/ then /I/ and /E/",
                vec![idle, start0, data],
                XgmiiWord::new(0x0707_fe07_07fd_2211, 0xfc),
                Block::control(0x1e << 43 | 0x2211 << 8 | 0xaa),
            ),
            // ctrl 0xfc but lane 2 is an idle, /T/ in lane 3: /I/ before /T/ is not a terminate.
            (
                "D, /I/ where /T/ should be",
                vec![idle, start0, data],
                XgmiiWord::new(0x0707_07fd_0707_2211, 0xfc),
                Block::EBLOCK_T,
            ),
            // /T/ in lane 1 and /S/ in lane 5 in one transfer: no format, E.
            (
                "D, /T/ and /S/ together",
                vec![idle, start0, data],
                XgmiiWord::new(0x0707_fb07_0707_fd11, 0xfe),
                Block::EBLOCK_T,
            ),
            // Control lanes that carry no control character of Table 49-1, inside a packet, each
            // close to the terminate short path's pattern: E.
            // The lane-1 /T/ and its idles, one bit higher: codes 0xfa 0x0f 0x0e...
            (
                "D, a lane-1 terminate one bit off",
                vec![idle, start0, data],
                XgmiiWord::new(0x0e0e_0e0e_0e0f_fa00, 0xfe),
                Block::EBLOCK_T,
            ),
            // 0xff, five idles, then two 0x00 codes.
            (
                "D, 0xff then idles then 0x00",
                vec![idle, start0, data],
                XgmiiWord::new(0x0000_0707_0707_07ff, 0xff),
                Block::EBLOCK_T,
            ),
            // /T/ followed by 0x83 (an idle's bits one place lower) and 0x03.
            (
                "D, /T/ then 0x83 codes",
                vec![idle, start0, data],
                XgmiiWord::new(0x0383_8383_8383_83fd, 0xff),
                Block::EBLOCK_T,
            ),
            // A terminate where no packet is open: TX_C --T--> TX_E.
            ("C, /T/", vec![idle], word_of('T'), Block::EBLOCK_T),
            // An idle inside a packet: TX_D --C--> TX_E.
            ("D, /I/", vec![idle, start0, data], idle, Block::EBLOCK_T),
            // Data outside a packet: TX_C --D--> TX_E.
            ("C, data", vec![idle], data, Block::EBLOCK_T),
            // Idles with one lane /LI/ (no EEE): T_TYPE E even in TX_C.
            (
                "C, /LI/ among idles",
                vec![idle],
                idle.with_lane(7, K(C::LPI)),
                Block::EBLOCK_T,
            ),
            // A data word with one control bit set on a data octet value: E.
            (
                "D, data with ctrl 0x80",
                vec![idle, start0, data],
                XgmiiWord::new(data.data, 0x80),
                Block::EBLOCK_T,
            ),
            // The first transfer after reset is a start: TX_INIT --S--> TX_D.
            (
                "INIT, /S/ lane 0",
                vec![],
                start0,
                Block::control(0xd555_5555_5555_5578),
            ),
            // After a terminate, a lane-4 start: TX_T --S--> TX_D, type 0x33, idle codes.
            (
                "T, /S/ lane 4",
                vec![idle, start0, data, word_of('T')],
                start4,
                c(0x33, [0, 0, 0, 0]),
            ),
        ];
        for (name, before, w, want) in cases {
            let mut words = before.clone();
            words.push(w);
            let mut diagram = Encoder::default();
            let got: Vec<Block> = words.iter().map(|w| diagram.step(*w).block).collect();
            assert_eq!(got.last(), Some(&want), "{name}: diagram");
            let mut fast = Encoder::default();
            let by_fast: Vec<Block> = words.iter().map(|w| fast.step_fast(*w)).collect();
            assert_eq!(by_fast, got, "{name}: step_fast");
            assert_eq!(fast, diagram, "{name}: state after step_fast");
            let mut batch = Encoder::default();
            let mut out = vec![Block::IDLE; words.len()];
            batch.encode_slice(&words, &mut out);
            assert_eq!(out, got, "{name}: encode_slice");
            assert_eq!(batch, diagram, "{name}: state after encode_slice");
            let mut pcs = crate::pcs::PcsTx::new(
                Default::default(),
                crate::scramble::SCRAMBLER_DEFAULT_STATE,
            );
            let mut line = vec![Block::IDLE; words.len()];
            pcs.encode_slice(&words, &mut line);
            let mut d = crate::scramble::Descrambler::new(crate::scramble::SCRAMBLER_DEFAULT_STATE);
            let back: Vec<Block> = line
                .iter()
                .map(|b| Block {
                    sync: b.sync,
                    payload: d.descramble(b.payload),
                })
                .collect();
            assert_eq!(back, got, "{name}: PcsTx::encode_slice");
        }
    }
}
