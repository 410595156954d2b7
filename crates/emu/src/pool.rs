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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::{Duration, Instant};

    /// Waits (bounded) for a condition another thread makes true.
    fn eventually(cond: impl Fn() -> bool) -> bool {
        let until = Instant::now() + Duration::from_secs(30);
        while Instant::now() < until {
            if cond() {
                return true;
            }
            std::thread::yield_now();
        }
        cond()
    }

    #[test]
    fn every_worker_index_runs_exactly_once() {
        let pool = Pool::new(3);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let ok = pool.run(
            3,
            Arc::new(move |i| {
                s.lock().push(i);
                if i == 0 {
                    // Keep the caller's worker busy until the idle pool threads joined in.
                    let s = s.clone();
                    assert!(eventually(move || s.lock().len() == 4));
                }
            }),
        );
        assert!(ok);
        let mut v = seen.lock().clone();
        v.sort_unstable();
        assert_eq!(v, [0, 1, 2, 3]);
    }

    #[test]
    fn run_returns_after_every_started_worker_finished() {
        let pool = Arc::new(Pool::new(2));
        std::thread::scope(|scope| {
            for _ in 0..4 {
                let pool = pool.clone();
                scope.spawn(move || {
                    for _ in 0..200 {
                        let started = Arc::new(AtomicUsize::new(0));
                        let finished = Arc::new(AtomicUsize::new(0));
                        let (s, f) = (started.clone(), finished.clone());
                        let ok = pool.run(
                            2,
                            Arc::new(move |_| {
                                s.fetch_add(1, Ordering::SeqCst);
                                std::hint::black_box((0..1000).sum::<u64>());
                                f.fetch_add(1, Ordering::SeqCst);
                            }),
                        );
                        assert!(ok);
                        let n = started.load(Ordering::SeqCst);
                        assert!((1..=3).contains(&n), "{n} workers ran");
                        assert_eq!(finished.load(Ordering::SeqCst), n);
                    }
                });
            }
        });
    }

    #[test]
    fn a_dispatch_progresses_on_its_caller_while_the_pool_is_busy() {
        let pool = Arc::new(Pool::new(1));
        let release = Arc::new(AtomicBool::new(false));
        let busy = Arc::new(AtomicBool::new(false));
        std::thread::scope(|scope| {
            let (p, r, b) = (pool.clone(), release.clone(), busy.clone());
            let first = scope.spawn(move || {
                p.run(
                    1,
                    Arc::new(move |i| {
                        if i == 1 {
                            // The only pool thread spins until the second dispatch finished.
                            b.store(true, Ordering::SeqCst);
                            while !r.load(Ordering::SeqCst) {
                                std::thread::yield_now();
                            }
                        } else {
                            // Keep the offer open until the pool thread took it.
                            let b = b.clone();
                            assert!(eventually(move || b.load(Ordering::SeqCst)));
                        }
                    }),
                )
            });
            let b = busy.clone();
            assert!(eventually(move || b.load(Ordering::SeqCst)));
            let ran = Arc::new(AtomicUsize::new(0));
            let r2 = ran.clone();
            assert!(pool.run(
                1,
                Arc::new(move |_| {
                    r2.fetch_add(1, Ordering::SeqCst);
                })
            ));
            // Only the caller's worker ran: the pool thread was busy and the offer withdrawn.
            assert_eq!(ran.load(Ordering::SeqCst), 1);
            release.store(true, Ordering::SeqCst);
            assert!(first.join().expect("first dispatch thread"));
        });
    }

    #[test]
    fn a_panicking_worker_is_reported_and_the_pool_keeps_working() {
        let pool = Pool::new(1);
        assert!(!pool.run(
            0,
            Arc::new(|_| panic!("emulator bug (expected by the test)"))
        ));
        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        let ok = pool.run(
            1,
            Arc::new(move |i| {
                h.fetch_add(1, Ordering::SeqCst);
                if i == 0 {
                    let h = h.clone();
                    assert!(eventually(move || h.load(Ordering::SeqCst) == 2));
                } else {
                    panic!("emulator bug in a pool thread (expected by the test)");
                }
            }),
        );
        assert!(!ok, "a panic on a pool thread must fail the run");
        assert!(pool.run(1, Arc::new(|_| {})));
    }
}
