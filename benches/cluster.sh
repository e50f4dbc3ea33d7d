#!/bin/bash
# The MPI engine's figures in results/cluster.md: one puzzle on 1 to P processes under mpirun,
# each run's search and wall time, peak memory a process, the most bytes (and ranks) exchanged in
# a level and in all, and its distances file compared with a plain run's.
#
#   benches/cluster.sh MAX-PROCESSES PUZZLE-ARGS...
#
# e.g. benches/cluster.sh 4 --puzzle turnstyle --n 12   (after cargo build --release --features mpi)
# One process runs with all cores' threads, more with --threads 1 each (THREADS overrides both).
set -eu
max=$1
shift
bin=target/release/gpusearch
out=${OUT:-/tmp/cluster-bench}
rm -rf "$out" && mkdir -p "$out"
"$bin" "$@" --backend cpu --quiet --out "$out/plain" >/dev/null
for p in $(seq 1 "$max"); do
    threads=${THREADS:-$([ "$p" = 1 ] && nproc || echo 1)}
    # mpirun binds a process to one core by default: a process of several threads needs them.
    bind=$([ "$threads" -gt 1 ] && echo "--bind-to none" || true)
    dir=$out/p$p
    start=$(date +%s.%N)
    # Each process appends its peak to one file (stderr lines of several processes interleave).
    mpirun --oversubscribe --allow-run-as-root $bind -np "$p" /usr/bin/time -a -o "$dir.peaks" -f "PEAK %M KB" \
        "$bin" "$@" --backend cpu --threads "$threads" --out "$dir" >"$dir.out" 2>"$dir.err"
    end=$(date +%s.%N)
    search=$(python3 -c "import json; print(json.load(open('$dir/report.json'))['seconds'])")
    peaks=$(awk '/PEAK/ {printf "%d ", $2 / 1000}' "$dir.peaks")
    # Process 0's line: compressed bytes/ranks per level.
    exchanged=$(grep 'exchanged per level' "$dir.err" | tr ' ' '\n' |
        awk -F/ 'NF == 2 { b += $1; r += $2; if ($1 + 0 > m) { m = $1 + 0; mr = $2 } }
                 END { printf "level max %d B / %d ranks; all %d B / %d ranks", m, mr, b, r }')
    same=$(cmp -s "$out/plain/distances.gsd" "$dir/distances.gsd" && echo identical || echo DIFFERENT)
    printf 'P=%d search %ss wall %.2fs peak MB/process: %s| %s | file %s\n' "$p" "$search" \
        "$(python3 -c "print($end - $start)")" "$peaks" "$exchanged" "$same"
done
