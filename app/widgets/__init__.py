"""Widgets: they draw the data they are given and announce what the user did (signals).

They never compute (numbers and their formatting come from the core) and never import torch:
`lint-imports` checks that, including indirect imports.
"""
