#!/usr/bin/env bash
# Size sweep: GB/s against working-set bytes, 4 KiB to 1 GiB, for fusebox,
# the direct oneDNN primitive and each size's memory roof, on six cases
# (f32 Add, bf16 Add, Equal, a 3-Add chain, a per-channel broadcast Add, a
# channels-last Add). Writes doc/perf/sweep.csv and draws doc/perf/sweep.svg.
#   scripts/sweep.sh [--threads=N] [--quick] [--plot-only]
#   --quick: every 4th size, no oneDNN rows; --plot-only: redraw from the CSV
set -euo pipefail
cd "$(dirname "$0")/.."

threads=2 quick=0 plot_only=0
for a in "$@"; do
  case "$a" in
    --threads=*) threads="${a#*=}" ;;
    --quick) quick=1 ;;
    --plot-only) plot_only=1 ;;
    *) echo "usage: scripts/sweep.sh [--threads=N] [--quick] [--plot-only]" >&2; exit 2 ;;
  esac
done

scripts/install_deps.sh
command -v gnuplot > /dev/null || { echo "sweep: gnuplot is missing (scripts/install_deps.sh installs gnuplot-nox)" >&2; exit 1; }
out=doc/perf
csv="$out/sweep.csv"
driver=./build/release/tools/fusebox-benchdnn
if [ "$plot_only" = 0 ]; then
  cmake --preset release > /dev/null
  cmake --build --preset release > /dev/null
  mkdir -p "$out"
  echo "case,impl,threads,working_set_bytes,level,GBps,roof_GBps" > "$csv"
fi

# in-shapes alternatives for one case: $1 bytes per element of the working set,
# $2 a function printing the in-shapes for an element count.
shapes_for() {
  local per_elem=$1 make=$2 list="" step=1
  [ "$quick" = 1 ] && step=4
  for ((p = 12; p <= 30; p += step)); do
    local n=$(( (1 << p) / per_elem ))
    list+="${list:+,}$($make "$n")"
  done
  echo "$list"
}
flat()       { echo "0:$1+1:$1"; }
chain()      { echo "0:$1+1:$1+2:$1+3:$1"; }
per_channel(){ local b=$(( $1 / 4096 )); [ $b -lt 1 ] && b=1; echo "0:${b}x64x64+1:1x64x1"; }
nhwc()       { local b=$(( $1 / 4096 )); [ $b -lt 1 ] && b=1; echo "0:${b}x64x8x8*acdb+1:${b}x64x8x8*acdb"; }

run() { # name, case file, in-shapes, extra knobs...
  local name=$1 file=$2 shapes=$3; shift 3
  local impls=auto,dnnl
  [ "$quick" = 1 ] && impls=auto
  "$driver" --mode=P --perf-template=csv --num-threads="$threads" --max-ms-per-prb=150 --impl="$impls" \
    --in-shapes="$shapes" "$@" --case="$file" |
    awk -F, -v name="$name" '$1 == "csv" && $2 != "case" { # one alternative per problem: the case has no commas
      print name "," $3 "," $4 "," $5 "," $6 "," $9 "," $10 }' >> "$csv"
}

if [ "$plot_only" = 0 ]; then
run "f32 Add" benchdnn_cases/op/add_f32.json "$(shapes_for 12 flat)" --op-attrs=0:auto_broadcast:numpy
run "bf16 Add" benchdnn_cases/op/add_f32.json "$(shapes_for 6 flat)" --dt=bf16
run "f32 Equal" benchdnn_cases/op/add_f32.json "$(shapes_for 9 flat)" --op-kind=0:Equal
run "3-Add chain f32" benchdnn_cases/pattern/add_chain3_f32.json "$(shapes_for 20 chain)"
run "per-channel Add f32" benchdnn_cases/op/add_per_channel.json "$(shapes_for 8 per_channel)"
run "channels-last Add f32" benchdnn_cases/op/add_f32.json "$(shapes_for 12 nhwc)" --op-attrs=0:auto_broadcast:none
fi

# One block of rows per case and implementation, by size: gnuplot draws each series as one line.
{
  head -n 1 "$csv"
  tail -n +2 "$csv" | awk -F, '{ print $1 "," (substr($2, 1, 4) == "dnnl") "," $0 }' |
    sort -t, -k1,1 -k2,2n -k6,6n | cut -d, -f3-
} > "$csv.sorted" && mv "$csv.sorted" "$csv"

gnuplot <<PLOT
set terminal svg size 1500,900 dynamic font "sans,11"
set output "$out/sweep.svg"
set datafile separator ","
set multiplot layout 2,3 title "GB/s against working-set bytes ($threads threads): fusebox, direct oneDNN and the memory roof of each size"
set logscale x 2
set xrange [4096:1.2e9]
set format x "%.0b%B"
set xlabel "working set (bytes)"
set ylabel "GB/s"
set key top right
set grid
do for [c in "'f32 Add' 'bf16 Add' 'f32 Equal' '3-Add chain f32' 'per-channel Add f32' 'channels-last Add f32'"] {
  set title c
  plot "$csv" using (strcol(1) eq c && strcol(2)[1:4] ne "dnnl" ? \$4 : 1/0):6 with linespoints pt 7 ps 0.5 title "fusebox", \
       "$csv" using (strcol(1) eq c && strcol(2)[1:4] eq "dnnl" ? \$4 : 1/0):6 with linespoints pt 5 ps 0.5 title "direct oneDNN", \
       "$csv" using (strcol(1) eq c && strcol(2)[1:4] ne "dnnl" ? \$4 : 1/0):7 with lines dt 2 lw 2 title "roof"
}
unset multiplot
PLOT
echo "sweep: wrote $csv and $out/sweep.svg"
