"""Interoperability with Google's Model Explorer (ai-edge-model-explorer): what we compute, written
as its files (export), its node-data files read back as an overlay on our graph (overlay), and an
extension that opens a model file in it directly (explorer, the [model-explorer] extra).

Only `explorer.main` imports model_explorer; the rest writes and reads its JSON formats by hand
(tests check them against its node_data_builder and graph_builder types).
"""
