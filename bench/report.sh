#!/usr/bin/env bash
# Print every build/bench/*.csv that has a ratio column as one table, and plot each with
# gnuplot (PNG next to the CSV). usage: report.sh DIR
set -euo pipefail
dir=$1
for csv in "$dir"/*.csv; do
	[ -s "$csv" ] || continue
	head -n1 "$csv" | grep -q ratio || continue
	echo "== $(basename "$csv")"
	column -s, -t <"$csv"
	name=$(basename "$csv" .csv)
	if command -v gnuplot >/dev/null; then
		col=$(head -n1 "$csv" | tr ',' '\n' | grep -nx ratio | cut -d: -f1)
		label='strcol(2)."/".strcol(3)'
		head -n1 "$csv" | grep -q '^kernel,' && label='strcol(1)'	# model.csv
		gnuplot <<EOT
set terminal pngcairo size 900,500 noenhanced
set output "$dir/$name.png"
set datafile separator ","
set title "$name: ours / reference (higher is better)"
set style data histogram
set style fill solid 0.8
set xtics rotate by -45
set yrange [0:*]
set key off
plot "$csv" using $col:xticlabels($label) every ::1
EOT
	fi
done
