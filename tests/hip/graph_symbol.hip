// Graph memcpy nodes to and from device symbols (issue 19): hipGraphAddMemcpyNodeToSymbol /
// FromSymbol on a fresh graph, hipGraphMemcpyNodeSetParamsFromSymbol, and
// hipGraphExecMemcpyNodeSetParamsFromSymbol on the instantiated graph, with a __device__ and a
// __constant__ symbol. HIP sizes each symbol through the loader's symbol information
// (HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS / _SIZE), so a wrong answer there makes these
// calls return hipErrorInvalidValue. Mirrors the HIP 5.2.3 Catch2 test
// Unit_hipGraphExecMemcpyNodeSetParamsFromSymbol_Negative and its functional siblings.
#include "hip_check.h"

#include <vector>

#define N 256

__device__ int globalIn[N];
__device__ int globalOut[N];
__device__ __constant__ int globalConst[N];

__global__ void copy_in_to_out(int scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    globalOut[i] = globalIn[i] * scale + globalConst[i];
}

int main() {
  const size_t bytes = N * sizeof(int);
  std::vector<int> a(N), c(N), out(N, -1), out2(N, -1);
  for (int i = 0; i < N; i++) {
    a[i] = i * 7 - 100;
    c[i] = 1000 + i;
  }
  int *a_d = nullptr, *b_d = nullptr;
  HIP_CHECK(hipMalloc(&a_d, bytes));
  HIP_CHECK(hipMalloc(&b_d, bytes));
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(globalConst), c.data(), bytes));

  // The symbols' sizes as HIP sees them.
  size_t size_in = 0, size_const = 0;
  HIP_CHECK(hipGetSymbolSize(&size_in, HIP_SYMBOL(globalIn)));
  HIP_CHECK(hipGetSymbolSize(&size_const, HIP_SYMBOL(globalConst)));
  CHECK(size_in == bytes, "globalIn size %zu", size_in);
  CHECK(size_const == bytes, "globalConst size %zu", size_const);

  // H2D -> ToSymbol(globalIn) -> kernel -> FromSymbol(globalOut) to host.
  hipGraph_t graph;
  HIP_CHECK(hipGraphCreate(&graph, 0));
  hipGraphNode_t h2d, to_sym, kern, from_sym;
  HIP_CHECK(hipGraphAddMemcpyNode1D(&h2d, graph, nullptr, 0, a_d, a.data(), bytes,
                                    hipMemcpyHostToDevice));
  HIP_CHECK(hipGraphAddMemcpyNodeToSymbol(&to_sym, graph, &h2d, 1, HIP_SYMBOL(globalIn), a_d,
                                          bytes, 0, hipMemcpyDeviceToDevice));
  hipKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void *>(copy_in_to_out);
  kp.gridDim = dim3(N / 64);
  kp.blockDim = dim3(64);
  int scale = 3;
  void *args[] = {&scale};
  kp.kernelParams = args;
  HIP_CHECK(hipGraphAddKernelNode(&kern, graph, &to_sym, 1, &kp));
  // First the __constant__ symbol (the call the Catch2 test makes on its fresh graph) ...
  HIP_CHECK(hipGraphAddMemcpyNodeFromSymbol(&from_sym, graph, &kern, 1, out.data(),
                                            HIP_SYMBOL(globalConst), bytes, 0,
                                            hipMemcpyDeviceToHost));
  // ... then retargeted to globalOut, copied into device memory (HIP 5.2's
  // hipGraphMemcpyNodeSetParamsFromSymbol accepts only a device destination with
  // hipMemcpyDeviceToDevice).
  HIP_CHECK(hipGraphMemcpyNodeSetParamsFromSymbol(from_sym, b_d, HIP_SYMBOL(globalOut), bytes, 0,
                                                  hipMemcpyDeviceToDevice));
  // Out of bounds of the symbol: must be refused.
  CHECK(hipGraphMemcpyNodeSetParamsFromSymbol(from_sym, b_d, HIP_SYMBOL(globalOut), bytes, 4,
                                              hipMemcpyDeviceToDevice) == hipErrorInvalidValue,
        "offset + count beyond the symbol accepted");

  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphLaunch(exec, 0));
  HIP_CHECK(hipStreamSynchronize(0));
  HIP_CHECK(hipMemcpy(out.data(), b_d, bytes, hipMemcpyDeviceToHost));
  for (int i = 0; i < N; i++)
    CHECK(out[i] == a[i] * 3 + c[i], "out[%d] = %d, want %d", i, out[i], a[i] * 3 + c[i]);

  // Update the instantiated graph: copy the __constant__ symbol, from an offset, into b_d.
  const size_t off = 16 * sizeof(int);
  HIP_CHECK(hipMemset(b_d, 0xff, bytes));
  HIP_CHECK(hipGraphExecMemcpyNodeSetParamsFromSymbol(exec, from_sym, b_d,
                                                      HIP_SYMBOL(globalConst), bytes - off, off,
                                                      hipMemcpyDeviceToDevice));
  HIP_CHECK(hipGraphLaunch(exec, 0));
  HIP_CHECK(hipStreamSynchronize(0));
  HIP_CHECK(hipMemcpy(out2.data(), b_d, bytes, hipMemcpyDeviceToHost));
  for (int i = 0; i < N - 16; i++)
    CHECK(out2[i] == c[i + 16], "out2[%d] = %d, want %d", i, out2[i], c[i + 16]);
  CHECK(out2[N - 1] == -1, "copied past the requested count");
  // A null symbol is refused as hipErrorInvalidSymbol (as the Catch2 test requires).
  CHECK(hipGraphExecMemcpyNodeSetParamsFromSymbol(exec, from_sym, b_d, nullptr, bytes, 0,
                                                  hipMemcpyDeviceToDevice) ==
            hipErrorInvalidSymbol,
        "null symbol not refused with hipErrorInvalidSymbol");

  // HIP 5.2's own argument check refuses a null dependency list even with zero dependencies
  // (hip_graph.cpp, before any HSA call): why the Catch2 test
  // Unit_hipGraphExecMemcpyNodeSetParamsFromSymbol_Negative fails on any GPU. Reported only.
  hipGraphNode_t root_from_sym;
  hipError_t e = hipGraphAddMemcpyNodeFromSymbol(&root_from_sym, graph, nullptr, 0, b_d,
                                                 HIP_SYMBOL(globalConst), bytes, 0,
                                                 hipMemcpyDeviceToDevice);
  std::printf("AddMemcpyNodeFromSymbol without dependencies: %s\n", hipGetErrorName(e));

  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(graph));
  HIP_CHECK(hipFree(a_d));
  HIP_CHECK(hipFree(b_d));
  pass("graph_symbol");
  return 0;
}
