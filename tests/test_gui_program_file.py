"""An already quantized program in the window: the quantizer switch shows it does not apply.

The .pt2 is a real XNNPACK program written by `save_program`; the window opens it as a user
would (File ▸ Open), then a zoo model gives the switch back."""
from vpu_core.config import RunConfig


def test_a_quantized_program_greys_the_quantizer_switch_and_a_model_gives_it_back(
        qtbot, window, tmp_path, run_and_wait):
    from vpu_core.session import Session

    program = tmp_path / "xq.pt2"
    Session(disk_cache=False).save_program(RunConfig(model="conv_relu", quantizer="xnnpack", calib_batches=1),
                                           program)
    controls = window.controls
    shown = run_and_wait(window, action=lambda: window.files.open_model_path(str(program)))
    assert (shown.analysis.quantizer, shown.analysis.already_quantized) == ("xnnpack", True)
    for button in (controls.vpu_button, controls.xnn_button):
        assert not button.isEnabled()
        assert "by the XNNPACK quantizer" in button.toolTip() and "does not apply" in button.toolTip()
    assert not controls.weights.isEnabled()
    assert "XNNPACK (program file)" in window.summary.text()

    run_and_wait(window, RunConfig(model="conv_relu", quantizer="xnnpack", calib_batches=1))
    assert controls.vpu_button.isEnabled() and controls.xnn_button.isEnabled()
    assert controls.vpu_button.toolTip() == "" and controls.weights.isEnabled()   # XNNPACK: per-channel/per-tensor
