"""Model code in a process of its own: forked from a server that has imported torch already.

A model file is the user's code: it may segfault, call os._exit, run out of memory or hang, and
torch.export and ExecuTorch's lowering change process-wide state. So neither the window nor the
sweep's driver runs it. Both fork their model processes from one multiprocessing fork server
(server.py) that imported torch (and what else its preload names) and ran nothing, so a child
starts in milliseconds as a fresh process would; each child is the leader of its own process
group, and stopping it (Cancel, a time limit, a superseded request) kills that whole group.

    server.py    the fork server (preloaded), a child's start, killing a process group
    preload.py   what the window's server imports before its first child: the first graph's path
    child.py     the window's worker process: runs job after job with its own session
    host.py      the window's side (no Qt): one worker at a time, its messages, its end in words
    jobs.py      the job kinds: one function each, run with the worker's session
    ending.py    how a run ended, in one sentence; os._exit / sys.exit of an in-process run as an error
"""
