"""The display graph: what the canvas and the renderer draw (GraphModel), built from an Analysis."""
