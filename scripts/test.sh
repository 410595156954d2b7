#!/usr/bin/env bash
# Runs every test of hsaemu: installs what is missing, checks formatting and lints, builds the
# whole workspace (the `hsaemu` binary and libhsa-runtime64.so.1 that the integration tests
# run), then runs every test. Kernels and HIP programs are compiled by the real compilers on
# first use and cached under target/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo build --workspace --all-targets
cargo test --workspace --no-fail-fast
