// The compiling tier's streamed work-groups (a work-group's wave32 pairs run one after the
// other in two waves, crates/emu/tests/jit/streams.rs): a scatter whose index may be wild in
// one lane, and a loop whose trip count is the work-item's. Their own code object, so their
// regions are compiled for these dispatches alone.

kernel void stream_scatter(global const uint *idx, global int *c, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        c[idx[i]] = (int)i + 7;
}

// A loop of `n[i]` trips per work-item: waves whose lanes agree on the trip count end their
// pair call together; where A's and B's differ the pair leaves at the loop's branch, and a
// trip count past a quantum of instructions ends the call before the loop does.
kernel void stream_loop(global const uint *n, global uint *out) {
    uint i = get_global_id(0);
    uint acc = i;
    for (uint k = 0; k < n[i]; k++)
        acc = acc * 3u + k;
    out[i] = acc;
}
