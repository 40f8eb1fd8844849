"""What several test modules share: MLIR builders, dataset rows, bundles, checks (docs/design.md §7).

A test module never imports another test module (``tests/test_layout.py``): pytest
would load it twice under two names, and a test file's helpers would move with it
whenever it moved.  So shared code lives here, imported as ``helpers.x`` (the
root ``conftest.py`` puts ``tests/`` on the path), and shared fixtures live in a
``conftest.py``.
"""
