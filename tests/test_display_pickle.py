"""A display graph crosses from the worker process to the window: it pickles, whatever the view."""
def test_a_presentation_display_graph_crosses_from_the_worker(analysis):
    """`gui M --presentation` failed with "Can't pickle local object 'node_sizer.<locals>.size'":
    the grouped graph of a larger font holds its sizer, and results cross the process boundary."""
    import pickle

    from vpu_core.config import ViewOptions
    from vpu_core.inspection import display_graph

    shown = display_graph(analysis("resnet8"), ViewOptions(label_scale=1.4, collapse_depth=1))
    back = pickle.loads(pickle.dumps(shown))
    assert back.grouped is not None and back.grouped.compound.size == shown.grouped.compound.size
    assert [back.layout.boxes[n.id] for n in back.model.nodes] == [shown.layout.boxes[n.id] for n in shown.model.nodes]
