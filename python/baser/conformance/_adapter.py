"""The adapter: which of a DUT's signals carries what the catalogue drives and judges.

Every name is a signal of the cocotb toplevel (``dut``), or a dotted path below it
(``"m_axis_rx.tdata"`` for an interface instance), or ``None`` when the DUT does not have it
(the cases that need it are then skipped, and the report says why).
"""

STATUS = ("block_lock", "hi_ber", "link_up", "local_fault", "remote_fault")
PULSES = ("bad_frame", "bad_fcs")
COUNTERS = ("errored_blocks", "frames_good", "frames_bad", "fcs_errors")
PRBS31 = ("rx_enable", "rx_errors", "tx_enable")
PRBS31_ERRORS = ("per_clock", "total")


class Adapter:
    """Signal names of one DUT, and the settings the standard leaves to the implementer.

    clocks, resets: started at ``period_ns`` / pulsed (active high unless
    ``reset_active_low``) before every case. serdes_rx (data, hdr) and bitslip; serdes_tx
    (data, hdr): a 64-bit serdes interface with a 2-bit header. rx_axis, tx_axis: the
    AXI-stream prefix (``"rx_axis"`` -> ``rx_axis_tdata``; ending in ``"."`` it is a path:
    ``"m_axis_rx."`` -> ``m_axis_rx.tdata``); ``rx_bad_bit`` / ``tx_abort_bit``: the tuser
    bit of a bad frame on the last beat; ``rx_fcs_stripped``: the DUT delivers frames
    without their FCS. rx_xgmii (data, ctrl): in place of rx_axis, a PHY-only top's 64-bit
    XGMII receive output; its frames go through the model's MAC receiver (FCS included), and
    a frame's bad flag is its class there (anything but ``ok``: an /E/, a bad FCS, a runt...),
    so a PHY passes when its XGMII carries what the standard's decoding gives. tx_xgmii
    (data, ctrl): in place of tx_axis, a PHY-only top's 64-bit XGMII transmit input, driven
    by the model's MAC (``tx_ifg``, ``tx_dic``, /S/ in lane 0 or 4); a case that aborts a
    frame (the MAC's tuser) is skipped. A MAC-only top (no serdes: ``serdes_rx=None``,
    ``serdes_tx=None``) has its XGMII on the other side: rx_xgmii is its input, given each
    case's line as the model's PCS receiver decodes it, and tx_xgmii its output, put on a
    line by the model's PCS transmitter and judged as a MAC+PHY's line. status: role -> level signal (``STATUS``). pulses: role -> a signal
    high one clock per frame (``PULSES``). counters: role -> a counter's value (``COUNTERS``).
    inputs: signal -> value driven for the whole run (configuration pins).
    rate: the DUT's line rate, "10g" (10GBASE-R) or "25g" (25GBASE-R: the model's receiver
    runs at it, the BER cases are rx-hi-ber-96/97 in place of rx-hi-ber-15/16).
    ber_window_blocks: the DUT's BER timer in blocks (None: the standard's, 19531 = 125 us at
    10G, 781250 = 2 ms at 25G); the model's BER monitor runs with it (rx-hi-ber-16's line is
    placed for the standard's and is skipped with another); tx_ifg, tx_dic:
    the IFG and deficit idle count the DUT's transmitter is set to (46.3.1.4 allows both);
    max_frame_length: the receiver's largest good frame, FCS included.
    prbs31: role -> signal of the DUT's PRBS31 test pattern (49.2.8, 49.2.12; None: it has
    none, rx-prbs31 and tx-prbs31 are skipped): ``rx_enable`` (its receive checker on),
    ``rx_errors`` (its test-pattern error counter), ``tx_enable`` (its generator on);
    prbs31_errors: ``"per_clock"`` (``rx_errors`` is the count of that clock's errors, as
    verilog-ethernet's and taxi's ``rx_error_count``: summed) or ``"total"`` (a running
    counter: its change); prbs31_inverted: the DUT's PRBS31 is the complement of the LFSR's
    output (verilog-ethernet and taxi; whether IEEE 802.3 inverts it is unverified, so the
    default is not inverted); prbs31_missing: why the DUT has none (a ready adapter's
    words for the skip).
    """

    def __init__(
        self,
        dut,
        *,
        clocks=("rx_clk", "tx_clk"),
        resets=("rx_rst", "tx_rst"),
        reset_active_low=False,
        period_ns=6.4,
        serdes_rx=("serdes_rx_data", "serdes_rx_hdr"),
        bitslip="serdes_rx_bitslip",
        serdes_tx=("serdes_tx_data", "serdes_tx_hdr"),
        rx_axis="rx_axis",
        tx_axis="tx_axis",
        rx_bad_bit=0,
        tx_abort_bit=0,
        rx_fcs_stripped=True,
        rx_xgmii=None,
        tx_xgmii=None,
        status=None,
        pulses=None,
        counters=None,
        inputs=None,
        ber_window_blocks=None,
        rate="10g",
        tx_ifg=12,
        tx_dic=True,
        max_frame_length=1518,
        prbs31=None,
        prbs31_errors="per_clock",
        prbs31_inverted=False,
        prbs31_missing=None,
    ):
        self.dut = dut
        self.clocks = [self.signal(c) for c in clocks]
        self.resets = [self.signal(r) for r in resets]
        self.reset_active_low = reset_active_low
        self.period_ns = period_ns
        self.serdes_rx = tuple(self.signal(s) for s in serdes_rx) if serdes_rx else None
        self.bitslip = self.optional(bitslip)
        self.serdes_tx = tuple(self.signal(s) for s in serdes_tx) if serdes_tx else None
        self.rx_axis = self.axis(rx_axis, ("tdata", "tkeep", "tvalid", "tlast", "tuser"))
        self.tx_axis = self.axis(tx_axis, ("tdata", "tkeep", "tvalid", "tready", "tlast", "tuser"))
        self.rx_bad_bit = rx_bad_bit
        self.tx_abort_bit = tx_abort_bit
        # a PHY-only top's XGMII stands for its AXI-stream, a MAC-only top's for its serdes
        self.mac_only = self.serdes_rx is None and self.serdes_tx is None
        self.rx_xgmii = self.xgmii("rx", rx_xgmii, None if self.mac_only else self.rx_axis)
        self.tx_xgmii = self.xgmii("tx", tx_xgmii, None if self.mac_only else self.tx_axis)
        # A PHY's XGMII output carries the FCS.
        self.rx_fcs_stripped = rx_fcs_stripped and (self.rx_xgmii is None or self.mac_only)
        self.status = self.roles(status or {}, STATUS)
        self.pulses = self.roles(pulses or {}, PULSES)
        self.counters = self.roles(counters or {}, COUNTERS)
        self.inputs = {self.signal(k): v for k, v in (inputs or {}).items()}
        self.rate = rate
        if ber_window_blocks is None:
            from ._cases import standard_ber_window  # raises on an unknown rate

            ber_window_blocks = standard_ber_window(rate)
        self.ber_window_blocks = ber_window_blocks
        self.tx_ifg = tx_ifg
        self.tx_dic = tx_dic
        self.max_frame_length = max_frame_length
        self.prbs31 = self.roles(prbs31 or {}, PRBS31)
        if prbs31_errors not in PRBS31_ERRORS:
            raise ValueError(f"adapter: prbs31_errors `{prbs31_errors}`: expected one of "
                             f"{list(PRBS31_ERRORS)}")
        self.prbs31_errors = prbs31_errors
        self.prbs31_inverted = bool(prbs31_inverted)
        # why a ready adapter left prbs31 unmapped (the skip says it)
        self.prbs31_missing = None if self.prbs31 else prbs31_missing

    @property
    def top(self):
        """Which top this is: ``"mac+phy"`` (serdes and AXI-stream), ``"phy"`` (serdes and
        XGMII) or ``"mac"`` (XGMII and AXI-stream); :func:`waivers` takes it."""
        if self.mac_only:
            return "mac"
        return "phy" if self.rx_xgmii is not None or self.tx_xgmii is not None else "mac+phy"

    def xgmii(self, side, names, axis):
        """A 64-bit XGMII (data, ctrl) in place of the ``side`` AXI-stream, or None."""
        if not names:
            return None
        if axis is not None:
            raise ValueError(f"adapter: {side}_axis or {side}_xgmii, not both "
                             f"(set {side}_axis=None)")
        sigs = tuple(self.signal(s) for s in names)
        widths = [len(s) for s in sigs]
        if widths != [64, 8]:
            raise ValueError(f"adapter: {side}_xgmii {tuple(names)} is {widths[0]} data and "
                             f"{widths[1]} control bits: expected a 64-bit XGMII (64, 8)")
        return sigs

    def signal(self, path):
        obj = self.dut
        for part in path.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise ValueError(
                    f"adapter: the DUT has no signal `{path}` (no `{part}`); give its name "
                    f"or None"
                ) from None
        return obj

    def optional(self, path):
        return None if path is None else self.signal(path)

    def axis(self, prefix, fields):
        if prefix is None:
            return None
        sep = "" if prefix.endswith(".") else "_"
        return {f: self.optional(f"{prefix}{sep}{f}") for f in fields}

    def roles(self, given, known):
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ValueError(f"adapter: unknown role(s) {unknown}: expected some of {list(known)}")
        return {role: self.signal(name) for role, name in given.items() if name is not None}

    def has(self, need):
        """The first of ``need`` (roles such as ``"serdes_rx"``, ``"status.hi_ber"``) this
        DUT lacks, or None."""
        for role in need:
            group, _, name = role.partition(".")
            have = getattr(self, group, None)
            side = group[-2:] if group.startswith("serdes_") else group[:2]
            xgmii = getattr(self, side + "_xgmii", None)
            if group in ("rx_axis", "tx_axis") and not self.mac_only:  # PHY: frames on XGMII
                have = have or xgmii
            if group in ("serdes_rx", "serdes_tx") and self.mac_only:  # MAC: the line as XGMII
                have = have or xgmii
            if name:
                have = have and have.get(name) is not None
            if not have:
                return role
        return None


def verilog_ethernet(dut, **overrides):
    """verilog-ethernet's ``eth_mac_phy_10g`` (MAC+PHY), ``eth_phy_10g`` (PHY-only: XGMII and
    serdes) or ``eth_mac_10g`` (MAC-only: XGMII and AXI-stream, no serdes), told apart by
    their ``xgmii_rxd`` and ``serdes_rx_data``; 64-bit serdes with bit slip. MAC+PHY: AXI-stream
    ``tx_axis``/``rx_axis`` (tuser bit 0 bad frame), the pulses ``rx_error_bad_frame`` and
    ``rx_error_bad_fcs``, ``cfg_ifg`` 12, ``cfg_tx_enable`` and ``cfg_rx_enable`` 1. Both:
    status ``rx_block_lock`` and ``rx_high_ber``, ``cfg_*_prbs31_enable`` 0. The PHY-only
    top's receive cases judge its XGMII output (``rx_xgmii``: ``xgmii_rxd``, ``xgmii_rxc``)
    through the model's MAC receiver; its transmit cases drive its XGMII input (``tx_xgmii``:
    ``xgmii_txd``, ``xgmii_txc``) from the model's MAC. The MAC-only top: the MAC+PHY's
    AXI-stream, pulses and ``cfg_*``, its XGMII input given each case's line as the model's
    PCS receiver decodes it, its XGMII output put on a line by the model's PCS transmitter.

    ``rx_status`` is not link status: verilog-ethernet's watchdog raises it after 16 clean
    125 us windows (2 ms) with a control header seen in each, so it is not mapped
    (``link_up`` none). No link fault outputs and no counters.

    Checked on verilog-ethernet 77320a94, default parameters, Icarus 11, cocotb 2.1 (and
    1.9.2), with ``waivers("verilog-ethernet", adapter.top)``: eth_mac_phy_10g 13 cases pass,
    6 waived (rx-length-limits: no length check; rx-bad-preamble: no preamble check;
    rx-ordered-set-66: the /S/ of a 0x66 block lost; rx-lock-loss, rx-bit-slip: the BER
    monitor not reset without lock, decoding without lock; tx-link-fault: no link fault
    handling), 4 skipped (no link fault outputs), 167 s; eth_phy_10g 15 pass, 2 waived, 6
    skipped, 130 s; eth_mac_10g 11 pass, 4 waived, 8 skipped, 11 s (docs/conformance.md,
    "Checked on")."""
    status = {"block_lock": "rx_block_lock", "hi_ber": "rx_high_ber"}
    prbs = {"cfg_tx_prbs31_enable": 0, "cfg_rx_prbs31_enable": 0}
    xgmii = dict(rx_xgmii=("xgmii_rxd", "xgmii_rxc"), tx_xgmii=("xgmii_txd", "xgmii_txc"))
    mac = dict(pulses={"bad_frame": "rx_error_bad_frame", "bad_fcs": "rx_error_bad_fcs"},
               inputs={"cfg_ifg": 12, "cfg_tx_enable": 1, "cfg_rx_enable": 1})
    if _has(dut, "xgmii_rxd") and not _has(dut, "serdes_rx_data"):  # eth_mac_10g: no PHY
        settings = dict(serdes_rx=None, bitslip=None, serdes_tx=None, **xgmii, **mac)
    elif _has(dut, "xgmii_rxd"):  # eth_phy_10g: no MAC
        settings = dict(rx_axis=None, tx_axis=None, status=status, inputs=prbs, **xgmii)
    else:
        settings = dict(status=status, pulses=mac["pulses"], inputs={**mac["inputs"], **prbs})
    if "serdes_rx" not in settings:
        settings.update(_prbs31(dut, "PRBS31_ENABLE"))
    settings.update(overrides)
    return Adapter(dut, **settings)


def _param(dut, name):
    """The value of the top's parameter ``name``, or None when the simulator does not show
    it (Icarus does; Verilator only with ``--public-params`` or ``--public-flat-rw``)."""
    try:
        return int(getattr(dut, name).value)
    except (AttributeError, ValueError, TypeError):
        return None


def _prbs31(dut, param):
    """The PRBS31 roles of a verilog-ethernet or taxi PHY (``cfg_rx_prbs31_enable``,
    ``rx_error_count`` a count per clock, ``cfg_tx_prbs31_enable``, inverted) when it was
    built with its PRBS31 parameter 1, else none (and why, for the skip)."""
    built = _param(dut, param)
    if built == 1:
        return dict(prbs31={"rx_enable": "cfg_rx_prbs31_enable", "rx_errors": "rx_error_count",
                            "tx_enable": "cfg_tx_prbs31_enable"},
                    prbs31_errors="per_clock", prbs31_inverted=True)
    why = f"{param} is 0" if built == 0 else f"its {param} parameter is not visible"
    return dict(prbs31_missing=f"{why}; build it with {param}=1, or map prbs31= in the adapter")


def _has(dut, name):
    try:
        getattr(dut, name)
    except AttributeError:
        return False
    return True


def taxi(dut, **overrides):
    """taxi's ``taxi_eth_mac_phy_10g`` in its cocotb wrapper (``test_taxi_eth_mac_phy_10g.sv``,
    MAC+PHY), ``taxi_eth_phy_10g`` (PHY-only: XGMII out and in, told apart by its
    ``xgmii_rxd``) or ``taxi_eth_mac_10g`` in its wrapper (``test_taxi_eth_mac_10g.sv``,
    MAC-only: XGMII and AXI-stream, no ``serdes_rx_data``; ``xgmii_rx_valid`` held high), 64-bit serdes (no gearbox interface: ``TX_GBX_IF_EN`` 0) with bit slip and
    the serdes valids (and the PHY's ``xgmii_tx_valid``) held high: a top-level input's
    default value does not reach Verilator's model, which holds it at 0. MAC+PHY: clocks and resets ``rx_``, ``tx_``, ``stat_``; the interfaces
    ``s_axis_tx`` and ``m_axis_rx`` (tuser bit 0 bad frame); the statistics pulses
    ``stat_rx_pkt_bad`` and ``stat_rx_err_bad_fcs``; ``cfg_tx_ifg`` 12, padding on to 60
    octets (``cfg_tx_min_pkt_len`` 59, as taxi's bench), ``cfg_tx_max_pkt_len`` 9217,
    ``cfg_rx_max_pkt_len`` 1517 (``max_frame_length`` - 1), USXGMII autonegotiation off
    (``an_en`` 0). Both: status ``rx_block_lock`` and ``rx_high_ber``. The PHY-only top's
    receive cases judge its XGMII output (``rx_xgmii``) through the model's MAC receiver, its
    transmit cases drive its XGMII input (``tx_xgmii``) from the model's MAC.

    ``rx_status`` is not link status (taxi's watchdog, as verilog-ethernet's, raises it
    after 16 clean 125 us windows), so it is not mapped. No link fault outputs; counters
    none (the statistics are on ``m_axis_stat``).

    Checked on taxi 2f2fe72, default parameters, Verilator 5.048, cocotb 2.0.1, with
    ``waivers("taxi", adapter.top)``: taxi_eth_mac_phy_10g 14 cases pass, 5 waived
    (rx-length-limits: a fragment pulses stat_rx_err_bad_fcs; rx-bad-preamble: only a
    statistics pulse, tuser low; rx-lock-loss, rx-bit-slip: the BER monitor not reset without
    lock, decoding without lock; tx-link-fault: no link fault handling), 4 skipped (no link
    fault outputs), 8 s; taxi_eth_phy_10g 15 pass, 2 waived, 6 skipped, 13 s;
    taxi_eth_mac_10g 12 pass, 3 waived, 8 skipped, 3 s (docs/conformance.md, "Checked
    on")."""
    status = {"block_lock": "rx_block_lock", "hi_ber": "rx_high_ber"}
    common = {"serdes_rx_data_valid": 1, "serdes_rx_hdr_valid": 1,
              "cfg_tx_prbs31_enable": 0, "cfg_rx_prbs31_enable": 0}
    xgmii = dict(rx_xgmii=("xgmii_rxd", "xgmii_rxc"), tx_xgmii=("xgmii_txd", "xgmii_txc"))
    max_len = overrides.get("max_frame_length", 1518)
    mac = dict(
        clocks=("rx_clk", "tx_clk", "stat_clk"),
        resets=("rx_rst", "tx_rst", "stat_rst"),
        rx_axis="m_axis_rx.",
        tx_axis="s_axis_tx.",
        pulses={"bad_frame": "stat_rx_pkt_bad", "bad_fcs": "stat_rx_err_bad_fcs"},
    )
    cfg = {"cfg_tx_enable": 1, "cfg_rx_enable": 1, "cfg_tx_ifg": 12, "cfg_tx_pad_en": 1,
           "cfg_tx_min_pkt_len": 59, "cfg_tx_max_pkt_len": 9217, "cfg_rx_max_pkt_len": max_len - 1}
    if _has(dut, "xgmii_rxd") and not _has(dut, "serdes_rx_data"):  # taxi_eth_mac_10g
        settings = dict(serdes_rx=None, bitslip=None, serdes_tx=None, **xgmii, **mac,
                        inputs={"xgmii_rx_valid": 1, "tx_gbx_req_sync": 0,
                                "tx_gbx_req_stall": 0, **cfg})
    elif _has(dut, "xgmii_rxd"):  # taxi_eth_phy_10g: no MAC
        settings = dict(rx_axis=None, tx_axis=None, status=status, **xgmii,
                        inputs={"xgmii_txd": 0x0707070707070707, "xgmii_txc": 0xFF,
                                "xgmii_tx_valid": 1, **common})
    else:
        settings = dict(status=status, **mac, inputs={**cfg, "an_en": 0, **common})
    if "serdes_rx" not in settings:
        settings.update(_prbs31(dut, "PRBS31_EN"))
    settings.update(overrides)
    return Adapter(dut, **settings)


def example_dut(dut, **overrides):
    """examples/conformance/rtl/conf_dut.v: verilog-ethernet's names plus the link fault
    outputs and the counters. Built as a 25G PCS (``BER_THRESHOLD`` 97) give ``rate="25g"``
    and its ``BER_WINDOW`` as ``ber_window_blocks``. Its PRBS31 test pattern
    (``cfg_rx_prbs31_enable``, ``rx_error_count`` a count per clock, ``cfg_tx_prbs31_enable``)
    is not inverted unless it was built with ``PRBS31_INVERT`` 1 (read from the DUT)."""
    settings = dict(
        status={"block_lock": "rx_block_lock", "hi_ber": "rx_high_ber", "link_up": "rx_status",
                "local_fault": "rx_local_fault", "remote_fault": "rx_remote_fault"},
        pulses={"bad_frame": "rx_error_bad_frame", "bad_fcs": "rx_error_bad_fcs"},
        counters={"errored_blocks": "rx_errored_blocks", "frames_good": "rx_frames_good",
                  "frames_bad": "rx_frames_bad", "fcs_errors": "rx_fcs_errors"},
        prbs31={"rx_enable": "cfg_rx_prbs31_enable", "rx_errors": "rx_error_count",
                "tx_enable": "cfg_tx_prbs31_enable"},
        prbs31_inverted=_param(dut, "PRBS31_INVERT") == 1,
        inputs={"cfg_tx_prbs31_enable": 0, "cfg_rx_prbs31_enable": 0},
    )
    settings.update(overrides)
    return Adapter(dut, **settings)
