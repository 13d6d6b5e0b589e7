"""The window's features as small controllers over one AppState (app.state): runs, display,
navigation, compare mode, the XNNPACK overlay, the presenter's walk, files, exports and what-if. Each gets
the widgets and peers it works with when the window composes it; none is a mixin."""
