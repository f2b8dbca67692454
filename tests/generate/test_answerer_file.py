"""A deployment's own answerer fit: saved by ``fit-answerer --save``, read back through
``DOCENT_ANSWERER_FIT``, refused whole when it is not a fit."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from docent.errors import ConfigError
from docent.settings import Settings
from docent.wiring import Services
from generate.answer_gate import AnswerGate
from generate.answerer_file import (
    FITTED_WEIGHTS,
    FittedAnswerer,
    answerer_choice,
    load_fit,
    save_fit,
)
from generate.errors import AnswererFileError
from generate.extractive import ExtractiveGenerator
from generate.unit_scoring import Weights

# A fit from a corpus whose scores run higher: more lexical weight, a higher bar.
FIT = FittedAnswerer(
    Weights(block=0.376, lexical=1.457, fit=0.475, meta=0.322, rank=0.015, min_score=2.057),
    AnswerGate(intercept=1.555, block=-0.904, lead=8.713, margin=-2.064, threshold=0.3),
    "realdev.jsonl, dev split, 108 cases, index_version 333",
)


def saved(tmp_path: Path, fitted: FittedAnswerer = FIT) -> Path:
    path = tmp_path / "answerer.json"
    save_fit(path, fitted)
    return path


def test_a_saved_fit_reads_back_whole(tmp_path: Path) -> None:
    assert load_fit(saved(tmp_path)) == FIT


def test_the_answerer_answers_with_the_fit_in_the_settings(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, answerer_fit=saved(tmp_path))  # type: ignore[call-arg]
    generator = Services(settings).generator
    assert isinstance(generator, ExtractiveGenerator)
    assert generator.weights == FIT.weights and generator.gate == FIT.gate


def test_settings_given_explicitly_win_over_the_file(tmp_path: Path) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path,
        answerer_fit=saved(tmp_path),
        extractive_min_score=1.5,
        answer_confidence=0.0,
    )
    generator = Services(settings).generator
    assert isinstance(generator, ExtractiveGenerator)
    assert generator.weights == replace(FIT.weights, min_score=1.5)
    assert generator.gate == replace(FIT.gate, threshold=0.0)


def test_the_fit_applies_through_the_environment_and_answers_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.setenv("DOCENT_ANSWERER_FIT", str(saved(tmp_path)))
    choice = answerer_choice(Settings(data_dir=tmp_path))
    assert choice.weights == FIT.weights and choice.gate == FIT.gate
    assert "realdev.jsonl, dev split" in choice.source
    generator = Services(Settings(data_dir=tmp_path)).generator
    assert isinstance(generator, ExtractiveGenerator) and generator.weights == FIT.weights
    # A bar set in the environment wins over the file's, and the source says so.
    monkeypatch.setenv("DOCENT_EXTRACTIVE_MIN_SCORE", "0.5")
    choice = answerer_choice(Settings(data_dir=tmp_path))
    assert choice.weights == replace(FIT.weights, min_score=0.5)
    assert "min_score 0.5 from DOCENT_EXTRACTIVE_MIN_SCORE" in choice.source


def test_an_empty_setting_means_no_fit() -> None:
    settings = Settings(_env_file=None, answerer_fit="  ")  # type: ignore[call-arg, arg-type]
    assert settings.answerer_fit is None
    assert answerer_choice(settings).source.startswith("built-in fit")


def _rewrite(path: Path, change: dict[str, object]) -> Path:
    body = json.loads(path.read_text(encoding="utf-8"))
    for dotted, value in change.items():
        section, _, key = dotted.partition(".")
        if key:
            if value is None:
                del body[section][key]
            else:
                body[section][key] = value
        else:
            body[section] = value
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": 1}, "not a fit file of format 2"),
        ({"weights.lexical": None}, "'weights' fields differ: missing ['lexical']"),
        ({"gate.bias": 1.0}, "'gate' fields differ: missing [], unknown ['bias']"),
        ({"weights.block": "0.3"}, "'weights.block' must be a finite number, got '0.3'"),
        ({"weights.fit": True}, "'weights.fit' must be a finite number, got True"),
        ({"weights.rank": -1.0}, "margins and the rank penalty must be >= 0"),
        ({"gate.threshold": 1.5}, "threshold must be within [0, 1]"),
        ({"weights": [1, 2]}, "'weights' must be an object"),
    ],
)
def test_a_file_that_is_not_a_fit_is_refused_whole(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = _rewrite(saved(tmp_path), change)
    with pytest.raises(AnswererFileError) as raised:
        load_fit(path)
    assert str(path) in str(raised.value) and message in str(raised.value)
    assert isinstance(raised.value, ConfigError)


def test_a_missing_or_broken_file_names_itself(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(AnswererFileError, match=r"nope\.json: cannot read it"):
        load_fit(missing)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": 1, "weights": ', encoding="utf-8")
    with pytest.raises(AnswererFileError, match=r"broken\.json: not JSON"):
        load_fit(broken)
    # Through the settings: the answerer is never built on half a fit.
    settings = Settings(_env_file=None, data_dir=tmp_path, answerer_fit=missing)  # type: ignore[call-arg]
    with pytest.raises(AnswererFileError, match="cannot read it"):
        _ = Services(settings).generator


def test_the_file_holds_what_was_fitted_and_not_the_codes_margins(tmp_path: Path) -> None:
    body = json.loads(saved(tmp_path).read_text(encoding="utf-8"))
    assert set(body["weights"]) == set(FITTED_WEIGHTS) and "same_block_margin" not in body
    margins = replace(FIT.weights, same_block_margin=0.3)  # not fitted: not saved
    path = tmp_path / "margins.json"
    save_fit(path, FittedAnswerer(margins, FIT.gate, "x"))
    assert load_fit(path).weights.same_block_margin == Weights().same_block_margin
