#!/bin/sh
# Running projects written for the UPMEM SDK on the emulator, unchanged: a Makefile
# project (sdk_project), a CMake project (tests/emu_programs/cmake_project: CMakeLists.txt,
# dpu/CMakeLists.txt, dpu/histogram.c, dpu/bins.c, host/app.c) and a Python script
# written for the SDK's module dpu (sdk_python/sum.py).
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

# [start-upmem-home]
echo "$UPMEM_HOME"
ls "$UPMEM_HOME/bin"
# [end-upmem-home]

# [start-cmake]
cmake -S ../../../tests/emu_programs/cmake_project -B "$BUILDDIR/cmake" -DNR_DPUS=64 >/dev/null
cmake --build "$BUILDDIR/cmake" >/dev/null
"$BUILDDIR/cmake/host_app"
# [end-cmake]

# [start-python]
python ../sdk_python/sum.py
# [end-python]
