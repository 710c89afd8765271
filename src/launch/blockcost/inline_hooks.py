"""The fast paths of a counted build's hooks, written inline in place of their calls (asm_blocks.priced).

A call per basic block and per load and store costs a counted program several times its native time
(docs/model.md "Cost and repeatability").  Most of those calls change nothing but a counter, or find
the access a repeat of its level-1 set's most recently used line; that much is done here inline, and
the call is made only when the hook has real work.  The inline code reads the runtime's struct
timing_fast_paths (src/timing/timing_internal.h) through the GOT, at the offsets in FIELDS (checked
by static assertions in src/timing/compute_count.c), and uses only registers a call clobbers anyway
(%rax, %rcx, %rdx, %r11, the flags), so the compiler's code around it stays valid.  What the runtime
computes is unchanged: the same counts, the same calls whenever the C hook would do more.
"""
from __future__ import annotations

import re

FIELDS = {"bb_count": 0, "bb_cycles": 8, "shared_lo": 24, "shared_len": 32, "caches_on": 40, "ways": 44,
          "l1": 48, "set_mask": 56, "line_shift": 64, "window_lo": 72, "window_len": 80, "lut_lo": 88,
          "lut_len": 96}
CHECKPOINT_BLOCKS = 4096  # src/timing/compute_count.c
DIRTY_BIT = 63            # TIMING_CACHE_DIRTY

# The fixed-size hooks of GCC's kernel-address instrumentation and of read-modify-writes
# (hooked_stores.py); their argument, the address, is in %rdi.
MEMORY_CALL = re.compile(r"^\s*call\s+__(?:asan_(?P<op>load|store)|openscc_(?P<update>update))"
                         r"(?P<size>1|2|4|8|16)(?:_noabort)?(?P<plt>@PLT)?\s*$")
STRUCT = "__openscc_fast@GOTPCREL(%rip)"


def _asm(lines: list[str]) -> str:
    """Assembly text: labels as they are, instructions indented."""
    return "".join(f"{x}\n" if x.endswith(":") else f"\t{x}\n" for x in lines)


def block_counter(label: int, cycles: int, plt: str) -> str:
    """The block hook inline: one block more (a checkpoint call every CHECKPOINT_BLOCKS), its cycles
    added."""
    f = FIELDS
    done = f".Lopenscc_b{label}"
    return _asm([
        f"movq\t{STRUCT}, %r11",
        f"addq\t$1, {f['bb_count']}(%r11)",
        f"testq\t${CHECKPOINT_BLOCKS - 1}, {f['bb_count']}(%r11)",
        f"jne\t{done}",
        f"call\t__openscc_checkpoint{plt}",
        f"movq\t{STRUCT}, %r11",
        f"{done}:",
        f"addq\t${cycles}, {f['bb_cycles']}(%r11)",
    ])


def memory_hook(label: int, call: str) -> str | None:
    """The load, store or update hook `call` (an assembly line) behind its inline fast path, or None
    for another line.  The call is made for an access to the off-chip shared region, and with the
    caches on for anything but a repeat of the set's most recently used level-1 line (for a store or
    an update: already dirty, and outside the SVM and LUT windows), as timing_cache_repeat decides."""
    m = MEMORY_CALL.match(call)
    if not m:
        return None
    f, size = FIELDS, int(m["size"])
    write = m["op"] != "load"
    slow, done = f".Lopenscc_m{label}", f".Lopenscc_d{label}"
    code = [
        f"movq\t{STRUCT}, %r11",
        "movq\t%rdi, %rax",
        f"subq\t{f['shared_lo']}(%r11), %rax",
        f"cmpq\t{f['shared_len']}(%r11), %rax",
        f"jb\t{slow}",
        f"cmpl\t$0, {f['caches_on']}(%r11)",
        f"je\t{done}",
        f"movl\t{f['line_shift']}(%r11), %ecx",
        "movq\t%rdi, %rax",
        "shrq\t%cl, %rax",
        f"leaq\t{size - 1}(%rdi), %rdx",
        "shrq\t%cl, %rdx",
        "cmpq\t%rax, %rdx",
        f"jne\t{slow}",
    ]
    if write:
        for lo, length in (("window_lo", "window_len"), ("lut_lo", "lut_len")):
            code += ["movq\t%rdi, %rdx", f"subq\t{f[lo]}(%r11), %rdx", f"cmpq\t{f[length]}(%r11), %rdx",
                     f"jb\t{slow}"]
    code += [
        "movq\t%rax, %rdx",
        f"andq\t{f['set_mask']}(%r11), %rdx",
        f"movl\t{f['ways']}(%r11), %ecx",
        "imulq\t%rcx, %rdx",
        f"movq\t{f['l1']}(%r11), %rcx",
        "movq\t(%rcx,%rdx,8), %rdx",
        "addq\t$1, %rax",
        f"btsq\t${DIRTY_BIT}, %rax" if write else f"btrq\t${DIRTY_BIT}, %rdx",
        "cmpq\t%rax, %rdx",
        f"je\t{done}",
        f"{slow}:",
    ]
    return _asm(code) + call + f"{done}:\n"
