//! `baser wire`: push the frames of a pcap out of one interface, capture what arrives on
//! another (or the same one, for a DUT that loops back), and judge every frame with the
//! engine's frame judge ([`baser_engine::judge`], the one `check --frames` uses): the capture
//! thread identifies each frame ([`Expectation::identify`]) and counts the distinct expected
//! frames seen; after the run [`judge::judge`] gives the verdicts. `baser reflect`
//! ([`reflect`]) is a software stand-in for the DUT.
//!
//! I/O is AF_PACKET ([`sys`], the crate's only `unsafe`): a TPACKET_V3 receive ring with
//! PACKET_IGNORE_OUTGOING and promiscuous mode; sending ([`TxPath`]) through a TPACKET_V2
//! transmit ring with PACKET_QDISC_BYPASS on a NIC, batches of `sendmmsg()` on a virtual
//! device, or plain `send()` (`--tx-path send`, and for `--tx-fcs`, which needs SO_NOFCS). The kernel strips VLAN tags from received frames; they are re-inserted from the
//! ring's auxiliary data.

pub mod histogram;
pub mod iface;
pub mod pace;
pub mod reflect;
pub mod sys;

use crate::command::{Error, Output, Reports, Verdict};
use crate::report::{self, Case};
use baser_engine::judge::{self, Assigner, Expectation, Ident, JudgeOptions, Received, Status};
use baser_files::pcap::FrameReader;
use iface::{Counters, Feature, Interface};
use pace::{Pace, Pacer};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How the frames sent carry their FCS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TxFcs {
    /// The NIC appends it.
    Nic,
    /// baser appends the FCS computed by mac-core (SO_NOFCS).
    Model,
    /// baser appends a deliberately wrong FCS (one bit flipped), to test the DUT's FCS check.
    Bad,
}

/// How the frames sent are handed to the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TxPath {
    /// `sendmmsg` on a virtual interface (veth), the transmit ring on a NIC.
    Auto,
    /// The PACKET_MMAP transmit ring with PACKET_QDISC_BYPASS: the frames go to the driver as
    /// page fragments of the ring, which a NIC sends without a copy.
    Ring,
    /// Batches of copies with one `sendmmsg()` each: a veth would have to copy a ring's page
    /// fragments again into new pages.
    Sendmmsg,
    /// One `send()` per frame.
    Send,
}

/// Options of `baser wire`.
#[derive(clap::Args, Debug)]
pub struct WireArgs {
    /// Frames to send (.pcap/.pcapng).
    pub frames: PathBuf,
    /// Interface to send on.
    #[arg(long)]
    pub tx: String,
    /// Interface to capture on (default: the --tx interface).
    #[arg(long)]
    pub rx: Option<String>,
    /// The DUT must deliver exactly these frames (default: --loopback).
    #[arg(long, conflicts_with = "loopback")]
    pub expect: Option<PathBuf>,
    /// The DUT must return what was sent (the default).
    #[arg(long)]
    pub loopback: bool,
    /// Do not judge order (reordered frames count as matched).
    #[arg(long)]
    pub unordered: bool,
    /// Write a 32-bit big-endian sequence number at this octet offset of every frame sent
    /// (loopback only): unambiguous matching of identical frames.
    #[arg(long, conflicts_with = "expect")]
    pub tag_offset: Option<usize>,
    /// Rate in bit/s on the wire, counting preamble, FCS and IFG (e.g. 1e9, 2.5G, 100M).
    #[arg(long, conflicts_with_all = ["pps", "topspeed"], value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// Frames per second.
    #[arg(long, conflicts_with = "topspeed")]
    pub pps: Option<f64>,
    /// As fast as the interface takes them (the default).
    #[arg(long)]
    pub topspeed: bool,
    /// Frames to send, cycling through the capture (default: one pass times --loop).
    #[arg(long)]
    pub count: Option<u64>,
    /// Passes through the capture.
    #[arg(long = "loop")]
    pub loops: Option<u64>,
    /// Stop sending after this many seconds.
    #[arg(long, default_value_t = 60.0)]
    pub duration: f64,
    /// Keep capturing this long after the last frame sent, ms.
    #[arg(long, default_value_t = 1000)]
    pub timeout_ms: u64,
    /// Who appends the FCS of the frames sent.
    #[arg(long, value_enum, default_value_t = TxFcs::Nic)]
    pub tx_fcs: TxFcs,
    /// The capture's records include the FCS.
    #[arg(long)]
    pub fcs_included: bool,
    /// How frames are handed to the kernel.
    #[arg(long, value_enum, default_value_t = TxPath::Auto)]
    pub tx_path: TxPath,
    /// Pin the sending thread and the capture thread to these CPUs, e.g. `--pin 0,1`.
    #[arg(long, value_name = "TX_CPU,RX_CPU", value_parser = parse_pin)]
    pub pin: Option<(usize, usize)>,
    /// Hardware timestamps: the NIC is told to stamp every frame (SIOCSHWTSTAMP; ixgbe can on
    /// an X550, not on an X520) and its stamps are used for both ends of the latency; where it
    /// cannot, a warning says so and the kernel's software stamps are used.
    #[arg(long)]
    pub hw_timestamps: bool,
    /// Do not put the capture interface into promiscuous mode.
    #[arg(long)]
    pub no_promisc: bool,
    /// Unexpected frames (unrelated traffic) fail the run too.
    #[arg(long)]
    pub strict: bool,
    /// Use an interface even if it carries the default route or a global address.
    #[arg(long)]
    pub force: bool,
    /// Divergences shown in detail.
    #[arg(long, default_value_t = 10)]
    pub max_report: usize,
    /// Write the JSON report here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the JUnit XML report here.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Draw the latency histogram (loopback) as an SVG picture here.
    #[arg(long, value_name = "FILE")]
    pub latency_svg: Option<PathBuf>,
}

/// Parses `1e9`, `2.5G`, `100M`, `10k` (bit/s).
///
/// # Errors
/// Not a positive number.
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let (num, mul) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1e3),
        Some('m' | 'M') => (&s[..s.len() - 1], 1e6),
        Some('g' | 'G') => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    match num.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v * mul),
        _ => Err(format!(
            "{s:?}: expected a rate in bit/s such as 1e9, 2.5G or 100M"
        )),
    }
}

/// Realtime clock in ns (comparable with the kernel's software receive timestamps).
pub fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// Re-inserts a VLAN tag the kernel stripped: `out` = DA, SA, TPID, TCI, rest.
pub fn with_vlan(data: &[u8], vlan: Option<(u16, u16)>, out: &mut Vec<u8>) {
    out.clear();
    match (vlan, data.split_at_checked(12)) {
        (Some((tpid, tci)), Some((macs, rest))) => {
            out.extend_from_slice(macs);
            out.extend_from_slice(&tpid.to_be_bytes());
            out.extend_from_slice(&tci.to_be_bytes());
            out.extend_from_slice(rest);
        }
        _ => out.extend_from_slice(data),
    }
}

/// The message for a socket that could not be opened.
pub fn socket_error(ifname: &str, e: &std::io::Error) -> Error {
    match e.raw_os_error() {
        Some(libc::EPERM | libc::EACCES) => Error::Usage(format!(
            "{ifname}: raw sockets need CAP_NET_RAW (and CAP_NET_ADMIN for promiscuous mode): \
             run as root, or `setcap cap_net_raw,cap_net_admin=eip` on the baser binary"
        )),
        _ => Error::Usage(format!("{ifname}: cannot open an AF_PACKET socket: {e}")),
    }
}

/// Room in a receive ring block for one frame besides its octets: the block's header, the
/// frame's `tpacket3_hdr`, its `sockaddr_ll` and alignment (about 130 octets), rounded up.
const RING_FRAME_OVERHEAD: usize = 256;

/// The receive ring's blocks for `i`: `ring_bytes` in all, in blocks of `min_block` octets or
/// the smallest power of two that holds one frame of the interface's MTU (9000 at least, should
/// it be raised during the run), whichever is larger. Returns (block size, block count).
///
/// The kernel hands a TPACKET_V3 block to the reader when it is full, or when its retire
/// timer (2 ms) runs out with a frame in it: a slow stream, such as one paced by a token
/// bucket, takes a whole block every 2 ms whatever its size. The number of blocks, not their
/// size, is what bounds how long the reader may be held up (a loaded machine deschedules it)
/// before the kernel, finding every block handed over, drops what arrives: 16 blocks held
/// 32 ms of such a stream.
pub fn ring_blocks(i: &Interface, ring_bytes: usize, min_block: usize) -> (usize, usize) {
    let block = (i.mtu.max(9000) + 14 + 4 + RING_FRAME_OVERHEAD)
        .next_power_of_two()
        .max(min_block)
        .max(4096);
    (block, (ring_bytes / block).max(4))
}

/// Opens the capture ring on `i`, of `ring_bytes` in blocks of at least `min_block` octets
/// ([`ring_blocks`]). Returns it and the warnings.
///
/// # Errors
/// No capability, or the kernel refused the ring.
pub fn open_capture(
    i: &Interface,
    promisc: bool,
    hw_timestamps: bool,
    (ring_bytes, min_block): (usize, usize),
    same_as_tx: bool,
    warnings: &mut Vec<String>,
) -> Result<sys::RxRing, Error> {
    let s = sys::PacketSocket::open(i.index).map_err(|e| socket_error(&i.name, &e))?;
    if let Err(e) = s.set_ignore_outgoing() {
        if same_as_tx {
            return Err(Error::Usage(format!(
                "{}: the kernel refuses PACKET_IGNORE_OUTGOING ({e}; needs Linux 4.20): capturing \
                 on the sending interface would see every frame sent",
                i.name
            )));
        }
        warnings.push(format!("{}: PACKET_IGNORE_OUTGOING refused ({e})", i.name));
    }
    if promisc {
        if let Err(e) = s.set_promiscuous() {
            warnings.push(format!(
                "{}: promiscuous mode refused ({e}): frames to other MAC addresses may be dropped",
                i.name
            ));
        }
    }
    if hw_timestamps {
        if let Err(e) = s.set_hw_timestamps() {
            warnings.push(format!("{}: PACKET_TIMESTAMP refused ({e})", i.name));
        }
    }
    let (block, count) = ring_blocks(i, ring_bytes, min_block);
    sys::RxRing::new(s, block, count).map_err(|e| {
        Error::Usage(format!(
            "{}: the kernel refused a TPACKET_V3 receive ring: {e}",
            i.name
        ))
    })
}

/// Reads a capture's records (DA to end of payload).
///
/// # Errors
/// Unreadable or malformed.
pub fn read_frames(path: &std::path::Path, fcs_included: bool) -> Result<Vec<Vec<u8>>, Error> {
    let frames = FrameReader::open(path, fcs_included)?
        .map(|f| f.map(|f| f.data))
        .collect::<Result<Vec<_>, _>>()?;
    if frames.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the capture holds no frames",
            path.display()
        )));
    }
    Ok(frames)
}

/// Latency statistics, µs.
#[derive(Clone, Debug, Serialize)]
pub struct Latency {
    /// Frames with a latency.
    pub frames: u64,
    /// Minimum.
    pub min_us: f64,
    /// Median.
    pub median_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Maximum.
    pub max_us: f64,
    /// Where the receive times come from: `software` (the kernel's) or `hardware` (the NIC's).
    pub rx_clock: &'static str,
    /// Where the transmit times come from: `software` (the kernel's, from the socket error
    /// queue), `hardware` (the NIC's), or `user (queued)` (when baser queued the frame); at
    /// top speed `(1 frame in 64)` follows: only those frames are stamped and measured.
    pub tx_clock: String,
    /// Frames per latency bin (at most 60 bins of a 1-2-5 width, µs).
    pub histogram: Option<histogram::Histogram>,
}

/// The JSON report of `baser wire`.
#[derive(Clone, Debug, Serialize)]
pub struct WireReport {
    /// Frames file.
    pub frames_file: String,
    /// Expected frames file (None: loopback).
    pub expect_file: Option<String>,
    /// Send interface.
    pub tx: Interface,
    /// Capture interface.
    pub rx: Interface,
    /// `loopback` or `expect`.
    pub mode: &'static str,
    /// Order judged.
    pub ordered: bool,
    /// Tag offset.
    pub tag_offset: Option<usize>,
    /// FCS handling.
    pub tx_fcs: TxFcs,
    /// Transmit path: `ring` or `send`.
    pub tx_path: &'static str,
    /// Sends the kernel refused as queue full (ENOBUFS, e.g. from a tbf or netem limit) and
    /// that were made again: pushback, not loss.
    pub tx_retries: u64,
    /// Frames sent.
    pub sent: u64,
    /// Frames planned.
    pub planned: u64,
    /// Seconds from the first to the last frame sent.
    pub send_seconds: f64,
    /// Frames per second sent.
    pub tx_pps: f64,
    /// Bits per second on the wire (preamble, FCS, IFG counted).
    pub tx_wire_bps: f64,
    /// Frames per second received (first to last arrival).
    pub rx_pps: f64,
    /// Frames the capture ring lost (the capture could not keep up).
    pub capture_dropped: u64,
    /// At top speed: how often the sender waited for the capture (its ring more than half
    /// full), and for how long in all, ms. The sender keeps to the pace at which every frame
    /// is still captured.
    pub capture_pauses: u64,
    /// See `capture_pauses`.
    pub capture_wait_ms: f64,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
    /// Why the capture stopped.
    pub capture_stopped: CaptureStop,
    /// The verdict counts.
    pub counts: judge::Counts,
    /// Latency (loopback only).
    pub latency: Option<Latency>,
    /// Failing frames (at most 10 000).
    pub failures: Vec<judge::FrameVerdict>,
    /// Extra copies.
    pub duplicates: Vec<judge::Duplicate>,
    /// Unrelated frames (at most 10 000).
    pub unexpected: Vec<judge::Unexpected>,
    /// Interface counter deltas, `sysfs:NAME` / `ethtool:NAME`, per interface.
    pub counters: BTreeMap<String, BTreeMap<String, i128>>,
    /// Spans of the run in which an interface's error or drop counters moved, with the
    /// frames sent then.
    pub counter_moves: Vec<CounterMoveReport>,
    /// What baser could not do as asked, and why.
    pub warnings: Vec<String>,
}

/// Watched counters of an interface that moved between two samples (taken every 100 ms),
/// and the frames sent meanwhile.
#[derive(Clone, Debug, Serialize)]
pub struct CounterMoveReport {
    /// The interface.
    pub interface: String,
    /// Seconds from the start of sending to the sample before the move.
    pub from_s: f64,
    /// ... and to the sample after it.
    pub to_s: f64,
    /// Counter (`sysfs:NAME`, `ethtool:NAME`) and by how much it moved.
    pub counters: BTreeMap<String, i128>,
    /// First and last frame sent in that span.
    pub frames_sent: Option<(u64, u64)>,
    /// Frames sent in that span that failed (at most 20).
    pub failed: Vec<u64>,
}

struct Shared {
    sent: AtomicU64,
    done: AtomicBool,
    done_ns: AtomicI64,
    /// The capture ring is more than half full: the sender waits until it is read (at top
    /// speed a sender can outrun the capture, whose ring would then drop frames).
    capture_behind: AtomicBool,
    /// Frames that have reached the capture ring so far (read or not; any frame): at top speed
    /// the sender keeps at most [`IN_FLIGHT`] frames sent and not arrived.
    arrived: AtomicU64,
    /// Sending at top speed: the capture publishes `arrived` often.
    top_speed: bool,
}

struct Capture {
    received: Vec<Received>,
    dropped: u64,
    hardware_time: bool,
    first_ns: i64,
    last_ns: i64,
    stopped: CaptureStop,
}

/// Why the capture stopped (JSON `capture_stopped`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CaptureStop {
    /// Every expected frame was identified at least once (a corrupted frame is not: it was
    /// received, but not as itself), and then nothing arrived for 50 ms.
    #[serde(rename = "all expected frames seen")]
    AllSeen,
    /// `--timeout-ms` passed after the last frame sent before every expected frame was seen.
    #[serde(rename = "timeout")]
    Timeout,
    /// Ctrl-C (or SIGTERM) stopped the run; the capture waited for the frames in flight.
    #[serde(rename = "interrupted")]
    Interrupted,
}

impl CaptureStop {
    /// As in the JSON report.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AllSeen => "all expected frames seen",
            Self::Timeout => "timeout",
            Self::Interrupted => "interrupted",
        }
    }
}

/// Frames with unknown content kept for the report; beyond this only counted.
const KEEP_UNKNOWN: usize = 100_000;

/// How long the kernel may refuse every frame (queue full) before the run stops with an error.
const STALL: Duration = Duration::from_secs(2);

/// At top speed, frames sent and not yet arrived in the capture ring that make the sender wait
/// (until half of them have): the queues between the wire and the capture ring are short (the
/// kernel's per-CPU backlog holds `netdev_max_backlog` frames, 1000 by default; a NIC's
/// receive ring 512 descriptors by default), and a sender that runs further ahead of the
/// receiving CPU loses frames there, before the capture sees them.
const IN_FLIGHT: u64 = 768;

/// How long the sender waits at most for frames in flight that do not arrive (lost, or held by
/// the DUT): after that they no longer count as in flight.
const IN_FLIGHT_WAIT: Duration = Duration::from_millis(2);

/// Captures until every expected position (those sent, in loopback) has been identified at
/// least once, or until `timeout` after the last frame sent. Duplicates, corrupted and
/// unexpected frames never end a capture early: only distinct positions count.
fn capture(
    mut ring: sys::RxRing,
    exp: &Expectation,
    shared: &Shared,
    expected: u64,
    loopback: bool,
    timeout: Duration,
) -> Capture {
    let mut c = Capture {
        received: Vec::new(),
        dropped: 0,
        hardware_time: false,
        first_ns: 0,
        last_ns: 0,
        stopped: CaptureStop::Timeout,
    };
    let _ = ring.socket().statistics(); // reset
    let mut buf = Vec::with_capacity(16384);
    let mut seen = Assigner::new(exp);
    // Once sending is done: the positions that must be seen, and how many of them were.
    let mut target: Option<(u64, u64)> = None;
    let mut kept = 0usize;
    let mut record = |f: sys::RxFrame<'_>,
                      c: &mut Capture,
                      seen: &mut Assigner<'_>,
                      target: &mut Option<(u64, u64)>| {
        // Judged where the ring holds it, unless the kernel took a VLAN tag out of it.
        let frame: &[u8] = if f.vlan.is_some() {
            with_vlan(f.data, f.vlan, &mut buf);
            &buf
        } else {
            f.data
        };
        let ident = exp.identify(frame);
        if let (judge::Assignment::First(p), Some((limit, n))) = (seen.assign(ident), target) {
            if p < *limit {
                *n += 1;
            }
        }
        let data = (ident == Ident::Unknown && kept < KEEP_UNKNOWN).then(|| {
            kept += 1;
            frame.to_vec()
        });
        c.hardware_time |= f.hardware_time;
        c.received.push(Received {
            ident,
            length: frame.len(),
            time_ns: f.time_ns,
            data,
        });
    };
    let mut last_rx = Instant::now();
    let grace = Duration::from_millis(50).min(timeout);
    loop {
        // At top speed the sender needs the arrivals often (IN_FLIGHT).
        let wait = if shared.top_speed && !shared.done.load(Ordering::Relaxed) {
            Duration::from_micros(200)
        } else {
            Duration::from_millis(5)
        };
        let n = ring
            .next_block(wait, |f| {
                record(f, &mut c, &mut seen, &mut target);
            })
            .unwrap_or(0);
        if n > 0 {
            last_rx = Instant::now();
        }
        let unread = ring.unread();
        shared
            .arrived
            .store((c.received.len() + unread.frames) as u64, Ordering::Release);
        let behind = unread.filled_blocks * 2 > ring.block_count();
        if behind != shared.capture_behind.load(Ordering::Relaxed) {
            shared.capture_behind.store(behind, Ordering::Release);
        }
        // After Ctrl-C the sender stops and sets `done`: frames in flight still arrive.
        if shared.done.load(Ordering::Acquire) {
            let sent = shared.sent.load(Ordering::Acquire);
            let done_ns = shared.done_ns.load(Ordering::Acquire);
            let waited = Duration::from_nanos((now_ns() - done_ns).max(0) as u64);
            let (limit, n_seen) = *target.get_or_insert_with(|| {
                let limit = if loopback {
                    expected.min(sent)
                } else {
                    expected
                };
                (limit, seen.seen_below(limit))
            });
            let all = n_seen >= limit;
            if all && n == 0 && last_rx.elapsed() >= grace {
                c.stopped = CaptureStop::AllSeen;
                break;
            }
            if waited > timeout {
                c.stopped = CaptureStop::Timeout;
                break;
            }
        }
    }
    // Whatever is still in the ring.
    while ring
        .next_block(Duration::ZERO, |f| {
            record(f, &mut c, &mut seen, &mut target);
        })
        .unwrap_or(0)
        > 0
    {}
    if sys::stop_requested() {
        c.stopped = CaptureStop::Interrupted;
    }
    c.dropped = ring.socket().statistics().map_or(0, |(_, d)| d);
    c.first_ns = c.received.first().map_or(0, |r| r.time_ns);
    c.last_ns = c.received.last().map_or(0, |r| r.time_ns);
    c
}

enum Sender<'a> {
    Ring(sys::TxRing),
    Mmsg(sys::MmsgSender<'a>),
    Plain(sys::PacketSocket),
}

impl Sender<'_> {
    /// The socket whose error queue carries transmit timestamps (not for a transmit ring, whose
    /// frames leave from mapped slots).
    fn stamped(&self) -> Option<&sys::PacketSocket> {
        match self {
            Self::Ring(_) => None,
            Self::Mmsg(m) => Some(m.socket()),
            Self::Plain(s) => Some(s),
        }
    }
}

/// Why a NIC gives no hardware timestamps, for the warning (software stamps are used).
fn hw_stamp_refusal(name: &str, e: &std::io::Error) -> String {
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
}

/// Runs `baser wire`.
///
/// # Errors
/// Bad usage, unreadable input, a refused interface or socket.
pub fn run(a: &WireArgs, out: Output) -> Result<Verdict, Error> {
    crate::command::check_outputs(
        &[Some(&a.frames), a.expect.as_deref()],
        &[
            a.json.as_deref(),
            a.junit.as_deref(),
            a.latency_svg.as_deref(),
        ],
    )?;
    let mut warnings = Vec::new();
    let base = read_frames(&a.frames, a.fcs_included)?;
    let expect_frames = match &a.expect {
        Some(p) => Some(read_frames(p, a.fcs_included)?),
        None => None,
    };
    let n = base.len() as u64;
    let planned = match (a.count, a.loops) {
        (Some(c), None) => c,
        (None, l) => n.saturating_mul(l.unwrap_or(1)),
        (Some(c), Some(l)) => c.min(n.saturating_mul(l)),
    };
    if a.duration.is_nan() || a.duration <= 0.0 {
        return Err(Error::Usage("--duration must be positive".into()));
    }
    if let Some(off) = a.tag_offset {
        if let Some((i, f)) = base.iter().enumerate().find(|(_, f)| f.len() < off + 4) {
            return Err(Error::Usage(format!(
                "--tag-offset {off}: record {i} has only {} octets (the tag needs {})",
                f.len(),
                off + 4
            )));
        }
    }
    let pace = match (a.rate, a.pps) {
        (Some(r), _) => Pace::Rate(r),
        (None, Some(p)) if p > 0.0 => Pace::Pps(p),
        (None, Some(_)) => return Err(Error::Usage("--pps must be positive".into())),
        (None, None) => Pace::TopSpeed,
    };
    let txi = iface::check(&a.tx, a.force).map_err(Error::Usage)?;
    let rxname = a.rx.clone().unwrap_or_else(|| a.tx.clone());
    let rxi = if rxname == a.tx {
        txi.clone()
    } else {
        iface::check(&rxname, a.force).map_err(Error::Usage)?
    };
    for i in [&txi, &rxi] {
        iface::wait_for_carrier(&i.name, Duration::from_secs(3)).map_err(Error::Usage)?;
    }
    // Frames as they go on the wire.
    let own_fcs = a.tx_fcs != TxFcs::Nic;
    let wire_frame = |f: &[u8]| -> Vec<u8> {
        let mut v = f.to_vec();
        if own_fcs {
            if v.len() < judge::MIN_UNPADDED {
                v.resize(judge::MIN_UNPADDED, 0);
            }
            let mut fcs = mac_core::frame::fcs(&v);
            if a.tx_fcs == TxFcs::Bad {
                fcs ^= 1;
            }
            v.extend_from_slice(&fcs.to_le_bytes());
        }
        v
    };
    let sent_frames: Vec<Vec<u8>> = base.iter().map(|f| wire_frame(f)).collect();
    for (i, f) in sent_frames.iter().enumerate() {
        let tagged = matches!(f.get(12..14), Some([0x81, 0x00] | [0x88, 0xa8]));
        let limit = txi.mtu + 14 + if tagged { 4 } else { 0 };
        if f.len() > limit {
            return Err(Error::Usage(format!(
                "{}: record {i} is {} octets{}: {}'s MTU {} allows at most {limit} octets from the \
                 destination address to the end of the payload (the socket refuses larger \
                 frames); raise it with `ip link set {} mtu N`",
                a.frames.display(),
                f.len(),
                if own_fcs { " with its FCS" } else { "" },
                txi.name,
                txi.mtu,
                txi.name
            )));
        }
    }
    let max_len = sent_frames.iter().map(Vec::len).max().unwrap_or(60);
    // What must arrive.
    let (exp_records, exp_total) = match &expect_frames {
        Some(e) => (e.clone(), e.len() as u64 * a.loops.unwrap_or(1)),
        None => (base.clone(), planned),
    };
    let expectation = Expectation::new(&exp_records, exp_total, a.tag_offset, own_fcs);
    // Offloads and counters.
    match iface::feature(&rxi.name, "rx-all") {
        Feature::Off => warnings.push(format!(
            "{}: rx-all is off: frames with a bad FCS or length are dropped by the NIC and only \
             counted (rx_crc_errors, rx_length_errors); `ethtool -K {} rx-all on` delivers them",
            rxi.name, rxi.name
        )),
        Feature::On | Feature::Fixed | Feature::Unknown => {}
    }
    if iface::feature(&rxi.name, "rx-fcs") == Feature::On {
        warnings.push(format!(
            "{}: rx-fcs is on: received frames carry their FCS (compared without it)",
            rxi.name
        ));
    }
    let before_tx = Counters::read(&txi.name);
    let before_rx = Counters::read(&rxi.name);
    // Sockets. The capture ring: 16 MiB (64 for long runs) in blocks of 64 KiB, so that a
    // slow stream fills it in 0.5 s (2 s) with the capture held up, not in 32 ms.
    let ring_bytes = if planned > 100_000 {
        64 << 20
    } else {
        16 << 20
    };
    let ring = open_capture(
        &rxi,
        !a.no_promisc,
        a.hw_timestamps,
        (ring_bytes, 64 << 10),
        rxi.name == txi.name,
        &mut warnings,
    )?;
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
    let mut sender = if own_fcs {
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
    };
    // Hardware timestamps in the NIC(s), when asked for and the driver has them.
    let mut hw_on = false;
    if a.hw_timestamps {
        let probe = sys::PacketSocket::open(txi.index).map_err(|e| socket_error(&txi.name, &e))?;
        let mut names = vec![txi.name.clone()];
        if rxi.name != txi.name {
            names.push(rxi.name.clone());
        }
        hw_on = true;
        for name in &names {
            if let Err(e) = probe.enable_hw_timestamps(name) {
                hw_on = false;
                warnings.push(hw_stamp_refusal(name, &e));
            }
        }
    }
    // Transmit times from the kernel (the socket error queue), in loopback where latency is
    // measured.
    let mut tx_stamps = TxStamps {
        on: false,
        every: 1,
        got: Vec::new(),
    };
    if a.expect.is_none() {
        // At top speed one frame in 64 is stamped (a stamp costs the kernel a message on the
        // error queue per frame); paced, every frame.
        let every = if pace == Pace::TopSpeed { 64 } else { 1 };
        let refused = |e: std::io::Error| {
            format!(
                "{}: transmit timestamps refused (SO_TIMESTAMPING: {e}): latency counts from \
                 when baser queued each frame",
                txi.name
            )
        };
        match &mut sender {
            Sender::Mmsg(m) => match m.socket().enable_tx_timestamps(hw_on, true) {
                Ok(()) => {
                    m.stamp_every(hw_on, every);
                    tx_stamps.on = true;
                    tx_stamps.every = every;
                }
                Err(e) => warnings.push(refused(e)),
            },
            Sender::Plain(s) => match s.enable_tx_timestamps(hw_on, false) {
                Ok(()) => tx_stamps.on = true,
                Err(e) => warnings.push(refused(e)),
            },
            Sender::Ring(_) => warnings.push(format!(
                "{}: the transmit ring gives no per-frame transmit timestamps: latency counts \
                 from when baser queued each frame (--tx-path sendmmsg for kernel times)",
                txi.name
            )),
        }
    }
    if let Some((tx, rx)) = a.pin {
        // Both CPUs are tried on this thread, which then stays on the sending one.
        for cpu in [rx, tx] {
            sys::pin_current_thread(cpu).map_err(|e| {
                Error::Usage(format!(
                    "--pin {tx},{rx}: the kernel refused CPU {cpu} ({e})"
                ))
            })?;
        }
    }
    sys::catch_interrupt();
    let shared = Arc::new(Shared {
        sent: AtomicU64::new(0),
        done: AtomicBool::new(false),
        done_ns: AtomicI64::new(0),
        capture_behind: AtomicBool::new(false),
        arrived: AtomicU64::new(0),
        top_speed: pace == Pace::TopSpeed,
    });
    let exp = Arc::new(expectation);
    let timeout = Duration::from_millis(a.timeout_ms);
    let rx_thread = {
        let exp = Arc::clone(&exp);
        let shared = Arc::clone(&shared);
        let loopback = a.expect.is_none();
        let expected = if loopback { planned } else { exp_total };
        let pin_rx = a.pin.map(|(_, rx)| rx);
        std::thread::spawn(move || {
            if let Some(cpu) = pin_rx {
                // Already accepted once on the sending thread, before this one started.
                let _ = sys::pin_current_thread(cpu);
            }
            capture(ring, &exp, &shared, expected, loopback, timeout)
        })
    };

    // Send.
    let mut sent_ns: Vec<i64> = Vec::with_capacity(planned.min(1 << 26) as usize);
    let mut pacer = Pacer::new(pace);
    let deadline = Instant::now() + Duration::from_secs_f64(a.duration);
    // The watched counters, sampled every 100 ms until the capture ends.
    let sampling = Arc::new(AtomicBool::new(false));
    let sampler = {
        let stop = Arc::clone(&sampling);
        let mut names = vec![txi.name.clone()];
        if rxi.name != txi.name {
            names.push(rxi.name.clone());
        }
        let first = [(now_ns(), before_tx.clone()), (now_ns(), before_rx.clone())];
        std::thread::spawn(move || {
            let mut samples: Vec<Vec<(i64, Counters)>> =
                names.iter().zip(first).map(|(_, f)| vec![f]).collect();
            loop {
                let last = stop.load(Ordering::Acquire);
                for (name, v) in names.iter().zip(&mut samples) {
                    v.push((now_ns(), Counters::read(name)));
                }
                if last {
                    break;
                }
                let until = Instant::now() + Duration::from_millis(100);
                while Instant::now() < until && !stop.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            names.into_iter().zip(samples).collect::<Vec<_>>()
        })
    };
    let t0_ns = now_ns();
    let t0 = Instant::now();
    let mut scratch = Vec::with_capacity(max_len);
    let mut wire_octets = 0u64;
    let mut send_error = None;
    let mut plain_retried = 0u64;
    let batch = if pace == Pace::TopSpeed { 256 } else { 1 };
    let (mut capture_pauses, mut capture_wait) = (0u64, Duration::ZERO);
    // Frames sent that had not reached the capture IN_FLIGHT_WAIT into a pause: not in flight.
    let mut written_off = 0u64;
    for p in 0..planned {
        if sys::stop_requested() || (p % 64 == 0 && Instant::now() > deadline) {
            break;
        }
        let rec = (p % n) as usize;
        let Some(f) = sent_frames.get(rec) else { break };
        let frame: &[u8] = match a.tag_offset {
            Some(off) => {
                scratch.clear();
                scratch.extend_from_slice(f);
                if let Some(t) = scratch.get_mut(off..off + 4) {
                    t.copy_from_slice(&(p as u32).to_be_bytes());
                }
                &scratch
            }
            None => f,
        };
        let octets = pace::wire_octets(frame.len(), own_fcs);
        if let Some(at) = pacer.book(octets) {
            pace::wait_until(at);
        }
        if pace == Pace::TopSpeed {
            // Frames handed to the kernel (or queued for it) that have not reached the capture.
            let in_flight =
                |off: u64| p.saturating_sub(off + shared.arrived.load(Ordering::Acquire));
            if shared.capture_behind.load(Ordering::Relaxed) || in_flight(written_off) > IN_FLIGHT {
                capture_pauses += 1;
                let since = Instant::now();
                loop {
                    if since.elapsed() > IN_FLIGHT_WAIT && in_flight(written_off) > IN_FLIGHT / 2 {
                        // What has not arrived by now is lost or held: no longer in flight.
                        written_off = p
                            .saturating_sub(shared.arrived.load(Ordering::Acquire) + IN_FLIGHT / 2);
                    }
                    let ring_behind = shared.capture_behind.load(Ordering::Acquire);
                    if (!ring_behind && in_flight(written_off) <= IN_FLIGHT / 2)
                        || since.elapsed() >= STALL
                        || sys::stop_requested()
                    {
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(50));
                }
                capture_wait += since.elapsed();
            }
        }
        sent_ns.push(now_ns());
        let r = match &mut sender {
            Sender::Ring(r) => match r.push(frame) {
                Ok(true) => {
                    if r.queued() >= batch {
                        r.flush()
                    } else {
                        Ok(())
                    }
                }
                Ok(false) => break,
                Err(e) => Err(e),
            },
            Sender::Mmsg(m) => {
                // A tagged frame is built in `scratch`: the sender keeps a copy of it.
                if a.tag_offset.is_some() {
                    m.push(frame);
                } else {
                    m.push_borrowed(f);
                }
                if m.queued() >= batch {
                    m.flush(STALL)
                } else {
                    Ok(())
                }
            }
            Sender::Plain(s) => send_plain(s, frame, &mut plain_retried),
        };
        if p % 256 == 255 {
            tx_stamps.take(&sender);
        }
        if let Err(e) = r {
            send_error = Some(e);
            sent_ns.pop();
            break;
        }
        wire_octets += octets;
        shared.sent.store(p + 1, Ordering::Release);
    }
    match &mut sender {
        Sender::Ring(r) => {
            if let Err(e) = r.drain(STALL) {
                send_error.get_or_insert(e);
            }
        }
        Sender::Mmsg(m) => {
            if let Err(e) = m.flush(STALL) {
                send_error.get_or_insert(e);
            }
        }
        Sender::Plain(_) => {}
    }
    let send_seconds = t0.elapsed().as_secs_f64();
    let sent = sent_ns.len() as u64;
    // The last transmit stamps arrive as the driver takes the frames.
    let stamp_wait = Instant::now() + Duration::from_millis(500);
    while tx_stamps.on {
        tx_stamps.take(&sender);
        if tx_stamps.got.len() as u64 >= tx_stamps.due(sent, hw_on) || Instant::now() > stamp_wait {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    shared.sent.store(sent, Ordering::Release);
    shared.done_ns.store(now_ns(), Ordering::Release);
    shared.done.store(true, Ordering::Release);
    let cap = rx_thread
        .join()
        .map_err(|_| Error::Usage("the capture thread failed".into()))?;
    if let Some(e) = send_error {
        let msg =
            match e.raw_os_error() {
                Some(libc::EMSGSIZE) => format!(
                    "{}: the socket refused a frame as too large (EMSGSIZE) after {sent} frames: \
                 frames may be at most MTU {} + 14 octets",
                    txi.name, txi.mtu
                ),
                Some(libc::EPROTONOSUPPORT) if own_fcs => {
                    format!(
                "{}: the driver does not support sending frames with their own FCS (SO_NOFCS \
                 needs IFF_SUPP_NOFCS): --tx-fcs {} cannot be used on this interface",
                txi.name,
                if a.tx_fcs == TxFcs::Bad { "bad" } else { "model" }
            )
                }
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
        return Err(Error::Usage(msg));
    }
    let interrupted = sys::stop_requested();
    sampling.store(true, Ordering::Release);
    let samples = sampler.join().unwrap_or_default();
    let after_tx = Counters::read(&txi.name);
    let after_rx = Counters::read(&rxi.name);
    // Judge: in loopback only what was sent can come back.
    let exp = Arc::try_unwrap(exp)
        .unwrap_or_else(|e| Expectation::new(&exp_records, e.total(), a.tag_offset, own_fcs));
    let exp = if a.expect.is_none() && sent < exp.total() {
        Expectation::new(&exp_records, sent, a.tag_offset, own_fcs)
    } else {
        exp
    };
    // Kernel transmit times replace the queue times when every frame has one from the clock
    // the capture uses (the NIC's when it stamps received frames, else the kernel's).
    let mut tx_clock = "user (queued)".to_string();
    if tx_stamps.on {
        let want_hw = cap.hardware_time;
        let every = tx_stamps.every as usize;
        let stamped = sent_ns.len().div_ceil(every);
        let mut kernel: Vec<Option<i64>> = vec![None; stamped];
        for &(id, ns, hw) in &tx_stamps.got {
            if hw == want_hw {
                if let Some(k) = kernel.get_mut(id as usize) {
                    *k = Some(ns);
                }
            }
        }
        let missing = kernel.iter().filter(|k| k.is_none()).count();
        let clock = if want_hw { "hardware" } else { "software" };
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
                "{}: {missing} of {stamped} frames had no {clock} transmit timestamp: latency \
                 counts from when baser queued each frame",
                txi.name,
            ));
        }
    }
    let stamps: &[i64] = if a.expect.is_none() { &sent_ns } else { &[] };
    let j = judge::judge(
        &exp,
        &cap.received,
        &JudgeOptions {
            ordered: !a.unordered,
            // A live link carries other traffic: an unknown frame is corrupted only when it
            // resembles a frame not received.
            pair_between_neighbours: false,
            sent_ns: stamps,
        },
    );
    let mut counters = BTreeMap::new();
    counters.insert(txi.name.clone(), after_tx.delta(&before_tx));
    if rxi.name != txi.name {
        counters.insert(rxi.name.clone(), after_rx.delta(&before_rx));
    }
    let rx_errors: Vec<(String, i128)> = counters
        .get(&rxi.name)
        .map(|d| {
            iface::ERROR_COUNTERS
                .iter()
                .filter_map(|k| {
                    d.get(*k)
                        .filter(|v| **v > 0)
                        .map(|v| ((*k).to_string(), *v))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut lat: Vec<i64> = j.frames.iter().filter_map(|f| f.latency_ns).collect();
    lat.sort_unstable();
    let q = |x: f64| {
        let i = ((lat.len() as f64 - 1.0) * x).round() as usize;
        lat.get(i).copied().unwrap_or(0) as f64 / 1e3
    };
    let latency = (!lat.is_empty()).then(|| Latency {
        frames: lat.len() as u64,
        min_us: q(0.0),
        median_us: q(0.5),
        p99_us: q(0.99),
        max_us: q(1.0),
        rx_clock: if cap.hardware_time {
            "hardware"
        } else {
            "software"
        },
        tx_clock,
        histogram: histogram::histogram(&lat, 60),
    });
    let failed_positions: Vec<u64> = j
        .frames
        .iter()
        .filter(|f| f.failed())
        .map(|f| f.position)
        .collect();
    let counter_moves = attribute_moves(&samples, &sent_ns, &failed_positions, t0_ns);
    let rx_span = (cap.last_ns - cap.first_ns) as f64 / 1e9;
    let rep = WireReport {
        frames_file: a.frames.display().to_string(),
        expect_file: a.expect.as_ref().map(|p| p.display().to_string()),
        tx: txi.clone(),
        rx: rxi.clone(),
        mode: if a.expect.is_some() {
            "expect"
        } else {
            "loopback"
        },
        ordered: !a.unordered,
        tag_offset: a.tag_offset,
        tx_fcs: a.tx_fcs,
        tx_path: match sender {
            Sender::Ring(_) => "ring",
            Sender::Mmsg(_) => "sendmmsg",
            Sender::Plain(_) => "send",
        },
        tx_retries: match &sender {
            Sender::Mmsg(m) => m.retried,
            Sender::Plain(_) => plain_retried,
            Sender::Ring(_) => 0,
        },
        sent,
        planned,
        send_seconds,
        tx_pps: if send_seconds > 0.0 {
            sent as f64 / send_seconds
        } else {
            0.0
        },
        tx_wire_bps: if send_seconds > 0.0 {
            wire_octets as f64 * 8.0 / send_seconds
        } else {
            0.0
        },
        rx_pps: if rx_span > 0.0 {
            cap.received.len() as f64 / rx_span
        } else {
            0.0
        },
        capture_dropped: cap.dropped,
        capture_pauses,
        capture_wait_ms: capture_wait.as_secs_f64() * 1e3,
        interrupted,
        capture_stopped: cap.stopped,
        counts: j.counts.clone(),
        latency,
        failures: j
            .frames
            .iter()
            .filter(|f| f.failed())
            .take(10_000)
            .cloned()
            .collect(),
        duplicates: j.duplicates.iter().take(10_000).cloned().collect(),
        unexpected: j.unexpected.iter().take(10_000).cloned().collect(),
        counters,
        counter_moves,
        warnings,
    };
    // Cases.
    let mut cases = Vec::new();
    let per_frame = j.frames.len() <= 10_000;
    // Named only when kept: a million names nobody reads cost a tenth of a second.
    let name = |f: &judge::FrameVerdict| {
        format!(
            "frame {} (record {}, {} octets)",
            f.position, f.record, f.length
        )
    };
    for f in &j.frames {
        if !f.failed() {
            if per_frame {
                cases.push(Case::pass("wire.frames", name(f)));
            }
            continue;
        }
        if cases.len() < 10_000 {
            let (msg, detail) = describe(f);
            cases.push(Case::fail("wire.frames", name(f), msg, detail));
        }
    }
    let c = &j.counts;
    cases.push(summary_case(
        "every expected frame matched",
        c.matched == c.expected && c.duplicated == 0,
        format!(
            "{} of {} matched; missing {}, corrupted {}, reordered {}, duplicated {}",
            c.matched, c.expected, c.missing, c.corrupted, c.reordered, c.duplicated
        ),
    ));
    let unexpected_ok = !a.strict || c.unexpected == 0;
    cases.push(summary_case(
        "no unexpected frames",
        unexpected_ok,
        format!("{} frames matched no expected frame", c.unexpected),
    ));
    cases.push(summary_case(
        "capture kept up",
        cap.dropped == 0,
        format!(
            "the capture ring dropped {} frames: they count as missing",
            cap.dropped
        ),
    ));
    cases.push(summary_case(
        "no receive errors counted by the capture interface",
        rx_errors.is_empty(),
        format!(
            "{}: {}",
            rxi.name,
            rx_errors
                .iter()
                .map(|(k, v)| format!("{k} +{v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    cases.push(summary_case(
        "run completed",
        !interrupted,
        format!("interrupted after {sent} of {planned} frames"),
    ));
    let reports = Reports {
        json: a.json.clone(),
        junit: a.junit.clone(),
        html: None,
        max_report: a.max_report,
    };
    reports.write("baser wire", &rep, &cases)?;
    if let Some(path) = &a.latency_svg {
        let picture = rep.latency.as_ref().and_then(|l| {
            l.histogram.as_ref().map(|h| {
                histogram::svg(
                    h,
                    &format!(
                        "baser wire {}: latency of {} frames (sent: {} clock, received: {} clock)",
                        txi.name, l.frames, l.tx_clock, l.rx_clock
                    ),
                    &[
                        ("median", l.median_us),
                        ("p99", l.p99_us),
                        ("max", l.max_us),
                    ],
                )
            })
        });
        match picture {
            Some(svg) => std::fs::write(path, svg).map_err(|e| Error::Output(path.clone(), e))?,
            None => warn_no_latency_to_draw(path),
        }
    }
    let failed = cases.iter().any(Case::failed);
    if !out.quiet {
        print_summary(&rep, &cases, a.max_report, failed, out);
    }
    Ok(if failed { Verdict::Fail } else { Verdict::Pass })
}

/// The spans in which watched counters moved, each with the frames sent in it (`sent_ns[p]`:
/// when frame `p` was sent, in order) and those of them that failed (`failed`: positions,
/// ascending); times from `t0_ns`.
fn attribute_moves(
    samples: &[(String, Vec<(i64, Counters)>)],
    sent_ns: &[i64],
    failed: &[u64],
    t0_ns: i64,
) -> Vec<CounterMoveReport> {
    let mut out = Vec::new();
    for (name, v) in samples {
        for m in iface::counter_moves(v, &iface::WATCHED_COUNTERS) {
            let lo = sent_ns.partition_point(|&t| t < m.from_ns) as u64;
            let hi = sent_ns.partition_point(|&t| t <= m.to_ns) as u64;
            out.push(CounterMoveReport {
                interface: name.clone(),
                from_s: ((m.from_ns - t0_ns) as f64 / 1e9).max(0.0),
                to_s: (m.to_ns - t0_ns) as f64 / 1e9,
                counters: m.deltas,
                frames_sent: (lo < hi).then(|| (lo, hi - 1)),
                failed: failed
                    .iter()
                    .copied()
                    .filter(|p| (lo..hi).contains(p))
                    .take(20)
                    .collect(),
            });
        }
    }
    out
}

/// `--latency-svg` without a latency to draw (expected-frames mode, or nothing came back).
fn warn_no_latency_to_draw(path: &std::path::Path) {
    eprintln!(
        "baser wire: no latency to draw in {} (latency is measured in loopback, on frames that \
         came back)",
        path.display()
    );
}

/// `--pin TX,RX`: two CPU numbers.
fn parse_pin(s: &str) -> Result<(usize, usize), String> {
    let (tx, rx) = s
        .split_once(',')
        .ok_or_else(|| format!("expected TX_CPU,RX_CPU (e.g. 0,1), got {s:?}"))?;
    let cpu = |v: &str| {
        v.trim()
            .parse::<usize>()
            .map_err(|_| format!("{v:?} is not a CPU number"))
    };
    Ok((cpu(tx)?, cpu(rx)?))
}

/// Sends one frame, again while the kernel refuses it as queue full (ENOBUFS/EAGAIN: the frame
/// was not sent), counting those retries, up to [`STALL`] without progress.
fn send_plain(s: &sys::PacketSocket, frame: &[u8], retried: &mut u64) -> std::io::Result<()> {
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

fn summary_case(name: &str, pass: bool, msg: String) -> Case {
    if pass {
        Case::pass("wire", name)
    } else {
        Case::fail("wire", name, msg, None)
    }
}

fn describe(f: &judge::FrameVerdict) -> (String, Option<String>) {
    let dup = if f.duplicates > 0 {
        format!(" and duplicated ({} extra copies)", f.duplicates)
    } else {
        String::new()
    };
    match f.status {
        Status::Matched => (format!("duplicated ({} extra copies)", f.duplicates), None),
        Status::Reordered => (
            format!(
                "reordered (arrived as frame {}){dup}",
                f.received_index.unwrap_or(0)
            ),
            None,
        ),
        Status::Missing => ("missing".into(), None),
        Status::Corrupted => {
            let d = f.first_difference.as_ref();
            let hex = |b: Option<u8>| b.map_or("end".to_string(), |b| format!("{b:02x}"));
            (
                format!(
                    "corrupted: first difference at octet {}: expected {}, received {}",
                    d.map_or(0, |d| d.offset),
                    hex(d.and_then(|d| d.expected)),
                    hex(d.and_then(|d| d.actual))
                ),
                Some(format!(
                    "received as frame {}",
                    f.received_index.unwrap_or(0)
                )),
            )
        }
    }
}

fn print_summary(rep: &WireReport, cases: &[Case], max_report: usize, failed: bool, out: Output) {
    let stdout = std::io::stdout();
    let mut o = stdout.lock();
    for w in &rep.warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    let c = &rep.counts;
    let _ = writeln!(
        o,
        "baser wire: {} -> {} ({}, {}, tx {}{}): sent {} of {} frames in {:.3} s ({:.0} frames/s, {:.3} Gb/s on the wire){}",
        rep.tx.name,
        rep.rx.name,
        rep.mode,
        if rep.ordered { "ordered" } else { "unordered" },
        rep.tx_path,
        rep.tx
            .qdisc
            .as_ref()
            .map_or(String::new(), |q| format!(" through qdisc {q}")),
        rep.sent,
        rep.planned,
        rep.send_seconds,
        rep.tx_pps,
        rep.tx_wire_bps / 1e9,
        if rep.interrupted { " (interrupted)" } else { "" }
    );
    let _ = writeln!(
        o,
        "  received {}: matched {}, missing {}, corrupted {}, reordered {}, duplicated {}, unexpected {} (of {} expected); capture dropped {}",
        c.received, c.matched, c.missing, c.corrupted, c.reordered, c.duplicated, c.unexpected, c.expected, rep.capture_dropped
    );
    let _ = writeln!(o, "  capture stopped: {}", rep.capture_stopped.as_str());
    if rep.tx_retries > 0 {
        let _ = writeln!(
            o,
            "  transmit pushback: {} sends refused as queue full (ENOBUFS) and made again",
            rep.tx_retries
        );
    }
    if rep.capture_pauses > 0 {
        let _ = writeln!(
            o,
            "  paced to the capture: the sender waited {:.1} ms in {} pauses for the capture to catch up (at top speed it outran the capture)",
            rep.capture_wait_ms, rep.capture_pauses
        );
    }
    if let Some(l) = &rep.latency {
        let _ = writeln!(
            o,
            "  latency ({} frames; sent: {} clock, received: {} clock): min {:.1} us, median {:.1} us, p99 {:.1} us, max {:.1} us",
            l.frames, l.tx_clock, l.rx_clock, l.min_us, l.median_us, l.p99_us, l.max_us
        );
    }
    for (ifname, d) in &rep.counters {
        let interesting: Vec<String> = d
            .iter()
            .filter(|(k, _)| {
                k.contains("err")
                    || k.contains("drop")
                    || k.contains("packets")
                    || k.contains("crc")
            })
            .map(|(k, v)| format!("{k} {v:+}"))
            .collect();
        if !interesting.is_empty() {
            let _ = writeln!(o, "  {ifname} counters: {}", interesting.join(", "));
        }
    }
    for m in &rep.counter_moves {
        let moved: Vec<String> = m
            .counters
            .iter()
            .map(|(k, v)| format!("{k} {v:+}"))
            .collect();
        let frames = match m.frames_sent {
            Some((a, b)) => format!("frames {a}..{b} sent then"),
            None => "no frame sent then".into(),
        };
        let failed = if m.failed.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = m.failed.iter().map(u64::to_string).collect();
            format!("; failing among them: {}", list.join(", "))
        };
        let _ = writeln!(
            o,
            "  {}: {} between {:.2} s and {:.2} s ({frames}{failed})",
            m.interface,
            moved.join(", "),
            m.from_s,
            m.to_s
        );
    }
    for u in rep.unexpected.iter().take(max_report) {
        let _ = writeln!(
            o,
            "  unexpected frame {} ({} octets, type {}): {}",
            u.received_index,
            u.length,
            u.ether_type.as_deref().unwrap_or("?"),
            u.head.get(..64.min(u.head.len())).unwrap_or("")
        );
    }
    if out.verbose > 0 {
        let _ = report::write_passes(&mut o, cases);
    }
    let _ = report::write_failures(&mut o, cases, max_report.max(1));
    let _ = writeln!(o, "{}", if failed { "FAIL" } else { "PASS" });
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

    #[test]
    fn counter_moves_name_the_frames_sent_meanwhile_and_their_failures() {
        let base = Counters::default();
        let mut dropped = base.clone();
        dropped.sysfs.insert("tx_dropped".into(), 7);
        let mut rx_only = dropped.clone();
        // Not watched.
        rx_only.sysfs.insert("rx_packets".into(), 1000);
        // Samples at 0, 100, 200, 300 ms (t0 = 0); the drop counter moves between 100 and
        // 200 ms.
        let ms = 1_000_000i64;
        let samples = vec![(
            "bsr0".to_string(),
            vec![
                (0, base.clone()),
                (100 * ms, base),
                (200 * ms, dropped),
                (300 * ms, rx_only),
            ],
        )];
        // Frame p sent at p ms: frames 100..=200 are in the span.
        let sent: Vec<i64> = (0..300).map(|p| p * ms).collect();
        let failed = [5, 120, 150, 199, 250];
        let r = attribute_moves(&samples, &sent, &failed, 0);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].interface, "bsr0");
        assert_eq!((r[0].from_s, r[0].to_s), (0.1, 0.2));
        assert_eq!(r[0].counters["sysfs:tx_dropped"], 7);
        assert_eq!(r[0].frames_sent, Some((100, 200)));
        assert_eq!(r[0].failed, vec![120, 150, 199]);
        // No frame sent in the span: none named.
        let r = attribute_moves(&samples, &sent[..50], &failed, 0);
        assert_eq!(r[0].frames_sent, None);
        assert!(r[0].failed.is_empty());
    }
}
