"""docs/errors.md: one error convention per kind.

- the library exits only through rcce_fatal (src/rcce/errors.c), and every file
  that calls it is listed in docs/errors.md;
- the lower layers (hw, chip, timing) neither print nor exit: they return -1 with
  a message in an error buffer;
- a UE stopped by rcce_fatal prints one line naming the UE and the cause, keeps
  what it printed before, and exits with status 1, which rccerun reports.
"""
from __future__ import annotations

import re
from pathlib import Path

import openscc_testlib as lib
from openscc_testlib import rccerun

ROOT = Path(__file__).resolve().parents[2]
LIBRARY_LAYERS = ("hw", "chip", "timing", "rcce", "ircce", "mailbox", "svm")
LOWER_LAYERS = ("hw", "chip", "timing")
EXIT_CALL = re.compile(r"\b(exit|_exit|_Exit|quick_exit|abort|assert|__builtin_trap|err|errx|verr|verrx)\s*\(")  # assert() aborts
PRINT_CALL = re.compile(
    r"\b(printf|fprintf|vfprintf|vprintf|dprintf|vdprintf|puts|fputs|putchar|putc|fputc|fwrite|perror|write|syslog|warn|warnx)"
    r"\s*\(")
FATAL_DEFINITION = re.compile(r"^void rcce_fatal\(.*?^}\n", re.M | re.S)


def code_only(text: str) -> str:
    """The text with comments and string/char literals blanked (newlines kept, so lines still count)."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, text, flags=re.S)


def sources(layers):
    for layer in layers:
        for path in sorted((ROOT / "src" / layer).glob("*.[ch]")):
            yield path, code_only(path.read_text())


def calls(pattern, layers, allowed=lambda path, text, pos: False):
    found = []
    for path, text in sources(layers):
        for m in pattern.finditer(text):
            if not allowed(path, text, m.start()):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.relative_to(ROOT)}:{line}: {m.group(1)}(")
    return found


def inside_rcce_fatal(path, text, pos):
    if path != ROOT / "src" / "rcce" / "errors.c":
        return False
    return any(d.start() <= pos < d.end() for d in FATAL_DEFINITION.finditer(text))


def test_the_library_exits_only_through_rcce_fatal():
    assert FATAL_DEFINITION.search(code_only((ROOT / "src/rcce/errors.c").read_text())), "rcce_fatal not found"
    stray = calls(EXIT_CALL, LIBRARY_LAYERS, inside_rcce_fatal)
    assert stray == [], "exit outside rcce_fatal (docs/errors.md):\n" + "\n".join(stray)


def test_lower_layers_neither_print_nor_exit():
    found = calls(PRINT_CALL, LOWER_LAYERS) + calls(EXIT_CALL, LOWER_LAYERS)
    assert found == [], "hw, chip and timing report through error buffers (docs/errors.md):\n" + "\n".join(found)


def test_every_fatal_site_is_documented():
    doc = (ROOT / "docs/errors.md").read_text()
    callers = {str(p.relative_to(ROOT)) for p, text in sources(LIBRARY_LAYERS)
               if re.search(r"(?<!void )\brcce_fatal\s*\(", text)}  # calls, not the declaration or definition
    assert callers, "no caller of rcce_fatal found"
    missing = sorted(c for c in callers if f"`{c}`" not in doc)
    assert missing == [], f"docs/errors.md does not list these callers of rcce_fatal: {missing}"


def test_fatal_error_stops_each_ue_with_one_line_and_status_1(build, compile_program):
    """RCCE_init cannot go on (tagged flags asked of a -DSINGLEBITFLAGS build): every UE that got
    there prints the documented line; the output it printed before is not lost; rccerun reports status 1."""
    nue = 3
    res = rccerun(build, "--flags", "tagged", "-nue", nue, compile_program(build, "exits", "-DSINGLEBITFLAGS"), "fatal")
    assert res.rc == lib.RC_UE_FAILED, res
    why = "tagged flags (rccerun --flags tagged) need big flags; the program is built with -DSINGLEBITFLAGS"
    stopped = re.findall(rf"^RCCE_init failed on UE (\d+): {re.escape(why)}$", res.err, re.M)
    assert stopped and set(stopped) <= {str(u) for u in range(nue)}, res
    # rcce_fatal flushes stdout before its line: every UE that printed it kept its output
    assert res.out.count("exits: before RCCE_init\n") >= len(stopped), res
    assert re.search(r"^rccerun: UE \d+ \(core \d+\) exited with status 1$", res.err, re.M), res
