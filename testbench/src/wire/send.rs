//! The sending side of `baser wire`: the transmit socket and its path ([`TxPath`]), the
//! hardware and kernel transmit timestamps, and the paced send loop, which at top speed keeps
//! to what the capture takes ([`IN_FLIGHT`]).

use super::iface::{self, Interface};
use super::pace::{self, Pace, Pacer};
use super::{now_ns, socket_error, sys, Shared, TxFcs, TxPath, WireArgs};
use crate::command::Error;
use std::io;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long the kernel may refuse every frame (queue full) before the run stops with an error.
const STALL: Duration = Duration::from_secs(2);

/// At top speed, frames sent and not yet arrived in the capture ring that make the sender wait
/// (until half of them have): the queues between the wire and the capture ring are short (the
/// kernel's per-CPU backlog holds `netdev_max_backlog` frames, 1000 by default; a NIC's
/// receive ring 512 descriptors by default), and a sender that runs further ahead of the
/// receiving CPU loses frames there, before the capture sees them.
pub(super) const IN_FLIGHT: u64 = 768;

/// How long the sender waits at most for frames in flight that do not arrive (lost, or held by
/// the DUT): after that they no longer count as in flight.
const IN_FLIGHT_WAIT: Duration = Duration::from_millis(2);

enum Sender<'a> {
    Ring(sys::TxRing),
    Mmsg(sys::MmsgSender<'a>),
    Plain(sys::PacketSocket),
}

impl<'a> Sender<'a> {
    /// The socket whose error queue carries transmit timestamps (not for a transmit ring, whose
    /// frames leave from mapped slots).
    fn stamped(&self) -> Option<&sys::PacketSocket> {
        match self {
            Self::Ring(_) => None,
            Self::Mmsg(m) => Some(m.socket()),
            Self::Plain(s) => Some(s),
        }
    }

    /// Hands `frame` to the kernel, or queues it and hands over the queue every `batch`
    /// frames; `borrowed` is the same frame when `sendmmsg` may queue it without a copy (it
    /// was not built in a scratch buffer). `retried` counts the plain sends made again.
    /// Returns None when the transmit ring took no frame (it does not fit a slot, or a stop
    /// was requested).
    fn push(
        &mut self,
        frame: &[u8],
        borrowed: Option<&'a [u8]>,
        batch: usize,
        retried: &mut u64,
    ) -> Option<io::Result<()>> {
        match self {
            Self::Ring(r) => match r.push(frame) {
                Ok(true) => Some(if r.queued() >= batch {
                    r.flush()
                } else {
                    Ok(())
                }),
                Ok(false) => None,
                Err(e) => Some(Err(e)),
            },
            Self::Mmsg(m) => {
                match borrowed {
                    Some(f) => m.push_borrowed(f),
                    None => m.push(frame),
                }
                Some(if m.queued() >= batch {
                    m.flush(STALL)
                } else {
                    Ok(())
                })
            }
            Self::Plain(s) => Some(send_plain(s, frame, retried)),
        }
    }

    /// Hands over what is still queued and, for the transmit ring, waits until the kernel has
    /// sent it.
    fn finish(&mut self) -> io::Result<()> {
        match self {
            Self::Ring(r) => r.drain(STALL),
            Self::Mmsg(m) => m.flush(STALL),
            Self::Plain(_) => Ok(()),
        }
    }
}

/// Why a NIC gives no hardware timestamps, for the warning (software stamps are used).
fn hw_stamp_refusal(name: &str, e: &io::Error) -> String {
    match e.raw_os_error() {
        // ixgbe takes "every received frame" only on an X550: the X520's 82599 and the X540
        // stamp only PTP event frames on receive, and refuse the whole request.
        Some(libc::ERANGE) => format!(
            "{name}: the NIC cannot timestamp every received frame (SIOCSHWTSTAMP refused the \
             receive filter ALL: {e}; an X520 (82599) or X540 stamps only PTP event frames, an \
             X550 stamps all): software timestamps are used"
        ),
        _ => format!(
            "{name}: the NIC does not timestamp frames (SIOCSHWTSTAMP: {e}): software \
             timestamps are used"
        ),
    }
}

/// The transmit timestamps of a run, and where they come from.
struct TxStamps {
    on: bool,
    /// Every how many frames one is stamped (frame `k * every` has stamp number `k`).
    every: u64,
    /// `(frame number, ns, from the NIC)`.
    got: Vec<(u32, i64, bool)>,
}

impl TxStamps {
    /// The stamps a run of `sent` frames ends with: one per stamped frame, from each clock.
    fn due(&self, sent: u64, hardware: bool) -> u64 {
        sent.div_ceil(self.every.max(1)) * (1 + u64::from(hardware))
    }

    fn take(&mut self, sender: &Sender) {
        if let (true, Some(s)) = (self.on, sender.stamped()) {
            if s.tx_timestamps(&mut self.got).is_err() {
                self.on = false;
            }
        }
    }

    /// Waits (500 ms at most) for the stamps of the last frames, which arrive as the driver
    /// takes them.
    fn wait_for_last(&mut self, sender: &Sender, sent: u64, hardware: bool) {
        let stamp_wait = Instant::now() + Duration::from_millis(500);
        while self.on {
            self.take(sender);
            if self.got.len() as u64 >= self.due(sent, hardware) || Instant::now() > stamp_wait {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Replaces the queue times in `sent_ns` by the transmit stamps when every stamped frame
    /// has one from the clock the capture uses (the NIC's when it stamps received frames,
    /// `hardware`, else the kernel's); otherwise warns and keeps them. Returns the name of
    /// the clock of the transmit times (JSON `tx_clock`).
    fn apply(
        &self,
        sent_ns: &mut [i64],
        hardware: bool,
        ifname: &str,
        warnings: &mut Vec<String>,
    ) -> String {
        let mut tx_clock = "user (queued)".to_string();
        if !self.on {
            return tx_clock;
        }
        let every = self.every as usize;
        let stamped = sent_ns.len().div_ceil(every);
        let mut kernel: Vec<Option<i64>> = vec![None; stamped];
        for &(id, ns, hw) in &self.got {
            if hw == hardware {
                if let Some(k) = kernel.get_mut(id as usize) {
                    *k = Some(ns);
                }
            }
        }
        let missing = kernel.iter().filter(|k| k.is_none()).count();
        let clock = if hardware { "hardware" } else { "software" };
        if missing == 0 {
            // Frames without a stamp get no latency (a time of 0 is none to the judge).
            for (p, s) in sent_ns.iter_mut().enumerate() {
                *s = if p % every == 0 {
                    kernel.get(p / every).copied().flatten().unwrap_or(0)
                } else {
                    0
                };
            }
            tx_clock = if every == 1 {
                clock.to_string()
            } else {
                format!("{clock} (1 frame in {every})")
            };
        } else {
            warnings.push(format!(
                "{ifname}: {missing} of {stamped} frames had no {clock} transmit timestamp: \
                 latency counts from when baser queued each frame",
            ));
        }
        tx_clock
    }
}

/// What the send loop did.
pub(super) struct Sent {
    /// When each frame was handed over (`sent_ns[p]`: frame `p`), realtime ns; once
    /// [`Transmitter::clock`] has run, its transmit stamp where it had one (0: none).
    pub(super) sent_ns: Vec<i64>,
    /// Octets on the wire (preamble, FCS and IFG counted).
    pub(super) wire_octets: u64,
    /// Why sending stopped early.
    pub(super) error: Option<io::Error>,
    /// How often the sender waited for the capture, and for how long in all.
    pub(super) capture_pauses: u64,
    /// See `capture_pauses`.
    pub(super) capture_wait: Duration,
    /// Realtime ns when sending started.
    pub(super) t0_ns: i64,
    /// Seconds from the start of sending until the last frame was handed over.
    pub(super) seconds: f64,
}

impl Sent {
    /// Frames sent.
    pub(super) fn count(&self) -> u64 {
        self.sent_ns.len() as u64
    }
}

/// The transmit side of a run: the sender on the path chosen, and its timestamps.
pub(super) struct Transmitter<'a> {
    sender: Sender<'a>,
    stamps: TxStamps,
    /// The NIC(s) stamp frames in hardware.
    hw_on: bool,
    /// Plain sends made again (queue full).
    plain_retried: u64,
}

impl<'a> Transmitter<'a> {
    /// Opens the sender on `txi` for frames of up to `max_len` octets, the NICs' hardware
    /// timestamps if asked for, and (loopback, where latency is measured) the transmit
    /// timestamps. What cannot be had goes to `warnings`.
    ///
    /// # Errors
    /// No capability, or the kernel refused the socket, SO_NOFCS or the transmit ring.
    pub(super) fn open(
        a: &WireArgs,
        txi: &Interface,
        rxi: &Interface,
        max_len: usize,
        pace: Pace,
        warnings: &mut Vec<String>,
    ) -> Result<Self, Error> {
        let sender = open_sender(a, txi, max_len, warnings)?;
        let hw_on = if a.hw_timestamps {
            enable_hw_timestamps(txi, rxi, warnings)?
        } else {
            false
        };
        let mut tx = Self {
            sender,
            stamps: TxStamps {
                on: false,
                every: 1,
                got: Vec::new(),
            },
            hw_on,
            plain_retried: 0,
        };
        if a.expect.is_none() {
            tx.enable_tx_stamps(pace, &txi.name, warnings);
        }
        Ok(tx)
    }

    /// Transmit times from the kernel (the socket error queue).
    fn enable_tx_stamps(&mut self, pace: Pace, ifname: &str, warnings: &mut Vec<String>) {
        // At top speed one frame in 64 is stamped (a stamp costs the kernel a message on the
        // error queue per frame); paced, every frame.
        let every = if pace == Pace::TopSpeed { 64 } else { 1 };
        let hw_on = self.hw_on;
        let refused = |e: io::Error| {
            format!(
                "{ifname}: transmit timestamps refused (SO_TIMESTAMPING: {e}): latency counts \
                 from when baser queued each frame",
            )
        };
        match &mut self.sender {
            Sender::Mmsg(m) => match m.socket().enable_tx_timestamps(hw_on, true) {
                Ok(()) => {
                    m.stamp_every(hw_on, every);
                    self.stamps.on = true;
                    self.stamps.every = every;
                }
                Err(e) => warnings.push(refused(e)),
            },
            Sender::Plain(s) => match s.enable_tx_timestamps(hw_on, false) {
                Ok(()) => self.stamps.on = true,
                Err(e) => warnings.push(refused(e)),
            },
            Sender::Ring(_) => warnings.push(format!(
                "{ifname}: the transmit ring gives no per-frame transmit timestamps: latency \
                 counts from when baser queued each frame (--tx-path sendmmsg for kernel times)",
            )),
        }
    }

    /// Sends `planned` frames cycling through `frames` at `pace` until `deadline` or a stop
    /// is requested, publishing the count in `shared`; then hands over what is queued and
    /// waits for the last transmit stamps.
    pub(super) fn send_all(
        &mut self,
        a: &WireArgs,
        frames: &'a [Vec<u8>],
        (planned, pace): (u64, Pace),
        shared: &Shared,
        deadline: Instant,
    ) -> Sent {
        let own_fcs = a.tx_fcs != TxFcs::Nic;
        let n = frames.len() as u64;
        let mut pacer = Pacer::new(pace);
        let mut s = Sent {
            sent_ns: Vec::with_capacity(planned.min(1 << 26) as usize),
            wire_octets: 0,
            error: None,
            capture_pauses: 0,
            capture_wait: Duration::ZERO,
            t0_ns: now_ns(),
            seconds: 0.0,
        };
        let t0 = Instant::now();
        let max_len = frames.iter().map(Vec::len).max().unwrap_or(60);
        let mut scratch = Vec::with_capacity(max_len);
        let batch = if pace == Pace::TopSpeed { 256 } else { 1 };
        // Frames sent that had not reached the capture IN_FLIGHT_WAIT into a pause: not in flight.
        let mut written_off = 0u64;
        for p in 0..planned {
            if sys::stop_requested() || (p % 64 == 0 && Instant::now() > deadline) {
                break;
            }
            let rec = (p % n) as usize;
            let Some(f) = frames.get(rec) else { break };
            let frame: &[u8] = match a.tag_offset {
                Some(off) => tagged(&mut scratch, f, off, p),
                None => f,
            };
            let octets = pace::wire_octets(frame.len(), own_fcs);
            if let Some(at) = pacer.book(octets) {
                pace::wait_until(at);
            }
            if pace == Pace::TopSpeed {
                if let Some(waited) = wait_for_capture(shared, p, &mut written_off) {
                    s.capture_pauses += 1;
                    s.capture_wait += waited;
                }
            }
            s.sent_ns.push(now_ns());
            // A tagged frame is built in `scratch`: the sender keeps a copy of it.
            let borrowed = a.tag_offset.is_none().then_some(f.as_slice());
            let pushed = self
                .sender
                .push(frame, borrowed, batch, &mut self.plain_retried);
            let Some(r) = pushed else { break };
            if p % 256 == 255 {
                self.stamps.take(&self.sender);
            }
            if let Err(e) = r {
                s.error = Some(e);
                s.sent_ns.pop();
                break;
            }
            s.wire_octets += octets;
            shared.sent.store(p + 1, Ordering::Release);
        }
        if let Err(e) = self.sender.finish() {
            s.error.get_or_insert(e);
        }
        s.seconds = t0.elapsed().as_secs_f64();
        self.stamps
            .wait_for_last(&self.sender, s.count(), self.hw_on);
        s
    }

    /// The clock of the transmit times: see [`TxStamps::apply`].
    pub(super) fn clock(
        &self,
        sent_ns: &mut [i64],
        hardware: bool,
        ifname: &str,
        warnings: &mut Vec<String>,
    ) -> String {
        self.stamps.apply(sent_ns, hardware, ifname, warnings)
    }

    /// The transmit path taken (JSON `tx_path`).
    pub(super) fn path_name(&self) -> &'static str {
        match self.sender {
            Sender::Ring(_) => "ring",
            Sender::Mmsg(_) => "sendmmsg",
            Sender::Plain(_) => "send",
        }
    }

    /// Sends refused as queue full and made again (JSON `tx_retries`).
    pub(super) fn retries(&self) -> u64 {
        match &self.sender {
            Sender::Mmsg(m) => m.retried,
            Sender::Plain(_) => self.plain_retried,
            Sender::Ring(_) => 0,
        }
    }
}

/// Opens the socket on `txi`, chooses the transmit path (`--tx-path auto`: `sendmmsg` on a
/// virtual interface or through a qdisc, else the ring) and makes the sender on it.
///
/// # Errors
/// No capability, or the kernel refused SO_NOFCS or the transmit ring.
fn open_sender<'a>(
    a: &WireArgs,
    txi: &Interface,
    max_len: usize,
    warnings: &mut Vec<String>,
) -> Result<Sender<'a>, Error> {
    let txs = sys::PacketSocket::open(txi.index).map_err(|e| socket_error(&txi.name, &e))?;
    // A configured qdisc (netem, tbf...) is part of the test: send through it.
    if txi.qdisc.is_none() {
        if let Err(e) = txs.set_qdisc_bypass() {
            warnings.push(format!("{}: PACKET_QDISC_BYPASS refused ({e})", txi.name));
        }
    }
    let path = match a.tx_path {
        // A qdisc may refuse a frame (queue full): sendmmsg sends it again, a transmit ring
        // would lose it.
        TxPath::Auto if txi.is_virtual || txi.qdisc.is_some() => TxPath::Sendmmsg,
        TxPath::Auto => TxPath::Ring,
        p => p,
    };
    if let (TxPath::Ring, Some(q)) = (path, &txi.qdisc) {
        warnings.push(format!(
            "{}: the transmit ring goes through qdisc {q}: a frame it refuses (queue full) is \
             lost, not sent again, and reported missing; --tx-path sendmmsg sends it again",
            txi.name
        ));
    }
    Ok(if a.tx_fcs != TxFcs::Nic {
        txs.set_no_fcs().map_err(|e| {
            Error::Usage(format!(
                "{}: the kernel refuses SO_NOFCS ({e}): --tx-fcs cannot be used",
                txi.name
            ))
        })?;
        txs.bind(false).map_err(|e| socket_error(&txi.name, &e))?;
        Sender::Plain(txs)
    } else if path == TxPath::Sendmmsg {
        Sender::Mmsg(sys::MmsgSender::new(txs).map_err(|e| socket_error(&txi.name, &e))?)
    } else if path == TxPath::Ring {
        Sender::Ring(sys::TxRing::new(txs, max_len, 8 << 20).map_err(|e| {
            Error::Usage(format!(
                "{}: the kernel refused a PACKET_MMAP transmit ring ({e}); try --tx-path \
                 sendmmsg",
                txi.name
            ))
        })?)
    } else {
        txs.bind(false).map_err(|e| socket_error(&txi.name, &e))?;
        Sender::Plain(txs)
    })
}

/// Tells the NIC(s) of `txi` and `rxi` to stamp every frame. Returns whether all of them
/// took it; a warning names each that did not.
///
/// # Errors
/// No capability for the socket the request goes through.
fn enable_hw_timestamps(
    txi: &Interface,
    rxi: &Interface,
    warnings: &mut Vec<String>,
) -> Result<bool, Error> {
    let probe = sys::PacketSocket::open(txi.index).map_err(|e| socket_error(&txi.name, &e))?;
    let mut names = vec![txi.name.clone()];
    if rxi.name != txi.name {
        names.push(rxi.name.clone());
    }
    let mut hw_on = true;
    for name in &names {
        if let Err(e) = probe.enable_hw_timestamps(name) {
            hw_on = false;
            warnings.push(hw_stamp_refusal(name, &e));
        }
    }
    Ok(hw_on)
}

/// `f` with frame number `p` written as a 32-bit big-endian tag at octet `off`, built in
/// `scratch`.
fn tagged<'s>(scratch: &'s mut Vec<u8>, f: &[u8], off: usize, p: u64) -> &'s [u8] {
    scratch.clear();
    scratch.extend_from_slice(f);
    if let Some(t) = scratch.get_mut(off..off + 4) {
        t.copy_from_slice(&(p as u32).to_be_bytes());
    }
    scratch
}

/// At top speed, before frame `p`: waits while the capture ring is more than half full or
/// more than [`IN_FLIGHT`] frames are in flight, until neither holds (half of them arrived),
/// [`STALL`] passes or a stop is requested; frames that do not arrive within
/// [`IN_FLIGHT_WAIT`] are written off (`written_off`). Returns how long it waited, None when
/// it did not.
fn wait_for_capture(shared: &Shared, p: u64, written_off: &mut u64) -> Option<Duration> {
    // Frames handed to the kernel (or queued for it) that have not reached the capture.
    let in_flight = |off: u64| p.saturating_sub(off + shared.arrived.load(Ordering::Acquire));
    if !(shared.capture_behind.load(Ordering::Relaxed) || in_flight(*written_off) > IN_FLIGHT) {
        return None;
    }
    let since = Instant::now();
    loop {
        if since.elapsed() > IN_FLIGHT_WAIT && in_flight(*written_off) > IN_FLIGHT / 2 {
            // What has not arrived by now is lost or held: no longer in flight.
            *written_off = p.saturating_sub(shared.arrived.load(Ordering::Acquire) + IN_FLIGHT / 2);
        }
        let ring_behind = shared.capture_behind.load(Ordering::Acquire);
        if (!ring_behind && in_flight(*written_off) <= IN_FLIGHT / 2)
            || since.elapsed() >= STALL
            || sys::stop_requested()
        {
            break;
        }
        std::thread::sleep(Duration::from_micros(50));
    }
    Some(since.elapsed())
}

/// Sends one frame, again while the kernel refuses it as queue full (ENOBUFS/EAGAIN: the frame
/// was not sent), counting those retries, up to [`STALL`] without progress.
fn send_plain(s: &sys::PacketSocket, frame: &[u8], retried: &mut u64) -> io::Result<()> {
    let end = Instant::now() + STALL;
    loop {
        match s.send(frame) {
            Ok(_) => return Ok(()),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ENOBUFS | libc::EAGAIN | libc::EINTR)
                ) =>
            {
                if Instant::now() > end || sys::stop_requested() {
                    return Err(e);
                }
                if e.raw_os_error() != Some(libc::EINTR) {
                    *retried += 1;
                }
                std::thread::sleep(Duration::from_micros(20));
            }
            Err(e) => return Err(e),
        }
    }
}

/// The message for a send that failed after `sent` frames.
pub(super) fn send_error(e: &io::Error, sent: u64, a: &WireArgs, txi: &Interface) -> Error {
    let own_fcs = a.tx_fcs != TxFcs::Nic;
    let msg = match e.raw_os_error() {
        Some(libc::EMSGSIZE) => format!(
            "{}: the socket refused a frame as too large (EMSGSIZE) after {sent} frames: \
             frames may be at most MTU {} + 14 octets",
            txi.name, txi.mtu
        ),
        Some(libc::EPROTONOSUPPORT) if own_fcs => format!(
            "{}: the driver does not support sending frames with their own FCS (SO_NOFCS \
             needs IFF_SUPP_NOFCS): --tx-fcs {} cannot be used on this interface",
            txi.name,
            if a.tx_fcs == TxFcs::Bad {
                "bad"
            } else {
                "model"
            }
        ),
        Some(libc::ENOBUFS | libc::EAGAIN) => format!(
            "{}: the kernel refused every frame for {} s after {sent} frames ({e}): \
             the transmit queue stays full{}",
            txi.name,
            STALL.as_secs(),
            match iface::carrier(&txi.name) {
                Some(true) => "",
                _ => " because the link went down (no carrier)",
            }
        ),
        _ => format!("{}: sending failed after {sent} frames: {e}", txi.name),
    };
    Error::Usage(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nic_that_stamps_only_ptp_frames_is_told_apart_from_one_without_stamps() {
        let x520 = hw_stamp_refusal("eth2", &std::io::Error::from_raw_os_error(libc::ERANGE));
        assert!(x520.starts_with("eth2: the NIC cannot timestamp every received frame"));
        assert!(x520.contains("82599") && x520.contains("software timestamps are used"));
        let veth = hw_stamp_refusal("bsr0", &std::io::Error::from_raw_os_error(libc::EOPNOTSUPP));
        assert!(veth.starts_with("bsr0: the NIC does not timestamp frames"));
        assert!(!veth.contains("82599"));
    }

    #[test]
    fn the_stamp_wait_ends_at_the_last_stamped_frame() {
        // At top speed one frame in 64 asks for a stamp: waiting for one per frame sent held
        // every run 500 ms after its last frame.
        let s = TxStamps {
            on: true,
            every: 64,
            got: Vec::new(),
        };
        assert_eq!(s.due(1_000_000, false), 15_625);
        assert_eq!(s.due(65, false), 2);
        assert_eq!(s.due(65, true), 4);
        let paced = TxStamps { every: 1, ..s };
        assert_eq!(paced.due(10, false), 10);
        assert_eq!(paced.due(0, true), 0);
    }
}
