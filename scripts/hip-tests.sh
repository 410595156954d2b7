#!/usr/bin/env bash
# Builds the HIP test programs of tests/hip/ (listed in tests/hip/manifest.txt) with Debian's
# hipcc and runs each one, unmodified, through `hsaemu exec -- ./program`: hsaemu's
# libhsa-runtime64.so.1 replaces ROCm's under HIP. See docs/hip.md.
#
# Usage: scripts/hip-tests.sh [--build-only] [--native] [--list] [NAME...]
#   NAME...       run only these programs (default: every program built for the target)
#   --build-only  build (and cache) every program for all its targets; run nothing
#   --native      run the programs directly, without hsaemu (on a machine with a real AMD GPU,
#                 this checks the programs themselves)
#   --list        print the programs that would run, and exit
# Environment:
#   HSAEMU_TARGET       the GPU hsaemu reports (default gfx90a); programs whose manifest targets
#                       do not include its processor are not run
#   HSAEMU_BIN          the hsaemu binary (default target/release/hsaemu, built when missing)
#   HIP_TEST_TIMEOUT    seconds per program (default 120)
#   CARGO_TARGET_DIR    where target/ is; binaries are cached in $CARGO_TARGET_DIR/hip
#
# Prints one line per program and a summary line `N passed, M failed, K known failures`. A
# program on a manifest `@known-failure` line for this target is `xfail` when it fails and
# counts as a failure (`XPASS`) when it passes. Exits non-zero when a program fails, when fewer
# programs ran than were selected, or when a build fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

build_only=0
native=0
list_only=0
names=()
for arg in "$@"; do
  case "$arg" in
    --build-only) build_only=1 ;;
    --native) native=1 ;;
    --list) list_only=1 ;;
    -h | --help)
      sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "hip-tests: unknown option $arg" >&2
      exit 2
      ;;
    *) names+=("$arg") ;;
  esac
done

hip_dir=tests/hip
manifest=$hip_dir/manifest.txt
target_dir=${CARGO_TARGET_DIR:-target}
cache=$target_dir/hip
mkdir -p "$cache" || exit 2
export HSAEMU_TARGET=${HSAEMU_TARGET:-gfx90a}
processor=${HSAEMU_TARGET%%:*}
timeout_s=${HIP_TEST_TIMEOUT:-120}

command -v hipcc >/dev/null || {
  echo "hip-tests: hipcc is missing: run scripts/setup.sh" >&2
  exit 2
}

# trim_into NAME TEXT: sets variable (or array element) NAME to TEXT without its leading and
# trailing white space, in this shell: a `$(…)` per manifest field forked ~450 subshells a start
# (~0.3 CPU-s, and test.sh's prebuild starts the script eight times).
trim_into() {
  local s=$2
  s=${s#"${s%%[![:space:]]*}"}
  printf -v "$1" '%s' "${s%"${s##*[![:space:]]}"}"
}

# pch_args "TARGETS" "LINK FLAGS": sets pch_opts to hipcc options that start each clang job of a
# program's build (the host's and one per target) from a precompiled hip_check.h, the first include of
# every program: parsing hip_runtime.h and the C++ headers is most of a short program's compile.
# `-Xarch_<side> --include=DIR/hsaemu_pch.h` names a header holding `#include "hip_check.h"`,
# and clang's driver replaces it with DIR/hsaemu_pch.h.pch, built here once per side and -std
# (the language options must match) with `-iquote tests/hip`: the same spelling as a program's
# own include, so __FILE__ in hip_check.h's macros is the same string, and the program's
# `#include "hip_check.h"` then does nothing (`#pragma once`). Programs build byte for byte as
# without it (docs/notes/ci-time.md, Round 10), so the output's cache key does not name it. A
# PCH's key: SHA-256 of "hsaemu-hip-pch v2", the side, the -std flag (and for the host side
# a -O0 from @link), the include directory,
# the cache's absolute path (a PCH names the header it was made from, so a copied cache makes
# its own), hip_check.h's modification time (clang rejects a PCH whose headers' times changed,
# so a touched hip_check.h gets a new one) and contents. Made under a temporary name and
# renamed, under flock, so that parallel builds (test.sh's xargs -P 2) make each once. A
# --genco source need not start with hip_check.h, and gets none.
pch_args() {
  local targets=$1 link=$2 std="" f side host_opt=()
  pch_opts=()
  for f in $link; do [[ "$f" == -std=* ]] && std=$f; done
  # A host side at -O0 (the @link pair `-Xarch_host --optimize=0`) needs a PCH made at -O0:
  # clang rejects a PCH whose __OPTIMIZE__ differs.
  [[ " $link " == *" -Xarch_host --optimize=0 "* ]] && host_opt=(-Xarch_host --optimize=0)
  local abs=$cache mtime
  mtime=$(stat -c %Y "$hip_dir/hip_check.h") || return 1
  [[ "$abs" == /* ]] || abs=$PWD/$cache
  for side in host $targets; do
    local key lang=$std
    [ "$side" = host ] && ((${#host_opt[@]})) && lang="$std ${host_opt[*]}"
    key=$({
      printf 'hsaemu-hip-pch v2\n%s %s\n%s\n%s\n%s\n' "$side" "$lang" "$hip_dir" "$abs" "$mtime"
      cat "$hip_dir/hip_check.h"
    } | sha256sum | cut -c1-16)
    local dir=$abs/pch/$side-$key
    if [ ! -f "$dir/hsaemu_pch.h.pch" ]; then
      mkdir -p "$dir" || return 1
      (
        flock 9
        [ -f "$dir/hsaemu_pch.h.pch" ] && exit 0
        if [ ! -f "$dir/hsaemu_pch.h" ]; then
          printf '#include "hip_check.h"\n' >"$dir/hsaemu_pch.h.$$"
          mv "$dir/hsaemu_pch.h.$$" "$dir/hsaemu_pch.h"
        fi
        # hipcc asks rocm_agent_enumerator for a GPU when given no --offload-arch; the host
        # side's PCH does not depend on which.
        only=(--cuda-host-only --offload-arch=gfx90a "${host_opt[@]}")
        [ "$side" = host ] || only=(--cuda-device-only "--offload-arch=$side")
        tmp=$dir/hsaemu_pch.h.pch.tmp$$
        # shellcheck disable=SC2086 # $std is one word or none
        if ! hipcc -O2 $std -iquote "$hip_dir" -x hip "${only[@]}" -S -Xclang -emit-pch \
          "$dir/hsaemu_pch.h" -o "$tmp" >"$tmp.log" 2>&1; then
          cat "$tmp.log" >&2
          rm -f "$tmp" "$tmp.log"
          echo "hip-tests: precompiling hip_check.h for $side failed" >&2
          exit 1
        fi
        rm -f "$tmp.log"
        mv "$tmp" "$dir/hsaemu_pch.h.pch"
      ) 9>"$dir.lock" || return 1
    fi
    pch_opts+=("-Xarch_$side" "--include=$dir/hsaemu_pch.h")
  done
}

# build_cached KIND SOURCE_NAME "TARGETS" ["LINK FLAGS"]: prints the cached output path; compiles
# when missing. The link flags (a program's @link line) go after the source. The cache key is the
# SHA-256 of "hsaemu-hip-build v1\n<hipcc arguments> <link flags>\n", hip_check.h, a NUL byte and
# the source; tests/it/hip.rs computes the same key, so each build happens only once.
build_cached() {
  local kind=$1 name=$2 targets=$3 link=${4:-}
  local src=$hip_dir/$name.hip
  [ -f "$src" ] || {
    echo "hip-tests: $src does not exist" >&2
    return 1
  }
  local args=()
  [ "$kind" = genco ] && args+=(--genco)
  args+=(-O2)
  local t
  for t in $targets; do args+=("--offload-arch=$t"); done
  local link_args=()
  for t in $link; do link_args+=("$t"); done
  local key_args=("${args[@]}" "${link_args[@]}")
  local key
  key=$({
    printf 'hsaemu-hip-build v1\n%s\n' "${key_args[*]}"
    cat "$hip_dir/hip_check.h"
    printf '\0'
    cat "$src"
  } | sha256sum | cut -c1-16)
  local out=$cache/$name-$key
  [ "$kind" = genco ] && out=$out.co
  if [ ! -f "$out" ]; then
    echo "hip-tests: building $name ($kind: $targets)" >&2
    local tmp=$out.tmp$$
    local pch_opts=() only=()
    if [ "$kind" = exe ]; then
      # A program that only calls a ROCm library (-l flags, no device declaration of its
      # own: tests/it/hip.rs `library_only`) has no device code: its device jobs would
      # compile hip_check.h for each target into nothing. `--cuda-host-only` skips them; the
      # output is byte for byte the same (docs/notes/ci-time.md, Round 12), so the cache key
      # does not name it.
      local pch_targets=$targets
      if [[ " $link " == *" -l"* ]] &&
        ! grep -qE '__(global|device|constant|shared|managed)__' "$src"; then
        only=(--cuda-host-only)
        pch_targets=""
      fi
      pch_args "$pch_targets" "$link" || return 1
    fi
    if ! hipcc "${args[@]}" "${only[@]}" "${pch_opts[@]}" "$src" -o "$tmp" "${link_args[@]}" >"$tmp.log" 2>&1; then
      cat "$tmp.log" >&2
      rm -f "$tmp" "$tmp.log"
      echo "hip-tests: build of $name failed" >&2
      return 1
    fi
    rm -f "$tmp.log"
    mv "$tmp" "$out"
  fi
  printf '%s' "$out"
}

# Read the manifest.
declare -a m_name m_targets m_args m_expect
declare -A known_failure link_flags
while IFS= read -r line || [ -n "$line" ]; do
  trim_into line "$line"
  [ -z "$line" ] && continue
  [ "${line:0:1}" = "#" ] && continue
  IFS='|' read -r -a fields <<<"$line"
  for k in "${!fields[@]}"; do trim_into "fields[$k]" "${fields[k]}"; done
  if [ "${fields[0]}" = "@link" ]; then
    # @link | name | -lLIB ...
    flags=${fields[2]:-}
    if ((${#fields[@]} != 3)) || [ -z "${fields[1]}" ] || [ -z "$flags" ]; then
      echo "hip-tests: malformed manifest line: $line" >&2
      exit 2
    fi
    for f in ${flags/-Xarch_host --optimize=0/}; do
      [[ "$f" =~ ^-l[A-Za-z0-9_-]+$ || "$f" =~ ^-std=c\+\+1[47]$ ]] || {
        echo "hip-tests: @link takes -l<library> and -std=c++14/17 flags and -Xarch_host --optimize=0: $line" >&2
        exit 2
      }
    done
    link_flags["${fields[1]}"]=$flags
    continue
  fi
  # @check-finding lines: what tests/it/hip.rs expects `--check` to find.
  [ "${fields[0]}" = "@check-finding" ] && continue
  if [ "${line:0:1}" = "@" ]; then
    # @known-failure | name | targets | reason
    if [ "${fields[0]}" != "@known-failure" ] || ((${#fields[@]} != 4)); then
      echo "hip-tests: malformed manifest line: $line" >&2
      exit 2
    fi
    for t in ${fields[2]}; do known_failure["${fields[1]}:$t"]=${fields[3]}; done
    continue
  fi
  if ((${#fields[@]} < 4)); then
    echo "hip-tests: malformed manifest line: $line" >&2
    exit 2
  fi
  m_name+=("${fields[0]}")
  m_targets+=("${fields[1]}")
  a=${fields[2]}
  [ "$a" = "-" ] && a=""
  m_args+=("$a")
  e=""
  for ((k = 3; k < ${#fields[@]}; k++)); do
    e+="${fields[k]}"$'\n'
  done
  m_expect+=("$e")
done <"$manifest"

# Select the programs.
selected=()
for i in "${!m_name[@]}"; do
  if ((${#names[@]})); then
    keep=0
    for n in "${names[@]}"; do [ "$n" = "${m_name[i]}" ] && keep=1; done
    ((keep)) || continue
  fi
  if ((!build_only)) && ! [[ " ${m_targets[i]} " == *" $processor "* ]]; then
    continue
  fi
  selected+=("$i")
done
for n in "${names[@]}"; do
  found=0
  for i in "${!m_name[@]}"; do [ "$n" = "${m_name[i]}" ] && found=1; done
  ((found)) || {
    echo "hip-tests: $n is not in $manifest" >&2
    exit 2
  }
done
if ((!build_only && !list_only && ${#names[@]} == 0 && ${#selected[@]} < ${#m_name[@]})); then
  echo "hip-tests: $((${#m_name[@]} - ${#selected[@]})) of ${#m_name[@]} programs are not built for $processor and will not run" >&2
fi
if ((list_only)); then
  for i in "${selected[@]}"; do echo "${m_name[i]}"; done
  exit 0
fi
if ((${#selected[@]} == 0)); then
  echo "hip-tests: no program is built for $processor" >&2
  echo "0 passed, 0 failed"
  exit 1
fi

# Build everything selected (all of each program's targets, so one cache entry serves every target).
declare -A exe
build_failures=0
for i in "${selected[@]}"; do
  if path=$(build_cached exe "${m_name[i]}" "${m_targets[i]}" "${link_flags[${m_name[i]}]:-}"); then
    exe[$i]=$path
  else
    build_failures=$((build_failures + 1))
  fi
  for a in ${m_args[i]}; do
    if [[ "$a" == @genco:* ]]; then
      build_cached genco "${a#@genco:}" "${m_targets[i]}" >/dev/null || build_failures=$((build_failures + 1))
    fi
  done
done
if ((build_only)); then
  echo "hip-tests: built $((${#selected[@]} - build_failures)) of ${#selected[@]} programs in $cache"
  ((build_failures == 0))
  exit
fi

# The runner.
runner=()
if ((!native)); then
  hsaemu=${HSAEMU_BIN:-$target_dir/release/hsaemu}
  if [ -z "${HSAEMU_BIN:-}" ]; then
    cargo build -q -p hsaemu-cli --release || {
      echo "hip-tests: cannot build hsaemu" >&2
      exit 2
    }
  fi
  [ -x "$hsaemu" ] || {
    echo "hip-tests: $hsaemu is not an executable" >&2
    exit 2
  }
  runner=("$hsaemu" exec --)
fi

passed=0
failed=0
xfailed=0
logs=$cache/logs
mkdir -p "$logs"
for i in "${selected[@]}"; do
  name=${m_name[i]}
  if [ -z "${exe[$i]:-}" ]; then
    echo "FAIL $name (build failed)"
    failed=$((failed + 1))
    continue
  fi
  args=()
  for a in ${m_args[i]}; do
    if [[ "$a" == @genco:* ]]; then
      args+=("$(build_cached genco "${a#@genco:}" "${m_targets[i]}")")
    else
      args+=("$a")
    fi
  done
  out=$logs/$name.stdout
  err=$logs/$name.stderr
  start=$(date +%s.%N)
  timeout -k 5 "$timeout_s" "${runner[@]}" "${exe[$i]}" "${args[@]}" >"$out" 2>"$err" </dev/null
  rc=$?
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  why=""
  if ((rc == 124 || rc == 137)); then
    why="timed out after ${timeout_s} s"
  elif ((rc != 0)); then
    why="exit status $rc"
  fi
  while IFS= read -r want; do
    [ -z "$want" ] && continue
    if [[ "$want" == \[* ]]; then
      # `[gfx1030 …] text`: expected only on the processors in brackets.
      only=${want%%]*}
      only=${only#[}
      [[ " $only " == *" $processor "* ]] || continue
      trim_into want "${want#*]}"
    fi
    grep -qF -- "$want" "$out" || why+="${why:+; }stdout lacks \"$want\""
  done <<<"${m_expect[i]}"
  known=${known_failure["$name:$processor"]:-}
  if [ -n "$known" ] && [ -n "$why" ]; then
    echo "xfail $name (${secs} s): known failure: $known"
    xfailed=$((xfailed + 1))
  elif [ -n "$known" ]; then
    echo "XPASS $name (${secs} s): passes, but the manifest lists it as a known failure; remove that line"
    failed=$((failed + 1))
  elif [ -z "$why" ]; then
    echo "ok   $name (${secs} s)"
    passed=$((passed + 1))
  else
    echo "FAIL $name (${secs} s): $why"
    echo "  --- stdout (last 15 lines, $out)"
    tail -n 15 "$out" | sed 's/^/  /'
    echo "  --- stderr (last 15 lines, $err)"
    tail -n 15 "$err" | sed 's/^/  /'
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed, $xfailed known failures"
ran=$((passed + failed + xfailed))
if ((ran < ${#selected[@]})); then
  echo "hip-tests: only $ran of ${#selected[@]} selected programs ran" >&2
  exit 1
fi
((failed == 0 && build_failures == 0))
