"""Speed of the encoder detector's feature pass: tokens/s and seconds per document, one
document per forward pass against several documents sharing one pass (no cache).

    .venv/bin/python bench/bench_encoder.py [--encoder MODEL.gguf] [--threads 2] \
        [FILES: bench/gold/gold-test.jsonl]

Run it alone on an idle machine (another model process halves it or worse). Labeling with
`gen label --strategy detector` costs this pass plus the head (milliseconds); compare with
the prompted labeler's seconds per document from bench/bench_label_strategies.py on the
same machine and model.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gen.backends.llama_cpp_encoder import LlamaCppEncoder
from gen.backends.models import embedded_model_path
from gen.core.record_files import read_record_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="*", default=[Path("bench/gold/gold-test.jsonl")])
    parser.add_argument("--encoder", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    texts = [r.text for path in args.files for r in read_record_file(path, "records")]
    encoder = LlamaCppEncoder(args.encoder or embedded_model_path(), threads=args.threads)
    encoder.encode(texts[:1])  # warm-up: the first pass maps the weights
    print(f"{len(texts)} documents, encoder {encoder.model_path.name}, dim {encoder.dimension}")
    for group in (1, 8):
        started, cpu = time.perf_counter(), time.process_time()
        tokens = 0
        for start in range(0, len(texts), group):
            tokens += sum(len(v.offsets) for v in encoder.encode(texts[start : start + group]))
        seconds = time.perf_counter() - started
        print(
            f"{group} document(s) per call: {tokens / seconds:.1f} tokens/s, "
            f"{seconds / len(texts):.2f} s/document ({(time.process_time() - cpu) / len(texts):.2f}"
            " CPU s/document)"
        )
    encoder.close()


if __name__ == "__main__":
    main()
