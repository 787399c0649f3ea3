"""The Parquet part files of a record table, read back: each file checked to be a table of
records, and each id kept once over all the pieces.

Apart from `gen.core.store` because reading a part file is all a reader needs: the lock,
the journal's recovery and the writer's crash contract are the store's alone.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.errors import CorruptFileError
from gen.core.records import RECORD_SCHEMA
from gen.core.rows import table_problem


def read_part_file(path: Path) -> pa.Table:
    """The records of one part file, or one line naming it: unreadable, or not a table of
    records (read with the record schema, a foreign file would give rows of nulls)."""
    try:
        columns = pq.read_schema(path).names
        table = pq.read_table(path, schema=RECORD_SCHEMA)
    except (OSError, pa.ArrowException) as exc:
        raise CorruptFileError(
            f"{path} is not a readable Parquet file of records ({str(exc).splitlines()[0]}); "
            "it was damaged outside gen: move it out of the run folder and re-run (the stage "
            "then makes its records again)"
        ) from None
    problem = table_problem(table, columns)
    if problem:
        raise CorruptFileError(
            f"{path} is not a Parquet file of records: {problem}; it was written outside gen: "
            "move it out of the folder (or give it the record schema, gen.core.records) and "
            "re-run"
        )
    return table


def first_of_each_id(table: pa.Table) -> pa.Table:
    """`table` with each id's first row only."""
    ids = table.column("id").to_pylist()
    if len(set(ids)) == len(ids):
        return table
    seen: set[str] = set()
    keep = []
    for record_id in ids:
        keep.append(record_id not in seen)
        seen.add(record_id)
    return table.filter(pa.array(keep))
