"""Drop-in cocotb models of a 10GBASE-R serdes interface, backed by the baser engine.

``BaseRSerdesSource`` and ``BaseRSerdesSink`` take the constructor arguments and offer the
methods and attributes of the ``tb/baser.py`` models of verilog-ethernet and taxi, so a test
bench that deletes its local ``baser.py`` runs against these. Per 66-bit block each makes one
call into the Rust model: the source takes the next block of the engine's TX chain (MAC with
IFG and deficit idle count, PCS encoder, scrambler), the sink pushes the 66 bits it sampled
into the engine's RX chain (block lock from any bit offset, descrambler, Clause 49 receive
state machine, BER monitor, MAC receiver). Frames are cocotbext-eth ``XgmiiFrame``s.

Interfaces 8, 16, 32 or 64 bits wide (a block over 8 / width clocks, the header with the
first), optional ``data_valid`` / ``hdr_valid``, and the taxi gearbox sequence
(``gbx_cfg=(length, stall cycles)``) are taken as the originals take them; frame times
(``sim_time_start``, ``sim_time_sfd``, ``sim_time_end``) are computed as theirs: the time of
the clock edge of the block plus ``period // byte_lanes`` per lane, less (source) or plus
(sink) the gearbox delay.

Differences from the originals: docs/python.md.
"""

import logging

import cocotb
from cocotb.triggers import RisingEdge

from . import _baser
from ._queues import FrameSink, FrameSource

try:  # cocotb 2
    from cocotb.simtime import get_sim_time
except ImportError:  # cocotb 1.9
    from cocotb.utils import get_sim_time

__all__ = ["BaseRSerdesSource", "BaseRSerdesSink"]



def _value(signal):
    """The signal's value as an int (0 while it holds X or Z)."""
    try:
        return int(signal.value)
    except ValueError:
        return 0


def _rev(value, width):
    """``value``'s low ``width`` bits in reverse order."""
    return int(f"{value & ((1 << width) - 1):0{width}b}"[::-1], 2)


_TAXI_ONLY = ("data_valid", "hdr_valid", "gbx_sync", "gbx_cfg", "gbx_req_sync", "gbx_req_stall")


def _frame_times(choice, given):
    """How frame times are stamped: ``"edge"`` (verilog-ethernet's tb/baser.py: the sim time
    of the clock edge of the block holding the /S/, the SFD, the /T/) or ``"lane"`` (taxi's:
    that edge plus ``period // byte_lanes`` per lane, the SFD time being the first octet after
    it). ``None``: taxi's when the bench uses taxi's signals (``data_valid``, ``hdr_valid``,
    a gearbox) or its test module or toplevel is taxi's, else verilog-ethernet's; the
    ``BASER_FRAME_TIMES`` environment variable overrides."""
    import os

    choice = os.environ.get("BASER_FRAME_TIMES") or choice
    if choice is None:
        names = " ".join(
            os.environ.get(k, "") for k in ("COCOTB_TEST_MODULES", "MODULE", "COCOTB_TOPLEVEL", "TOPLEVEL")
        )
        choice = "lane" if any(v is not None for v in given) or "taxi" in names else "edge"
    if choice not in ("edge", "lane"):
        raise ValueError(f"frame_times={choice!r}: expected 'edge' (verilog-ethernet) or 'lane' (taxi)")
    return choice


def _pick(name, given, alias, alias_name):
    """The signal given as ``name`` or under its other name (``hdr`` / ``header``)."""
    if given is not None and alias is not None:
        raise TypeError(f"give {name} or {alias_name}, not both")
    value = given if given is not None else alias
    if value is None:
        raise TypeError(f"missing the {name} signal")
    return value


class _Gearbox:
    """The taxi models' gearbox sequence: ``length`` clocks of which the ``stall`` ones carry
    no block (a GT's 64b/66b gearbox), with the delay the buffered bits add to frame times."""

    def __init__(self, log, length, stall, source):
        stall = sorted(set(stall))
        for x in stall:
            if not 0 <= x < length:
                raise ValueError(f"gearbox stall cycle {x}: expected 0..{length - 1}")
        blocks = length - len(stall)
        if (66 * blocks) % length:
            raise ValueError(f"gearbox of {length} clocks with {len(stall)} stalls: not a whole ratio")
        self.length = length
        self.stall = set(stall)
        self.seq = 0
        self.seq_gen = 0
        self.bits = 66 * blocks // length  # per clock on the narrow side
        self.count = 0
        self.source = source
        log.info("  Gearbox: %d clocks, stalls at %s (%d:66)", length, stall, self.bits)
        # The steady-state fill of the buffer, as the originals start it.
        for k in range(length):
            if source:
                self.count += self.bits
                if k in self.stall:
                    continue
                self.count = max(self.count - 66, 0)
            else:
                self.count = max(self.count - self.bits, 0)
                if k in self.stall:
                    continue
                self.count += 66


class _OriginalsAttributes:
    """Attributes benches read off the originals: the gearbox sequence (``None`` without a
    gearbox) and the replication count."""

    @property
    def gbx_seq_len(self):
        return self._gbx.length if self._gbx else None

    @property
    def gbx_seq_stall(self):
        return set(self._gbx.stall) if self._gbx else None

    @property
    def xgmii_rep_count(self):
        return self.get_xgmii_rep_count()

    @xgmii_rep_count.setter
    def xgmii_rep_count(self, rep):
        self.set_xgmii_rep_count(rep)


class BaseRSerdesSource(_OriginalsAttributes, FrameSource):
    """Drives ``data`` and ``hdr`` (2 bits) with one 66-bit block per rising edge of
    ``clock`` (when ``enable`` is high, if given), or over ``8 // byte_lanes`` edges for a
    narrower ``data`` (the header with the first part, ``hdr_valid`` high then). ``slip``:
    while high, the stream moves one bit per block (as ``bit_offset += 1``).
    ``scramble=False`` sends the encoder's blocks unscrambled; ``reverse`` bit-reverses data
    and header. ``data_valid``, ``hdr_valid``, ``gbx_sync`` and ``gbx_cfg`` are taxi's.
    ``header=`` is accepted for ``hdr`` (verilog-ethernet's name).

    Beyond the originals (keyword only): ``profile`` (``"ieee"``, ``"verilog-ethernet"``),
    ``dic_mode`` (``"reset-on-idle"``, the originals' and the default; ``"strict"``;
    ``None``: the profile's), ``seed`` (scrambler state before the first block), ``inject``
    (faults on the line from the first block, in ``baser encode --inject`` syntax: a string
    or a list of them). :meth:`inject` adds one while the source runs. ``rate`` (``"10g"``,
    ``"25g"``), ``fec`` (``"none"``, ``"fc"``: Clause 74, ``"rs"``: Clause 108, 25G only) and
    ``rs_marker_period``: with a FEC each 66-bit clock carries 66 bits of the FEC's line (no
    block boundary; the RS-FEC marker's room is made by holding the PCS source), faults are
    bit faults (``symbols:CODEWORD:N`` too), and :attr:`fec` says what the FEC did.
    """

    def __init__(
        self,
        data,
        hdr=None,
        clock=None,
        enable=None,
        slip=None,
        data_valid=None,
        hdr_valid=None,
        gbx_sync=None,
        scramble=True,
        reverse=False,
        gbx_cfg=None,
        *args,
        header=None,
        profile="ieee",
        dic_mode="reset-on-idle",
        seed=None,
        inject=None,
        frame_times=None,
        rate="10g",
        fec="none",
        rs_marker_period=1024,
        **kwargs,
    ):
        self.log = logging.getLogger(f"cocotb.{data._path}")
        self.data = data
        self.hdr = _pick("hdr", hdr, header, "header")
        self.frame_times = _frame_times(frame_times, (data_valid, hdr_valid, gbx_sync, gbx_cfg))
        self.header = self.hdr
        if clock is None:
            raise TypeError("missing the clock signal")
        self.clock = clock
        self.enable = enable
        self.slip = slip
        self.data_valid = data_valid
        self.hdr_valid = hdr_valid
        self.gbx_sync = gbx_sync
        self.scramble = scramble
        self.reverse = reverse

        self.log.info("BASE-R serdes source (baser %s model, profile %s)", _baser.__version__, profile)

        super().__init__(*args, **kwargs)

        self.bit_offset = 0

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = self.width // self.byte_size
        if self.byte_lanes not in (1, 2, 4, 8) or self.width != self.byte_lanes * 8:
            raise ValueError(f"data is {self.width} bits wide: expected 8, 16, 32 or 64")
        self._parts = 8 // self.byte_lanes
        self._mask = (1 << self.width) - 1
        self._lane_mod = 8

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)
        self.log.info("  Enable scrambler: %s", self.scramble)
        self.log.info("  Bit reverse: %s", self.reverse)

        self._gbx = None
        if gbx_cfg:
            self.set_gbx_cfg(*gbx_cfg)

        self._source_init(
            profile,
            dic_mode,
            seed=seed,
            scrambled=scramble,
            reverse=self.reverse and self._parts == 1,
            inject=inject,
            line={"rate": rate, "fec": fec, "rs_marker_period": rs_marker_period},
        )

        self.data.setimmediatevalue(0)
        self.hdr.setimmediatevalue(0)
        for s in (self.data_valid, self.hdr_valid, self.gbx_sync):
            if s is not None:
                s.setimmediatevalue(0)

        self._run_cr = cocotb.start_soon(self._run())

    # -- the originals' API

    def set_gbx_cfg(self, seq_len=None, seq_stall=None):
        """The gearbox sequence: ``seq_len`` clocks, of which ``seq_stall`` carry no block
        (``None``: no gearbox)."""
        if seq_len is None:
            self._gbx = None
            return
        self._gbx = _Gearbox(self.log, seq_len, seq_stall or (), source=True)

    @property
    def gbx_seq(self):
        return self._gbx.seq if self._gbx else 0

    def set_xgmii_rep_count(self, rep=0):
        """USXGMII rate replication: each 4-octet column of the MAC's transfers is sent
        ``rep + 1`` times (9 for 1 Gb/s, 99 for 100 Mb/s), as taxi's model does (the engine's
        ``UsxgmiiTx``: the gap counted in the MAC's columns, ``sim_time_sfd`` after the SFD
        column's copies); taken between frames. 0: off."""
        rep = int(rep)
        if rep < 0:
            raise ValueError(f"xgmii_rep_count {rep}: expected 0 or more")
        self._rep = rep
        self._configure()

    def get_xgmii_rep_count(self):
        return self._rep

    # -- beyond the originals

    def inject(self, spec):
        """Adds a fault on the line, in ``baser encode --inject`` syntax (``flip:BIT``,
        ``burst:BIT:LEN``, ``ber:RATE[:SEED]``, ``header:BLOCK``, ``slip:BIT:+N|-N``,
        ``drop:BLOCK``, ``dup:BLOCK``), its positions counted from the next block sent
        (``"header:0"``: the next block gets an invalid sync header). Raises ``ValueError``
        with the syntax on a bad spec."""
        self._model.inject(spec)

    @property
    def flipped(self):
        """Line bits the injected faults flipped so far (positions from the first block
        through the fault channel)."""
        return self._model.flipped

    @property
    def fec(self):
        """What the FEC below the PCS did so far (``fec=``): a dict of ``kind``,
        ``codewords``, ``blocks`` (PCS blocks taken) and ``held`` (block times the PCS was
        held for the RS-FEC markers); ``None`` without a FEC."""
        return self._model.fec

    def clear(self):
        if self.os is not None:  # as taxi's: clearing also ends the ordered sets
            self.set_os(None)
        super().clear()

    def _drive(self, data, hdr, first):
        self.data.value = data
        if self.data_valid is not None:
            self.data_valid.value = 1
        self.hdr.value = hdr
        if self.hdr_valid is not None:
            self.hdr_valid.value = 1 if first else 0

    async def _run(self):
        self.active = False
        edge = RisingEdge(self.clock)
        period = 0
        last = 0
        left = 0  # parts of the current block still to drive
        block = 0
        while True:
            await edge

            now = get_sim_time()
            if last:
                period = now - last
            last = now

            if self.enable is not None and not self.enable.value:
                continue

            delay = 0
            gbx = self._gbx
            if gbx is not None:
                gbx.seq = (gbx.seq + 1) % gbx.length
                if self.gbx_sync is not None:
                    self.gbx_sync.value = 1 if gbx.seq == 0 else 0
                gbx.count += gbx.bits
                if gbx.seq in gbx.stall:
                    self.data.value = 0
                    self.hdr.value = 0
                    if self.data_valid is not None:
                        self.data_valid.value = 0
                    if self.hdr_valid is not None:
                        self.hdr_valid.value = 0
                    continue
                gbx.count = max(gbx.count - 66, 0)
                delay = (gbx.count * period) // gbx.bits
            elif self.gbx_sync is not None:
                self.gbx_sync.value = 0

            if left:
                # The next part of a block wider than the interface.
                part = self._parts - left
                left -= 1
                out = (block >> (self.width * part)) & self._mask
                if self.reverse:
                    out = _rev(out, self.width)
                self._drive(out, 0, False)
                continue

            self._configure()
            model = self._model

            if self.slip is not None and self.slip.value:
                self.bit_offset += 1
            self.bit_offset = max(0, self.bit_offset) % 66
            if model.bit_offset != self.bit_offset:
                model.bit_offset = self.bit_offset

            header, data, events = model.next()
            if events:
                self._events(events, now - delay, period // self.byte_lanes)

            if self._parts == 1:
                self._drive(data, header, True)
            else:
                block = data
                left = self._parts - 1
                out = data & self._mask
                if self.reverse:
                    out = _rev(out, self.width)
                    header = _rev(header, 2)
                self._drive(out, header, True)


class BaseRSerdesSink(_OriginalsAttributes, FrameSink):
    """Samples ``data`` and ``hdr`` at each rising edge of ``clock`` (when ``enable`` is
    high, if given; a clock with ``data_valid`` low or a gearbox stall carries nothing) and
    receives frames with the baser RX chain: block lock from any bit offset (in the offline
    view, the default, the bits before lock are held and decoded once the boundary is found,
    so no frame is lost to lock), descrambler, Clause 49 receive state machine, BER monitor,
    MAC. A ``data`` narrower than
    64 bits is gathered over ``8 // byte_lanes`` clocks (a new block where ``hdr_valid`` is
    high, if given). With ``scramble=False`` the blocks are taken at their boundaries,
    unscrambled. ``header=`` is accepted for ``hdr``.

    Beyond the originals (keyword only): ``profile``, ``max_frame_length`` (octets with FCS;
    default 16384: jumbo frames are received as ok), ``view`` (``"offline"``, the default,
    or ``"receiver"``: frames sent before block lock are lost, as on a link; the
    ``RxModel``'s option), ``rate``, ``fec`` and ``rs_marker_period`` (as the source's: the
    FEC finds its lock from any bit offset, then the PCS decodes its blocks; the BER monitor
    follows the rate; :attr:`fec` and the summary's ``fec`` say what it corrected),
    ``ber_timer`` (the BER monitor's timer where the bench shortens the RTL's, e.g.
    ``"100blocks"``; default the standard's). Each
    received frame also carries
    ``baser_class`` (``"ok"``, ``"fcs_error"``, ``"runt"``, ...), ``fcs_ok`` and
    ``start_block``; :meth:`finish` gives the PCS summary, :attr:`status` the receiver now.
    """

    def __init__(
        self,
        data,
        hdr=None,
        clock=None,
        enable=None,
        data_valid=None,
        hdr_valid=None,
        gbx_req_sync=None,
        gbx_req_stall=None,
        gbx_sync=None,
        scramble=True,
        reverse=False,
        gbx_cfg=None,
        *args,
        header=None,
        profile="ieee",
        max_frame_length=16384,
        frame_times=None,
        view="offline",
        rate="10g",
        fec="none",
        rs_marker_period=1024,
        ber_timer=None,
        **kwargs,
    ):
        self.log = logging.getLogger(f"cocotb.{data._path}")
        self.data = data
        self.hdr = _pick("hdr", hdr, header, "header")
        self.frame_times = _frame_times(
            frame_times, (data_valid, hdr_valid, gbx_req_sync, gbx_req_stall, gbx_sync, gbx_cfg)
        )
        self.header = self.hdr
        if clock is None:
            raise TypeError("missing the clock signal")
        self.clock = clock
        self.enable = enable
        self.data_valid = data_valid
        self.hdr_valid = hdr_valid
        self.gbx_req_sync = gbx_req_sync
        self.gbx_req_stall = gbx_req_stall
        self.gbx_sync = gbx_sync
        self.scramble = scramble
        self.reverse = reverse

        self.log.info("BASE-R serdes sink (baser %s model, profile %s)", _baser.__version__, profile)

        super().__init__(*args, **kwargs)

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = self.width // self.byte_size
        if self.byte_lanes not in (1, 2, 4, 8) or self.width != self.byte_lanes * 8:
            raise ValueError(f"data is {self.width} bits wide: expected 8, 16, 32 or 64")
        self._parts = 8 // self.byte_lanes
        self._lane_mod = 8

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)
        self.log.info("  Enable scrambler: %s", self.scramble)
        self.log.info("  Bit reverse: %s", self.reverse)

        self._gbx = None
        if gbx_cfg:
            self.set_gbx_cfg(*gbx_cfg)
        for s in (self.gbx_req_sync, self.gbx_req_stall):
            if s is not None:
                s.setimmediatevalue(0)

        self._sink_init(
            _baser.RxModel(
                input="units" if scramble else "blocks",
                profile=profile,
                max_frame_length=max_frame_length,
                scrambled=scramble,
                view=view,
                rate=rate,
                fec=fec,
                rs_marker_period=rs_marker_period,
                ber_timer=ber_timer,
            )
        )

        self._run_cr = cocotb.start_soon(self._run())

    def set_gbx_cfg(self, seq_len=None, seq_stall=None):
        """The gearbox sequence: ``seq_len`` clocks, of which ``seq_stall`` carry no block
        (``None``: no gearbox)."""
        if seq_len is None:
            self._gbx = None
            return
        self._gbx = _Gearbox(self.log, seq_len, seq_stall or (), source=False)

    def set_xgmii_rep_count(self, rep=0):
        """USXGMII rate replication: each 4-octet column the MAC sent arrives ``rep + 1`` times
        (9 for 1 Gb/s, 99 for 100 Mb/s). The decoded transfers keep one column of each run,
        re-synchronised on a ``/S/`` as the originals do, and go to a MAC receiver of their
        own (the engine's ``UsxgmiiRx``); frame times are those of the blocks that carried the
        kept columns. 0: off."""
        rep = int(rep)
        if rep < 0:
            raise ValueError(f"xgmii_rep_count {rep}: expected 0 or more")
        self._model.replication = rep

    def get_xgmii_rep_count(self):
        return self._model.replication

    def _stop(self):
        if cocotb.__version__.startswith("1."):
            self._run_cr.kill()
        else:
            self._run_cr.cancel()

    async def _run(self):
        edge = RisingEdge(self.clock)
        model = self._model
        parts = self._parts
        width = self.width
        period = 0
        last = 0
        got = 0  # parts of the current block gathered
        data = 0
        header = 0
        while True:
            await edge

            now = get_sim_time()
            if last:
                period = now - last
            last = now

            if self.enable is not None and not self.enable.value:
                continue

            delay = 0
            gbx = self._gbx
            if gbx is not None:
                gbx.seq_gen = (gbx.seq_gen + 1) % gbx.length
                if self.gbx_req_sync is not None:
                    self.gbx_req_sync.value = 1 if gbx.seq_gen == 0 else 0
                if self.gbx_req_stall is not None:
                    self.gbx_req_stall.value = 1 if gbx.seq_gen in gbx.stall else 0
                gbx.seq = (gbx.seq + 1) % gbx.length
                if self.gbx_sync is not None and _value(self.gbx_sync):
                    gbx.seq = 0
                gbx.count = max(gbx.count - gbx.bits, 0)
                if gbx.seq in gbx.stall:
                    continue
                gbx.count += 66
                delay = (gbx.count * period) // gbx.bits
            elif self.gbx_sync is not None:
                self.gbx_sync.value = 1

            if self.data_valid is not None and not _value(self.data_valid):
                continue

            d = _value(self.data)
            h = _value(self.hdr)
            if self.reverse:
                d = _rev(d, width)
                h = _rev(h, 2)

            if parts > 1:
                if self.hdr_valid is not None and _value(self.hdr_valid):
                    data, header, got = d, h, 1
                    continue
                if got == 0:
                    data, header = d, h
                else:
                    data |= d << (width * got)
                got += 1
                if got < parts:
                    continue
                got = 0
                d, h = data, header

            self._times.append(now + delay)
            self._step = period // self.byte_lanes
            frames = model.push(h, d)
            if frames:
                self._queue_frames(frames)
