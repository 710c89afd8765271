"""Sharing spaces for C++ (include/scc_taco.hpp, docs/taco.md): the force loop of apps/taco_forces.cpp on a
replicated storage container gives the sequential run's bits on every UE count, natively and in model mode;
a MultipleWriter's disjoint changes from every UE all arrive."""
from __future__ import annotations

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun


def cxx_program(tmp_path_factory, source, *flags):
    """A C++ program built with each build's rccec++ once (module scope): build -> executable."""
    programs = {}

    def build_for(build):
        if build.dir not in programs:
            exe = tmp_path_factory.mktemp("taco") / source.stem
            p = lib.run([build.dir / "bin" / "rccec++", "-O2", "-Wall", "-Wextra", "-Werror", *flags, source,
                         "-o", exe])
            assert p.rc == 0, p
            programs[build.dir] = exe
        return programs[build.dir]
    return build_for


@pytest.fixture(scope="module")
def taco_forces(tmp_path_factory):
    return cxx_program(tmp_path_factory, lib.REPO / "apps" / "taco_forces.cpp")


@pytest.mark.parametrize("ues", [1, 3, 8])
def test_force_loop_matches_the_sequential_run(build, taco_forces, ues):
    res = rccerun(build, "-nue", ues, taco_forces(build), 40, 6)
    assert res.rc == lib.RC_OK, res
    assert res.out.splitlines() == ["taco_forces: 40 bodies, 6 steps, kinetic energy 9.477134", "taco_forces: OK"], res


def test_force_loop_in_model_mode(build, taco_forces):
    res = rccerun(build, "-nue", 4, "--model", "scc", taco_forces(build), 40, 6)
    assert res.rc == lib.RC_OK, res
    assert res.out.splitlines()[-1] == "taco_forces: OK", res


@pytest.fixture(scope="module")
def taco_containers(tmp_path_factory):
    return cxx_program(tmp_path_factory, lib.PROGRAMS / "taco_containers.cpp", "-I", lib.PROGRAMS)


@pytest.mark.parametrize("ues, cores, domains", [(1, None, 1), (3, None, 1), (8, "0,1,10,11,24,25,34,35", 4)])
def test_control_container_predicates_and_futures(build, taco_containers, ues, cores, domains):
    """A control container's members (one per UE, local and other), a deferred step, reductions of a struct by
    an op of its own and their deferred form, and the sharing domains' leaders and own-domain predicates: with
    UEs beside each of the four memory controllers there are four domains, two UEs each."""
    res = rccerun(build, "-nue", ues, *(["--cores", cores] if cores else []), taco_containers(build))
    assert res.rc == lib.RC_OK and "taco_containers: OK" in res.out, res
    lines = [line for line in res.out.splitlines() if "domain" in line]
    assert len(lines) == ues and all(line.endswith(f", {domains} domains") for line in lines), res


def test_control_container_in_model_mode(build, taco_containers):
    res = rccerun(build, "-nue", 4, "--model", "scc", taco_containers(build))
    assert res.rc == lib.RC_OK and "taco_containers: OK" in res.out, res
