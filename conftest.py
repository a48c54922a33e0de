"""pytest configuration shared by the test suite and the doctests."""

collect_ignore = ["mtbn/__main__.py", "benchmarks", "experiments"]
