"""Sphinx configuration of the pyupmem documentation.

Build it with (warnings are errors, as in the test suite)::

    .venv/bin/python -m sphinx -W -b html docs docs/_build/html
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# Importing rl and pyupmem for autodoc must not print fault messages or build anything
# more than the emulator (which autodoc never needs).
os.environ.setdefault("PYUPMEM_EMU_QUIET", "1")

project = "pyupmem"
author = "the pyupmem authors"
copyright = "2026, the pyupmem authors"
release = "0.1.0"
version = "0.1"

extensions = [
    # myst_nb: MyST Markdown (it loads myst_parser) and the tutorial notebook, shown with
    # the outputs it stores (tests/test_notebook.py executes it and checks them).
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "myst-nb", ".rst": "restructuredtext", ".ipynb": "myst-nb"}
nb_execution_mode = "off"  # the docs build runs nothing; the tests run the notebook
root_doc = "index"
exclude_patterns = ["_build", "examples", "tutorials/_out", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

autodoc_default_options = {
    "members": True,
    "undoc-members": True,
    "show-inheritance": True,
    "member-order": "bysource",
    # Document each method once, on the class that defines it: DpuSet, Rank, Dpu and
    # DpuSubset show "Bases: DpuGroup", which holds the operations they share. Members that
    # a class inherits from elsewhere in the packages are still listed on it, but never
    # what every exception, tuple or mapping has.
    "inherited-members": (
        "BaseException,Exception,tuple,dict,object,Mapping,Structure,Union,CDLL,DpuGroup"
    ),
}
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented_params"
autodoc_preserve_defaults = True
autodoc_class_signature = "mixed"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_attr_annotations = True
napoleon_use_ivar = True  # "Attributes:" sections as fields: no duplicate attribute entries

# Every cross-reference must resolve (warnings are errors), except to the outside world,
# whose inventories a build without network cannot fetch.
nitpicky = True
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(numpy|np|pathlib|os|ctypes|collections|typing|gymnasium|tqdm|enum|subprocess)(\..*)?",
    ),
    (r"py:.*", r"(array|Path|PathLike|CDLL|Structure|Union|Literal|ndarray|Env)"),
    (r"py:.*", r"(int|str|float|bool|bytes|list|dict|tuple|object|None|Any|Callable)"),
    (r"py:class", r"([A-Z]|Bool)"),  # shapes in docstrings: "bool (S,)", "(S, A)"
]

html_theme = "furo"
html_title = "pyupmem"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "source_repository": "",
    "navigation_with_keys": True,
}
pygments_style = "friendly"
pygments_dark_style = "monokai"


# --------------------------------------------------------------------------- API pages
# One reference page per module of pyupmem and rl, generated at every build so that a new
# module can never be missing from the reference (tests/test_docs.py checks every public
# name against the built inventory).

PACKAGES = ("pyupmem", "rl", "pimopt")
API_DIR = Path(__file__).resolve().parent / "reference" / "api"


@functools.cache
def api_modules() -> tuple[str, ...]:
    """Every module of the packages that the reference documents, packages first."""
    import importlib
    import pkgutil

    names: list[str] = []
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            last = info.name.rsplit(".", 1)[1]
            if last == "__main__":
                continue
            if last.startswith("_"):
                continue
            names.append(info.name)
    return tuple(names)


def _title(name: str) -> list[str]:
    text = f"``{name}``"
    return [text, "=" * len(text), ""]


def _package_page(name: str) -> str:
    import importlib

    package = importlib.import_module(name)
    lines = _title(name) + [
        f".. automodule:: {name}",
        "   :no-members:",
        "   :no-inherited-members:",
        "   :no-undoc-members:",
        "",
    ]
    exported = getattr(package, "__all__", None)
    if exported:
        lines += [
            f"``{name}`` re-exports these names from its modules; ``import {name}`` is enough",
            "to use them.",
            "",
            ".. list-table::",
            "   :header-rows: 1",
            "",
            "   * - name",
            "     - documented in",
        ]
        for item in exported:
            home = _defining_module(name, item)
            lines += [
                f"   * - :py:obj:`{name}.{item} <{home}.{item}>`",
                f"     - :py:mod:`{home}`",
            ]
        lines.append("")
    return "\n".join(lines)


def _defining_module(package: str, item: str) -> str:
    """The module of ``package`` whose source defines or assigns ``item`` at top level."""
    for module_name in api_modules():
        if module_name == package or not module_name.startswith(package + "."):
            continue
        if item in _top_level_names(module_name):
            return module_name
    return package


@functools.cache
def _top_level_names(module_name: str) -> frozenset[str]:
    """What a module's source defines or assigns at top level (parsed once: the package
    pages ask for each re-exported name)."""
    import ast
    import importlib

    module = importlib.import_module(module_name)
    names: set[str] = set()
    for node in ast.parse(Path(module.__file__).read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


def _foreign_data(module_name: str) -> list[str]:
    """``autodata`` lines for constants that automodule skips as "imported".

    autodoc takes a value whose ``__module__`` names another module (a ``Path`` says
    ``pathlib``) for an imported name; constants the module assigns itself still belong
    in its reference.
    """
    import ast
    import importlib

    from sphinx.pycode import ModuleAnalyzer

    module = importlib.import_module(module_name)
    documented = {name for _, name in ModuleAnalyzer.for_module(module_name).find_attr_docs()}
    tree = ast.parse(Path(module.__file__).read_text())
    lines = []
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets = [node.target.id]
        for target in targets:
            if target.startswith("_") or target in documented or not hasattr(module, target):
                continue  # private, or documented (autodoc keeps those)
            home = getattr(getattr(module, target), "__module__", None)
            value = getattr(module, target)
            if isinstance(home, str) and home != module_name and not callable(value):
                lines += [f".. autodata:: {module_name}.{target}", ""]
    return lines


def write_api_pages(app=None) -> None:
    API_DIR.mkdir(parents=True, exist_ok=True)
    wanted = {}
    import importlib

    for name in api_modules():
        module = importlib.import_module(name)
        if "." not in name or (hasattr(module, "__path__") and hasattr(module, "__all__")):
            # a package that re-exports names from its modules, documented there
            text = _package_page(name)
        else:
            text = "\n".join(_title(name) + [f".. automodule:: {name}", ""] + _foreign_data(name))
        wanted[f"{name}.rst"] = text
    for stale in API_DIR.glob("*.*"):
        if stale.name not in wanted:
            stale.unlink()
    for file_name, text in wanted.items():
        path = API_DIR / file_name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


# --------------------------------------------------------------------------- autodoc hooks


def _plain_first_colon(app, what, name, obj, options, lines) -> None:
    """Napoleon reads a data docstring "Text: more" as "type: description"; keep the text.

    Runs before napoleon and replaces the first line's colon with a look-alike (U+A789).
    """
    if what in ("data", "attribute", "property") and lines and ": " in lines[0]:
        head, tail = lines[0].split(": ", 1)
        if "`" not in head:
            lines[0] = f"{head}\ua789 {tail}"


def _public_bases(app, name, obj, options, bases) -> None:
    """Show only informative base classes: no private ones and no bare ``object`` (a class
    left with none gets no "Bases:" line, see :func:`_drop_empty_bases`)."""
    bases[:] = [
        base
        for base in bases
        if base is not object and not getattr(base, "__name__", "").startswith("_")
    ]


def _drop_empty_bases(app, doctree) -> None:
    """Remove the "Bases:" paragraph autodoc writes even when no base class is left."""
    from docutils import nodes

    for paragraph in list(doctree.findall(nodes.paragraph)):
        if paragraph.astext().strip() == "Bases:":
            paragraph.parent.remove(paragraph)


# Classes that users get from pyupmem, never construct: their constructor's parameters are
# internal, so the reference shows no signature for them.
INTERNAL_CONSTRUCTORS = {
    "pyupmem.dpus.group.DpuGroup",
    "pyupmem.dpus.views.Dpu",
    "pyupmem.dpus.views.Rank",
    "pyupmem.dpus.views.DpuSubset",
    "pyupmem.dpus.loaded_program.LoadedProgram",
}


def _hide_internal_constructors(app, what, name, obj, options, signature, return_annotation):
    if what == "class" and name in INTERNAL_CONSTRUCTORS:
        return "", None
    return None


def _skip_member(app, what, name, obj, skip, options):
    # The ``list`` field of libdpu's set union would make every "list" type ambiguous.
    if name == "list" and what == "class":
        return True
    return None


def _on_a_base_class(objects, target: str) -> list[str]:
    """``DpuSet.gather`` -> ``pyupmem.dpus.group.DpuGroup.gather``: the documented base class
    of the named class that defines the member."""
    import importlib

    owner, member = target.rsplit(".", 1)
    short = owner.rsplit(".", 1)[-1]
    for name in objects:
        if not (name == owner or name.endswith("." + short)) or objects[name].objtype != "class":
            continue
        module_name, _, class_name = name.rpartition(".")
        try:
            klass = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            continue
        for base in getattr(klass, "__mro__", ())[1:]:
            home = f"{base.__module__}.{base.__qualname__}.{member}"
            if home in objects:
                return [home]
    return []


def _resolve_short_names(app, env, node, contnode):
    """Resolve ``pyupmem.DpuSet``, ``Program``, ``DpuSet.load`` ... to the one documented
    object whose full name ends with them (re-exported or relative names)."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    import builtins

    if target in vars(builtins):  # TypeError, object ...: plain text, never a link elsewhere
        return contnode
    domain = env.get_domain("py")
    objects = domain.objects
    candidates = []
    if target.startswith(("pyupmem.", "rl.")):
        package, rest = target.split(".", 1)
        candidates = [n for n in objects if n.startswith(package + ".") and n.endswith("." + rest)]
    if not candidates:
        candidates = [n for n in objects if n.endswith("." + target)]
    if len(candidates) > 1:  # prefer the shortest path (DpuSet.load over Dpu.load ...)
        candidates.sort(key=lambda n: (n.count("."), n))
        if candidates[0].count(".") == candidates[1].count("."):
            owner = node.get("py:class") or ""
            preferred = [n for n in candidates if owner and f".{owner}." in n]
            on_set = [c for c in candidates if ".DpuSet." in c]
            candidates = preferred[:1] or on_set[:1] or candidates
    if not candidates and "." in target:  # a method documented once, on a base class
        candidates = _on_a_base_class(objects, target)
    if not candidates and "." in target:  # an attribute described in its class's docstring
        owner = target.rsplit(".", 1)[0]
        candidates = [n for n in objects if n == owner or n.endswith("." + owner)][:1]
    if not candidates and node.get("py:class") and node.get("reftype") in ("attr", "meth"):
        # an attribute of the current class that its docstring describes ("Attributes:")
        owner = node["py:class"]
        candidates = [n for n in objects if n.endswith("." + owner)][:1]
    if not candidates:
        return None
    from sphinx.util.nodes import make_refnode

    entry = objects[candidates[0]]
    return make_refnode(
        app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, candidates[0]
    )


def _source_of_private_bases(app, modname):
    """viewcode: source links for the methods a public class takes from a private base in
    another module (``DpuGroup.scatter`` is written as ``_Transfers.scatter`` in
    pyupmem/dpus/transfers.py): the module's tags, plus each such method under the public
    subclass's name."""
    if not modname.startswith(PACKAGES):
        return None
    import importlib

    from sphinx.pycode import ModuleAnalyzer

    try:
        module = importlib.import_module(modname)
        analyzer = ModuleAnalyzer.for_module(modname)
        analyzer.find_tags()
    except Exception:
        return None
    tags = dict(analyzer.tags)
    for name, value in vars(module).items():
        if not (isinstance(value, type) and name.startswith("_") and value.__module__ == modname):
            continue
        for child in value.__subclasses__():
            if child.__name__.startswith("_"):
                continue
            for tag, where in analyzer.tags.items():
                owner, _, member = tag.partition(".")
                if owner == name and member:
                    tags.setdefault(f"{child.__qualname__}.{member}", where)
    return analyzer.code, tags


def setup(app):
    app.connect("viewcode-find-source", _source_of_private_bases)
    app.connect("builder-inited", write_api_pages)
    app.connect("autodoc-process-docstring", _plain_first_colon, priority=400)
    app.connect("autodoc-process-bases", _public_bases)
    app.connect("autodoc-process-signature", _hide_internal_constructors)
    app.connect("doctree-read", _drop_empty_bases)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("missing-reference", _resolve_short_names)
