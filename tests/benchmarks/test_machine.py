"""Benchmark rows name the CPU: its model and the flags that decide the embedding path."""

from __future__ import annotations

from pathlib import Path

from benchmarks.machine import cpu_kind, cpu_model_and_flags


def test_the_cpu_model_and_its_key_flags_are_read(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nmodel name\t: AMD EPYC 7B13\n"
        "flags\t\t: fpu sse4_2 avx avx2 fma f16c\n\n"
        "processor\t: 1\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu\n"
    )
    assert cpu_model_and_flags(cpuinfo) == ("AMD EPYC 7B13", ["avx2"])
    assert cpu_model_and_flags(tmp_path / "missing") == ("unknown", [])


def test_the_cpu_kind_names_native_bf16() -> None:
    assert cpu_kind(["avx2"]) == "AVX2"
    assert cpu_kind(["avx2", "avx512f"]) == "AVX-512"
    assert cpu_kind(["avx2", "avx512f", "avx512_bf16"]) == "AVX512_BF16"
    assert cpu_kind(["avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile"]) == "AMX"
    assert cpu_kind([]) == "no AVX2"
