#!/usr/bin/env python3
"""Check one device in `xfabctl status --json` (read on stdin).

usage: status_check.py DEV FRONTEND BACKEND [WORD...]

DEV is vif/0 or vbd/51728; FRONTEND and BACKEND the drivers status must
report at each end. Each WORD is one of: a mode word that must be there
(pool), !word for one that must not (!ro-grants), name>0 for a counter
that must have moved, or group=NAME. Prints what it saw; exits 1 naming
every mismatch."""
import json
import sys


def check(rows, dev, fe, be, words):
    """The mismatches of DEV's row in ROWS against the expectation."""
    mine = [r for r in rows if r.get("dev") == dev]
    if len(mine) != 1:
        return ["%d rows for %s in %d" % (len(mine), dev, len(rows))]
    r = mine[0]
    bad = []
    if r["frontend_driver"] != fe:
        bad.append("frontend driver %r, want %r" % (r["frontend_driver"], fe))
    if r["backend_driver"] != be:
        bad.append("backend driver %r, want %r" % (r["backend_driver"], be))
    for w in words:
        if w.endswith(">0"):
            name = w[:-2]
            if r["counters"].get(name, 0) <= 0:
                bad.append("counter %s is %s" % (name, r["counters"].get(name)))
        elif w.startswith("group="):
            if r["group"] != w[6:]:
                bad.append("group %r, want %r" % (r["group"], w[6:]))
        elif w.startswith("!"):
            if w[1:] in r["mode"]:
                bad.append("mode has %s: %s" % (w[1:], r["mode"]))
        elif w not in r["mode"]:
            bad.append("mode lacks %s: %s" % (w, r["mode"]))
    return bad


def summary(rows, dev):
    r = [r for r in rows if r.get("dev") == dev]
    if len(r) != 1:
        return ""
    r = r[0]
    return "%s %s %s/%s mode=%s %s" % (
        r["frontend_driver"], r["backend_driver"], r["frontend_state"],
        r["backend_state"], ",".join(r["mode"]),
        " ".join("%s=%d" % kv for kv in sorted(r["counters"].items())))


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    try:
        rows = json.load(sys.stdin)
    except ValueError as e:
        print("not JSON: %s" % e)
        return 1
    bad = check(rows, argv[1], argv[2], argv[3], argv[4:])
    print("; ".join(bad) if bad else summary(rows, argv[1]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
