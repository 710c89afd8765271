#!/bin/sh
# make demo: compile two RCCE programs with rccecc, run stencil on 48 emulated
# SCC cores and pingpong between the two farthest cores (0 and 47).
set -eu
BUILD=${1:-build}
OUT=$BUILD/demo
mkdir -p "$OUT"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f s", b - a }'; }

echo "== compiling unmodified RCCE programs with rccecc"
"$BUILD/bin/rccecc" -O2 apps/stencil.c -o "$OUT/stencil" -lm
"$BUILD/bin/rccecc" -O2 apps/pingpong.c -o "$OUT/pingpong"
echo "   $BUILD/bin/rccecc -O2 apps/stencil.c -o $OUT/stencil -lm"

echo
echo "== stencil (2-D Jacobi, halo exchange) on 48 emulated cores"
echo "   $BUILD/bin/rccerun -nue 48 $OUT/stencil 32 100"
t0=$(now)
"$BUILD/bin/rccerun" -nue 48 "$OUT/stencil" 32 100
t1=$(now)
echo "   launch-to-finish: $(elapsed "$t0" "$t1")"

echo
echo "== pingpong between cores 0 and 47 (tiles (0,0) and (5,3): 8 mesh hops)"
echo "   $BUILD/bin/rccerun -nue 2 --cores 0,47 $OUT/pingpong 1048576 200"
t0=$(now)
"$BUILD/bin/rccerun" -nue 2 --cores 0,47 "$OUT/pingpong" 1048576 200
t1=$(now)
echo "   launch-to-finish: $(elapsed "$t0" "$t1")"
echo
echo "Times are host wall-clock (native mode). See README.md for the benchmark table."
