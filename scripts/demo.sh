#!/bin/sh
# make demo: compile RCCE programs with rccecc, run stencil on 48 emulated
# SCC cores, pingpong between the two farthest cores (0 and 47), and the
# iRCCE/RCCE_peek request-reply server on 48 cores with tagged flags and
# remote-put/local-get; MetalSVM's shared virtual memory (Laplace in its
# three variants) and mailboxes; an MPI program (hash-distributed search) over
# the libfabric provider; then the same kind of programs in model mode, with
# the SCC time, energy and power they would have had; a report of the traced
# model run; and the [FURST-2011] (docs/references.md) study reproduced
# (openscc reproduce furst2012 --quick) with its figures and table.
set -eu
BUILD=${1:-build}
OUT=$BUILD/demo
mkdir -p "$OUT"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f s", b - a }'; }

echo "== compiling unmodified RCCE programs with rccecc"
"$BUILD/bin/rccecc" -O2 apps/stencil.c -o "$OUT/stencil" -lm
"$BUILD/bin/rccecc" -O2 apps/pingpong.c -o "$OUT/pingpong"
"$BUILD/bin/rccecc" -O2 apps/peek_server.c -o "$OUT/peek_server"
# counted builds for model mode: the same prediction on every run (docs/model.md)
"$BUILD/bin/rccecc" --model-build -O2 apps/stencil.c -o "$OUT/stencil-counted" -lm
"$BUILD/bin/rccecc" --model-build -O2 apps/pingpong.c -o "$OUT/pingpong-counted"
echo "   $BUILD/bin/rccecc -O2 apps/stencil.c -o $OUT/stencil -lm"

# run_timed TITLE SUMMARY_LINES rccerun-args...: print the title and the command, run it, print
# launch-to-finish.  SUMMARY_LINES > 0 keeps the output in a file and shows only its last lines.
run_timed() {
  title=$1 summary=$2
  shift 2
  echo
  echo "== $title"
  echo "   $BUILD/bin/rccerun $*"
  t0=$(now)
  if [ "$summary" -gt 0 ]; then
    "$BUILD/bin/rccerun" "$@" >"$OUT/last-run.out"
    tail -n "$summary" "$OUT/last-run.out"
  else
    "$BUILD/bin/rccerun" "$@"
  fi
  t1=$(now)
  echo "   launch-to-finish: $(elapsed "$t0" "$t1")"
}

run_timed "stencil (2-D Jacobi, halo exchange) on 48 emulated cores" 0 -nue 48 "$OUT/stencil" 32 100
run_timed "pingpong between cores 0 and 47 (tiles (0,0) and (5,3): 8 mesh hops)" 0 \
  -nue 2 --cores 0,47 "$OUT/pingpong" 1048576 200
run_timed "request/reply server on RCCE_peek: 47 clients, variable-size requests, tagged flags, remote put" 2 \
  -nue 48 --flags tagged --scheme rplg "$OUT/peek_server" 3 2000
run_timed "MetalSVM: Laplace 1024 x 512 on 8 cores, SVM strong model (pages move by page faults over mailboxes)" 2 \
  -nue 8 "$BUILD/apps/laplace" strong 200
run_timed "MetalSVM: the same, lazy release consistency" 2 -nue 8 "$BUILD/apps/laplace" lazy 200
run_timed "MetalSVM: the same with iRCCE messages (non-blocking halo exchange): the same checksum" 2 \
  -nue 8 "$BUILD/apps/laplace" mp 200
echo
echo "== an unmodified MPI program, built with Open MPI's own mpicc (docs/mpi.md)"
echo "   mpicc.openmpi -O2 apps/mpi/hda_star.c -o $OUT/hda_star"
mpicc.openmpi -O2 apps/mpi/hda_star.c -o "$OUT/hda_star"
run_timed "MPI: hash-distributed A* on the 15-puzzle, 16 ranks, every byte through the provider and the MPB (rckmpi channel)" 0 \
  --mpi openmpi -nue 16 "$OUT/hda_star" 4 40 3
echo
echo "Times above are host wall-clock (native mode). Model mode: virtual SCC time, energy and power."
run_timed "model mode: [SVM-2012] Table 1 (SVM overheads) on cores 0 and 30, in virtual SCC microseconds" 8 \
  -nue 2 --cores 0,30 --model scc --replace-job-dir --job-dir "$OUT/model-svm" "$BUILD/model-apps/svm_table1"
run_timed "model mode: pingpong between cores 0 and 47 (counted build: rccecc --model-build), SCC latencies" 0 \
  -nue 2 --cores 0,47 --model scc --replace-job-dir --job-dir "$OUT/model-pingpong" "$OUT/pingpong-counted" 65536 50
run_timed "model mode: stencil on 48 cores (counted build), traced: who sent what to whom" 0 \
  -nue 48 --model scc --trace timeline --replace-job-dir --job-dir "$OUT/model-stencil" "$OUT/stencil-counted" 32 100

echo
echo "== report of the traced model run (openscc report)"
report=$(OPENSCC_PYTHON=${PYTHON:-python3} "$BUILD/bin/openscc" report "$OUT/model-stencil")
echo "   $report"
echo "   timeline for ui.perfetto.dev: $OUT/model-stencil/trace.json"

echo
echo "== [FURST-2011] (Furst & Coskun) reproduced in model mode: openscc reproduce furst2012 --quick"
rm -rf "$OUT/furst2012"
t0=$(now)
OPENSCC_PYTHON=${PYTHON:-python3} "$BUILD/bin/openscc" reproduce furst2012 --quick --build "$BUILD" -o "$OUT/furst2012" \
  | grep --line-buffered -v '^  \[' || true
t1=$(now)
tail -n +3 "$OUT/furst2012/table.md"
echo "   $(elapsed "$t0" "$t1"); page with figures: $OUT/furst2012/index.html"
echo
echo "Reports: $report and $OUT/furst2012/index.html"
echo "make validate compares the model with the published SCC figures. See README.md for the benchmark tables."
