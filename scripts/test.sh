#!/usr/bin/env bash
# Runs every test of hsaemu: installs what is missing, checks formatting and lints, builds the
# whole workspace (the `hsaemu` binary and libhsa-runtime64.so.1 that the integration tests
# run), then runs every test. `cargo build` and `cargo test` share one profile (Cargo.toml), so
# the test run reuses the build and compiles nothing. Kernels and HIP programs are compiled by
# the real compilers on first use and cached under target/. Where the time goes:
# docs/notes/ci-time.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo build --workspace --all-targets
# The whole log is long; on failure, repeat each failing test's own output at the end, where a
# CI page that shows only the head and tail of the log still shows it.
mkdir -p target
log=target/test-output.log
set +e
cargo test --workspace --no-fail-fast 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  echo "==== the failing tests' output again (whole log: $log) ===="
  grep -A 40 -- '^---- .* stdout ----$' "$log" |
    grep -v -E '^ +(at |[0-9]+: )|^stack backtrace:|^note: ' | head -n 300
  exit "$status"
fi
# The workspace run above has the compiling tier on (its default). The emulator's tests (every
# kernel test among them) again with everything interpreted, and kernels.rs with each compiled
# block checked bit for bit against the interpreter (docs/architecture-emu.md, "The compiling
# tier", "Testing"). The HIP programs run with HSAEMU_JIT=0 and with the tier on in the
# workspace run (tests/it/hip.rs, every_program_gives_the_same_results_in_both_tiers).
# These reruns run the test binaries the workspace run built, in the package's directory as
# cargo test does: `cargo test -p hsaemu-emu` would resolve dependency features for that
# package alone (fewer than the workspace's) and so rebuild it, its dependencies and its tests.
emu_tests=$(cargo test --workspace --no-run --message-format=json |
  grep '"reason":"compiler-artifact"' | grep -F '/crates/emu#' |
  grep -o '"executable":"[^"]*"' | cut -d'"' -f4 || true)
kernels=$(grep '/deps/kernels-' <<<"$emu_tests" || true)
[ -n "$kernels" ] || { echo "test.sh: hsaemu-emu's test binaries not found" >&2; exit 1; }
cd crates/emu
for t in $emu_tests; do
  echo "HSAEMU_JIT=0 ${t#"$OLDPWD"/}"
  HSAEMU_JIT=0 "$t"
done
echo "HSAEMU_JIT=verify ${kernels#"$OLDPWD"/}"
HSAEMU_JIT=verify "$kernels"
