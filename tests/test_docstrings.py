"""Every public name's docstring passes numpydoc's checks of its parameters and return value.

Public: each name in a module's ``__all__`` (the command line's modules, whose functions are its handlers,
excepted) and each public method a public class defines. Checked: PR01 (every parameter documented), PR07
(each with a description) and RT01 (a Returns section when the function returns something), as
scikit-learn's ``test_docstrings.py`` does for its own. ``python tests/test_docstrings.py [PREFIX]`` lists what
fails (under the modules starting with PREFIX).
"""

import importlib
import inspect
import pkgutil
import sys

import pytest

CHECKS = ("PR01", "PR07", "RT01")


def public_callables(prefix="mtbn"):
    """``{qualified name: object}`` of the public functions, classes and methods of the package."""
    import mtbn

    modules = ["mtbn"] + [m.name for m in pkgutil.walk_packages(mtbn.__path__, "mtbn.")
                          if not any(p.startswith("_") for p in m.name.split(".")) and not m.name.startswith("mtbn.cli")]
    found = {}
    for name in modules:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not obj.__module__.startswith("mtbn"):
                continue
            qualified = f"{obj.__module__}.{obj.__qualname__}"
            found.setdefault(qualified, obj)
            if inspect.isclass(obj):
                for method, value in vars(obj).items():
                    if not method.startswith("_") and (inspect.isfunction(value) or isinstance(value, property)):
                        found.setdefault(f"{qualified}.{method}", value)
    return {k: v for k, v in sorted(found.items()) if k.startswith(prefix)}


def failures(prefix="mtbn"):
    from numpydoc.validate import validate

    out = {}
    for name in public_callables(prefix):
        errors = [f"{code} {message}" for code, message in validate(name)["errors"] if code in CHECKS]
        if errors:
            out[name] = errors
    return out


def test_every_public_docstring_documents_its_parameters_and_return():
    pytest.importorskip("numpydoc")
    bad = failures()
    assert not bad, "\n".join(f"{name}: {'; '.join(errors)}" for name, errors in bad.items())


def test_the_check_sees_the_public_names():
    # Not an empty pass: the protocols, registries and learners are among the names checked.
    names = public_callables()
    for expected in ("mtbn.score.base.LocalScore.compute", "mtbn.score.registry.register_score",
                     "mtbn.priors.registry.register_prior", "mtbn.learn.multitask.learn_structures",
                     "mtbn.estimators.MultitaskStructureLearner.fit"):
        assert expected in names
    assert len(names) > 250


if __name__ == "__main__":
    bad = failures(sys.argv[1] if len(sys.argv) > 1 else "mtbn")
    for name, errors in bad.items():
        print(name)
        for e in errors:
            print("   ", e)
    print(len(bad), "failing")
