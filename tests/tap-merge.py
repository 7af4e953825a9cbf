#!/usr/bin/python3
"""Merge per-binary TAP streams into one TAP 13 stream with a one-line summary.

usage: tap-merge.py OUT.tap SOURCE=DIR...
Each DIR holds <name>.tap and <name>.rc pairs. Every "ok"/"not ok" line becomes one test
point named SOURCE/<name>: <description>. A binary that exited non-zero without reporting
a failure, or that printed no test points at all, counts as one failure.
Optional in DIR: EXPECTED, the names (one a line) that must have reported there: each one
without a .tap file counts as one failure; HARNESS.rc, the exit status of what ran them:
non-zero with no failing point in DIR counts as one failure.
Prints "N passed, N failed[, N skipped]" last; exits 1 if anything failed or nothing ran.
"""
import os
import re
import sys

POINT = re.compile(r"^(not ok|ok)\b\s*(\d+)?\s*(?:- )?(.*)$")


def read_words(path):
    """The whitespace-separated words of a file, or None when there is none."""
    try:
        with open(path) as fh:
            return fh.read().split()
    except OSError:
        return None


def main():
    out_path, sources = sys.argv[1], sys.argv[2:]
    points = []          # (ok, name, directive, diagnostics)
    for src in sources:
        label, d = src.split("=", 1)
        if not os.path.isdir(d):
            points.append((False, "%s: no results (directory %s missing)" % (label, d), "", []))
            continue
        start = len(points)
        files = sorted(f for f in os.listdir(d) if f.endswith(".tap"))
        for name in read_words(os.path.join(d, "EXPECTED")) or []:
            if name + ".tap" not in files:
                points.append((False, "%s/%s: never reported (no TAP file)" % (label, name), "", []))
        for f in files:
            name = f[:-4]
            with open(os.path.join(d, f), errors="replace") as fh:
                lines = fh.read().splitlines()
            try:
                with open(os.path.join(d, name + ".rc")) as fh:
                    rc = int(fh.read().strip() or 1)
            except (OSError, ValueError):
                rc = 1
            seen, failed, diag = 0, False, []
            for line in lines:
                m = POINT.match(line)
                if not m:
                    if line.startswith("#") or line.strip():
                        diag.append(line)
                    continue
                ok = m.group(1) == "ok"
                desc = m.group(3).strip()
                directive = ""
                if " # " in desc:
                    desc, directive = desc.split(" # ", 1)
                if directive.upper().startswith("TODO"):
                    ok = True
                points.append((ok, "%s/%s: %s" % (label, name, desc), directive, diag[-30:] if not ok else []))
                diag = []
                seen += 1
                failed |= not ok
            if rc != 0 and not failed:
                points.append((False, "%s/%s: exited with status %d" % (label, name, rc), "", diag[-30:]))
            elif seen == 0:
                points.append((False, "%s/%s: reported no test points" % (label, name), "", diag[-30:]))
        harness = read_words(os.path.join(d, "HARNESS.rc"))
        if harness and harness != ["0"] and all(p[0] for p in points[start:]):
            points.append((False, "%s: its harness exited with status %s and no failing point" %
                           (label, harness[0]), "", []))
    passed = failed = skipped = 0
    with open(out_path, "w") as out:
        out.write("TAP version 13\n1..%d\n" % len(points))
        for i, (ok, name, directive, diag) in enumerate(points, 1):
            for l in diag:
                out.write("# %s\n" % l.lstrip("# "))
            line = "%s %d %s%s" % ("ok" if ok else "not ok", i, name,
                                   " # " + directive if directive else "")
            out.write(line + "\n")
            if not ok:
                failed += 1
                print(line)
                for l in diag[-10:]:
                    print("    " + l)
            elif directive.upper().startswith("SKIP"):
                skipped += 1
            else:
                passed += 1
        summary = "%d passed, %d failed" % (passed, failed) + (", %d skipped" % skipped if skipped else "")
        out.write("# %s\n" % summary)
    print(summary)
    return 1 if failed or not points else 0


if __name__ == "__main__":
    sys.exit(main())
