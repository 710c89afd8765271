"""The counted basic blocks of GCC's assembly output, and their P54C cost written into it.

`-fsanitize-coverage=trace-pc` puts a call to __sanitizer_cov_trace_pc at the start of every basic
block.  A block is the code from the labels before its call (the function's start for the first) to
its branch, or to the next label or call.  Blocks GCC made after instrumenting have no call: they
are not counted, and their code is left out.  priced() counts each block's cycles inline in place of
its call (inline_hooks.py; the runtime's __sanitizer_cov_trace_pc did the same in a call, reading the
cycles at its return address: src/timing/compute_count.c; OPENSCC_CALLED_HOOKS=1 keeps that form),
puts the fixed-size memory hooks behind inline fast paths, and calls the load hooks of
read-modify-writes __openscc_updateN (hooked_stores.py).
"""
from __future__ import annotations

import re

import hooked_stores
import inline_hooks
import p54c_timing

TRACE_CALL = re.compile(r"^\s*call\s+__sanitizer_cov_trace_pc(@PLT)?\s*$")
# Calls the counted build adds beside the block counter (the memory hooks of
# -fsanitize=kernel-address): not the program's work.
HOOK_CALL = re.compile(r"^\s*call\s+__(asan|sanitizer)_\w+(@PLT)?\s*$")
LOAD_HOOK = re.compile(r"__asan_load(\d+)_noabort")
FUNCTION_TYPE = re.compile(r"^\s*\.type\s+([^,\s]+)\s*,\s*@function")
LABEL = re.compile(r"^([^\s:#]+):\s*$")
# GCC's jump targets; its other local labels (.LVL, .LBB, .LFB, ... for debug and unwind tables)
# mark no block.
JUMP_LABEL = re.compile(r"^\.L\d+$")
# A priced block's cycles after its call when hooks stay calls: a 7-byte NOP (`nopl disp32(%rax)`,
# 0f 1f 80 + 4 bytes) whose displacement the runtime's __sanitizer_cov_trace_pc reads.
MARKER = "\t.byte 0x0f, 0x1f, 0x80\n\t.long {}\n"


class Block:
    def __init__(self, call_line: int, labels: list[str]):
        self.call_line = call_line    # the index of the block's counting call in the assembly
        self.labels = labels          # the labels right before the block's counting call
        self.insns: list = []
        self.closed = False           # its branch was seen: what follows is not this block
        self.loads = hooked_stores.LoadTracker()

    def add(self, insn) -> None:
        self.loads.step(insn)
        self.insns.append(insn)
        self.closed = insn.op.kind in ("branch", "ret")

    def cycles(self) -> int:
        last = self.insns[-1] if self.insns else None
        loops = bool(last and last.op.kind == "branch" and last.target in self.labels)
        return p54c_timing.block_cycles(self.insns, loops)


def blocks_by_function(lines: list[str]) -> dict[str, list[Block]]:
    """Each function's counted blocks in the order of their counting calls.  A block starts at the
    labels before its call: code the compiler placed between them and the call is the block's.
    What the counted build adds is left out: the hooks' calls and the address each hook is passed
    (the P54C forms it in the instruction's own memory operand)."""
    functions: set[str] = set()
    out: dict[str, list[Block]] = {}
    current, block = None, None
    pending, labels = [], []  # code and labels since the last label or branch, not in a block yet
    for index, line in enumerate(lines):
        m = FUNCTION_TYPE.match(line)
        if m:
            functions.add(m.group(1))
            continue
        m = LABEL.match(line)
        if m:
            if m.group(1) in functions:
                current, block, pending, labels = m.group(1), None, [], []
                out.setdefault(current, [])
                continue
            if not JUMP_LABEL.match(m.group(1)):
                continue
            if pending:  # code since the last label had no counting call: not counted
                pending, labels = [], []
            block = None
            labels.append(m.group(1))
            continue
        if current is None:
            continue
        if TRACE_CALL.match(line):
            block = Block(index, labels)
            block.insns += pending
            out[current].append(block)
            pending, labels = [], []
            continue
        if HOOK_CALL.match(line):
            open_block = block is not None and not block.closed
            code = block.insns if open_block else pending
            # the hook's argument: the last instruction writing %rdi (none between it and the call)
            at = next((i for i in range(len(code) - 1, -1, -1) if "di" in code[i].dests), None)
            if at is not None and code[at].dests == ("di",) and code[at].mnemonic.startswith(("lea", "mov")):
                setup = code.pop(at)
                if open_block and LOAD_HOOK.search(line):
                    block.loads.hooked(index, hooked_stores.passed_address(setup), code[at:])
            continue
        insn = p54c_timing.parse(line)
        if insn is None:
            continue
        if block is not None and not block.closed:
            block.add(insn)
        else:
            pending.append(insn)
    return out


def priced(lines: list[str], inline: bool = True) -> list[str]:
    """The assembly with each counted block's counting call replaced by the counting itself, inline,
    with its cycles (inline_hooks.py); the load hooks of read-modify-writes calling __openscc_updateN;
    and every fixed-size load, store and update hook behind its inline fast path.  A counting call
    of a block not priced here stays a call (charged the chip's flat cost per block).  With inline
    false every hook stays a call, a priced block's followed by its cycles in a marker the runtime's
    hook reads at its return address (the same counts, slower)."""
    blocks = [b for found in blocks_by_function(lines).values() for b in found]
    after = {b.call_line: b.cycles() for b in blocks}
    updates = set().union(*(b.loads.stored for b in blocks))
    out = []
    for index, line in enumerate(lines):
        line = LOAD_HOOK.sub(r"__openscc_update\1", line) if index in updates else line
        if index in after and inline:
            out.append(inline_hooks.block_counter(index, after[index], "@PLT" if "@PLT" in line else ""))
        elif index in after:
            out += [line, MARKER.format(after[index])]
        else:
            out.append(inline and inline_hooks.memory_hook(index, line) or line)
    return out
