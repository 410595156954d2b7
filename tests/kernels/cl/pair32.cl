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
