"""The code the course's notebooks share; each module says which notebook introduces it.

Importing the package silences TensorFlow's C++ start-up messages, so that
``import helpers`` before ``import tensorflow`` is enough (see ``helpers.logs``).
"""

from .logs import quiet_native_logs

quiet_native_logs()
