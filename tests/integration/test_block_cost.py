"""Counted computation priced by content (docs/model.md "Computation"): the P54C schedule of a
block (src/launch/blockcost/p54c_timing.py), the blocks of GCC's assembly and their cost counted
inline or in markers (asm_blocks.py, inline_hooks.py), gcc's -wrapper (openscc-cc1) and the
runtime."""
import re
import subprocess
import sys

import pytest

import openscc_testlib as lib

sys.path.insert(0, str(lib.REPO / "src" / "launch" / "blockcost"))
import asm_blocks  # noqa: E402
import p54c_timing  # noqa: E402


def cycles(*lines, loops=False):
    return p54c_timing.block_cycles([p54c_timing.parse(x) for x in lines], loops)


# --- the P54C schedule ---------------------------------------------------------------------------

def test_independent_integer_instructions_pair_dependent_ones_do_not():
    assert cycles("addl $1, %eax", "addl $1, %ebx") == 1
    assert cycles("addl $1, %eax", "addl %eax, %ebx") == 2


def test_an_address_register_written_just_before_stalls_a_clock():
    assert cycles("addq $8, %rbx", "movl (%rbx), %eax") == 3
    assert cycles("addq $8, %rbx", "movl (%rcx), %eax") == 1


def test_memory_operands_cost_as_in_the_pentium_tables():
    assert cycles("addl (%rbx), %eax") == 2
    assert cycles("addl %eax, (%rbx)") == 3
    assert cycles("cmpl $0, (%rbx)") == 2


def test_floating_point_latency_on_the_x87_stack():
    assert cycles("addsd %xmm1, %xmm0", "addsd %xmm2, %xmm0") == 4  # the second waits 3 clocks
    # independent, but both on the stack's top: no overlap without FXCH scheduling
    assert cycles("addsd %xmm1, %xmm0", "addsd %xmm3, %xmm2") == 4
    assert cycles("mulsd %xmm1, %xmm0", "mulsd %xmm3, %xmm2") == 4
    # loads push onto the stack: they do not wait for the arithmetic
    assert cycles("mulsd %xmm1, %xmm0", "movsd (%rax), %xmm2", "movsd (%rbx), %xmm3") == 3
    # FDIV: 39 clocks of latency; integer work overlaps it, the store of its result waits
    assert cycles("divsd %xmm1, %xmm0", "addl $1, %eax") == 2
    assert cycles("divsd %xmm1, %xmm0", "movsd %xmm0, (%rdi)") == 41


def test_long_integer_instructions():
    assert cycles("imull %ecx, %eax") == 9
    assert cycles("idivl %ecx") == 46
    assert cycles("divl %ecx") == 41


def test_a_loop_is_charged_its_dependency_chain():
    body = ("addsd %xmm1, %xmm0", "jne .L3")
    assert cycles(*body) == 2
    assert cycles(*body, loops=True) == 3  # the accumulator's FADD latency, iteration to iteration


def test_spills_of_floating_point_values_cost_nothing_but_keep_the_chain():
    chain = ("movsd 8(%rsp), %xmm0", "addsd (%rbx), %xmm0", "movsd %xmm0, 8(%rsp)", "jne .L3")
    assert cycles(*chain, loops=True) == 3
    assert cycles("movsd %xmm0, 8(%rsp)") == 0
    assert cycles("movsd %xmm0, 8(%rbx)") == 2  # a real store: FST m64


def test_libm_calls_cost_their_x87_sequence_and_unknown_instructions_a_clock():
    assert cycles("call sin@PLT") == 1 + p54c_timing.LIBM_CYCLES["sin"]
    assert cycles("call sqrtf@PLT") == 1 + p54c_timing.LIBM_CYCLES["sqrt"]
    assert cycles("call printf@PLT") == 1
    assert cycles("vfmadd231sd %xmm1, %xmm2, %xmm0") == 1


# --- blocks in GCC's assembly --------------------------------------------------------------------

ASM = """\
	.type	f, @function
f:
.LFB0:
	pushq	%rbx
	call	__sanitizer_cov_trace_pc@PLT
	testl	%edi, %edi
	jle	.L4
	movl	$7, %eax
.L3:
	movq	%rbx, %rbp
.LVL2:
	call	__sanitizer_cov_trace_pc@PLT
	leaq	(%r12,%rbp,8), %rdi
	call	__asan_load8_noabort@PLT
	addsd	(%r12,%rbp,8), %xmm0
	cmpq	%rbx, %r13
	jne	.L3
	call	__sanitizer_cov_trace_pc@PLT
	ret
.L4:
	xorl	%eax, %eax
	ret
	.size	f, .-f
"""


def test_blocks_follow_the_counting_calls():
    blocks = asm_blocks.blocks_by_function(ASM.splitlines(keepends=True))["f"]
    assert [[i.mnemonic for i in b.insns] for b in blocks] == [
        ["pushq", "testl", "jle"],             # the prologue is the first block's
        ["movq", "addsd", "cmpq", "jne"],      # from its label; the hook and its address left out
        ["ret"],
    ]
    assert blocks[1].labels == [".L3"]
    # "movl $7, %eax" (a block without a counting call) and .L4's code are not counted
    assert blocks[1].cycles() == p54c_timing.block_cycles(blocks[1].insns, loops=True)


def test_priced_counts_each_block_inline_with_its_cycles():
    lines = ASM.splitlines(keepends=True)
    cycles = [b.cycles() for b in asm_blocks.blocks_by_function(lines)["f"]]
    out = "".join(asm_blocks.priced(lines))
    assert "__sanitizer_cov_trace_pc" not in out
    assert re.findall(r"\.Lopenscc_b\d+:\n\taddq\t\$(\d+), 8\(%r11\)", out) == [str(c) for c in cycles]
    # Taken out again, the inline code leaves the compiler's as it was, its hooks' calls (the slow
    # paths) included: the counting calls aside.
    got = "\tmovq\t__openscc_fast@GOTPCREL\\(%rip\\), %r11\n"
    without = re.sub(got + r"\taddq\t\$1, 0\(%r11\)\n(?:.*\n)*?\.Lopenscc_b\d+:\n\taddq.*\n", "", out)
    without = re.sub(got + r"(?:.*\n)*?\.Lopenscc_m\d+:\n", "", without)
    without = re.sub(r"\.Lopenscc_d\d+:\n", "", without)
    assert without == ASM.replace("\tcall\t__sanitizer_cov_trace_pc@PLT\n", "")


def test_with_called_hooks_each_blocks_cycles_follow_its_call():
    lines = ASM.splitlines(keepends=True)
    cycles = [b.cycles() for b in asm_blocks.blocks_by_function(lines)["f"]]
    out = "".join(asm_blocks.priced(lines, inline=False))
    assert re.findall(r"call\t__sanitizer_cov_trace_pc@PLT\n\t\.byte 0x0f, 0x1f, 0x80\n\t\.long (\d+)", out) == \
        [str(c) for c in cycles]
    for c in cycles:
        out = out.replace(asm_blocks.MARKER.format(c), "", 1)
    assert out == ASM


def test_the_inline_hooks_use_the_runtimes_offsets():
    """inline_hooks.FIELDS against the static assertions of src/timing/compute_count.c."""
    import inline_hooks
    text = (lib.REPO / "src" / "timing" / "compute_count.c").read_text()
    asserted = dict((f, int(o)) for f, o in re.findall(r"offsetof\(struct timing_fast_paths, (\w+)\) == (\d+)", text))
    assert asserted == inline_hooks.FIELDS
    assert f"#define CHECKPOINT_BLOCKS {inline_hooks.CHECKPOINT_BLOCKS}u" in text


def hooks_after_pricing(body: str) -> list[str]:
    """The hook calls priced() leaves in one block of body (instructions, one per line)."""
    asm = "\t.type\tf, @function\nf:\n\tcall\t__sanitizer_cov_trace_pc@PLT\n" + body + "\tret\n"
    return re.findall(r"call\t(__(?:asan_\w+|openscc_update\w+))",
                      "".join(asm_blocks.priced(asm.splitlines(keepends=True))))


def test_a_read_modify_writes_load_hook_becomes_an_update():
    # a[i]++: GCC checks the address once, before the load
    assert hooks_after_pricing("\tmovq\t%rbx, %rdi\n\tcall\t__asan_load4_noabort@PLT\n\taddl\t$1, (%rbx)\n") == \
        ["__openscc_update4"]
    # a[i] += b[i] with the pointer stepped between the argument's set-up and the store
    assert hooks_after_pricing("\tmovq\t%rbx, %rdi\n\taddq\t$8, %rbx\n\tcall\t__asan_load8_noabort@PLT\n"
                               "\tmovsd\t-8(%rbx), %xmm0\n\taddsd\t(%rbp), %xmm0\n\tmovsd\t%xmm0, -8(%rbx)\n") == \
        ["__openscc_update8"]
    assert hooks_after_pricing("\tleaq\t16(%r12,%rax,8), %rdi\n\tcall\t__asan_load8_noabort@PLT\n"
                               "\tmovsd\t%xmm1, 16(%r12,%rax,8)\n") == ["__openscc_update8"]


def test_a_load_stays_a_load_unless_its_own_address_is_stored_to():
    # another address
    assert hooks_after_pricing("\tmovq\t%rbx, %rdi\n\tcall\t__asan_load4_noabort@PLT\n\tmovl\t%eax, 4(%rbx)\n") == \
        ["__asan_load4_noabort"]
    # the base register reloaded: the same text is another address
    assert hooks_after_pricing("\tmovq\t%rbx, %rdi\n\tcall\t__asan_load4_noabort@PLT\n\tmovq\t(%rcx), %rbx\n"
                               "\tmovl\t%eax, (%rbx)\n") == ["__asan_load4_noabort"]
    # a store's own hook is not touched, nor is a load without a store
    assert hooks_after_pricing("\tmovq\t%rbx, %rdi\n\tcall\t__asan_store4_noabort@PLT\n\tmovl\t%eax, (%rbx)\n"
                               "\tmovq\t%rcx, %rdi\n\tcall\t__asan_load4_noabort@PLT\n\tmovl\t(%rcx), %eax\n") == \
        ["__asan_store4_noabort", "__asan_load4_noabort"]


# --- compiled programs ---------------------------------------------------------------------------

def counting(binary):
    """(calls of the block hook, calls of the inline counter's checkpoint) in a binary's disassembly."""
    dis = subprocess.run(["objdump", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    return (len(re.findall(r"call\s+\w+ <__sanitizer_cov_trace_pc(?:@plt)?>", dis)),
            len(re.findall(r"call\s+\w+ <__openscc_checkpoint(?:@plt)?>", dis)))


@pytest.mark.parametrize("pipe", [False, True], ids=["files", "pipe"])
def test_every_counted_block_of_a_build_carries_its_cost(build, scratch, pipe):
    out = scratch / "block_cost"
    cmd = [str(build.rccecc), "--model-build", "-O2", *(["-pipe"] if pipe else []),
           str(lib.PROGRAMS / "block_cost.c"), "-o", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=lib.HARD_TIMEOUT)
    assert p.returncode == 0, p.stderr
    calls, counted_inline = counting(out)
    assert calls == 0 and counted_inline > 10


def test_inline_hooks_count_exactly_as_called_ones(build, scratch):
    """The same program with the hooks' fast paths inline and with every hook a call
    (OPENSCC_CALLED_HOOKS=1): the same virtual time, cache misses and write-backs, to the picosecond,
    for loads, stores and read-modify-writes that hit and miss both levels."""
    lib.skip_without_memory_hooks(build)
    binaries = {}
    for name, env in (("inline", {}), ("called", {"OPENSCC_CALLED_HOOKS": "1"})):
        binaries[name] = scratch / f"cache_walk_{name}"
        p = subprocess.run([str(build.rccecc), "--model-build", "-O2", str(lib.PROGRAMS / "cache_walk.c"), "-o",
                            str(binaries[name])], capture_output=True, text=True, timeout=lib.HARD_TIMEOUT,
                           env={**lib.base_env(build), **env})
        assert p.returncode == 0, p.stderr
    assert counting(binaries["called"])[0] > 10
    keys = ("seconds", "l1_read_misses", "l2_read_misses", "l1_write_misses", "write_backs", "cache_wait_s")
    for mode in ("read", "write", "update", "dirty"):
        for size in (4096, 64 << 10, 1 << 20):
            got = {}
            for name, prog in binaries.items():
                job = scratch / f"job-{name}-{mode}-{size}"
                res = lib.rccerun(build, "-nue", "1", "--model", "scc", "--job-dir", str(job), prog, mode, str(size), "3")
                assert res.rc == lib.RC_OK, res
                ue = lib.check_summary(job / "summary.json")["ues"][0]
                got[name] = {k: ue[k] for k in keys}
            assert got["inline"] == got["called"], (mode, size)


def per_iteration(build, scratch, prog, mode, chip=None):
    job = scratch / f"job-{mode}"
    res = lib.rccerun(build, "-nue", "1", "--model", "scc", *(["--chip", str(chip)] if chip else []),
                      "--job-dir", str(job), "--replace-job-dir", prog, mode, "20000")
    assert res.rc == lib.RC_OK, res
    return float(re.search(r"cycles (\S+)", res.out)[1])


def test_computation_is_charged_by_what_blocks_contain(build, compile_program, scratch):
    if build.asan:
        pytest.skip("AddressSanitizer's inline checks split the loops into blocks of their own code")
    prog = compile_program(build, "block_cost", "--model-build")
    adds, divs, branchy = (per_iteration(build, scratch, prog, m) for m in ("adds", "divs", "branchy"))
    assert divs >= 39 > 4 * adds  # a dependent FDIV chain against a dependent FADD chain
    # a test that is never taken adds its compare and branch, not a second loop's worth
    assert adds < branchy < adds + 20


def test_the_same_build_gives_the_same_time_on_every_run(build, compile_program, scratch):
    prog = compile_program(build, "block_cost", "--model-build")
    assert len({per_iteration(build, scratch, prog, "ints") for _ in range(3)}) == 1


def test_blocks_without_a_cost_are_charged_the_flat_constant(build, scratch):
    """A program instrumented without rccecc's wrapper: every block costs time_compute_bb_cycles."""
    out = scratch / "block_cost_flat"
    p = subprocess.run([str(build.rccecc), "-O2", "-fsanitize-coverage=trace-pc", str(lib.PROGRAMS / "block_cost.c"),
                        "-o", str(out)], capture_output=True, text=True, timeout=lib.HARD_TIMEOUT)
    assert p.returncode == 0, p.stderr
    assert counting(out) == (counting(out)[0], 0) and counting(out)[0] > 10
    flat = per_iteration(build, scratch, out, "adds")
    chip = scratch / "flat.chip"
    chip.write_text("base = scc\nname = flat\ntime_compute_bb_cycles = 100\n")
    assert per_iteration(build, scratch, out, "adds", chip) == pytest.approx(flat * 100 / 42.7, rel=0.01)
