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
mod send;
pub mod sys;

use crate::command::{Error, Output, Reports, Verdict};
use crate::report::{self, Case};
use baser_engine::judge::{self, Assigner, Expectation, Ident, JudgeOptions, Received, Status};
use baser_files::pcap::FrameReader;
use iface::{Counters, Feature, Interface};
use pace::Pace;
use send::{Sent, Transmitter};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
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
    /// the sender keeps at most [`send::IN_FLIGHT`] frames sent and not arrived.
    arrived: AtomicU64,
    /// Sending at top speed: the capture publishes `arrived` often.
    top_speed: bool,
}

impl Shared {
    /// Nothing sent, nothing arrived; `pace` tells whether sending is at top speed.
    fn new(pace: Pace) -> Self {
        Self {
            sent: AtomicU64::new(0),
            done: AtomicBool::new(false),
            done_ns: AtomicI64::new(0),
            capture_behind: AtomicBool::new(false),
            arrived: AtomicU64::new(0),
            top_speed: pace == Pace::TopSpeed,
        }
    }

    /// Tells the capture that sending is over, after `sent` frames.
    fn sending_done(&self, sent: u64) {
        self.sent.store(sent, Ordering::Release);
        self.done_ns.store(now_ns(), Ordering::Release);
        self.done.store(true, Ordering::Release);
    }
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
    let plan = Plan::new(a)?;
    let (txi, rxi) = interfaces(a)?;
    let sent_frames = wire_frames(a, &plan.base, &txi)?;
    let o = exchange(a, &plan, (&txi, &rxi), &sent_frames, &mut warnings)?;
    let j = judge_outcome(a, &o);
    let rep = wire_report(a, plan.planned, (txi, rxi), &o, &j, warnings);
    let cases = cases(&j, &rep, a.strict);
    let reports = Reports {
        json: a.json.clone(),
        junit: a.junit.clone(),
        html: None,
        max_report: a.max_report,
    };
    reports.write("baser wire", &rep, &cases)?;
    if let Some(path) = &a.latency_svg {
        write_latency_svg(path, &rep)?;
    }
    let failed = cases.iter().any(Case::failed);
    if !out.quiet {
        print_summary(&rep, &cases, a.max_report, failed, out);
    }
    Ok(if failed { Verdict::Fail } else { Verdict::Pass })
}

impl WireArgs {
    /// baser appends the FCS of the frames sent (`--tx-fcs model|bad`).
    fn own_fcs(&self) -> bool {
        self.tx_fcs != TxFcs::Nic
    }
}

/// What a run sends and expects, from the arguments and the captures they name.
struct Plan {
    /// The records of `--frames`.
    base: Vec<Vec<u8>>,
    /// Frames to send.
    planned: u64,
    pace: Pace,
    /// The records that must arrive (`--expect`, else `--frames`)...
    exp_records: Vec<Vec<u8>>,
    /// ... and how many frames of them.
    exp_total: u64,
}

impl Plan {
    /// Reads the captures and checks the arguments about them.
    ///
    /// # Errors
    /// An unreadable capture, or bad usage.
    fn new(a: &WireArgs) -> Result<Self, Error> {
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
        // What must arrive.
        let (exp_records, exp_total) = match expect_frames {
            Some(e) => {
                let total = e.len() as u64 * a.loops.unwrap_or(1);
                (e, total)
            }
            None => (base.clone(), planned),
        };
        Ok(Self {
            base,
            planned,
            pace,
            exp_records,
            exp_total,
        })
    }
}

/// The send and the capture interface, checked, with a carrier.
///
/// # Errors
/// An interface refused by [`iface::check`], or without a carrier.
fn interfaces(a: &WireArgs) -> Result<(Interface, Interface), Error> {
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
    Ok((txi, rxi))
}

/// The frame `f` as it goes on the wire: padded and with the FCS baser appends, if it does.
fn wire_frame(f: &[u8], tx_fcs: TxFcs) -> Vec<u8> {
    let mut v = f.to_vec();
    if tx_fcs != TxFcs::Nic {
        if v.len() < judge::MIN_UNPADDED {
            v.resize(judge::MIN_UNPADDED, 0);
        }
        let mut fcs = mac_core::frame::fcs(&v);
        if tx_fcs == TxFcs::Bad {
            fcs ^= 1;
        }
        v.extend_from_slice(&fcs.to_le_bytes());
    }
    v
}

/// The records of `base` as they go on the wire ([`wire_frame`]).
///
/// # Errors
/// A frame larger than the MTU of `txi` allows.
fn wire_frames(a: &WireArgs, base: &[Vec<u8>], txi: &Interface) -> Result<Vec<Vec<u8>>, Error> {
    let own_fcs = a.own_fcs();
    let sent_frames: Vec<Vec<u8>> = base.iter().map(|f| wire_frame(f, a.tx_fcs)).collect();
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
    Ok(sent_frames)
}

/// Warns of the capture interface's offloads that change what the capture sees.
fn warn_offloads(rxi: &Interface, warnings: &mut Vec<String>) {
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
}

/// Opens the capture ring on `rxi` for a run of `planned` frames ([`open_capture`]).
///
/// # Errors
/// As [`open_capture`].
fn open_capture_ring(
    a: &WireArgs,
    txi: &Interface,
    rxi: &Interface,
    planned: u64,
    warnings: &mut Vec<String>,
) -> Result<sys::RxRing, Error> {
    // The capture ring: 16 MiB (64 for long runs) in blocks of 64 KiB, so that a slow stream
    // fills it in 0.5 s (2 s) with the capture held up, not in 32 ms.
    let ring_bytes = if planned > 100_000 {
        64 << 20
    } else {
        16 << 20
    };
    open_capture(
        rxi,
        !a.no_promisc,
        a.hw_timestamps,
        (ring_bytes, 64 << 10),
        rxi.name == txi.name,
        warnings,
    )
}

/// `--pin TX,RX`: both CPUs are tried on this thread, which then stays on the sending one.
///
/// # Errors
/// The kernel refused a CPU.
fn pin_sending_thread(pin: Option<(usize, usize)>) -> Result<(), Error> {
    if let Some((tx, rx)) = pin {
        for cpu in [rx, tx] {
            sys::pin_current_thread(cpu).map_err(|e| {
                Error::Usage(format!(
                    "--pin {tx},{rx}: the kernel refused CPU {cpu} ({e})"
                ))
            })?;
        }
    }
    Ok(())
}

/// Starts the capture thread ([`capture`]) on `ring`, pinned to the `--pin` RX CPU.
fn spawn_capture(
    a: &WireArgs,
    plan: &Plan,
    ring: sys::RxRing,
    exp: &Arc<Expectation>,
    shared: &Arc<Shared>,
) -> JoinHandle<Capture> {
    let exp = Arc::clone(exp);
    let shared = Arc::clone(shared);
    let timeout = Duration::from_millis(a.timeout_ms);
    let loopback = a.expect.is_none();
    let expected = if loopback {
        plan.planned
    } else {
        plan.exp_total
    };
    let pin_rx = a.pin.map(|(_, rx)| rx);
    std::thread::spawn(move || {
        if let Some(cpu) = pin_rx {
            // Already accepted once on the sending thread, before this one started.
            let _ = sys::pin_current_thread(cpu);
        }
        capture(ring, &exp, &shared, expected, loopback, timeout)
    })
}

/// Samples of the watched counters per interface: `(ns, counters)`, in time order.
type Samples = Vec<(String, Vec<(i64, Counters)>)>;

/// Starts the thread that samples the counters of `txi` and `rxi` (once if they are the
/// same) every 100 ms, from `before`, until `stop` is set.
fn spawn_sampler(
    txi: &Interface,
    rxi: &Interface,
    (before_tx, before_rx): (&Counters, &Counters),
    stop: Arc<AtomicBool>,
) -> JoinHandle<Samples> {
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
}

/// What a run sent and captured, for the judge and the report.
struct Outcome<'a> {
    /// Kept until the report is written.
    tx: Transmitter<'a>,
    sent: Sent,
    cap: Capture,
    /// The expected frames: in loopback, only those sent.
    exp: Expectation,
    interrupted: bool,
    samples: Samples,
    /// Interface counter deltas over the run, per interface.
    counters: BTreeMap<String, BTreeMap<String, i128>>,
    /// JSON `tx_clock`.
    tx_clock: String,
}

/// Sends `frames` from `txi` and captures on `rxi`: opens the sockets, starts the capture
/// and the counter sampler, sends, and collects what they saw.
///
/// # Errors
/// A refused socket, ring or CPU, a send that failed, or a capture thread that failed.
fn exchange<'a>(
    a: &WireArgs,
    plan: &Plan,
    (txi, rxi): (&Interface, &Interface),
    frames: &'a [Vec<u8>],
    warnings: &mut Vec<String>,
) -> Result<Outcome<'a>, Error> {
    let own_fcs = a.own_fcs();
    let max_len = frames.iter().map(Vec::len).max().unwrap_or(60);
    let expectation = Expectation::new(&plan.exp_records, plan.exp_total, a.tag_offset, own_fcs);
    warn_offloads(rxi, warnings);
    let before_tx = Counters::read(&txi.name);
    let before_rx = Counters::read(&rxi.name);
    let ring = open_capture_ring(a, txi, rxi, plan.planned, warnings)?;
    let mut tx = Transmitter::open(a, txi, rxi, max_len, plan.pace, warnings)?;
    pin_sending_thread(a.pin)?;
    sys::catch_interrupt();
    let shared = Arc::new(Shared::new(plan.pace));
    let exp = Arc::new(expectation);
    let rx_thread = spawn_capture(a, plan, ring, &exp, &shared);
    let deadline = Instant::now() + Duration::from_secs_f64(a.duration);
    // The watched counters, sampled every 100 ms until the capture ends.
    let sampling = Arc::new(AtomicBool::new(false));
    let sampler = spawn_sampler(txi, rxi, (&before_tx, &before_rx), Arc::clone(&sampling));
    let mut sent = tx.send_all(a, frames, (plan.planned, plan.pace), &shared, deadline);
    shared.sending_done(sent.count());
    let cap = rx_thread
        .join()
        .map_err(|_| Error::Usage("the capture thread failed".into()))?;
    if let Some(e) = &sent.error {
        return Err(send::send_error(e, sent.count(), a, txi));
    }
    let interrupted = sys::stop_requested();
    sampling.store(true, Ordering::Release);
    let samples = sampler.join().unwrap_or_default();
    let after_tx = Counters::read(&txi.name);
    let after_rx = Counters::read(&rxi.name);
    // Judge: in loopback only what was sent can come back.
    let exp = Arc::try_unwrap(exp)
        .unwrap_or_else(|e| Expectation::new(&plan.exp_records, e.total(), a.tag_offset, own_fcs));
    let exp = if a.expect.is_none() && sent.count() < exp.total() {
        Expectation::new(&plan.exp_records, sent.count(), a.tag_offset, own_fcs)
    } else {
        exp
    };
    let tx_clock = tx.clock(&mut sent.sent_ns, cap.hardware_time, &txi.name, warnings);
    let mut counters = BTreeMap::new();
    counters.insert(txi.name.clone(), after_tx.delta(&before_tx));
    if rxi.name != txi.name {
        counters.insert(rxi.name.clone(), after_rx.delta(&before_rx));
    }
    Ok(Outcome {
        tx,
        sent,
        cap,
        exp,
        interrupted,
        samples,
        counters,
        tx_clock,
    })
}

/// Judges what the capture received (with latencies, in loopback).
fn judge_outcome(a: &WireArgs, o: &Outcome) -> judge::Judgement {
    let stamps: &[i64] = if a.expect.is_none() {
        &o.sent.sent_ns
    } else {
        &[]
    };
    judge::judge(
        &o.exp,
        &o.cap.received,
        &JudgeOptions {
            ordered: !a.unordered,
            // A live link carries other traffic: an unknown frame is corrupted only when it
            // resembles a frame not received.
            pair_between_neighbours: false,
            sent_ns: stamps,
        },
    )
}

/// Latency statistics of the frames of `j` that have one.
fn latency(j: &judge::Judgement, hardware_time: bool, tx_clock: String) -> Option<Latency> {
    let mut lat: Vec<i64> = j.frames.iter().filter_map(|f| f.latency_ns).collect();
    lat.sort_unstable();
    let q = |x: f64| {
        let i = ((lat.len() as f64 - 1.0) * x).round() as usize;
        lat.get(i).copied().unwrap_or(0) as f64 / 1e3
    };
    (!lat.is_empty()).then(|| Latency {
        frames: lat.len() as u64,
        min_us: q(0.0),
        median_us: q(0.5),
        p99_us: q(0.99),
        max_us: q(1.0),
        rx_clock: if hardware_time {
            "hardware"
        } else {
            "software"
        },
        tx_clock,
        histogram: histogram::histogram(&lat, 60),
    })
}

/// `x` per second over `seconds` (0 for no time).
fn per_second(x: f64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        x / seconds
    } else {
        0.0
    }
}

/// The JSON report of the run.
fn wire_report(
    a: &WireArgs,
    planned: u64,
    (txi, rxi): (Interface, Interface),
    o: &Outcome,
    j: &judge::Judgement,
    warnings: Vec<String>,
) -> WireReport {
    let failed_positions: Vec<u64> = j
        .frames
        .iter()
        .filter(|f| f.failed())
        .map(|f| f.position)
        .collect();
    let counter_moves =
        attribute_moves(&o.samples, &o.sent.sent_ns, &failed_positions, o.sent.t0_ns);
    let cap = &o.cap;
    let rx_span = (cap.last_ns - cap.first_ns) as f64 / 1e9;
    let (sent, send_seconds) = (o.sent.count(), o.sent.seconds);
    WireReport {
        frames_file: a.frames.display().to_string(),
        expect_file: a.expect.as_ref().map(|p| p.display().to_string()),
        tx: txi,
        rx: rxi,
        mode: if a.expect.is_some() {
            "expect"
        } else {
            "loopback"
        },
        ordered: !a.unordered,
        tag_offset: a.tag_offset,
        tx_fcs: a.tx_fcs,
        tx_path: o.tx.path_name(),
        tx_retries: o.tx.retries(),
        sent,
        planned,
        send_seconds,
        tx_pps: per_second(sent as f64, send_seconds),
        tx_wire_bps: per_second(o.sent.wire_octets as f64 * 8.0, send_seconds),
        rx_pps: per_second(cap.received.len() as f64, rx_span),
        capture_dropped: cap.dropped,
        capture_pauses: o.sent.capture_pauses,
        capture_wait_ms: o.sent.capture_wait.as_secs_f64() * 1e3,
        interrupted: o.interrupted,
        capture_stopped: cap.stopped,
        counts: j.counts.clone(),
        latency: latency(j, cap.hardware_time, o.tx_clock.clone()),
        failures: j
            .frames
            .iter()
            .filter(|f| f.failed())
            .take(10_000)
            .cloned()
            .collect(),
        duplicates: j.duplicates.iter().take(10_000).cloned().collect(),
        unexpected: j.unexpected.iter().take(10_000).cloned().collect(),
        counters: o.counters.clone(),
        counter_moves,
        warnings,
    }
}

/// The cases of the run: one per frame (failures only beyond 10 000 frames, at most 10 000),
/// then the summary cases.
fn cases(j: &judge::Judgement, rep: &WireReport, strict: bool) -> Vec<Case> {
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
    summary_cases(rep, strict, &mut cases);
    cases
}

/// The receive error counters of the capture interface that moved.
fn rx_errors(rep: &WireReport) -> Vec<(String, i128)> {
    rep.counters
        .get(&rep.rx.name)
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
        .unwrap_or_default()
}

/// Appends the summary cases of the run to `cases`.
fn summary_cases(rep: &WireReport, strict: bool, cases: &mut Vec<Case>) {
    let c = &rep.counts;
    cases.push(summary_case(
        "every expected frame matched",
        c.matched == c.expected && c.duplicated == 0,
        format!(
            "{} of {} matched; missing {}, corrupted {}, reordered {}, duplicated {}",
            c.matched, c.expected, c.missing, c.corrupted, c.reordered, c.duplicated
        ),
    ));
    let unexpected_ok = !strict || c.unexpected == 0;
    cases.push(summary_case(
        "no unexpected frames",
        unexpected_ok,
        format!("{} frames matched no expected frame", c.unexpected),
    ));
    cases.push(summary_case(
        "capture kept up",
        rep.capture_dropped == 0,
        format!(
            "the capture ring dropped {} frames: they count as missing",
            rep.capture_dropped
        ),
    ));
    let rx_errors = rx_errors(rep);
    cases.push(summary_case(
        "no receive errors counted by the capture interface",
        rx_errors.is_empty(),
        format!(
            "{}: {}",
            rep.rx.name,
            rx_errors
                .iter()
                .map(|(k, v)| format!("{k} +{v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    cases.push(summary_case(
        "run completed",
        !rep.interrupted,
        format!("interrupted after {} of {} frames", rep.sent, rep.planned),
    ));
}

/// `--latency-svg`: draws the latency histogram of `rep` into `path`, or warns that there is
/// none.
///
/// # Errors
/// `path` cannot be written.
fn write_latency_svg(path: &std::path::Path, rep: &WireReport) -> Result<(), Error> {
    let picture = rep.latency.as_ref().and_then(|l| {
        l.histogram.as_ref().map(|h| {
            histogram::svg(
                h,
                &format!(
                    "baser wire {}: latency of {} frames (sent: {} clock, received: {} clock)",
                    rep.tx.name, l.frames, l.tx_clock, l.rx_clock
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
        Some(svg) => {
            std::fs::write(path, svg).map_err(|e| Error::Output(path.to_path_buf(), e))?;
        }
        None => warn_no_latency_to_draw(path),
    }
    Ok(())
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
