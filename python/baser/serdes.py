"""Drop-in cocotb models of a 10GBASE-R serdes interface, backed by the baser engine.

``BaseRSerdesSource`` and ``BaseRSerdesSink`` take the constructor arguments and offer the
methods and attributes of the ``tb/baser.py`` models of verilog-ethernet and taxi, so a test
bench that deletes its local ``baser.py`` runs against these. Per clock edge each makes one
call into the Rust model: the source takes the next 66-bit block of the engine's TX chain
(MAC with IFG and deficit idle count, PCS encoder, scrambler), the sink pushes the 66 bits it
sampled into the engine's RX chain (block lock from any bit offset, descrambler, Clause 49
receive state machine, BER monitor, MAC receiver). Frames are cocotbext-eth ``XgmiiFrame``s.

Differences from the originals: docs/python.md.
"""

import array
import logging

import cocotb
from cocotb.queue import Queue, QueueFull
from cocotb.triggers import Event, First, RisingEdge, Timer
from cocotbext.eth import XgmiiFrame

from . import _baser

try:  # cocotb 2
    from cocotb.simtime import get_sim_time
except ImportError:  # cocotb 1.9
    from cocotb.utils import get_sim_time

__all__ = ["BaseRSerdesSource", "BaseRSerdesSink"]

_EV_START, _EV_SFD, _EV_END = 0, 1, 2
_PREAMBLE_SFD = b"\x55" * 7 + b"\xd5"
_ERROR = 0xFE  # XGMII /E/


def _value(signal):
    """The signal's value as an int (0 while it holds X or Z)."""
    try:
        return int(signal.value)
    except ValueError:
        return 0


def _reverse(data, header):
    return int(f"{data:064b}"[::-1], 2), ((header & 1) << 1) | (header >> 1)


class BaseRSerdesSource:
    """Drives ``data`` (64 bits) and ``header`` (2 bits) with one 66-bit block per rising edge
    of ``clock`` (when ``enable`` is high, if given). ``slip``: while high, the stream moves
    one bit per clock (as ``bit_offset += 1``). ``scramble=False`` sends the encoder's blocks
    unscrambled; ``reverse`` bit-reverses data and header.

    Beyond the originals (keyword only): ``profile`` (``"ieee"``, ``"verilog-ethernet"``),
    ``dic_mode`` (``"reset-on-idle"``, the originals' and the default; ``"strict"``;
    ``None``: the profile's), ``seed`` (scrambler state before the first block).
    """

    def __init__(
        self,
        data,
        header,
        clock,
        enable=None,
        slip=None,
        scramble=True,
        reverse=False,
        *args,
        profile="ieee",
        dic_mode="reset-on-idle",
        seed=None,
        **kwargs,
    ):
        self.log = logging.getLogger(f"cocotb.{data._path}")
        self.data = data
        self.header = header
        self.clock = clock
        self.enable = enable
        self.slip = slip
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
        self._force_offset_start = False

        self.bit_offset = 0

        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0

        self.queue_occupancy_limit_bytes = -1
        self.queue_occupancy_limit_frames = -1

        self.width = len(self.data)
        self.byte_size = 8
        self.byte_lanes = 8

        assert self.width == self.byte_lanes * self.byte_size

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)
        self.log.info("  Enable scrambler: %s", self.scramble)
        self.log.info("  Bit reverse: %s", self.reverse)

        self._seed = seed
        self._model = None
        self._config = None
        self._queued = {}  # id -> frame given to the model, not started
        self._started = {}  # id -> frame started, not ended

        self.data.value = 0
        self.header.value = 0

        self._run_cr = cocotb.start_soon(self._run())

    # -- the originals' API

    @property
    def force_offset_start(self):
        return self._force_offset_start

    @force_offset_start.setter
    def force_offset_start(self, value):
        if value and not self._force_offset_start:
            self.log.warning(
                "force_offset_start: not supported by the baser model yet (frames start in "
                "lane 0 or 4 as the IFG and deficit idle count give); ignored"
            )
        self._force_offset_start = bool(value)

    async def send(self, frame):
        while self.full():
            self.dequeue_event.clear()
            await self.dequeue_event.wait()
        self._give(XgmiiFrame(frame))

    def send_nowait(self, frame):
        if self.full():
            raise QueueFull()
        self._give(XgmiiFrame(frame))

    def count(self):
        return len(self._queued)

    def empty(self):
        return not self._queued

    def full(self):
        if 0 < self.queue_occupancy_limit_bytes < self.queue_occupancy_bytes:
            return True
        if 0 < self.queue_occupancy_limit_frames < self.queue_occupancy_frames:
            return True
        return False

    def idle(self):
        return self.empty() and not self.active

    def clear(self):
        if self._model is not None:
            self._model.drop_unstarted()
        for frame in self._queued.values():
            frame.sim_time_end = None
            frame.handle_tx_complete()
        self._queued.clear()
        self.dequeue_event.set()
        if not self._started:
            self.idle_event.set()
        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0

    async def wait(self):
        await self.idle_event.wait()

    # -- the model

    def _wanted(self):
        return (self.ifg, bool(self.enable_dic), self.reverse, self.scramble)

    def _ensure_model(self):
        """A model with the current settings; a change of ifg or enable_dic takes effect when
        no frame is under way (the scrambler state carries over)."""
        wanted = self._wanted()
        if self._model is not None and (wanted == self._config or self._model.pending):
            return
        seed = self._seed if self._model is None else self._model.scrambler_state
        ifg, dic, reverse, scramble = wanted
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
        )
        if self._model is not None:
            model.bit_offset = self._model.bit_offset
        self._model, self._config = model, wanted

    def _give(self, frame):
        data = bytes(frame.data)
        try:
            pre = data.index(0xD5) + 1
        except ValueError:
            raise ValueError("frame has no SFD (0xd5): give XgmiiFrame.from_payload(...)") from None
        if pre != 8:
            self.log.warning("frame with a %d-octet preamble: sent with the standard 8", pre)
        if frame.ctrl and any(frame.ctrl):
            self.log.warning("control characters inside a frame are not sent by the baser model")
        body = data[pre:]
        if len(body) < 4:
            raise ValueError(f"frame of {len(body)} octets after the SFD: no room for an FCS")
        self._ensure_model()
        fid = self._model.push(body[:-4], body[-4:])
        self._queued[fid] = frame
        self.idle_event.clear()
        self.queue_occupancy_bytes += len(frame)
        self.queue_occupancy_frames += 1

    async def _run(self):
        self.active = False
        edge = RisingEdge(self.clock)
        while True:
            await edge

            if self.enable is not None and not self.enable.value:
                continue
            if self._model is None or (not self._started and not self._queued):
                self._ensure_model()
            model = self._model

            if self.slip is not None and self.slip.value:
                self.bit_offset += 1
            self.bit_offset = max(0, self.bit_offset) % 66
            if model.bit_offset != self.bit_offset:
                model.bit_offset = self.bit_offset

            header, data, events = model.next()
            if events:
                now = get_sim_time()
                for kind, fid, lane in events:
                    if kind == _EV_START:
                        frame = self._queued.pop(fid, None)
                        if frame is None:
                            continue
                        self.queue_occupancy_bytes -= len(frame)
                        self.queue_occupancy_frames -= 1
                        self.dequeue_event.set()
                        frame.sim_time_start = now
                        frame.sim_time_sfd = None
                        frame.sim_time_end = None
                        frame.start_lane = lane
                        self.log.info("TX frame: %s", frame)
                        self._started[fid] = frame
                        self.current_frame = frame
                    elif kind == _EV_SFD:
                        frame = self._started.get(fid)
                        if frame is not None:
                            frame.sim_time_sfd = now
                    elif kind == _EV_END:
                        frame = self._started.pop(fid, None)
                        if frame is not None:
                            frame.sim_time_end = now
                            if self.current_frame is frame:
                                self.current_frame = None
                            frame.handle_tx_complete()
                self.active = bool(self._started)
                if not self.active and not self._queued:
                    self.idle_event.set()

            self.data.value = data
            self.header.value = header


class BaseRSerdesSink:
    """Samples ``data`` and ``header`` at each rising edge of ``clock`` (when ``enable`` is
    high, if given) and receives frames with the baser RX chain: block lock from any bit
    offset (the bits before lock are held and decoded once the boundary is found, so no frame
    is lost to lock), descrambler, Clause 49 receive state machine, BER monitor, MAC. With
    ``scramble=False`` the blocks are taken at their boundaries, unscrambled.

    Beyond the originals (keyword only): ``profile``, ``max_frame_length`` (octets with FCS;
    default 16384: jumbo frames are received as ok). Each received frame also carries
    ``baser_class`` (``"ok"``, ``"fcs_error"``, ``"runt"``, ...), ``fcs_ok`` and
    ``start_block``; :meth:`finish` gives the PCS summary.
    """

    def __init__(
        self,
        data,
        header,
        clock,
        enable=None,
        scramble=True,
        reverse=False,
        *args,
        profile="ieee",
        max_frame_length=16384,
        **kwargs,
    ):
        self.log = logging.getLogger(f"cocotb.{data._path}")
        self.data = data
        self.header = header
        self.clock = clock
        self.enable = enable
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
        self.byte_lanes = 8

        assert self.width == self.byte_lanes * self.byte_size

        self.log.info("  Data width: %d bits (%d bytes)", self.width, self.byte_lanes)
        self.log.info("  Enable scrambler: %s", self.scramble)
        self.log.info("  Bit reverse: %s", self.reverse)

        self._model = _baser.RxModel(
            input="units" if scramble else "blocks",
            profile=profile,
            max_frame_length=max_frame_length,
            scrambled=scramble,
        )
        self._times = array.array("d")  # sim time of each clock pushed
        self.summary = None

        self._run_cr = cocotb.start_soon(self._run())

    def _recv(self, frame, compact=True):
        if self.queue.empty():
            self.active_event.clear()
        self.queue_occupancy_bytes -= len(frame)
        self.queue_occupancy_frames -= 1
        if compact:
            frame.compact()
        return frame

    async def recv(self, compact=True):
        frame = await self.queue.get()
        return self._recv(frame, compact)

    def recv_nowait(self, compact=True):
        frame = self.queue.get_nowait()
        return self._recv(frame, compact)

    def count(self):
        return self.queue.qsize()

    def empty(self):
        return self.queue.empty()

    def idle(self):
        return not self.active

    def clear(self):
        while not self.queue.empty():
            self.queue.get_nowait()
        self.active_event.clear()
        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0

    async def wait(self, timeout=0, timeout_unit=None):
        if not self.empty():
            return
        if timeout:
            timer = Timer(timeout, timeout_unit) if timeout_unit else Timer(timeout)
            await First(self.active_event.wait(), timer)
        else:
            await self.active_event.wait()

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
            self._queue_frames(frames)
            self.summary = json.loads(doc)
        return self.summary

    def _queue_frames(self, frames):
        for data, cls, fcs_ok, block, lane, start_clock, sfd_clock in frames or ():
            body = bytearray(_PREAMBLE_SFD)
            body += data
            ctrl = [0] * len(body)
            if cls in ("error_character", "truncated"):
                # The originals keep the control character that ended the frame, last.
                body.append(_ERROR)
                ctrl.append(1)
            frame = XgmiiFrame(body, ctrl)
            frame.start_lane = lane
            frame.sim_time_start = self._time(start_clock)
            frame.sim_time_sfd = self._time(sfd_clock)
            frame.sim_time_end = int(self._times[-1]) if self._times else None
            frame.baser_class = cls
            frame.fcs_ok = fcs_ok
            frame.start_block = block
            frame.compact()
            self.log.info("RX frame: %s", frame)
            self.queue_occupancy_bytes += len(frame)
            self.queue_occupancy_frames += 1
            self.queue.put_nowait(frame)
            self.active_event.set()

    def _time(self, clock):
        if 0 <= clock < len(self._times):
            return int(self._times[clock])
        return None

    async def _run(self):
        edge = RisingEdge(self.clock)
        model = self._model
        while True:
            await edge

            if self.enable is not None and not self.enable.value:
                continue
            data = _value(self.data)
            header = _value(self.header)
            if self.reverse:
                data, header = _reverse(data, header)
            self._times.append(get_sim_time())
            frames = model.push(header, data)
            if frames:
                self._queue_frames(frames)
