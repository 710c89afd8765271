"""Which load hooks of a counted build also stand for a store (asm_blocks.priced).

GCC's address instrumentation checks an address once per block: the store of a read-modify-write
(`a[i] += x`, `addl $1, (%rbx)`) gets no hook of its own, its load's covers it.  The caches must see
that store (it makes the line dirty), so a load hook whose address the block then stores to becomes
an update hook (__openscc_updateN: a load and a store; src/timing/memory_access.c).

An address is followed from the instruction that passes it to the hook (leaq X, %rdi or
movq %r, %rdi) through the block: adding or subtracting a constant to its base register moves its
displacement; any other write to its registers loses it (no store is matched to it then).
"""
from __future__ import annotations

import dataclasses
import re

import p54c_timing

ADDRESS = re.compile(r"^(?P<sym>[A-Za-z_.$][\w.$@]*)?(?P<disp>[+-]?\d+)?"
                     r"\((?P<base>%\w+)?(?:,(?P<index>%\w+)(?:,(?P<scale>\d))?)?\)$")


@dataclasses.dataclass(frozen=True)
class Address:
    sym: str
    disp: int
    base: str    # register names as p54c_timing.reg_name gives them, "" for none
    index: str
    scale: int


def parse_address(operand: str) -> Address | None:
    m = ADDRESS.match(operand.replace(" ", ""))
    if not m:
        return None
    reg = lambda r: p54c_timing.reg_name(r[1:]) if r else ""  # noqa: E731
    return Address(m["sym"] or "", int(m["disp"] or 0), reg(m["base"]), reg(m["index"]), int(m["scale"] or 1))


def passed_address(setup) -> Address | None:
    """The address the instruction setting up a hook's argument passes, or None."""
    if setup.mnemonic.startswith("lea"):
        return parse_address(setup.operands[0])
    if setup.mnemonic.startswith("mov") and setup.operands[0].startswith("%"):
        return Address("", 0, p54c_timing.reg_name(setup.operands[0][1:]), "", 1)
    return None


REG64 = re.compile(r"%r(ax|bx|cx|dx|si|di|bp|sp|\d+)")
IMMEDIATE = re.compile(r"\$-?\d+")


def moved(address: Address, insn) -> Address | None:
    """address in terms of the registers after insn, or None if it cannot be told any more."""
    if address.base not in insn.dests and address.index not in insn.dests:
        return address
    op = p54c_timing.base_of(insn.mnemonic)
    if (op in ("add", "sub") and address.index not in insn.dests and len(insn.operands) == 2
            and IMMEDIATE.fullmatch(insn.operands[0]) and REG64.fullmatch(insn.operands[1])):
        step = int(insn.operands[0][1:])
        return dataclasses.replace(address, disp=address.disp - step if op == "add" else address.disp + step)
    return None


class LoadTracker:
    """The load hooks of one block whose addresses are still known, by the hook call's line."""

    def __init__(self):
        self.loads: dict[int, Address] = {}
        self.stored: set[int] = set()   # lines of hooks the block stored to

    def hooked(self, line: int, address: Address | None, since: list) -> None:
        """A load hook at line passed address, set up before the instructions since."""
        for insn in since:
            if address is None:
                return
            address = moved(address, insn)
        if address is not None:
            self.loads[line] = address

    def step(self, insn) -> None:
        if insn.store:
            for o in insn.operands:
                a = parse_address(o) if p54c_timing.is_memory(o) else None
                self.stored.update(line for line, known in self.loads.items() if known == a)
        self.loads = {line: now for line, a in self.loads.items() if (now := moved(a, insn)) is not None}
