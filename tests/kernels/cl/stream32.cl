// The compiling tier's streamed work-groups (a work-group's wave32 pairs run one after the
// other in two waves, crates/emu/tests/jit/streams.rs): a scatter whose index may be wild in
// one lane. Its own code object, so its regions are compiled for these dispatches alone.

kernel void stream_scatter(global const uint *idx, global int *c, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        c[idx[i]] = (int)i + 7;
}
