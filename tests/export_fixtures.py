"""Helpers shared by the export tests: tokenizers trained on the spot, a run of en_US
queries, and a folder that the test process cannot write."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gen.core.packs import default_prompts_dir
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from scraping.queries.generate import generate_queries


def trained_tokenizer(folder: Path, texts: list[str]) -> Path:
    """A small WordPiece tokenizer with BERT's special tokens (no download)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, processors, trainers

    tokenizer = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    )
    tokenizer.train_from_iterator(texts, trainer)
    tokenizer.post_processor = processors.BertProcessing(
        ("[SEP]", tokenizer.token_to_id("[SEP]")), ("[CLS]", tokenizer.token_to_id("[CLS]"))
    )
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def byte_level_tokenizer(folder: Path, texts: list[str]) -> Path:
    """A byte-level BPE tokenizer with RoBERTa's special tokens (no download): its words
    split accents off NFD letters and keep a Chinese clause whole; its vocabulary is so
    small that emoji and Chinese characters stay several tokens, some of them straddling
    two characters."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, processors, trainers

    tokenizer = tokenizers.Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<s>", "</s>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(texts, trainer)
    tokenizer.post_processor = processors.RobertaProcessing(
        ("</s>", tokenizer.token_to_id("</s>")), ("<s>", tokenizer.token_to_id("<s>"))
    )
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def query_run(root: Path, n: int) -> Path:
    """`gen queries --locale en_US --n n` then `gen build`, as a user runs them."""
    generate_queries(root, locale="en_US", n=n, seed=0, prompts_dir=default_prompts_dir())
    build_dataset(root, BuildOptions(scheme="categories+pii"))
    return root


@contextlib.contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """`folder` read-only for this process (root ignores modes: then the immutable flag);
    skips the test where neither takes effect."""
    as_root = os.geteuid() == 0
    if as_root and shutil.which("chattr"):
        subprocess.run(["chattr", "+i", str(folder)], check=False, capture_output=True)
    else:
        folder.chmod(0o555)
    try:
        probe = folder / ".probe"
        try:
            probe.mkdir()
        except OSError:
            pass
        else:
            probe.rmdir()
            pytest.skip("cannot make a folder unwritable here")
        yield
    finally:
        if as_root and shutil.which("chattr"):
            subprocess.run(["chattr", "-i", str(folder)], check=False, capture_output=True)
        folder.chmod(0o755)
