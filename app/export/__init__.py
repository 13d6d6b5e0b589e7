"""Files made from what the window (or a headless run) shows: images, the HTML report, `render`."""
