#!/usr/bin/env bash
# benchcmp.sh compares the hot-path benchmarks of a base commit (by default
# the merge base with main) and of the working tree as it is, uncommitted
# changes included. It builds each side's test binaries once, then runs them
# interleaved (old, new, old, new, ...) so that a shared machine's drift hits
# both sides alike, and prints benchstat's comparison: old/new ratios of
# sec/op, B/op and allocs/op, and of each paired benchmark's own metrics.
#
#   scripts/benchcmp.sh                 # base = git merge-base HEAD main
#   BASE=38b13b7 COUNT=10 scripts/benchcmp.sh
#   SUITES="loop decode" BENCHTIME=200ms scripts/benchcmp.sh
#
# Suites: loop (S1-S3, the cancellable-context benchmark, and package
# workflow's multi-agent ones; a package missing on one side is skipped),
# decode (stream decode of every provider), session (a run on a SQLite
# session of 0 and 1,000 earlier runs). Raw outputs stay in $OUT.
#
# RT=1 runs each test binary under `chrt -f 50` (real-time FIFO priority,
# which takes root): other processes on the machine then wait for the
# benchmark rather than preempt it, so a shared machine's other work moves
# the figures less. The figures are then those of a quiet machine, not of
# this one under its load.
set -euo pipefail

BENCHSTAT="golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"
COUNT="${COUNT:-6}"
BENCHTIME="${BENCHTIME:-300ms}"
SUITES="${SUITES:-loop decode session}"
RT="${RT:-}"

root="$(git rev-parse --show-toplevel)"
base="${BASE:-$(git -C "$root" merge-base HEAD main)}"
OUT="${OUT:-$(mktemp -d /tmp/benchcmp.XXXXXX)}"
mkdir -p "$OUT/base"

# suite NAME -> "package-dir benchmark-regexp" lines
suite() {
	case "$1" in
	loop) echo ". ^(BenchmarkRunS1OneToolRound|BenchmarkRunS2TenRoundsFourParallel|BenchmarkRunS3Streaming1000Deltas|BenchmarkCancellableVsBackground)\$"
		echo "workflow ^(BenchmarkParallel3Branches|BenchmarkGraphDiamond4Nodes|BenchmarkVsSingle)\$"
		;;
	decode)
		for p in openai anthropic gemini bedrock; do
			echo "provider/$p ^BenchmarkStreamDecode1000Deltas\$"
		done
		;;
	session) echo "session/sqlite ^BenchmarkRunnerS1SQLiteHistory\$" ;;
	*) echo "benchcmp: unknown suite $1" >&2; exit 2 ;;
	esac
}

echo "base $(git -C "$root" rev-parse --short "$base") vs working tree of $(git -C "$root" rev-parse --short HEAD); output in $OUT" >&2
git -C "$root" archive "$base" | tar -x -C "$OUT/base"

# build SIDE-TREE PKG -> test binary path (empty if the package has no tests there)
build() {
	local tree="$1" pkg="$2" bin="$3"
	(cd "$tree/$pkg" && go test -c -o "$bin" . >/dev/null)
}

jobs=()
for s in $SUITES; do
	while read -r pkg re; do
		tag="${pkg//\//_}"
		if [ ! -d "$OUT/base/$pkg" ] || [ ! -d "$root/$pkg" ]; then
			echo "benchcmp: skipping $pkg, not in both trees" >&2
			continue
		fi
		build "$OUT/base" "$pkg" "$OUT/old-$tag.test"
		build "$root" "$pkg" "$OUT/new-$tag.test"
		jobs+=("$pkg $re $tag")
	done < <(suite "$s")
done

: >"$OUT/old.txt"
: >"$OUT/new.txt"
prio=()
if [ -n "$RT" ]; then
	if ! chrt -f 50 true 2>/dev/null; then
		echo "benchcmp: RT=1 needs chrt and the right to use it (root)" >&2
		exit 2
	fi
	prio=(chrt -f 50)
fi

for ((i = 1; i <= COUNT; i++)); do
	echo "round $i/$COUNT" >&2
	for j in "${jobs[@]}"; do
		read -r pkg re tag <<<"$j"
		for side in old new; do
			tree="$root"
			[ "$side" = old ] && tree="$OUT/base"
			(cd "$tree/$pkg" && "${prio[@]}" "$OUT/$side-$tag.test" -test.run='^$' -test.bench="$re" \
				-test.benchmem -test.count=1 -test.benchtime="$BENCHTIME") >>"$OUT/$side.txt"
		done
	done
done

go run "$BENCHSTAT" "$OUT/old.txt" "$OUT/new.txt"
