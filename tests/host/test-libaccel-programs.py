#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host test: every MXA program in the repository round trips through the assembler.

Programs are the *.s files (outside build/), the literal blocks of Documentation/*.rst
that read as programs, and the program texts embedded in C: every
string literal (adjacent literals joined) in tests/guest, tests/stress, bench,
libaccel/examples and libaccel/tools whose lines all read as assembler statements
(mnemonic, directive, PTX form, label or comment). printf conversions in a text built
at run time are replaced by 1. Each one, through `accel-run -n` (assemble, disassemble;
no device): it assembles (names the program leaves to the caller get -D values), and
its disassembly assembles back to the same disassembly, command offsets included: the
same dwords, the disassembler printing anything it cannot express as .dword. The few
texts that are deliberately wrong (error tests) must fail, with the message expected.
TAP on stdout.
"""
import glob, os, re, subprocess, sys, tempfile

top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
os.chdir(top)
accel_run = os.path.join(os.environ.get("BUILD", "build"), "bin", "accel-run")

# (file, first line of the text) of the error tests, and the error they must give
EXPECTED_ERRORS = {
    ("tests/guest/asm.c", "  NOP"): "expected",
    ("tests/guest/tools.c", "NOP"): "expected a class",
}

STATEMENT = re.compile(
    r"""^\s*(?:[A-Za-z_]\w*:\s*)?          # a label
        (?:$|;|//                            # nothing, or a comment
         |\.[a-z]+\b                         # a directive
         |[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*(?:\s+(?![\s=])|$)   # a mnemonic (not "X = ...")
         |(?:wgmma|cp|mbarrier)\.[a-z_.:0-9]+)       # PTX""", re.X)
C_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


def c_literals(text):
    """(line, value) of each run of adjacent string literals (comments between allowed)."""
    code = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    code = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), code)
    out, pos = [], 0
    while True:
        m = C_STRING.search(code, pos)
        if not m:
            return out
        if code[m.start() - 1:m.start()] == "'":      # the char literal '"'
            pos = m.start() + 1
            continue
        line, parts, end = code.count("\n", 0, m.start()) + 1, [], m.start()
        while True:
            m2 = C_STRING.match(code, end)
            if not m2:
                break
            parts.append(re.sub(r"\\(.)", lambda e: ESCAPES.get(e.group(1), e.group(1)),
                                m2.group(1)))
            end = m2.end()
            ws = re.match(r"\s*", code[end:])
            end += ws.end()
        # not the text of GNU as in __asm__()
        if not re.search(r"\b(?:__asm__|asm)\s*\(\s*$", code[max(0, m.start() - 40):m.start()]):
            out.append((line, "".join(parts)))
        pos = end


def rst_blocks(text):
    """(line, text) of the literal blocks of reStructuredText: after "::", indented."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        if lines[i].rstrip().endswith("::"):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            ind = len(lines[j]) - len(lines[j].lstrip()) if j < len(lines) else 0
            k = j
            while k < len(lines) and (not lines[k].strip() or
                                      len(lines[k]) - len(lines[k].lstrip()) >= ind > 0):
                k += 1
            if ind:
                out.append((j + 1, "\n".join(l[ind:] for l in lines[j:k]).strip("\n") + "\n"))
            i = k
        else:
            i += 1
    return out


def is_program(text):
    lines = [l for l in text.split("\n") if l.strip()]
    return "\n" in text and lines and all(STATEMENT.match(l) for l in lines) and \
        any(not re.match(r"\s*(;|//|$)", l) for l in lines)


def programs():
    for path in sorted(glob.glob("**/*.s", recursive=True)):
        if not path.startswith("build/"):
            yield path, 1, open(path).read()
    for path in sorted(glob.glob("Documentation/*.rst")):
        for line, value in rst_blocks(open(path).read()):
            if is_program(value):
                yield path, line, value
    sources = []
    for pattern in ("tests/guest/*.[ch]", "tests/stress/*.[ch]", "bench/*.c",
                    "libaccel/examples/*.c", "libaccel/tools/*.c"):
        sources += sorted(glob.glob(pattern))
    for path in sources:
        for line, value in c_literals(open(path).read()):
            if is_program(value):
                # run-time texts: printf conversions become a number
                yield path, line, re.sub(r"%[-#0 +]*\d*(?:l|ll|z|h)?[udxXs]", "1", value)


def dry_run(path, defines):
    args = [accel_run, "-n"] + ["-D%s=%#x" % (n, 0x100000 + 0x1000 * i)
                                for i, n in enumerate(defines)] + [path]
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr.strip()


def assemble(path):
    """accel-run -n, defining each name the program leaves undefined."""
    defines = []
    while True:
        rc, out, err = dry_run(path, defines)
        m = re.search(r"undefined symbol '(\w+)'", err)
        if rc == 0 or not m or m.group(1) in defines or len(defines) > 32:
            return rc, out, err, defines
        defines.append(m.group(1))


points = []
if not os.access(accel_run, os.X_OK):
    print("TAP version 13\n1..1\nnot ok 1 %s built (make accel-tools)" % accel_run)
    sys.exit(1)
with tempfile.TemporaryDirectory() as tmp:
    for n, (path, line, text) in enumerate(programs()):
        src = os.path.join(tmp, "p%d.s" % n)
        with open(src, "w") as f:
            f.write(text)
        first = text.split("\n")[0]
        where = "%s:%d" % (path, line)
        rc, d1, err, defines = assemble(src)
        expected = EXPECTED_ERRORS.get((path, first))
        if expected is not None:
            ok = rc == 2 and expected in err
            points.append((ok, "%s: the error test fails to assemble (%s)" % (where, err),
                           [] if ok else ["rc %d: %s" % (rc, err)]))
            continue
        if rc:
            points.append((False, "%s assembles" % where, [err] + text.split("\n")))
            continue
        again = os.path.join(tmp, "p%d.dis.s" % n)
        with open(again, "w") as f:
            f.write(d1)
        rc2, d2, err2 = dry_run(again, [])
        ok = rc2 == 0 and d1 == d2
        diag = [] if ok else ["reassembly rc %d %s" % (rc2, err2)] + \
            ["- " + a + " | + " + b for a, b in zip(d1.split("\n"), d2.split("\n")) if a != b][:5]
        points.append((ok, "%s: %d commands round trip%s" % (
            where, d1.count("\n"), " (-D " + " ".join(defines) + ")" if defines else ""), diag))

print("TAP version 13")
print("1..%d" % (len(points) + 1))
fail = 0
for i, (ok, desc, diag) in enumerate(points, 1):
    print("%sok %d %s" % ("" if ok else "not ", i, desc))
    for d in diag:
        print("# " + d)
    fail |= not ok
files = sorted(set(d.split(":")[0] for _, d, _ in points))
enough = len(points) >= 10 and "libaccel/examples/pipeline.s" in files
print("%sok %d %d programs from %d files" % ("" if enough else "not ", len(points) + 1,
                                            len(points), len(files)))
sys.exit(1 if fail or not enough else 0)
