"""gen: synthetic sensitive documents written and labeled by a local LLM."""

__version__ = "0.1.0"
