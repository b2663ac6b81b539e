"""Drives a DUT through its adapter one clock at a time and records everything it says.

A receive run feeds the line to the DUT's serdes input (honouring its bit slip requests); the
engine judges what the DUT said against the case's expected outcome (the same line bits
through the model's receiver, block lock of its own). A transmit run feeds frames to the DUT's
AXI-stream input and records its serdes output. Both record
the DUT's frames with their bad flag, its pulses, status levels (as changes) and counters.
"""

from .. import _baser
from ._line import IDLE, Cursor, scramble

XGMII_IDLE = (0x0707070707070707, 0xFF)

from cocotb.triggers import RisingEdge


class Observed:
    """What one run saw of the DUT."""

    def __init__(self):
        self.clocks = 0
        self.dut_frames = []  # (octets, bad, clock)
        self.pulses = {}  # role -> count
        self.status = {}  # role -> [(clock, value)] changes, first the value at the start
        self.counters = {}  # role -> (before, after)
        self.tx_blocks = []  # (header, payload) from the DUT's serdes output
        self.xgmii = None  # a PHY-only top's XGMII output: the model's MAC receiver
        self.notes = []


def _int(sig):
    try:
        return int(sig.value)
    except ValueError:  # x or z
        return 0


class Bench:
    def __init__(self, adapter):
        self.a = adapter
        self.clock = adapter.clocks[0]
        self.started = False

    def start_clocks(self):
        import cocotb
        from cocotb.clock import Clock

        for clk in self.a.clocks:
            try:
                clock = Clock(clk, self.a.period_ns, unit="ns")  # cocotb 2
            except TypeError:
                clock = Clock(clk, self.a.period_ns, units="ns")  # cocotb 1.9
            cocotb.start_soon(clock.start())
        self.started = True

    async def reset(self):
        """Holds the DUT in reset for 8 clocks with the serdes input idle, then releases it."""
        if not self.started:
            self.start_clocks()
        a = self.a
        for sig, value in a.inputs.items():
            sig.value = value
        if a.tx_axis is not None:
            a.tx_axis["tvalid"].value = 0
        idle = scramble([IDLE])[0][0]
        if a.serdes_rx is not None:
            a.serdes_rx[0].value = idle[1]
            a.serdes_rx[1].value = idle[0]
        if a.mac_only and a.rx_xgmii is not None:
            a.rx_xgmii[0].value, a.rx_xgmii[1].value = XGMII_IDLE
        level = 0 if a.reset_active_low else 1
        for r in a.resets:
            r.value = level
        for _ in range(8):
            await RisingEdge(self.clock)
        for r in a.resets:
            r.value = 1 - level
        await RisingEdge(self.clock)

    def _sample(self, obs, axis_state):
        """One clock's outputs: AXI-stream beats (or XGMII transfers), pulses, status
        changes."""
        a = self.a
        if a.rx_xgmii is not None and not a.mac_only:
            self._sample_xgmii(obs)
        ax = a.rx_axis
        if ax is not None and ax["tvalid"] is not None and _int(ax["tvalid"]):
            data = _int(ax["tdata"])
            keep = _int(ax["tkeep"]) if ax["tkeep"] is not None else 0xFF
            axis_state.extend((data >> (8 * k)) & 0xFF for k in range(8) if keep >> k & 1)
            if ax["tlast"] is None or _int(ax["tlast"]):
                bad = bool(ax["tuser"] is not None and _int(ax["tuser"]) >> a.rx_bad_bit & 1)
                obs.dut_frames.append((bytes(axis_state), bad, obs.clocks))
                del axis_state[:]
        for role, sig in a.pulses.items():
            if _int(sig):
                obs.pulses[role] = obs.pulses.get(role, 0) + 1
        for role, sig in a.status.items():
            value = bool(_int(sig))
            trace = obs.status.setdefault(role, [])
            if not trace or trace[-1][1] != value:
                trace.append((obs.clocks, value))

    def _sample_xgmii(self, obs):
        """One XGMII transfer of a PHY-only top into the model's MAC receiver: each frame it
        receives is one of the DUT's, bad unless ``ok``."""
        if obs.xgmii is None:
            obs.xgmii = _baser.RxModel(input="xgmii", max_frame_length=self.a.max_frame_length)
        frames = obs.xgmii.push_xgmii(_int(self.a.rx_xgmii[0]), _int(self.a.rx_xgmii[1]))
        for f in frames or ():
            obs.dut_frames.append((bytes(f.data), f.class_ != "ok", obs.clocks))

    def _counters(self, obs, at_end):
        for role, sig in self.a.counters.items():
            before = obs.counters.get(role, (None, None))[0]
            obs.counters[role] = (before, _int(sig)) if at_end else (_int(sig), None)

    async def run_rx(self, blocks, slips):
        """The line into the DUT's serdes input, every clock of it (the DUT's bit slip
        requests honoured), and what the DUT said; the engine's model judges it
        (``_baser.conformance_verdict``)."""
        obs = Observed()
        line, _ = scramble(blocks)
        dut_line = Cursor(line, slips)
        axis_state = []
        slip = False
        self._counters(obs, False)
        while dut_line.left() >= 2:
            slip = await self._clock_line(obs, dut_line, slip)
            self._sample(obs, axis_state)
        self._counters(obs, True)
        return obs

    async def run_rx_xgmii(self, words):
        """A MAC-only top's receive run: the case's line as the model's PCS receiver decodes
        it (``words``: one ``(data, ctrl)`` a clock) into the DUT's XGMII input, and what the
        DUT said, judged as :meth:`run_rx`'s."""
        obs = Observed()
        axis_state = []
        rxd, rxc = self.a.rx_xgmii
        self._counters(obs, False)
        for data, ctrl in words:
            rxd.value, rxc.value = data, ctrl
            await RisingEdge(self.clock)
            obs.clocks += 1
            self._sample(obs, axis_state)
        rxd.value, rxc.value = XGMII_IDLE
        self._counters(obs, True)
        return obs

    async def _clock_line(self, obs, dut_line, slip):
        """One clock of the DUT's serdes input (the slip it asked for the clock before taken);
        returns the slip it asks for now."""
        a = self.a
        header, data = dut_line.take(slip)
        a.serdes_rx[0].value = data
        a.serdes_rx[1].value = header
        await RisingEdge(self.clock)
        obs.clocks += 1
        return a.bitslip is not None and bool(_int(a.bitslip))

    async def run_tx(self, frames, aborts=(), settle=200, lead=200, receive=None,
                     receive_xgmii=None):
        """Frames into the DUT's AXI-stream input (all queued at once, after ``lead`` clocks
        in which the receiver locks to an idle line: an RS holds frames off while it
        receives Local Fault; ``aborts``: the indices sent with the abort bit on their last
        beat), the DUT's serdes output recorded until, every beat taken, no data block has
        come out for ``settle`` clocks. The serdes input carries idles throughout, or with
        ``receive`` (a case's receive line as sent, ``(header, data)`` a clock from the first,
        the lead included) that line, then idles; the run lasts at least as long (a MAC-only
        top is given ``receive_xgmii``, the line's XGMII transfers, then idle)."""
        a = self.a
        if a.tx_xgmii is not None and not a.mac_only:  # a PHY-only top: XGMII in
            return await self._run_tx_xgmii(frames, settle, lead)
        ax = a.tx_axis
        obs = Observed()
        idles = _receive_line(receive) if receive else _idle_line()
        left = len(receive or ()) - lead
        xgmii_in = iter(receive_xgmii or ())
        for _ in range(lead):
            self._serdes_idle(idles, xgmii_in)
            await RisingEdge(self.clock)
        beats = []
        for i, frame in enumerate(frames):
            for off in range(0, len(frame), 8):
                chunk = frame[off : off + 8]
                last = off + 8 >= len(frame)
                user = (1 << a.tx_abort_bit) if last and i in aborts else 0
                beats.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1, last, user))
        axis_state = []
        k = 0
        after = 0
        words = []  # a MAC-only top's XGMII output
        while after < settle or obs.clocks < left:
            self._serdes_idle(idles, xgmii_in)
            if k < len(beats):
                data, keep, last, user = beats[k]
                ax["tdata"].value = data
                ax["tkeep"].value = keep
                ax["tlast"].value = int(last)
                if ax["tuser"] is not None:
                    ax["tuser"].value = user
                ax["tvalid"].value = 1
            else:
                ax["tvalid"].value = 0
            await RisingEdge(self.clock)
            obs.clocks += 1
            if k < len(beats) and (ax["tready"] is None or _int(ax["tready"])):
                k += 1
            if a.mac_only:
                words.append((_int(a.tx_xgmii[0]), _int(a.tx_xgmii[1])))
                busy = words[-1][1] != 0xFF
            else:
                obs.tx_blocks.append((_int(a.serdes_tx[1]), _int(a.serdes_tx[0])))
                busy = obs.tx_blocks[-1][0] == 2
            # done once every beat is taken and no data block has left for `settle` clocks
            after = 0 if k < len(beats) or busy else after + 1
            self._sample(obs, axis_state)
        ax["tvalid"].value = 0
        if a.mac_only:  # its XGMII on a line, as the model's PCS transmitter sends it
            obs.tx_blocks = _baser.conformance_line_of_xgmii(words)
        return obs


    async def _run_tx_xgmii(self, frames, settle, lead):
        """A PHY-only top's transmit run: the frames as the model's MAC puts them on a 64-bit
        XGMII (the adapter's IFG and deficit idle count, /S/ in lane 0 or 4) into the DUT's
        XGMII input after ``lead`` idle clocks, its serdes output recorded until, every frame's
        /T/ given, no data block has come out for ``settle`` clocks."""
        a = self.a
        obs = Observed()
        idles = _idle_line()
        mac = _baser.TxModel(ifg=a.tx_ifg, dic=a.tx_dic)
        txd, txc = a.tx_xgmii
        txd.value, txc.value = XGMII_IDLE
        for _ in range(lead):
            self._serdes_idle(idles)
            await RisingEdge(self.clock)
        for frame in frames:
            mac.push(bytes(frame))
        ended = 0
        after = 0
        while after < settle:
            self._serdes_idle(idles)
            data, ctrl, events = mac.xgmii()
            ended += sum(1 for kind, _, _ in events or () if kind == 2)
            txd.value, txc.value = data, ctrl
            await RisingEdge(self.clock)
            obs.clocks += 1
            obs.tx_blocks.append((_int(a.serdes_tx[1]), _int(a.serdes_tx[0])))
            quiet = ended >= len(frames) and obs.tx_blocks[-1][0] != 2
            after = after + 1 if quiet else 0
            self._sample(obs, [])
        txd.value, txc.value = XGMII_IDLE
        return obs

    async def run_rx_pattern(self, run):
        """A receive test-pattern run (``rx-prbs31``): ``run["units"]`` into the DUT's serdes
        input a clock each (no bit slips: a PHY in PRBS31 mode holds them off, 49.2.12), its
        ``prbs31`` ``rx_enable`` high over ``run["enable"]``; returns what its ``rx_errors``
        moved by over ``run["window"]`` (summed, or its change for a running ``"total"``) and
        the clocks run."""
        a = self.a
        enable, errors = a.prbs31["rx_enable"], a.prbs31["rx_errors"]
        (on, off), (start, until) = run["enable"], run["window"]
        counted = 0
        before = None
        for clock, (header, data) in enumerate(run["units"]):
            enable.value = int(on <= clock < off)
            a.serdes_rx[0].value = data
            a.serdes_rx[1].value = header
            await RisingEdge(self.clock)
            if a.prbs31_errors == "per_clock":
                if start <= clock < until:
                    counted += _int(errors)
            elif clock + 1 == start:
                before = _int(errors)
            elif clock + 1 == until:
                counted = (_int(errors) - (before or 0)) % (1 << len(errors))
        enable.value = 0
        return counted, len(run["units"])

    async def run_tx_pattern(self, run):
        """A transmit test-pattern run (``tx-prbs31``): idles into the DUT's serdes input, its
        ``prbs31`` ``tx_enable`` high over ``run["enable"]``; returns its serdes output, a
        block a clock from the run's first, and the clocks run."""
        a = self.a
        enable = a.prbs31["tx_enable"]
        on, off = run["enable"]
        line = []
        for clock, (header, data) in enumerate(run["units"]):
            enable.value = int(on <= clock < off)
            a.serdes_rx[0].value = data
            a.serdes_rx[1].value = header
            await RisingEdge(self.clock)
            line.append((_int(a.serdes_tx[1]), _int(a.serdes_tx[0])))
        enable.value = 0
        return line, len(line)

    def _serdes_idle(self, idles, xgmii_in=()):
        """An idle block into the DUT's serdes input (its receiver stays locked), or idle
        into a MAC-only top's XGMII input (the next of ``xgmii_in`` while it lasts)."""
        a = self.a
        if a.serdes_rx is not None:
            header, payload = next(idles)
            a.serdes_rx[0].value = payload
            a.serdes_rx[1].value = header
        elif a.mac_only and a.rx_xgmii is not None:
            a.rx_xgmii[0].value, a.rx_xgmii[1].value = next(iter(xgmii_in), XGMII_IDLE)


def _receive_line(blocks):
    """A case's receive line as sent, then scrambled idle blocks from its scrambler state (the
    last block's payload >> 6: its last 58 bits), without end."""
    yield from blocks
    yield from _idle_line(blocks[-1][1] >> 6)


def _idle_line(state=None):
    """Scrambled idle blocks, without end."""
    while True:
        chunk, state = scramble([IDLE] * 256, state)
        yield from chunk


__all__ = ["Bench", "Observed"]
