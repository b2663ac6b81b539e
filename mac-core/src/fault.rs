//! Link fault signalling: sequence ordered sets on XGMII, the receive link fault state
//! machine, and how the RS transmitter reacts to it.
//!
//! ```text
//! column (4 lanes):  lane 0   lane 1  lane 2  lane 3     ctrl
//!   Local Fault      /Q/ 9c   00      00      01         0b0001
//!   Remote Fault     /Q/ 9c   00      00      02         0b0001
//!   Link Interruption /Q/ 9c  00      00      03         0b0001   (value U)
//!
//!            seq             same type, seq_cnt < 4            4th of a type
//!   INIT ----------> COUNT <------------------------> COUNT -------------> FAULT
//!    ^ 128 columns     |  other type: NEW_FAULT_TYPE (count restarts at 1)   |
//!    +-- since first --+                                                     |
//!    +------------------------ 128 columns without a sequence --------------+
//! ```
//!
//! A 64-bit transfer holds two columns (lanes 0..3, then 4..7); each is one step.
//! While Local Fault is received the RS sends Remote Fault and no frames; while Remote Fault
//! is received it sends Idle and no frames.
//!
//! Spec: IEEE 802.3 §46.3.4, Figure 46-11, Table 46-5.

use pcs_core::{ControlChar, XgmiiWord};

use crate::tx::{EncodeFrameError, MacTx, TxConfig};

/// The type of a sequence ordered set.
///
/// Spec: IEEE 802.3 §46.3.4, Table 46-5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FaultKind {
    /// `9c 00 00 01`.
    LocalFault,
    /// `9c 00 00 02`.
    RemoteFault,
    /// `9c 00 00 03`.
    // reading: Link Interruption exists in 802.3-2022 §46.3.4; its value 0x03 is unverified
    // (SPEC-NOTES: U). It is counted like the other two and holds frames off like Remote Fault.
    LinkInterruption,
}

impl FaultKind {
    /// The value in lane 3 of the ordered set.
    ///
    /// Spec: IEEE 802.3 Table 46-5.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Self::LocalFault => 0x01,
            Self::RemoteFault => 0x02,
            Self::LinkInterruption => 0x03,
        }
    }

    /// A transfer with this ordered set in both columns (control mask 0x11).
    ///
    /// Spec: IEEE 802.3 §46.3.4.
    #[must_use]
    pub const fn word(self) -> XgmiiWord {
        let column = ((self.code() as u64) << 24) | ControlChar::SEQUENCE.0 as u64;
        XgmiiWord::new(column | (column << 32), 0x11)
    }

    /// The sequence ordered set in column `column` (0 = lanes 0..3, 1 = lanes 4..7) of
    /// `word`, if it is one of the three known ones.
    ///
    /// Spec: IEEE 802.3 §46.3.4, Table 46-5.
    #[must_use]
    pub const fn in_column(word: XgmiiWord, column: usize) -> Option<Self> {
        let shift = 32 * (column & 1);
        let ctrl = (word.ctrl >> (4 * (column & 1))) & 0xf;
        let lanes = (word.data >> shift) as u32;
        if ctrl != 0b0001 || lanes & 0xff != ControlChar::SEQUENCE.0 as u32 {
            return None;
        }
        match lanes >> 8 {
            0x01_0000 => Some(Self::LocalFault),
            0x02_0000 => Some(Self::RemoteFault),
            0x03_0000 => Some(Self::LinkInterruption),
            _ => None,
        }
    }
}

/// `link_fault`: the status the receive state machine reports.
///
/// Spec: IEEE 802.3 §46.3.4.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LinkFault {
    /// `OK`.
    #[default]
    Ok,
    /// A fault of this kind is being received.
    Fault(FaultKind),
}

/// State of the link fault state machine, Figure 46-11 (`NEW_FAULT_TYPE` is passed through
/// within one step).
///
/// Spec: IEEE 802.3 §46.3.4.2, Figure 46-11.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LinkFaultState {
    /// `INIT`.
    #[default]
    Init,
    /// `COUNT`.
    Count,
    /// `FAULT`.
    Fault,
}

/// Columns in the link fault window.
///
/// Spec: IEEE 802.3 §46.3.4.2.
pub const LINK_FAULT_WINDOW_COLUMNS: u8 = 128;

/// Sequence ordered sets of one type needed to declare a fault.
///
/// Spec: IEEE 802.3 §46.3.4.2.
pub const LINK_FAULT_SEQUENCES: u8 = 4;

/// The receive link fault state machine.
///
/// Spec: IEEE 802.3 §46.3.4.2, Figure 46-11.
// reading (state machine text U): in COUNT, col_cnt counts columns since the first counted
// sequence (4 of a type must fall within 128 columns of it, as xge_mac does); in FAULT it
// restarts at every sequence of the current type and 128 columns without one clear the fault;
// a sequence of another type restarts the count at 1 without changing link_fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LinkFaultMonitor {
    state: LinkFaultState,
    col_cnt: u8,
    seq_cnt: u8,
    last_seq_type: Option<FaultKind>,
    link_fault: LinkFault,
}

impl LinkFaultMonitor {
    /// The state machine at `INIT`, link OK.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2, Fig. 46-11.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            state: LinkFaultState::Init,
            col_cnt: 0,
            seq_cnt: 0,
            last_seq_type: None,
            link_fault: LinkFault::Ok,
        }
    }

    /// `link_fault`.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2.
    #[must_use]
    pub const fn link_fault(&self) -> LinkFault {
        self.link_fault
    }

    /// The state.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2, Fig. 46-11.
    #[must_use]
    pub const fn state(&self) -> LinkFaultState {
        self.state
    }

    /// `seq_cnt`.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2, Fig. 46-11.
    #[must_use]
    pub const fn seq_cnt(&self) -> u8 {
        self.seq_cnt
    }

    /// `col_cnt`.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2, Fig. 46-11.
    #[must_use]
    pub const fn col_cnt(&self) -> u8 {
        self.col_cnt
    }

    /// Both columns of a received transfer; returns `link_fault` after them.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2.
    pub fn push(&mut self, word: XgmiiWord) -> LinkFault {
        self.column(FaultKind::in_column(word, 0));
        self.column(FaultKind::in_column(word, 1))
    }

    /// Received transfers in order, as [`LinkFaultMonitor::push`] on each; `on_change(i,
    /// status)` is called at every transfer `i` after which `link_fault` differs from before
    /// it. Returns `link_fault` after them.
    ///
    /// In `INIT` a transfer without a sequence ordered set in either column changes nothing
    /// (Fig. 46-11: INIT stays INIT with every count at 0), so they are skipped, a data run
    /// eight transfers at a time.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2, Figure 46-11.
    pub fn push_slice(
        &mut self,
        words: &[XgmiiWord],
        mut on_change: impl FnMut(usize, LinkFault),
    ) -> LinkFault {
        let mut i = 0;
        while let Some(rest) = words.get(i..) {
            if self.state == LinkFaultState::Init {
                i += next_sequence(rest);
            }
            let Some(&w) = words.get(i) else { break };
            let before = self.link_fault;
            if self.push(w) != before {
                on_change(i, self.link_fault);
            }
            i += 1;
        }
        self.link_fault
    }

    /// One received column: `seq` is its sequence ordered set, if any.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2, Figure 46-11.
    pub fn column(&mut self, seq: Option<FaultKind>) -> LinkFault {
        use LinkFaultState as S;
        let same = seq.is_some() && seq == self.last_seq_type;
        let window_over = self.col_cnt.saturating_add(1) >= LINK_FAULT_WINDOW_COLUMNS;
        self.state = match (self.state, seq) {
            // INIT: link OK; a sequence enters NEW_FAULT_TYPE, then COUNT.
            (S::Init, None) => self.init(),
            (S::Init, Some(kind)) => self.new_fault_type(kind),
            // COUNT: the window closed without 4: back to INIT (this column starts afresh).
            (S::Count, None) if window_over => self.init(),
            (S::Count, Some(kind)) if window_over => {
                self.init();
                self.new_fault_type(kind)
            }
            (S::Count, None) => {
                self.col_cnt += 1;
                S::Count
            }
            (S::Count, Some(kind)) if same => {
                self.col_cnt += 1;
                self.seq_cnt += 1;
                if self.seq_cnt >= LINK_FAULT_SEQUENCES {
                    self.col_cnt = 0;
                    self.link_fault = LinkFault::Fault(kind);
                    S::Fault
                } else {
                    S::Count
                }
            }
            (S::Count, Some(kind)) => self.new_fault_type(kind),
            // FAULT: 128 columns without a sequence clear it.
            (S::Fault, None) if window_over => self.init(),
            (S::Fault, None) => {
                self.col_cnt += 1;
                S::Fault
            }
            (S::Fault, Some(_)) if same => {
                self.col_cnt = 0;
                S::Fault
            }
            (S::Fault, Some(kind)) => self.new_fault_type(kind),
        };
        self.link_fault
    }

    fn init(&mut self) -> LinkFaultState {
        self.link_fault = LinkFault::Ok;
        self.seq_cnt = 0;
        self.col_cnt = 0;
        self.last_seq_type = None;
        LinkFaultState::Init
    }

    /// `NEW_FAULT_TYPE`: remember the type, count it as the first; then `COUNT`.
    fn new_fault_type(&mut self, kind: FaultKind) -> LinkFaultState {
        self.last_seq_type = Some(kind);
        self.seq_cnt = 1;
        self.col_cnt = 0;
        LinkFaultState::Count
    }
}

/// The index of the first transfer in `words` with a known sequence ordered set in either
/// column (`words.len()` if none).
fn next_sequence(words: &[XgmiiWord]) -> usize {
    // An ordered set's column has its control bit in lane 0 (column 0) or lane 4: most
    // transfers are passed on that test alone, and a data run eight at a time.
    let is_sequence = |w: &XgmiiWord| {
        w.ctrl & 0x11 != 0
            && (FaultKind::in_column(*w, 0).is_some() || FaultKind::in_column(*w, 1).is_some())
    };
    let mut groups = words.chunks_exact(8);
    let mut at = 0;
    for g in &mut groups {
        if g.iter().fold(0, |a, w| a | w.ctrl) & 0x11 != 0 {
            if let Some(k) = g.iter().position(is_sequence) {
                return at + k;
            }
        }
        at += 8;
    }
    groups
        .remainder()
        .iter()
        .position(is_sequence)
        .map_or(words.len(), |k| at + k)
}

/// What the RS transmitter sends.
///
/// Spec: IEEE 802.3 §46.3.4.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TransmitMode {
    /// MAC frames and idles.
    Frames,
    /// Continuous sequence ordered sets of this kind, no frames (Remote Fault while Local
    /// Fault is received, or whatever was requested).
    Sequence(FaultKind),
    /// Continuous idles, no frames (while Remote Fault or Link Interruption is received).
    Idle,
}

/// Why the RS refused a frame.
///
/// Spec: IEEE 802.3 §46.3.4.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RsTransmitError {
    /// Link fault signalling holds frames off.
    HeldOff(TransmitMode),
    /// The MAC could not encode it.
    Encode(EncodeFrameError),
}

impl core::fmt::Display for RsTransmitError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::HeldOff(mode) => write!(
                f,
                "frame held off by link fault signalling ({mode:?}, 46.3.4.2)"
            ),
            Self::Encode(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for RsTransmitError {}

/// The reconciliation sublayer: the MAC transmitter plus the receive link fault state, with
/// the transmit reaction of §46.3.4.2, and requested fault signalling.
///
/// Spec: IEEE 802.3 §46.3.4.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Rs {
    tx: MacTx,
    monitor: LinkFaultMonitor,
    request: Option<FaultKind>,
}

impl Rs {
    /// An RS with a transmitter configured by `config`, link OK.
    ///
    /// Spec: IEEE 802.3 §46.3.4.
    #[must_use]
    pub const fn new(config: TxConfig) -> Self {
        Self {
            tx: MacTx::new(config),
            monitor: LinkFaultMonitor::new(),
            request: None,
        }
    }

    /// The transmitter.
    ///
    /// Spec: IEEE 802.3 §46.3.1.
    #[must_use]
    pub const fn tx(&self) -> &MacTx {
        &self.tx
    }

    /// The receive link fault state machine.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2.
    #[must_use]
    pub const fn monitor(&self) -> &LinkFaultMonitor {
        &self.monitor
    }

    /// Feeds one received transfer to the link fault state machine.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2.
    pub fn receive(&mut self, word: XgmiiWord) -> LinkFault {
        self.monitor.push(word)
    }

    /// Asks the RS to send sequence ordered sets of `kind` continuously (as a PHY or a
    /// test does), or `None` to stop.
    ///
    /// Spec: IEEE 802.3 §46.3.4.
    pub fn request_fault(&mut self, kind: Option<FaultKind>) {
        self.request = kind;
    }

    /// What the transmitter sends now: a request first, then the reaction to `link_fault`.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2.
    #[must_use]
    pub const fn transmit_mode(&self) -> TransmitMode {
        match (self.request, self.monitor.link_fault()) {
            (Some(kind), _) => TransmitMode::Sequence(kind),
            (None, LinkFault::Ok) => TransmitMode::Frames,
            (None, LinkFault::Fault(FaultKind::LocalFault)) => {
                TransmitMode::Sequence(FaultKind::RemoteFault)
            }
            (None, LinkFault::Fault(FaultKind::RemoteFault)) => TransmitMode::Idle,
            // reading: Link Interruption holds frames off like Remote Fault (U).
            (None, LinkFault::Fault(FaultKind::LinkInterruption)) => TransmitMode::Idle,
        }
    }

    /// Encodes a frame if the transmit mode allows frames.
    ///
    /// # Errors
    /// [`RsTransmitError::HeldOff`] during link fault signalling; otherwise as
    /// [`MacTx::encode_frame`].
    ///
    /// Spec: IEEE 802.3 §46.3.4.2.
    pub fn encode_frame(
        &mut self,
        frame: &[u8],
        out: &mut [XgmiiWord],
    ) -> Result<usize, RsTransmitError> {
        match self.transmit_mode() {
            TransmitMode::Frames => self
                .tx
                .encode_frame(frame, out)
                .map_err(RsTransmitError::Encode),
            mode @ (TransmitMode::Sequence(_) | TransmitMode::Idle) => {
                Err(RsTransmitError::HeldOff(mode))
            }
        }
    }

    /// Fills `out` with what the RS sends while no frame is sent: idles, or the sequence
    /// ordered sets of the transmit mode.
    ///
    /// Spec: IEEE 802.3 §46.3.4.2.
    pub fn fill(&mut self, out: &mut [XgmiiWord]) {
        let word = match self.transmit_mode() {
            TransmitMode::Frames | TransmitMode::Idle => XgmiiWord::IDLE,
            TransmitMode::Sequence(kind) => kind.word(),
        };
        self.tx.fill_with(word, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Transfers of every kind the monitor tells apart, in runs: data, idles, the three
    /// ordered sets in one column or both, and near misses (/Q/ with a wrong mask or code).
    fn transfers() -> impl Strategy<Value = Vec<XgmiiWord>> {
        let one = prop_oneof![
            3 => Just(XgmiiWord::new(0x5555_5555_5555_5555, 0)),
            2 => Just(XgmiiWord::IDLE),
            1 => Just(FaultKind::LocalFault.word()),
            1 => Just(FaultKind::RemoteFault.word()),
            1 => Just(FaultKind::LinkInterruption.word()),
            // An ordered set in one column, idles or data in the other.
            1 => (0u64..4, 0u32..2, any::<bool>()).prop_map(|(code, col, idle)| {
                let q = ((code << 24) | 0x9c) << (32 * col);
                let (other, other_ctrl) = if idle { (0x0707_0707u64, 0xfu8) } else { (0x1234_5678, 0) };
                let ctrl = (1 << (4 * col)) | (other_ctrl << (4 * (1 - col)));
                XgmiiWord::new(q | (other << (32 * (1 - col))), ctrl)
            }),
            1 => (any::<u64>(), any::<u8>()).prop_map(|(d, c)| XgmiiWord::new(d, c)),
            1 => (0u64..5, any::<u8>()).prop_map(|(code, c)| XgmiiWord::new((code << 24) | 0x9c, c)),
        ];
        proptest::collection::vec((one, 1usize..150), 0..12).prop_map(|runs| {
            runs.into_iter()
                .flat_map(|(w, n)| core::iter::repeat_n(w, n))
                .collect()
        })
    }

    /// One ordered set at every place in slices of every length up to three groups of eight:
    /// the skip stops exactly at it (its count starts there), in a group or in the tail.
    #[test]
    fn push_slice_finds_an_ordered_set_at_every_place() {
        let data = XgmiiWord::new(0x5555_5555_5555_5555, 0);
        for n in 1..=24 {
            for at in 0..n {
                let mut words = [data; 24];
                words[at] = FaultKind::RemoteFault.word();
                let words = &words[..n];
                let mut one = LinkFaultMonitor::new();
                for &w in words {
                    one.push(w);
                }
                let mut sliced = LinkFaultMonitor::new();
                sliced.push_slice(words, |_, _| panic!("no change from one ordered set"));
                assert_eq!(sliced, one, "{n} transfers, the ordered set at {at}");
                assert_eq!(sliced.state(), LinkFaultState::Count);
            }
        }
    }

    proptest! {
        /// The slice door (with its skip in INIT) equals the diagram one transfer at a time,
        /// in state, status and where the status changes, for any cut of the stream.
        #[test]
        fn push_slice_equals_push_one_at_a_time(words in transfers(), cut in any::<prop::sample::Index>()) {
            let mut one = LinkFaultMonitor::new();
            let mut want = Vec::new();
            for (i, &w) in words.iter().enumerate() {
                let before = one.link_fault();
                if one.push(w) != before {
                    want.push((i, one.link_fault()));
                }
            }
            let mut sliced = LinkFaultMonitor::new();
            let mut got = Vec::new();
            let cut = cut.index(words.len() + 1);
            let (a, b) = words.split_at(cut);
            sliced.push_slice(a, |i, lf| got.push((i, lf)));
            let last = sliced.push_slice(b, |i, lf| got.push((cut + i, lf)));
            prop_assert_eq!(got, want);
            prop_assert_eq!(last, one.link_fault());
            prop_assert_eq!(sliced, one);
        }
    }

    #[test]
    fn ordered_set_words_match_pcs_core_constants() {
        assert_eq!(FaultKind::LocalFault.word(), XgmiiWord::LOCAL_FAULT);
        assert_eq!(FaultKind::RemoteFault.word(), XgmiiWord::REMOTE_FAULT);
        assert_eq!(
            FaultKind::in_column(XgmiiWord::LOCAL_FAULT, 1),
            Some(FaultKind::LocalFault)
        );
        assert_eq!(FaultKind::in_column(XgmiiWord::IDLE, 0), None);
        // Wrong control mask or reserved value: not a fault sequence.
        assert_eq!(
            FaultKind::in_column(XgmiiWord::new(0x0100_009c, 0x03), 0),
            None
        );
        assert_eq!(
            FaultKind::in_column(XgmiiWord::new(0x0400_009c, 0x01), 0),
            None
        );
        assert_eq!(
            FaultKind::in_column(XgmiiWord::new(0x0300_009c, 0x01), 0),
            Some(FaultKind::LinkInterruption)
        );
    }

    #[test]
    fn fault_after_four_sequences_of_one_type() {
        let mut m = LinkFaultMonitor::new();
        for _ in 0..3 {
            assert_eq!(m.column(Some(FaultKind::LocalFault)), LinkFault::Ok);
        }
        assert_eq!(
            m.column(Some(FaultKind::LocalFault)),
            LinkFault::Fault(FaultKind::LocalFault)
        );
        assert_eq!(m.state(), LinkFaultState::Fault);
    }

    #[test]
    fn four_sequences_must_fall_within_128_columns() {
        let mut m = LinkFaultMonitor::new();
        m.column(Some(FaultKind::LocalFault)); // column 0
        for _ in 0..3 {
            for _ in 0..40 {
                m.column(None);
            }
            m.column(Some(FaultKind::LocalFault));
        }
        // 4th at column 123: fault.
        assert_eq!(m.link_fault(), LinkFault::Fault(FaultKind::LocalFault));

        let mut m = LinkFaultMonitor::new();
        m.column(Some(FaultKind::LocalFault)); // column 0
        for _ in 0..3 {
            for _ in 0..42 {
                m.column(None);
            }
            m.column(Some(FaultKind::LocalFault));
        }
        // 4th at column 129: the window closed at column 128, this one counts as a new 1st.
        assert_eq!(m.link_fault(), LinkFault::Ok);
        assert_eq!(m.seq_cnt(), 1);
    }

    #[test]
    fn new_type_restarts_the_count() {
        let mut m = LinkFaultMonitor::new();
        for _ in 0..3 {
            m.column(Some(FaultKind::LocalFault));
        }
        m.column(Some(FaultKind::RemoteFault));
        assert_eq!(m.seq_cnt(), 1);
        for _ in 0..2 {
            assert_eq!(m.column(Some(FaultKind::RemoteFault)), LinkFault::Ok);
        }
        assert_eq!(
            m.column(Some(FaultKind::RemoteFault)),
            LinkFault::Fault(FaultKind::RemoteFault)
        );
        // In FAULT, another type restarts the count but keeps link_fault until 4 arrive.
        for _ in 0..3 {
            assert_eq!(
                m.column(Some(FaultKind::LocalFault)),
                LinkFault::Fault(FaultKind::RemoteFault)
            );
        }
        assert_eq!(
            m.column(Some(FaultKind::LocalFault)),
            LinkFault::Fault(FaultKind::LocalFault)
        );
    }

    #[test]
    fn the_counters_follow_figure_46_11() {
        let mut m = LinkFaultMonitor::new();
        assert_eq!((m.seq_cnt(), m.col_cnt()), (0, 0));
        m.column(Some(FaultKind::LocalFault));
        assert_eq!((m.seq_cnt(), m.col_cnt()), (1, 0));
        m.column(None);
        m.column(None);
        assert_eq!((m.seq_cnt(), m.col_cnt()), (1, 2));
        m.column(Some(FaultKind::LocalFault));
        assert_eq!((m.seq_cnt(), m.col_cnt()), (2, 3));
        m.column(Some(FaultKind::LocalFault));
        m.column(Some(FaultKind::LocalFault));
        // FAULT: col_cnt restarts, and a sequence of the same type keeps it at 0.
        assert_eq!(m.state(), LinkFaultState::Fault);
        assert_eq!(m.col_cnt(), 0);
        m.column(None);
        m.column(None);
        m.column(None);
        assert_eq!(m.col_cnt(), 3);
        assert_eq!(
            m.column(Some(FaultKind::LocalFault)),
            LinkFault::Fault(FaultKind::LocalFault)
        );
        assert_eq!(m.state(), LinkFaultState::Fault);
        assert_eq!(m.col_cnt(), 0);
    }

    #[test]
    fn count_closes_its_window_at_128_columns_whatever_comes_next() {
        // COUNT with no sequence at its 128th column: back to INIT.
        let mut m = LinkFaultMonitor::new();
        m.column(Some(FaultKind::RemoteFault));
        for _ in 0..127 {
            m.column(None);
            assert_eq!(m.state(), LinkFaultState::Count);
        }
        assert_eq!(m.col_cnt(), 127);
        m.column(None);
        assert_eq!(m.state(), LinkFaultState::Init);
        assert_eq!((m.seq_cnt(), m.col_cnt()), (0, 0));
        // COUNT with a sequence of the same type at its 128th column: it starts a new count
        // (seq_cnt 1), it does not add to the old one (which would make it 3).
        let mut m = LinkFaultMonitor::new();
        m.column(Some(FaultKind::RemoteFault));
        m.column(Some(FaultKind::RemoteFault));
        for _ in 0..126 {
            m.column(None);
        }
        assert_eq!((m.seq_cnt(), m.col_cnt()), (2, 127));
        m.column(Some(FaultKind::RemoteFault));
        assert_eq!((m.seq_cnt(), m.col_cnt()), (1, 0));
        assert_eq!(m.state(), LinkFaultState::Count);
    }

    #[test]
    fn transmit_errors_say_why() {
        assert_eq!(
            RsTransmitError::HeldOff(TransmitMode::Idle).to_string(),
            "frame held off by link fault signalling (Idle, 46.3.4.2)"
        );
        assert_eq!(
            RsTransmitError::Encode(EncodeFrameError::FrameTooLong { len: 20000 }).to_string(),
            EncodeFrameError::FrameTooLong { len: 20000 }.to_string()
        );
    }

    #[test]
    fn fault_clears_after_128_clean_columns() {
        let mut m = LinkFaultMonitor::new();
        for _ in 0..2 {
            m.push(XgmiiWord::LOCAL_FAULT);
        }
        assert_eq!(m.link_fault(), LinkFault::Fault(FaultKind::LocalFault));
        for _ in 0..127 {
            assert_eq!(m.column(None), LinkFault::Fault(FaultKind::LocalFault));
        }
        assert_eq!(m.column(None), LinkFault::Ok);
        assert_eq!(m.state(), LinkFaultState::Init);
        // 64 idle transfers = 128 columns, counted by word as well.
        for _ in 0..2 {
            m.push(XgmiiWord::LOCAL_FAULT);
        }
        for _ in 0..63 {
            m.push(XgmiiWord::IDLE);
        }
        assert_eq!(m.link_fault(), LinkFault::Fault(FaultKind::LocalFault));
        assert_eq!(m.push(XgmiiWord::IDLE), LinkFault::Ok);
    }

    #[test]
    fn local_fault_storm_makes_rs_send_remote_fault_and_no_frames() {
        let mut rs = Rs::default();
        for _ in 0..10 {
            rs.receive(XgmiiWord::LOCAL_FAULT);
        }
        assert_eq!(
            rs.transmit_mode(),
            TransmitMode::Sequence(FaultKind::RemoteFault)
        );
        let mut out = [XgmiiWord::default(); 16];
        assert_eq!(
            rs.encode_frame(&[0; 60], &mut out),
            Err(RsTransmitError::HeldOff(TransmitMode::Sequence(
                FaultKind::RemoteFault
            )))
        );
        rs.fill(&mut out);
        assert!(out.iter().all(|w| *w == XgmiiWord::REMOTE_FAULT));
        assert_eq!(rs.tx().stats().frames_transmitted_ok, 0);
    }

    #[test]
    fn remote_fault_makes_rs_send_idle_and_no_frames() {
        let mut rs = Rs::default();
        for _ in 0..2 {
            rs.receive(XgmiiWord::REMOTE_FAULT);
        }
        assert_eq!(rs.transmit_mode(), TransmitMode::Idle);
        let mut out = [XgmiiWord::default(); 16];
        assert!(matches!(
            rs.encode_frame(&[0; 60], &mut out),
            Err(RsTransmitError::HeldOff(TransmitMode::Idle))
        ));
        rs.fill(&mut out);
        assert!(out.iter().all(|w| *w == XgmiiWord::IDLE));
        // Cleared after 128 clean columns: frames flow again.
        for _ in 0..64 {
            rs.receive(XgmiiWord::IDLE);
        }
        assert_eq!(rs.transmit_mode(), TransmitMode::Frames);
        assert_eq!(rs.encode_frame(&[0; 60], &mut out), Ok(10));
    }

    #[test]
    fn requested_fault_is_transmitted() {
        let mut rs = Rs::default();
        rs.request_fault(Some(FaultKind::LocalFault));
        let mut out = [XgmiiWord::default(); 4];
        rs.fill(&mut out);
        assert!(out.iter().all(|w| *w == XgmiiWord::LOCAL_FAULT));
        rs.request_fault(None);
        assert_eq!(rs.transmit_mode(), TransmitMode::Frames);
    }
}
