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
// ds_write2_b32 stores x + r at t[l] and y - r at t[l + 32]: B's first element lands on A's
// second (t[32..63]), which hold B's x where the waves' stores run A's instruction, then
// B's (the interpreter's order), and A's y where the pair went element by element over
// both waves. In a loop (`reps` passes): kernels with LDS pair only in loops' regions.
kernel void pair_lds(global const int *x, global const int *y, global int *out, uint reps) {
    local int t[96];
    uint l = get_local_id(0), i = get_global_id(0);
    int a = x[i], b = y[i], s = 0, u = 0;
    for (uint r = 0; r < reps; r++) {
        t[l] = a + (int)r;
        t[l + 32] = b - (int)r;
        barrier(CLK_LOCAL_MEM_FENCE);
        s += t[l];
        u += t[l + 32];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[2 * i] = s;
    out[2 * i + 1] = u;
}

// Tile marks in a pair call (work-groups of 16 x 4: wave A ly 0-1, B ly 2-3). Both waves
// read rows 2g and 2g + 1 of `a` and `c` (ly & 1), so each wave's address rows are 16-lane
// tiles on their own, but B's lanes do not continue A's (the pair's 64 lanes are no tile).
// The first loop's global-load region (a local atomic: it never pairs) tests and marks
// each wave's rows alone; the second loop's, on the same rows, runs as a pair. (The LDS
// stores go to a permutation of the lanes, whose address row is no tile: the second loop
// tests only rows the first marks.)
kernel void pair_tiles(global const int *a, global const int *c, global int *out, uint n) {
    local int t[4][16];
    local int count;
    uint lx = get_local_id(0), ly = get_local_id(1);
    uint at = (2 * get_group_id(0) + (ly & 1)) * n + lx;
    global const int *p = a + at, *q = c + at;
    if (lx == 0 && ly == 0)
        count = 0;
    int acc = p[0];
    for (uint k = 16; k < n; k += 16) {
        t[ly][lx * 7 & 15] = p[k] + 3 * q[k];
        atomic_add(&count, 1);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < 16; j++)
            acc += t[ly][j] * (int)(j + 1);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint k = 16; k < n; k += 16) {
        t[ly][lx * 7 & 15] = (p[k] ^ 0x55) - q[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < 16; j++)
            acc += t[ly][j] * (int)(j + 2);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // A region of its own, `p` and `q` live to it: the loops' regions do not write their
    // address rows.
    barrier(CLK_LOCAL_MEM_FENCE);
    out[(4 * get_group_id(0) + ly) * 16 + lx] = acc + count + p[1] - q[2];
}
