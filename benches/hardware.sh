#!/bin/bash
# The hardware runs of the GPU engine, on a machine with a GPU and a Vulkan driver: each puzzle
# on the GPU (and, for the `auto` choice, on the CPU), each distances file's SHA-256 compared with
# the one in results/ (or a subfolder of it), the reports and logs copied to $OUT.
#
#   benches/hardware.sh BINARY SECONDS PUZZLE-ARGS...  (one run per ';'-separated argument list)
#
# e.g. benches/hardware.sh target/release/gpusearch 300 "--puzzle turnstyle --n 12" "--backend cpu --puzzle turnstyle --n 12"
# With GPUSEARCH_PROFILE set, the GPU engine prints each kernel's wall time per pass.
set -u
bin=$1 limit=$2
shift 2
out=${OUT:-/tmp/hardware}
mkdir -p "$out"
i=0
for args in "$@"; do
    i=$((i + 1))
    dir=/tmp/hardware-run-$i
    rm -rf "$dir"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    timeout "$limit" "$bin" $args --out "$dir" >"$out/run$i.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    sha=$(sha256sum "$dir/distances.gsd" 2>/dev/null | cut -d' ' -f1)
    want=$([ -n "$sha" ] && grep -h -o "$sha" results/*/report.json results/*/*/report.json 2>/dev/null | head -1)
    secs=$(python3 -c "import json; d=json.load(open('$dir/report.json')); print(d['seconds'], d['backend'], d['adapter'])" 2>/dev/null)
    cp "$dir/report.json" "$out/report$i.json" 2>/dev/null
    printf 'run %d [%s] rc=%d wall=%.1fs search=%s sha=%s %s\n' "$i" "$args" "$rc" \
        "$(python3 -c "print($end - $start)")" "$secs" "${sha:0:16}" "$([ -n "$want" ] && echo MATCHES-results || echo NO-MATCH)"
    rm -rf "$dir"
done
