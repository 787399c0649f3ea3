"""The Label Studio labeling config of a review project, written and checked.

A project `gen review push` creates gets one `<Labels>` control on the task's
`text`: the sensitive categories of `prompts/categories.yaml`, then the PII
labels the pushed spans use, with the colours of `gen inspect`. A project that
already exists is read instead, with the SDK's own parser, and must offer every
label the pushed spans use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from gen.core.errors import ConfigError
from gen.core.packs import Categories, default_prompts_dir
from gen.core.yamlio import load_model
from gen.inspect.page import label_colors

#: Names of the controls in the configs gen writes.
LABELS_NAME = "label"
TEXT_NAME = "text"
#: Task data keys the config shows: the document and a one-line header.
TEXT_KEY = "text"
HEADER_KEY = "header"


@dataclass(frozen=True)
class LabelTarget:
    """Where a project's span labels live: `from_name`/`to_name` of its results."""

    from_name: str
    to_name: str
    labels: tuple[str, ...]


def category_labels(prompts_dir: Path | None = None) -> list[str]:
    """Span labels of the sensitive categories, in `categories.yaml` order."""
    path = (prompts_dir or default_prompts_dir()) / "categories.yaml"
    categories = load_model(path, Categories).categories
    return [info.label for info in categories.values() if info.sensitive]


def review_labels(categories: Sequence[str], labels_in_use: Iterable[str]) -> list[str]:
    """The categories, then the other labels in use (PII types), sorted."""
    extra = sorted(set(labels_in_use) - set(categories))
    return [*categories, *extra]


def labeling_config(labels: Sequence[str]) -> str:
    """XML of a span-labeling interface over `$text` with a `$header` line above it."""
    view = ElementTree.Element("View")
    ElementTree.SubElement(view, "Header", value=f"${HEADER_KEY}", size="5")
    control = ElementTree.SubElement(
        view, "Labels", name=LABELS_NAME, toName=TEXT_NAME, showInline="true"
    )
    colors = label_colors(labels)
    for label in labels:
        ElementTree.SubElement(control, "Label", value=label, background=colors[label])
    ElementTree.SubElement(view, "Text", name=TEXT_NAME, value=f"${TEXT_KEY}")
    ElementTree.indent(view)
    return ElementTree.tostring(view, encoding="unicode")


def label_target(config: str, needed: Iterable[str], *, project: str) -> LabelTarget:
    """The labels control of `config` over `$text`, or a ConfigError naming the
    project and what it lacks."""
    from label_studio_sdk.label_interface import LabelInterface

    try:
        interface = LabelInterface(config)
    except Exception as exc:  # the SDK raises bare Exception subclasses for bad XML
        raise ConfigError(
            f"project {project}: its labeling config cannot be read ({exc})"
        ) from None
    for control in interface.ner_tags:
        texts = [o for o in control.objects if o.tag == "Text" and o.value == f"${TEXT_KEY}"]
        if texts:
            target = LabelTarget(control.name, texts[0].name, tuple(control.labels))
            break
    else:
        raise ConfigError(
            f"project {project}: its labeling config has no <Labels> control on a "
            f'<Text value="${TEXT_KEY}">; expected one like `gen review push` creates'
        )
    missing = sorted(set(needed) - set(target.labels))
    if missing:
        raise ConfigError(
            f"project {project}: its labeling config lacks the labels {', '.join(missing)}; "
            "add them to its <Labels> (Settings > Labeling Interface) or push to a new "
            "project with --project"
        )
    return target
