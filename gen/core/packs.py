"""The prompt YAMLs in `prompts/`: categories, formats and one pack per language.

Everything a user may edit to fit their domain and language lives there; this
module validates it on load, so a typo fails at start-up with the file, line
and key, never half-way through a run. The schemas of a pack's `language.yaml`,
`persona.yaml`, `generation.yaml` and `taxonomy.yaml` are in `gen.core.pack_language`,
`gen.core.pack_persona`, `gen.core.pack_generation` and `gen.core.pack_taxonomy`;
`facts.yaml` (read only by `gen documents --disclosures planned`) in `gen.core.pack_facts`;
`quality.yaml` (read only by `gen score`) in `gen.core.pack_quality`; `translation.yaml` (read
only by `gen translate`) in `gen.core.pack_translation`.
"""

from __future__ import annotations

import hashlib
from functools import cache, cached_property
from pathlib import Path

from pydantic import Field, field_validator, model_validator

from gen.core.errors import ConfigError, UsageError
from gen.core.pack_facts import Facts
from gen.core.pack_generation import CHAT_FORMAT, GenerationPrompts
from gen.core.pack_language import Language, UnitRules
from gen.core.pack_persona import PersonaConfig
from gen.core.pack_quality import QUALITY_FILE, QualityPrompts
from gen.core.pack_shapes import ShapeProblem, Shapes
from gen.core.pack_taxonomy import DocType, Taxonomy
from gen.core.pack_translation import TRANSLATION_FILE, TranslationPrompts
from gen.core.placeholders import check_placeholders
from gen.core.records import label_problem
from gen.core.yamlio import StrictModel, load_model, located_message


def default_prompts_dir() -> Path:
    """The `prompts/` folder of this checkout, or of a copy named by `--prompts`."""
    return Path(__file__).resolve().parents[2] / "prompts"


class CategoryInfo(StrictModel):
    label: str
    sensitive: bool
    description: str = ""

    @field_validator("label")
    @classmethod
    def _label_is_a_name(cls, value: str) -> str:
        problem = label_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class Categories(StrictModel):
    categories: dict[str, CategoryInfo] = Field(min_length=1)

    @model_validator(mode="after")
    def _has_negative(self) -> Categories:
        if not self.negative:
            raise ValueError(
                "no category has `sensitive: false`; one is needed for the negatives "
                "(e.g. other: {label: other, sensitive: false})"
            )
        return self

    @property
    def sensitive(self) -> list[str]:
        return [name for name, info in self.categories.items() if info.sensitive]

    @property
    def negative(self) -> list[str]:
        """Categories of texts that disclose nothing sensitive, in file order."""
        return [name for name, info in self.categories.items() if not info.sensitive]

    @property
    def negative_labels(self) -> tuple[str, ...]:
        """Span labels that mean "nothing sensitive": scored as no label, and the label
        of text outside every span (the first one)."""
        return tuple(dict.fromkeys(self.categories[name].label for name in self.negative))


class RawFormat(StrictModel):
    template: str
    stop: tuple[str, ...] = ()

    @field_validator("template")
    @classmethod
    def _known_placeholders(cls, value: str) -> str:
        return check_placeholders(value, {"system", "instruction", "response_prefix"})


class Formats(StrictModel):
    formats: dict[str, RawFormat]

    def check_option(self, name: str | None) -> None:
        """Refuse a `--prompt-format` that is neither `chat` nor a raw format of
        formats.yaml, before a command locks, loads or writes anything."""
        if name is not None and name != CHAT_FORMAT and name not in self.formats:
            raise UsageError(
                f"--prompt-format {name!r}: expected {CHAT_FORMAT!r} or one of "
                f"{', '.join(self.formats)} (prompts/formats.yaml)"
            )


class LanguagePack:
    """The validated prompt files of one language."""

    def __init__(self, root: Path, code: str, categories: Categories, formats: Formats):
        folder = root / code
        if not folder.is_dir():
            raise _unknown_language(root, code)
        self.root = root
        self.code = code
        self.folder = folder
        self.categories = categories
        self.formats = formats
        self.language = load_model(folder / "language.yaml", Language)
        self.persona = load_model(folder / "persona.yaml", PersonaConfig)
        self.taxonomy = load_model(
            folder / "taxonomy.yaml", Taxonomy, categories=list(categories.categories)
        ).root
        self.generation = load_model(
            folder / "generation.yaml", GenerationPrompts, gendered=list(self.language.gendered)
        )
        self._check_cross_references()

    def _check_cross_references(self) -> None:
        missing = [name for name in self.categories.categories if name not in self.taxonomy]
        if missing:
            raise ConfigError(
                f"{self.folder / 'taxonomy.yaml'}: category {missing[0]!r} has no document types"
            )
        for name, prompts in self.taxonomy.items():
            if self.categories.categories[name].sensitive and not prompts.sensitive_info:
                raise ConfigError(
                    f"{self.folder / 'taxonomy.yaml'}: {name}.sensitive_info: a sensitive "
                    "category needs at least one phrase"
                )
        fmt = self.generation.format
        if fmt != CHAT_FORMAT and fmt not in self.formats.formats:
            raise ConfigError(
                f"{self.folder / 'generation.yaml'}: format: unknown format {fmt!r}; expected "
                f"{CHAT_FORMAT!r} or one of {', '.join(self.formats.formats)} "
                "(prompts/formats.yaml)"
            )

    @cached_property
    def units(self) -> UnitRules:
        """The `units` block, with the pack's code as the sentence language by default."""
        rules = self.language.units
        if rules.sentence_language is None:
            rules = rules.model_copy(update={"sentence_language": self.code})
        return rules

    @cached_property
    def facts(self) -> Facts:
        """`facts.yaml`, loaded when first asked for: only planned disclosures need it."""
        return load_model(self.folder / "facts.yaml", Facts, sensitive=self.categories.sensitive)

    @cached_property
    def quality(self) -> QualityPrompts:
        """`quality.yaml`, loaded when first asked for: only `gen score` needs it."""
        path = self.folder / QUALITY_FILE
        prompts = load_model(path, QualityPrompts)
        if prompts.format != CHAT_FORMAT and prompts.format not in self.formats.formats:
            raise ConfigError(
                f"{path}: format: unknown format {prompts.format!r}; expected {CHAT_FORMAT!r} "
                f"or one of {', '.join(self.formats.formats)} (prompts/formats.yaml)"
            )
        return prompts

    @cached_property
    def translation(self) -> TranslationPrompts:
        """`translation.yaml`, loaded when first asked for: only `gen translate --to` this
        language needs it."""
        path = self.folder / TRANSLATION_FILE
        if not path.is_file():
            raise UsageError(
                f"{path}: not found; translating into {self.code!r} needs the pack's "
                f"translation prompts (docs/languages.md, translating)"
            )
        prompts = load_model(path, TranslationPrompts)
        if prompts.format != CHAT_FORMAT and prompts.format not in self.formats.formats:
            raise ConfigError(
                f"{path}: format: unknown format {prompts.format!r}; expected {CHAT_FORMAT!r} "
                f"or one of {', '.join(self.formats.formats)} (prompts/formats.yaml)"
            )
        return prompts

    @cached_property
    def shapes(self) -> Shapes:
        """`shapes.yaml`, loaded when first asked for: only layout and topic-only documents
        need it (`gen documents --layout-share`, `--topic-share`); checked against the
        pack's categories, document types and fact value lists."""
        path = self.folder / "shapes.yaml"
        if not path.is_file():
            raise UsageError(
                f"{path}: not found; layout and topic-only documents need the pack's "
                "shapes.yaml (docs/generation.md, document shapes)"
            )
        type_categories: dict[str, set[str]] = {}
        for category, prompts in self.taxonomy.items():
            for doc_type in prompts.doc_types:
                type_categories.setdefault(doc_type.name, set()).add(category)
        shapes = load_model(
            path, Shapes, sensitive=self.categories.sensitive, doc_types=set(type_categories)
        )
        try:
            shapes.check_against(type_categories)
        except ShapeProblem as exc:
            raise ConfigError(located_message(path, exc.loc, str(exc))) from None
        return shapes

    def doc_types(self, category: str) -> list[DocType]:
        return self.taxonomy[category].doc_types

    @cached_property
    def files_sha256(self) -> str:
        """One hash over every prompt file this pack uses, for the run manifest."""
        digest = hashlib.sha256()
        files = [self.root / "categories.yaml", self.root / "formats.yaml"]
        files += sorted(self.folder.glob("*.yaml"))
        for path in files:
            digest.update(path.relative_to(self.root).as_posix().encode())
            digest.update(path.read_bytes())
        return digest.hexdigest()


def prompts_root(prompts_dir: Path | None = None) -> Path:
    """`prompts_dir`, or this checkout's prompts; a UsageError when it is not a folder."""
    root = Path(prompts_dir) if prompts_dir else default_prompts_dir()
    if not root.is_dir():
        raise UsageError(f"prompts folder {root} does not exist")
    return root


def pack_codes(root: Path) -> list[str]:
    """Every language pack under `root`: the folders with a `language.yaml`."""
    return sorted(p.name for p in root.iterdir() if (p / "language.yaml").is_file())


def _unknown_language(root: Path, code: str) -> UsageError:
    return UsageError(
        f"no prompts for language {code!r} in {root}; available: {', '.join(pack_codes(root))}"
    )


def check_language(code: str, prompts_dir: Path | None = None) -> None:
    """Fail unless `prompts_dir` has a pack for language `code` (without loading it)."""
    root = prompts_root(prompts_dir)
    if not code or not (root / code / "language.yaml").is_file():
        raise _unknown_language(root, code)


def load_categories(prompts_dir: Path | None = None) -> Categories:
    """`categories.yaml` of `prompts_dir` (default: this checkout's prompts)."""
    return load_model(prompts_root(prompts_dir) / "categories.yaml", Categories)


@cache
def negative_labels(prompts_dir: Path | None = None) -> tuple[str, ...]:
    """The labels of the non-sensitive categories (`other`): the default of every
    option that needs them, for stages that do not read the prompts themselves."""
    return load_categories(prompts_dir).negative_labels


def load_language_pack(language: str, prompts_dir: Path | None = None) -> LanguagePack:
    root = prompts_root(prompts_dir)
    categories = load_categories(root)
    formats = load_model(root / "formats.yaml", Formats)
    return LanguagePack(root, language, categories, formats)
