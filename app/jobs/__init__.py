"""Long work off the GUI thread: thin Qt shells over the core session (vpu_core.session)."""
