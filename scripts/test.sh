#!/usr/bin/env bash
# Runs every test of hsaemu: installs what is missing, checks formatting and lints, builds the
# whole workspace (the `hsaemu` binary and libhsa-runtime64.so.1 that the integration tests
# run), then runs every test. `cargo build` and `cargo test` share one profile (Cargo.toml), so
# the test run reuses the build and compiles nothing. Kernels and HIP programs are compiled by
# the real compilers on first use and cached under target/. Where the time goes:
# docs/notes/ci-time.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# A fresh clone (CI) compiles every crate once: incremental compilation's caches of the
# workspace crates would only cost time and disk there. An existing target/ keeps the caller's
# setting, since changing it rebuilds the workspace crates (docs/notes/ci-time.md, "Round 4").
# There the workspace crates are also compiled in one codegen unit each, as Cargo.toml has the
# dependencies: with rustc's default of 16, LLVM optimises each unit and, after the units' local
# ThinLTO, optimises them again; a cold build took ~30 CPU-s (3-9 %) less (Round 9). Not in
# Cargo.toml, where it would make a developer's incremental rebuilds redo each crate whole.
# Clippy, on a fresh target/, runs inside the build: clippy-driver as the workspace crates'
# compiler (what `cargo clippy` does, but with code generation) lints every workspace target
# with -D warnings as it compiles it, so the dependencies are not checked a second time and
# nothing is parsed twice: 47 CPU-s less of a cold run (docs/notes/ci-time.md, "Clippy inside
# the build"). An existing target/ keeps plain `cargo clippy`, since the wrapper is part of the
# workspace crates' fingerprint: switching would rebuild them for the caller's `cargo test`.
fused_clippy=0
if [ ! -d target/debug ]; then
  export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
  export CARGO_PROFILE_DEV_CODEGEN_UNITS="${CARGO_PROFILE_DEV_CODEGEN_UNITS:-1}"
  if driver=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver); then
    fused_clippy=1
    export RUSTC_WORKSPACE_WRAPPER="$driver" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
  fi
fi
scripts/setup.sh
cargo fmt --all -- --check
# The tests' inputs that the real compilers build on a cold cache (the kernel corpus: ~1400
# clang runs; the HIP programs: ~60 hipcc builds) are compiled first, in the background at the
# lowest priority, while cargo checks and builds: clang takes the cores cargo leaves idle and
# the tests find them cached (docs/notes/ci-time.md). The same content-addressed caches the
# tests fill themselves, so a test never depends on this step: it only moves the work earlier.
mkdir -p target
cargo build -p hsaemu-testkit --bin build-corpus
prebuild_log=target/prebuild.log
# In its own process group (set -m), so that an early exit stops all of it; not in its own
# session (setsid): with the kernel's autogroups, a session competes as a whole with the rest
# and nice would no longer apply.
set -m
bash -c 'nice -n 19 target/debug/build-corpus & corpus=$!
  scripts/hip-tests.sh --build-only --list |
    nice -n 19 xargs -P 2 -n 8 scripts/hip-tests.sh --build-only
  hip=$?
  wait $corpus && exit $hip' >"$prebuild_log" 2>&1 &
prebuild=$!
set +m
trap 'kill -- -"$prebuild" 2>/dev/null || true' EXIT
[ "$fused_clippy" = 1 ] || cargo clippy --workspace --all-targets -- -D warnings
cargo build --workspace --all-targets
prebuild_status=0
wait "$prebuild" || prebuild_status=$?
if [ "$prebuild_status" -ne 0 ]; then
  echo "==== building the test kernels or HIP programs failed ($prebuild_log); the tests that" \
    "need them will build them again and fail ====" >&2
  tail -n 60 "$prebuild_log" >&2
fi
# The workspace run has the compiling tier on (its default). The emulator's tests (every kernel
# test among them) run again with everything interpreted, and kernels.rs with each compiled
# block checked bit for bit against the interpreter (docs/architecture-emu.md, "The compiling
# tier", "Testing"). The HIP programs run with HSAEMU_JIT=0 and with the tier on in the
# workspace run (tests/it/hip.rs, every_program_gives_the_same_results_in_both_tiers).
# These reruns run the test binaries the workspace run built: `cargo test -p hsaemu-emu-tests`
# would resolve dependency features for that package alone (fewer than the workspace's) and so
# rebuild it, its dependencies and its tests. The emulator's tests are built by two packages of
# their own, at a lower opt-level than the emulator's (Cargo.toml): crates/emu-tests (`emu`,
# `jit`) and crates/emu-unit (`unit`, the unit tests of crates/emu/src). They run in crates/emu,
# beside the files they compile (they find their inputs through testkit, not the directory).
emu_tests=$(cargo test --workspace --no-run --message-format=json |
  grep '"reason":"compiler-artifact"' | grep -E '/crates/emu-(tests|unit)#' |
  grep -o '"executable":"[^"]*"' | cut -d'"' -f4 || true)
emu=$(grep '/deps/emu-' <<<"$emu_tests" || true)
[ -n "$emu" ] || { echo "test.sh: hsaemu-emu's test binaries not found" >&2; exit 1; }
# The reruns start beside the workspace run as soon as it reaches `jit` (or, were that renamed,
# the integration tests), when the `emu` binary has run: its first run compiles the kernels the
# reruns read, and the kernel cache coordinates threads, not processes. The two share the cores,
# so the stretches where one of them has a single test left (`jit`'s one ordered test, the
# integration binary's long HIP tests) no longer leave a core idle (docs/notes/ci-time.md,
# "Stop 34, coordinator"). If the workspace run never gets there, they start when it ends.
log=target/test-output.log
rerun_log=target/rerun-output.log
done_mark=target/test-run.done
: >"$log"
rm -f "$done_mark"
reruns() {
  until grep -q -E -- ' Running (\.\./emu/tests/jit|it/main)\.rs ' "$log" || [ -e "$done_mark" ]; do
    sleep 1
  done
  cd crates/emu
  for t in $emu_tests; do
    echo "HSAEMU_JIT=0 ${t#"$OLDPWD"/}"
    HSAEMU_JIT=0 "$t" || return
  done
  echo "HSAEMU_JIT=verify ${emu#"$OLDPWD"/} kernels::"
  HSAEMU_JIT=verify "$emu" kernels::
}
# In its own process group, like the prebuild, so that an early exit stops the test binary too.
set -m
reruns >"$rerun_log" 2>&1 &
rerun=$!
set +m
trap 'kill -- -"$prebuild" -"$rerun" 2>/dev/null || true' EXIT
# The whole log is long; on failure, repeat each failing test's own output at the end, where a
# CI page that shows only the head and tail of the log still shows it.
set +e
cargo test --workspace --no-fail-fast 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
touch "$done_mark"
wait "$rerun"
rerun_status=$?
set -e
echo "==== the emulator's tests again, interpreted and verified ($rerun_log) ===="
cat "$rerun_log"
for s in "$status:$log" "$rerun_status:$rerun_log"; do
  if [ "${s%%:*}" -ne 0 ]; then
    echo "==== the failing tests' output again (whole log: ${s#*:}) ===="
    grep -A 40 -- '^---- .* stdout ----$' "${s#*:}" |
      grep -v -E '^ +(at |[0-9]+: )|^stack backtrace:|^note: ' | head -n 300 || true
    exit "${s%%:*}"
  fi
done
if [ "$prebuild_status" -ne 0 ]; then
  echo "test.sh: building the test kernels or HIP programs failed (above, and $prebuild_log)" >&2
  exit "$prebuild_status"
fi
