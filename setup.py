"""What pyproject.toml cannot say: rl's DPU programs ship inside the rl package.

The DPU programs' C sources live in the top-level ``dpu_programs/`` folder (the design's
layout, shared by every application). pyproject.toml cannot map a folder outside a package
into it while still discovering packages, so this file does: ``dpu_programs/rl/`` becomes
the data package ``rl.dpu_programs`` of the wheel, where :func:`rl.kernel.kernel_source`
finds it in an installation that is not editable, and ``dpu_programs/mapping/`` becomes
``rl.mapping.dpu_programs`` (:data:`rl.mapping.workloads.PROGRAMS`), and
``dpu_programs/pimopt/`` becomes ``pimopt.dpu_programs`` (:func:`pimopt.kernel.kernel_source`),
and the headers the programs share, ``dpu_programs/common/``, become ``pyupmem.dpu_programs``
(:func:`pyupmem.apps.training.include_dir`).
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["pyupmem*", "rl*", "pimopt*"]),
        "rl.dpu_programs",
        "rl.mapping.dpu_programs",
        "pimopt.dpu_programs",
        "pyupmem.dpu_programs",
    ],
    package_dir={
        "rl.dpu_programs": "dpu_programs/rl",
        "rl.mapping.dpu_programs": "dpu_programs/mapping",
        "pimopt.dpu_programs": "dpu_programs/pimopt",
        "pyupmem.dpu_programs": "dpu_programs/common",
    },
)
