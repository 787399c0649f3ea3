import pytest

from gen.backends.base import ChatTemplate
from gen.backends.prompting import PromptParts, render_prompt
from gen.core.errors import ModelError, UsageError
from gen.core.packs import load_language_pack
from tests.fakes import SIMPLE_CHAT_TEMPLATE

PARTS = PromptParts(
    system="Be a generator.",
    instruction="Write a report on Anna.",
    response_prefix="Sure! Here's the generated document:\n",
)


@pytest.fixture(scope="module")
def formats():
    return load_language_pack("en").formats


def test_alpaca_format_ends_with_the_response_prefix(formats) -> None:
    rendered = render_prompt(PARTS, "alpaca", formats, None)
    assert rendered.text == (
        "Be a generator.\n\n### Instruction:\nWrite a report on Anna.\n\n### Response:\n"
        "Sure! Here's the generated document:\n"
    )
    assert "### Instruction:" in rendered.stop


def test_chat_format_uses_the_model_template_then_the_prefix(formats) -> None:
    rendered = render_prompt(PARTS, "chat", formats, SIMPLE_CHAT_TEMPLATE)
    assert rendered.text == (
        "<system>Be a generator.</system>\n<user>Write a report on Anna.</user>\n"
        "<assistant>Sure! Here's the generated document:\n"
    )
    assert rendered.stop == ()


def test_chat_format_without_a_template_is_a_usage_error(formats) -> None:
    with pytest.raises(UsageError, match="no chat template"):
        render_prompt(PARTS, "chat", formats, None)


def test_unknown_format_names_the_known_ones(formats) -> None:
    with pytest.raises(UsageError, match="alpaca"):
        render_prompt(PARTS, "vicuna", formats, None)


def test_a_template_that_raises_is_a_model_error(formats) -> None:
    strict = ChatTemplate("{{ raise_exception('roles must alternate') }}")
    with pytest.raises(ModelError, match="roles must alternate"):
        render_prompt(PARTS, "chat", formats, strict)
