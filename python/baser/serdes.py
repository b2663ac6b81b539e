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

import array
import collections
import logging

import cocotb
from cocotb.queue import Queue
from cocotb.triggers import Event, RisingEdge

from . import _baser
from ._queues import EV_END as _EV_END
from ._queues import EV_SFD as _EV_SFD
from ._queues import EV_START as _EV_START
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


class BaseRSerdesSource(FrameSource):
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
    or a list of them). :meth:`inject` adds one while the source runs.
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
        self.profile = profile
        self.dic_mode = dic_mode

        self.log.info("BASE-R serdes source (baser %s model, profile %s)", _baser.__version__, profile)

        super().__init__(*args, **kwargs)

        self.active = False
        self.queue = Queue()  # kept for benches that look at it; frames wait in _queued
        self.dequeue_event = Event()
        self.current_frame = None
        self.idle_event = Event()
        self.idle_event.set()

        self.enable_dic = True
        self.ifg = 12
        self.force_offset_start = False
        self.os = None
        self.os_sig = False
        self._rep = 0
        self._cols = collections.deque()  # (data, ctrl, events) columns to send (replication)
        self._col = 0  # MAC columns taken so far
        self._col_events = {}  # MAC column -> events that fall in it

        self.bit_offset = 0

        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0

        self.queue_occupancy_limit_bytes = -1
        self.queue_occupancy_limit_frames = -1

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = self.width // self.byte_size
        if self.byte_lanes not in (1, 2, 4, 8) or self.width != self.byte_lanes * 8:
            raise ValueError(f"data is {self.width} bits wide: expected 8, 16, 32 or 64")
        self._parts = 8 // self.byte_lanes
        self._mask = (1 << self.width) - 1

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)
        self.log.info("  Enable scrambler: %s", self.scramble)
        self.log.info("  Bit reverse: %s", self.reverse)

        self._gbx = None
        if gbx_cfg:
            self.set_gbx_cfg(*gbx_cfg)

        self._seed = seed
        self._model = None
        self._config = None
        self._queued = {}  # id -> frame given to the model, not started
        self._started = {}  # id -> frame started, not ended
        if inject:
            self._ensure_model()
            for spec in [inject] if isinstance(inject, str) else inject:
                self._model.inject(spec)

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
        ``rep + 1`` times (9 for 1 Gb/s, 99 for 100 Mb/s), as the originals do; the columns
        then go through the PCS. 0: off."""
        rep = int(rep)
        if rep < 0:
            raise ValueError(f"xgmii_rep_count {rep}: expected 0 or more")
        self._rep = rep

    def get_xgmii_rep_count(self):
        return self._rep

    def _rep_block(self, model):
        """The next block with replication: the MAC's columns, each ``rep + 1`` times, two a
        block; each column's events ride on its first copy (lanes then count in the block)."""
        cols = self._cols
        while len(cols) < 2:
            wd, wc, ev = model.xgmii()
            per = ([], [])
            for kind, fid, lane in ev or ():
                if kind == _EV_SFD:
                    continue  # timed from the /S/ below
                per[lane // 4].append((kind, fid, lane % 4))
                if kind == _EV_START:
                    # the SFD octet is 7 on, in the next column
                    # taxi's time for it: the octet after the SFD's first copy, i.e. 4 lanes
                    # after the start of that copy's column (the column's copy comes next)
                    c = self._col + lane // 4
                    at, ln = (c + 1, 4) if self.frame_times == "lane" else (c + 1, 3)
                    self._col_events.setdefault(at, []).append((_EV_SFD, fid, ln))
            for half, (d, c) in enumerate(((wd & 0xFFFFFFFF, wc & 0xF), (wd >> 32, wc >> 4))):
                evs = per[half] + self._col_events.pop(self._col, [])
                self._col += 1
                # The copies, as the originals make them: a /S/ becomes data 0xaa (only the
                # first copy starts the frame), a column with a /T/ becomes idles (the frame
                # has ended).
                copy = (d, c)
                for lane in range(4):
                    o, is_c = (d >> (8 * lane)) & 0xFF, (c >> lane) & 1
                    if is_c and o == 0xFB:
                        copy = ((d & ~(0xFF << (8 * lane))) | (0xAA << (8 * lane)), c & ~(1 << lane))
                    elif is_c and o == 0xFD:
                        copy = (0x07070707, 0xF)
                        break
                cols.append((d, c, evs))
                for _ in range(self._rep):
                    cols.append((copy[0], copy[1], ()))
        (d0, c0, e0), (d1, c1, e1) = cols.popleft(), cols.popleft()
        header, data = model.encode_xgmii(d0 | d1 << 32, c0 | c1 << 4)
        events = list(e0) + [(k, f, ln + 4) for k, f, ln in e1]
        return header, data, events or None

    def set_seq_os(self, os=None):
        self.set_os(os, False)

    def set_sig_os(self, os=None):
        self.set_os(os, True)

    def set_os(self, os=None, sig=False):
        """Sends the ordered set ``os`` (its three octets as a 24-bit value, the first most
        significant; ``sig``: signal rather than sequence) in place of idle columns from the
        next block made on; ``None``: idles again. (A transfer holding a ``/T/`` keeps its
        idles: no block holds a ``/T/`` and an ordered set.)"""
        self.os = os
        self.os_sig = bool(sig)
        self._ensure_model()
        self._model.set_ordered_set(os, bool(sig))

    # -- beyond the originals

    def inject(self, spec):
        """Adds a fault on the line, in ``baser encode --inject`` syntax (``flip:BIT``,
        ``burst:BIT:LEN``, ``ber:RATE[:SEED]``, ``header:BLOCK``, ``slip:BIT:+N|-N``,
        ``drop:BLOCK``, ``dup:BLOCK``), its positions counted from the next block sent
        (``"header:0"``: the next block gets an invalid sync header). Raises ``ValueError``
        with the syntax on a bad spec."""
        self._ensure_model()
        self._model.inject(spec)

    @property
    def flipped(self):
        """Line bits the injected faults flipped so far (positions from the first block
        through the fault channel)."""
        return self._model.flipped if self._model is not None else []

    def clear(self):
        if self.os is not None:  # as taxi's: clearing also ends the ordered sets
            self.set_os(None)
        super().clear()

    # -- the model

    def _wanted(self):
        return (
            self.ifg,
            bool(self.enable_dic),
            bool(self.force_offset_start),
            self.reverse and self._parts == 1,
            self.scramble,
        )

    def _ensure_model(self):
        """A model with the current settings; a change of ``ifg``, ``enable_dic`` or
        ``force_offset_start`` takes effect when no frame is under way (the scrambler state
        carries over)."""
        wanted = self._wanted()
        if self._model is not None and (wanted == self._config or self._model.pending):
            return
        seed = self._seed if self._model is None else self._model.scrambler_state
        ifg, dic, lane4, reverse, scramble = wanted
        if not 0 <= ifg <= 0xFFFF:
            raise ValueError(f"ifg {ifg}: expected 0..65535 octets")
        model = _baser.TxModel(
            profile=self.profile,
            ifg=ifg,
            dic=dic,
            dic_mode=self.dic_mode if dic else None,
            seed=seed,
            scrambled=scramble,
            reverse=reverse,
            lane4_starts=lane4,
        )
        if self._model is not None:
            model.bit_offset = self._model.bit_offset
            model.take_faults(self._model)
        if getattr(self, "os", None) is not None:
            model.set_ordered_set(self.os, self.os_sig)
        self._model, self._config = model, wanted

    def _drive(self, data, hdr, first):
        self.data.value = data
        if self.data_valid is not None:
            self.data_valid.value = 1
        self.hdr.value = hdr
        if self.hdr_valid is not None:
            self.hdr_valid.value = 1 if first else 0

    def _events(self, events, base, step):
        def at(lane):  # the time of a lane of this block, in the bench's convention
            return base + (step * lane if self.frame_times == "lane" else 0)

        for kind, fid, lane in events:
            if kind == _EV_START:
                frame = self._start(fid, lane)
                if frame is None:
                    continue
                frame.sim_time_start = at(lane)
                if self._rep:
                    pass  # the SFD's time rides on its column (_rep_block)
                elif self.frame_times == "lane":
                    # the octet after the SFD is 8 on: next block, same lane
                    self._sfd_next.append((frame, lane))
                elif lane == 0:  # the SFD is in the /S/ block (lane 7)
                    frame.sim_time_sfd = base
                else:  # in the next block (lane 3)
                    self._sfd_next.append((frame, 0))
                self.log.info("TX frame: %s", frame)
            elif kind == _EV_SFD and self._rep:
                frame = self._started.get(fid) or self._queued.get(fid)
                if frame is not None:
                    frame.sim_time_sfd = at(lane)
            elif kind == _EV_END:
                self._end(fid, at(lane))
        self._settle()

    async def _run(self):
        self.active = False
        self._sfd_next = []
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

            if self._model is None or (not self._started and not self._queued):
                self._ensure_model()
            model = self._model

            if self.slip is not None and self.slip.value:
                self.bit_offset += 1
            self.bit_offset = max(0, self.bit_offset) % 66
            if model.bit_offset != self.bit_offset:
                model.bit_offset = self.bit_offset

            if self._rep:
                header, data, events = self._rep_block(model)
            else:
                header, data, events = model.next()
            base = now - delay
            step = period // self.byte_lanes
            if self._sfd_next:
                for frame, lane in self._sfd_next:
                    frame.sim_time_sfd = base + step * lane
                self._sfd_next = []
            if events:
                self._events(events, base, step)

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


class BaseRSerdesSink(FrameSink):
    """Samples ``data`` and ``hdr`` at each rising edge of ``clock`` (when ``enable`` is
    high, if given; a clock with ``data_valid`` low or a gearbox stall carries nothing) and
    receives frames with the baser RX chain: block lock from any bit offset (the bits before
    lock are held and decoded once the boundary is found, so no frame is lost to lock),
    descrambler, Clause 49 receive state machine, BER monitor, MAC. A ``data`` narrower than
    64 bits is gathered over ``8 // byte_lanes`` clocks (a new block where ``hdr_valid`` is
    high, if given). With ``scramble=False`` the blocks are taken at their boundaries,
    unscrambled. ``header=`` is accepted for ``hdr``.

    Beyond the originals (keyword only): ``profile``, ``max_frame_length`` (octets with FCS;
    default 16384: jumbo frames are received as ok). Each received frame also carries
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

        self.active = False
        self.queue = Queue()
        self.active_event = Event()

        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = self.width // self.byte_size
        if self.byte_lanes not in (1, 2, 4, 8) or self.width != self.byte_lanes * 8:
            raise ValueError(f"data is {self.width} bits wide: expected 8, 16, 32 or 64")
        self._parts = 8 // self.byte_lanes

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)
        self.log.info("  Enable scrambler: %s", self.scramble)
        self.log.info("  Bit reverse: %s", self.reverse)

        self._gbx = None
        if gbx_cfg:
            self.set_gbx_cfg(*gbx_cfg)
        for s in (self.gbx_req_sync, self.gbx_req_stall):
            if s is not None:
                s.setimmediatevalue(0)

        self._model = _baser.RxModel(
            input="units" if scramble else "blocks",
            profile=profile,
            max_frame_length=max_frame_length,
            scrambled=scramble,
        )
        self._profile = profile
        self._max_len = max_frame_length
        self._os_sig = False
        self._rep = 0
        self._mac = None  # the MAC receiver of de-replicated transfers (USXGMII)
        self._times = array.array("q")  # per block pushed: its time (edge + gearbox delay)
        self._step = 0  # period // byte_lanes at the last block
        self.summary = None

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
        own; frame times are those of the blocks that carried the kept columns. 0: off."""
        rep = int(rep)
        if rep < 0:
            raise ValueError(f"xgmii_rep_count {rep}: expected 0 or more")
        self._rep = rep
        if rep and self._mac is None:
            self._model.keep_words()
            self._mac = _baser.RxModel(input="xgmii", profile=self._profile, max_frame_length=self._max_len)
            self._lanes = []  # kept (octet, is control) not yet a whole transfer
            self._origin = array.array("q")  # per lane given to the MAC: clock * 8 + lane
            self._skip = 0

    def get_xgmii_rep_count(self):
        return self._rep

    def _derep(self):
        """The decoded transfers since the last clock, de-replicated, to the MAC receiver."""
        for clock, data, ctrl in self._model.take_words():
            for k in range(8):
                d = (data >> (8 * k)) & 0xFF
                c = (ctrl >> k) & 1
                if c and d == 0xFB:  # /S/: the runs start again here
                    self._skip = 0
                if self._skip:
                    if k in (3, 7):
                        self._skip -= 1
                    continue
                if k in (3, 7):
                    self._skip = self._rep
                self._lanes.append((d, c))
                self._origin.append(clock * 8 + k)
                if len(self._lanes) == 8:
                    wd = sum(o << (8 * i) for i, (o, _) in enumerate(self._lanes))
                    wc = sum(b << i for i, (_, b) in enumerate(self._lanes))
                    self._lanes = []
                    frames = self._mac.push_xgmii(wd, wc)
                    if frames:
                        self._queue_frames(frames, replicated=True)

    def _rep_time(self, position):
        """The time of MAC lane ``position`` (transfer * 8 + lane): the block that carried it,
        plus its lane's share in taxi's convention."""
        if not 0 <= position < len(self._origin):
            return None
        clock, lane = divmod(self._origin[position], 8)
        return self._time(clock, self._step * lane if self.frame_times == "lane" else 0)

    def get_os_match(self):
        """The same ordered set came more than twice in a row."""
        return self._model.ordered_set_runs[0] > 2

    def get_idle_match(self):
        """More than two all-control transfers in a row since the last ordered set."""
        return self._model.ordered_set_runs[1] > 2

    def finish(self):
        """Ends reception: the frames the last blocks complete are queued, and the PCS summary
        is returned (the ``baser decode --json`` document: ``pcs`` has block lock, lock losses,
        hi_ber, invalid headers, errored blocks with the rule that fired, link fault;
        ``frames`` the counts by class). Also kept as ``self.summary``."""
        import json

        if self.summary is None:
            if cocotb.__version__.startswith("1."):
                self._run_cr.kill()
            else:
                self._run_cr.cancel()
            doc, frames = self._model.finish()
            if self._mac is not None:
                self._derep()
                _, frames = self._mac.finish()
                self._queue_frames(frames, replicated=True)
            else:
                self._queue_frames(frames)
            self.summary = json.loads(doc)
        return self.summary

    def _queue_frames(self, frames, replicated=False):
        step = self._step
        for data, cls, fcs_ok, block, lane, start_clock, data_clock, end_clock in frames or ():
            frame = self._frame(data, cls, fcs_ok, block)
            frame.start_lane = lane
            if replicated:
                # De-replicated (USXGMII): each MAC lane's time is that of the block that
                # carried it, and the start lane is the /S/'s lane on the line; clocks are
                # transfers of the MAC receiver here.
                s = block * 8 + lane
                if 0 <= s < len(self._origin):
                    frame.start_lane = self._origin[s] % 8
                frame.sim_time_start = self._rep_time(s)
                frame.sim_time_sfd = self._rep_time(s + (8 if self.frame_times == "lane" else 7))
                frame.sim_time_end = self._rep_time(s + 8 + len(data))
            elif self.frame_times == "lane":
                frame.sim_time_start = self._time(start_clock, step * lane)
                frame.sim_time_sfd = self._time(data_clock, step * lane)
                frame.sim_time_end = self._time(end_clock, step * ((lane + len(data)) % 8))
            else:  # the edges of the blocks holding the /S/, the SFD and the /T/
                frame.sim_time_start = self._time(start_clock, 0)
                frame.sim_time_sfd = self._time(start_clock if lane == 0 else data_clock, 0)
                frame.sim_time_end = self._time(end_clock, 0)
            if frame.sim_time_end is None and self._times:
                frame.sim_time_end = self._times[-1]
            self._deliver(frame)

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
            if self._mac is not None:
                self._derep()  # the MAC frames come from the de-replicated transfers
            elif frames:
                self._queue_frames(frames)
