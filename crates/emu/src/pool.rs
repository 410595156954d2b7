//! The persistent host threads a [`Gpu`](crate::Gpu) runs work-groups on. A pool is made once
//! per GPU (on its first dispatch that can use more than one thread) and lives until the GPU is
//! dropped, so a dispatch costs a condition-variable wake-up instead of thread creation.
//!
//! A dispatch always runs worker 0 on the calling thread and offers the other workers to the
//! pool as a [`Job`]. Pool threads that are idle pick them up; a worker nobody picked up by the
//! time the caller's own worker returns is withdrawn. So every dispatch makes progress on its
//! caller's thread even when the pool is busy with other queues' dispatches (several host
//! threads may dispatch at once), and a one-thread dispatch never touches the pool.

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The work of one dispatch: `work(index)` runs worker `index`.
pub(crate) type Work = Arc<dyn Fn(usize) + Send + Sync>;

/// One dispatch's offer of workers to the pool.
struct Job {
    work: Work,
    /// Pool threads currently running a worker of this job.
    active: Mutex<usize>,
    /// Signalled when `active` drops to zero.
    idle: Condvar,
    /// Whether a pool thread's call panicked (an emulator bug the dispatch must report).
    panicked: AtomicBool,
}

/// An offered job with the workers not yet picked up.
struct Offer {
    job: Arc<Job>,
    /// Next worker index to hand out.
    next_index: usize,
    /// Last worker index (inclusive).
    last_index: usize,
}

struct Queue {
    offers: VecDeque<Offer>,
    shutdown: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// Persistent worker threads.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
}

impl Pool {
    /// A pool of `threads` host threads (named `hsaemu-worker-N`). Threads that cannot be
    /// created are simply absent: dispatches still complete on their callers' threads.
    pub(crate) fn new(threads: usize) -> Pool {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                offers: VecDeque::new(),
                shutdown: false,
            }),
            wake: Condvar::new(),
        });
        let handles = (0..threads)
            .filter_map(|i| {
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("hsaemu-worker-{i}"))
                    .spawn(move || pool_thread(&shared))
                    .ok()
            })
            .collect();
        Pool { shared, handles }
    }

    /// Runs `work(0)` on the calling thread and offers `work(1..=helpers)` to the pool; returns
    /// once every call that started has returned. Returns false when any call panicked.
    pub(crate) fn run(&self, helpers: usize, work: Work) -> bool {
        let job = Arc::new(Job {
            work: work.clone(),
            active: Mutex::new(0),
            idle: Condvar::new(),
            panicked: AtomicBool::new(false),
        });
        let offered = helpers > 0 && !self.handles.is_empty();
        if offered {
            self.shared.queue.lock().offers.push_back(Offer {
                job: job.clone(),
                next_index: 1,
                last_index: helpers,
            });
            if helpers == 1 {
                self.shared.wake.notify_one();
            } else {
                self.shared.wake.notify_all();
            }
        }
        let mut ok = catch_unwind(AssertUnwindSafe(|| work(0))).is_ok();
        if offered {
            // Withdraw the workers nobody picked up, then wait for the ones that started.
            self.shared
                .queue
                .lock()
                .offers
                .retain(|o| !Arc::ptr_eq(&o.job, &job));
            let mut active = job.active.lock();
            while *active > 0 {
                job.idle.wait(&mut active);
            }
            drop(active);
            ok &= !job.panicked.load(Ordering::Relaxed);
        }
        ok
    }
}

fn pool_thread(shared: &Shared) {
    loop {
        let (job, index) = {
            let mut q = shared.queue.lock();
            loop {
                if q.shutdown {
                    return;
                }
                if let Some(offer) = q.offers.front_mut() {
                    let index = offer.next_index;
                    let job = offer.job.clone();
                    if index >= offer.last_index {
                        q.offers.pop_front();
                    } else {
                        offer.next_index += 1;
                    }
                    // Counted while the queue is locked, so a caller that withdrew its offer
                    // sees every worker that started.
                    *job.active.lock() += 1;
                    break (job, index);
                }
                shared.wake.wait(&mut q);
            }
        };
        let work = job.work.clone();
        if catch_unwind(AssertUnwindSafe(|| work(index))).is_err() {
            job.panicked.store(true, Ordering::Relaxed);
        }
        let mut active = job.active.lock();
        *active -= 1;
        if *active == 0 {
            job.idle.notify_all();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.queue.lock().shutdown = true;
        self.shared.wake.notify_all();
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}
