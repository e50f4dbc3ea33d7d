#!/bin/bash
# The disk tier against memory: one puzzle searched in memory, then from disk within each
# budget given, each in a fresh process with a fresh folder under $RUNS (on the disk measured:
# direct I/O needs a real file system, not tmpfs). Prints, per run, the wall time, the report's
# search time, the bytes read and written, the peak resident memory and whether the distances
# file's SHA-256 equals the in-memory run's (and the one in results/).
#
#   benches/disk.sh BINARY SECONDS "PUZZLE-ARGS" BUDGET...
#
# e.g. benches/disk.sh target/release/gpusearch 900 "--puzzle turnstyle --n 13" 256MiB
set -u
bin=$1 limit=$2 args=$3
shift 3
runs=${RUNS:-runs/disk-bench}
mkdir -p "$runs"
first=""
for budget in memory "$@"; do
    dir=$runs/$budget
    rm -rf "$dir"
    extra=""
    [ "$budget" != memory ] && extra="--memory $budget"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    python3 - "$limit" "$bin" $args $extra --backend cpu --quiet --out "$dir" <<'EOF' >"$dir.time" 2>&1
import resource, subprocess, sys
try:
    with open(sys.argv[-1] + ".log", "w") as log:
        rc = subprocess.run(sys.argv[2:], stdout=log, stderr=log, timeout=float(sys.argv[1])).returncode
except subprocess.TimeoutExpired:
    rc = 124
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
    end=$(date +%s.%N)
    read -r rc peak <"$dir.time"
    sha=$(sha256sum "$dir/distances.gsd" 2>/dev/null | cut -d' ' -f1)
    [ -z "$first" ] && first=$sha
    want=""
    [ -n "$sha" ] && want=$(grep -h -o "$sha" results/*/report.json 2>/dev/null | head -1)
    figures=$(python3 -c "
import json; d = json.load(open('$dir/report.json')); io = d.get('disk') or {}
print(d['seconds'], io.get('read_bytes', '-'), io.get('written_bytes', '-'), io.get('io_seconds', '-'))" 2>/dev/null)
    printf '%s [%s] rc=%s wall=%.1fs search,read,written,io=%s peak=%.0fMiB sha=%s %s %s\n' \
        "$budget" "$args" "$rc" "$(python3 -c "print($end - $start)")" "$figures" \
        "$(python3 -c "print(${peak:-0} / 1024)")" "${sha:0:16}" \
        "$([ -n "$sha" ] && [ "$sha" = "$first" ] && echo SAME-AS-MEMORY || echo DIFFERS)" \
        "$([ -n "$want" ] && echo MATCHES-results || echo NO-MATCH)"
    [ "$budget" != memory ] && rm -rf "$dir"
    [ "$rc" != 0 ] && tail -2 "$dir.log"
done
rm -rf "$runs/memory"
