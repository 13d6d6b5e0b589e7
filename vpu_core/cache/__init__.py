"""The staged result cache: every pipeline stage's result, reused while its inputs are unchanged.

    stage         key covers (keys.py)                                  memory            disk (disk.py)
    export        model file bytes / zoo name, batch, dynamic, seed      float GraphModule  .pt2 (torch.export.save) + inputs .pt
    calibration   export + batches, seed, calibration file bytes         tensors            .pt (weights_only)
    quantized     calibration + quantizer, per-tensor, observers,         QuantizedModel     .pt: the qparams convert used
                  VPU: the profile's [ops] and [constraints]                            + program: the converted graph
                                                                                          (program_codec: JSON + tensors)
    analysis      quantized + profile text (+ XNNPACK lowering)          Analysis           .json (codec.py)
    int_sim       analysis key                                           IntSimReport       .json (codec.py)
    graph         analysis + view options                                DisplayGraph       -

Every key also covers the package versions and this package's own code. The session
(vpu_core.session) asks memory first, then disk, then runs the stage; `--no-cache` turns the disk
half off; VPU_INSPECTOR_CACHE_DIR moves it; VPU_INSPECTOR_CACHE_MAX_MB caps it (default 2 GiB).
Nothing read from disk is unpickled or executed: programs go through torch.export.load after a
check that no payload is pickled, tensors through torch.load(weights_only=True), results through
a JSON codec that can only build the analysis dataclasses. Entries are checksummed and written
atomically; a damaged one is deleted and rebuilt.
"""
