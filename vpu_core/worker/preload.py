"""What the window's worker server imports before it forks its first worker: the first graph's path.

torch and torch._dynamo (torch.export needs it: most of the seconds), the loaders and the export,
the predicted partition, the display graph and its layout, the cache and the session — nothing
more, since the first graph waits for these imports to end. torchao and ExecuTorch's quantizers
are imported by the worker when it prepares (vpu_core.pipeline.quantizer_calls.import_quantizer), after the
predicted graph is on screen; a model's own imports (transformers) by its model file.
Imports (and the cache keys' code hash) only: nothing here runs torch, so forking the server is safe.
"""
import torch  # noqa: F401
import torch._dynamo  # noqa: F401
import torch.export  # noqa: F401

import vpu_core.analysis.predicted  # noqa: F401
import vpu_core.analysis.rules  # noqa: F401
import vpu_core.cache.disk  # noqa: F401
import vpu_core.cache.profile_store  # noqa: F401
import vpu_core.cache.stage_store  # noqa: F401
import vpu_core.layout.grouped  # noqa: F401
import vpu_core.pipeline  # noqa: F401
import vpu_core.preview  # noqa: F401
import vpu_core.session  # noqa: F401
import vpu_core.worker.child  # noqa: F401
import vpu_core.zoo.models  # noqa: F401

from vpu_core.cache.keys import environment  # noqa: E402

# The content keys' hash of our code and package versions (a few hundred files read): once here,
# inherited by every worker, instead of on the first graph's path in each.
environment()

from vpu_core.worker.server import ready_to_fork  # noqa: E402

ready_to_fork()
