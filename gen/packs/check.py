"""`gen packs check`: load every file of a language pack and render its prompts for a sample
of personas, so a pack writer sees every problem before a model writes a single document.

Loading finds what each file's schema refuses (file, line, key), and what follows another
country than the personas' locale (`gen.packs.conventions`). Rendering finds what only
shows in values: a persona value Faker wrote in English because the locale has no provider
of its own (`gen.packs.english`), a slash form such as "years/pre" inside a Faker value or
made by a template and a value together, an empty value. A problem met in many personas is
one line, with how many and an example.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gen.core.errors import GenError, UsageError
from gen.core.grammar import gendered_forms, slash_form
from gen.core.pack_persona import PersonaConfig
from gen.core.pack_quality import QUALITY_FILE
from gen.core.packs import (
    LanguagePack,
    check_language,
    load_language_pack,
    pack_codes,
    prompts_root,
)
from gen.generate.personas import draw_persona
from gen.generate.plan import prompt_parts
from gen.packs.conventions import convention_problems
from gen.packs.english import english_in, native_words, words_of
from labeling.strategies import load_labeling, strategies
from scraping.queries.templates import config_path as queries_path
from scraping.queries.templates import load_templates
from scraping.queries.values import locale_spec
from scraping.wikipedia.client import config_path as wikipedia_path
from scraping.wikipedia.client import load_config as load_wikipedia

#: The files of a pack folder that `load_language_pack` reads and checks together.
CORE_FILES = ("language.yaml", "persona.yaml", "taxonomy.yaml", "generation.yaml")


@dataclass
class PackReport:
    code: str
    files: list[str] = field(default_factory=list)
    personas: int = 0
    prompts: int = 0
    problems: list[str] = field(default_factory=list)


def _labeling(pack: LanguagePack) -> Path:
    load_labeling(pack, needed=[item.name for item in strategies()])
    return pack.folder / "labeling.yaml"


def _queries(pack: LanguagePack) -> Path:
    locale = pack.language.faker_locale
    path = queries_path(pack.root, locale)
    load_templates(pack.root, locale)
    try:
        locale_spec(locale)
    except UsageError as exc:
        raise UsageError(
            f"{path}: gen queries has no national identifiers for this locale ({exc}): add a "
            "LocaleSpec entry in scraping/queries/values/locales.py"
        ) from None
    return path


def _wikipedia(pack: LanguagePack) -> Path:
    load_wikipedia(pack.root, pack.code)
    return wikipedia_path(pack.root, pack.code)


def _facts(pack: LanguagePack) -> Path:
    pack.facts  # noqa: B018 (loading is the check; only --disclosures planned reads it)
    return pack.folder / "facts.yaml"


def _quality(pack: LanguagePack) -> Path:
    pack.quality  # noqa: B018 (loading is the check; only gen score reads it)
    return pack.folder / QUALITY_FILE


def _shapes(pack: LanguagePack) -> Path:
    pack.shapes  # noqa: B018 (loading is the check; only --layout-share/--topic-share read it)
    return pack.folder / "shapes.yaml"


#: The pack's other files, each loaded and checked on its own: a new file is one line here.
OTHER_FILES: tuple[Callable[[LanguagePack], Path], ...] = (
    _labeling,
    _facts,
    _quality,
    _shapes,
    _queries,
    _wikipedia,
)


def check_pack(root: Path, code: str, personas: int) -> PackReport:
    """Load every file of pack `code` and render its prompts for `personas` personas."""
    report = PackReport(code)
    try:
        pack = load_language_pack(code, root)
    except GenError as exc:
        report.problems += exc.problems
        return report
    report.files += [str(pack.folder / name) for name in CORE_FILES]
    for load in OTHER_FILES:
        try:
            report.files.append(str(load(pack)))
        except GenError as exc:
            report.problems += exc.problems
    report.problems += convention_problems(pack)
    _render(pack, personas, report)
    return report


class _Tally:
    """Problems met while rendering, one line each: how often, and the first example."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[int, str]] = {}

    def add(self, problem: str, example: str) -> None:
        count, first = self.seen.get(problem, (0, example))
        self.seen[problem] = (count + 1, first)

    def lines(self, personas: int) -> Iterator[str]:
        for problem, (count, example) in self.seen.items():
            yield f"{problem} in {count} of {personas} personas, e.g. {example}"


def _own_words(config: PersonaConfig) -> set[str]:
    """Every word the pack writes itself in persona.yaml: its own choice, never a leak."""
    texts = [form for job in config.jobs for form in gendered_forms(job)]
    texts += [*config.employers, *config.addresses, *config.month_names]
    texts += [word for words in config.lists.values() for word in words]
    texts += [*gendered_forms(config.doctor_title), config.gender.female, config.gender.male]
    return words_of(texts)


#: Persona fields Faker draws from a locale's own person provider: never English leaks.
_NAME_FIELDS = frozenset({"name", "first_name", "last_name", "doctor", "email"})


def _value_problems(value: str, check_english: bool, own: set[str]) -> Iterator[tuple[str, str]]:
    """(kind of problem, what was found) for one persona value."""
    if not value.strip():
        yield "empty value", ""
    found = slash_form(value)
    if found:
        yield "slash forms", found
    leaked = english_in(value, own) if check_english else []
    if leaked:
        yield "English words from Faker's English fallback (list the pack's own)", ", ".join(leaked)


def _render(pack: LanguagePack, personas: int, report: PackReport) -> None:
    locale = pack.language.faker_locale
    foreign = not locale.lower().startswith("en")
    own = _own_words(pack.persona) | (native_words(locale) if foreign else set())
    categories = list(pack.categories.categories)
    tally = _Tally()
    for seed in range(personas):
        persona = draw_persona(locale, pack.persona, seed)
        for name, value in persona.values.items():
            check_english = foreign and name not in _NAME_FIELDS
            for kind, found in _value_problems(value, check_english, own):
                tally.add(
                    f"persona.yaml: {name}: {kind}", f"{found!r} in {value!r} (persona {seed})"
                )
        category = categories[seed % len(categories)]
        doc_types = pack.doc_types(category)
        infos = pack.taxonomy[category].sensitive_info or [""]
        turn = seed // len(categories)
        parts = prompt_parts(
            pack, persona, category, doc_types[turn % len(doc_types)], infos[turn % len(infos)]
        )
        made_here = not any(slash_form(value) for value in persona.values.values())
        for part in ("system", "instruction"):
            found = slash_form(getattr(parts, part))
            if found and made_here:
                tally.add(
                    f"generation.yaml: {part}: slash form made by a template and a value",
                    f"{found!r} (persona {seed}, {category})",
                )
        report.prompts += 1
    report.personas = personas
    report.problems += [f"{pack.folder}/{line}" for line in tally.lines(personas)]


def check_packs(
    prompts_dir: Path | None, codes: list[str] | None, personas: int
) -> list[PackReport]:
    """A report per pack: `codes`, or every pack of the prompts folder."""
    root = prompts_root(prompts_dir)
    for code in codes or ():
        check_language(code, root)
    return [check_pack(root, code, personas) for code in codes or pack_codes(root)]
