#!/usr/bin/env bash
# run.sh measures Helikon's scenarios S1–S4 against eino (adk) and the
# OpenAI Agents SDK for JS in one go, each pair in every iteration
# (BenchmarkScenariosVsEino, BenchmarkScenariosVsAgentsJS), and prints per
# scenario the median of each peer's ratio and the lead over the fastest
# peer, with the load average before and after. Rows S1_cancellable to
# S4_cancellable are eino's scenarios again with both SDKs on a context that
# can be cancelled (the JS SDK has no such row).
#
#   bench/peers/js/run.sh                   # COUNT=6 rounds of 1s each
#   COUNT=10 BENCHTIME=2s bench/peers/js/run.sh
#
# It installs the SDK from the committed package-lock.json (npm ci) when
# node_modules is missing or older than the lock. Raw output stays in $OUT.
set -euo pipefail

COUNT="${COUNT:-6}"
BENCHTIME="${BENCHTIME:-1s}"
BENCHSTAT="golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"
js="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:-$(mktemp -d /tmp/peers.XXXXXX)}"
mkdir -p "$OUT"

if [ ! -f "$js/node_modules/.package-lock.json" ] || [ "$js/package-lock.json" -nt "$js/node_modules/.package-lock.json" ]; then
	(cd "$js" && npm ci --no-audit --no-fund)
fi

cd "$js/.."
echo "loadavg before: $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version); $(go version); output in $OUT" >&2
go test -run '^$' -bench '^BenchmarkScenariosVs(Eino|AgentsJS)$' -count "$COUNT" -benchtime "$BENCHTIME" . | tee "$OUT/peers.txt"
echo "loadavg after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

go run "$BENCHSTAT" "$OUT/peers.txt" >"$OUT/benchstat.txt" 2>&1 || echo "benchstat failed: see $OUT/benchstat.txt" >&2

# Per scenario: the median of each x-<peer> (Helikon's time over the
# peer's) over the rounds, and Helikon's lead over the fastest peer: one
# over the largest median ratio.
awk '
/^BenchmarkScenariosVs/ {
	split($1, name, "/"); sc = name[2]; sub(/-[0-9]+$/, "", sc)
	if (!(sc in seen)) { seen[sc] = 1; sorder[++ns] = sc }
	for (i = 2; i < NF; i++) if ($(i+1) ~ /^x-/) {
		p = $(i+1)
		if (!(p in pseen)) { pseen[p] = 1; porder[++np] = p }
		v[sc, p, ++n[sc, p]] = $i
	}
}
function median(sc, p,   m, a, i, j, t) {
	m = n[sc, p]; if (m == 0) return 0
	for (i = 1; i <= m; i++) a[i] = v[sc, p, i]
	for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return (m % 2) ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
}
END {
	printf "%-14s", ""; for (k = 1; k <= np; k++) printf "  %12s", porder[k]; print "  lead over the fastest peer (medians)"
	for (s = 1; s <= ns; s++) {
		sc = sorder[s]; worst = 0; who = ""
		printf "%-14s", sc
		for (k = 1; k <= np; k++) {
			m = median(sc, porder[k])
			if (m == 0) { printf "  %12s", "-"; continue }
			printf "  %12.4f", m; if (m > worst) { worst = m; who = porder[k] }
		}
		if (worst > 0) printf "  %.1fx (%s)", 1 / worst, substr(who, 3)
		print ""
	}
}' "$OUT/peers.txt" | tee "$OUT/lead.txt"
