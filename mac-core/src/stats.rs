//! Statistics counters, named after the Clause 30 MAC attributes (and the RMON counters of
//! RFC 2819 where Clause 30 has none), so a DUT's counters can be compared one to one.
//!
//! All counters are `u64` and wrap (they never saturate in practice). The table maps each to
//! the per-frame `stat_*` strobes of the taxi MAC (`taxi_eth_mac_10g`, successor of
//! verilog-ethernet, which exposes only `tx_error_underflow`, `rx_error_bad_frame` and
//! `rx_error_bad_fcs`): sum a strobe over the run and compare it with the field.
//!
//! | field | attribute | taxi / verilog-ethernet port |
//! |---|---|---|
//! | [`TxStats::frames_transmitted_ok`] | aFramesTransmittedOK (30.3.1.1.2) | `stat_tx_pkt_good` |
//! | [`TxStats::octets_transmitted_ok`] | aOctetsTransmittedOK (30.3.1.1.8) | `stat_tx_byte` (summed) |
//! | [`TxStats::multicast_frames_xmitted_ok`] | aMulticastFramesXmittedOK (30.3.1.1.18) | `stat_tx_pkt_mcast` |
//! | [`TxStats::broadcast_frames_xmitted_ok`] | aBroadcastFramesXmittedOK (30.3.1.1.19) | `stat_tx_pkt_bcast` |
//! | [`TxStats::vlan_tagged_frames_transmitted`] | (none) | `stat_tx_pkt_vlan` |
//! | [`TxStats::frames_padded`] | (none) | `stat_tx_pad_frame` |
//! | [`TxStats::frames_lost_due_to_int_mac_xmit_error`] | aFramesLostDueToIntMACXmitError (30.3.1.1.12) | `stat_tx_err_user` + `stat_tx_err_underflow`; v-e `tx_error_underflow` |
//! | [`TxStats::mac_control_frames_transmitted`] | aMACControlFramesTransmitted (30.3.3.2) | `stat_tx_mcf` |
//! | [`TxStats::pause_mac_ctrl_frames_transmitted`] | aPAUSEMACCtrlFramesTransmitted (30.3.4.2) | `stat_tx_lfc_pkt` |
//! | [`TxStats::pfc_frames_transmitted`] | (Annex 31D; none in Clause 30) | `stat_tx_pfc_pkt` |
//! | [`RxStats::frames_received_ok`] | aFramesReceivedOK (30.3.1.1.5) | `stat_rx_pkt_good` |
//! | [`RxStats::octets_received_ok`] | aOctetsReceivedOK (30.3.1.1.14) | `stat_rx_byte` summed over good frames (taxi sums it over all frames) |
//! | [`RxStats::frame_check_sequence_errors`] | aFrameCheckSequenceErrors (30.3.1.1.6) | `stat_rx_err_bad_fcs` (taxi also counts runts/jabbers with bad FCS there); v-e `rx_error_bad_fcs` |
//! | [`RxStats::frame_too_long_errors`] | aFrameTooLongErrors (30.3.1.1.25) | `stat_rx_err_oversize` |
//! | [`RxStats::multicast_frames_received_ok`] | aMulticastFramesReceivedOK (30.3.1.1.21) | `stat_rx_pkt_mcast` (taxi: all frames) |
//! | [`RxStats::broadcast_frames_received_ok`] | aBroadcastFramesReceivedOK (30.3.1.1.22) | `stat_rx_pkt_bcast` (taxi: all frames) |
//! | [`RxStats::vlan_tagged_frames_received_ok`] | (none) | `stat_rx_pkt_vlan` |
//! | [`RxStats::undersize_frames`] | etherStatsUndersizePkts (RFC 2819; runt, good FCS) | none (taxi counts them as `stat_rx_pkt_good`) |
//! | [`RxStats::fragments`] | etherStatsFragments (RFC 2819; < 64, bad FCS) | `stat_rx_pkt_fragment` |
//! | [`RxStats::jabbers`] | etherStatsJabbers (RFC 2819; too long, bad FCS) | `stat_rx_pkt_jabber` |
//! | [`RxStats::symbol_error_frames`] | aSymbolErrorDuringCarrier (30.3.2.1.5), per frame | `stat_rx_err_bad_block` |
//! | [`RxStats::truncated_frames`] | (none: control character other than /T/ ends the frame) | `stat_rx_err_framing` |
//! | [`RxStats::bad_preamble_frames`] | (none) | `stat_rx_err_preamble` |
//! | [`RxStats::frames_received_bad`] | (sum of the error classes) | `stat_rx_pkt_bad`; v-e `rx_error_bad_frame` + `rx_error_bad_fcs` |
//! | [`RxStats::mac_control_frames_received`] | aMACControlFramesReceived (30.3.3.3) | `stat_rx_mcf` |
//! | [`RxStats::pause_mac_ctrl_frames_received`] | aPAUSEMACCtrlFramesReceived (30.3.4.3) | `stat_rx_lfc_pkt` |
//! | [`RxStats::pfc_frames_received`] | (Annex 31D; none in Clause 30) | `stat_rx_pfc_pkt` |
//! | [`RxStats::unsupported_opcodes_received`] | aUnsupportedOpcodesReceived (30.3.3.4) | none |
//! | [`RxStats::starts`] | (none) | `rx_start_packet` (summed, lane 0 + lane 4) |
//! | [`RxStats::misaligned_starts`] | (none) | none (ignored by the RTL) |
//!
//! Spec: IEEE 802.3 §30.3.1.1, §30.3.3, §30.3.4; RFC 2819 (etherStats).

/// Transmit counters.
///
/// Spec: IEEE 802.3 §30.3.1.1, §30.3.3.2, §30.3.4.2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxStats {
    /// aFramesTransmittedOK: frames sent to completion with a `/T/`.
    pub frames_transmitted_ok: u64,
    /// aOctetsTransmittedOK: DA through FCS of those frames.
    // reading: octets counted DA..FCS inclusive (RMON etherStatsOctets, what RTL sums);
    // Clause 30 words it as "data and padding octets".
    pub octets_transmitted_ok: u64,
    /// aMulticastFramesXmittedOK.
    pub multicast_frames_xmitted_ok: u64,
    /// aBroadcastFramesXmittedOK.
    pub broadcast_frames_xmitted_ok: u64,
    /// Frames with TPID 0x8100 after SA.
    pub vlan_tagged_frames_transmitted: u64,
    /// Frames that needed padding.
    pub frames_padded: u64,
    /// aFramesLostDueToIntMACXmitError: frames ended with `/E/` (underrun / abort).
    pub frames_lost_due_to_int_mac_xmit_error: u64,
    /// aMACControlFramesTransmitted (type 0x8808).
    pub mac_control_frames_transmitted: u64,
    /// aPAUSEMACCtrlFramesTransmitted (opcode 0x0001).
    pub pause_mac_ctrl_frames_transmitted: u64,
    /// PFC frames sent (opcode 0x0101).
    pub pfc_frames_transmitted: u64,
}

/// Receive counters. Every aligned `/S/` ends up in exactly one class counter, so
/// `starts == frames_received_ok + frames_received_bad` whenever no frame is in progress.
///
/// Spec: IEEE 802.3 §30.3.1.1, §30.3.2.1.5, §30.3.3.3, §30.3.4.3; RFC 2819.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RxStats {
    /// `/S/` in lane 0 or 4 (each begins one reported frame).
    pub starts: u64,
    /// `/S/` in any other lane (no frame begins; one inside a frame truncates it).
    pub misaligned_starts: u64,
    /// aFramesReceivedOK.
    pub frames_received_ok: u64,
    /// aOctetsReceivedOK: DA through FCS of good frames.
    // reading: octets counted DA..FCS inclusive, as for octets_transmitted_ok.
    pub octets_received_ok: u64,
    /// aMulticastFramesReceivedOK.
    pub multicast_frames_received_ok: u64,
    /// aBroadcastFramesReceivedOK.
    pub broadcast_frames_received_ok: u64,
    /// Good frames with TPID 0x8100 after SA.
    pub vlan_tagged_frames_received_ok: u64,
    /// aFrameCheckSequenceErrors: 64 ..= max octets with a bad FCS.
    pub frame_check_sequence_errors: u64,
    /// aFrameTooLongErrors: longer than the configured maximum (FCS good or bad).
    pub frame_too_long_errors: u64,
    /// etherStatsJabbers: the too-long frames whose FCS was also bad.
    pub jabbers: u64,
    /// etherStatsUndersizePkts: shorter than 64 octets with a good FCS (runts).
    pub undersize_frames: u64,
    /// etherStatsFragments: shorter than 64 octets with a bad FCS.
    pub fragments: u64,
    /// Frames holding an `/E/` (aSymbolErrorDuringCarrier counted per frame).
    pub symbol_error_frames: u64,
    /// Frames ended by a control character other than `/T/` (and without `/E/`).
    pub truncated_frames: u64,
    /// Frames whose preamble or SFD was wrong or incomplete.
    pub bad_preamble_frames: u64,
    /// Every frame not counted in `frames_received_ok`.
    pub frames_received_bad: u64,
    /// aMACControlFramesReceived: good frames of type 0x8808.
    pub mac_control_frames_received: u64,
    /// aPAUSEMACCtrlFramesReceived: good PAUSE frames.
    pub pause_mac_ctrl_frames_received: u64,
    /// Good PFC frames.
    pub pfc_frames_received: u64,
    /// aUnsupportedOpcodesReceived: good MAC Control frames with another opcode.
    pub unsupported_opcodes_received: u64,
}
