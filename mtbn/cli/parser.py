"""The argument parser of ``mtbn``: one module per command (its options and its run function), each adding
its subparser; the option groups several commands share are in :mod:`mtbn.cli.options`.

A new command is one module with an ``add_parser(sub)`` function that adds its subparser and sets
``func`` to its run function, and one :func:`register_command` call (docs/contributing.md).
"""

from mtbn.cli import bench, cluster, demo, learn, relatedness, select
from mtbn.cli.options import _Parser

__all__ = ["build_parser", "register_command", "COMMANDS"]

#: The commands' ``add_parser`` functions, in the order ``mtbn --help`` lists them.
COMMANDS = [learn.add_parser, demo.add_parser, bench.add_parser, relatedness.add_parser, select.add_parser,
            cluster.add_parser]


def register_command(add_parser):
    """Add a command: ``add_parser(sub)`` adds its subparser to ``sub`` (``argparse`` subparsers) and sets
    ``func`` (the function that runs it with the parsed arguments and returns the exit status).

    Parameters
    ----------
    add_parser : callable
        Called with the subparsers object when the parser is built.

    Returns
    -------
    callable
        ``add_parser``, so that the function can decorate it.
    """
    if add_parser not in COMMANDS:
        COMMANDS.append(add_parser)
    return add_parser


def build_parser():
    """The ``mtbn`` parser; ``parser.commands`` maps each command's name to its subparser.

    Returns
    -------
    argparse.ArgumentParser
    """
    from mtbn import __version__

    parser = _Parser(
        prog="mtbn",
        description="Multitask Bayesian network structure learning: learn the structures of "
        "several related data sets jointly.",
    )
    parser.add_argument("--version", action="version", version=f"mtbn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    parser.commands = sub.choices
    for add in COMMANDS:
        add(sub)
    return parser
