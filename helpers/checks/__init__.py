"""Check cells for the exercises: each says in plain words what is wrong.

Introduced in notebook 00. A check either prints one line that starts with
``Correct:`` or raises ``CheckFailed`` with one sentence on what to change.
Every check first catches an exercise left as it is in the student copy (the
answer still ``None``). Each notebook's checks live in their own module and
are all reachable as ``checks.<name>``.
"""

from ..problems import CheckFailed  # noqa: F401
from .notebook00 import *  # noqa: F401,F403
from .notebook01 import *  # noqa: F401,F403
from .notebook02 import *  # noqa: F401,F403
from .notebook03 import *  # noqa: F401,F403
from .notebook04 import *  # noqa: F401,F403
from .notebook05 import *  # noqa: F401,F403
from .notebook06 import *  # noqa: F401,F403
from .notebook07 import *  # noqa: F401,F403
from .notebook08 import *  # noqa: F401,F403
from .notebook09 import *  # noqa: F401,F403
from .notebook10 import *  # noqa: F401,F403
