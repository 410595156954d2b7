// atomics_fine_grained: float atomics on fine-grained (coherent) host memory (issue 19).
// On MI200 (gfx90a) the hardware float atomics (global_atomic_add_f32/_f64, from
// unsafeAtomicAdd and __builtin_amdgcn_global_atomic_fadd_f64) are silently dropped on
// coherent host memory: memory keeps its value and the returned "old" value is 0. HIP's own
// tests (Unit_BuiltInAtomicAdd_CoherentGlobalMem, Unit_unsafeAtomicAdd_*) check exactly that.
// The same instructions work on non-coherent host memory and on device memory, and the
// compare-and-swap loop that a plain atomicAdd compiles to (no -munsafe-fp-atomics) works on
// every kind, as do integer atomics. Expected values: the hardware behaviour HIP's tests and
// LLVM's AMDGPU memory model (MTYPE UC for fine-grained system memory) document.
#include "hip_check.h"

struct Out {
  double old_d;
  float old_f;
  unsigned int old_i;
};

__global__ void hw_float_atomics(double *d, float *f, unsigned int *u, Out *out) {
  out->old_d = __builtin_amdgcn_global_atomic_fadd_f64(d, 10.0);
  out->old_f = unsafeAtomicAdd(f, 2.5f);
  out->old_i = atomicAdd(u, 7u);
}

// Without -munsafe-fp-atomics, atomicAdd on float/double is a compare-and-swap loop.
__global__ void cas_float_atomics(double *d, float *f) {
  atomicAdd(d, 10.0);
  atomicAdd(f, 2.5f);
}

struct Cell {
  double d;
  float f;
  unsigned int u;
};

static void run(const char *what, Cell *host_view, Cell *dev, bool dropped) {
  Out *out = nullptr;
  HIP_CHECK(hipMalloc(&out, sizeof(Out)));
  hipLaunchKernelGGL(hw_float_atomics, dim3(1), dim3(1), 0, 0, &dev->d, &dev->f, &dev->u, out);
  LAUNCH_CHECK();
  Out o;
  HIP_CHECK(hipMemcpy(&o, out, sizeof o, hipMemcpyDeviceToHost));
  Cell c;
  HIP_CHECK(hipMemcpy(&c, dev, sizeof c, hipMemcpyDefault));
  if (host_view) {
    CHECK(host_view->d == c.d && host_view->f == c.f, "%s: host and device views differ", what);
  }
  std::printf("%s: d=%g (old %g) f=%g (old %g) u=%u (old %u)\n", what, c.d, o.old_d, c.f,
              o.old_f, c.u, o.old_i);
  if (dropped) {
    CHECK(c.d == 5.0 && o.old_d == 0.0, "%s: f64 add not dropped: %g, old %g", what, c.d, o.old_d);
    CHECK(c.f == 1.0f && o.old_f == 0.0f, "%s: f32 add not dropped: %g, old %g", what, c.f,
          o.old_f);
  } else {
    CHECK(c.d == 15.0 && o.old_d == 5.0, "%s: f64 add: %g, old %g", what, c.d, o.old_d);
    CHECK(c.f == 3.5f && o.old_f == 1.0f, "%s: f32 add: %g, old %g", what, c.f, o.old_f);
  }
  CHECK(c.u == 107u && o.old_i == 100u, "%s: integer add: %u, old %u", what, c.u, o.old_i);

  // The compare-and-swap loop works on every kind of memory.
  hipLaunchKernelGGL(cas_float_atomics, dim3(1), dim3(1), 0, 0, &dev->d, &dev->f);
  LAUNCH_CHECK();
  HIP_CHECK(hipMemcpy(&c, dev, sizeof c, hipMemcpyDefault));
  CHECK(c.d == (dropped ? 15.0 : 25.0), "%s: CAS f64 add gave %g", what, c.d);
  CHECK(c.f == (dropped ? 3.5f : 6.0f), "%s: CAS f32 add gave %g", what, c.f);
  HIP_CHECK(hipFree(out));
}

static void init(Cell *c) {
  c->d = 5.0;
  c->f = 1.0f;
  c->u = 100u;
}

int main() {
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  std::string arch(prop.gcnArchName);
  bool mi200 = arch.rfind("gfx90a", 0) == 0;
  std::printf("arch %s\n", prop.gcnArchName);

  // Coherent (fine-grained) host memory: hipHostMallocCoherent, and the default flags.
  const unsigned int coherent_flags[] = {hipHostMallocCoherent, hipHostMallocDefault,
                                         hipHostMallocMapped};
  for (unsigned int flags : coherent_flags) {
    Cell *h = nullptr, *d = nullptr;
    HIP_CHECK(hipHostMalloc(&h, sizeof(Cell), flags));
    init(h);
    HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void **>(&d), h, 0));
    char name[64];
    std::snprintf(name, sizeof name, "coherent host (flags %#x)", flags);
    run(name, h, d, mi200);
    HIP_CHECK(hipHostFree(h));
  }

  // Non-coherent host memory: the hardware atomics work.
  {
    Cell *h = nullptr, *d = nullptr;
    HIP_CHECK(hipHostMalloc(&h, sizeof(Cell), hipHostMallocNonCoherent));
    init(h);
    HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void **>(&d), h, 0));
    run("non-coherent host", h, d, false);
    HIP_CHECK(hipHostFree(h));
  }

  // Device memory.
  {
    Cell init_c, *d = nullptr;
    init(&init_c);
    HIP_CHECK(hipMalloc(&d, sizeof(Cell)));
    HIP_CHECK(hipMemcpy(d, &init_c, sizeof(Cell), hipMemcpyHostToDevice));
    run("device", nullptr, d, false);
    HIP_CHECK(hipFree(d));
  }
  pass("atomics_fine_grained");
  return 0;
}
