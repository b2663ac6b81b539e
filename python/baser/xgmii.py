"""XGMII source and sink for cocotb with the API of cocotbext-eth's ``XgmiiSource`` and
``XgmiiSink``, backed by the baser MAC model.

The source's transfers come from the engine's MAC transmit path (preamble, SFD, padding, FCS,
the IFG with the deficit idle count of IEEE 802.3 46.3.1.4, starts in lane 0 or 4); the
sink's frames from its MAC receiver (the frame classes of Clause 4: ok, fcs_error, runt,
too_long, error_character, ...; the link fault monitor). 32-bit interfaces carry a 64-bit
transfer over two clocks, lanes 0-3 first. One call into Rust per 64-bit transfer.

Differences from cocotbext-eth: docs/python.md.
"""

import logging

import cocotb
from cocotb.triggers import RisingEdge
from cocotbext.eth.reset import Reset

from . import _baser
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

        self.log.info("XGMII source (baser %s MAC model, profile %s)", _baser.__version__, profile)

        super().__init__(*args, **kwargs)

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = _lanes(data, ctrl)
        self._parts = 8 // self.byte_lanes
        self._lane4_starts = self._parts == 1
        self._lane_mod = self.byte_lanes
        self.frame_times = "lane"

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)

        self._source_init(profile, dic_mode)

        self.data.setimmediatevalue(0)
        self.ctrl.setimmediatevalue(0)

        self._run_cr = None
        self._init_reset(reset, reset_active_level)

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
            # the MAC starts over; frames not started yet wait for it
            self._model.restart()
            if not self._queued:
                self.idle_event.set()
        else:
            self.log.info("Reset de-asserted")
            if self._run_cr is None:
                self._run_cr = cocotb.start_soon(self._run())

    async def _run(self):
        self.active = False
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

            self._configure()
            word, ctrl, events = self._model.xgmii()
            if events:
                self._events(events, now, period // self.byte_lanes)

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

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = _lanes(data, ctrl)
        self._parts = 8 // self.byte_lanes
        self._lane_mod = self.byte_lanes
        self.frame_times = "lane"

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)

        self._sink_init(_baser.RxModel(input="xgmii", profile=profile, max_frame_length=max_frame_length))

        self._run_cr = None
        self._init_reset(reset, reset_active_level)

    def _stop(self):
        if self._run_cr is not None:
            _kill(self._run_cr)
            self._run_cr = None

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
