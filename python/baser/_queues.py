"""What the cocotb sources and sinks of this package share: the frame queues and their API
(the originals': ``send``, ``recv``, ``count``, ``wait``, ...), handing frames to the TX model,
the frame events it reports, and the received frames as ``XgmiiFrame``s. The serdes and the
XGMII models differ only in the signals they drive and sample and in how they stamp times.
"""

from cocotb.queue import QueueFull
from cocotb.triggers import First, Timer
from cocotbext.eth import XgmiiFrame

EV_START, EV_SFD, EV_END = 0, 1, 2
PREAMBLE_SFD = b"\x55" * 7 + b"\xd5"
ERROR = 0xFE  # XGMII /E/


class FrameSource:
    """The queue of a source backed by a ``TxModel`` (``self._model``): frames wait in
    ``self._queued`` (id -> frame) until the model starts them, then in ``self._started``."""

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
        self._ensure_model()
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

    def _settle(self):
        """After a clock's events: active while a frame is under way, idle when all is sent."""
        self.active = bool(self._started)
        if not self.active and not self._queued:
            self.idle_event.set()


class FrameSink:
    """The queue of a sink backed by an ``RxModel`` (``self._model``), and the frames it
    builds; ``self._times`` holds the sim time of each clock pushed."""

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

    def get_os(self):
        """The last ordered set received and not taken yet, as ``(value, sig)``, or ``(None,
        sig)`` with the kind of the last one taken; taking it clears it."""
        os = self._model.take_ordered_set()
        if os is None:
            return (None, self._os_sig)
        self._os_sig = os[1]
        return os

    def _time(self, clock, offset):
        if 0 <= clock < len(self._times):
            return self._times[clock] + offset
        return None

    def _frame(self, data, cls, fcs_ok, block):
        """A received frame as the originals give it: preamble and SFD as data, the frame with
        its FCS, and for a frame ended by a control character other than /T/ an /E/ last."""
        body = bytearray(PREAMBLE_SFD)
        body += data
        ctrl = [0] * len(body)
        if cls in ("error_character", "truncated"):
            body.append(ERROR)
            ctrl.append(1)
        frame = XgmiiFrame(body, ctrl)
        frame.baser_class = cls
        frame.fcs_ok = fcs_ok
        frame.start_block = block
        return frame

    def _deliver(self, frame):
        frame.compact()
        self.log.info("RX frame: %s", frame)
        self.queue_occupancy_bytes += len(frame)
        self.queue_occupancy_frames += 1
        self.queue.put_nowait(frame)
        self.active_event.set()
