//! Global wave sync (GWS): the GPU-wide barriers HIP's `grid.sync()` uses (`__ockl_grid_sync`
//! runs `ds_gws_barrier` in one wave of every work-group). A resource is numbered by the
//! instruction's offset plus M0[21:16]; `ds_gws_barrier`'s data (the first active lane of its
//! VGPR) is the number of waves taking part minus one. A wave that arrives before the last one
//! re-executes the instruction, without counting it, until the barrier's generation moves on,
//! and meanwhile yields to the other work-groups (which a cooperative dispatch keeps resident).
//! Each operation answers whether the wave goes on ([`Go::Next`]) or re-executes it
//! ([`Go::Retry`]); `exec` turns that into its control flow.

use parking_lot::Mutex;

use crate::ops::Op;
use crate::wave::Wave;

/// What a wave does after a GWS operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Go {
    /// The next instruction.
    Next,
    /// The same instruction again, later (it waits).
    Retry,
}

/// A wave's part in one generation of a GWS barrier (for the race checker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BarrierEvent {
    /// The wave arrived (`first`: the first of its generation).
    Arrive {
        resource: u32,
        generation: u64,
        first: bool,
    },
    /// Every wave of the generation arrived: the wave goes on.
    Pass { resource: u32, generation: u64 },
}

/// GWS resources per GPU.
const RESOURCES: usize = 64;

#[derive(Debug, Default, Clone, Copy)]
struct Resource {
    /// The value of the last `ds_gws_init`.
    init: u32,
    /// Waves that arrived in the current generation.
    arrived: u32,
    generation: u64,
    /// The semaphore count (`ds_gws_init` sets it, `ds_gws_sema_v`/`_br` add, `_p` takes).
    count: u32,
    /// Bumped by `ds_gws_sema_release_all`: every wave waiting in `ds_gws_sema_p` goes on.
    released: u64,
}

/// The GWS resources of one GPU (they outlive dispatches: ROCm initialises them in a kernel of
/// its own before a cooperative launch).
#[derive(Debug)]
pub(crate) struct Gws([Mutex<Resource>; RESOURCES]);

impl Default for Gws {
    fn default() -> Self {
        Gws(std::array::from_fn(|_| Mutex::new(Resource::default())))
    }
}

/// Which resource an instruction names.
fn resource(w: &Wave, offset: u32) -> usize {
    ((offset & 0x3f) + (w.m0() >> 16 & 0x3f)) as usize % RESOURCES
}

impl Gws {
    /// `ds_gws_init`: sets the resource's value and starts a new generation.
    pub(crate) fn init(&self, w: &Wave, offset: u32, value: u32) -> Go {
        let mut r = self.0[resource(w, offset)].lock();
        r.init = value;
        r.count = value;
        r.arrived = 0;
        r.generation += 1;
        Go::Next
    }

    /// `ds_gws_barrier` with data `nwm1` (waves − 1): `Next` once `nwm1 + 1` waves arrived
    /// (this one included), else `Retry` until then.
    ///
    /// `sync` hears of the wave's arrival (counted once) and of its passing, under the
    /// resource's lock: an arrival is published before the barrier can open on it, so a wave
    /// of another work-group (another host thread) that passes finds every arrival's release
    /// (the race checker's happens-before through the barrier).
    pub(crate) fn barrier(
        &self,
        w: &mut Wave,
        offset: u32,
        nwm1: u32,
        mut sync: impl FnMut(BarrierEvent),
    ) -> Go {
        let id = resource(w, offset);
        let mut r = self.0[id].lock();
        if let Some((wid, generation)) = w.gws_wait {
            if wid == id as u8 && r.generation != generation {
                w.gws_wait = None;
                sync(BarrierEvent::Pass {
                    resource: id as u32,
                    generation,
                });
                return Go::Next;
            }
            return Go::Retry;
        }
        let generation = r.generation;
        sync(BarrierEvent::Arrive {
            resource: id as u32,
            generation,
            first: r.arrived == 0,
        });
        r.arrived += 1;
        if r.arrived > nwm1 {
            r.arrived = 0;
            r.generation += 1;
            sync(BarrierEvent::Pass {
                resource: id as u32,
                generation,
            });
            return Go::Next;
        }
        w.gws_wait = Some((id as u8, generation));
        Go::Retry
    }

    /// The semaphore instructions (Vega ISA): `ds_gws_sema_v` adds one to the count,
    /// `ds_gws_sema_br` adds `data` (bulk release), `ds_gws_sema_p` waits until the count is
    /// non-zero and takes one (re-executing with `Retry` meanwhile), and
    /// `ds_gws_sema_release_all` lets every waiting wave go on without taking.
    pub(crate) fn semaphore(&self, w: &mut Wave, op: Op, offset: u32, data: u32) -> Go {
        let id = resource(w, offset);
        let mut r = self.0[id].lock();
        match op {
            Op::DS_GWS_SEMA_V => r.count = r.count.wrapping_add(1),
            Op::DS_GWS_SEMA_BR => r.count = r.count.wrapping_add(data),
            Op::DS_GWS_SEMA_RELEASE_ALL => r.released += 1,
            _ => {
                if let Some((wid, released)) = w.gws_wait {
                    if wid == id as u8 && r.released != released {
                        w.gws_wait = None;
                        return Go::Next;
                    }
                }
                if r.count == 0 {
                    w.gws_wait = Some((id as u8, r.released));
                    return Go::Retry;
                }
                r.count -= 1;
                w.gws_wait = None;
            }
        }
        Go::Next
    }
}
