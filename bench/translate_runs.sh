#!/usr/bin/env bash
# The translation runs behind the figures of docs/languages.md (translating): the English gold
# test documents into it, de, es and fr, the English planned run into German, and the English
# gold dev documents into German, each in its own run folder under bench/runs/. Resumable: run
# it again after a stop and each run goes on where it was.
#   bash bench/translate_runs.sh MODEL.gguf [STEP...]   (steps: test-it test-de planned-de dev-de test-es test-fr)
# Options for every `gen translate` (e.g. --threads 2) go in TRANSLATE_OPTIONS.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: bench/translate_runs.sh MODEL.gguf [STEP...]}
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(test-it test-de planned-de dev-de test-es test-fr)
gen=.venv/bin/gen
read -r -a options <<<"${TRANSLATE_OPTIONS:-}"
runs=bench/runs
for step in "${steps[@]}"; do
  case $step in
    test-*) $gen translate --run $runs/qwen2.5-coder-1.5b-translated-gold-test --to "${step#test-}" \
              --from en --source bench/gold/gold-test.jsonl --model "$model" "${options[@]}" ;;
    dev-*) $gen translate --run $runs/qwen2.5-coder-1.5b-translated-gold-dev --to "${step#dev-}" \
              --from en --source bench/gold/gold-dev.jsonl --model "$model" "${options[@]}" ;;
    planned-*) $gen translate --run $runs/qwen2.5-coder-1.5b-translated-planned-en --to "${step#planned-}" \
              --source $runs/qwen2.5-coder-1.5b-planned-en.parquet --model "$model" "${options[@]}" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
