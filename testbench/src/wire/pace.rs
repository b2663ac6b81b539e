//! Pacing: when each frame leaves, from `--rate` (bit/s on the wire), `--pps` or `--topspeed`.
//!
//! A frame occupies the wire for preamble and SFD (8 octets), the frame padded to 60 octets,
//! the FCS (4) and the average inter-packet gap of 12 octets that the model's MAC keeps with the
//! deficit idle count (IEEE 802.3 §4.4.2, §46.3.1.4).

use std::time::{Duration, Instant};

/// Preamble and SFD octets.
pub const PREAMBLE_OCTETS: u64 = 8;
/// Average inter-packet gap with the deficit idle count, octets.
pub const IFG_OCTETS: u64 = 12;
/// FCS octets.
pub const FCS_OCTETS: u64 = 4;

/// Octets a frame of `len` octets (without FCS unless `has_fcs`) occupies on the wire.
///
/// Spec: IEEE 802.3 §4.2.3.3, §4.4.2, §46.3.1.4.
pub fn wire_octets(len: usize, has_fcs: bool) -> u64 {
    let body = if has_fcs {
        (len as u64).max(64)
    } else {
        (len as u64).max(60) + FCS_OCTETS
    };
    PREAMBLE_OCTETS + body + IFG_OCTETS
}

/// How fast to send.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// As fast as the socket takes frames.
    TopSpeed,
    /// Frames per second.
    Pps(f64),
    /// Bits per second on the wire.
    Rate(f64),
}

/// Departure times, cumulative from the start so that rounding does not drift.
pub struct Pacer {
    pace: Pace,
    start: Instant,
    /// Seconds of schedule used so far.
    due_s: f64,
}

impl Pacer {
    /// Starts the schedule now.
    pub fn new(pace: Pace) -> Self {
        Self {
            pace,
            start: Instant::now(),
            due_s: 0.0,
        }
    }

    /// When the next frame of `wire_octets` may leave (None: now), and books it.
    pub fn book(&mut self, wire_octets: u64) -> Option<Instant> {
        let at = self.due_s;
        match self.pace {
            Pace::TopSpeed => return None,
            Pace::Pps(p) => self.due_s += 1.0 / p,
            Pace::Rate(r) => self.due_s += (wire_octets * 8) as f64 / r,
        }
        Some(self.start + Duration::from_secs_f64(at))
    }
}

/// Waits until `at`: sleeps while far, spins the last 100 µs.
pub fn wait_until(at: Instant) {
    loop {
        let now = Instant::now();
        if now >= at {
            return;
        }
        let left = at - now;
        if left > Duration::from_micros(200) {
            std::thread::sleep(left - Duration::from_micros(100));
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minimum_frame_takes_84_octets_on_the_wire() {
        // 60 + FCS 4 + preamble/SFD 8 + IFG 12 = 84 octets: 14.88 Mpps at 10 Gb/s.
        assert_eq!(wire_octets(60, false), 84);
        assert_eq!(wire_octets(20, false), 84);
        assert_eq!(wire_octets(64, true), 84);
        assert_eq!(wire_octets(1514, false), 1538);
    }

    #[test]
    fn rate_spaces_frames_by_their_wire_time() {
        let mut p = Pacer::new(Pace::Rate(10e9));
        let t0 = p.book(84).unwrap();
        let t1 = p.book(84).unwrap();
        assert_eq!((t1 - t0).as_nanos(), 67); // 672 bits at 10 Gb/s = 67.2 ns
        let mut p = Pacer::new(Pace::Pps(1000.0));
        let t0 = p.book(84).unwrap();
        let t1 = p.book(1538).unwrap();
        assert_eq!((t1 - t0).as_micros(), 1000);
        assert!(Pacer::new(Pace::TopSpeed).book(84).is_none());
    }
}
