"""The censor aligner: a rewritten document with tags back to character spans."""

from labeling.align.aligner import Alignment, align_censored, align_document

__all__ = ["Alignment", "align_censored", "align_document"]
