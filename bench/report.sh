#!/usr/bin/env bash
# Print every build/bench/*.csv that has a ratio column as one table, and plot each with
# gnuplot (PNG next to the CSV): one bar per row, coloured by its kind (type, weights,
# direction, path...) with a legend, labelled by its case, the figure's goal as a dashed
# line, where the CSV has a bound_ratio column the ratio its bound allows as a mark on
# each bar, axes labelled, and the host CPU and SIMD level in the title (machines differ).
# usage: report.sh DIR
set -euo pipefail
dir=$1
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
# A VM's model name may be only "AMD EPYC": family and model tell a Zen 3 from a Zen 4
# or 5, whose AVX-512 and FMA rates differ.
field() { grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | cut -d: -f2- | tr -d ' '; }
fam=$(field 'cpu family') mod=$(field model) zen=
if grep -qm1 AuthenticAMD /proc/cpuinfo && [[ $fam =~ ^[0-9]+$ && $mod =~ ^[0-9]+$ ]]; then
	case $fam in
	23) zen=", Zen or Zen 2" ;;
	25) if (( (mod >= 0x10 && mod <= 0x1f) || (mod >= 0x60 && mod <= 0x7f) ||
		  (mod >= 0xa0 && mod <= 0xaf) )); then zen=", Zen 4"; else zen=", Zen 3"; fi ;;
	26) zen=", Zen 5" ;;
	esac
fi
[[ -n $fam ]] && cpu="$cpu (family $fam model $mod$zen)"
if grep -qw avx512_vnni /proc/cpuinfo; then simd="AVX-512 + VNNI"
elif grep -qw avx512bw /proc/cpuinfo; then simd=AVX-512
elif grep -qw avx2 /proc/cpuinfo; then simd=AVX2
else simd="no AVX2"; fi

# name -> "GROUP_COLUMNS|LABEL_COLUMNS|GOAL|REFERENCE[|X AXIS[|BOUND]]" (columns by
# header name, joined with a space; GOAL empty when the figure only reports; BOUND what
# the bound_ratio column's bound is)
spec() {
	case $1 in
	engine-exact-avx2) echo "type numerics|m threads|1.5|OpenBLAS sgemm (Haswell)|m = n = k, threads" ;;
	engine|engine-both-*|engine-exact) echo "type numerics|m threads|1.0|OpenBLAS sgemm|m = n = k, threads" ;;
	exact|exact-avx2) echo "type|m threads|0.5|FAST numerics on the same data|m = n = k, threads" ;;
	gemm) echo "measure|shape|0.85|the engine alone (host)" ;;
	gemv) echo "weights numerics|shape|0.5|host memcpy of the weights||host arithmetic" ;;
	llm) echo "model|model tokens_per_s||host memcpy of 66 MiB (the GEMMs' weight bytes a second)|model, tokens/s of the step" ;;
	tma) echo "dir|unit|0.5|host memcpy" ;;
	pipeline) echo "sched|shape|1.2|the same program serial" ;;
	pipeline-fast) echo "program sched|shape|0.5|the engine's FAST GEMM command||WGMMA time" ;;
	grid) echo "sched|shape instances||one instance" ;;
	submit) echo "path|batch|0.5|null_blk (io_uring_vs_ioctl: ioctl, goal 2)" ;;
	cluster) echo "variant|cluster||the grid's B bytes" ;;
	model) echo "set|kernel|1.0|the H200 (modelled / measured)" ;;
	*) echo "bench|bench||reference" ;;
	esac
}

# the 1-based indexes of header names @2.. in the CSV @1 (0 for a missing one)
cols() {
	local csv=$1 name
	shift
	for name; do
		head -n1 "$csv" | tr ',' '\n' | grep -nx "$name" | cut -d: -f1 || echo 0
	done | tr '\n' ' '
}

echo "host: $cpu, $simd"
for csv in "$dir"/*.csv; do
	[ -s "$csv" ] || continue
	head -n1 "$csv" | grep -q ratio || continue
	echo "== $(basename "$csv")"
	column -s, -t <"$csv"
	name=$(basename "$csv" .csv)
	command -v gnuplot >/dev/null || continue
	IFS='|' read -r gcols lcols goal ref xaxis boundname <<<"$(spec "$name")"
	# the runs capped at AVX2 on an AVX-512 CPU (make bench) say so
	case $name in *-avx2) capped=" (both capped at AVX2)" ;; *) capped="" ;; esac
	rcol=$(cols "$csv" ratio)
	bcol=$(cols "$csv" bound_ratio)
	gidx=$(cols "$csv" $gcols)
	lidx=$(cols "$csv" $lcols)
	dat=$(mktemp)
	# index, label, ratio, group number, group name, bound ratio (NaN: none)
	awk -F, -v r="$rcol" -v b="$bcol" -v g="$gidx" -v l="$lidx" 'NR > 1 {
		n = split(g, gi, " "); grp = ""
		for (i = 1; i <= n; i++) if (gi[i] > 0) grp = grp (grp == "" ? "" : " ") $gi[i]
		n = split(l, li, " "); lab = ""
		for (i = 1; i <= n; i++) if (li[i] > 0) lab = lab (lab == "" ? "" : " ") $li[i]
		if (!(grp in id)) { id[grp] = ++groups; names[groups] = grp }
		printf "%d\t\"%s\"\t%s\t%d\t\"%s\"\t%s\n", NR - 2, lab, $r, id[grp], grp,
			(b > 0 && $b != "" ? $b : "NaN")
	}' "$csv" >"$dat"
	legend=$(awk -F'\t' '!seen[$4]++ { printf "%s NaN with boxes lc %d fs solid 0.8 title %s, ", (n++ ? "" : ""), $4, $5 }' "$dat")
	goalplot=""
	[ -n "$goal" ] && goalplot=", $goal with lines dt 2 lw 2 lc rgb 'black' title 'goal $goal'"
	# the bound's mark: the axis stops a little above the highest bar, and a bound above
	# it (a GEMV of one row: the arithmetic is far from binding) is an upward mark at
	# the top
	boundplot="" ymax="*"
	if [ "$bcol" != 0 ] && [ -n "$boundname" ]; then
		ymax=$(awk -F'\t' '$3 > m { m = $3 } END { printf "%.2f", (m > 0.6 ? m : 0.6) * 1.15 }' "$dat")
		boundplot=", \"$dat\" using 1:(\$6 <= $ymax ? \$6 : 1/0) with points pt 11 ps 1.5 lc rgb 'black' title \"bound: $boundname\""
		boundplot+=", \"$dat\" using 1:(\$6 > $ymax ? 0.97 * $ymax : 1/0) with points pt 9 ps 1.5 lc rgb 'black' title \"bound above the axis\""
	fi
	# wide enough that each bar's label stands clear of the next (gemv: 48 bars)
	width=$(awk 'END { w = 420 + 20 * NR; print (w > 1100 ? w : 1100) }' "$dat")
	gnuplot <<EOT
set terminal pngcairo size $width,560 noenhanced
set output "$dir/$name.png"
set datafile separator "\t"
set title "$name: ours / $ref (higher is better)\n$cpu, $simd$capped"
set ylabel "ratio"
set xlabel "case (${xaxis:-$lcols})"
set boxwidth 0.8
set style fill solid 0.8
# a colour for each of up to 16 groups (gnuplot's own eight repeat)
$(i=0; for c in 9400d3 009e73 56b4e9 e69f00 f0e442 0072b2 e51e10 000000 cc79a7 8c564b \
	7f7f7f bcbd22 17becf ff7f0e 393b79 637939; do echo "set linetype $((++i)) lc rgb '#$c'"; done)
set xtics rotate by -50 font ",8"
set yrange [0:$ymax]
set key outside right top
plot "$dat" using 1:3:4:xticlabels(2) with boxes lc variable notitle, $legend NaN notitle$goalplot$boundplot
EOT
	rm -f "$dat"
done
