"""P54C cycles of one basic block of x86-64 assembly (docs/model.md "Computation").

A counted build runs x86-64 code on the host; the SCC ran the same source compiled for the P54C
(Pentium, i586).  Each x86-64 instruction is mapped to what the P54C would execute for it -- the
integer instruction itself, the x87 instruction for a scalar SSE one -- with the clock counts and
pairing rules of the Pentium's published instruction tables ([P5-TIMING] in docs/references.md):
two integer pipes (U, V) issuing a simple pair per clock, the x87 unit (FADD, FMUL: 3 clocks
latency; FDIV 39 and FSQRT 70 clocks, overlapping integer work), the address-generation interlock,
correctly predicted branches.  The x87 unit is pipelined, but its instructions work on the top of
its register stack: two of them overlap only when the compiler interleaves them with FXCH, which
the compilers SCC programs were built with did not do, so each x87 arithmetic instruction waits
for the one before it (an assumption, checked against [PERFPOWER-2011]'s dot-product loop body).  The
block is scheduled in order; a block that loops onto itself is charged its steady state, so a
dependency chain carried from one iteration to the next costs its latency.

Not modelled here: caches and memory (every load and store is priced as a level-1 hit; the runtime
adds the misses, src/timing/cache.c), branch mispredictions, library code the program calls (except
the libm functions in LIBM_CYCLES).
"""
from __future__ import annotations

import dataclasses
import re

# --- the instruction table ---------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Op:
    """How the P54C executes one instruction: cycles it occupies the issue pipe, its pairing
    (uv, u, v or np), and for x87 work the result latency and how long the FP unit stays busy."""
    cycles: int
    pair: str = "np"
    fp_latency: int = 0     # 0: an integer instruction (result after `cycles`)
    fp_busy: int = 1        # clocks before the FP unit takes the next x87 instruction
    fmul_busy: int = 0      # clocks before the next FMUL (the P54C's multiplier is not fully pipelined)
    mem_src_extra: int = 0  # extra clocks when an operand is read from memory (ADD r,m: 2 vs 1)
    mem_dst_extra: int = 0  # extra clocks when the result is written to memory (ADD m,r: 3)
    kind: str = "int"       # int, fp, branch, call, ret, free


def _alu(pair="uv"):
    return Op(1, pair, mem_src_extra=1, mem_dst_extra=2)


FADD = Op(1, "np", fp_latency=3, fp_busy=1)
FMUL = Op(1, "np", fp_latency=3, fp_busy=1, fmul_busy=2)
FDIV = Op(1, "np", fp_latency=39, fp_busy=37)
FSQRT = Op(1, "np", fp_latency=70, fp_busy=68)
FLD = Op(1, "np", fp_latency=1)
FST = Op(2, "np", kind="fp")
FCOM = Op(9, "np", kind="fp")  # FUCOM + FNSTSW AX (6) + SAHF (2): the P54C has no FCOMI
FREG = Op(1, "np", fp_latency=1)  # FLD st(i), FABS, FCHS
FREE = Op(0, "uv", kind="free")   # no P54C instruction (x86-64 sign extension, x87 keeps 80 bits)

SHIFTS = ("shl", "shr", "sar", "sal", "rol", "ror")

OPS: dict[str, Op] = {
    # integer
    **{m: _alu() for m in ("add", "sub", "and", "or", "xor", "inc", "dec")},
    **{m: Op(1, "uv", mem_src_extra=1) for m in ("cmp", "test")},
    **{m: _alu("u") for m in ("adc", "sbb")},
    **{m: Op(1, "np", mem_dst_extra=2) for m in ("neg", "not")},
    **{m: Op(1, "u", mem_dst_extra=2) for m in SHIFTS},
    "mov": Op(1, "uv"), "movabs": Op(1, "uv"), "lea": Op(1, "uv"),
    "movzx": Op(3, "np"), "movsx": Op(3, "np"),
    "movslq": FREE, "cltq": FREE, "cdqe": FREE, "endbr64": FREE, "nop": FREE,
    "imul": Op(9, "np"), "mul": Op(9, "np"), "div": Op(41, "np"), "idiv": Op(46, "np"),
    "cltd": Op(2, "np"), "cqto": Op(2, "np"), "cwtd": Op(2, "np"), "cdq": Op(2, "np"), "cqo": Op(2, "np"),
    "set": Op(1, "np"), "cmov": Op(2, "np"),  # the P54C has no CMOV: a branch and a move
    "push": Op(1, "uv", mem_src_extra=1), "pop": Op(1, "uv", mem_dst_extra=2),
    "xchg": Op(3, "np"), "bswap": Op(1, "np"), "bt": Op(4, "np"), "bts": Op(4, "np"), "btr": Op(4, "np"),
    "bsf": Op(20, "np"), "bsr": Op(20, "np"), "popcnt": Op(20, "np"), "tzcnt": Op(20, "np"),
    "lzcnt": Op(20, "np"), "leave": Op(3, "np"),
    "jmp": Op(1, "v", kind="branch"), "j": Op(1, "v", kind="branch"),
    "call": Op(1, "v", kind="call"), "ret": Op(2, "np", kind="ret"),
    # scalar SSE as the x87 code the P54C runs for it
    "addsd": FADD, "subsd": FADD, "addss": FADD, "subss": FADD,
    "mulsd": FMUL, "mulss": FMUL, "divsd": FDIV, "divss": FDIV, "sqrtsd": FSQRT, "sqrtss": FSQRT,
    "ucomisd": FCOM, "comisd": FCOM, "ucomiss": FCOM, "comiss": FCOM,
    "maxsd": Op(11, "np", kind="fp"), "minsd": Op(11, "np", kind="fp"),
    "maxss": Op(11, "np", kind="fp"), "minss": Op(11, "np", kind="fp"),
    "andpd": FREG, "andps": FREG, "andnpd": FREG, "andnps": FREG, "orpd": FREG, "orps": FREG,
    "cvtsi2sd": Op(4, "np", fp_latency=4), "cvtsi2ss": Op(4, "np", fp_latency=4),  # MOV m,r + FILD
    # C's truncation on x87: FNSTCW, FLDCW, FISTP, FLDCW
    "cvttsd2si": Op(24, "np", kind="fp"), "cvttss2si": Op(24, "np", kind="fp"),
    "cvtsd2si": Op(8, "np", kind="fp"), "cvtss2si": Op(8, "np", kind="fp"),
    "cvtsd2ss": FREE, "cvtss2sd": FREE,
    "unpcklpd": FREG, "unpckhpd": FREG, "unpcklps": FREG, "shufpd": FREG, "shufps": FREG,
    "movhlps": FREG, "movlhps": FREG,
    # x87 itself (long double code)
    "fld": FLD, "fild": Op(3, "np", fp_latency=3), "fst": FST, "fstp": FST, "fistp": Op(6, "np", kind="fp"),
    "fisttp": Op(6, "np", kind="fp"), "fadd": FADD, "faddp": FADD, "fsub": FADD, "fsubp": FADD,
    "fsubr": FADD, "fsubrp": FADD, "fmul": FMUL, "fmulp": FMUL, "fdiv": FDIV, "fdivp": FDIV,
    "fdivr": FDIV, "fdivrp": FDIV, "fsqrt": FSQRT, "fxch": FREE, "fchs": FREG, "fabs": FREG,
    "fucom": FCOM, "fucomp": FCOM, "fucomi": FCOM, "fucomip": FCOM, "fcomi": FCOM, "fcomip": FCOM,
    "fldz": Op(2, "np", fp_latency=2), "fld1": Op(2, "np", fp_latency=2), "fnstcw": Op(2, "np"),
    "fldcw": Op(8, "np"), "fnstsw": Op(6, "np"),
}

# Scalar loads, stores and register moves of the SSE unit: FLD m / FST m / FLD st(i).
_SSE_MOVES = {"movsd", "movss", "movq", "movd", "movapd", "movaps", "movupd", "movups", "movdqa", "movdqu"}
# Packed SSE: one x87 instruction per element.
_PACKED = {"addpd": ("addsd", 2), "subpd": ("subsd", 2), "mulpd": ("mulsd", 2), "divpd": ("divsd", 2),
           "sqrtpd": ("sqrtsd", 2), "addps": ("addss", 4), "subps": ("subss", 4), "mulps": ("mulss", 4),
           "divps": ("divss", 4), "sqrtps": ("sqrtss", 4)}
_ZEROING = {"pxor", "xorpd", "xorps"}

# libm functions as the x87 sequences the P54C computes them with (FSIN, F2XM1, FYL2X, ... in the
# Pentium's tables); a call to any other library function costs the call only.
LIBM_CYCLES = {"sqrt": 70, "sin": 100, "cos": 100, "tan": 130, "atan": 120, "atan2": 130, "exp": 120,
               "log": 110, "log10": 110, "log2": 110, "pow": 240, "floor": 30, "ceil": 30, "fmod": 40,
               "fabs": 1}
UNKNOWN = Op(1, "np")
SHIFT_BY_CL = Op(4, "np", mem_dst_extra=2)
INTEGER_SUFFIXES = "bwlq"

# --- operands ----------------------------------------------------------------------------------

_REG_ALIASES = {}
for base, names in {"a": "rax eax ax al ah", "b": "rbx ebx bx bl bh", "c": "rcx ecx cx cl ch",
                    "d": "rdx edx dx dl dh", "si": "rsi esi si sil", "di": "rdi edi di dil",
                    "bp": "rbp ebp bp bpl", "sp": "rsp esp sp spl"}.items():
    for n in names.split():
        _REG_ALIASES[n] = base
REG = re.compile(r"%([a-z0-9]+)")


def reg_name(r: str) -> str:
    """One name for every width of a register: %eax and %al are 'a', %r9d is 'r9', %xmm3 'xmm3'."""
    if r in _REG_ALIASES:
        return _REG_ALIASES[r]
    m = re.fullmatch(r"(r\d+)[dwb]?", r)
    return m.group(1) if m else r


def split_operands(text: str) -> list[str]:
    """AT&T operands, split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def is_memory(operand: str) -> bool:
    return not operand.startswith(("$", "%", "*%"))


@dataclasses.dataclass
class Insn:
    mnemonic: str
    operands: list[str]
    op: Op
    repeat: int = 1           # packed SSE: x87 instructions per element
    data_srcs: tuple = ()     # registers read as data
    addr_srcs: tuple = ()     # registers read to form an address
    dests: tuple = ()         # registers written
    load: bool = False
    store: bool = False
    target: str = ""          # a branch's or call's target label / symbol


def _op_of(mnemonic: str, operands: list[str]) -> tuple[Op, int]:
    if mnemonic in _PACKED:
        scalar, n = _PACKED[mnemonic]
        return OPS[scalar], n
    if mnemonic in _ZEROING and len(operands) == 2 and operands[0] == operands[1]:
        return Op(2, "np", fp_latency=2), 1  # FLDZ
    if mnemonic in ("movq", "movd") and not any("%xmm" in o for o in operands):
        return OPS["mov"], 1
    if base_of(mnemonic) in SHIFTS and operands and operands[0] == "%cl":
        return SHIFT_BY_CL, 1
    if mnemonic in _SSE_MOVES:
        if any(o.startswith("%stack") for o in operands):
            return FREE, 1  # a spill or reload (_spill_slots)
        mem_src, mem_dst = is_memory(operands[0]), is_memory(operands[-1])
        n = 2 if mnemonic in ("movapd", "movupd") and (mem_src or mem_dst) else 1
        return (FST if mem_dst else FLD if mem_src else FREG), n
    if re.fullmatch(r"movz[bw][wlq]", mnemonic) or re.fullmatch(r"movs[bw][wlq]", mnemonic):
        return OPS["movzx"], 1
    if re.fullmatch(r"cmov[a-z]+", mnemonic):
        return OPS["cmov"], 1
    if re.fullmatch(r"set[a-z]+", mnemonic):
        return OPS["set"], 1
    if re.fullmatch(r"j[a-z]+", mnemonic) and mnemonic != "jmp":
        return OPS["j"], 1
    return OPS.get(base_of(mnemonic), UNKNOWN), 1


_IMPLICIT = {  # registers an instruction reads / writes without naming them
    "div": (("a", "d"), ("a", "d")), "idiv": (("a", "d"), ("a", "d")), "mul": (("a",), ("a", "d")),
    "cltd": (("a",), ("d",)), "cqto": (("a",), ("d",)), "cltq": (("a",), ("a",)),
    "push": (("sp",), ("sp",)), "pop": (("sp",), ("sp",)), "call": (("sp",), ("sp", "a", "xmm0")),
    "ret": (("sp",), ("sp",)), "leave": (("bp",), ("sp", "bp")),
}
# Two-operand instructions that only read their last operand, and those that only write it.
_READS_LAST = {"cmp", "test", "bt", "ucomisd", "comisd", "ucomiss", "comiss"}
_WRITES_LAST = ("mov", "lea", "cvt", "sqrt", "set", "pop", "fst", "fist")
# One-operand instructions that read and write it, or only write it.
_UPDATES_ONE = {"inc", "dec", "neg", "not", "bswap"}
_WRITES_ONE = ("set", "pop")


def base_of(mnemonic: str) -> str:
    """The mnemonic without GCC's operand-size suffix (addq -> add, movl -> mov)."""
    if mnemonic not in OPS and mnemonic[-1] in INTEGER_SUFFIXES and mnemonic[:-1] in OPS:
        return mnemonic[:-1]
    return mnemonic


def _roles(base: str, operands: list[str]) -> list[tuple[str, bool, bool]]:
    """(operand, read, written) for each operand."""
    if len(operands) == 1:
        o = operands[0]
        if base.startswith(_WRITES_ONE):
            return [(o, False, True)]
        return [(o, True, base in _UPDATES_ONE)]
    out = [(o, True, False) for o in operands[:-1]]
    last = operands[-1] if operands else None
    if last is None:
        return out
    if base in _READS_LAST:
        out.append((last, True, False))
    elif base.startswith(_WRITES_LAST) or base in _ZEROING or len(operands) == 3:
        out.append((last, False, True))
    else:
        out.append((last, True, True))
    return out


_STACK_SLOT = re.compile(r"^(-?\d*)\(%rsp\)$")


def _spill_slots(operands: list[str]) -> list[str]:
    """An SSE instruction's fixed stack slots as registers (%stack8 for 8(%rsp)): GCC keeps
    floating-point values there across calls -- the block counter's and the memory hooks' in a
    counted build -- where the P54C's x87 code keeps them on its register stack."""
    if not any("%xmm" in o for o in operands):
        return operands
    return [f"%stack{m.group(1) or 0}" if (m := _STACK_SLOT.match(o)) else o for o in operands]


def parse(line: str) -> Insn | None:
    """One instruction line of GCC's assembly output (None for labels, directives, blank lines)."""
    line = line.split("#", 1)[0].strip()
    if not line or line.startswith(".") or line.endswith(":"):
        return None
    for prefix in ("rep ", "repz ", "repnz ", "lock ", "notrack ", "bnd "):
        if line.startswith(prefix):
            line = line[len(prefix):].strip()
    parts = line.split(None, 1)
    mnemonic = parts[0]
    operands = _spill_slots(split_operands(parts[1]) if len(parts) > 1 else [])
    op, repeat = _op_of(mnemonic, operands)
    base = base_of(mnemonic)
    srcs, dests = _IMPLICIT.get(base, ((), ()))
    data, addr, written = list(srcs), [], list(dests)
    load = store = False
    if op.kind in ("branch", "call"):
        target = operands[0] if operands else ""
        for o in operands:  # an indirect jump or call reads its register or memory
            addr += [reg_name(r) for r in REG.findall(o)]
            load = load or (o.startswith("*") and is_memory(o[1:]))
        return Insn(mnemonic, operands, op, repeat, tuple(data), tuple(addr), tuple(written), load, store, target)
    zeroing = base in _ZEROING and len(operands) == 2 and operands[0] == operands[1]
    for o, reads, writes in _roles(base, operands):
        regs = [reg_name(r) for r in REG.findall(o)]
        if is_memory(o):
            addr += regs
            load, store = load or reads, store or writes
            continue
        if reads and not zeroing:
            data += regs
        if writes:
            written += regs
    return Insn(mnemonic, operands, op, repeat, tuple(data), tuple(addr), tuple(written), load, store, "")


def call_cycles(insn: Insn) -> int:
    """Extra cycles of a call into libm (what the P54C's x87 sequence costs), else 0."""
    name = insn.target.split("@", 1)[0]
    if name in LIBM_CYCLES:
        return LIBM_CYCLES[name]
    if name.endswith(("f", "l")) and name[:-1] in LIBM_CYCLES:
        return LIBM_CYCLES[name[:-1]]
    return 0

# --- the schedule ------------------------------------------------------------------------------

@dataclasses.dataclass
class Pipe:
    """The P54C's issue state while a block runs (cycles from the block's start)."""
    t: int = 0                 # the next cycle an instruction can issue in the U pipe
    ready: dict = dataclasses.field(default_factory=dict)  # register -> cycle its value is available
    fp_free: int = 0           # the next cycle the x87 unit takes an instruction
    fmul_free: int = 0
    fp_top: int = 0            # the cycle the last x87 arithmetic result is on the stack's top
    u_issue: int = -1          # the cycle of the last U-pipe instruction a V-pipe one may pair with
    u_dests: tuple = ()


def _cycles(insn: Insn) -> int:
    op = insn.op
    extra = op.mem_dst_extra if insn.store else op.mem_src_extra if insn.load else 0
    return op.cycles + extra + (call_cycles(insn) if op.kind == "call" else 0)


def issue(p: Pipe, insn: Insn) -> None:
    """Schedule one instruction in order: operands ready, the address-generation interlock (an
    address register written in the previous clock stalls one clock), the x87 unit free; a simple
    instruction pairs into the V pipe beside the U pipe's one when they are independent."""
    op = insn.op
    for _ in range(insn.repeat):
        if op.kind == "free":  # the value passes through unchanged
            value = max((p.ready.get(r, 0) for r in insn.data_srcs), default=0)
            for r in insn.dests:
                p.ready[r] = value
            continue
        earliest = 0
        for r in insn.data_srcs:
            earliest = max(earliest, p.ready.get(r, 0))
        for r in insn.addr_srcs:
            if r in p.ready:
                earliest = max(earliest, p.ready[r] + 1)
        fp = op.fp_latency > 0 or op.kind == "fp"
        arithmetic = op.fp_latency > 1 or op is FCOM
        if fp:
            earliest = max(earliest, p.fp_free)
            if op.fmul_busy:
                earliest = max(earliest, p.fmul_free)
        if arithmetic:  # x87 operates on the stack's top: no overlap without FXCH scheduling
            earliest = max(earliest, p.fp_top)
        cycles = _cycles(insn)
        pairs = (op.pair in ("uv", "v") and p.u_issue >= 0 and earliest <= p.u_issue and cycles == 1
                 and not set(insn.data_srcs + insn.addr_srcs + insn.dests) & set(p.u_dests))
        if pairs:
            start = p.u_issue
            p.u_issue, p.u_dests = -1, ()
        else:
            start = max(p.t, earliest)
            p.t = start + cycles
            first = op.pair in ("uv", "u") and cycles == 1
            p.u_issue, p.u_dests = (start, insn.dests) if first else (-1, ())
        done = start + (op.fp_latency if op.fp_latency else cycles)
        for r in insn.dests:
            p.ready[r] = done
        if fp:
            p.fp_free = start + op.fp_busy
            if op.fmul_busy:
                p.fmul_free = start + op.fmul_busy
        if arithmetic:
            p.fp_top = done


def block_cycles(insns: list[Insn], loops: bool = False) -> int:
    """P54C cycles of one pass through the block; for a block that branches back to its own start,
    the steady state (the fourth pass's cycles, the pipe's state carried from the third)."""
    p = Pipe()
    if not loops:
        for i in insns:
            issue(p, i)
        return p.t
    ends = []
    for _ in range(4):
        for i in insns:
            issue(p, i)
        ends.append(p.t)
    return ends[-1] - ends[-2]
