"""Parquet record files: the tables gen writes (`RUN/labeled/part-*.parquet`, a
`gen predict --out x.parquet`, an export's `train.parquet`) or any Parquet file with the
same columns, at least `id` and `text`. Read and validated as JSONL records are."""

from __future__ import annotations

from typing import ClassVar

from gen.importing.formats.jsonl import JsonlReader


class ParquetReader(JsonlReader):
    name: ClassVar[str] = "parquet"
    suffixes: ClassVar[tuple[str, ...]] = (".parquet",)
