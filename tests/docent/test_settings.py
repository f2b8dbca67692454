import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from docent.settings import Settings, settings_field_names

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_setting_is_documented_in_the_readme() -> None:
    text = README.read_text()
    missing = [name for name in settings_field_names() if f"`{name}`" not in text]
    assert missing == []


def documented_defaults() -> dict[str, str]:
    """The README's settings table: each ``| `DOCENT_X` | `default` |`` row's default."""
    rows = re.findall(r"^\| `(DOCENT_[A-Z0-9_]+)` \| `([^`]*)` \|", README.read_text(), re.M)
    return dict(rows)


def test_every_documented_default_is_the_settings_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A default changed in the code and not in the README (or the other way) fails here:
    each documented default, read back as that setting's environment variable, gives what
    the setting is without it."""
    documented = documented_defaults()
    assert set(documented) == set(settings_field_names())
    for name in settings_field_names():
        monkeypatch.delenv(name, raising=False)
    defaults = Settings(_env_file=None)  # type: ignore[call-arg]
    differing = []
    for name, text in documented.items():
        field = name.removeprefix("DOCENT_").lower()
        if text == "(placeholder)":  # the secret key: the README does not print the dev value
            continue
        if text == "None":
            read = None
        else:
            with monkeypatch.context() as env:
                env.setenv(name, text)
                read = getattr(Settings(_env_file=None), field)  # type: ignore[call-arg]
        if read != getattr(defaults, field):
            differing.append((name, text, getattr(defaults, field)))
    assert differing == []


def test_env_vars_are_read_with_the_prefix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCENT_TOP_K", "7")
    monkeypatch.setenv("DOCENT_ACCESS_LEVELS", "public, internal ,secret")
    monkeypatch.setenv("DOCENT_DEFAULT_ACCESS_LEVEL", "internal")
    s = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    assert s.top_k == 7
    assert s.access_levels == ("public", "internal", "secret")


def test_default_level_must_be_a_configured_level(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="default_access_level"):
        Settings(_env_file=None, access_levels="a,b", default_access_level="employee")  # type: ignore[call-arg]


def test_placeholder_secret_refused_in_prod() -> None:
    with pytest.raises(ValidationError, match="DOCENT_SECRET_KEY"):
        Settings(_env_file=None, env="prod")  # type: ignore[call-arg]
    assert Settings(_env_file=None, env="prod", secret_key="a-real-secret-of-some-length")  # type: ignore[call-arg]


def test_openai_generator_needs_a_base_url() -> None:
    with pytest.raises(ValidationError, match="DOCENT_LLM_BASE_URL"):
        Settings(_env_file=None, generator="openai")  # type: ignore[call-arg]


def test_sqlite_under_data_dir_by_default(tmp_path: Path) -> None:
    s = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    assert s.resolved_database_url == f"sqlite:///{tmp_path.resolve() / 'docent.sqlite3'}"
    assert Settings(
        _env_file=None, database_url="postgresql://x@h/d"
    ).resolved_database_url.startswith(  # type: ignore[call-arg]
        "postgresql"
    )


@pytest.mark.parametrize("value", ["-0.1", "1.5"])
def test_answer_confidence_must_be_a_probability(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    monkeypatch.setenv("DOCENT_ANSWER_CONFIDENCE", value)
    with pytest.raises(ValidationError, match="answer_confidence"):
        Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
