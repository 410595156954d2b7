//! The two counters a wave can read: `s_memtime` (the shader clock, "RTC" in LLVM's
//! `__builtin_amdgcn_s_memtime`, which HIP's `clock64()` reads) and `s_memrealtime` (the
//! constant-rate "REFCLK", which HIP's `wall_clock64()` reads).
//!
//! HIP converts `clock64()` ticks to time with `hipDeviceAttributeClockRate` (the agent's
//! `HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY`, in kHz) and `wall_clock64()` ticks with
//! `hipDeviceAttributeWallClockRate` (100 MHz on GFX9/GFX10 GPUs), so both counters follow
//! host wall time at those rates: a kernel that waits N seconds by either counter waits N
//! seconds. Both count from one process-wide monotonic epoch, so they never go backwards in a
//! wave and agree across waves, work-groups, dispatches and GPUs.

use std::sync::OnceLock;
use std::time::Instant;

/// The rate of `s_memrealtime`: 100 MHz, what ROCclr reports as the wall clock rate on
/// every GPU this emulator models.
pub(crate) const REALTIME_HZ: u64 = 100_000_000;

/// Nanoseconds since the process-wide epoch (the first read).
fn nanos() -> u128 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos()
}

/// `s_memtime`: shader clock cycles at `clock_mhz`.
pub(crate) fn memtime(clock_mhz: u32) -> u64 {
    (nanos() * u128::from(clock_mhz) / 1000) as u64
}

/// `s_memrealtime`: ticks of the constant 100 MHz reference clock.
pub(crate) fn memrealtime() -> u64 {
    (nanos() * u128::from(REALTIME_HZ) / 1_000_000_000) as u64
}

/// Both counters in deterministic mode: 4 ticks per instruction the wave has executed, so a
/// run's results cannot depend on host time (and a wave waiting on the clock still gets
/// there).
pub(crate) fn deterministic(instructions: u64) -> u64 {
    instructions.wrapping_mul(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_monotonic_and_tick_at_their_rates() {
        let outer = Instant::now();
        let (c0, r0) = (memtime(1700), memrealtime());
        let inner = Instant::now();
        let mut last = (c0, r0);
        // Busy for at least 20 ms of host time, checking monotonicity on every read.
        while inner.elapsed().as_millis() < 20 {
            let now = (memtime(1700), memrealtime());
            assert!(now.0 >= last.0 && now.1 >= last.1, "{now:?} after {last:?}");
            last = now;
        }
        let (c1, r1) = (memtime(1700), memrealtime());
        let ns = outer.elapsed().as_nanos() as u64;
        // The counters' interval contains the inner 20 ms and lies inside the outer interval
        // (plus a tick of truncation), whatever the machine's load.
        let (dc, dr) = (c1 - c0, r1 - r0);
        assert!(
            dc >= 20_000_000 * 17 / 10,
            "clock: {dc} cycles in >= 20 ms at 1.7 GHz"
        );
        assert!(
            dc <= ns * 17 / 10 + 2,
            "clock: {dc} cycles in {ns} ns at 1.7 GHz"
        );
        assert!(
            dr >= 2_000_000,
            "realtime: {dr} ticks in >= 20 ms at 100 MHz"
        );
        assert!(
            dr <= ns / 10 + 2,
            "realtime: {dr} ticks in {ns} ns at 100 MHz"
        );
    }
}
