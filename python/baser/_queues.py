"""What the cocotb sources and sinks of this package share: the frame queues and their API
(the originals': ``send``, ``recv``, ``count``, ``wait``, ...), the set-up of the TX and RX
models behind them, handing frames to the TX model, the frame marks it reports, and the
received frames as ``XgmiiFrame``s with their times. The serdes and the XGMII models differ
only in the signals they drive and sample.
"""

import array

from cocotb.queue import Queue, QueueFull
from cocotb.triggers import Event, First, Timer
from cocotbext.eth import XgmiiFrame

from . import _baser

EV_START, EV_SFD, EV_END, EV_DATA = 0, 1, 2, 3
PREAMBLE_SFD = b"\x55" * 7 + b"\xd5"
ERROR = 0xFE  # XGMII /E/


class FrameSource:
    """The queue of a source backed by a ``TxModel`` (``self._model``): frames wait in
    ``self._queued`` (id -> frame) until the model starts them, then in ``self._started``.

    The settings the originals read as attributes (``ifg``, ``enable_dic``,
    ``force_offset_start``, the replication count) are handed to the model when they change;
    the model takes them when no frame is waiting or under way (the engine's rule).
    ``frame_times``: ``"edge"`` (a frame time is the edge of the clock of its block) or
    ``"lane"`` (plus ``period // byte_lanes`` per lane).
    """

    _lane4_starts = True  # force_offset_start applies (a 32-bit XGMII has no lane 4 start)

    def _source_init(self, profile, dic_mode, seed=None, scrambled=True, reverse=False, inject=None, line=None):
        self.profile = profile
        self.dic_mode = dic_mode

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

        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0
        self.queue_occupancy_limit_bytes = -1
        self.queue_occupancy_limit_frames = -1

        self._queued = {}  # id -> frame given to the model, not started
        self._started = {}  # id -> frame started, not ended
        self._model = _baser.TxModel(
            profile=profile,
            dic_mode=dic_mode,
            seed=seed,
            scrambled=scrambled,
            reverse=reverse,
            **(line or {}),
        )
        self._config = self._wanted()
        for spec in [inject] if isinstance(inject, str) else inject or ():
            self._model.inject(spec)

    # -- the originals' API

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

    def set_seq_os(self, os=None):
        self.set_os(os, False)

    def set_sig_os(self, os=None):
        self.set_os(os, True)

    def set_os(self, os=None, sig=False):
        """Sends the ordered set ``os`` (its three octets as a 24-bit value, the first most
        significant; ``sig``: signal rather than sequence) in place of idle transfers from the
        next block made on; ``None``: idles again. (A transfer holding a ``/T/`` or a ``/S/``
        keeps its idles.)"""
        self.os = os
        self.os_sig = bool(sig)
        self._model.set_ordered_set(os, bool(sig))

    # -- the model

    def _wanted(self):
        return (
            self.ifg,
            bool(self.enable_dic),
            bool(self.force_offset_start) and self._lane4_starts,
            self._rep,
        )

    def _configure(self):
        """Hands the model the settings that changed (it takes them between frames)."""
        wanted = self._wanted()
        if wanted == self._config:
            return
        ifg, dic, lane4, rep = wanted
        if not 0 <= ifg <= 0xFFFF:
            raise ValueError(f"ifg {ifg}: expected 0..65535 octets")
        self._model.configure(
            ifg=ifg,
            dic=dic,
            dic_mode=self.dic_mode if dic else None,
            lane4_starts=lane4,
            replication=rep,
        )
        self._config = wanted

    def _push(self, frame):
        """Hands ``frame`` (preamble, SFD, frame, FCS) to the model."""
        data = bytes(frame.data)
        try:
            pre = data.index(0xD5) + 1
        except ValueError:
            raise ValueError("frame has no SFD (0xd5): give XgmiiFrame.from_payload(...)") from None
        body = data[pre:]
        if len(body) < 4:
            raise ValueError(f"frame of {len(body)} octets after the SFD: no room for an FCS")
        fid = self._model.push(body[:-4], body[-4:])
        self._queued[fid] = frame

    def _give(self, frame):
        data = bytes(frame.data)
        if 0xD5 in data and data.index(0xD5) + 1 != 8:
            self.log.warning("frame with a %d-octet preamble: sent with the standard 8", data.index(0xD5) + 1)
        if frame.ctrl and any(frame.ctrl):
            self.log.warning("control characters inside a frame are not sent by the baser model")
        self._configure()
        self._push(frame)
        self.idle_event.clear()
        self.queue_occupancy_bytes += len(frame)
        self.queue_occupancy_frames += 1

    def _start(self, fid, start_lane):
        """The frame whose /S/ the model sent: out of the queue, under way; None if unknown."""
        frame = self._queued.pop(fid, None)
        if frame is None:
            return None
        self.queue_occupancy_bytes -= len(frame)
        self.queue_occupancy_frames -= 1
        self.dequeue_event.set()
        frame.sim_time_sfd = None
        frame.sim_time_end = None
        frame.start_lane = start_lane
        self._started[fid] = frame
        self.current_frame = frame
        return frame

    def _end(self, fid, time):
        """The frame whose /T/ the model sent, at ``time``: complete."""
        frame = self._started.pop(fid, None)
        if frame is not None:
            frame.sim_time_end = time
            if self.current_frame is frame:
                self.current_frame = None
            frame.handle_tx_complete()

    def _events(self, events, base, step):
        """A block's frame marks, stamped at ``base`` (its edge, less a gearbox's delay) plus
        ``step`` per lane in the lane convention: the /S/, the SFD (edge convention: the
        block holding it) or the first octet after it (lane convention: taxi's
        ``sim_time_sfd``; under USXGMII replication, after the SFD column's copies), the
        /T/."""
        lanes = self.frame_times == "lane"

        def at(lane):
            return base + (step * lane if lanes else 0)

        for kind, fid, lane in events:
            if kind == EV_START:
                frame = self._start(fid, lane % self._lane_mod)
                if frame is not None:
                    frame.sim_time_start = at(lane)
                    self.log.info("TX frame: %s", frame)
            elif kind == (EV_DATA if lanes else EV_SFD):
                frame = self._started.get(fid)
                if frame is not None:
                    frame.sim_time_sfd = at(lane)
            elif kind == EV_END:
                self._end(fid, at(lane))
        self._settle()

    def _settle(self):
        """After a clock's events: active while a frame is under way, idle when all is sent."""
        self.active = bool(self._started)
        if not self.active and not self._queued:
            self.idle_event.set()


class FrameSink:
    """The queue of a sink backed by an ``RxModel`` (``self._model``), and the frames it
    builds; ``self._times`` holds the sim time of each clock pushed."""

    def _sink_init(self, model):
        self.active = False
        self.queue = Queue()
        self.active_event = Event()
        self.queue_occupancy_bytes = 0
        self.queue_occupancy_frames = 0
        self._model = model
        self._times = array.array("q")  # per clock pushed: its time (edge, plus a gearbox's delay)
        self._step = 0  # period // byte_lanes at the last clock
        self._os_sig = False
        self.summary = None

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

    @property
    def status(self):
        """The receiver now (block lock, hi_ber, link fault, counts so far, the last errored
        block): a PCS monitor a test can poll every clock."""
        return self._model.status

    @property
    def fec(self):
        """What the FEC below the PCS saw so far (``fec=``): the ``fec`` object of ``baser
        decode --json`` as a dict (lock, codewords, corrected and uncorrected ones, symbols);
        ``None`` without a FEC."""
        return self._model.fec

    def get_os(self):
        """The last ordered set received and not taken yet, as ``(value, sig)``, or ``(None,
        sig)`` with the kind of the last one taken; taking it clears it."""
        os = self._model.take_ordered_set()
        if os is None:
            return (None, self._os_sig)
        self._os_sig = os[1]
        return os

    def get_os_match(self):
        """The same ordered set came more than twice in a row."""
        return self._model.ordered_set_runs[0] > 2

    def get_idle_match(self):
        """More than two all-control transfers in a row since the last ordered set."""
        return self._model.ordered_set_runs[1] > 2

    def finish(self):
        """Ends reception: the frames the last blocks complete are queued, and the summary
        (the ``baser decode --json`` document: ``pcs`` has block lock, lock losses, hi_ber,
        invalid headers, errored blocks with the rule that fired, link fault; ``frames`` the
        counts by class; with a FEC, ``fec``) is returned and kept as ``self.summary``."""
        import json

        if self.summary is None:
            self._stop()
            doc, frames = self._model.finish()
            self._queue_frames(frames)
            self.summary = json.loads(doc)
        return self.summary

    def _time(self, clock, lane):
        """The time of ``lane`` of the block completed at ``clock`` (None if unknown)."""
        if clock is None or not 0 <= clock < len(self._times):
            return None
        return self._times[clock] + (self._step * lane if self.frame_times == "lane" else 0)

    def _frame(self, f):
        """A received frame as the originals give it: preamble and SFD as data, the frame with
        its FCS, and for a frame ended by a control character other than /T/ an /E/ last."""
        body = bytearray(PREAMBLE_SFD)
        body += f.data
        ctrl = [0] * len(body)
        if f.class_ in ("error_character", "truncated"):
            body.append(ERROR)
            ctrl.append(1)
        frame = XgmiiFrame(body, ctrl)
        frame.baser_class = f.class_
        frame.fcs_ok = f.fcs_ok
        frame.start_block = f.start_block
        return frame

    def _queue_frames(self, frames):
        """Received frames (``RxFrame``s) with the times of their /S/, SFD (edge convention:
        the block holding it; lane convention: the first octet after it) and end."""
        lanes = self.frame_times == "lane"
        for f in frames or ():
            frame = self._frame(f)
            frame.start_lane = f.start_lane % self._lane_mod
            frame.sim_time_start = self._time(f.start_clock, f.start_lane)
            if lanes:
                frame.sim_time_sfd = self._time(f.data_clock, f.data_lane)
            else:
                frame.sim_time_sfd = self._time(f.sfd_clock, f.sfd_lane)
            frame.sim_time_end = self._time(f.end_clock, f.end_lane)
            if frame.sim_time_end is None and self._times:
                frame.sim_time_end = self._times[-1]
            frame.compact()
            self.log.info("RX frame: %s", frame)
            self.queue_occupancy_bytes += len(frame)
            self.queue_occupancy_frames += 1
            self.queue.put_nowait(frame)
            self.active_event.set()
