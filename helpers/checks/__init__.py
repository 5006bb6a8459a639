"""Check cells for the exercises (introduced in notebook 00), all reachable as ``checks.<name>``.

A check prints one line starting ``Correct:`` or raises ``CheckFailed`` with one sentence on what to
change, and first catches an exercise left blank. Each notebook's checks live in their own module.
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
