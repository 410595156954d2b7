// targets: gfx90a gfx906 gfx803 gfx1030
// ROCclr's buffer blit kernels as HIP 5.2 builds them with comgr when it creates its first
// queue: one-line wrappers around the device library's __amd_* blit functions (opencl.bc,
// ROCm-Device-Libs opencl/src/misc/amdblit.cl), with the same names and signatures. The
// emulator recognises them and runs them natively (crates/emu/src/blit.rs);
// crates/emu/tests/blit.rs checks the native results against interpretation.

extern void __amd_fillBufferAligned(__global uchar *, __global ushort *, __global uint *,
                                    __global ulong *, __constant uchar *, uint, ulong, ulong);
extern void __amd_copyBuffer(__global uchar *, __global uchar *, ulong, ulong, ulong, uint);
extern void __amd_copyBufferAligned(__global uint *, __global uint *, ulong, ulong, ulong,
                                    uint);

__kernel void __amd_rocclr_fillBufferAligned(__global uchar *bufUChar, __global ushort *bufUShort,
                                             __global uint *bufUInt, __global ulong *bufULong,
                                             __constant uchar *pattern, uint patternSize,
                                             ulong offset, ulong size) {
  __amd_fillBufferAligned(bufUChar, bufUShort, bufUInt, bufULong, pattern, patternSize, offset,
                          size);
}

__kernel void __amd_rocclr_copyBuffer(__global uchar *srcI, __global uchar *dstI, ulong srcOrigin,
                                      ulong dstOrigin, ulong size, uint remain) {
  __amd_copyBuffer(srcI, dstI, srcOrigin, dstOrigin, size, remain);
}

__kernel void __amd_rocclr_copyBufferAligned(__global uint *src, __global uint *dst,
                                             ulong srcOrigin, ulong dstOrigin, ulong size,
                                             uint alignment) {
  __amd_copyBufferAligned(src, dst, srcOrigin, dstOrigin, size, alignment);
}

// The same body under another name: never recognised, so always interpreted.
__kernel void not_a_blit_copyBuffer(__global uchar *srcI, __global uchar *dstI, ulong srcOrigin,
                                    ulong dstOrigin, ulong size, uint remain) {
  __amd_copyBuffer(srcI, dstI, srcOrigin, dstOrigin, size, remain);
}

