#!/usr/bin/env python3
"""Prints the 1201-bit fraction of 2/pi (floor(2/pi * 2^1201)) as little-endian u64 limbs, for
v_trig_preop_f64. Pi from Machin's formula in exact integer arithmetic."""
N = 1600  # working precision in bits

def arctan_inv(x, one):
    # arctan(1/x) * one
    total = term = one // x
    x2 = x * x
    n = 1
    sign = -1
    while term:
        term //= x2
        total += sign * (term // (2 * n + 1))
        sign = -sign
        n += 1
    return total

one = 1 << N
pi = 16 * arctan_inv(5, one) - 4 * arctan_inv(239, one)   # pi * 2^N
x = (2 << (1201 + N)) // pi                                  # floor(2/pi * 2^1201)
assert x.bit_length() == 1201  # 2/pi = 0.1010... in binary: bit 1200 is the 2^-1 place
limbs = []
while x:
    limbs.append(x & ((1 << 64) - 1))
    x >>= 64
print(len(limbs))
print(",\n".join("    0x%016x" % l for l in limbs))
