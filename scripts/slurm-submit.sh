#!/bin/bash
# Submits the benchmark's job array, then the merge, which starts once every
# task of the array succeeded. Run it from the folder that holds instances/.
set -euo pipefail
here="$(dirname "$0")"
mkdir -p logs
array=$(sbatch --parsable "$here/slurm-bench.sbatch")
array="${array%%;*}"
# The merge is one job, whatever SBATCH_ARRAY_INX asked of the array.
merge=$(env -u SBATCH_ARRAY_INX sbatch --parsable --dependency=afterok:"$array" \
    "$here/slurm-merge.sbatch")
echo "submitted: job array ${array} (shards), job ${merge%%;*} (merge into results/)"
