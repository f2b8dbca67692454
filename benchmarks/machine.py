"""The machine a benchmark row was measured on: the CPU model and the flags that decide the
embedding path (AVX2; native bf16 as AVX512_BF16 or AMX), named on every row because the
same code runs several times faster or slower on another CPU kind (README, "Speed")."""

from __future__ import annotations

from pathlib import Path

# The flags that change which precision and query encoder win (ingest/precision.py,
# ingest/query_encoder.py), as /proc/cpuinfo names them.
KEY_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile")


def cpu_model_and_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, list[str]]:
    """The CPU's model name and which of ``KEY_FLAGS`` it has."""
    model, flags = "unknown", set[str]()
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model == "unknown":
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    return model, [f for f in KEY_FLAGS if f in flags]


def cpu_kind(flags: list[str]) -> str:
    """A short name for the CPU kind the figures belong to."""
    if "amx_bf16" in flags:
        return "AMX"
    if "avx512_bf16" in flags:
        return "AVX512_BF16"
    if "avx512f" in flags:
        return "AVX-512"
    return "AVX2" if "avx2" in flags else "no AVX2"
