//! The 64B/66B decoder with the receive state machine: one descrambled 66-bit block
//! (`rx_coded`) in, one XGMII transfer (`rx_raw`) out.
//!
//! ```text
//!  R_TYPE(rx_coded) ->  C      S      D      T(next S/C)  T(next D/T/E)  E
//!  RX_INIT              RX_C   RX_D   RX_E   RX_E         RX_E           RX_E
//!  RX_C                 RX_C   RX_D   RX_E   RX_E         RX_E           RX_E
//!  RX_D                 RX_E   RX_E   RX_D   RX_T         RX_E           RX_E
//!  RX_T                 RX_C   RX_D   RX_E   RX_E         RX_E           RX_E
//!  RX_E                 RX_C   RX_E   RX_D   RX_T         RX_E           RX_E
//! ```
//!
//! In `RX_C`, `RX_D` and `RX_T` the transfer is `DECODE(rx_coded)`; in `RX_E` it is
//! `EBLOCK_R` (eight `/E/`); while `block_lock` is false or `hi_ber` is true the machine is
//! held in `RX_INIT`, which sends `LBLOCK_R` (Local Fault in lanes 0 and 4).
//!
//! **Latency: one block.** A terminate block is accepted only when the block after it is S or
//! C (`R_TYPE_NEXT`), so the decoder holds each block until the next one arrives:
//! [`Decoder::push`] returns the transfer for the block before the one pushed, and
//! [`Decoder::flush`] decides the last one with no successor, which counts as neither S nor C.
//!
//! Spec: IEEE 802.3 §49.2.11, §49.2.13.2, receive state diagram (Figure 49-15 in 802.3-2008,
//! renumbered in later editions).

use crate::block::{
    block_class, decode_block, decode_idle_start, decode_idle_terminate, Block, BlockClass,
    DecodeBlockError, Decoded, SyncHeader,
};
use crate::xgmii::XgmiiWord;

/// Receive state.
///
/// Spec: IEEE 802.3 §49.2.13.2, receive state diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RxState {
    /// `RX_INIT`
    Init,
    /// `RX_C`
    Control,
    /// `RX_D`
    Data,
    /// `RX_T`
    Terminate,
    /// `RX_E`
    Error,
}

impl RxState {
    /// The spec's name of the state.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Init => "RX_INIT",
            Self::Control => "RX_C",
            Self::Data => "RX_D",
            Self::Terminate => "RX_T",
            Self::Error => "RX_E",
        }
    }
}

/// How transfers are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RxMode {
    /// The receive state machine decides (strict IEEE).
    #[default]
    StateMachine,
    /// Block by block, as much common RTL does: every block is decoded on its own (`/E/` in a
    /// lane with an invalid code, eight `/E/` for an invalid header or type). The state
    /// machine still runs, so a report can say what IEEE would have sent.
    Stateless,
}

/// Whether a terminate block waits for the block after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LookAhead {
    /// `R_TYPE_NEXT` must be S or C for `RX_D --T--> RX_T` (strict IEEE).
    #[default]
    On,
    /// A terminate block is accepted whatever follows it.
    Off,
}

/// What the receiver sends while the PCS is not up (`block_lock` false or `hi_ber` true).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LinkDownOutput {
    /// `RX_INIT` and `LBLOCK_R` (strict IEEE).
    #[default]
    LocalFault,
    /// Keep decoding as if the link were up (common RTL sends no Local Fault).
    Decode,
}

/// Decoder settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecoderConfig {
    /// State machine or block-by-block.
    pub mode: RxMode,
    /// Terminate look-ahead.
    pub look_ahead: LookAhead,
    /// `LBLOCK_R` while the link is down.
    pub link_down: LinkDownOutput,
}

/// The PCS conditions that hold the receive state machine in `RX_INIT`.
///
/// Spec: IEEE 802.3 §49.2.13.2, receive state diagram (reset + hi_ber + !block_lock).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxLink {
    /// `block_lock` from the lock state machine.
    pub block_lock: bool,
    /// `hi_ber` from the BER monitor.
    pub hi_ber: bool,
}

impl RxLink {
    /// Locked and low BER.
    pub const UP: Self = Self {
        block_lock: true,
        hi_ber: false,
    };

    /// `block_lock * !hi_ber`.
    #[must_use]
    pub const fn is_up(self) -> bool {
        self.block_lock && !self.hi_ber
    }
}

/// What one block did to the decoder: the arrow taken and the transfer sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxEvent {
    /// The transfer sent (`rx_raw`).
    pub word: XgmiiWord,
    /// The state before the block.
    pub from: RxState,
    /// The state after it.
    pub to: RxState,
    /// `R_TYPE(rx_coded)`.
    pub class: BlockClass,
    /// `R_TYPE_NEXT`, consulted for a terminate block only (`None` when there was no next
    /// block or look-ahead is off).
    pub next: Option<BlockClass>,
    /// Why `R_TYPE` is E, if it is.
    pub error: Option<DecodeBlockError>,
    /// The link was down for this block (forced `RX_INIT`).
    pub link_down: bool,
    /// The decoder decodes block by block ([`RxMode::Stateless`]): its errors are the blocks
    /// of `R_TYPE` E (the ones it turns into `/E/`), not the diagram's arrows into `RX_E`.
    pub by_block: bool,
}

impl RxEvent {
    /// True if the block entered `RX_E` (what the errored-block counter counts); for a
    /// decoder that decodes block by block, if the block's `R_TYPE` is E.
    #[must_use]
    pub const fn is_errored(&self) -> bool {
        if self.by_block {
            !self.link_down && matches!(self.class, BlockClass::Error)
        } else {
            matches!(self.to, RxState::Error)
        }
    }
}

impl core::fmt::Display for RxEvent {
    /// The arrow in the spec's spelling, e.g. `RX_D --T, next D--> RX_E`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.link_down {
            return write!(f, "RX_INIT (block_lock false or hi_ber true)");
        }
        let letter = BlockClass::letter;
        if self.by_block {
            // In the terms of the decoder in use: no state machine, one block at a time.
            write!(f, "R_TYPE {} (decoded block by block)", letter(self.class))?;
            if let Some(e) = self.error {
                write!(f, ": {e}")?;
            }
            return Ok(());
        }
        write!(f, "{} --{}", self.from.name(), letter(self.class))?;
        match (self.class, self.next) {
            (BlockClass::Terminate, Some(n)) => write!(f, ", next {}", letter(n))?,
            (BlockClass::Terminate, None) => write!(f, ", no next block")?,
            _ => {}
        }
        write!(f, "--> {}", self.to.name())?;
        if let Some(e) = self.error {
            write!(f, ": {e}")?;
        }
        Ok(())
    }
}

/// The arrows of nearly every packet, for a block `prev` received with the link up whose
/// successor is `next`, in `state`: the transfer and the next state, as the diagram gives them
/// in every mode, or `None` for any other case. `RX_D --D--> RX_D`; an idle block into `RX_C`
/// (from `RX_INIT`, `RX_C`, `RX_T` or `RX_E`); a start in lane 0 or after four idles into
/// `RX_D` (from `RX_INIT`, `RX_C` or `RX_T`); a terminate with idles followed by a start or
/// control block into `RX_T` (from `RX_D` or `RX_E`).
///
/// Spec: IEEE 802.3 §49.2.13.2, receive state diagram.
#[inline(always)]
pub(crate) fn quick_arrow(
    state: RxState,
    prev: Block,
    next: Block,
    look_ahead: LookAhead,
) -> Option<(XgmiiWord, RxState)> {
    use RxState as S;
    match state {
        S::Data if prev.sync == SyncHeader::DATA => {
            Some((XgmiiWord::from_data(prev.payload), S::Data))
        }
        S::Init | S::Control | S::Terminate | S::Error if prev == Block::IDLE => {
            Some((XgmiiWord::IDLE, S::Control))
        }
        S::Init | S::Control | S::Terminate => decode_idle_start(prev).map(|w| (w, S::Data)),
        // RX_D --T * R_TYPE_NEXT = (S + C)--> RX_T, the usual end of a packet.
        S::Data | S::Error => decode_idle_terminate(prev)
            .filter(|_| {
                look_ahead == LookAhead::Off
                    || matches!(block_class(next), BlockClass::Start | BlockClass::Control)
            })
            .map(|w| (w, S::Terminate)),
    }
}

/// The 64B/66B decoder and its receive state machine, with one block of latency.
///
/// Spec: IEEE 802.3 §49.2.13.2, receive state diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decoder {
    state: RxState,
    config: DecoderConfig,
    /// The block waiting for its successor.
    pending: Option<(Block, RxLink)>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new(DecoderConfig::default())
    }
}

impl Decoder {
    /// A decoder just out of reset (in `RX_INIT`, nothing pending).
    #[must_use]
    pub const fn new(config: DecoderConfig) -> Self {
        Self {
            state: RxState::Init,
            config,
            pending: None,
        }
    }

    /// The state after the last block decided.
    #[must_use]
    pub const fn state(&self) -> RxState {
        self.state
    }

    /// The settings.
    #[must_use]
    pub const fn config(&self) -> DecoderConfig {
        self.config
    }

    /// True while a block waits for its successor.
    #[must_use]
    pub const fn has_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Back to `RX_INIT`, dropping any pending block.
    pub fn reset(&mut self) {
        self.state = RxState::Init;
        self.pending = None;
    }

    /// Receives one block (`rx_coded`) with the link conditions at its arrival; returns the
    /// event of the block received before it, if any.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, receive state diagram.
    #[inline]
    pub fn push(&mut self, block: Block, link: RxLink) -> Option<RxEvent> {
        let prev = self.pending.replace((block, link));
        prev.map(|(b, l)| self.decide(decode_block(b), l, Some(block)))
    }

    /// As [`Decoder::push`], returning only the transfer and whether the block entered
    /// `RX_E`. With the link up, the common arrows take a short path with the same result
    /// ([`quick_arrow`]).
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, receive state diagram.
    #[inline]
    pub(crate) fn push_word(&mut self, block: Block, link: RxLink) -> Option<(XgmiiWord, bool)> {
        if let Some((prev, RxLink::UP)) = self.pending {
            if let Some((word, to)) = quick_arrow(self.state, prev, block, self.config.look_ahead) {
                self.state = to;
                self.pending = Some((block, link));
                return Some((word, false));
            }
        }
        self.push_word_by_diagram(block, link)
    }

    /// [`Decoder::push_word`] the long way, through [`Decoder::push`].
    #[inline(never)]
    pub(crate) fn push_word_by_diagram(
        &mut self,
        block: Block,
        link: RxLink,
    ) -> Option<(XgmiiWord, bool)> {
        self.push(block, link).map(|e| (e.word, e.is_errored()))
    }

    /// The state and the pending block, when a block received with the link up is pending:
    /// what the short paths ([`quick_arrow`]) work on.
    #[inline]
    pub(crate) fn up_pending(&self) -> Option<(RxState, Block)> {
        match self.pending {
            Some((block, RxLink::UP)) => Some((self.state, block)),
            _ => None,
        }
    }

    /// Puts back what [`Decoder::up_pending`] gave, after the short paths moved it on.
    #[inline]
    pub(crate) fn set_up_pending(&mut self, state: RxState, pending: Block) {
        self.state = state;
        self.pending = Some((pending, RxLink::UP));
    }

    /// Decides the pending block, if any, with no block after it.
    ///
    /// Spec: IEEE 802.3 §49.2.13.2, receive state diagram.
    pub fn flush(&mut self) -> Option<RxEvent> {
        self.pending
            .take()
            .map(|(b, l)| self.decide(decode_block(b), l, None))
    }

    /// Decodes `blocks` (all received with the same link conditions) into `words`; returns how
    /// many transfers were written. With a block pending from before, the first transfer
    /// written is for that block, so `words` needs `blocks.len()` entries; without, one fewer.
    /// Stops early, keeping the rest unconsumed, if `words` is full: the return value is then
    /// `words.len()` and the caller re-pushes `blocks[n..]` where `n` is the number of blocks
    /// consumed, given by `Decoder::decode_slice_consumed` (crate private).
    pub fn decode_slice(
        &mut self,
        blocks: &[Block],
        link: RxLink,
        words: &mut [XgmiiWord],
    ) -> usize {
        self.decode_slice_consumed(blocks, link, words).1
    }

    /// As [`Decoder::decode_slice`], returning `(blocks consumed, transfers written)`.
    pub(crate) fn decode_slice_consumed(
        &mut self,
        blocks: &[Block],
        link: RxLink,
        words: &mut [XgmiiWord],
    ) -> (usize, usize) {
        let mut consumed = 0;
        let mut written = 0;
        let mut out = words.iter_mut();
        for &b in blocks {
            if self.pending.is_some() {
                match out.next() {
                    Some(slot) => {
                        if let Some(e) = self.push(b, link) {
                            *slot = e.word;
                            written += 1;
                        }
                    }
                    None => break,
                }
            } else {
                self.pending = Some((b, link));
            }
            consumed += 1;
        }
        (consumed, written)
    }

    /// Runs the state machine for the decoded block `dec`, whose successor is `next`.
    fn decide(&mut self, dec: Decoded, link: RxLink, next: Option<Block>) -> RxEvent {
        use {BlockClass as R, RxState as S};
        let from = self.state;
        let link_down =
            !link.is_up() && matches!(self.config.link_down, LinkDownOutput::LocalFault);
        if link_down {
            self.state = S::Init;
            return RxEvent {
                word: XgmiiWord::LOCAL_FAULT,
                from,
                to: S::Init,
                class: dec.class,
                next: None,
                error: dec.error,
                link_down,
                by_block: matches!(self.config.mode, RxMode::Stateless),
            };
        }
        // R_TYPE_NEXT is only looked at for a terminate block.
        let next_class = match (dec.class, self.config.look_ahead) {
            (R::Terminate, LookAhead::On) => next.map(|b| decode_block(b).class),
            _ => None,
        };
        let next_ok = match self.config.look_ahead {
            LookAhead::On => matches!(next_class, Some(R::Start | R::Control)),
            LookAhead::Off => true,
        };
        let to = match (from, dec.class) {
            (S::Init | S::Control | S::Terminate, R::Control) => S::Control, // --C--> RX_C
            (S::Init | S::Control | S::Terminate, R::Start) => S::Data,      // --S--> RX_D
            (S::Init | S::Control | S::Terminate, R::Data | R::Terminate | R::Error) => S::Error,
            (S::Data, R::Data) => S::Data, // RX_D --D--> RX_D
            // RX_D, RX_E --T * R_TYPE_NEXT=(S+C)--> RX_T; otherwise --> RX_E.
            (S::Data | S::Error, R::Terminate) if next_ok => S::Terminate,
            (S::Data | S::Error, R::Terminate) => S::Error,
            (S::Data, R::Control | R::Start | R::Error) => S::Error, // RX_D --C,S,E--> RX_E
            (S::Error, R::Control) => S::Control,                    // RX_E --C--> RX_C
            (S::Error, R::Data) => S::Data,                          // RX_E --D--> RX_D
            (S::Error, R::Start | R::Error) => S::Error,             // RX_E --S,E--> RX_E
        };
        self.state = to;
        let word = match (self.config.mode, to) {
            (RxMode::StateMachine, S::Error) => XgmiiWord::ERROR,
            _ => dec.word,
        };
        RxEvent {
            word,
            from,
            to,
            class: dec.class,
            next: next_class,
            error: dec.error,
            link_down,
            by_block: matches!(self.config.mode, RxMode::Stateless),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::encode_word;
    use crate::encode::tests::word_of;

    fn block_of(class: char) -> Block {
        if class == 'E' {
            // An unknown block type.
            return Block::control(0x00);
        }
        encode_word(word_of(class)).block
    }

    /// The class letter of a transfer received.
    fn letter(word: XgmiiWord) -> char {
        if word == XgmiiWord::ERROR {
            return 'E';
        }
        match encode_word(word).class {
            BlockClass::Start => 'S',
            BlockClass::Data => 'D',
            BlockClass::Terminate => 'T',
            BlockClass::Control => 'C',
            BlockClass::Error => 'E',
        }
    }

    fn run_with(config: DecoderConfig, input: &str) -> String {
        let mut dec = Decoder::new(config);
        let mut out: String = input
            .chars()
            .filter_map(|c| dec.push(block_of(c), RxLink::UP))
            .map(|e| letter(e.word))
            .collect();
        out.extend(dec.flush().map(|e| letter(e.word)));
        out
    }

    fn run(input: &str) -> String {
        run_with(DecoderConfig::default(), input)
    }

    // The P802.3df example sequences (input -> RX output). Each was checked by hand against
    // the receive state diagram; all agree with it.
    #[test]
    fn p802_3df_examples_rx() {
        for (input, rx) in [
            ("SDDECS", "SDDECS"),
            ("SDDTESD", "SDDEEED"), // T with next E -> RX_E; RX_E --S--> RX_E
            ("SDETCSD", "SDETCSD"), // RX_E --T, next C--> RX_T
            ("SEDTCSD", "SEDTCSD"), // RX_E --D--> RX_D
            ("SDDTTCC", "SDDETCC"), // T with next T -> RX_E; then RX_E --T, next C--> RX_T
            ("SDDTTSD", "SDDETSD"),
            ("SDDCCD", "SDDECE"),
            ("SDDCSD", "SDDEED"),
            ("SDDESD", "SDDEED"),
        ] {
            assert_eq!(run(input), rx, "input {input}");
        }
    }

    #[test]
    fn terminate_needs_start_or_control_next() {
        for (next, ok) in [
            ('S', true),
            ('C', true),
            ('D', false),
            ('T', false),
            ('E', false),
        ] {
            let out = run(&format!("SDT{next}"));
            assert_eq!(
                out.chars().nth(2),
                Some(if ok { 'T' } else { 'E' }),
                "next {next}"
            );
        }
    }

    #[test]
    fn a_terminate_at_the_end_of_the_stream_is_rejected() {
        assert_eq!(run("CSDT"), "CSDE");
    }

    #[test]
    fn look_ahead_off_accepts_a_terminate_whatever_follows() {
        let config = DecoderConfig {
            look_ahead: LookAhead::Off,
            ..DecoderConfig::default()
        };
        assert_eq!(run_with(config, "SDTD"), "SDTE");
        assert_eq!(run_with(config, "CSDT"), "CSDT");
    }

    #[test]
    fn latency_is_one_block() {
        let mut dec = Decoder::default();
        assert_eq!(dec.push(Block::IDLE, RxLink::UP), None);
        assert!(dec.has_pending());
        let e = dec.push(block_of('S'), RxLink::UP).unwrap();
        assert_eq!(e.word, XgmiiWord::IDLE);
        assert_eq!(dec.flush().unwrap().word, word_of('S'));
        assert_eq!(dec.flush(), None);
    }

    #[test]
    fn every_arrow_of_the_receive_diagram() {
        use RxState as S;
        let prefix = |s: S| match s {
            S::Init => "",
            S::Control => "C",
            S::Data => "S",
            S::Terminate => "SDT",
            S::Error => "E",
        };
        // (state, R_TYPE, R_TYPE_NEXT, expected next state); next 'C' unless it matters.
        let table = [
            (S::Init, 'C', 'C', S::Control),
            (S::Init, 'S', 'C', S::Data),
            (S::Init, 'D', 'C', S::Error),
            (S::Init, 'T', 'C', S::Error),
            (S::Init, 'E', 'C', S::Error),
            (S::Control, 'C', 'C', S::Control),
            (S::Control, 'S', 'C', S::Data),
            (S::Control, 'D', 'C', S::Error),
            (S::Control, 'T', 'C', S::Error),
            (S::Control, 'E', 'C', S::Error),
            (S::Data, 'D', 'C', S::Data),
            (S::Data, 'T', 'C', S::Terminate),
            (S::Data, 'T', 'S', S::Terminate),
            (S::Data, 'T', 'D', S::Error),
            (S::Data, 'T', 'T', S::Error),
            (S::Data, 'T', 'E', S::Error),
            (S::Data, 'C', 'C', S::Error),
            (S::Data, 'S', 'C', S::Error),
            (S::Data, 'E', 'C', S::Error),
            (S::Terminate, 'C', 'C', S::Control),
            (S::Terminate, 'S', 'C', S::Data),
            (S::Error, 'C', 'C', S::Control),
            (S::Error, 'D', 'C', S::Data),
            (S::Error, 'T', 'C', S::Terminate),
            (S::Error, 'T', 'S', S::Terminate),
            (S::Error, 'T', 'D', S::Error),
            (S::Error, 'S', 'C', S::Error),
            (S::Error, 'E', 'C', S::Error),
        ];
        for (from, input, next, to) in table {
            let mut dec = Decoder::default();
            let mut last = None;
            for c in prefix(from).chars().chain([input, next]) {
                if let Some(e) = dec.push(block_of(c), RxLink::UP) {
                    last = Some(e);
                }
            }
            let e = last.unwrap();
            assert_eq!(
                (e.from, e.to),
                (from, to),
                "{} --{input}, next {next}-->",
                from.name()
            );
            let expected = if to == S::Error {
                XgmiiWord::ERROR
            } else {
                word_of(input)
            };
            assert_eq!(e.word, expected);
            assert_eq!(e.is_errored(), to == S::Error);
        }
    }

    #[test]
    fn link_down_holds_rx_init_and_sends_lblock_r() {
        let mut dec = Decoder::default();
        let down = RxLink {
            block_lock: false,
            hi_ber: false,
        };
        let hi_ber = RxLink {
            block_lock: true,
            hi_ber: true,
        };
        let _ = dec.push(block_of('S'), RxLink::UP);
        let _ = dec.push(block_of('D'), down);
        let e = dec.push(block_of('D'), hi_ber).unwrap();
        assert_eq!((e.from, e.to), (RxState::Data, RxState::Init));
        assert_eq!(e.word, XgmiiWord::LOCAL_FAULT);
        let e = dec.push(Block::IDLE, RxLink::UP).unwrap();
        assert_eq!(e.word, XgmiiWord::LOCAL_FAULT);
        assert!(e.link_down);
        // The condition dropped: RX_INIT --D--> RX_E.
        let e = dec.push(Block::IDLE, RxLink::UP).unwrap();
        assert_eq!((e.from, e.to), (RxState::Init, RxState::Control));
        assert_eq!(dec.flush().unwrap().word, XgmiiWord::IDLE);
    }

    #[test]
    fn link_down_decode_knob_sends_no_local_fault() {
        let mut dec = Decoder::new(DecoderConfig {
            link_down: LinkDownOutput::Decode,
            ..DecoderConfig::default()
        });
        let down = RxLink {
            block_lock: false,
            hi_ber: false,
        };
        let _ = dec.push(Block::IDLE, down);
        assert_eq!(dec.flush().unwrap().word, XgmiiWord::IDLE);
    }

    #[test]
    fn stateless_mode_decodes_each_block_on_its_own() {
        let config = DecoderConfig {
            mode: RxMode::Stateless,
            ..DecoderConfig::default()
        };
        let mut dec = Decoder::new(config);
        // Data without a start passes as data; an invalid code becomes /E/ in its lane only.
        let d = block_of('D');
        let bad = Block::control(0x1e | 0x7f << (8 + 7 * 2));
        let _ = dec.push(d, RxLink::UP);
        assert_eq!(dec.push(bad, RxLink::UP).unwrap().word, word_of('D'));
        let e = dec.flush().unwrap();
        assert_eq!(
            e.word,
            XgmiiWord::IDLE.with_lane(2, crate::Lane::Control(crate::ControlChar::ERROR))
        );
        assert_eq!(e.to, RxState::Error);
    }

    #[test]
    fn event_display_names_the_arrow() {
        let mut dec = Decoder::default();
        let _ = dec.push(block_of('S'), RxLink::UP);
        let _ = dec.push(block_of('T'), RxLink::UP);
        let e = dec.push(block_of('D'), RxLink::UP).unwrap();
        assert_eq!(e.to_string(), "RX_D --T, next D--> RX_E");
        let e = dec.push(Block::control(0x42), RxLink::UP).unwrap();
        assert_eq!(e.to_string(), "RX_E --D--> RX_D");
        let e = dec.flush().unwrap();
        assert_eq!(
            e.to_string(),
            "RX_D --E--> RX_E: unknown block type 0x42 (Figure 49-7)"
        );
    }

    proptest::proptest! {
        /// The short arrows (quick_arrow) give the diagram's transfer and state: push_word
        /// equals push_word_by_diagram on any sequence of blocks of every kind, with the
        /// link going down now and then, look-ahead on and off.
        #[test]
        fn quick_arrows_equal_the_diagram(
            picks in proptest::collection::vec((0u8..10, proptest::prelude::any::<u64>(), 0u8..16), 1..80),
            look_ahead_off: bool,
        ) {
            let config = DecoderConfig {
                look_ahead: if look_ahead_off { LookAhead::Off } else { LookAhead::On },
                ..DecoderConfig::default()
            };
            let mut quick = Decoder::new(config);
            let mut diagram = Decoder::new(config);
            let starts = [0x78u64, 0x33];
            let terms = [0x87u64, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff];
            for (kind, p, k) in picks {
                let block = match kind {
                    0 | 1 => Block::IDLE,
                    2 => Block::data(p),
                    3 => Block::data(p),
                    4 => Block::control(p & !0xff | starts[usize::from(k & 1)]),
                    5 => Block::control(starts[usize::from(k & 1)] | (p & 0xffff_ff00_0000_0000)),
                    6 => {
                        let ty = terms[usize::from(k & 7)];
                        // Idle codes after the /T/ (the shortcut) or random ones.
                        let keep = if k & 8 == 0 { u64::MAX.checked_shr(64 - 8 - 7 * (u32::from(k & 7) + 1)).unwrap_or(u64::MAX) } else { u64::MAX };
                        Block::control(ty | (p & keep & !0xff))
                    }
                    7 => Block::control(p),
                    8 => Block { sync: SyncHeader::from_bits((p & 3) as u8), payload: p },
                    _ => Block::EBLOCK_T,
                };
                let link = if kind == 9 && k == 0 { RxLink { block_lock: false, hi_ber: false } } else { RxLink::UP };
                proptest::prop_assert_eq!(quick.push_word(block, link), diagram.push_word_by_diagram(block, link));
                proptest::prop_assert_eq!(quick.state(), diagram.state());
            }
        }
    }

    #[test]
    fn a_block_waits_for_its_successor_and_reset_drops_it() {
        let mut d = Decoder::default();
        assert!(!d.has_pending());
        assert!(d.push(block_of('C'), RxLink::UP).is_none());
        assert!(d.has_pending());
        assert!(d.push(block_of('S'), RxLink::UP).is_some());
        assert_eq!(d.state(), RxState::Control);
        d.reset();
        assert!(!d.has_pending());
        assert_eq!(d.state(), RxState::Init);
        assert!(d.flush().is_none());
    }

    #[test]
    fn decode_slice_equals_push_by_push() {
        let blocks: Vec<Block> = "CCSDDTCSDTCE".chars().map(block_of).collect();
        let mut a = Decoder::default();
        let mut words = vec![XgmiiWord::default(); blocks.len()];
        let n = a.decode_slice(&blocks[..5], RxLink::UP, &mut words);
        assert_eq!(n, 4);
        let m = a.decode_slice(&blocks[5..], RxLink::UP, &mut words[n..]);
        assert_eq!(n + m, blocks.len() - 1);
        let mut b = Decoder::default();
        let expected: Vec<XgmiiWord> = blocks
            .iter()
            .filter_map(|&blk| b.push(blk, RxLink::UP).map(|e| e.word))
            .collect();
        assert_eq!(&words[..n + m], &expected[..]);
        // A full output stops early without losing blocks.
        let mut c = Decoder::default();
        let mut two = [XgmiiWord::default(); 2];
        assert_eq!(
            c.decode_slice_consumed(&blocks, RxLink::UP, &mut two),
            (3, 2)
        );
    }
}

#[cfg(test)]
mod event_tests {
    use super::*;

    fn event(class: BlockClass, to: RxState) -> RxEvent {
        RxEvent {
            word: XgmiiWord::ERROR,
            from: RxState::Data,
            to,
            class,
            next: None,
            error: None,
            link_down: false,
            by_block: false,
        }
    }

    #[test]
    fn errored_is_rx_e_or_an_e_block_while_the_link_is_up() {
        assert!(event(BlockClass::Error, RxState::Error).is_errored());
        assert!(!event(BlockClass::Data, RxState::Data).is_errored());
        let by_block = |class, link_down| RxEvent {
            by_block: true,
            link_down,
            ..event(class, RxState::Data)
        };
        assert!(by_block(BlockClass::Error, false).is_errored());
        assert!(!by_block(BlockClass::Error, true).is_errored());
        assert!(!by_block(BlockClass::Data, false).is_errored());
    }

    #[test]
    fn a_terminate_names_its_next_block_or_its_absence() {
        let mut e = event(BlockClass::Terminate, RxState::Error);
        assert_eq!(e.to_string(), "RX_D --T, no next block--> RX_E");
        e.next = Some(BlockClass::Data);
        assert_eq!(e.to_string(), "RX_D --T, next D--> RX_E");
    }
}
