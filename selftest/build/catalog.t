#!/bin/bash
# Every case the generator catalogues is a case its program runs, and the
# other way round: `--list` of each program against generated/catalog.tsv.
# The workload programs under tap/stress/ and tap/perf/ are no rules (docs/workloads.md).
cd "$(dirname "$0")/../.."
echo "TAP version 13"
echo "1..2"
want=$(tail -n +2 generated/catalog.tsv | cut -f1 | sort)
rules() { find tap \( -path tap/stress -o -path tap/perf \) -prune -o -type f "$@" -print; }
got=$(for f in $(rules -name '*.t' ! -name '*.ptds.t' ! -name '*.mps.t'); do "$f" --list; done
      for f in $(rules -name '*.ptds.t'); do b=${f%.ptds.t}.t; [ -f "$b" ] || "$f" --list; done)
got=$(printf '%s\n' "$got" | sort)
if [ -n "$want" ] && [ "$want" = "$got" ]; then
    echo "ok 1 - the programs run exactly the $(printf '%s\n' "$want" | wc -l) catalogued cases"
else
    echo "not ok 1 - programs and catalog disagree"
    diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") 2>/dev/null | head -20 | sed 's/^/# /'
fi
dups=$(printf '%s\n' "$want" | uniq -d)
if [ -z "$dups" ]; then echo "ok 2 - case ids are unique"; else echo "not ok 2 - duplicate case ids"; printf '%s\n' "$dups" | sed 's/^/# /'; fi
