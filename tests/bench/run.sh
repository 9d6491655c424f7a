#!/bin/bash
# `make bench`: the appliance benchmark. Until the benchmark suite and the
# xfab drivers land (issues "Appliance benchmark" and "Network pair"), it
# boots the testbed once and runs the stock baseline scenario, whose
# figures (TCP both ways, fio) are the stock column to compare against.
set -euo pipefail
cd "$(dirname "$0")/../.."
tests/vm/deps.sh
tests/vm/run.py --scenarios 001 "$@" || rc=$?
last=$(ls -td results/vm-*/ | head -n 1)
echo
echo "stock baseline figures ($last):"
python3 - "$last" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/scenarios/*.json")):
    s = json.load(open(f))
    for k, v in s.get("figures", {}).items():
        print(f"  {s['name']:24} {k:28} {v}")
PY
exit "${rc:-0}"
