//! How long a run may take: an estimate from the rate its family's search was measured at
//! ([`crate::puzzle::StateSpace::measured_rate`]), scaled to the run's threads and tier.

use super::Tier;
use crate::puzzle::Rate;
use crate::units::count;

/// How much longer a search from disk took than the same search in memory: Turnstyle 15 in the
/// flips metric, 9,242 s from disk within 4 GiB against 2,742 s in memory, on the same two cores
/// (results/disk.md).
pub const DISK_FACTOR: f64 = 3.4;

/// A GPU's rate, states a second: the order of the H100's measured rates (Turnstyle 14 6.7e9,
/// burnt pancakes 10 1.8e9, pancake 13 1.6e9; results/hardware.md), of which smaller runs reach
/// less (their set-up takes about a second).
pub const GPU_RATE: f64 = 2.0e9;

/// How far an estimate may be off, either way: rates differ with a puzzle's size and shape, and
/// with the machine. Every published run of 2 s or more on the CPU lies within it (the farthest:
/// sliding 4x3, 3.6 times slower than estimated; Turnstyle 13 flips 2.6 times faster).
pub const SPREAD: f64 = 4.0;

/// A run's estimated time.
#[derive(Clone, Debug)]
pub struct Estimate {
    /// Seconds of search.
    pub seconds: f64,
    /// How it was made, for the plan's text.
    pub basis: String,
}

impl Estimate {
    /// The time of a search of `entries` entries at `rate` on `threads` worker threads, in
    /// `tier`.
    pub fn of(entries: u64, rate: Rate, threads: usize, tier: Tier) -> Estimate {
        let cpu = rate.per_thread * threads.max(1) as f64;
        let on = format!("{entries} entries on {}", count(threads, "thread"));
        let measured = format!(
            "{:.1e} states/s a thread, as measured for {} on 2 cores",
            rate.per_thread, rate.run
        );
        let gpu = format!("{entries} entries at about {GPU_RATE:.0e} states/s, an H100's order");
        let from_disk = format!("{DISK_FACTOR} times that from disk");
        let (seconds, basis) = match tier {
            Tier::Memory | Tier::Processes { gpu: false } => {
                (entries as f64 / cpu, format!("{on} at {measured}"))
            }
            Tier::DiskSlabs { gpu: false } | Tier::ProcessDisks => (
                entries as f64 / cpu * DISK_FACTOR,
                format!("{on} at {measured}, {from_disk}"),
            ),
            Tier::Device | Tier::HostSlabs | Tier::Processes { gpu: true } => {
                (entries as f64 / GPU_RATE, gpu)
            }
            Tier::DiskSlabs { gpu: true } => (
                entries as f64 / GPU_RATE * DISK_FACTOR,
                format!("{gpu}, {from_disk}"),
            ),
        };
        Estimate { seconds, basis }
    }

    /// The plan's line: the time and how it was estimated.
    pub fn describe(&self) -> String {
        format!(
            "time: about {}, an estimate (within a factor of {SPREAD:.0} either way): {}\n",
            duration(self.seconds),
            self.basis
        )
    }
}

/// Seconds as a person reads a duration: `45 s`, `16 min`, `3.2 h`, `12 days`, `2.1 years`.
pub fn duration(seconds: f64) -> String {
    const MINUTE: f64 = 60.0;
    const HOUR: f64 = 3600.0;
    const DAY: f64 = 86_400.0;
    match seconds {
        s if s < 1.0 => "under a second".into(),
        s if s < 90.0 => format!("{s:.0} s"),
        s if s < 90.0 * MINUTE => format!("{:.0} min", s / MINUTE),
        s if s < 48.0 * HOUR => format!("{:.1} h", s / HOUR),
        s if s < 365.0 * DAY => format!("{:.0} days", s / DAY),
        s => format!("{:.1} years", s / (365.25 * DAY)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_the_unit_that_fits() {
        assert_eq!(duration(0.2), "under a second");
        assert_eq!(duration(45.0), "45 s");
        assert_eq!(duration(949.0), "16 min");
        assert_eq!(duration(9_242.0), "2.6 h");
        assert_eq!(duration(30.0 * 86_400.0), "30 days");
        assert_eq!(duration(3.0 * 365.25 * 86_400.0), "3.0 years");
    }

    #[test]
    fn the_tier_scales_the_time() {
        let rate = Rate {
            per_thread: 50.0e6,
            run: "a test",
        };
        let memory = Estimate::of(1_000_000_000, rate, 2, Tier::Memory);
        assert_eq!(memory.seconds, 10.0);
        assert_eq!(
            Estimate::of(1_000_000_000, rate, 4, Tier::Memory).seconds,
            5.0
        );
        let disk = Estimate::of(1_000_000_000, rate, 2, Tier::DiskSlabs { gpu: false });
        assert!((disk.seconds - 34.0).abs() < 1e-9);
        assert_eq!(
            Estimate::of(2_000_000_000, rate, 2, Tier::Device).seconds,
            1.0
        );
        assert!(
            memory
                .describe()
                .starts_with("time: about 10 s, an estimate")
        );
    }
}
