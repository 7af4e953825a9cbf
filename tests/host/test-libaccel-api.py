#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host test: libaccel's public API is complete. TAP on stdout, run from anywhere.

1. libaccel.so exports exactly the functions accel.h declares (no internal symbol
   leaks through the accel_* version script, no declaration without a definition).
2. For each exported function, one test point: it is named in the NAME section and
   declared in the SYNOPSIS of a section-3 page in libaccel/man (the family page that
   `make install` links it to), and it is called by a guest test (tests/guest/*.c, *.h)
   or by an example program the guest suite runs (libaccel/examples/X.c whose /bin/X
   appears in tests/guest/*.c).
"""
import glob, os, re, subprocess, sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
os.chdir(top)
build = os.environ.get("BUILD", "build")
so = os.path.join(build, "libaccel", "libaccel.so")
points = []


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def declared():
    text = strip_comments(open("libaccel/accel.h").read())
    return set(m.group(1) for m in
               re.finditer(r"^[a-z][^;#{}()]*?\b(accel_\w+)\s*\(", text, flags=re.M))


def exported():
    out = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True,
                         text=True, check=True).stdout
    return set(l.split()[2].split("@")[0] for l in out.splitlines()
               if len(l.split()) == 3 and l.split()[1] == "T")


def man_pages():
    """function -> (page, synopsis text) from every NAME section."""
    pages = {}
    for page in sorted(glob.glob("libaccel/man/*.3")):
        text = open(page).read()
        name = re.search(r"^\.SH NAME\n(.*?)^\.SH", text, flags=re.S | re.M)
        syn = re.search(r"^\.SH SYNOPSIS\n(.*?)^\.SH", text, flags=re.S | re.M)
        if not name:
            continue
        names = name.group(1).replace("\n", " ").split("\\-")[0]
        for fn in re.findall(r"accel_\w+", names):
            pages[fn] = (os.path.basename(page), syn.group(1) if syn else "")
    return pages


def guest_sources():
    files = sorted(glob.glob("tests/guest/*.c") + glob.glob("tests/guest/*.h"))
    guest_text = "".join(open(f).read() for f in files)
    for ex in sorted(glob.glob("libaccel/examples/*.c")):
        name = os.path.splitext(os.path.basename(ex))[0]
        if "/bin/" + name in guest_text:
            files.append(ex)
    return {f: strip_comments(open(f).read()) for f in files}


if not os.path.exists(so):
    print("TAP version 13\n1..1\nnot ok 1 %s exists (make libaccel-so)" % so)
    sys.exit(1)
decl, exp = declared(), exported()
pages, sources = man_pages(), guest_sources()

missing = sorted(decl - exp)
leaked = sorted(exp - decl)
diag = []
if missing:
    diag.append("declared in accel.h, not exported: " + " ".join(missing))
if leaked:
    diag.append("exported, not declared in accel.h: " + " ".join(leaked))
points.append((not diag, "libaccel.so exports exactly the %d functions accel.h declares"
               % len(decl), diag))

for fn in sorted(exp | decl):
    diag = []
    page = pages.get(fn)
    if not page:
        diag.append("no libaccel/man/*.3 page names it in NAME")
    elif not re.search(r"\b%s\s*\(" % fn, page[1]):
        diag.append("%s names it but its SYNOPSIS does not declare it" % page[0])
    callers = [f for f, text in sources.items() if re.search(r"\b%s\s*\(" % fn, text)]
    if not callers:
        diag.append("no guest test calls it (tests/guest/*.c, examples run in the guest)")
    desc = "%s: man page %s, called in %s" % (
        fn, page[0] if page else "-", ", ".join(os.path.basename(c) for c in callers[:3]) or "-")
    points.append((not diag, desc, diag))

print("TAP version 13")
print("1..%d" % len(points))
fail = 0
for i, (ok, desc, diag) in enumerate(points, 1):
    print("%sok %d %s" % ("" if ok else "not ", i, desc))
    for d in diag:
        print("# " + d)
    fail |= not ok
sys.exit(1 if fail else 0)
