"""XGMII source and sink for cocotb with the API of cocotbext-eth's ``XgmiiSource`` and
``XgmiiSink``, backed by the baser MAC model.

The source's transfers come from the engine's MAC transmit path (preamble, SFD, padding, FCS,
the IFG with the deficit idle count of IEEE 802.3 46.3.1.4, starts in lane 0 or 4); the
sink's frames from its MAC receiver (the frame classes of Clause 4: ok, fcs_error, runt,
too_long, error_character, ...; the link fault monitor). 32-bit interfaces carry a 64-bit
transfer over two clocks, lanes 0-3 first. One call into Rust per 64-bit transfer.

Differences from cocotbext-eth: docs/python.md.
"""

import array
import logging

import cocotb
from cocotb.queue import Queue
from cocotb.triggers import Event, RisingEdge
from cocotbext.eth.reset import Reset

from . import _baser
from ._queues import EV_END as _EV_END
from ._queues import EV_START as _EV_START
from ._queues import FrameSink, FrameSource
from .serdes import _value

try:  # cocotb 2
    from cocotb.simtime import get_sim_time
except ImportError:  # cocotb 1.9
    from cocotb.utils import get_sim_time

__all__ = ["XgmiiSource", "XgmiiSink"]

_IDLE_WORD = 0x0707070707070707


def _lanes(data, ctrl):
    width, lanes = len(data), len(ctrl)
    if lanes not in (4, 8) or width != 8 * lanes:
        raise ValueError(f"XGMII of {width} data and {lanes} control bits: expected 32/4 or 64/8")
    return lanes


def _kill(cr):
    if cocotb.__version__.startswith("1."):
        cr.kill()
    else:
        cr.cancel()


class XgmiiSource(Reset, FrameSource):
    """Drives ``data`` and ``ctrl`` (64/8 or 32/4 bits) with the transfers of the baser MAC
    model at each rising edge of ``clock`` (when ``enable`` is high, if given); held in reset
    while ``reset`` is at ``reset_active_level`` (a frame under way is abandoned, as
    cocotbext-eth does). ``ifg`` (octets, default 12), ``enable_dic`` and
    ``force_offset_start`` (64-bit: every start in lane 4) take effect between frames.

    Beyond cocotbext-eth (keyword only): ``profile``, ``dic_mode`` (``"reset-on-idle"``,
    cocotbext-eth's and the default; ``"strict"``: the count persists across idle).
    """

    def __init__(
        self,
        data,
        ctrl,
        clock,
        reset=None,
        enable=None,
        reset_active_level=True,
        *args,
        profile="ieee",
        dic_mode="reset-on-idle",
        **kwargs,
    ):
        self.log = logging.getLogger(f"cocotb.{data._path}")
        self.data = data
        self.ctrl = ctrl
        self.clock = clock
        self.reset = reset
        self.enable = enable
        self.profile = profile
        self.dic_mode = dic_mode

        self.log.info("XGMII source (baser %s MAC model, profile %s)", _baser.__version__, profile)

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

        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0

        self.queue_occupancy_limit_bytes = -1
        self.queue_occupancy_limit_frames = -1

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = _lanes(data, ctrl)
        self._parts = 8 // self.byte_lanes

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)

        self._model = None
        self._config = None
        self._queued = {}  # id -> frame given to the model, not started
        self._started = {}  # id -> frame started, not ended

        self.data.setimmediatevalue(0)
        self.ctrl.setimmediatevalue(0)

        self._run_cr = None
        self._init_reset(reset, reset_active_level)

    def set_seq_os(self, os=None):
        self.set_os(os, False)

    def set_sig_os(self, os=None):
        self.set_os(os, True)

    def set_os(self, os=None, sig=False):
        """Sends the ordered set ``os`` (24-bit value, first octet most significant; ``sig``:
        signal rather than sequence) in place of idle columns from the next transfer made
        on; ``None``: idles again."""
        self.os = os
        self.os_sig = bool(sig)
        self._ensure_model()
        self._model.set_ordered_set(os, bool(sig))

    # -- the model

    def _wanted(self):
        return (self.ifg, bool(self.enable_dic), bool(self.force_offset_start) and self._parts == 1)

    def _ensure_model(self, rebuild=False):
        """A model with the current settings (rebuilt when a setting changed and no frame is
        under way, or after a reset); frames waiting are handed to the new one in order."""
        wanted = self._wanted()
        if not rebuild and self._model is not None:
            if wanted == self._config or self._model.pending:
                return
        ifg, dic, lane4 = wanted
        if not 0 <= ifg <= 0xFFFF:
            raise ValueError(f"ifg {ifg}: expected 0..65535 octets")
        self._model = _baser.TxModel(
            profile=self.profile,
            ifg=ifg,
            dic=dic,
            dic_mode=self.dic_mode if dic else None,
            lane4_starts=lane4,
        )
        if self.os is not None:
            self._model.set_ordered_set(self.os, self.os_sig)
        self._config = wanted
        waiting, self._queued = self._queued, {}
        for frame in waiting.values():
            self._push(frame)

    def _handle_reset(self, state):
        if state:
            self.log.info("Reset asserted")
            if self._run_cr is not None:
                _kill(self._run_cr)
                self._run_cr = None
            self.active = False
            self.data.value = 0
            self.ctrl.value = 0
            for frame in self._started.values():
                self.log.warning("Flushed transmit frame during reset: %s", frame)
                frame.handle_tx_complete()
            self._started.clear()
            self.current_frame = None
            if self._model is not None:
                # the MAC starts over; frames not started yet wait for it
                self._ensure_model(rebuild=True)
            if not self._queued:
                self.idle_event.set()
        else:
            self.log.info("Reset de-asserted")
            if self._run_cr is None:
                self._run_cr = cocotb.start_soon(self._run())

    def _events(self, events, base, step):
        for kind, fid, lane in events:
            if kind == _EV_START:
                frame = self._start(fid, lane % self.byte_lanes)
                if frame is None:
                    continue
                frame.sim_time_start = base + step * lane
                self.log.info("TX frame: %s", frame)
                self._sfd_next.append((frame, lane))
            elif kind == _EV_END:
                self._end(fid, base + step * lane)
        self._settle()

    async def _run(self):
        self.active = False
        self._sfd_next = []
        edge = RisingEdge(self.clock)
        period = 0
        last = 0
        left = 0
        word = ctrl = 0
        while True:
            await edge

            now = get_sim_time()
            if last:
                period = now - last
            last = now

            if self.enable is not None and not _value(self.enable):
                continue

            if left:
                left = 0
                self.data.value = word >> 32
                self.ctrl.value = ctrl >> 4
                continue

            if self._model is None or (not self._started and not self._queued):
                self._ensure_model()
            word, ctrl, events = self._model.xgmii()
            step = period // self.byte_lanes
            if self._sfd_next:
                for frame, lane in self._sfd_next:
                    frame.sim_time_sfd = now + step * lane
                self._sfd_next = []
            if events:
                self._events(events, now, step)

            if self._parts == 1:
                self.data.value = word
                self.ctrl.value = ctrl
            else:
                left = 1
                self.data.value = word & 0xFFFFFFFF
                self.ctrl.value = ctrl & 0xF


class XgmiiSink(Reset, FrameSink):
    """Samples ``data`` and ``ctrl`` at each rising edge of ``clock`` (when ``enable`` is
    high, if given; not while ``reset`` is active) and receives frames with the baser MAC
    receiver. Received frames are cocotbext-eth ``XgmiiFrame``s compacted as cocotbext-eth
    does (preamble and SFD as data, FCS kept, no ``/T/``; a frame ended by another control
    character keeps ``/E/`` last), with ``start_lane``, ``sim_time_start``, ``sim_time_sfd``
    and ``sim_time_end``, and also ``baser_class``, ``fcs_ok`` and ``start_block`` (the
    64-bit transfer of its ``/S/``).

    Beyond cocotbext-eth (keyword only): ``profile``, ``max_frame_length`` (octets with FCS;
    default 16384). :attr:`status` is the receiver now (link fault, counts);
    :meth:`finish` ends reception and returns the summary.
    """

    def __init__(
        self,
        data,
        ctrl,
        clock,
        reset=None,
        enable=None,
        reset_active_level=True,
        *args,
        profile="ieee",
        max_frame_length=16384,
        **kwargs,
    ):
        self.log = logging.getLogger(f"cocotb.{data._path}")
        self.data = data
        self.ctrl = ctrl
        self.clock = clock
        self.reset = reset
        self.enable = enable

        self.log.info("XGMII sink (baser %s MAC model, profile %s)", _baser.__version__, profile)

        super().__init__(*args, **kwargs)

        self.active = False
        self.queue = Queue()
        self.active_event = Event()

        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = _lanes(data, ctrl)
        self._parts = 8 // self.byte_lanes

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)

        self._model = _baser.RxModel(input="xgmii", profile=profile, max_frame_length=max_frame_length)
        self._times = array.array("q")  # per 64-bit transfer: the time of its first clock
        self._step = 0
        self.summary = None
        self._os_sig = False

        self._run_cr = None
        self._init_reset(reset, reset_active_level)

    def finish(self):
        """Ends reception: the frames still in the model are queued, and the summary (the
        ``baser decode --json`` document) is returned and kept as ``self.summary``."""
        import json

        if self.summary is None:
            if self._run_cr is not None:
                _kill(self._run_cr)
                self._run_cr = None
            doc, frames = self._model.finish()
            self._queue_frames(frames)
            self.summary = json.loads(doc)
        return self.summary

    def _handle_reset(self, state):
        if state:
            self.log.info("Reset asserted")
            if self._run_cr is not None:
                _kill(self._run_cr)
                self._run_cr = None
            self.active = False
        else:
            self.log.info("Reset de-asserted")
            if self._run_cr is None and self.summary is None:
                self._run_cr = cocotb.start_soon(self._run())

    def _queue_frames(self, frames):
        step = self._step
        for data, cls, fcs_ok, block, lane, start_clock, data_clock, end_clock in frames or ():
            frame = self._frame(data, cls, fcs_ok, block)
            frame.start_lane = lane % self.byte_lanes
            frame.sim_time_start = self._time(start_clock, step * lane)
            frame.sim_time_sfd = self._time(data_clock, step * lane)
            frame.sim_time_end = self._time(end_clock, step * ((lane + len(data)) % 8))
            if frame.sim_time_end is None and self._times:
                frame.sim_time_end = self._times[-1]
            self._deliver(frame)

    async def _run(self):
        edge = RisingEdge(self.clock)
        model = self._model
        period = 0
        last = 0
        half = None  # (data, ctrl, time) of the first half of a 32-bit pair
        while True:
            await edge

            now = get_sim_time()
            if last:
                period = now - last
            last = now

            if self.enable is not None and not _value(self.enable):
                continue

            d = _value(self.data)
            c = _value(self.ctrl)
            if self._parts == 2:
                if half is None:
                    half = (d, c, now)
                    continue
                d = half[0] | d << 32
                c = half[1] | c << 4
                now = half[2]
                half = None
            self.active = not (d == _IDLE_WORD and c == 0xFF)
            self._times.append(now)
            self._step = period // self.byte_lanes
            frames = model.push_xgmii(d, c)
            if frames:
                self._queue_frames(frames)
