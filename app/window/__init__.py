"""The main window: lays out the widgets and composes the features over one AppState."""
