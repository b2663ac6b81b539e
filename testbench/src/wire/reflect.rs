//! `baser reflect`: a software stand-in for the DUT. Every frame received on the interface goes
//! back out of it, with optional, exactly countable faults, so that the verdicts of
//! `baser wire` can be proven against known faults and a bench can be brought up.
//!
//! Frames are numbered from 1 in arrival order; "every N" hits frames N, 2N, 3N, ...
//! Faults apply in this order: drop; corrupt (bit 0 of the middle octet, `len / 2`, flipped);
//! duplicate (sent twice); hold (held back for `--hold-ms`, both copies of a duplicated frame,
//! while the frames after it go on); reorder (held back and sent right after the next frame
//! sent); delay.

use super::{iface, now_ns, open_capture, read_frames, socket_error, sys, with_vlan};
use crate::command::{Error, Output, Verdict};
use serde::Serialize;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Options of `baser reflect`.
#[derive(clap::Args, Debug)]
pub struct ReflectArgs {
    /// Interface to reflect on.
    #[arg(long)]
    pub iface: String,
    /// Drop every N-th frame.
    #[arg(long)]
    pub drop_every: Option<u64>,
    /// Flip one bit (bit 0 of the middle octet) of every N-th frame.
    #[arg(long)]
    pub corrupt_every: Option<u64>,
    /// Send every N-th frame twice.
    #[arg(long)]
    pub duplicate_every: Option<u64>,
    /// Hold every N-th frame back and send it after the next one.
    #[arg(long)]
    pub reorder_every: Option<u64>,
    /// Hold every N-th frame back for --hold-ms and then send it; the frames after it are not
    /// held up.
    #[arg(long)]
    pub hold_every: Option<u64>,
    /// See --hold-every.
    #[arg(long, default_value_t = 100)]
    pub hold_ms: u64,
    /// Delay every frame by this many microseconds.
    #[arg(long, default_value_t = 0)]
    pub delay_us: u64,
    /// Unrelated frames to inject (cycled), one after every --inject-every reflected frames.
    #[arg(long, requires = "inject_every")]
    pub inject: Option<PathBuf>,
    /// See --inject.
    #[arg(long, requires = "inject")]
    pub inject_every: Option<u64>,
    /// Stop after this many frames received.
    #[arg(long)]
    pub count: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long, default_value_t = 60.0)]
    pub duration: f64,
    /// Use an interface even if it carries the default route or a global address.
    #[arg(long)]
    pub force: bool,
    /// Do not put the interface into promiscuous mode.
    #[arg(long)]
    pub no_promisc: bool,
    /// Write the JSON summary here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// What the reflector did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReflectReport {
    /// Frames received.
    pub received: u64,
    /// Frames sent (reflected copies and injected frames).
    pub sent: u64,
    /// Dropped on purpose.
    pub dropped: u64,
    /// Corrupted on purpose.
    pub corrupted: u64,
    /// Sent twice on purpose.
    pub duplicated: u64,
    /// Held back until the next frame, on purpose.
    pub reordered: u64,
    /// Held back for --hold-ms, on purpose.
    pub held: u64,
    /// Unrelated frames injected.
    pub injected: u64,
    /// Sends the kernel refused.
    pub send_errors: u64,
    /// Frames the kernel dropped because the receive ring was full (the reflector was held up
    /// too long): lost before the reflector saw them, not on purpose.
    pub ring_dropped: u64,
}

fn hit(every: Option<u64>, n: u64) -> bool {
    every.is_some_and(|e| e > 0 && n.is_multiple_of(e))
}

struct Out {
    sock: sys::PacketSocket,
    delay: Duration,
    queue: VecDeque<(Instant, Vec<u8>)>,
    rep: ReflectReport,
}

impl Out {
    fn emit(&mut self, frame: Vec<u8>) {
        if self.delay.is_zero() {
            self.send(&frame);
        } else {
            self.queue.push_back((Instant::now() + self.delay, frame));
        }
    }

    fn send(&mut self, frame: &[u8]) {
        for _ in 0..1000 {
            match self.sock.send(frame) {
                Ok(_) => {
                    self.rep.sent += 1;
                    return;
                }
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ENOBUFS | libc::EAGAIN | libc::EINTR)
                    ) =>
                {
                    std::thread::sleep(Duration::from_micros(20));
                }
                Err(_) => break,
            }
        }
        self.rep.send_errors += 1;
    }

    /// Sends queued frames that are due; returns how long until the next one.
    fn due(&mut self) -> Option<Duration> {
        let now = Instant::now();
        while let Some((at, _)) = self.queue.front() {
            if *at > now {
                return Some(*at - now);
            }
            if let Some((_, f)) = self.queue.pop_front() {
                self.send(&f);
            }
        }
        None
    }
}

/// Sends the held frames that are due; returns how long until the next one is (5 ms when none
/// is held).
fn release_holds(holds: &mut VecDeque<(Instant, Vec<Vec<u8>>)>, o: &mut Out) -> Duration {
    let now = Instant::now();
    while let Some((at, _)) = holds.front() {
        if *at > now {
            return *at - now;
        }
        if let Some((_, copies)) = holds.pop_front() {
            for f in copies {
                o.emit(f);
            }
        }
    }
    Duration::from_millis(5)
}

/// Runs `baser reflect`.
///
/// # Errors
/// A refused interface or socket.
pub fn run(a: &ReflectArgs, out: Output) -> Result<Verdict, Error> {
    crate::command::check_outputs(&[a.inject.as_deref()], &[a.json.as_deref()])?;
    let i = iface::check(&a.iface, a.force).map_err(Error::Usage)?;
    let inject = match &a.inject {
        Some(p) => read_frames(p, false)?,
        None => Vec::new(),
    };
    let mut warnings = Vec::new();
    // 32 MiB in the smallest blocks that hold a frame (16 KiB up to MTU 9000): 2048 blocks, so
    // that a slow stream is still taken after the reflector was held up for 4 s (a loaded
    // machine deschedules it), where 16 blocks of 1 MiB held 32 ms.
    let mut ring = open_capture(&i, !a.no_promisc, false, (32 << 20, 0), true, &mut warnings)?;
    let _ = ring.socket().statistics(); // reset
    let sock = sys::PacketSocket::open(i.index).map_err(|e| socket_error(&i.name, &e))?;
    if i.qdisc.is_none() {
        let _ = sock.set_qdisc_bypass();
    }
    sock.bind(false).map_err(|e| socket_error(&i.name, &e))?;
    sys::catch_interrupt();
    let mut o = Out {
        sock,
        delay: Duration::from_micros(a.delay_us),
        queue: VecDeque::new(),
        rep: ReflectReport::default(),
    };
    if !out.quiet {
        for w in &warnings {
            println!("warning: {w}");
        }
        println!("baser reflect: reflecting on {}", i.name);
    }
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let end = Instant::now() + Duration::from_secs_f64(a.duration.max(0.0));
    let mut held: Option<Vec<u8>> = None;
    let mut held_at = 0i64;
    // --hold-every: (release time, copies), in release order (all are held equally long).
    let hold = Duration::from_millis(a.hold_ms);
    let mut holds: VecDeque<(Instant, Vec<Vec<u8>>)> = VecDeque::new();
    let mut injected = 0usize;
    let mut buf = Vec::with_capacity(16384);
    let mut frames: Vec<Vec<u8>> = Vec::new();
    let limit = a.count.unwrap_or(u64::MAX);
    while !sys::stop_requested() && Instant::now() < end && o.rep.received < limit {
        let release = release_holds(&mut holds, &mut o);
        let wait = o
            .due()
            .unwrap_or(Duration::from_millis(5))
            .min(release)
            .min(Duration::from_millis(5));
        frames.clear();
        let _ = ring.next_block(wait, |f| {
            with_vlan(f.data, f.vlan, &mut buf);
            frames.push(buf.clone());
        });
        for mut f in frames.drain(..) {
            if o.rep.received >= limit {
                break;
            }
            o.rep.received += 1;
            let n = o.rep.received;
            if hit(a.drop_every, n) {
                o.rep.dropped += 1;
                continue;
            }
            if hit(a.corrupt_every, n) {
                let mid = f.len() / 2;
                if let Some(b) = f.get_mut(mid) {
                    *b ^= 1;
                    o.rep.corrupted += 1;
                }
            }
            let copies = if hit(a.duplicate_every, n) {
                o.rep.duplicated += 1;
                2
            } else {
                1
            };
            if hit(a.hold_every, n) {
                o.rep.held += 1;
                holds.push_back((Instant::now() + hold, vec![f; copies]));
                continue;
            }
            if hit(a.reorder_every, n) && held.is_none() {
                o.rep.reordered += 1;
                held = Some(f);
                held_at = now_ns();
                continue;
            }
            for _ in 1..copies {
                o.emit(f.clone());
            }
            o.emit(f);
            if let Some(h) = held.take() {
                o.emit(h);
            }
            if let (Some(every), false) = (a.inject_every, inject.is_empty()) {
                if every > 0 && n.is_multiple_of(every) {
                    if let Some(x) = inject.get(injected % inject.len()) {
                        o.emit(x.clone());
                        o.rep.injected += 1;
                        injected += 1;
                    }
                }
            }
        }
        // A held frame goes out on its own when no next frame comes within 20 ms.
        if held.is_some() && now_ns() - held_at > 20_000_000 {
            if let Some(h) = held.take() {
                o.emit(h);
            }
        }
        let _ = o.due();
    }
    if let Some(h) = held.take() {
        o.emit(h);
    }
    while !holds.is_empty() {
        let w = release_holds(&mut holds, &mut o);
        if !holds.is_empty() {
            std::thread::sleep(w);
        }
    }
    while !o.queue.is_empty() {
        if let Some(w) = o.due() {
            std::thread::sleep(w);
        }
    }
    o.rep.ring_dropped = ring.socket().statistics().map_or(0, |(_, d)| d);
    let r = &o.rep;
    if !out.quiet {
        println!(
            "baser reflect: received {}, sent {}, dropped {}, corrupted {}, duplicated {}, reordered {}, held {}, injected {}, ring dropped {}, send errors {}",
            r.received, r.sent, r.dropped, r.corrupted, r.duplicated, r.reordered, r.held, r.injected, r.ring_dropped, r.send_errors
        );
    }
    if let Some(p) = &a.json {
        crate::report::write_json(p, r).map_err(|e| Error::Output(p.clone(), e))?;
    }
    Ok(Verdict::Pass)
}
