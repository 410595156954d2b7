// The compiling tier's pair calls (two wave32s of a work-group in one region call,
// crates/emu/tests/jit/pairs.rs): a bounds-tested add whose last work-group has one wave
// partly or wholly out of range (its lanes out of range store k), and a scatter whose
// index may be wild in one lane.

kernel void pair_add(global const int *a, global const int *b, global int *c, uint n, int k) {
    uint i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + 3 * b[i];
    else
        c[i] = k;
}

kernel void pair_scatter(global const uint *idx, global int *c, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        c[idx[i]] = (int)i + 7;
}

// DS accesses in a pair call (work-groups of 64: wave A lanes 0-31, B 32-63). One
// ds_write2_b32 stores x at t[l] and y at t[l + 32]: B's first element lands on A's second
// (t[32..63]), which hold B's x where the waves' stores run A's instruction, then B's (the
// interpreter's order), and A's y where the pair went element by element over both waves.
kernel void pair_lds(global const int *x, global const int *y, global int *out) {
    local int t[96];
    uint l = get_local_id(0), i = get_global_id(0);
    int a = x[i], b = y[i];
    t[l] = a;
    t[l + 32] = b;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[2 * i] = t[l];
    out[2 * i + 1] = t[l + 32];
}
