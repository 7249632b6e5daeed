#!/bin/sh
# Running a C project written for the UPMEM SDK on the emulator, unchanged.
# Run it from the repository root, with the virtual environment's python first on PATH:
#     PATH="$PWD/.venv/bin:$PATH" sh docs/tutorials/sdk_c_programs.sh
set -e
cd "$(dirname "$0")/sdk_project"
BUILDDIR="${BUILDDIR:-bin}"

# [start-env]
eval "$(python -m pyupmem env)"
command -v dpu-upmem-dpurte-clang
dpu-pkg-config --cflags --libs dpu
# [end-env]

# [start-make]
make -s clean BUILDDIR="$BUILDDIR"
make -s run BUILDDIR="$BUILDDIR" NR_DPUS=64 NR_TASKLETS=16
# [end-make]

# [start-other-size]
make -s clean BUILDDIR="$BUILDDIR"
make -s run BUILDDIR="$BUILDDIR" NR_DPUS=640 NR_TASKLETS=24
# [end-other-size]
