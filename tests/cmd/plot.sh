# bench/plot: the charts come out as PNG files from bench/data/, and the
# data files are well formed.
. "$TOP/tests/lib.sh"
expect_true kernels-data-columns 'grep -v "^#" $TOP/bench/data/kernels.tsv | awk -F"\t" "NF != 4 || \$2 !~ /^[0-9]+\$/ || \$3 !~ /^[0-9.]+\$/ { bad = 1 } END { exit bad }"'
expect_true pipeline-data-sums 'grep -v "^#" $TOP/bench/data/pipeline.tsv | awk -F"\t" "NF != 7 || \$2 + \$3 + \$4 + \$5 + \$6 > \$7 + 0.001 { bad = 1 } END { exit bad }"'
expect_true charts-committed '[ -s $TOP/bench/plots/kernels.png ] && [ -s $TOP/bench/plots/pipeline.png ] &&
	grep -q "bench/plots/kernels.png" $TOP/README.md && grep -q "bench/plots/pipeline.png" $TOP/README.md'
if ! command -v gnuplot >/dev/null 2>&1; then
	skip plot "no gnuplot (Debian: gnuplot-nox)"
	exit 0
fi
expect_true plot-writes-pngs 'OUT=$T/p sh $TOP/bench/plot >/dev/null &&
	for f in kernels pipeline; do [ "$(head -c 8 $T/p/$f.png | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a ] || exit 1; done'
